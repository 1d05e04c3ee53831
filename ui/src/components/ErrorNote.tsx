import type { BackendError } from '../backend/types';

/** Shows a backend error's message (never the raw object). */
export function ErrorNote({ error, onDismiss }: { error: BackendError | null; onDismiss?: () => void }) {
  if (!error) return null;
  return (
    <div className="error-note" role="alert" data-testid="error" data-code={error.code}>
      <span>{error.message}</span>
      {onDismiss && (
        <button type="button" className="link-button" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
