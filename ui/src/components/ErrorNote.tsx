import { useContext, useState } from 'react';
import { BackendContext, errorMessage } from '../backend';
import { errorAdvice } from '../backend/errors';
import type { BackendError, RepairReport } from '../backend/types';

/**
 * Shows a backend error's message (never the raw object). A damaged library (code `damaged`)
 * gets a *Repair library* button: the repair runs in the engine with its progress shown, and the
 * window reloads the repaired library when asked.
 */
export function ErrorNote({ error, onDismiss }: { error: BackendError | null; onDismiss?: () => void }) {
  if (!error) return null;
  return (
    <div className="error-note" role="alert" data-testid="error" data-code={error.code}>
      <span>{error.message}</span>
      {errorAdvice(error.code) && <span className="error-advice"> {errorAdvice(error.code)}</span>}
      {error.code === 'damaged' && <RepairButton />}
      {onDismiss && (
        <button type="button" className="link-button" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}

type RepairState =
  | { kind: 'idle' }
  | { kind: 'running'; done: number; total: number; file: string }
  | { kind: 'done'; report: RepairReport }
  | { kind: 'failed'; message: string };

function RepairButton() {
  const backend = useContext(BackendContext);
  const [state, setState] = useState<RepairState>({ kind: 'idle' });
  if (!backend) return null;
  const repair = async () => {
    setState({ kind: 'running', done: 0, total: 0, file: '' });
    try {
      const report = await backend.repairLibrary((p) =>
        setState({ kind: 'running', done: p.file_index, total: p.files, file: p.file }),
      );
      setState({ kind: 'done', report });
    } catch (e) {
      setState({ kind: 'failed', message: errorMessage(e) });
    }
  };
  switch (state.kind) {
    case 'idle':
      return (
        <button type="button" className="link-button" onClick={repair} data-testid="repair-library">
          Repair library
        </button>
      );
    case 'running':
      return (
        <span className="repair-progress" role="status">
          Repairing… {state.total > 0 ? `${state.done + 1} of ${state.total}` : ''}
          {state.total > 0 && <progress max={state.total} value={state.done + 1} />}
        </span>
      );
    case 'failed':
      return (
        <span role="status">
          The repair failed: {state.message}{' '}
          <button type="button" className="link-button" onClick={repair}>
            Try again
          </button>
        </span>
      );
    case 'done': {
      const { report } = state;
      const fromRecords = report.catalog?.from_records.length ?? 0;
      return (
        <span role="status" data-testid="repair-done">
          Repaired: {report.documents} documents, {report.chunks} chunks
          {report.catalog ? ' (the catalog was rebuilt from the chunk records' : ''}
          {report.catalog && fromRecords > 0 ? `; ${fromRecords} from their records alone` : ''}
          {report.catalog ? ')' : ''}.{' '}
          <button type="button" className="link-button" onClick={() => window.location.reload()}>
            Open the library
          </button>
        </span>
      );
    }
  }
}
