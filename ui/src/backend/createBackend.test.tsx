import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StartupFailure } from '../components/StartupFailure';
import { OUTSIDE_DESKTOP, createBackend, errorMessage } from './index';

describe('createBackend outside the desktop app', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('gives the sample library in development and tests', async () => {
    const backend = await createBackend();
    expect(backend.kind).toBe('fake');
    expect((await backend.libraryDocuments()).length).toBeGreaterThan(0);
  });

  it('in a production build, refuses with a message the window shows', async () => {
    vi.stubEnv('DEV', false);
    vi.stubEnv('MODE', 'production');
    const refusal = await createBackend().then(
      () => null,
      (e: unknown) => e,
    );
    expect(errorMessage(refusal)).toBe(OUTSIDE_DESKTOP);
    render(<StartupFailure message={errorMessage(refusal)} />);
    expect(screen.getByRole('alert')).toHaveTextContent("Folio's window must run inside the desktop app");
  });
});
