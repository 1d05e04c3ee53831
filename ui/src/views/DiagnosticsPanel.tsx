import { useEffect, useState } from 'react';
import { useBackend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { BackendError } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { CopyIcon, FolderIcon } from '../components/Icons';
import { useQuery } from '../state/query';
import { formatBytes } from '../text/format';

/** How long "Copied" stays on the button. */
const COPIED_MS = 2000;

/**
 * What a bug report needs, in Settings beside About: Folio's version, the OS, the CPU kernel the
 * embedder runs, the library's size, where the log is and its last errors. "Copy diagnostics"
 * copies the engine's plain-text report of all of it; "Open log folder" shows the log in the file
 * manager. Nothing of the documents' text is in it.
 */
export function DiagnosticsPanel() {
  const backend = useBackend();
  const report = useQuery(() => backend.diagnostics(), [backend]);
  const d = report.data;
  const [copied, setCopied] = useState(false);
  /** Why copying or opening the log folder failed (dismissable). */
  const [error, setError] = useState<BackendError | null>(null);

  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), COPIED_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);

  const run = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(toBackendError(e));
    }
  };
  const copy = () =>
    run(async () => {
      if (!d) return;
      await backend.copyText(d.text);
      setCopied(true);
    });

  return (
    <section className="diagnostics" aria-label="Diagnostics" data-testid="diagnostics">
      <h2>Diagnostics</h2>
      <p className="muted">For a bug report: what Folio runs on and the last errors it logged, without any text of your documents.</p>
      <ErrorNote error={report.error} />
      {d && (
        <dl className="diagnostics-facts">
          <dt>Version</dt>
          <dd>Folio {d.version}</dd>
          <dt>System</dt>
          <dd>{d.os}</dd>
          <dt>Embedding kernel</dt>
          <dd data-testid="diagnostics-kernel">{d.kernel}</dd>
          <dt>Library</dt>
          <dd>
            <span className="path">{d.library}</span>
            <span className="muted">
              {' '}
              — {d.documents} {d.documents === 1 ? 'document' : 'documents'}, {d.chunks} chunks, {formatBytes(d.library_bytes)}
            </span>
          </dd>
          <dt>Log folder</dt>
          <dd className="path" data-testid="log-dir">
            {d.log_dir}
          </dd>
          <dt>Recent errors</dt>
          <dd>
            {d.recent_errors.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              <ul className="diagnostics-errors">
                {d.recent_errors.map((message, i) => (
                  <li key={i} data-testid="diagnostics-error">
                    {message}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      )}
      <div className="form-actions">
        <button type="button" className="button small" data-testid="open-log-folder" onClick={() => void run(() => backend.openLogFolder())}>
          <FolderIcon size={14} /> Open log folder
        </button>
        <button type="button" className="button small" data-testid="copy-diagnostics" disabled={!d} onClick={() => void copy()}>
          <CopyIcon size={14} /> {copied ? 'Copied' : 'Copy diagnostics'}
        </button>
      </div>
      <ErrorNote error={error} onDismiss={() => setError(null)} />
    </section>
  );
}
