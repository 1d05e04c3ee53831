import type { TableMark } from '../backend/types';

/** A range of a section's text (UTF-16 offsets, end exclusive). */
export type Range = { start: number; end: number };

/** A table cut into rows of cells, each cell a range of the section text. */
export type TableLayout = Range & { headerRows: Range[][]; bodyRows: Range[][]; columns: number };

/** A section's text as running text and tables, in order. */
export type Part = ({ kind: 'flow' } & Range) | ({ kind: 'table' } & TableLayout);

/**
 * Cuts a table's text (rows one per line, cells separated by tabs) into cell ranges, its first
 * `header_rows` rows apart from the body. Every row gets as many cells as the widest row, short
 * rows padded with empty cells at their end.
 */
export function layoutTable(text: string, mark: TableMark): TableLayout {
  const rows: Range[][] = [];
  let lineStart = mark.start;
  for (let i = mark.start; i <= mark.end; i++) {
    if (i === mark.end || text[i] === '\n') {
      const cells: Range[] = [];
      let cellStart = lineStart;
      for (let j = lineStart; j <= i; j++) {
        if (j === i || text[j] === '\t') {
          cells.push({ start: cellStart, end: j });
          cellStart = j + 1;
        }
      }
      if (i > lineStart) rows.push(cells);
      lineStart = i + 1;
    }
  }
  const columns = rows.reduce((n, r) => Math.max(n, r.length), 0);
  for (const r of rows) while (r.length < columns) r.push({ start: r[r.length - 1]?.end ?? mark.end, end: r[r.length - 1]?.end ?? mark.end });
  const head = Math.min(mark.header_rows, rows.length);
  return { start: mark.start, end: mark.end, headerRows: rows.slice(0, head), bodyRows: rows.slice(head), columns };
}

/**
 * Splits a section's text into running text and tables. Table marks are clamped to the text;
 * overlapping or out-of-order marks are dropped. The blank line the document model puts after a
 * block is left out of the running text that follows a table.
 */
export function splitTables(text: string, tables: TableMark[]): Part[] {
  const parts: Part[] = [];
  let pos = 0;
  const sorted = [...tables]
    .map((t) => ({ ...t, start: Math.max(0, Math.min(text.length, t.start)), end: Math.max(0, Math.min(text.length, t.end)) }))
    .filter((t) => t.end > t.start)
    .sort((a, b) => a.start - b.start);
  for (const t of sorted) {
    if (t.start < pos) continue;
    let flowEnd = t.start;
    while (flowEnd > pos && text[flowEnd - 1] === '\n') flowEnd--;
    if (flowEnd > pos) parts.push({ kind: 'flow', start: pos, end: flowEnd });
    parts.push({ kind: 'table', ...layoutTable(text, t) });
    pos = t.end;
    while (pos < text.length && text[pos] === '\n') pos++;
  }
  if (pos < text.length) parts.push({ kind: 'flow', start: pos, end: text.length });
  return parts;
}
