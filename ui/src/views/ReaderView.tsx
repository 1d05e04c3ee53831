import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useBackend } from '../backend';
import type { Backlinks, DefinitionHit, Outline, RefRow } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { BackIcon, ForwardIcon, PageIcon } from '../components/Icons';
import { OriginalOverlay } from '../reader/OriginalOverlay';
import { OutlineTree } from '../reader/OutlineTree';
import { SectionText, unresolvedNote } from '../reader/SectionText';
import type { Loc } from '../state/history';
import { useNav } from '../state/nav';
import { useQuery } from '../state/query';
import { useHeadings } from '../state/useHeadings';
import { formatPages } from '../text/format';
import { sectionName } from '../text/sections';

export type ReaderViewProps = {
  loc: Loc | null;
  canBack: boolean;
  canForward: boolean;
  onBack(): void;
  onForward(): void;
};

/** What a section whose references cannot be read shows: none. */
const NO_REFERENCES: Backlinks = { outgoing: [], incoming: [] };

export function ReaderView({ loc, canBack, canForward, onBack, onForward }: ReaderViewProps) {
  const backend = useBackend();
  const nav = useNav();
  const version = nav.libraryVersion;
  const [original, setOriginal] = useState(false);
  /** Outlines read since the library last changed, by `version:doc`: going back reads none again. */
  const outlines = useRef(new Map<string, Outline>());
  const definitions = useRef(new Map<string, Promise<DefinitionHit[]>>());
  const mainRef = useRef<HTMLDivElement>(null);

  const doc = loc?.doc ?? null;
  const sectionId = loc?.sectionId ?? null;

  // The library changed: forget cached outlines and definitions.
  useEffect(() => {
    outlines.current.clear();
    definitions.current.clear();
  }, [version]);

  const documents = useQuery(() => backend.libraryDocuments(), [backend]);
  const docs = documents.data ?? [];

  const outline = useQuery(
    async () => {
      const key = `${version}:${doc}`;
      const cached = outlines.current.get(key);
      if (cached) return cached;
      const read = await backend.outline(doc!);
      outlines.current.set(key, read);
      return read;
    },
    [backend, doc],
    { enabled: doc !== null },
  );
  const outlineData = outline.data ?? null;

  // A document without a section: go to its first section.
  useEffect(() => {
    if (doc === null || sectionId !== null || !outlineData) return;
    const first = outlineData.sections[0];
    if (first) nav.replace({ doc, sectionId: first.section_id });
  }, [doc, sectionId, outlineData, nav]);

  // The section and what refers to and from it, read together so the references shown are always
  // the section's. The last section stays on screen (dimmed) while the next is read.
  const shown = useQuery(
    async () => {
      const [view, refs] = await Promise.all([
        backend.show(doc!, sectionId!),
        backend.references(doc!, sectionId!).catch(() => NO_REFERENCES),
      ]);
      return { view, refs };
    },
    [backend, doc, sectionId],
    { enabled: doc !== null && sectionId !== null, keepPrevious: true },
  );
  const view = shown.data?.view ?? null;
  const backlinks = shown.data?.refs ?? null;
  const loading = shown.loading;
  const error = shown.error ?? outline.error;

  // A new section starts at its top (not when the same one is read again after a library change).
  const shownDoc = view?.doc_id;
  const shownSection = view?.section.section_id;
  useEffect(() => {
    if (shownSection !== undefined) mainRef.current?.scrollTo?.({ top: 0 });
  }, [shownDoc, shownSection]);

  useEffect(() => setOriginal(false), [doc, sectionId]);

  const define = useCallback(
    (term: string) => {
      const key = term.toLowerCase();
      let p = definitions.current.get(key);
      if (!p) {
        p = backend.define(term);
        definitions.current.set(key, p);
        p.catch(() => definitions.current.delete(key));
      }
      return p;
    },
    [backend],
  );

  const docLabel = useMemo(() => {
    const m = new Map<number, string>();
    for (const d of docs) m.set(d.document.id, d.document.label);
    return (id: number) => m.get(id) ?? `#${id}`;
  }, [docs]);

  // The parts of the shown document by id, to say where each of its references is written.
  const partNames = useMemo(() => new Map((outlineData?.sections ?? []).map((s) => [s.section_id, sectionName(s)])), [outlineData]);
  const partName = useCallback((id: string) => partNames.get(id) ?? null, [partNames]);

  const headings = useHeadings(backend, version);
  const sectionHeading = headings.heading;
  useEffect(() => {
    if (!backlinks) return;
    headings.request([...backlinks.incoming.map((r) => r.doc_id), ...backlinks.outgoing.flatMap((r) => (r.target_doc_id === null ? [] : [r.target_doc_id]))]);
  }, [backlinks, headings]);

  if (loc === null) {
    return (
      <div className="view reader-empty">
        <h1>Reader</h1>
        <p className="muted">Open a search result, a definition, or a document:</p>
        <ul className="doc-list">
          {docs.map(({ document: d }) => (
            <li key={d.id}>
              <button type="button" className="link-button" data-testid="reader-doc" data-label={d.label} onClick={() => nav.open({ doc: String(d.id), sectionId: null })}>
                <span className="doc-label">{d.label}</span> {d.title}
              </button>
            </li>
          ))}
        </ul>
      </div>
    );
  }

  const currentId = view?.section.section_id ?? sectionId;
  const number = view?.section.number?.trim() || null;
  const open = (l: Loc) => nav.open(l);

  return (
    <div className="view reader">
      <aside className="outline-pane" aria-label="Document outline">
        <div className="outline-head">
          <select
            aria-label="Document"
            value={outlineData ? String(outlineData.document.id) : ''}
            onChange={(e) => e.target.value && open({ doc: e.target.value, sectionId: null })}
          >
            {!outlineData && <option value="">…</option>}
            {docs.map(({ document: d }) => (
              <option key={d.id} value={String(d.id)}>
                {d.label} — {d.title}
              </option>
            ))}
          </select>
        </div>
        {outlineData && (
          <OutlineTree sections={outlineData.sections} currentId={currentId} onOpen={(id) => open({ doc: String(outlineData.document.id), sectionId: id })} />
        )}
      </aside>

      <div className="reader-main" ref={mainRef}>
        <div className="reader-toolbar">
          <button type="button" className="icon-button" data-testid="back" aria-label="Back (Alt+←)" title="Back (Alt+←)" disabled={!canBack} onClick={onBack}>
            <BackIcon />
          </button>
          <button type="button" className="icon-button" data-testid="forward" aria-label="Forward (Alt+→)" title="Forward (Alt+→)" disabled={!canForward} onClick={onForward}>
            <ForwardIcon />
          </button>
          {view && (
            <nav className="crumbs reader-crumbs" aria-label="Breadcrumb">
              <button type="button" className="link-button doc-label" data-testid="reader-doc-label" data-doc-id={view.doc_id} onClick={() => open({ doc: String(view.doc_id), sectionId: null })} title={view.document}>
                {view.label}
              </button>
              {view.crumbs.map((c, i) => (
                <span key={c.section_id} className="crumb">
                  <span className="crumb-sep" aria-hidden="true">
                    ›
                  </span>
                  <button
                    type="button"
                    className="link-button"
                    data-testid="reader-crumb"
                    data-section-id={c.section_id}
                    aria-current={i === view.crumbs.length - 1 ? 'page' : undefined}
                    onClick={() => open({ doc: String(view.doc_id), sectionId: c.section_id })}
                  >
                    {c.heading}
                  </button>
                </span>
              ))}
            </nav>
          )}
          <span className="toolbar-spacer" />
          {view && (
            <button type="button" className="button small" data-testid="open-original" onClick={() => setOriginal(true)}>
              <PageIcon size={14} /> Open original
            </button>
          )}
        </div>

        <ErrorNote error={error} />

        {view && (
          <article className={`reader-article${loading ? ' stale' : ''}`} aria-busy={loading}>
            <h1 className="reader-heading" data-testid="reader-heading" data-section-id={view.section.section_id}>
              {sectionName(view.section)}
            </h1>
            <p className="reader-meta muted" data-testid="reader-meta">
              <span className="doc-label">{view.label}</span> {view.document}
              {view.pages && <> · {formatPages(view.pages)}</>}
              {/* The number as printed, where the heading does not already start with it. */}
              {number && !sectionName(view.section).startsWith(number) && <> · {number}</>}
            </p>
            {view.text.trim() ? (
              <SectionText view={view} define={define} onOpen={open} headings={headings} />
            ) : (
              <div className="reader-text muted" data-testid="reader-text">
                This section has no text of its own; see its subsections in the outline.
              </div>
            )}
            <RefsPanel
              backlinks={backlinks}
              shownSection={view.section.section_id}
              partName={partName}
              docLabel={docLabel}
              sectionHeading={sectionHeading}
              onOpen={open}
            />
          </article>
        )}
        {!view && loading && <p className="muted">Loading…</p>}
      </div>

      {original && view && (
        <OriginalOverlay view={view} pageCount={outlineData?.document.page_count ?? null} chunkId={loc.chunkId ?? null} page={loc.page ?? null} onClose={() => setOriginal(false)} />
      )}
    </div>
  );
}

type RefsPanelProps = {
  backlinks: Backlinks | null;
  /** The section shown: its own references are "in this section". */
  shownSection: string;
  /** The heading of a part of the shown document (null: not in its outline). */
  partName(id: string): string | null;
  docLabel(id: number): string;
  sectionHeading(docId: number, id: string): string | null;
  onOpen(loc: Loc): void;
};

/** References grouped by the part of the shown text they are written in, in the order they come. */
export function byPart(refs: RefRow[]): { from: string; refs: RefRow[] }[] {
  const groups: { from: string; refs: RefRow[] }[] = [];
  for (const r of refs) {
    const g = groups.find((x) => x.from === r.from_section);
    if (g) g.refs.push(r);
    else groups.push({ from: r.from_section, refs: [r] });
  }
  return groups;
}

/** Where an outgoing reference leads, or null when not in the library. */
export function refTarget(r: RefRow): Loc | null {
  if (r.target_doc_id !== null && r.target_doc_section) return { doc: String(r.target_doc_id), sectionId: r.target_doc_section };
  if (r.target_section && r.document === null) return { doc: String(r.doc_id), sectionId: r.target_section };
  if (r.target_doc_id !== null) return { doc: String(r.target_doc_id), sectionId: r.target_section };
  return null;
}

function RefsPanel({ backlinks, shownSection, partName, docLabel, sectionHeading, onOpen }: RefsPanelProps) {
  if (!backlinks) return null;
  const { incoming, outgoing } = backlinks;
  // What the Reader shows with a section (its subsections, its guidance) refers from it too: each
  // reference under the part it is written in.
  const where = (from: string) => (from === shownSection ? 'In this section' : `In ${partName(from) ?? 'a part shown with it'}`);
  return (
    <section className="refs-panel" aria-label="References">
      <div className="refs-column">
        <h2>Referenced by {incoming.length > 0 && <span className="count">{incoming.length}</span>}</h2>
        {incoming.length === 0 ? (
          <p className="muted">Nothing in the library refers here.</p>
        ) : (
          <ul>
            {incoming.map((r, i) => (
              <li key={i}>
                <button
                  type="button"
                  className="link-button ref-link"
                  data-testid="backlink"
                  data-section-id={r.from_section}
                  onClick={() => onOpen({ doc: String(r.doc_id), sectionId: r.from_section })}
                >
                  <span className="doc-label">{docLabel(r.doc_id)}</span> {sectionHeading(r.doc_id, r.from_section) ?? ''}
                </button>
                <span className="muted ref-quote"> “{r.text}”</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="refs-column">
        <h2>References {outgoing.length > 0 && <span className="count">{outgoing.length}</span>}</h2>
        {outgoing.length === 0 ? (
          <p className="muted">Nothing in this section or its parts refers elsewhere.</p>
        ) : (
          <ul>
            {byPart(outgoing).map((g) => (
              <li key={g.from} className="refs-part" data-testid="reference-group" data-from-section={g.from}>
                <h3 className="refs-part-name" data-testid="reference-group-name">
                  {where(g.from)}
                </h3>
                <ul>
                  {g.refs.map((r, i) => {
                    const target = refTarget(r);
                    return (
                      <li key={i}>
                        {target ? (
                          <button type="button" className="link-button ref-link" data-testid="reference" data-target-section={target.sectionId ?? ''} onClick={() => onOpen(target)}>
                            {r.document ? `${r.document} ${r.label}` : r.label || r.text}
                          </button>
                        ) : (
                          <span className="xref unresolved" data-testid="reference-unresolved" title={unresolvedNote(r)}>
                            {unresolvedNote(r)}
                          </span>
                        )}
                      </li>
                    );
                  })}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
