import { useBackend } from '../../backend';
import { useQuery } from '../../state/query';

/** The documents the library cites most but does not hold, so the analyst knows what to add. */
export function MissingDocuments() {
  const backend = useBackend();
  // A hint, not the library: when it cannot be read the panel is left out.
  const { data: missing = [], error } = useQuery(() => backend.missingDocuments(), [backend]);

  if (error || missing.length === 0) return null;
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
