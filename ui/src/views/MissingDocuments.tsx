import { useEffect, useState } from 'react';
import { useBackend } from '../backend';
import type { MissingDocument } from '../backend/types';
import { useNav } from '../state/nav';

/** The documents the library cites most but does not hold, so the analyst knows what to add. */
export function MissingDocuments() {
  const backend = useBackend();
  const nav = useNav();
  const [missing, setMissing] = useState<MissingDocument[]>([]);

  useEffect(() => {
    let live = true;
    backend.missingDocuments().then(
      (m) => live && setMissing(m),
      () => live && setMissing([]),
    );
    return () => {
      live = false;
    };
  }, [backend, nav.libraryVersion]);

  if (missing.length === 0) return null;
  return (
    <section className="missing-documents" aria-label="Cited but not in your library" data-testid="missing-documents">
      <h2>Cited but not in your library</h2>
      <p className="muted">Add these to follow the references your documents make to them.</p>
      <ul>
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
      </ul>
    </section>
  );
}
