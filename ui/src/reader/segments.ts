import type { LinkMark, TermMark } from '../backend/types';

export type Segment =
  | { kind: 'text'; text: string; start: number }
  | { kind: 'term'; text: string; start: number; mark: TermMark }
  | { kind: 'link'; text: string; start: number; mark: LinkMark };

/**
 * Splits section text at its term and link marks (UTF-16 offsets, as JavaScript strings use).
 * Marks are clamped to the text; where marks overlap, the earlier one wins (a link over a term
 * at the same start).
 */
export function segmentText(text: string, terms: TermMark[], links: LinkMark[]): Segment[] {
  type M = { start: number; end: number } & ({ kind: 'term'; mark: TermMark } | { kind: 'link'; mark: LinkMark });
  const marks: M[] = [
    ...links.map((m) => ({ start: m.start, end: m.end, kind: 'link' as const, mark: m })),
    ...terms.map((m) => ({ start: m.start, end: m.end, kind: 'term' as const, mark: m })),
  ]
    .map((m) => ({ ...m, start: Math.max(0, Math.min(text.length, m.start)), end: Math.max(0, Math.min(text.length, m.end)) }))
    .filter((m) => m.end > m.start)
    .sort((a, b) => a.start - b.start || (a.kind === b.kind ? b.end - a.end : a.kind === 'link' ? -1 : 1));
  const out: Segment[] = [];
  let pos = 0;
  for (const m of marks) {
    if (m.start < pos) continue; // overlaps a kept mark
    if (m.start > pos) out.push({ kind: 'text', text: text.slice(pos, m.start), start: pos });
    const slice = text.slice(m.start, m.end);
    if (m.kind === 'term') out.push({ kind: 'term', text: slice, start: m.start, mark: m.mark });
    else out.push({ kind: 'link', text: slice, start: m.start, mark: m.mark });
    pos = m.end;
  }
  if (pos < text.length) out.push({ kind: 'text', text: text.slice(pos), start: pos });
  return out;
}

/**
 * The segments of `text[start..end]`, with offsets into the whole text: marks are cut to the
 * range (a mark that crosses a table cell's edge is shown in part on each side).
 */
export function segmentRange(text: string, start: number, end: number, terms: TermMark[], links: LinkMark[]): Segment[] {
  const shift = <T extends { start: number; end: number }>(m: T): T => ({ ...m, start: m.start - start, end: m.end - start });
  const inside = (m: { start: number; end: number }) => m.end > start && m.start < end;
  return segmentText(text.slice(start, end), terms.filter(inside).map(shift), links.filter(inside).map(shift)).map((s) => ({
    ...s,
    start: s.start + start,
  }));
}
