import { describe, expect, it } from 'vitest';
import { layoutTable, splitTables } from './tables';

const cellText = (text: string, rows: { start: number; end: number }[][]) =>
  rows.map((r) => r.map((c) => text.slice(c.start, c.end)));

describe('splitTables', () => {
  const table = '\tMarch 31, 2022\tDecember 31, 2021\nTotal assets\t$3,954,687\t$3,743,567\nTotal liabilities\t3,100\t2,900';
  const text = `Balance sheet (in thousands).\n\n${table}\n\nSee Note 4.`;
  const start = text.indexOf(table);

  it('cuts running text and tables apart, in order', () => {
    const parts = splitTables(text, [{ start, end: start + table.length, header_rows: 1 }]);
    expect(parts.map((p) => [p.kind, text.slice(p.start, p.end)])).toEqual([
      ['flow', 'Balance sheet (in thousands).'],
      ['table', table],
      ['flow', 'See Note 4.'],
    ]);
    const t = parts[1];
    if (t.kind !== 'table') throw new Error('not a table');
    expect(t.columns).toBe(3);
    expect(cellText(text, t.headerRows)).toEqual([['', 'March 31, 2022', 'December 31, 2021']]);
    expect(cellText(text, t.bodyRows)).toEqual([
      ['Total assets', '$3,954,687', '$3,743,567'],
      ['Total liabilities', '3,100', '2,900'],
    ]);
  });

  it('keeps all text when there are no tables, and drops marks past the text or overlapping', () => {
    expect(splitTables(text, [])).toEqual([{ kind: 'flow', start: 0, end: text.length }]);
    const parts = splitTables(text, [
      { start, end: start + table.length, header_rows: 0 },
      { start: start + 3, end: start + 9, header_rows: 0 },
      { start: 9999, end: 10000, header_rows: 0 },
    ]);
    expect(parts.filter((p) => p.kind === 'table')).toHaveLength(1);
  });

  it('pads short rows and never takes more header rows than there are', () => {
    const t = layoutTable('a\tb\tc\nd', { start: 0, end: 7, header_rows: 5 });
    expect(t.columns).toBe(3);
    expect(cellText('a\tb\tc\nd', t.headerRows)).toEqual([['a', 'b', 'c'], ['d', '', '']]);
    expect(t.bodyRows).toEqual([]);
  });
});
