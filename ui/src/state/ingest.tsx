import { createContext, useCallback, useContext, useMemo, useReducer, useRef, type ReactNode } from 'react';
import type { Backend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { BackendError, IngestReport, Progress, Stage } from '../backend/types';

export type IngestRow = {
  file: string;
  fileIndex: number;
  stage: Stage;
  done: number;
  total: number;
  error: BackendError | null;
};

export type IngestState = {
  running: boolean;
  cancelling: boolean;
  /** One row per file, in the order first seen. */
  rows: IngestRow[];
  report: IngestReport | null;
  error: BackendError | null;
  /** Seconds the running ingest has left, by the engine's latest estimate. */
  remaining: number | null;
};

export const initialIngest: IngestState = { running: false, cancelling: false, rows: [], report: null, error: null, remaining: null };

export type IngestAction =
  | { type: 'start'; reset: boolean }
  | { type: 'progress'; p: Progress }
  | { type: 'finish'; report: IngestReport }
  | { type: 'fail'; error: BackendError }
  | { type: 'cancelling' }
  | { type: 'idle' }
  | { type: 'clear' };

export const FINAL_STAGES: Stage[] = ['indexed', 'unchanged', 'failed', 'cancelled'];

function mergeReports(a: IngestReport | null, b: IngestReport): IngestReport {
  if (!a) return b;
  return {
    indexed: [...a.indexed, ...b.indexed],
    unchanged: [...a.unchanged, ...b.unchanged],
    failed: [...a.failed, ...b.failed],
    cancelled: a.cancelled || b.cancelled,
    chunks: a.chunks + b.chunks,
    seconds: Math.round((a.seconds + b.seconds) * 10) / 10,
    contexts: [...a.contexts, ...b.contexts],
  };
}

export function ingestReducer(state: IngestState, action: IngestAction): IngestState {
  switch (action.type) {
    case 'start':
      return action.reset
        ? { running: true, cancelling: false, rows: [], report: null, error: null, remaining: null }
        : // A job queued behind the running one: its rows join the list. A cancel asked for
          // earlier was for the jobs before it.
          { ...state, running: true, cancelling: false };
    case 'progress': {
      const { p } = action;
      const row: IngestRow = {
        file: p.file,
        fileIndex: p.file_index,
        stage: p.stage,
        done: p.done,
        total: p.total,
        error: p.error,
      };
      const at = state.rows.findIndex((r) => r.file === p.file);
      const remaining = p.remaining_s ?? state.remaining;
      if (at === -1) return { ...state, remaining, rows: [...state.rows, row] };
      // Events arrive throttled; the latest per file wins, but a final stage is never undone.
      const prev = state.rows[at];
      if (FINAL_STAGES.includes(prev.stage) && !FINAL_STAGES.includes(p.stage) && p.stage !== 'queued') return state;
      const rows = state.rows.slice();
      rows[at] = row;
      return { ...state, remaining, rows };
    }
    case 'finish': {
      // Files the report settles but whose last event never came.
      const settle = (rows: IngestRow[], files: string[], stage: Stage, error?: (f: string) => BackendError) =>
        rows.map((r) =>
          files.includes(r.file) && !FINAL_STAGES.includes(r.stage)
            ? { ...r, stage, done: r.total, error: error ? error(r.file) : null }
            : r,
        );
      let rows = settle(state.rows, action.report.indexed, 'indexed');
      rows = settle(rows, action.report.unchanged, 'unchanged');
      rows = settle(
        rows,
        action.report.failed.map((f) => f.path),
        'failed',
        (file) => {
          const f = action.report.failed.find((x) => x.path === file)!;
          return { code: f.code, message: f.message };
        },
      );
      if (action.report.cancelled) {
        rows = rows.map((r) => (FINAL_STAGES.includes(r.stage) ? r : { ...r, stage: 'cancelled' as Stage }));
      }
      return { ...state, rows, report: mergeReports(state.report, action.report) };
    }
    case 'fail':
      return { ...state, error: action.error };
    case 'cancelling':
      return { ...state, cancelling: true };
    case 'idle':
      return { ...state, running: false, cancelling: false };
    case 'clear':
      return state.running ? state : initialIngest;
  }
}

/** `gen`: the cancel generation when the job was asked for; a later cancel stops it. */
type Job = ({ kind: 'ingest'; paths: string[]; then?: (report: IngestReport) => void } | { kind: 'reindex'; docs: string[] }) & {
  gen: number;
};

export type IngestController = {
  state: IngestState;
  /** Adds files or folders; queued behind a running ingest. `then` gets the job's report. */
  ingest(paths: string[], then?: (report: IngestReport) => void): void;
  /** Re-indexes documents (ids or labels) one after another. */
  reindex(docs: string[]): void;
  cancel(): void;
  clear(): void;
};

/**
 * Runs ingests one at a time: a job asked for while another runs (the picker, a drop, "Add from a
 * path", a re-index) waits in the queue and starts when the one before it settles. `onSettled` is
 * called after each job (the library changed). Cancel stops the running job and drops the queued
 * ones; jobs asked for after it run normally.
 */
export function useIngestController(backend: Backend, onSettled: () => void): IngestController {
  const [state, dispatch] = useReducer(ingestReducer, initialIngest);
  const queue = useRef<Job[]>([]);
  const running = useRef(false);
  const generation = useRef(0);
  const settled = useRef(onSettled);
  settled.current = onSettled;

  const drain = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    let first = true;
    const onProgress = (p: Progress) => dispatch({ type: 'progress', p });
    while (queue.current.length > 0) {
      const job = queue.current.shift()!;
      dispatch({ type: 'start', reset: first });
      first = false;
      try {
        if (job.kind === 'ingest') {
          const report = await backend.ingest(job.paths, onProgress);
          dispatch({ type: 'finish', report });
          job.then?.(report);
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
      queue.current.push({ kind: 'ingest', paths, then, gen: generation.current });
      void drain();
    },
    [drain],
  );
  const reindex = useCallback(
    (docs: string[]) => {
      if (docs.length === 0) return;
      queue.current.push({ kind: 'reindex', docs, gen: generation.current });
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
