// What the ingest panel shows: one row per file of the running ingest and of those waiting behind
// it (each listed as soon as it is asked for, not only once it starts), the engine's progress on
// each, and the time left for all of them.
import type { BackendError, IngestReport, Progress, Stage } from '../backend/types';

export type IngestRow = {
  file: string;
  fileIndex: number;
  stage: Stage;
  done: number;
  total: number;
  error: BackendError | null;
  /** The job (one add: a drop, a pick, a typed path, a re-index) that asked for it. */
  job: number;
  /**
   * A path as it was asked for, which the engine has not reported on yet: its job waits, or has
   * just started. A folder's row gives way to its files' rows as the engine lists them.
   */
  asked: boolean;
};

/** The jobs of one engine call (queued jobs run together), and when it started (ms). */
export type Batch = { jobs: number[]; startedAt: number };

export type IngestState = {
  running: boolean;
  cancelling: boolean;
  /** One row per file, in the order asked for. */
  rows: IngestRow[];
  report: IngestReport | null;
  error: BackendError | null;
  /** Seconds the running batch has left, by the engine's latest estimate (null until it has one). */
  remaining: number | null;
  /** The engine call running now. */
  batch: Batch | null;
  /** Jobs asked for that have not started, in order. */
  waiting: number[];
  /** The bytes each job's paths hold, once known (`Backend.fileSizes`). */
  bytes: Record<number, number>;
  /** Bytes a second this run's ingests have shown, from the latest estimate of the engine's. */
  rate: number | null;
  /** When the latest event arrived (ms). */
  now: number;
};

export const initialIngest: IngestState = {
  running: false,
  cancelling: false,
  rows: [],
  report: null,
  error: null,
  remaining: null,
  batch: null,
  waiting: [],
  bytes: {},
  rate: null,
  now: 0,
};

export type IngestAction =
  /** A job asked for: `paths` (none for a re-index) are listed at once, queued. */
  | { type: 'queue'; job: number; paths: string[] }
  | { type: 'sizes'; job: number; bytes: number }
  | { type: 'start'; jobs: number[]; at: number }
  | { type: 'progress'; p: Progress; at: number }
  | { type: 'finish'; report: IngestReport }
  | { type: 'fail'; error: BackendError }
  | { type: 'cancelling' }
  | { type: 'idle' }
  | { type: 'clear' };

export const FINAL_STAGES: Stage[] = ['indexed', 'unchanged', 'failed', 'cancelled'];

const isFinal = (stage: Stage) => FINAL_STAGES.includes(stage);

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

/** Whether `file` lies inside the folder `dir` (either separator). */
function inside(file: string, dir: string): boolean {
  const d = dir.replace(/[\\/]+$/, '');
  return d !== '' && file.length > d.length && file.startsWith(d) && (file[d.length] === '/' || file[d.length] === '\\');
}

/** The total bytes of `jobs`, or null while one of them is not known. */
function bytesOf(state: IngestState, jobs: number[]): number | null {
  let n = 0;
  for (const j of jobs) {
    const b = state.bytes[j];
    if (b === undefined) return null;
    n += b;
  }
  return n;
}

/** An engine event: the file's row updated, or added in its batch's place. */
function progress(state: IngestState, p: Progress, at: number): IngestState {
  let remaining = state.remaining;
  let rate = state.rate;
  if (p.remaining_s !== null) {
    remaining = p.remaining_s;
    // The running batch's pace: its bytes over the time it takes in all (so far and left).
    const bytes = state.batch && bytesOf(state, state.batch.jobs);
    const seconds = state.batch ? (at - state.batch.startedAt) / 1000 + p.remaining_s : 0;
    if (bytes && seconds > 0) rate = bytes / seconds;
  }
  const next = { ...state, remaining, rate, now: at };
  const at_ = state.rows.findIndex((r) => r.file === p.file);
  if (at_ !== -1) {
    // Events arrive throttled; the latest per file wins, but a final stage is never undone.
    const prev = state.rows[at_];
    if (isFinal(prev.stage) && !isFinal(p.stage) && p.stage !== 'queued') return next;
    const rows = state.rows.slice();
    rows[at_] = { ...prev, fileIndex: p.file_index, stage: p.stage, done: p.done, total: p.total, error: p.error, asked: false };
    return { ...next, rows };
  }
  const jobs = state.batch?.jobs ?? [];
  const row: IngestRow = {
    file: p.file,
    fileIndex: p.file_index,
    stage: p.stage,
    done: p.done,
    total: p.total,
    error: p.error,
    job: jobs[0] ?? -1,
    asked: false,
  };
  // A folder asked for is now listed by its files.
  const rows = state.rows.filter((r) => !(r.asked && jobs.includes(r.job) && inside(p.file, r.file)));
  // After the batch's files already reported, ahead of its paths not yet reported and of the jobs
  // waiting behind it.
  let place = -1;
  rows.forEach((r, i) => {
    if (jobs.includes(r.job) && !r.asked) place = i + 1;
  });
  if (place === -1) place = rows.findIndex((r) => jobs.includes(r.job));
  if (place === -1) place = rows.length;
  rows.splice(place, 0, row);
  return { ...next, rows };
}

export function ingestReducer(state: IngestState, action: IngestAction): IngestState {
  switch (action.type) {
    case 'queue': {
      // The first job after an idle spell starts a new list.
      const base: IngestState = state.running ? state : { ...initialIngest, running: true };
      const rows = base.rows.slice();
      for (const path of action.paths) {
        const at = rows.findIndex((r) => r.file === path);
        // A file already waiting or running stays where it is; one done earlier is asked again.
        if (at !== -1 && !isFinal(rows[at].stage)) continue;
        if (at !== -1) rows.splice(at, 1);
        rows.push({ file: path, fileIndex: 0, stage: 'queued', done: 0, total: 0, error: null, job: action.job, asked: true });
      }
      return { ...base, rows, waiting: [...base.waiting, action.job] };
    }
    case 'sizes':
      return { ...state, bytes: { ...state.bytes, [action.job]: action.bytes } };
    case 'start':
      // A cancel asked for earlier was for the jobs before these.
      return {
        ...state,
        running: true,
        cancelling: false,
        batch: { jobs: action.jobs, startedAt: action.at },
        waiting: state.waiting.filter((j) => !action.jobs.includes(j)),
        remaining: null,
        now: action.at,
      };
    case 'progress':
      return progress(state, action.p, action.at);
    case 'finish': {
      const jobs = state.batch?.jobs ?? [];
      // A path the engine listed nothing for (an empty folder) is not a file of the ingest.
      let rows = state.rows.filter((r) => !(r.asked && jobs.includes(r.job)));
      // Files the report settles but whose last event never came.
      const settle = (files: string[], stage: Stage, error?: (f: string) => BackendError) => {
        rows = rows.map((r) => (files.includes(r.file) && !isFinal(r.stage) ? { ...r, stage, done: r.total, error: error ? error(r.file) : null } : r));
      };
      settle(action.report.indexed, 'indexed');
      settle(action.report.unchanged, 'unchanged');
      settle(
        action.report.failed.map((f) => f.path),
        'failed',
        (file) => {
          const f = action.report.failed.find((x) => x.path === file)!;
          return { code: f.code, message: f.message };
        },
      );
      if (action.report.cancelled) {
        rows = rows.map((r) => (isFinal(r.stage) || !jobs.includes(r.job) ? r : { ...r, stage: 'cancelled' as Stage }));
      }
      return { ...state, rows, report: mergeReports(state.report, action.report) };
    }
    case 'fail': {
      // The call failed as a whole: its paths not yet reported failed with it.
      const jobs = state.batch?.jobs ?? [];
      const rows = state.rows.map((r) => (r.asked && jobs.includes(r.job) ? { ...r, stage: 'failed' as Stage, error: action.error } : r));
      return { ...state, rows, error: action.error };
    }
    case 'cancelling': {
      // The jobs waiting are dropped with the running one.
      const rows = state.rows.map((r) => (r.asked && state.waiting.includes(r.job) ? { ...r, stage: 'cancelled' as Stage } : r));
      return { ...state, rows, waiting: [], cancelling: true };
    }
    case 'idle':
      return { ...state, running: false, cancelling: false, batch: null, waiting: [], remaining: null };
    case 'clear':
      return state.running ? state : initialIngest;
  }
}

/**
 * Seconds left for everything asked for: the running batch by the engine's estimate, and the jobs
 * waiting behind it at the pace the running one shows (its bytes over its time so far and left),
 * so `remaining_s + waiting bytes / rate`. Before the engine has an estimate for the batch, the
 * pace of an earlier batch of this run stands in. Null while it cannot be told (no pace yet, or the
 * size of a waiting job not known).
 */
export function queueTimeLeft(state: IngestState): number | null {
  if (!state.running || !state.batch) return null;
  const waitingBytes = bytesOf(state, state.waiting);
  if (waitingBytes === null) return null;
  let running = state.remaining;
  if (running === null) {
    const bytes = bytesOf(state, state.batch.jobs);
    if (state.rate === null || bytes === null) return null;
    running = Math.max(0, bytes / state.rate - (state.now - state.batch.startedAt) / 1000);
  }
  if (waitingBytes === 0) return running;
  return state.rate === null ? null : running + waitingBytes / state.rate;
}
