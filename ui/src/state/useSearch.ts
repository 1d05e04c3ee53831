import { useEffect, useRef, useState } from 'react';
import type { Backend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { BackendError, ChunkType, Hit, SearchRequest } from '../backend/types';

/** A "within section" filter, with what to show for it. */
export type SectionScope = { doc: string; section_id: string; heading: string; label: string };

export type SearchFilters = {
  /** Document ids (as strings). */
  documents: string[];
  chunkTypes: ChunkType[];
  section: SectionScope | null;
};

export const noFilters: SearchFilters = { documents: [], chunkTypes: [], section: null };

// The engine's chunk types (folio_core::chunker::ChunkType, a generated union), in the order the
// filter offers them; exhaustive, so a type added or renamed in the engine is a type error here.
const CHUNK_TYPE_ORDER: Record<ChunkType, number> = {
  requirement: 0,
  guidance: 1,
  definition: 2,
  note: 3,
  table: 4,
  content: 5,
};
export const KNOWN_CHUNK_TYPES = (Object.keys(CHUNK_TYPE_ORDER) as ChunkType[]).sort(
  (a, b) => CHUNK_TYPE_ORDER[a] - CHUNK_TYPE_ORDER[b],
);

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
        },
        (e: unknown) => {
          if (seq.current !== mine) return;
          setState({ hits: [], answered: q, loading: false, error: toBackendError(e) });
        },
      );
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [backend, query, filters, limit, debounceMs, refreshToken]);

  return { query, setQuery, filters, setFilters, ...state, chunkTypes: KNOWN_CHUNK_TYPES };
}
