import { useEffect, useMemo, useState } from 'react';
import { useBackend } from '../backend';
import { ErrorNote } from '../components/ErrorNote';
import { useNav } from '../state/nav';
import { useQuery } from '../state/query';
import { useHeadings } from '../state/useHeadings';

export function DefinitionsView() {
  const backend = useBackend();
  const nav = useNav();
  const query = useQuery(() => backend.definitions(), [backend]);
  const { error } = query;
  // A failed load lists nothing (and says why) rather than what an earlier load found.
  const defs = error ? [] : (query.data ?? null);
  const [filter, setFilter] = useState('');
  const headings = useHeadings(backend, nav.libraryVersion);
  const { request } = headings;

  useEffect(() => {
    if (defs) request(defs.map((d) => d.doc_id));
  }, [defs, request]);

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
                <span className="doc-label">{d.document}</span> {headings.heading(d.doc_id, d.section_id) ?? ''} ·{' '}
                {d.scope_section ? `within ${headings.heading(d.doc_id, d.scope_section) ?? 'a part of it'}` : 'whole document'}
              </span>
              <span className="glossary-text">{d.text}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
