import { FileIcon, FolderIcon, UploadIcon } from '../../components/Icons';

type Props = {
  /** Opens the file (false) or folder (true) dialog. */
  onPick(folder: boolean): void;
  /** Set while the library is read-only: the add buttons are off, with this as their tooltip. */
  readOnlyReason?: string;
};

/** What an empty library shows: what Folio does, and a drop zone with both add buttons. */
export function Welcome({ onPick, readOnlyReason }: Props) {
  const readOnly = readOnlyReason !== undefined;
  return (
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
          <button type="button" className="button primary" data-testid="welcome-add-files" disabled={readOnly} title={readOnlyReason} onClick={() => onPick(false)}>
            <FileIcon size={16} /> Add files…
          </button>
          <button type="button" className="button" data-testid="welcome-add-folder" disabled={readOnly} title={readOnlyReason} onClick={() => onPick(true)}>
            <FolderIcon size={16} /> Add folder…
          </button>
        </div>
        <p className="muted">Once files are queued, Folio says how long adding them will take on this computer.</p>
      </div>
    </section>
  );
}
