// @vitest-environment node
// The production bundle, what the desktop app embeds: built with vite's own `build()` (the
// project's vite.config.ts, production mode) into a temporary folder, it must hold the app and
// nothing of the in-memory sample library, which `createBackend` loads only in development and
// tests.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTSIDE_DESKTOP } from './backend';
import samples from './backend/fake/samples.json';

const UI = join(__dirname, '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

let outDir = '';
let emitted: { name: string; text: string }[] = [];

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'folio-ui-bundle-'));
  // Vitest sets NODE_ENV=test, under which vite would build a development bundle (DEV true).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ root: UI, configFile: join(UI, 'vite.config.ts'), mode: 'production', logLevel: 'silent', build: { outDir, emptyOutDir: true } });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  emitted = filesUnder(outDir).map((f) => ({ name: relative(outDir, f), text: readFileSync(f, 'latin1') }));
}, 180_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('the production bundle', () => {
  it('holds the app, and the message it shows outside the desktop app', () => {
    expect(emitted.map((f) => f.name)).toContain('index.html');
    const scripts = emitted.filter((f) => f.name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const text of ['Welcome to Folio', OUTSIDE_DESKTOP]) {
      expect(scripts.some((f) => f.text.includes(text)), text).toBe(true);
    }
  });

  it('holds nothing of the sample library: no chunk for it, no sample document, not its class', () => {
    const hashes = samples.documents.map((d) => d.document.content_hash);
    expect(hashes.length).toBeGreaterThan(0);
    for (const needle of [...hashes, 'FakeBackend', '/Users/analyst/']) {
      const holders = emitted.filter((f) => f.text.includes(needle)).map((f) => f.name);
      expect(holders, needle).toEqual([]);
    }
  });
});
