import { useEffect, useMemo, useRef, useState } from 'react';
import type { SectionRow } from '../backend/types';
import { ChevronIcon } from '../components/Icons';
import { ancestorOrds, buildOutlineTree, type OutlineNode } from '../state/outline';
import { sectionName } from '../text/sections';

type Props = {
  sections: SectionRow[];
  currentId: string | null;
  onOpen(sectionId: string): void;
};

/** The document's outline: collapsible, the current section highlighted, its ancestors expanded. */
export function OutlineTree({ sections, currentId, onOpen }: Props) {
  const tree = useMemo(() => buildOutlineTree(sections), [sections]);
  const [expanded, setExpanded] = useState<Set<number>>(() => new Set());
  const rootRef = useRef<HTMLUListElement>(null);

  // A different document: start collapsed again.
  useEffect(() => setExpanded(new Set()), [sections]);

  // Expand the current section's ancestors (and the section itself, to show its children).
  useEffect(() => {
    if (!currentId) return;
    const cur = sections.find((s) => s.section_id === currentId);
    const open = [...ancestorOrds(sections, currentId), ...(cur ? [cur.ord] : [])];
    setExpanded((prev) => (open.every((o) => prev.has(o)) ? prev : new Set([...prev, ...open])));
  }, [sections, currentId]);

  useEffect(() => {
    const el = rootRef.current?.querySelector<HTMLElement>('[aria-current="true"]');
    el?.scrollIntoView?.({ block: 'nearest' });
  }, [currentId, expanded]);

  const toggle = (ord: number) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(ord)) next.delete(ord);
      else next.add(ord);
      return next;
    });

  const render = (node: OutlineNode, depth: number) => {
    const s = node.section;
    const isOpen = expanded.has(s.ord);
    const current = s.section_id === currentId;
    const hasChildren = node.children.length > 0;
    return (
      <li key={s.ord} role="none">
        <div className={`outline-row${current ? ' current' : ''}`} style={{ paddingLeft: `${depth * 14 + 4}px` }}>
          {hasChildren ? (
            <button
              type="button"
              className={`icon-button outline-toggle${isOpen ? ' open' : ''}`}
              aria-label={`${isOpen ? 'Collapse' : 'Expand'} ${s.heading}`}
              aria-expanded={isOpen}
              data-testid="outline-toggle"
              onClick={() => toggle(s.ord)}
            >
              <ChevronIcon size={14} />
            </button>
          ) : (
            <span className="outline-toggle-spacer" aria-hidden="true" />
          )}
          <button
            type="button"
            role="treeitem"
            aria-expanded={hasChildren ? isOpen : undefined}
            aria-current={current ? 'true' : undefined}
            aria-level={depth + 1}
            className="outline-item"
            data-testid="outline-item"
            data-section-id={s.section_id}
            title={s.heading}
            onClick={() => onOpen(s.section_id)}
          >
            {sectionName(s)}
          </button>
        </div>
        {hasChildren && isOpen && (
          <ul role="group" className="outline-children">
            {node.children.map((c) => render(c, depth + 1))}
          </ul>
        )}
      </li>
    );
  };

  return (
    <ul className="outline-tree" role="tree" aria-label="Outline" ref={rootRef}>
      {tree.map((n) => render(n, 0))}
    </ul>
  );
}
