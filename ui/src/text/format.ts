import type { PageRange } from '../backend/types';

/** "p. 12" or "pp. 12–13"; empty without pages. */
export function formatPages(pages: PageRange | null | undefined): string {
  if (!pages) return '';
  return pages.start === pages.end ? `p. ${pages.start}` : `pp. ${pages.start}–${pages.end}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The last component of a path, for either separator. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : path;
}

/** A duration for people: "0.4 s", "8.8 s", "2 min 5 s". */
export function formatSeconds(s: number): string {
  if (s < 60) return `${(Math.round(s * 10) / 10).toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}
