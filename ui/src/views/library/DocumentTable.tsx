import { useEffect, useState, type KeyboardEvent } from 'react';
import { useBackend } from '../../backend';
import { toBackendError } from '../../backend/errors';
import type { BackendError, DocumentRow, DocumentSummary } from '../../backend/types';
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
 * a title opens the document in the reader; each row is renamed in place (a title the user gave is
 * marked, and can be reset to the file's own), re-indexes, or removes after confirmation.
 */
export function DocumentTable({ docs, readOnlyReason, onError }: Props) {
  const backend = useBackend();
  const nav = useNav();
  const ingest = useIngest();
  const readOnly = readOnlyReason !== undefined;
  /** The document whose removal is being confirmed. */
  const [confirming, setConfirming] = useState<number | null>(null);
  /** The document being removed or renamed. */
  const [busy, setBusy] = useState<number | null>(null);
  /** The document whose title is being edited, and the title typed so far. */
  const [editing, setEditing] = useState<{ id: number; title: string } | null>(null);
  /** Documents as a rename answered them, shown until the list is read again. */
  const [renamed, setRenamed] = useState<Map<number, DocumentRow>>(() => new Map());
  useEffect(() => setRenamed(new Map()), [docs]);

  /** Saves a title (null: the file's own); the whole app reads the library again, titles being in citations. */
  const rename = async (id: number, title: string | null) => {
    setEditing(null);
    setBusy(id);
    try {
      const row = await backend.renameDocument(String(id), title?.trim() ? title.trim() : null);
      setRenamed((m) => new Map(m).set(id, row));
      nav.libraryChanged();
    } catch (e) {
      onError(toBackendError(e));
    } finally {
      setBusy(null);
    }
  };
  const onTitleKey = (e: KeyboardEvent<HTMLInputElement>, id: number) => {
    if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void rename(id, e.currentTarget.value);
    } else if (e.key === 'Escape') {
      // Escape leaves the title as it was (and goes no further: no dialog or view closes).
      e.preventDefault();
      e.stopPropagation();
      setEditing(null);
    }
  };

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
            const row = renamed.get(d.document.id) ?? d.document;
            const edit = editing?.id === row.id ? editing : null;
            return (
              <tr key={row.id} data-testid="doc-row" data-label={row.label} data-doc-id={row.id} data-renamed={row.renamed ? 'true' : undefined}>
                <td>
                  {edit ? (
                    <input
                      type="text"
                      className="doc-title-input"
                      data-testid="rename-input"
                      aria-label={`New title for ${row.label} (Enter saves, Escape cancels; empty: the file's own title)`}
                      value={edit.title}
                      autoFocus
                      spellCheck={false}
                      onChange={(e) => setEditing({ id: row.id, title: e.target.value })}
                      onKeyDown={(e) => onTitleKey(e, row.id)}
                      onBlur={() => setEditing(null)}
                    />
                  ) : (
                    <button
                      type="button"
                      className="link-button doc-title"
                      data-testid="doc-title"
                      title={`${row.path} · ${formatBytes(row.size)}`}
                      onClick={() => nav.open({ doc: String(row.id), sectionId: null })}
                    >
                      {row.title || baseName(row.path)}
                    </button>
                  )}
                  {row.renamed && !edit && (
                    <span className="renamed-hint muted" data-testid="renamed-hint" title="You named this document; Reset title gives it back the title its file gives.">
                      renamed
                    </span>
                  )}
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
                        data-testid="rename"
                        disabled={busy === row.id || readOnly}
                        title={readOnlyReason ?? 'Name this document as you cite it'}
                        onClick={() => setEditing({ id: row.id, title: row.title })}
                      >
                        Rename
                      </button>
                      {row.renamed && (
                        <button
                          type="button"
                          className="button small"
                          data-testid="reset-title"
                          disabled={busy === row.id || readOnly}
                          title={readOnlyReason ?? 'Give it back the title its file gives'}
                          onClick={() => void rename(row.id, null)}
                        >
                          Reset title
                        </button>
                      )}
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
