import { useState } from 'react';
import { useBackend } from '../../backend';
import { errorAdvice, toBackendError } from '../../backend/errors';
import type { BackendError, WatchedFolder } from '../../backend/types';
import { ErrorNote } from '../../components/ErrorNote';
import { FolderIcon } from '../../components/Icons';
import { useQuery } from '../../state/query';
import { baseName } from '../../text/format';

/**
 * The folders the library keeps in step with, and the files it could not add. Reloads whenever
 * the library changed (an ingest, a removal, a background pass over a watched folder).
 */
export function WatchedFolders({ disabledReason }: { disabledReason?: string }) {
  const backend = useBackend();
  const watched = useQuery(() => backend.watchedFolders(), [backend]);
  const failed = useQuery(() => backend.failures(), [backend]);
  const folders = watched.data ?? [];
  const failures = failed.data ?? [];
  /** Why watching or unwatching a folder failed (dismissable; reading the lists fails on its own). */
  const [error, setError] = useState<BackendError | null>(null);
  const [showFailures, setShowFailures] = useState(false);

  const act = async (run: () => Promise<WatchedFolder[]>) => {
    try {
      watched.set(await run());
    } catch (e) {
      setError(toBackendError(e));
    }
  };

  const watch = async () => {
    try {
      const [folder] = await backend.pickFolder();
      if (folder) await act(() => backend.watchFolder(folder));
    } catch (e) {
      setError(toBackendError(e));
    }
  };

  return (
    <section className="watched" aria-label="Watched folders" data-testid="watched-folders">
      <div className="watched-head">
        <h2>Watched folders</h2>
        <button
          type="button"
          className="button small"
          data-testid="watch-folder"
          disabled={disabledReason !== undefined}
          title={disabledReason ?? 'Folio adds the files in this folder, and follows them as they are added, changed, renamed or deleted'}
          onClick={() => void watch()}
        >
          <FolderIcon size={14} /> Watch a folder…
        </button>
      </div>
      <ErrorNote error={watched.error ?? failed.error} />
      <ErrorNote error={error} onDismiss={() => setError(null)} />
      {folders.length === 0 ? (
        <p className="muted" data-testid="watched-empty">
          No watched folders. A watched folder&apos;s files are added and kept up to date, even when they change while Folio is closed.
        </p>
      ) : (
        <ul className="watched-list">
          {folders.map((f) => (
            <li key={f.path} data-testid="watched-folder" data-path={f.path}>
              <FolderIcon size={14} />
              <span className="watched-path" title={f.path}>
                {f.path}
              </span>
              <span className="muted" data-testid="watched-count">
                {f.exists ? `${f.documents} document${f.documents === 1 ? '' : 's'}` : 'missing (not connected?)'}
              </span>
              <button
                type="button"
                className="link-button"
                data-testid="unwatch-folder"
                disabled={disabledReason !== undefined}
                title={disabledReason ?? 'Stop following this folder; its documents stay in the library'}
                onClick={() => void act(() => backend.unwatchFolder(f.path))}
              >
                Stop watching
              </button>
              {f.error !== null && (
                <p className="watched-error" role="status" data-testid="watched-folder-error">
                  <span aria-hidden="true">⚠ </span>Changes in this folder are not followed: {f.error}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {failures.length > 0 && (
        <div className="failures" data-testid="failures">
          <button type="button" className="link-button" data-testid="failures-toggle" aria-expanded={showFailures} onClick={() => setShowFailures((s) => !s)}>
            {failures.length} file{failures.length === 1 ? '' : 's'} could not be added {showFailures ? '▾' : '▸'}
          </button>
          {showFailures && (
            <ul className="failure-list">
              {failures.map((x) => (
                <li key={x.path} data-testid="failure" data-code={x.code} title={x.path}>
                  <strong>{baseName(x.path)}</strong> — <span className="error-text">{x.message}</span>
                  {errorAdvice(x.code) && <span className="error-advice"> {errorAdvice(x.code)}</span>}
                  <span className="muted"> (tried again when the file changes)</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
