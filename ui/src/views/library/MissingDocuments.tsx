import { useState } from 'react';
import { useBackend } from '../../backend';
import { useQuery } from '../../state/query';

/**
 * The instruments the library cites most but does not hold, so the analyst knows what to add. A
 * hint, below the documents and folded to one line ("Cited but not in your library: 7 instruments
 * — show") so that it never pushes the library itself out of view; unfolded, the engine's order
 * (most cited first).
 */
export function MissingDocuments() {
  const backend = useBackend();
  // A hint, not the library: when it cannot be read the panel is left out.
  const { data: missing = [], error } = useQuery(() => backend.missingDocuments(), [backend]);
  const [open, setOpen] = useState(false);

  if (error || missing.length === 0) return null;
  const count = `${missing.length} ${missing.length === 1 ? 'instrument' : 'instruments'}`;
  return (
    <section className="missing-documents" aria-label="Cited but not in your library" data-testid="missing-documents">
      <p className="missing-summary" data-testid="missing-summary">
        <span>Cited but not in your library: {count}</span>
        {' — '}
        <button type="button" className="link-button" data-testid="missing-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'hide' : 'show'}
        </button>
      </p>
      {open && (
        <>
          <p className="muted">Add these to follow the references your documents make to them.</p>
          <ol className="missing-list">
            {missing.map((m) => (
              <li key={m.name} data-testid="missing-document">
                <strong>{m.name}</strong>
                <span className="muted">
                  {' '}
                  — {m.citations} {m.citations === 1 ? 'reference' : 'references'} from {m.citing_documents}{' '}
                  {m.citing_documents === 1 ? 'document' : 'documents'}
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
