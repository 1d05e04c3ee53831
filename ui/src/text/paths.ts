/**
 * The paths typed or pasted into "Add from a path".
 *
 * - One path per line (blank lines ignored, each line trimmed).
 * - A line may also be an OS path list joined by ':' (as in `$PATH`), but it is split only when
 *   every part is absolute (starts with '/'). Otherwise the line is one path, so a file name that
 *   contains ':' or a Windows path such as `C:\Rules` stays whole.
 * - The same path given twice is added once.
 */
export function splitPathList(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const parts = line.split(':').map((p) => p.trim());
    const list = parts.length > 1 && parts.every((p) => p.startsWith('/')) ? parts : [line];
    for (const p of list) if (!out.includes(p)) out.push(p);
  }
  return out;
}
