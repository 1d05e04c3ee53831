import { describe, expect, it } from 'vitest';
import { segmentText } from './segments';

describe('segmentText', () => {
  const text = 'An Authorised Person must comply with Rule 2.1.3.';

  it('splits text at term and link marks', () => {
    const segs = segmentText(
      text,
      [{ start: 3, end: 20, term: 'Authorised Person', key: 'authorised person', definition_doc_id: 1, definition_section_id: 's_1' }],
      [{ start: 38, end: 48, label: 'Rule 2.1.3', target_doc_id: 1, target_section: 'sec_2_1_3', document: null }],
    );
    expect(segs.map((s) => [s.kind, s.text])).toEqual([
      ['text', 'An '],
      ['term', 'Authorised Person'],
      ['text', ' must comply with '],
      ['link', 'Rule 2.1.3'],
      ['text', '.'],
    ]);
    expect(segs.map((s) => s.text).join('')).toBe(text);
  });

  it('skips overlapping marks and clamps marks to the text', () => {
    const segs = segmentText(
      'abcdef',
      [
        { start: 1, end: 4, term: 'bcd', key: 'bcd', definition_doc_id: 1, definition_section_id: 's_1' },
        { start: 2, end: 3, term: 'c', key: 'c', definition_doc_id: 1, definition_section_id: 's_1' },
        { start: 5, end: 99, term: 'f', key: 'f', definition_doc_id: 1, definition_section_id: 's_1' },
      ],
      [{ start: 1, end: 3, label: 'bc', target_doc_id: null, target_section: null, document: null }],
    );
    expect(segs.map((s) => [s.kind, s.text])).toEqual([
      ['text', 'a'],
      ['link', 'bc'],
      ['text', 'de'],
      ['term', 'f'],
    ]);
  });

  it('uses UTF-16 offsets (as the engine sends them)', () => {
    const t = '😀 Authorised Person';
    // The emoji is two UTF-16 code units.
    const segs = segmentText(t, [{ start: 3, end: 20, term: 'Authorised Person', key: 'k', definition_doc_id: 1, definition_section_id: 's_1' }], []);
    expect(segs[1]).toMatchObject({ kind: 'term', text: 'Authorised Person' });
  });
});
