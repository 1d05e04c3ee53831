import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useBackend } from '../backend';
import type { ChannelRank, Hit } from '../backend/types';
import { toBackendError } from '../backend/errors';
import { Snippet } from '../components/Snippet';
import { ErrorNote } from '../components/ErrorNote';
import { CloseIcon, CopyIcon, FilterIcon, SearchIcon } from '../components/Icons';
import { useNav } from '../state/nav';
import { useQuery } from '../state/query';
import { useSearch, type SearchFilters, type SectionScope } from '../state/useSearch';
import { formatPages } from '../text/format';

export type SearchViewProps = {
  /** Changes whenever the search box should take focus (`/`, Ctrl+K). */
  focusToken?: number;
  debounceMs?: number;
};

export function SearchView({ focusToken = 0, debounceMs }: SearchViewProps) {
  const backend = useBackend();
  const nav = useNav();
  const search = useSearch(backend, { debounceMs, refreshToken: nav.libraryVersion });
  const { hits, filters, setFilters } = search;
  const [selected, setSelected] = useState(0);
  // The documents to filter by; "no documents yet" is said only once the list is known.
  const documents = useQuery(() => backend.libraryDocuments(), [backend]);
  const docs = documents.data ?? [];
  const docsLoaded = documents.data !== undefined;
  const [copied, setCopied] = useState<number | null>(null);
  const [copyError, setCopyError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (focusToken > 0) {
      inputRef.current?.focus();
      inputRef.current?.select();
    }
  }, [focusToken]);

  useEffect(() => setSelected(0), [hits]);

  // A hit selected with the keyboard is scrolled into view; one selected by pressing the mouse on
  // it is not: scrolling under the pointer between press and release would take the click (on its
  // title, say) away from what was pressed.
  const scrollToSelected = useRef(true);
  useEffect(() => {
    if (!scrollToSelected.current) {
      scrollToSelected.current = true;
      return;
    }
    const el = listRef.current?.querySelector<HTMLElement>(`[data-index="${selected}"]`);
    el?.scrollIntoView?.({ block: 'nearest' });
  }, [selected]);

  const openHit = (hit: Hit) => nav.open({ doc: String(hit.doc_id), sectionId: hit.section_id, chunkId: hit.chunk_id, page: hit.pages?.start ?? null });

  const onKeyDown = (e: KeyboardEvent) => {
    const target = e.target as Node;
    const inResults = target === inputRef.current || !!listRef.current?.contains(target);
    if (e.key === 'Escape') {
      e.preventDefault();
      if (search.query) search.setQuery('');
      else if (filters.section) setFilters({ ...filters, section: null });
      inputRef.current?.focus();
      return;
    }
    if (!inResults || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setSelected((i) => Math.min(hits.length - 1, i + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setSelected((i) => Math.max(0, i - 1));
    } else if (e.key === 'Enter') {
      const hit = hits[selected];
      if (hit && !(e.target instanceof HTMLButtonElement)) {
        e.preventDefault();
        openHit(hit);
      }
    }
  };

  const toggle = <K extends 'documents' | 'chunkTypes'>(key: K, value: SearchFilters[K][number]) => {
    const list = filters[key] as SearchFilters[K][number][];
    const next = list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
    setFilters({ ...filters, [key]: next });
  };

  const copyCitation = async (hit: Hit) => {
    try {
      await backend.copyText(hit.citation);
      setCopied(hit.chunk_id);
      setCopyError(null);
      window.setTimeout(() => setCopied((c) => (c === hit.chunk_id ? null : c)), 1500);
    } catch (e) {
      setCopyError(toBackendError(e).message);
    }
  };

  const scopeTo = (hit: Hit, crumb: { section_id: string; heading: string }) =>
    setFilters({
      ...filters,
      section: { doc: String(hit.doc_id), section_id: crumb.section_id, heading: crumb.heading, label: hit.label },
    });

  const activeId = hits[selected] ? `hit-${hits[selected].chunk_id}` : undefined;
  const q = search.query.trim();

  return (
    <div className="view search-view" onKeyDown={onKeyDown}>
      <div className="search-bar">
        <SearchIcon className="search-bar-icon" />
        <input
          ref={inputRef}
          data-testid="search-input"
          type="search"
          role="combobox"
          aria-label="Search the library"
          aria-expanded={hits.length > 0}
          aria-controls="search-results"
          aria-activedescendant={activeId}
          aria-autocomplete="list"
          placeholder="Search the library — press / or Ctrl+K"
          autoComplete="off"
          spellCheck={false}
          value={search.query}
          onChange={(e) => search.setQuery(e.target.value)}
        />
        {search.loading && <span className="spinner" aria-label="Searching" role="status" />}
      </div>

      <div className="filters" aria-label="Filters">
        <FilterGroup label="Documents" testId="filter-document">
          {docs.length === 0 && <span className="muted">No documents</span>}
          {docs.map(({ document: d }) => (
            <label key={d.id} className="chip-check" title={d.title}>
              <input
                type="checkbox"
                data-value={String(d.id)}
                checked={filters.documents.includes(String(d.id))}
                onChange={() => toggle('documents', String(d.id))}
              />
              <span>{d.label}</span>
            </label>
          ))}
        </FilterGroup>
        <FilterGroup label="Types" testId="filter-chunk-type">
          {search.chunkTypes.map((t) => (
            <label key={t} className="chip-check">
              <input
                type="checkbox"
                data-value={t}
                checked={filters.chunkTypes.includes(t)}
                onChange={() => toggle('chunkTypes', t)}
              />
              <span>{t}</span>
            </label>
          ))}
        </FilterGroup>
        {filters.section && <ScopeChip scope={filters.section} onClear={() => setFilters({ ...filters, section: null })} />}
      </div>

      <ErrorNote error={search.error} />
      {copyError && <div className="error-note" role="alert">{copyError}</div>}

      <div className="results-status" role="status" aria-live="polite" data-testid="results-status">
        {q && search.answered === q && !search.loading && !search.error
          ? hits.length === 0
            ? `No results for “${q}”.`
            : `${hits.length} result${hits.length === 1 ? '' : 's'}`
          : ''}
      </div>
      {!q && (
        <div className="empty-state">
          {docsLoaded && docs.length === 0 ? (
            <p>
              Your library is empty.{' '}
              <button type="button" className="link-button" onClick={() => nav.setView('library')}>
                Add documents
              </button>{' '}
              to search them.
            </p>
          ) : (
            <p>Type to search every document: words, a rule number such as “2.1.3”, or a defined term.</p>
          )}
          <p className="muted">↑/↓ select · Enter opens in the reader · Esc clears</p>
        </div>
      )}

      <ol id="search-results" className="results" role="listbox" aria-label="Results" ref={listRef}>
        {hits.map((hit, i) => (
          <HitCard
            key={`${hit.chunk_id}-${i}`}
            hit={hit}
            index={i}
            selected={i === selected}
            copied={copied === hit.chunk_id}
            onSelect={() => {
              scrollToSelected.current = i === selected;
              setSelected(i);
            }}
            onOpen={() => openHit(hit)}
            onCrumb={(c) => nav.open({ doc: String(hit.doc_id), sectionId: c.section_id })}
            onScope={(c) => scopeTo(hit, c)}
            onCopy={() => void copyCitation(hit)}
          />
        ))}
      </ol>
    </div>
  );
}

function FilterGroup({ label, testId, children }: { label: string; testId: string; children: React.ReactNode }) {
  return (
    <fieldset className="filter-group" data-testid={testId}>
      <legend>{label}</legend>
      <div className="filter-options">{children}</div>
    </fieldset>
  );
}

function ScopeChip({ scope, onClear }: { scope: SectionScope; onClear: () => void }) {
  return (
    <div className="scope-chip" data-testid="section-filter" data-section-id={scope.section_id}>
      <FilterIcon size={14} />
      <span>
        Within {scope.label} {scope.heading}
      </span>
      <button type="button" className="icon-button" aria-label="Clear section filter" data-testid="clear-section-filter" onClick={onClear}>
        <CloseIcon size={14} />
      </button>
    </div>
  );
}

function channelTitle(name: string, c: ChannelRank): string {
  return `${name}: rank ${c.rank}, score ${Number.isInteger(c.score) ? c.score : c.score.toFixed(3)}`;
}

type HitCardProps = {
  hit: Hit;
  index: number;
  selected: boolean;
  copied: boolean;
  onSelect(): void;
  onOpen(): void;
  onCrumb(c: { section_id: string; heading: string }): void;
  onScope(c: { section_id: string; heading: string }): void;
  onCopy(): void;
};

function HitCard({ hit, index, selected, copied, onSelect, onOpen, onCrumb, onScope, onCopy }: HitCardProps) {
  const pages = formatPages(hit.pages);
  const channels: [string, ChannelRank | null][] = [
    ['dense', hit.dense],
    ['keyword', hit.keyword],
    ['exact', hit.exact],
  ];
  // The section as printed: its heading (the last crumb), its number beside the document; the
  // section's id stays in data attributes (`data-section-id`), never on screen.
  const last = hit.crumbs[hit.crumbs.length - 1];
  const heading = last?.heading || hit.section_number || hit.document;
  return (
    <li
      id={`hit-${hit.chunk_id}`}
      className={`hit${selected ? ' selected' : ''}`}
      role="option"
      aria-selected={selected}
      data-testid="hit"
      data-index={index}
      data-chunk-id={hit.chunk_id}
      data-section-id={hit.section_id}
      onMouseDown={onSelect}
      onDoubleClick={onOpen}
    >
      <div className="hit-head">
        <nav className="crumbs" aria-label="Breadcrumb">
          <span className="doc-label" title={hit.path}>
            {hit.label}
          </span>
          {hit.crumbs.map((c) => (
            <span key={c.section_id} className="crumb">
              <span className="crumb-sep" aria-hidden="true">
                ›
              </span>
              <button type="button" className="link-button" data-testid="hit-crumb" data-section-id={c.section_id} onClick={onCrumb.bind(null, c)}>
                {c.heading}
              </button>
              <button
                type="button"
                className="icon-button crumb-scope"
                data-testid="crumb-scope"
                aria-label={`Search within ${c.heading}`}
                title={`Search within ${c.heading}`}
                onClick={onScope.bind(null, c)}
              >
                <FilterIcon size={12} />
              </button>
            </span>
          ))}
        </nav>
        <span className="badge" data-testid="chunk-type-badge" data-type={hit.chunk_type}>
          {hit.chunk_type}
        </span>
      </div>
      <button type="button" className="hit-title link-button" data-testid="hit-title" onClick={onOpen}>
        {heading}
      </button>
      <div className="hit-source">
        {hit.section_number && (
          <span className="hit-number" data-testid="hit-number" title="Section number as printed">
            {hit.section_number}
          </span>
        )}
        <span className="doc-label">{hit.label}</span> {hit.document}
        {pages && <span className="pages"> · {pages}</span>}
      </div>
      <p className="snippet" data-testid="snippet">
        <Snippet text={hit.snippet} />
      </p>
      <div className="hit-foot">
        <span className="channels">
          {channels.map(([name, c]) =>
            c ? (
              <span key={name} className={`channel channel-${name}`} data-testid="channel" data-channel={name} title={channelTitle(name, c)}>
                {name} #{c.rank}
              </span>
            ) : null,
          )}
        </span>
        <button type="button" className="button small" data-testid="copy-citation" onClick={onCopy} title={hit.citation}>
          <CopyIcon size={14} /> {copied ? 'Copied' : 'Copy citation'}
        </button>
      </div>
    </li>
  );
}
