import { useEffect, useMemo, useRef, useState } from 'react';
import type { Backend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { BackendError, Hit, SearchRequest } from '../backend/types';

/** A "within section" filter, with what to show for it. */
export type SectionScope = { doc: string; section_id: string; heading: string; label: string };

export type SearchFilters = {
  /** Document ids (as strings). */
  documents: string[];
  chunkTypes: string[];
  section: SectionScope | null;
};

export const noFilters: SearchFilters = { documents: [], chunkTypes: [], section: null };

// The engine's chunk types (folio_core::chunker::ChunkType).
export const KNOWN_CHUNK_TYPES = ['requirement', 'guidance', 'definition', 'note', 'table', 'content'];

export function buildSearchRequest(query: string, filters: SearchFilters, limit: number): SearchRequest {
  return {
    query: query.trim(),
    limit,
    documents: [...filters.documents],
    chunk_types: [...filters.chunkTypes],
    section: filters.section ? { doc: filters.section.doc, section_id: filters.section.section_id } : null,
  };
}

export type SearchState = {
  hits: Hit[];
  /** The query the hits answer. */
  answered: string | null;
  loading: boolean;
  error: BackendError | null;
};

export type UseSearchOptions = { debounceMs?: number; limit?: number; refreshToken?: unknown };

/**
 * Search as you type: requests are debounced, and a response is applied only when it answers the
 * latest request (a sequence number), so a slow stale answer never replaces a newer one.
 */
export function useSearch(backend: Backend, { debounceMs = 150, limit = 30, refreshToken }: UseSearchOptions = {}) {
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<SearchFilters>(noFilters);
  const [state, setState] = useState<SearchState>({ hits: [], answered: null, loading: false, error: null });
  const [seenTypes, setSeenTypes] = useState<string[]>([]);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    const q = query.trim();
    if (!q) {
      setState({ hits: [], answered: null, loading: false, error: null });
      return;
    }
    setState((s) => (s.loading ? s : { ...s, loading: true }));
    const request = buildSearchRequest(q, filters, limit);
    const timer = setTimeout(() => {
      backend.search(request).then(
        (hits) => {
          if (seq.current !== mine) return;
          setState({ hits, answered: q, loading: false, error: null });
          setSeenTypes((seen) => {
            const fresh = hits.map((h) => h.chunk_type).filter((t) => t && !seen.includes(t));
            return fresh.length ? [...seen, ...new Set(fresh)] : seen;
          });
        },
        (e: unknown) => {
          if (seq.current !== mine) return;
          setState({ hits: [], answered: q, loading: false, error: toBackendError(e) });
        },
      );
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [backend, query, filters, limit, debounceMs, refreshToken]);

  const chunkTypes = useMemo(() => {
    const all = [...KNOWN_CHUNK_TYPES];
    for (const t of [...seenTypes, ...filters.chunkTypes]) if (!all.includes(t)) all.push(t);
    return all;
  }, [seenTypes, filters.chunkTypes]);

  return { query, setQuery, filters, setFilters, ...state, chunkTypes };
}
