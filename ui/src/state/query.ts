// One way for a component to read from the backend: `useQuery` runs a fetch when its dependencies
// change, again when the library changes (`Nav.libraryVersion`) or on `refetch()`, and applies an
// answer only when it answers the latest request, so a slow stale answer never replaces a newer
// one. Errors arrive as the engine's `{code, message}`.
import { useCallback, useContext, useEffect, useRef, useState, type DependencyList } from 'react';
import { toBackendError } from '../backend/errors';
import type { BackendError } from '../backend/types';
import { NavContext } from './nav';

export type QueryOptions = {
  /**
   * Fetch again whenever the library changes (an ingest, a removal, a background pass over a
   * watched folder). Default true; false for what does not live in the library (settings, keys).
   */
  library?: boolean;
  /**
   * Whether to fetch at all (false: nothing selected yet); `data` is then undefined, or with
   * `keepPrevious` the last answer. Default true.
   */
  enabled?: boolean;
  /**
   * Keep showing the previous dependencies' answer while the new one loads (the reader keeps the
   * last section on screen while the next is fetched). Default false: `data` is undefined until the
   * answer for the current dependencies arrives.
   */
  keepPrevious?: boolean;
};

export type Query<T> = {
  /**
   * The latest answer for the current dependencies, kept while a refetch runs and when it fails
   * (`error` then says why).
   */
  data: T | undefined;
  /** Why the latest request for the current dependencies failed; null once one succeeds. */
  error: BackendError | null;
  /** A request for the current dependencies is in flight. */
  loading: boolean;
  /** Fetches again (the answer still in flight, if any, is dropped). */
  refetch(): void;
  /**
   * Replaces the data, as with the answer of a change the user made (watching a folder returns the
   * new list); drops the answer in flight and clears the error.
   */
  set(next: T | ((previous: T | undefined) => T)): void;
};

type Settled<T> = { key: number; data: T | undefined; error: BackendError | null };

/** Whether two dependency lists are equal item by item (as React compares effect dependencies). */
function sameDeps(a: DependencyList, b: DependencyList): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

/** A number that changes whenever `deps` does. */
function useDepsKey(deps: DependencyList): number {
  const ref = useRef({ deps, key: 0 });
  if (!sameDeps(ref.current.deps, deps)) ref.current = { deps, key: ref.current.key + 1 };
  return ref.current.key;
}

/**
 * Reads from the backend: `fetch` runs when `deps` change (list everything it reads, as for
 * `useEffect`), when the library changes (unless `library: false`) and on `refetch()`.
 */
export function useQuery<T>(fetch: () => Promise<T>, deps: DependencyList, options: QueryOptions = {}): Query<T> {
  const { library = true, enabled = true, keepPrevious = false } = options;
  const libraryVersion = useContext(NavContext)?.libraryVersion ?? 0;
  const version = library ? libraryVersion : 0;
  // Turning a query on counts as new dependencies: nothing from before is shown.
  const key = useDepsKey([...deps, enabled]);
  const [settled, setSettled] = useState<Settled<T>>({ key: -1, data: undefined, error: null });
  const [pending, setPending] = useState(false);
  const [nonce, setNonce] = useState(0);
  // The number of the latest request: an answer to any other is stale and dropped.
  const latest = useRef(0);
  const fetchRef = useRef(fetch);
  fetchRef.current = fetch;

  useEffect(() => {
    if (!enabled) return;
    const mine = ++latest.current;
    setPending(true);
    fetchRef.current().then(
      (data) => {
        if (latest.current !== mine) return;
        setSettled({ key, data, error: null });
        setPending(false);
      },
      (e: unknown) => {
        if (latest.current !== mine) return;
        setSettled((s) => ({ key, data: s.key === key || keepPrevious ? s.data : undefined, error: toBackendError(e) }));
        setPending(false);
      },
    );
    return () => {
      // A newer request replaces this one, or the component is gone: its answer is not wanted.
      if (latest.current === mine) latest.current++;
    };
    // `key` stands for `deps` and `enabled`; `keepPrevious` is only read when an answer arrives.
  }, [key, version, nonce]);

  const refetch = useCallback(() => setNonce((n) => n + 1), []);
  const set = useCallback(
    (next: T | ((previous: T | undefined) => T)) => {
      latest.current++;
      setPending(false);
      setSettled((s) => {
        const previous = s.key === key ? s.data : undefined;
        const data = typeof next === 'function' ? (next as (p: T | undefined) => T)(previous) : next;
        return { key, data, error: null };
      });
    },
    [key],
  );

  // `enabled` is part of the key: while disabled no answer is current, unless `set` gave one.
  const current = settled.key === key;
  return {
    data: current || keepPrevious ? settled.data : undefined,
    error: current ? settled.error : null,
    // Until the effect for new dependencies has run, their request counts as in flight.
    loading: enabled && (!current || pending),
    refetch,
    set,
  };
}
