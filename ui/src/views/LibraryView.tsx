import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useBackend } from '../backend';
import { errorAdvice, toBackendError } from '../backend/errors';
import type { BackendError, DocumentSummary, IngestReport, LibraryStatus, Stage } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { ContextUsage } from '../components/ContextUsage';
import { WatchedFolders } from './WatchedFolders';
import { MissingDocuments } from './MissingDocuments';
import { FileIcon, FolderIcon, UploadIcon } from '../components/Icons';
import { FINAL_STAGES, useIngest, type IngestRow } from '../state/ingest';
import { useNav } from '../state/nav';
import { baseName, formatBytes, formatSeconds } from '../text/format';
import { splitPathList } from '../text/paths';

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

export function LibraryView() {
  const backend = useBackend();
  const nav = useNav();
  const ingest = useIngest();
  const [docs, setDocs] = useState<DocumentSummary[] | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const [status, setStatus] = useState<LibraryStatus | null>(null);
  /** Repaired paths already dismissed or queued again: their notice stays hidden. */
  const [repairHandled, setRepairHandled] = useState<string[]>([]);

  // The status is read on mount and again whenever the library changed (after each ingest job
  // settles, a removal...), so a lock taken or released meanwhile is picked up.
  useEffect(() => {
    let live = true;
    backend.libraryStatus().then(
      (s) => {
        if (live) setStatus(s);
      },
      () => {
        /* no status: behave as before (writable, nothing repaired) */
      },
    );
    return () => {
      live = false;
    };
  }, [backend, nav.libraryVersion]);

  const readOnly = status !== null && !status.writable;
  const readOnlyReason = readOnly
    ? `Read-only: another Folio window or the folio command is changing this library (${status.dir}). You can search and read; adding, removing and re-indexing are off until it closes.`
    : undefined;
  const repaired = (status?.repaired ?? []).filter((p) => !repairHandled.includes(p));
  const addRepairedAgain = () => {
    setRepairHandled((h) => [...h, ...repaired]);
    ingest.ingest(repaired);
  };

  useEffect(() => {
    let live = true;
    backend.libraryDocuments().then(
      (d) => {
        if (!live) return;
        setDocs(d);
      },
      (e: unknown) => {
        if (!live) return;
        setDocs([]);
        setError(toBackendError(e));
      },
    );
    return () => {
      live = false;
    };
  }, [backend, nav.libraryVersion]);

  const pick = async (folder: boolean) => {
    try {
      const paths = folder ? await backend.pickFolder() : await backend.pickFiles();
      if (paths.length) ingest.ingest(paths);
    } catch (e) {
      setError(toBackendError(e));
    }
  };

  const remove = async (doc: DocumentSummary) => {
    setConfirming(null);
    setBusy(doc.document.id);
    try {
      await backend.removeDocument(String(doc.document.id));
      nav.libraryChanged();
    } catch (e) {
      setError(toBackendError(e));
    } finally {
      setBusy(null);
    }
  };

  const { state } = ingest;

  return (
    <div className="view library-view">
      <header className="view-head">
        <h1>Library</h1>
        <div className="actions">
          <button
            type="button"
            className="button primary"
            data-testid="add-files"
            disabled={readOnly}
            title={readOnlyReason}
            onClick={() => void pick(false)}
          >
            <FileIcon size={16} /> Add files…
          </button>
          <button type="button" className="button" data-testid="add-folder" disabled={readOnly} title={readOnlyReason} onClick={() => void pick(true)}>
            <FolderIcon size={16} /> Add folder…
          </button>
          <AddPathForm onAdd={ingest.ingest} disabledReason={readOnlyReason} />
        </div>
      </header>

      {readOnly && (
        <div className="notice notice-warn" role="status" data-testid="readonly-notice">
          <p>{readOnlyReason}</p>
        </div>
      )}

      {repaired.length > 0 && (
        <div className="notice" role="status" data-testid="repaired-notice">
          <p>An interrupted ingest was rolled back for these documents; add them again:</p>
          <ul className="repaired-files">
            {repaired.map((p) => (
              <li key={p} title={p} data-testid="repaired-file" data-path={p}>
                {baseName(p)}
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="button small primary"
            data-testid="repaired-add-again"
            disabled={readOnly}
            title={readOnlyReason}
            onClick={addRepairedAgain}
          >
            Add them again
          </button>
          <button type="button" className="link-button" data-testid="repaired-dismiss" onClick={() => setRepairHandled((h) => [...h, ...repaired])}>
            Dismiss
          </button>
        </div>
      )}

      <ErrorNote error={error} onDismiss={() => setError(null)} />

      <WatchedFolders disabledReason={readOnlyReason} />
      <MissingDocuments />

      {(state.rows.length > 0 || state.running || state.error) && (
        <IngestPanel
          rows={state.rows}
          running={state.running}
          cancelling={state.cancelling}
          report={state.report}
          error={state.error}
          remaining={state.remaining}
          onCancel={ingest.cancel}
          onClear={ingest.clear}
        />
      )}

      {docs !== null && docs.length === 0 ? (
        <section className="welcome" aria-label="Welcome to Folio" data-testid="welcome">
          <h2>Welcome to Folio</h2>
          <p>
            Folio reads your rulebooks, regulations, filings and reports — PDF, Word, HTML, EPUB, Markdown or text — and
            recovers their structure, so you can:
          </p>
          <ul>
            <li>search them in plain words or by rule number, and see the section and page of every hit;</li>
            <li>look up where and for what a term is defined;</li>
            <li>follow a reference such as “GEN Rule 5.5.1” to its rule, and see what refers back.</li>
          </ul>
          <p className="muted">Everything stays on this computer; nothing is sent anywhere unless you turn on LLM context in Settings.</p>
          <div className="drop-hint drop-zone" data-testid="drop-hint">
            <UploadIcon size={48} />
            <p>Drop files or folders here</p>
            <div className="actions">
              <button type="button" className="button primary" data-testid="welcome-add-files" disabled={readOnly} title={readOnlyReason} onClick={() => void pick(false)}>
                <FileIcon size={16} /> Add files…
              </button>
              <button type="button" className="button" data-testid="welcome-add-folder" disabled={readOnly} title={readOnlyReason} onClick={() => void pick(true)}>
                <FolderIcon size={16} /> Add folder…
              </button>
            </div>
            <p className="muted">Once files are queued, Folio says how long adding them will take on this computer.</p>
          </div>
        </section>
      ) : (
        <div className="table-wrap">
          <table className="doc-table">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Label</th>
                <th scope="col">Format</th>
                <th scope="col" className="num">
                  Pages
                </th>
                <th scope="col" className="num">
                  Sections
                </th>
                <th scope="col" className="num">
                  Chunks
                </th>
                <th scope="col" className="num">
                  Definitions
                </th>
                <th scope="col" className="num">
                  References
                </th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(docs ?? []).map((d) => {
                const row = d.document;
                return (
                  <tr key={row.id} data-testid="doc-row" data-label={row.label} data-doc-id={row.id}>
                    <td>
                      <button type="button" className="link-button doc-title" title={`${row.path} · ${formatBytes(row.size)}`} onClick={() => nav.open({ doc: String(row.id), sectionId: null })}>
                        {row.title || baseName(row.path)}
                      </button>
                      {d.error && <div className="error-text">{d.error.message}</div>}
                    </td>
                    <td>
                      <span className="doc-label">{row.label}</span>
                    </td>
                    <td>{row.format}</td>
                    <td className="num">{row.page_count ?? '—'}</td>
                    <td className="num">{d.stats.sections}</td>
                    <td className="num">{d.stats.chunks}</td>
                    <td className="num">{d.stats.definitions}</td>
                    <td className="num">{d.stats.references}</td>
                    <td>
                      <span className={`status status-${row.status}`}>{row.status}</span>
                    </td>
                    <td className="row-actions">
                      {confirming === row.id && !readOnly ? (
                        <span className="confirm" role="group" aria-label={`Remove ${row.title}?`}>
                          <span>Remove?</span>
                          <button type="button" className="button small danger" data-testid="confirm-remove" onClick={() => void remove(d)}>
                            Remove
                          </button>
                          <button type="button" className="button small" data-testid="cancel-remove" onClick={() => setConfirming(null)}>
                            Keep
                          </button>
                        </span>
                      ) : (
                        <>
                          <button
                            type="button"
                            className="button small"
                            data-testid="reindex"
                            disabled={busy === row.id || readOnly}
                            title={readOnlyReason}
                            onClick={() => ingest.reindex([String(row.id)])}
                          >
                            Re-index
                          </button>
                          <button
                            type="button"
                            className="button small"
                            data-testid="remove"
                            disabled={busy === row.id || readOnly}
                            title={readOnlyReason}
                            onClick={() => setConfirming(row.id)}
                          >
                            Remove
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted drop-footnote">Drag files or folders anywhere onto the window to add them.</p>
    </div>
  );
}

/**
 * "Add from a path": a path typed or pasted, queued like a picked or dropped file. A textarea that
 * looks like a one-line input, so that pasted lists keep their line breaks (an `<input>` strips
 * them); Enter adds, Shift+Enter starts a new line. See `splitPathList` for the accepted forms.
 */
export function AddPathForm({ onAdd, disabledReason }: { onAdd(paths: string[]): void; disabledReason?: string }) {
  const disabled = disabledReason !== undefined;
  const id = useId();
  const [value, setValue] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);

  const submit = () => {
    // The element's own value: what was typed, even where a driver's edit skipped React's events.
    if (disabled) return;
    const paths = splitPathList(box.current?.value ?? value);
    if (paths.length === 0) return;
    onAdd(paths);
    setValue('');
    if (box.current) box.current.value = '';
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form
      className="add-path"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Add from a path
      </label>
      <textarea
        id={id}
        ref={box}
        className="add-path-input"
        data-testid="add-path-input"
        rows={Math.min(4, value.split('\n').length)}
        placeholder="/home/me/rulebooks or a file path"
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="off"
        value={value}
        disabled={disabled}
        title={disabledReason}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <button type="submit" className="button" data-testid="add-path-button" disabled={disabled} title={disabledReason}>
        Add
      </button>
    </form>
  );
}

type IngestPanelProps = {
  rows: IngestRow[];
  running: boolean;
  cancelling: boolean;
  report: IngestReport | null;
  error: BackendError | null;
  /** Seconds the ingest has left, as the engine estimates them. */
  remaining: number | null;
  onCancel(): void;
  onClear(): void;
};

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

function IngestPanel({ rows, running, cancelling, report, error, remaining, onCancel, onClear }: IngestPanelProps) {
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
            <li key={row.file} className={`ingest-row stage-${row.stage}`} data-testid="ingest-row" data-stage={row.stage} data-file={row.file}>
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
