import { describe, expect, it } from 'vitest';
import { splitPathList } from './paths';

describe('splitPathList', () => {
  it('is empty for blank input', () => {
    expect(splitPathList('')).toEqual([]);
    expect(splitPathList('  \n\t \r\n ')).toEqual([]);
  });

  it('trims one path', () => {
    expect(splitPathList('  /home/me/rulebooks  ')).toEqual(['/home/me/rulebooks']);
  });

  it('splits lines', () => {
    expect(splitPathList('/a/One.pdf\r\n\n  /b/Two.docx \n')).toEqual(['/a/One.pdf', '/b/Two.docx']);
  });

  it("splits on ':' only when every part is absolute", () => {
    expect(splitPathList('/a/One.pdf:/b/Two.docx')).toEqual(['/a/One.pdf', '/b/Two.docx']);
    expect(splitPathList('/a/Notes: draft.md')).toEqual(['/a/Notes: draft.md']);
    expect(splitPathList('/a::/b')).toEqual(['/a::/b']);
    expect(splitPathList('C:\\Rules\\GEN.pdf')).toEqual(['C:\\Rules\\GEN.pdf']);
    expect(splitPathList('relative/x.pdf:/abs/y.pdf')).toEqual(['relative/x.pdf:/abs/y.pdf']);
  });

  it('adds a path once', () => {
    expect(splitPathList('/a\n/a:/b')).toEqual(['/a', '/b']);
  });
});
