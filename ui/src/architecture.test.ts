// Checks the UI's architecture rules over its sources.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

const sources = files(SRC).filter((f) => !/\.test\.tsx?$/.test(f) && !f.includes(`${join('src', 'test')}`));

describe('architecture', () => {
  it('only backend/tauri.ts imports @tauri-apps', () => {
    const importers = sources.filter((f) => /from\s+['"]@tauri-apps\//.test(readFileSync(f, 'utf8')) || /import\(\s*['"]@tauri-apps\//.test(readFileSync(f, 'utf8')));
    expect(importers.map((f) => relative(SRC, f).replace(/\\/g, '/'))).toEqual(['backend/tauri.ts']);
  });

  it('never renders HTML from strings or evaluates code', () => {
    for (const f of sources) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/dangerouslySetInnerHTML|\.innerHTML\s*=|\.outerHTML\s*=|insertAdjacentHTML|\beval\(|new Function\(/);
    }
  });

  it('loads nothing remote and runs no inline script', () => {
    const html = readFileSync(join(SRC, '..', 'index.html'), 'utf8');
    const scripts = html.match(/<script\b[^>]*>([\s\S]*?)<\/script>/g) ?? [];
    for (const s of scripts) expect(s).toMatch(/<script[^>]*\bsrc=["'][^"']+["'][^>]*>\s*<\/script>/);
    const stylesheets = readdirSync(join(SRC, 'styles')).filter((f) => f.endsWith('.css'));
    expect(stylesheets.length).toBeGreaterThan(0);
    for (const f of stylesheets) {
      expect(readFileSync(join(SRC, 'styles', f), 'utf8'), f).not.toMatch(/url\(\s*['"]?https?:|@import/);
    }
    for (const f of sources) expect(readFileSync(f, 'utf8'), f).not.toMatch(/<(?:script|link)[^>]+https?:\/\//);
  });
});
