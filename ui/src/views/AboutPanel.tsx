import { useBackend } from '../backend';
import { useQuery } from '../state/query';

/** Folio's version and the third-party parts it ships, each with its licence. */
export function AboutPanel() {
  const backend = useBackend();
  // Without an answer the panel is left out: the rest of Settings works without it.
  const { data: about } = useQuery(() => backend.about(), [backend], { library: false });

  if (!about) return null;
  return (
    <section className="about" aria-label="About Folio" data-testid="about">
      <h2>About Folio</h2>
      <p data-testid="about-version">Folio {about.version}</p>
      <p className="muted">Folio ships these parts, each under its own licence:</p>
      <ul>
        {about.components.map((c) => (
          <li key={c.name} data-testid="about-component" data-name={c.name}>
            <strong>{c.name}</strong> — {c.role}. <span className="muted">Licence: {c.licence}.</span>
            {c.text ? (
              <details>
                <summary>Licence text</summary>
                <pre className="licence-text" data-testid="licence-text">
                  {c.text}
                </pre>
              </details>
            ) : (
              <span className="muted"> (its licence file is not installed)</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
