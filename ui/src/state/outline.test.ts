import { describe, expect, it } from 'vitest';
import type { SectionRow } from '../backend/types';
import { ancestorOrds, buildOutlineTree, type OutlineNode } from './outline';

function section(ord: number, id: string, parent: number | null, level = 1): SectionRow {
  return {
    doc_id: 1,
    ord,
    section_id: id,
    number: null,
    title: id,
    heading: id,
    level,
    parent_ord: parent,
    pages: null,
    span: { start: ord * 10, end: ord * 10 + 9 },
  };
}

function shape(nodes: OutlineNode[]): unknown[] {
  return nodes.map((n) => (n.children.length ? { [n.section.section_id]: shape(n.children) } : n.section.section_id));
}

describe('buildOutlineTree', () => {
  it('nests sections under their parent_ord, keeping document order', () => {
    const sections = [
      section(0, '1', null),
      section(1, '1.1', 0, 2),
      section(2, '2', null),
      section(3, '2.1', 2, 2),
      section(4, '2.1.1', 3, 3),
      section(5, '2.1.2', 3, 3),
      section(6, '2.2', 2, 2),
    ];
    expect(shape(buildOutlineTree(sections))).toEqual([{ '1': ['1.1'] }, { '2': [{ '2.1': ['2.1.1', '2.1.2'] }, '2.2'] }]);
  });

  it('orders by ord even when the rows arrive shuffled', () => {
    const sections = [section(2, 'b', 0), section(0, 'root', null), section(1, 'a', 0)];
    expect(shape(buildOutlineTree(sections))).toEqual([{ root: ['a', 'b'] }]);
  });

  it('makes sections with a missing parent, or a cycle, into roots', () => {
    const sections = [section(0, 'x', 9), section(1, 'y', 2), section(2, 'z', 1), section(3, 'self', 3)];
    const tree = buildOutlineTree(sections);
    // Every section appears exactly once.
    const ids: string[] = [];
    const walk = (ns: OutlineNode[]) => ns.forEach((n) => (ids.push(n.section.section_id), walk(n.children)));
    walk(tree);
    expect(ids.sort()).toEqual(['self', 'x', 'y', 'z']);
    expect(tree.map((n) => n.section.section_id)).toContain('x');
    expect(tree.map((n) => n.section.section_id)).toContain('self');
  });

  it('returns an empty tree for no sections', () => {
    expect(buildOutlineTree([])).toEqual([]);
  });
});

describe('ancestorOrds', () => {
  it('lists a section’s ancestors nearest first', () => {
    const sections = [section(0, 'a', null), section(1, 'b', 0), section(2, 'c', 1), section(3, 'd', null)];
    expect(ancestorOrds(sections, 'c')).toEqual([1, 0]);
    expect(ancestorOrds(sections, 'd')).toEqual([]);
    expect(ancestorOrds(sections, 'missing')).toEqual([]);
  });
});
