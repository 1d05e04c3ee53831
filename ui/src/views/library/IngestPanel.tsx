import type { BackendError, IngestReport, Stage } from '../../backend/types';
import { errorAdvice } from '../../backend/errors';
import { ContextUsage } from '../../components/ContextUsage';
import { ErrorNote } from '../../components/ErrorNote';
import { FINAL_STAGES, type IngestRow } from '../../state/ingest';
import { baseName, formatSeconds } from '../../text/format';

/** What each stage of an ingest is called in its file's row. */
export const STAGE_LABELS: Record<Stage, string> = {
  queued: 'queued',
  converting: 'converting',
  analysing: 'recovering structure',
  contextualizing: 'contextualizing',
  embedding: 'embedding',
  indexing: 'indexing',
  indexed: 'indexed',
  unchanged: 'unchanged',
  failed: 'failed',
  cancelled: 'cancelled',
};

type IngestPanelProps = {
  rows: IngestRow[];
  running: boolean;
  cancelling: boolean;
  report: IngestReport | null;
  error: BackendError | null;
  /** Seconds left for every file listed, the waiting ones included (`queueTimeLeft`). */
  remaining: number | null;
  onCancel(): void;
  onClear(): void;
};

/** A row's stage as shown: with the page or chunk counts, or a failure's reason. */
export function stageText(row: IngestRow): string {
  if (row.stage === 'failed') return `failed: ${row.error?.message ?? 'unknown error'}`;
  if (row.stage === 'embedding' && row.total > 0) return `embedding ${row.done}/${row.total}`;
  if (row.stage === 'converting' && row.total > 1) return `reading page ${row.done}/${row.total}`;
  return STAGE_LABELS[row.stage] ?? row.stage;
}

/** "about 3 min left", from the engine's estimate in seconds. */
export function timeLeft(seconds: number): string {
  if (seconds < 45) return 'less than a minute left';
  if (seconds < 90) return 'about a minute left';
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min left`;
  const h = Math.floor(seconds / 3600);
  return `about ${h} h ${Math.round((seconds - h * 3600) / 60)} min left`;
}

/**
 * The files of the running (or last) ingest and of those waiting behind it, each with its stage
 * and a progress bar; how many are done of all of them, and the time left for all; cancel or clear.
 */
export function IngestPanel({ rows, running, cancelling, report, error, remaining, onCancel, onClear }: IngestPanelProps) {
  const finished = rows.filter((r) => FINAL_STAGES.includes(r.stage)).length;
  return (
    <section className="ingest-panel" aria-label="Adding documents" data-testid="ingest-panel">
      <header className="ingest-head">
        <h2>{running ? `Adding documents (${finished}/${rows.length})` : 'Last ingest'}</h2>
        {running && remaining !== null && (
          <span className="muted ingest-eta" data-testid="ingest-eta" role="status">
            {timeLeft(remaining)}
          </span>
        )}
        {running ? (
          <button type="button" className="button small" data-testid="ingest-cancel" disabled={cancelling} onClick={onCancel}>
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : (
          <button type="button" className="button small" data-testid="ingest-clear" onClick={onClear}>
            Clear
          </button>
        )}
      </header>
      <ErrorNote error={error} />
      <ul className="ingest-rows">
        {rows.map((row) => {
          const final = FINAL_STAGES.includes(row.stage);
          const value = row.total > 0 ? row.done : final && row.stage !== 'failed' ? 1 : 0;
          const max = row.total > 0 ? row.total : 1;
          return (
            <li
              key={row.file}
              className={`ingest-row stage-${row.stage}`}
              data-testid="ingest-row"
              data-stage={row.stage}
              data-file={row.file}
              data-waiting={row.asked ? 'true' : undefined}
            >
              <span className="ingest-file" title={row.file}>
                {baseName(row.file)}
              </span>
              <progress
                max={max}
                value={row.stage === 'queued' || (row.stage === 'converting' && row.total === 0) ? undefined : value}
                aria-label={`${baseName(row.file)} progress`}
              />
              <span
                className={`ingest-stage${row.stage === 'failed' ? ' error-text' : ''}`}
                data-testid="ingest-stage"
                title={row.stage === 'failed' && row.error ? (errorAdvice(row.error.code) ?? undefined) : undefined}
              >
                {stageText(row)}
              </span>
            </li>
          );
        })}
      </ul>
      {report && !running && (
        <p className="ingest-summary" data-testid="ingest-summary" role="status">
          {report.cancelled ? 'Cancelled. ' : ''}
          Indexed {report.indexed.length}, unchanged {report.unchanged.length}, failed {report.failed.length} · {report.chunks} chunks in {formatSeconds(report.seconds)}
        </p>
      )}
      {report && !running && report.contexts.length > 0 && <ContextUsage runs={report.contexts} />}
    </section>
  );
}
