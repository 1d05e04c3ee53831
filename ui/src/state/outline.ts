import type { SectionRow } from '../backend/types';

export type OutlineNode = { section: SectionRow; children: OutlineNode[] };

/**
 * Builds the outline tree from each section's `parent_ord`. Sections whose parent is missing (or
 * would create a cycle) become roots; siblings keep document order.
 */
export function buildOutlineTree(sections: SectionRow[]): OutlineNode[] {
  const sorted = [...sections].sort((a, b) => a.ord - b.ord);
  const nodes = new Map<number, OutlineNode>();
  for (const s of sorted) nodes.set(s.ord, { section: s, children: [] });
  const roots: OutlineNode[] = [];
  for (const s of sorted) {
    const node = nodes.get(s.ord)!;
    const parent = s.parent_ord === null ? undefined : nodes.get(s.parent_ord);
    if (!parent || parent === node || isAncestor(node, s.parent_ord!, nodes)) roots.push(node);
    else parent.children.push(node);
  }
  return roots;
}

function isAncestor(node: OutlineNode, ord: number, nodes: Map<number, OutlineNode>): boolean {
  // Would attaching `node` under `ord` create a cycle? Walk up from `ord`.
  const seen = new Set<number>();
  let cur: number | null = ord;
  while (cur !== null && !seen.has(cur)) {
    if (cur === node.section.ord) return true;
    seen.add(cur);
    cur = nodes.get(cur)?.section.parent_ord ?? null;
  }
  return false;
}

/** The ords of a section's ancestors, nearest first. */
export function ancestorOrds(sections: SectionRow[], sectionId: string): number[] {
  const byOrd = new Map(sections.map((s) => [s.ord, s]));
  const start = sections.find((s) => s.section_id === sectionId);
  const out: number[] = [];
  const seen = new Set<number>();
  let cur = start?.parent_ord ?? null;
  while (cur !== null && !seen.has(cur) && byOrd.has(cur)) {
    out.push(cur);
    seen.add(cur);
    cur = byOrd.get(cur)!.parent_ord;
  }
  return out;
}
