import { useEffect, useMemo, useState } from 'react';
import { useBackend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { BackendError, DefinitionHit } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { useNav } from '../state/nav';
import { useHeadings } from '../state/useHeadings';

export function DefinitionsView() {
  const backend = useBackend();
  const nav = useNav();
  const [defs, setDefs] = useState<DefinitionHit[] | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const [filter, setFilter] = useState('');
  const headings = useHeadings(backend, nav.libraryVersion);
  const { request } = headings;

  useEffect(() => {
    if (defs) request(defs.map((d) => d.doc_id));
  }, [defs, request]);

  useEffect(() => {
    let live = true;
    backend.definitions().then(
      (d) => live && setDefs(d),
      (e: unknown) => {
        if (!live) return;
        setDefs([]);
        setError(toBackendError(e));
      },
    );
    return () => {
      live = false;
    };
  }, [backend, nav.libraryVersion]);

  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const list = [...(defs ?? [])].sort((a, b) => a.term.localeCompare(b.term) || a.document.localeCompare(b.document));
    if (!f) return list;
    return list.filter((d) => d.term.toLowerCase().includes(f) || d.document.toLowerCase().includes(f) || d.text.toLowerCase().includes(f));
  }, [defs, filter]);

  return (
    <div className="view definitions-view">
      <header className="view-head">
        <h1>Definitions</h1>
        <input
          type="search"
          className="filter-input"
          data-testid="glossary-filter"
          aria-label="Filter definitions"
          placeholder="Filter terms…"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      </header>
      <ErrorNote error={error} />
      {defs !== null && (
        <p className="muted" role="status">
          {shown.length} of {defs.length} definitions
        </p>
      )}
      <ul className="glossary">
        {shown.map((d) => (
          <li key={`${d.doc_id}:${d.section_id}:${d.key}:${d.span.start}`} className="glossary-entry">
            <button
              type="button"
              className="glossary-item"
              data-testid="glossary-item"
              data-key={d.key}
              onClick={() => nav.open({ doc: String(d.doc_id), sectionId: d.section_id })}
            >
              <span className="glossary-term">{d.term}</span>
              <span className="glossary-where muted">
                <span className="doc-label">{d.document}</span> {headings.heading(d.doc_id, d.section_id)} ·{' '}
                {d.scope_section ? `within ${headings.heading(d.doc_id, d.scope_section)}` : 'whole document'}
              </span>
              <span className="glossary-text">{d.text}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
