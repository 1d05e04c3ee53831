import { createContext, useCallback, useContext, useMemo, useReducer, useRef, type ReactNode } from 'react';
import type { Backend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { IngestReport, Progress } from '../backend/types';
import { ingestReducer, initialIngest, type IngestState } from './ingestQueue';

export { FINAL_STAGES, ingestReducer, initialIngest, queueTimeLeft } from './ingestQueue';
export type { IngestAction, IngestRow, IngestState } from './ingestQueue';

/**
 * One add asked for. `id` numbers its rows in the panel; `gen` is the cancel generation when it was
 * asked for (a later cancel drops it).
 */
type Job = ({ kind: 'ingest'; paths: string[]; then?: (report: IngestReport) => void } | { kind: 'reindex'; docs: string[] }) & {
  id: number;
  gen: number;
};

/**
 * The next engine call: the first job waiting and, when it adds files, the adds waiting right
 * behind it, which go to the engine together as one ingest (one time-left estimate, one pass).
 */
function nextBatch(queue: Job[]): Job[] {
  const first = queue.shift();
  if (!first) return [];
  const batch = [first];
  while (first.kind === 'ingest' && queue[0]?.kind === 'ingest') batch.push(queue.shift()!);
  return batch;
}

export type IngestController = {
  state: IngestState;
  /**
   * Adds files or folders; queued behind a running ingest. `then` gets the report of the engine
   * call that added them (adds queued together share one).
   */
  ingest(paths: string[], then?: (report: IngestReport) => void): void;
  /** Re-indexes documents (ids or labels) one after another. */
  reindex(docs: string[]): void;
  cancel(): void;
  clear(): void;
};

/**
 * Runs ingests one at a time: a job asked for while another runs (the picker, a drop, "Add from a
 * path", a re-index) waits in the queue, listed in the panel at once, and starts when the one
 * before it settles; adds waiting together go to the engine as one ingest. The bytes of each add
 * are asked for (`fileSizes`) so that the time left covers the files waiting too. `onSettled` is
 * called after each engine call (the library changed). Cancel stops the running job and drops the
 * queued ones; jobs asked for after it run normally.
 */
export function useIngestController(backend: Backend, onSettled: () => void): IngestController {
  const [state, dispatch] = useReducer(ingestReducer, initialIngest);
  const queue = useRef<Job[]>([]);
  const running = useRef(false);
  const generation = useRef(0);
  const nextId = useRef(1);
  const settled = useRef(onSettled);
  settled.current = onSettled;

  const drain = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    const onProgress = (p: Progress) => dispatch({ type: 'progress', p, at: Date.now() });
    for (let batch = nextBatch(queue.current); batch.length > 0; batch = nextBatch(queue.current)) {
      dispatch({ type: 'start', jobs: batch.map((j) => j.id), at: Date.now() });
      const job = batch[0];
      try {
        if (job.kind === 'ingest') {
          // Each path once, in the order asked for.
          const paths = [...new Set(batch.flatMap((j) => (j.kind === 'ingest' ? j.paths : [])))];
          const report = await backend.ingest(paths, onProgress);
          dispatch({ type: 'finish', report });
          for (const j of batch) if (j.kind === 'ingest') j.then?.(report);
        } else {
          for (const doc of job.docs) {
            if (job.gen !== generation.current) break;
            dispatch({ type: 'finish', report: await backend.reindexDocument(doc, onProgress) });
          }
        }
      } catch (e) {
        dispatch({ type: 'fail', error: toBackendError(e) });
      }
      settled.current();
    }
    running.current = false;
    dispatch({ type: 'idle' });
  }, [backend]);

  const ingest = useCallback(
    (paths: string[], then?: (report: IngestReport) => void) => {
      if (paths.length === 0) return;
      const id = nextId.current++;
      queue.current.push({ kind: 'ingest', paths, then, id, gen: generation.current });
      dispatch({ type: 'queue', job: id, paths });
      // What the add weighs, for the time left; without it the estimate waits (it is a hint).
      backend
        .fileSizes(paths)
        .then((sizes) => dispatch({ type: 'sizes', job: id, bytes: sizes.reduce((n, b) => n + b, 0) }))
        .catch(() => {});
      void drain();
    },
    [backend, drain],
  );
  const reindex = useCallback(
    (docs: string[]) => {
      if (docs.length === 0) return;
      const id = nextId.current++;
      queue.current.push({ kind: 'reindex', docs, id, gen: generation.current });
      dispatch({ type: 'queue', job: id, paths: [] });
      void drain();
    },
    [drain],
  );
  const cancel = useCallback(() => {
    queue.current = [];
    generation.current += 1;
    dispatch({ type: 'cancelling' });
    backend.cancelIngest().catch((e: unknown) => dispatch({ type: 'fail', error: toBackendError(e) }));
  }, [backend]);
  const clear = useCallback(() => dispatch({ type: 'clear' }), []);

  return useMemo(() => ({ state, ingest, reindex, cancel, clear }), [state, ingest, reindex, cancel, clear]);
}

export const IngestContext = createContext<IngestController | null>(null);

export function useIngest(): IngestController {
  const c = useContext(IngestContext);
  if (!c) throw new Error('useIngest outside <IngestContext.Provider>');
  return c;
}

export function IngestProvider({ value, children }: { value: IngestController; children: ReactNode }) {
  return <IngestContext.Provider value={value}>{children}</IngestContext.Provider>;
}
