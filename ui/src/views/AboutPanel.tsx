import { useEffect, useState } from 'react';
import { useBackend } from '../backend';
import type { About } from '../backend/types';

/** Folio's version and the third-party parts it ships, each with its licence. */
export function AboutPanel() {
  const backend = useBackend();
  const [about, setAbout] = useState<About | null>(null);

  useEffect(() => {
    let live = true;
    backend.about().then(
      (a) => live && setAbout(a),
      () => live && setAbout(null),
    );
    return () => {
      live = false;
    };
  }, [backend]);

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
