import { baseName } from '../../text/format';

type Props = {
  /** Files whose interrupted ingest was rolled back when the library opened. */
  paths: string[];
  /** Queues them again. */
  onAddAgain(): void;
  onDismiss(): void;
  /** Set while the library is read-only: "Add them again" is off, with this as its tooltip. */
  readOnlyReason?: string;
};

/** The documents an interrupted ingest left half-written, rolled back on open: add them again. */
export function RepairedNotice({ paths, onAddAgain, onDismiss, readOnlyReason }: Props) {
  return (
    <div className="notice" role="status" data-testid="repaired-notice">
      <p>An interrupted ingest was rolled back for these documents; add them again:</p>
      <ul className="repaired-files">
        {paths.map((p) => (
          <li key={p} title={p} data-testid="repaired-file" data-path={p}>
            {baseName(p)}
          </li>
        ))}
      </ul>
      <button
        type="button"
        className="button small primary"
        data-testid="repaired-add-again"
        disabled={readOnlyReason !== undefined}
        title={readOnlyReason}
        onClick={onAddAgain}
      >
        Add them again
      </button>
      <button type="button" className="link-button" data-testid="repaired-dismiss" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
