import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { DefinitionHit, LinkMark, SectionView, TermMark } from '../backend/types';
import type { Loc } from '../state/history';
import { useQuery } from '../state/query';
import type { Headings } from '../state/useHeadings';
import { segmentRange } from './segments';
import { splitTables } from './tables';

/** Whether a cell holds a figure ("$3,954,687", "(12.5)%", "—"): set right-aligned. */
function isFigure(cell: string): boolean {
  return /^[\s$€£¥(−–—-]*[\d.,]*\d[\d.,]*\s*[)%]*\s*$|^\s*[—–-]\s*$/.test(cell);
}

type Props = {
  view: SectionView;
  /** Definitions of a term (cached by the caller). */
  define(term: string): Promise<DefinitionHit[]>;
  onOpen(loc: Loc): void;
  headings?: Headings;
};

/** The open popover: its term, and the term's element, whose place it follows. */
type PopoverState = { mark: TermMark; start: number; el: HTMLElement; rect: DOMRect };

/** Where a link goes, or null when its target is not in the library. */
export function linkTarget(link: LinkMark, currentDoc: number): Loc | null {
  if (link.target_section) return { doc: String(link.target_doc_id ?? currentDoc), sectionId: link.target_section };
  if (link.target_doc_id !== null) return { doc: String(link.target_doc_id), sectionId: null };
  return null;
}

/** The definition that applies here: same document and scope first, then any. */
export function bestDefinition(defs: DefinitionHit[], mark: TermMark, view: SectionView): DefinitionHit | null {
  // The engine says which definition applies where the term is marked.
  const applied = defs.find(
    (d) => d.key === mark.key && d.doc_id === mark.definition_doc_id && d.section_id === mark.definition_section_id,
  );
  if (applied) return applied;
  const same = defs.filter((d) => d.key === mark.key);
  const pool = same.length ? same : defs;
  const here = new Set([...view.crumbs.map((c) => c.section_id), view.section.section_id]);
  let best: DefinitionHit | null = null;
  let bestScore = -1;
  for (const d of pool) {
    let score = 0;
    if (d.doc_id === view.doc_id) score += 2;
    if (d.scope_section === null) score += 1;
    else if (d.doc_id === view.doc_id && here.has(d.scope_section)) score += 4;
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/** A section's text with defined terms and cross-references marked, rendered as text nodes. */
export function SectionText({ view, define, onOpen, headings }: Props) {
  const parts = useMemo(() => splitTables(view.text, view.tables), [view]);
  const [popover, setPopover] = useState<PopoverState | null>(null);
  const hideTimer = useRef<number | undefined>(undefined);

  const cancelHide = () => window.clearTimeout(hideTimer.current);
  const show = (mark: TermMark, start: number, el: HTMLElement) => {
    cancelHide();
    setPopover({ mark, start, el, rect: el.getBoundingClientRect() });
  };
  const hideSoon = () => {
    cancelHide();
    hideTimer.current = window.setTimeout(() => setPopover(null), 250);
  };

  useEffect(() => () => cancelHide(), []);
  useEffect(() => setPopover(null), [view]);
  useEffect(() => {
    if (!popover) return;
    // The popover follows its term as the text scrolls (focusing a term scrolls it into view,
    // which used to close the popover it had just opened), and closes once the term is out of view.
    const el = popover.el;
    const follow = () => {
      const rect = el.getBoundingClientRect();
      const visible = rect.bottom > 0 && rect.top < window.innerHeight && el.isConnected;
      setPopover((p) => (p && p.el === el ? (visible ? { ...p, rect } : null) : p));
    };
    window.addEventListener('scroll', follow, true);
    window.addEventListener('resize', follow);
    return () => {
      window.removeEventListener('scroll', follow, true);
      window.removeEventListener('resize', follow);
    };
  }, [popover?.el]);

  const goToDefinition = async (mark: TermMark) => {
    const defs = await define(mark.term).catch(() => []);
    const best = bestDefinition(defs, mark, view);
    if (best) onOpen({ doc: String(best.doc_id), sectionId: best.section_id });
  };

  const onTermKey = (e: KeyboardEvent, mark: TermMark) => {
    if (e.key === 'Escape') {
      setPopover(null);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      void goToDefinition(mark);
    }
  };

  const renderRange = (start: number, end: number) =>
    segmentRange(view.text, start, end, view.terms, view.links).map((seg) => {
          if (seg.kind === 'text') return <span key={seg.start}>{seg.text}</span>;
          if (seg.kind === 'term') {
            const open = popover?.start === seg.start;
            return (
              <span
                key={seg.start}
                className="term"
                tabIndex={0}
                role="button"
                data-testid="term"
                data-key={seg.mark.key}
                aria-describedby={open ? 'definition-popover' : undefined}
                aria-label={`${seg.text} (defined term)`}
                onMouseEnter={(e) => show(seg.mark, seg.start, e.currentTarget)}
                onMouseLeave={hideSoon}
                onFocus={(e) => show(seg.mark, seg.start, e.currentTarget)}
                onBlur={hideSoon}
                onKeyDown={(e) => onTermKey(e, seg.mark)}
              >
                {seg.text}
              </span>
            );
          }
          const target = linkTarget(seg.mark, view.doc_id);
          if (!target) {
            return (
              <span key={seg.start} className="xref unresolved" data-testid="xref-unresolved" title={unresolvedNote(seg.mark)}>
                {seg.text}
              </span>
            );
          }
          return (
            <a
              key={seg.start}
              href="#"
              className="xref"
              data-testid="xref"
              data-target-section={target.sectionId ?? ''}
              data-target-doc={target.doc}
              title={seg.mark.label}
              onClick={(e) => {
                e.preventDefault();
                onOpen(target);
              }}
            >
              {seg.text}
            </a>
          );
        });

  return (
    <>
      <div className="reader-text" data-testid="reader-text">
        {parts.map((part) =>
          part.kind === 'flow' ? (
            <span key={part.start}>{renderRange(part.start, part.end)}</span>
          ) : (
            <div key={part.start} className="reader-table-wrap">
              <table className="reader-table" data-testid="reader-table">
                {part.headerRows.length > 0 && (
                  <thead>
                    {part.headerRows.map((row) => (
                      <tr key={row[0]?.start}>
                        {row.map((c, i) => (
                          <th key={i} scope="col">
                            {renderRange(c.start, c.end)}
                          </th>
                        ))}
                      </tr>
                    ))}
                  </thead>
                )}
                <tbody>
                  {part.bodyRows.map((row) => (
                    <tr key={row[0]?.start}>
                      {row.map((c, i) =>
                        i === 0 && part.headerRows.length > 0 ? (
                          <th key={i} scope="row">
                            {renderRange(c.start, c.end)}
                          </th>
                        ) : (
                          <td key={i} className={isFigure(view.text.slice(c.start, c.end)) ? 'num' : undefined}>
                            {renderRange(c.start, c.end)}
                          </td>
                        ),
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ),
        )}
      </div>
      {popover && (
        <DefinitionPopover
          key={popover.start}
          state={popover}
          view={view}
          define={define}
          headings={headings}
          onEnter={cancelHide}
          onLeave={hideSoon}
          onOpen={(loc) => {
            setPopover(null);
            onOpen(loc);
          }}
        />
      )}
    </>
  );
}

type PopoverProps = {
  state: PopoverState;
  view: SectionView;
  define(term: string): Promise<DefinitionHit[]>;
  headings?: Headings;
  onEnter(): void;
  onLeave(): void;
  onOpen(loc: Loc): void;
};

function DefinitionPopover({ state, view, define, headings, onEnter, onLeave, onOpen }: PopoverProps) {
  const { mark, rect } = state;
  // `define` keeps its answers until the library changes, so a hovered term is looked up once.
  const lookup = useQuery(() => define(mark.term), [define, mark.term], { library: false });
  const defs = lookup.data ?? null;
  const error = lookup.error?.message ?? null;

  const best = defs ? bestDefinition(defs, mark, view) : null;
  const others = defs && best ? defs.filter((d) => d !== best && d.key === best.key) : [];
  // The documents whose section headings the popover names.
  const named = best ? [...new Set([best.doc_id, ...others.map((o) => o.doc_id)])].join(',') : '';
  const request = headings?.request;
  useEffect(() => {
    if (named && request) request(named.split(',').map(Number));
  }, [named, request]);
  // A section's heading; null until known (its name is then left out, never replaced by its id).
  const name = (docId: number, id: string) => headings?.heading(docId, id) ?? null;
  const where = best ? name(best.doc_id, best.section_id) : null;
  const scope = best?.scope_section ? name(best.doc_id, best.scope_section) : null;
  const width = 360;
  const vw = typeof window !== 'undefined' ? window.innerWidth : 1200;
  const vh = typeof window !== 'undefined' ? window.innerHeight : 800;
  const left = Math.max(8, Math.min(rect.left, vw - width - 8));
  const below = rect.bottom + 6;
  const style = below > vh - 200 && rect.top > 220 ? { left, bottom: vh - rect.top + 6 } : { left, top: below };

  return (
    <div
      id="definition-popover"
      className="popover"
      role="tooltip"
      data-testid="definition-popover"
      style={{ ...style, maxWidth: width }}
      onMouseEnter={onEnter}
      onMouseLeave={onLeave}
      onFocus={onEnter}
      onBlur={onLeave}
    >
      <div className="popover-term">{mark.term}</div>
      {error && <p className="error-text">{error}</p>}
      {!error && defs === null && <p className="muted">Looking up…</p>}
      {!error && defs !== null && !best && <p className="muted">No definition in the library.</p>}
      {best && (
        <>
          <p className="popover-text">{best.text}</p>
          <p className="popover-source muted">
            Defined in {best.document}
            {where ? ` › ${where}` : ''}
            {best.scope_section ? ` (applies within ${scope ?? 'a part of it'})` : ''}
          </p>
          <a
            href="#"
            className="popover-link"
            data-testid="go-to-definition"
            onClick={(e) => {
              e.preventDefault();
              onOpen({ doc: String(best.doc_id), sectionId: best.section_id });
            }}
          >
            Go to definition
          </a>
          {others.length > 0 && (
            <p className="muted popover-others">
              Also defined in {others.map((o) => [o.document, name(o.doc_id, o.section_id)].filter(Boolean).join(' ')).join(', ')}
            </p>
          )}
        </>
      )}
    </div>
  );
}

/** Why a reference leads nowhere: "FSMR, Part 4: not in your library", or no such section here. */
export function unresolvedNote(mark: { label: string; document: string | null }): string {
  return mark.document ? `${mark.document}, ${mark.label}: not in your library` : `${mark.label}: no such section in this document`;
}
