// Shows that the UI matches error codes through the generated `ErrorCode` union: a code renamed in
// the Rust engine (so in the regenerated `bindings.ts`) is a TypeScript error where the UI uses it.
// The test copies `src` beside the real one, renames `damaged` in the copy's bindings and runs the
// TypeScript compiler on the copy.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ui = resolve(__dirname, '../..');
const tsc = join(ui, 'node_modules/.bin/tsc');

function typecheck(rename: [string, string] | null): { ok: boolean; output: string } {
  // Inside ui/ (git-ignored), so that the copy resolves ui/node_modules as the original does.
  const scratch = join(ui, '.typecheck');
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, 'copy-'));
  try {
    cpSync(join(ui, 'src'), join(dir, 'src'), { recursive: true });
    const config = JSON.parse(readFileSync(join(ui, 'tsconfig.json'), 'utf8'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...config, include: ['src'] }));
    if (rename) {
      const bindings = join(dir, 'src/backend/bindings.ts');
      const text = readFileSync(bindings, 'utf8');
      const [from, to] = rename;
      const line = text.split('\n').find((l) => l.startsWith('export type ErrorCode ='));
      expect(line, 'bindings.ts declares the ErrorCode union').toBeDefined();
      expect(line).toContain(`"${from}"`);
      writeFileSync(bindings, text.replace(line!, line!.replace(`"${from}"`, `"${to}"`)));
    }
    try {
      const output = execFileSync(tsc, ['--noEmit', '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
      return { ok: true, output };
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('error codes are typed end to end', () => {
  it('a renamed code is a type error where the UI matches it, and nowhere else', () => {
    const renamed = typecheck(['damaged', 'store_damaged']);
    expect(renamed.ok).toBe(false);
    const errors = renamed.output.split('\n').filter((l) => /error TS\d+/.test(l));
    // The exhaustive advice table and the Repair button's match both fail to compile.
    expect(errors.some((l) => l.includes('backend/errors.ts'))).toBe(true);
    expect(errors.some((l) => l.includes('components/ErrorNote.tsx'))).toBe(true);
    for (const l of errors) expect(l).toMatch(/damaged|store_damaged/);
  }, 180_000);

  it('the copy compiles as it is (the failure above is the rename alone)', () => {
    const same = typecheck(null);
    expect(same.output).toBe('');
    expect(same.ok).toBe(true);
  }, 180_000);
});
