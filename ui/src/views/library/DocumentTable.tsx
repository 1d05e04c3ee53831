import { useState } from 'react';
import { useBackend } from '../../backend';
import { toBackendError } from '../../backend/errors';
import type { BackendError, DocumentSummary } from '../../backend/types';
import { useIngest } from '../../state/ingest';
import { useNav } from '../../state/nav';
import { baseName, formatBytes } from '../../text/format';

type Props = {
  docs: DocumentSummary[];
  /** Set while the library is read-only: re-index and remove are off, with this as their tooltip. */
  readOnlyReason?: string;
  /** A removal failed. */
  onError(error: BackendError): void;
};

/**
 * The library's documents with their figures (pages, sections, chunks, definitions, references);
 * a title opens the document in the reader; each row re-indexes, or removes after confirmation.
 */
export function DocumentTable({ docs, readOnlyReason, onError }: Props) {
  const backend = useBackend();
  const nav = useNav();
  const ingest = useIngest();
  const readOnly = readOnlyReason !== undefined;
  /** The document whose removal is being confirmed. */
  const [confirming, setConfirming] = useState<number | null>(null);
  /** The document being removed. */
  const [busy, setBusy] = useState<number | null>(null);

  const remove = async (doc: DocumentSummary) => {
    setConfirming(null);
    setBusy(doc.document.id);
    try {
      await backend.removeDocument(String(doc.document.id));
      nav.libraryChanged();
    } catch (e) {
      onError(toBackendError(e));
    } finally {
      setBusy(null);
    }
  };

  return (
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
          {docs.map((d) => {
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
  );
}
