import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { renderApp, stubBackend } from '../test/helpers';

const REPAIRED = ['/Users/analyst/Rulebooks/COBS Conduct of Business.pdf', '/Users/analyst/Rulebooks/SYSC.docx'];

describe('library status', () => {
  it('the fake backend is writable with nothing repaired by default, and tests can set both', async () => {
    const b = new FakeBackend({ delayMs: 1 });
    expect(await b.libraryStatus()).toMatchObject({ writable: true, repaired: [] });
    b.setWritable(false);
    b.setRepaired(['/a.pdf']);
    expect(await b.libraryStatus()).toMatchObject({ writable: false, repaired: ['/a.pdf'] });
    await expect(b.removeDocument('GEN')).rejects.toMatchObject({ code: 'read_only' });
  });

  it('shows no notice when the library is writable and nothing was repaired', async () => {
    renderApp(stubBackend(), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    expect(screen.queryByTestId('readonly-notice')).toBeNull();
    expect(screen.queryByTestId('repaired-notice')).toBeNull();
    expect(screen.getByTestId('add-files')).toBeEnabled();
  });

  it('read-only: a non-dismissable notice names the library and the changing actions are off', async () => {
    renderApp(stubBackend({}, { writable: false }), { view: 'library' });
    const notice = await screen.findByTestId('readonly-notice');
    expect(notice).toHaveTextContent(/^Read-only: another Folio window or the folio command is changing this library \(.*Folio\/library\)\./);
    expect(notice).toHaveTextContent('You can search and read; adding, removing and re-indexing are off until it closes.');
    expect(within(notice).queryByRole('button')).toBeNull();

    const rows = await screen.findAllByTestId('doc-row');
    const off = [
      screen.getByTestId('add-files'),
      screen.getByTestId('add-folder'),
      screen.getByTestId('add-path-input'),
      screen.getByTestId('add-path-button'),
      ...rows.flatMap((r) => [within(r).getByTestId('reindex'), within(r).getByTestId('remove')]),
    ];
    for (const el of off) {
      expect(el).toBeDisabled();
      expect(el.getAttribute('title')).toMatch(/^Read-only: /);
    }
  });

  it('re-reads the status after an ingest finishes (a lock taken meanwhile shows up)', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const status = vi.spyOn(backend, 'libraryStatus');
    const { user } = renderApp(backend, { view: 'library' });
    await screen.findAllByTestId('doc-row');
    expect(screen.queryByTestId('readonly-notice')).toBeNull();
    const before = status.mock.calls.length;

    backend.setWritable(false); // the folio CLI took the lock
    await user.click(screen.getByTestId('add-files'));
    await screen.findByTestId('readonly-notice');
    expect(status.mock.calls.length).toBeGreaterThan(before);
    expect(screen.getByTestId('add-files')).toBeDisabled();
  });

  it('repaired: lists the files, and "Add them again" ingests exactly those paths', async () => {
    const base = new FakeBackend({ delayMs: 1, repaired: REPAIRED });
    const ingest = vi.fn(base.ingest.bind(base));
    const { user } = renderApp(Object.assign(base, { ingest }), { view: 'library' });
    const notice = await screen.findByTestId('repaired-notice');
    expect(notice).toHaveTextContent('An interrupted ingest was rolled back for these documents; add them again:');
    expect(within(notice).getAllByTestId('repaired-file').map((li) => li.textContent)).toEqual(['COBS Conduct of Business.pdf', 'SYSC.docx']);

    await user.click(within(notice).getByRole('button', { name: 'Add them again' }));
    await waitFor(() => expect(ingest).toHaveBeenCalledTimes(1));
    expect(ingest).toHaveBeenCalledWith(REPAIRED, expect.any(Function));
    expect(screen.queryByTestId('repaired-notice')).toBeNull();
    await screen.findByTestId('ingest-summary');
    expect(await screen.findAllByTestId('doc-row')).toHaveLength(4);
    expect(screen.queryByTestId('repaired-notice')).toBeNull();
  });

  it('repaired: the notice can be dismissed', async () => {
    const { user } = renderApp(stubBackend({}, { repaired: REPAIRED }), { view: 'library' });
    const notice = await screen.findByTestId('repaired-notice');
    await user.click(within(notice).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('repaired-notice')).toBeNull();
  });
});
