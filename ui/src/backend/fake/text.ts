// Text helpers of the sample library's search: query terms and marked snippets.

const STOP_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'to', 'in', 'for', 'or', 'is', 'on', 'by', 'with']);

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Query terms: lower-cased words (dotted numbers kept whole), stop words dropped unless nothing else is left. */
export function queryTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}.'’-]+/u)
    .map((w) => w.replace(/^[.'’-]+|[.'’-]+$/g, ''))
    .filter((w) => w.length > 0);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)];
}

export function countOccurrences(haystack: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    count++;
    at = haystack.indexOf(needle, at + needle.length);
  }
  return count;
}

/** The text with every occurrence of the terms marked `[[like this]]`, cut to ~300 characters around the first. */
export function markSnippet(text: string, terms: string[], width = 300): string {
  const sorted = [...terms].filter(Boolean).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return text.slice(0, width);
  const re = new RegExp(sorted.map(escapeRegExp).join('|'), 'gi');
  const first = text.search(re);
  let from = 0;
  let to = text.length;
  if (text.length > width) {
    from = Math.max(0, (first === -1 ? 0 : first) - Math.floor(width / 3));
    to = Math.min(text.length, from + width);
    // Widen to word boundaries.
    while (from > 0 && /\S/.test(text[from - 1])) from--;
    while (to < text.length && /\S/.test(text[to])) to++;
  }
  const window = text.slice(from, to).replace(re, (m) => `[[${m}]]`);
  return `${from > 0 ? '… ' : ''}${window}${to < text.length ? ' …' : ''}`;
}
