import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../../backend/fake';
import type { SyncReport } from '../../backend/types';
import { renderApp } from '../../test/helpers';

const FOLDER = '/Users/analyst/Downloads/Rulebooks 2026';

describe('watched folders', () => {
  it('says there are none, then watches a picked folder, adds its files in the background and lists what failed', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const { user } = renderApp(backend, { view: 'library' });
    expect(await screen.findByTestId('watched-empty')).toBeInTheDocument();
    expect(screen.queryByTestId('failures')).toBeNull();

    await user.click(screen.getByTestId('watch-folder'));
    const row = await screen.findByTestId('watched-folder');
    expect(row).toHaveAttribute('data-path', FOLDER);
    // The background pass announces itself; the document table and the folder's count follow.
    await waitFor(() => expect(within(screen.getByTestId('watched-folder')).getByTestId('watched-count')).toHaveTextContent('1 document'));
    await waitFor(() => expect(screen.getAllByTestId('doc-row')).toHaveLength(3));
    // The folder's unreadable file is listed with its reason.
    await user.click(await screen.findByTestId('failures-toggle'));
    const failure = screen.getByTestId('failure');
    expect(failure).toHaveTextContent('scanned-notes.bin');
    expect(failure).toHaveTextContent('tried again when the file changes');
    expect(failure).toHaveAttribute('data-code', 'unsupported');
  });

  it('stops watching a folder and keeps its documents', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    await backend.watchFolder(FOLDER);
    await waitFor(async () => expect((await backend.libraryDocuments()).length).toBe(3));
    const { user } = renderApp(backend, { view: 'library' });
    await user.click(await screen.findByTestId('unwatch-folder'));
    expect(await screen.findByTestId('watched-empty')).toBeInTheDocument();
    expect(await backend.libraryDocuments()).toHaveLength(3);
  });

  it('reloads the library when a background pass reports a change', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const heard: SyncReport[] = [];
    const stop = backend.onLibraryChanged((r) => heard.push(r));
    renderApp(backend, { view: 'library' });
    expect(await screen.findAllByTestId('doc-row')).toHaveLength(2);
    await backend.watchFolder(FOLDER);
    await waitFor(() => expect(screen.getAllByTestId('doc-row')).toHaveLength(3));
    expect(heard).toHaveLength(1);
    expect(heard[0].indexed).toEqual([`${FOLDER}/COBS Conduct of Business.pdf`]);
    stop();
  });

  it('is off while the library is read-only', async () => {
    renderApp(new FakeBackend({ delayMs: 1, writable: false }), { view: 'library' });
    const button = await screen.findByTestId('watch-folder');
    expect(button).toBeDisabled();
    expect(button.getAttribute('title')).toMatch(/^Read-only: /);
  });
});

describe('a watched folder the OS does not follow', () => {
  it('says why on its row, and the warning goes once it is followed again', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    await backend.watchFolder(FOLDER);
    await waitFor(async () => expect((await backend.libraryDocuments()).length).toBe(3));
    const limit = 'the inotify watch limit is reached (fs.inotify.max_user_watches = 8192)';
    backend.setWatchError(FOLDER, limit);
    const { user } = renderApp(backend, { view: 'library' });
    const row = await screen.findByTestId('watched-folder');
    expect(within(row).getByTestId('watched-folder-error')).toHaveTextContent(`Changes in this folder are not followed: ${limit}`);
    expect(within(row).getByTestId('watched-count')).toHaveTextContent('1 document');

    // Watching it again reads the rows afresh: followed now, no warning.
    backend.setWatchError(FOLDER, null);
    await user.click(screen.getByTestId('watch-folder'));
    await waitFor(() => expect(within(screen.getByTestId('watched-folder')).queryByTestId('watched-folder-error')).toBeNull());
  });
});
