import { useState } from 'react';
import { useBackend } from '../backend';
import { toBackendError } from '../backend/errors';
import type { BackendError } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { FileIcon, FolderIcon } from '../components/Icons';
import { queueTimeLeft, useIngest } from '../state/ingest';
import { useQuery } from '../state/query';
import { AddPathForm } from './library/AddPathForm';
import { DocumentTable } from './library/DocumentTable';
import { IngestPanel } from './library/IngestPanel';
import { MissingDocuments } from './library/MissingDocuments';
import { RepairedNotice } from './library/RepairedNotice';
import { WatchedFolders } from './library/WatchedFolders';
import { Welcome } from './library/Welcome';

/**
 * The Library: adding documents (dialogs, a typed path, drops), watched folders, the running
 * ingest, its documents (or a welcome while it is empty), and below them what the library cites
 * but lacks.
 */
export function LibraryView() {
  const backend = useBackend();
  const ingest = useIngest();
  // Read again whenever the library changed (after each ingest job settles, a removal...), so a
  // lock taken or released meanwhile is picked up. Without it the view acts as writable.
  const { data: status } = useQuery(() => backend.libraryStatus(), [backend]);
  const documents = useQuery(() => backend.libraryDocuments(), [backend]);
  // A library that cannot be read lists nothing; its error says why (and offers a repair).
  const docs = documents.error ? [] : (documents.data ?? null);
  /** Why picking files or removing a document failed (dismissable). */
  const [error, setError] = useState<BackendError | null>(null);
  /** Repaired paths already dismissed or queued again: their notice stays hidden. */
  const [repairHandled, setRepairHandled] = useState<string[]>([]);

  const readOnlyReason =
    status && !status.writable
      ? `Read-only: another Folio window or the folio command is changing this library (${status.dir}). You can search and read; adding, removing and re-indexing are off until it closes.`
      : undefined;
  const readOnly = readOnlyReason !== undefined;
  const repaired = (status?.repaired ?? []).filter((p) => !repairHandled.includes(p));

  const pick = async (folder: boolean) => {
    try {
      const paths = folder ? await backend.pickFolder() : await backend.pickFiles();
      if (paths.length) ingest.ingest(paths);
    } catch (e) {
      setError(toBackendError(e));
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
        <RepairedNotice
          paths={repaired}
          readOnlyReason={readOnlyReason}
          onAddAgain={() => {
            setRepairHandled((h) => [...h, ...repaired]);
            ingest.ingest(repaired);
          }}
          onDismiss={() => setRepairHandled((h) => [...h, ...repaired])}
        />
      )}

      <ErrorNote error={documents.error} />
      <ErrorNote error={error} onDismiss={() => setError(null)} />

      <WatchedFolders disabledReason={readOnlyReason} />

      {(state.rows.length > 0 || state.running || state.error) && (
        <IngestPanel
          rows={state.rows}
          running={state.running}
          cancelling={state.cancelling}
          report={state.report}
          error={state.error}
          remaining={queueTimeLeft(state)}
          onCancel={ingest.cancel}
          onClear={ingest.clear}
        />
      )}

      {docs !== null && docs.length === 0 ? (
        <Welcome onPick={(folder) => void pick(folder)} readOnlyReason={readOnlyReason} />
      ) : (
        <DocumentTable docs={docs ?? []} readOnlyReason={readOnlyReason} onError={setError} />
      )}
      {/* Below the documents: a hint must not push them out of view. */}
      <MissingDocuments />
      <p className="muted drop-footnote">Drag files or folders anywhere onto the window to add them.</p>
    </div>
  );
}
