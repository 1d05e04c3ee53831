import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { BackendContext } from '../backend';
import { FakeBackend } from '../backend/fake';
import { renderApp, stubBackend } from '../test/helpers';
import { ErrorNote } from './ErrorNote';

describe('error note', () => {
  it('shows the message alone for an ordinary error', () => {
    render(
      <BackendContext.Provider value={new FakeBackend({ delayMs: 1 })}>
        <ErrorNote error={{ code: 'not_found', message: "no document 'XYZ' in the library" }} />
      </BackendContext.Provider>,
    );
    expect(screen.getByTestId('error')).toHaveTextContent("no document 'XYZ' in the library");
    expect(screen.queryByTestId('repair-library')).toBeNull();
  });

  it('a damaged library offers a repair, which runs with progress and reports what it rebuilt', async () => {
    const backend = new FakeBackend({ delayMs: 1, damaged: true });
    const error = await backend.libraryDocuments().then(
      () => null,
      (e) => e,
    );
    expect(error).toMatchObject({ code: 'damaged' });
    render(
      <BackendContext.Provider value={backend}>
        <ErrorNote error={error} />
      </BackendContext.Provider>,
    );
    const user = userEvent.setup();
    await user.click(screen.getByTestId('repair-library'));
    const done = await screen.findByTestId('repair-done');
    expect(done).toHaveTextContent(/^Repaired: 2 documents, \d+ chunks \(the catalog was rebuilt from the chunk records\)\./);
    expect(within(done).getByRole('button', { name: 'Open the library' })).toBeInTheDocument();
    // The library answers again; a second repair is refused.
    expect((await backend.libraryDocuments()).length).toBe(2);
    await expect(backend.repairLibrary()).rejects.toMatchObject({ code: 'invalid' });
  });

  it('in the app, a damaged library shows the repair where the library would be', async () => {
    renderApp(stubBackend({}, { damaged: true }), { view: 'library' });
    const note = await screen.findByTestId('error');
    expect(note).toHaveAttribute('data-code', 'damaged');
    expect(note).toHaveTextContent('is damaged');
    expect(within(note).getByTestId('repair-library')).toBeInTheDocument();
  });
});
