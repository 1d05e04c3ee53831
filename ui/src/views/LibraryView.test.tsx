import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { BackendError, IngestReport, Progress, Stage } from '../backend/types';
import { FINAL_STAGES, ingestReducer, initialIngest } from '../state/ingest';
import { FakeBackend } from '../backend/fake';
import { timeLeft } from './library/IngestPanel';
import { deferred, renderApp, stubBackend } from '../test/helpers';

const FILES = ['/in/One.pdf', '/in/Two.pdf', '/in/Three.docx'];

function ev(file: string, stage: Stage, done = 0, total = 0, error: BackendError | null = null): Progress {
  return { file, file_index: FILES.indexOf(file), files: FILES.length, stage, done, total, error, remaining_s: null };
}

function row(file: string) {
  return screen.getAllByTestId('ingest-row').find((r) => r.dataset.file === file)!;
}

describe('library', () => {
  it('greets a first run with what Folio does and a drop zone with both add buttons', async () => {
    const backend = new FakeBackend({ empty: true, delayMs: 1 });
    const pickFiles = vi.spyOn(backend, 'pickFiles').mockResolvedValue([]);
    // The app opens on Search; an empty library brings the welcome forward.
    const { user } = renderApp(backend, { view: 'search' });
    const welcome = await screen.findByTestId('welcome');
    expect(screen.getByTestId('nav-library')).toHaveAttribute('aria-current', 'page');
    expect(welcome).toHaveTextContent('Welcome to Folio');
    expect(within(welcome).getByTestId('drop-hint')).toHaveTextContent('Drop files or folders here');
    await user.click(within(welcome).getByTestId('welcome-add-files'));
    expect(pickFiles).toHaveBeenCalled();
    expect(within(welcome).getByTestId('welcome-add-folder')).toBeEnabled();
  });

  it('shows the time an ingest has left, as the engine estimates it', async () => {
    let emit!: (p: Progress) => void;
    const done = deferred<IngestReport>();
    const ingest = vi.fn((_paths: string[], onProgress: (p: Progress) => void) => {
      emit = onProgress;
      return done.promise;
    });
    const { user } = renderApp(stubBackend({ ingest, pickFiles: async () => FILES }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    await user.click(screen.getByTestId('add-files'));
    await waitFor(() => expect(ingest).toHaveBeenCalled());
    act(() => emit(ev('/in/One.pdf', 'embedding', 10, 40)));
    expect(screen.queryByTestId('ingest-eta')).toBeNull();
    act(() => emit({ ...ev('/in/One.pdf', 'embedding', 20, 40), remaining_s: 200 }));
    expect(screen.getByTestId('ingest-eta')).toHaveTextContent('about 3 min left');
    expect(timeLeft(30)).toBe('less than a minute left');
    expect(timeLeft(4000)).toBe('about 1 h 7 min left');
    await act(async () => done.resolve({ indexed: FILES, unchanged: [], failed: [], cancelled: false, chunks: 3, seconds: 1, contexts: [] }));
    expect(screen.queryByTestId('ingest-eta')).toBeNull();
  });

  it('lists documents with their stats', async () => {
    renderApp(stubBackend(), { view: 'library' });
    const rows = await screen.findAllByTestId('doc-row');
    expect(rows.map((r) => r.dataset.label)).toEqual(['GEN', 'GLO']);
    const cells = within(rows[0]).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(0, 9)).toEqual(['General Rulebook', 'GEN', 'pdf', '5', '12', '12', '2', '7', 'indexed']);
    expect(within(rows[1]).getAllByRole('cell')[3]).toHaveTextContent('—');
  });

  it('shows a progress row per file; a failure shows its reason and the others continue', async () => {
    let emit!: (p: Progress) => void;
    const done = deferred<IngestReport>();
    const ingest = vi.fn((_paths: string[], onProgress: (p: Progress) => void) => {
      emit = onProgress;
      return done.promise;
    });
    const cancelIngest = vi.fn(async () => {});
    const libraryDocuments = vi.fn(stubBackend().libraryDocuments);
    const { user } = renderApp(stubBackend({ ingest, cancelIngest, libraryDocuments, pickFiles: async () => FILES }), { view: 'library' });
    await screen.findAllByTestId('doc-row');

    await user.click(screen.getByTestId('add-files'));
    await waitFor(() => expect(ingest).toHaveBeenCalledWith(FILES, expect.any(Function)));
    act(() => FILES.forEach((f) => emit(ev(f, 'queued'))));
    expect(screen.getAllByTestId('ingest-row').map((r) => r.dataset.stage)).toEqual(['queued', 'queued', 'queued']);

    act(() => {
      emit(ev('/in/One.pdf', 'converting'));
      emit(ev('/in/One.pdf', 'embedding', 3, 8));
    });
    expect(row('/in/One.pdf')).toHaveAttribute('data-stage', 'embedding');
    expect(row('/in/One.pdf')).toHaveTextContent('embedding 3/8');
    const bar = within(row('/in/One.pdf')).getByRole('progressbar');
    expect(bar).toHaveAttribute('value', '3');
    expect(bar).toHaveAttribute('max', '8');

    act(() => {
      emit(ev('/in/One.pdf', 'indexed', 8, 8));
      emit(ev('/in/Two.pdf', 'converting'));
      emit(ev('/in/Two.pdf', 'failed', 0, 0, { code: 'encrypted', message: 'The PDF is encrypted.' }));
      emit(ev('/in/Three.docx', 'contextualizing', 0, 4));
    });
    expect(row('/in/Two.pdf')).toHaveAttribute('data-stage', 'failed');
    expect(row('/in/Two.pdf')).toHaveTextContent('failed: The PDF is encrypted.');
    expect(row('/in/Three.docx')).toHaveAttribute('data-stage', 'contextualizing');

    await user.click(screen.getByTestId('ingest-cancel'));
    expect(cancelIngest).toHaveBeenCalledTimes(1);

    act(() => {
      emit(ev('/in/Three.docx', 'indexing', 4, 4));
      emit(ev('/in/Three.docx', 'indexed', 4, 4));
    });
    const calls = libraryDocuments.mock.calls.length;
    await act(async () =>
      done.resolve({
        indexed: ['/in/One.pdf', '/in/Three.docx'],
        unchanged: [],
        failed: [{ path: '/in/Two.pdf', code: 'encrypted', message: 'The PDF is encrypted.' }],
        cancelled: false,
        chunks: 12,
        seconds: 1.5,
        contexts: [],
      }),
    );
    expect(screen.getAllByTestId('ingest-row').map((r) => r.dataset.stage)).toEqual(['indexed', 'failed', 'indexed']);
    expect(await screen.findByTestId('ingest-summary')).toHaveTextContent('Indexed 2, unchanged 0, failed 1 · 12 chunks in 1.5 s');
    expect(screen.queryByTestId('ingest-cancel')).toBeNull();
    await waitFor(() => expect(libraryDocuments.mock.calls.length).toBeGreaterThan(calls));
  });

  it('adds the sample files end to end: progress, failure reason, new document row', async () => {
    const { user } = renderApp(stubBackend({}, { delayMs: 1 }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    await user.click(screen.getByTestId('add-files'));
    await waitFor(() => expect(screen.getByTestId('ingest-summary')).toBeInTheDocument(), { timeout: 3000 });
    const rows = screen.getAllByTestId('ingest-row');
    expect(rows.map((r) => r.dataset.stage)).toEqual(['indexed', 'failed']);
    expect(rows[1]).toHaveTextContent(/failed: .*damaged/);
    await waitFor(() => expect(screen.getAllByTestId('doc-row').map((r) => r.dataset.label)).toEqual(['GEN', 'GLO', 'COBS']));
  });

  it('shows what LLM contextualizing used after an ingest, and says fallbacks will be retried', async () => {
    const backend = stubBackend({ pickFiles: async () => ['/in/COBS Conduct of Business.pdf', '/in/flaky-notes.md'] }, { delayMs: 1 });
    const settings = await backend.getSettings();
    await backend.saveSettings({ ...settings, context_provider: 'anthropic' });
    const { user } = renderApp(backend, { view: 'library' });
    await screen.findAllByTestId('doc-row');
    await user.click(screen.getByTestId('add-files'));
    const usage = await screen.findByTestId('context-usage', {}, { timeout: 3000 });
    expect(screen.getByTestId('ingest-summary')).toHaveTextContent('Indexed 2');
    expect(within(usage).getByTestId('context-usage-total')).toHaveTextContent(
      /^LLM context \(Anthropic claude-haiku-4-5\): 0 cache hits · \d+ requests · 1 fallback · [\d,]+ tokens in \/ [\d,]+ out · cost \$0\.\d{4}$/,
    );
    expect(within(usage).getByTestId('context-fallbacks')).toHaveTextContent('1 chunk could not be contextualized by the LLM (the request failed): it keeps the structural context and will be retried on the next ingest.');
    const runs = within(usage).getAllByTestId('context-run');
    expect(runs.map((r) => r.dataset.path)).toEqual(['/in/COBS Conduct of Business.pdf', '/in/flaky-notes.md']);
    expect(within(runs[1]).getAllByRole('cell').map((c) => c.textContent).slice(2, 5)).toEqual(['0', '0', '1']);

    // Re-indexing the flaky document: the chunk is asked again and succeeds.
    const flaky = screen.getAllByTestId('doc-row').find((r) => r.textContent?.includes('flaky-notes'))!;
    await user.click(within(flaky).getByTestId('reindex'));
    await waitFor(() => expect(screen.getByTestId('context-usage-total')).toHaveTextContent('0 cache hits · 1 request · 0 fallbacks'), { timeout: 3000 });
    expect(screen.queryByTestId('context-fallbacks')).toBeNull();
  });

  it('shows no LLM usage when no LLM contextualized', async () => {
    const { user } = renderApp(stubBackend({}, { delayMs: 1 }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    await user.click(screen.getByTestId('add-files'));
    await waitFor(() => expect(screen.getByTestId('ingest-summary')).toBeInTheDocument(), { timeout: 3000 });
    expect(screen.queryByTestId('context-usage')).toBeNull();
  });

  it('adds files dropped onto the window, from any view', async () => {
    let drop!: (paths: string[]) => void;
    let hover!: (over: boolean) => void;
    const ingest = vi.fn(async (): Promise<IngestReport> => ({ indexed: [], unchanged: [], failed: [], cancelled: false, chunks: 0, seconds: 0, contexts: [] }));
    renderApp(
      stubBackend({
        ingest,
        onFileDrop: (cb, onHover) => {
          drop = cb;
          hover = onHover!;
          return () => {};
        },
      }),
      { view: 'search' },
    );
    act(() => hover(true));
    expect(screen.getByTestId('drop-overlay')).toBeInTheDocument();
    act(() => {
      hover(false);
      drop(['/Users/me/Rules']);
    });
    expect(screen.queryByTestId('drop-overlay')).toBeNull();
    await waitFor(() => expect(ingest).toHaveBeenCalledWith(['/Users/me/Rules'], expect.any(Function)));
    expect(screen.getByTestId('nav-library')).toHaveAttribute('aria-current', 'page');
  });

  it('rounds the ingest time for people', async () => {
    const { formatSeconds } = await import('../text/format');
    expect(formatSeconds(8.797110514)).toBe('8.8 s');
    expect(formatSeconds(0.04)).toBe('0.0 s');
    expect(formatSeconds(125.4)).toBe('2 min 5 s');
  });

  it('adds a file opened with Folio and shows it in the reader', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    renderApp(backend, { view: 'search' });
    const file = '/Users/me/Downloads/Market Rules.pdf';
    act(() => backend.openFiles([file]));
    expect(screen.getByTestId('nav-library')).toHaveAttribute('aria-current', 'page');
    await waitFor(() => expect(screen.getByTestId('nav-reader')).toHaveAttribute('aria-current', 'page'), { timeout: 3000 });
    const docs = await backend.libraryDocuments();
    const opened = docs.find((d) => d.document.path === file)!;
    expect(opened).toBeDefined();
    await waitFor(() => expect(screen.getByTestId('reader-doc-label')).toHaveAttribute('data-doc-id', String(opened.document.id)), {
      timeout: 3000,
    });
  });

  it('stays in the Library when the opened file could not be added', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    renderApp(backend, { view: 'search' });
    act(() => backend.openFiles(['/Users/me/corrupt-scan.pdf']));
    await waitFor(() => expect(screen.getAllByTestId('ingest-row')[0]).toHaveAttribute('data-stage', 'failed'), { timeout: 3000 });
    expect(screen.getByTestId('nav-library')).toHaveAttribute('aria-current', 'page');
  });

  it('removes a document only after confirmation', async () => {
    const removeDocument = vi.fn(stubBackend().removeDocument);
    const backend = stubBackend({ removeDocument });
    const { user } = renderApp(backend, { view: 'library' });
    const glo = (await screen.findAllByTestId('doc-row'))[1];
    await user.click(within(glo).getByTestId('remove'));
    await user.click(within(glo).getByTestId('cancel-remove'));
    expect(removeDocument).not.toHaveBeenCalled();
    await user.click(within(glo).getByTestId('remove'));
    await user.click(within(glo).getByTestId('confirm-remove'));
    expect(removeDocument).toHaveBeenCalledWith('2');
    await waitFor(() => expect(screen.getAllByTestId('doc-row').map((r) => r.dataset.label)).toEqual(['GEN']));
  });

  it('renames a document in place (Enter saves, Escape cancels), marks the title as the user’s, and resets it', async () => {
    const renameDocument = vi.fn(stubBackend().renameDocument);
    const base = stubBackend();
    const backend = Object.assign(base, { renameDocument: renameDocument.bind(base) });
    const { user } = renderApp(backend, { view: 'library' });
    const genRow = () => screen.getAllByTestId('doc-row').find((r) => r.dataset.label === 'GEN')!;
    await screen.findAllByTestId('doc-row');
    expect(within(genRow()).queryByTestId('renamed-hint')).toBeNull();
    expect(within(genRow()).queryByTestId('reset-title')).toBeNull();

    // Escape leaves it as it was.
    await user.click(within(genRow()).getByTestId('rename'));
    const input = within(genRow()).getByTestId('rename-input');
    expect(input).toHaveValue('General Rulebook');
    expect(input).toHaveFocus();
    await user.type(input, ' (draft){Escape}');
    expect(within(genRow()).queryByTestId('rename-input')).toBeNull();
    expect(within(genRow()).getByTestId('doc-title')).toHaveTextContent('General Rulebook');
    expect(renameDocument).not.toHaveBeenCalled();

    await user.click(within(genRow()).getByTestId('rename'));
    await user.clear(within(genRow()).getByTestId('rename-input'));
    await user.type(within(genRow()).getByTestId('rename-input'), 'ADGM General Rules{Enter}');
    expect(renameDocument).toHaveBeenCalledWith('1', 'ADGM General Rules');
    await waitFor(() => expect(within(genRow()).getByTestId('doc-title')).toHaveTextContent('ADGM General Rules'));
    expect(within(genRow()).getByTestId('renamed-hint')).toHaveTextContent('renamed');
    // The library itself holds the new title (search, citations and the reader read it there).
    expect((await backend.libraryDocuments())[0].document).toMatchObject({ title: 'ADGM General Rules', renamed: true });

    await user.click(within(genRow()).getByTestId('reset-title'));
    expect(renameDocument).toHaveBeenLastCalledWith('1', null);
    await waitFor(() => expect(within(genRow()).getByTestId('doc-title')).toHaveTextContent('General Rulebook'));
    expect(within(genRow()).queryByTestId('renamed-hint')).toBeNull();
    expect(within(genRow()).queryByTestId('reset-title')).toBeNull();
  });

  it('turns renaming off while the library is read-only, and shows a failed rename’s message', async () => {
    const { user } = renderApp(
      stubBackend({
        renameDocument: async () => {
          throw { code: 'storage', message: 'The catalog is busy.' };
        },
      }),
      { view: 'library' },
    );
    const gen = (await screen.findAllByTestId('doc-row'))[0];
    await user.click(within(gen).getByTestId('rename'));
    await user.type(within(gen).getByTestId('rename-input'), ' 2{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('The catalog is busy.');
    expect(within(gen).getByTestId('doc-title')).toHaveTextContent('General Rulebook');

    const readOnly = new FakeBackend({ delayMs: 1, writable: false });
    renderApp(readOnly, { view: 'library' });
    await waitFor(() => expect(screen.getAllByTestId('rename').at(-1)).toBeDisabled());
  });

  it('re-indexes a document with progress, and shows a failed removal’s message', async () => {
    const reindexDocument = vi.fn(stubBackend({}, { delayMs: 1 }).reindexDocument);
    const { user } = renderApp(
      stubBackend({
        reindexDocument,
        removeDocument: async () => {
          throw { code: 'invalid', message: 'An ingest is running.' };
        },
      }),
      { view: 'library' },
    );
    const gen = (await screen.findAllByTestId('doc-row'))[0];
    await user.click(within(gen).getByTestId('reindex'));
    expect(reindexDocument).toHaveBeenCalledWith('1', expect.any(Function));
    await waitFor(() => expect(screen.getAllByTestId('ingest-row')[0]).toHaveAttribute('data-stage', 'indexed'), { timeout: 3000 });

    await user.click(within(screen.getAllByTestId('doc-row')[0]).getByTestId('remove'));
    await user.click(screen.getByTestId('confirm-remove'));
    expect(await screen.findByRole('alert')).toHaveTextContent('An ingest is running.');
  });
});

describe('add from a path', () => {
  const empty = (): IngestReport => ({ indexed: [], unchanged: [], failed: [], cancelled: false, chunks: 0, seconds: 0, contexts: [] });

  it('adds a typed path with the button or Enter, clears the box, and refreshes the table', async () => {
    const ingest = vi.fn(async (_paths: string[], _onProgress: (p: Progress) => void) => empty());
    const libraryDocuments = vi.fn(stubBackend().libraryDocuments);
    const { user } = renderApp(stubBackend({ ingest, libraryDocuments }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByLabelText('Add from a path');
    expect(box).toBe(screen.getByTestId('add-path-input'));
    expect(box).toHaveAttribute('placeholder', expect.stringContaining('/home/me/rulebooks'));

    const calls = libraryDocuments.mock.calls.length;
    await user.type(box, '  /home/me/rulebooks  ');
    await user.click(screen.getByTestId('add-path-button'));
    await waitFor(() => expect(ingest).toHaveBeenCalledWith(['/home/me/rulebooks'], expect.any(Function)));
    expect(box).toHaveValue('');
    await waitFor(() => expect(libraryDocuments.mock.calls.length).toBeGreaterThan(calls));

    await user.type(box, '/home/me/GEN.pdf{Enter}');
    await waitFor(() => expect(ingest).toHaveBeenCalledTimes(2));
    expect(ingest).toHaveBeenLastCalledWith(['/home/me/GEN.pdf'], expect.any(Function));
    expect(box).toHaveValue('');
  });

  it('does nothing for an empty or blank box', async () => {
    const ingest = vi.fn(async () => empty());
    const { user } = renderApp(stubBackend({ ingest }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByTestId('add-path-input');
    await user.click(screen.getByTestId('add-path-button'));
    await user.type(box, '   {Enter}');
    await user.click(screen.getByTestId('add-path-button'));
    expect(ingest).not.toHaveBeenCalled();
    expect(screen.queryByTestId('ingest-panel')).toBeNull();
  });

  it("takes several paths, one per line (Shift+Enter) or joined by ':' when all are absolute", async () => {
    const ingest = vi.fn(async (_paths: string[], _onProgress: (p: Progress) => void) => empty());
    const { user } = renderApp(stubBackend({ ingest }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByTestId('add-path-input');
    await user.type(box, '/a/One.pdf{Shift>}{Enter}{/Shift}/b/Two.docx');
    expect(box).toHaveValue('/a/One.pdf\n/b/Two.docx');
    await user.click(screen.getByTestId('add-path-button'));
    await waitFor(() => expect(ingest).toHaveBeenCalledWith(['/a/One.pdf', '/b/Two.docx'], expect.any(Function)));

    await user.type(box, '/c/Three.md:/d/Four.html{Enter}');
    await waitFor(() => expect(ingest).toHaveBeenLastCalledWith(['/c/Three.md', '/d/Four.html'], expect.any(Function)));
    await user.type(box, '/e/Notes: draft.md{Enter}');
    await waitFor(() => expect(ingest).toHaveBeenLastCalledWith(['/e/Notes: draft.md'], expect.any(Function)));
  });

  it('queues a path added while another ingest runs, and refreshes the table after each', async () => {
    const first = deferred<IngestReport>();
    const second = deferred<IngestReport>();
    const emits: ((p: Progress) => void)[] = [];
    const ingest = vi.fn((_paths: string[], onProgress: (p: Progress) => void) => {
      emits.push(onProgress);
      return emits.length === 1 ? first.promise : second.promise;
    });
    const libraryDocuments = vi.fn(stubBackend().libraryDocuments);
    const { user } = renderApp(stubBackend({ ingest, libraryDocuments }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByTestId('add-path-input');
    const button = screen.getByTestId('add-path-button');
    const one = { file: '/r/One.pdf', file_index: 0, files: 1, done: 0, total: 0, error: null, remaining_s: null };
    const two = { ...one, file: '/r/Two.pdf' };

    await user.type(box, '/r/One.pdf');
    await user.click(button);
    await user.type(box, '/r/Two.pdf');
    await user.click(button);
    expect(box).toHaveValue('');
    await waitFor(() => expect(ingest).toHaveBeenCalledTimes(1));
    expect(ingest).toHaveBeenCalledWith(['/r/One.pdf'], expect.any(Function));
    act(() => emits[0]({ ...one, stage: 'converting' }));
    // The path waiting is listed already, and counted.
    expect(screen.getAllByTestId('ingest-row').map((r) => [r.dataset.file, r.dataset.stage])).toEqual([
      ['/r/One.pdf', 'converting'],
      ['/r/Two.pdf', 'queued'],
    ]);
    expect(screen.getByTestId('ingest-panel')).toHaveTextContent('Adding documents (0/2)');

    const before = libraryDocuments.mock.calls.length;
    act(() => emits[0]({ ...one, stage: 'indexed', done: 1, total: 1 }));
    await act(async () => first.resolve({ ...empty(), indexed: ['/r/One.pdf'], chunks: 3 }));
    await waitFor(() => expect(ingest).toHaveBeenCalledTimes(2));
    expect(ingest).toHaveBeenLastCalledWith(['/r/Two.pdf'], expect.any(Function));
    await waitFor(() => expect(libraryDocuments.mock.calls.length).toBeGreaterThan(before));
    act(() => emits[1]({ ...two, stage: 'embedding', done: 2, total: 5 }));
    expect(screen.getAllByTestId('ingest-row').map((r) => [r.dataset.file, r.dataset.stage])).toEqual([
      ['/r/One.pdf', 'indexed'],
      ['/r/Two.pdf', 'embedding'],
    ]);
    expect(screen.getByTestId('ingest-cancel')).toBeInTheDocument();

    const mid = libraryDocuments.mock.calls.length;
    await act(async () => second.resolve({ ...empty(), indexed: ['/r/Two.pdf'], chunks: 2 }));
    await waitFor(() => expect(libraryDocuments.mock.calls.length).toBeGreaterThan(mid));
    expect(await screen.findByTestId('ingest-summary')).toHaveTextContent('Indexed 2, unchanged 0, failed 0 · 5 chunks');
    expect(screen.getAllByTestId('ingest-row').map((r) => r.dataset.stage)).toEqual(['indexed', 'indexed']);
  });

  it('lists files typed while another ingest runs at once, counts them in the time left, and adds them in one ingest', async () => {
    const first = deferred<IngestReport>();
    const second = deferred<IngestReport>();
    const emits: ((p: Progress) => void)[] = [];
    const ingest = vi.fn((_paths: string[], onProgress: (p: Progress) => void) => {
      emits.push(onProgress);
      return emits.length === 1 ? first.promise : second.promise;
    });
    // a.txt weighs 10 MB, each of the others 5 MB.
    const fileSizes = vi.fn(async (paths: string[]) => paths.map((p) => (p.endsWith('a.txt') ? 10e6 : 5e6)));
    const { user } = renderApp(stubBackend({ ingest, fileSizes }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByTestId('add-path-input');
    const files = ['a', 'b', 'c', 'd', 'e'].map((n) => `/r/${n}.txt`);
    for (const f of files) await user.type(box, `${f}{Enter}`);
    await waitFor(() => expect(fileSizes).toHaveBeenCalledTimes(5));
    // Every file is listed at once, before any but the first has started.
    expect(screen.getAllByTestId('ingest-row').map((r) => [r.dataset.file, r.dataset.stage])).toEqual(files.map((f) => [f, 'queued']));
    expect(screen.getByTestId('ingest-panel')).toHaveTextContent('Adding documents (0/5)');
    expect(ingest).toHaveBeenCalledTimes(1);

    // The engine has 100 s left for a.txt's 10 MB: 100 kB/s, so the 20 MB waiting add 200 s.
    const a = { file: '/r/a.txt', file_index: 0, files: 1, done: 1, total: 4, error: null };
    act(() => emits[0]({ ...a, stage: 'embedding', remaining_s: 100 }));
    expect(screen.getByTestId('ingest-eta')).toHaveTextContent('about 5 min left');

    act(() => emits[0]({ ...a, stage: 'indexed', done: 4, remaining_s: 0 }));
    await act(async () => first.resolve({ ...empty(), indexed: ['/r/a.txt'], chunks: 4 }));
    // The four waiting went to the engine together.
    await waitFor(() => expect(ingest).toHaveBeenCalledTimes(2));
    expect(ingest).toHaveBeenLastCalledWith(files.slice(1), expect.any(Function));
    expect(screen.getByTestId('ingest-panel')).toHaveTextContent('Adding documents (1/5)');
    await act(async () => second.resolve({ ...empty(), indexed: files.slice(1), chunks: 8 }));
    expect(await screen.findByTestId('ingest-summary')).toHaveTextContent('Indexed 5');
  });

  it('ingests two typed documents one after the other into the sample library', async () => {
    const base = stubBackend({}, { delayMs: 2 });
    const real = base.ingest.bind(base);
    let active = 0;
    let most = 0;
    const ingest = vi.fn(async (paths: string[], onProgress: (p: Progress) => void) => {
      most = Math.max(most, ++active);
      try {
        return await real(paths, onProgress);
      } finally {
        active--;
      }
    });
    renderApp(Object.assign(base, { ingest }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByTestId('add-path-input');
    // Both in quick succession, as a driver would: the second arrives while the first runs.
    fireEvent.change(box, { target: { value: '/rules/FSMA Financial Services.pdf' } });
    fireEvent.click(screen.getByTestId('add-path-button'));
    fireEvent.change(box, { target: { value: '/rules/PRU Prudential.md' } });
    fireEvent.click(screen.getByTestId('add-path-button'));
    expect(box).toHaveValue('');
    await waitFor(() => expect(screen.getAllByTestId('doc-row').map((r) => r.dataset.label)).toEqual(['GEN', 'GLO', 'FSMA', 'PRU']), { timeout: 3000 });
    expect(ingest).toHaveBeenCalledTimes(2);
    expect(most).toBe(1);
    await waitFor(() => expect(screen.getAllByTestId('ingest-row').map((r) => r.dataset.stage)).toEqual(['indexed', 'indexed']));
  });

  it('drops the queued paths on cancel, and runs a path added after it', async () => {
    const first = deferred<IngestReport>();
    const ingest = vi.fn((_paths: string[], _onProgress: (p: Progress) => void) => (ingest.mock.calls.length === 1 ? first.promise : Promise.resolve(empty())));
    const { user } = renderApp(stubBackend({ ingest, cancelIngest: async () => {} }), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    const box = screen.getByTestId('add-path-input');
    await user.type(box, '/r/One.pdf{Enter}');
    await user.type(box, '/r/Queued.pdf{Enter}');
    await user.click(await screen.findByTestId('ingest-cancel'));
    expect(screen.getByTestId('ingest-cancel')).toHaveTextContent('Cancelling…');
    await user.type(box, '/r/After.pdf{Enter}');
    await act(async () => first.resolve({ ...empty(), cancelled: true }));
    await waitFor(() => expect(ingest).toHaveBeenCalledTimes(2));
    expect(ingest.mock.calls.map((c) => c[0])).toEqual([['/r/One.pdf'], ['/r/After.pdf']]);
  });
});

describe('ingest state', () => {
  const p = (file: string, stage: Stage, done = 0, total = 0): Progress => ({ file, file_index: 0, files: 1, stage, done, total, error: null, remaining_s: null });
  /** A new run whose first job (1, asking for no paths, as a re-index) has started. */
  const started = () => ingestReducer(ingestReducer(initialIngest, { type: 'queue', job: 1, paths: [] }), { type: 'start', jobs: [1], at: 0 });

  it('keeps the latest event per file but never undoes a final stage', () => {
    let s = started();
    s = ingestReducer(s, { type: 'progress', at: 0, p: p('a', 'embedding', 2, 4) });
    s = ingestReducer(s, { type: 'progress', at: 0, p: p('a', 'indexed', 4, 4) });
    s = ingestReducer(s, { type: 'progress', at: 0, p: p('a', 'indexing', 4, 4) });
    expect(s.rows).toHaveLength(1);
    expect(s.rows[0].stage).toBe('indexed');
  });

  it('settles rows from the report when a final event was lost', () => {
    let s = started();
    s = ingestReducer(s, { type: 'progress', at: 0, p: p('a', 'embedding', 1, 4) });
    s = ingestReducer(s, { type: 'progress', at: 0, p: p('b', 'converting') });
    s = ingestReducer(s, { type: 'progress', at: 0, p: p('c', 'queued') });
    s = ingestReducer(s, {
      type: 'finish',
      report: { indexed: ['a'], unchanged: [], failed: [{ path: 'b', code: 'corrupt', message: 'broken' }], cancelled: true, chunks: 1, seconds: 0.1, contexts: [] },
    });
    expect(s.rows.map((r) => [r.file, r.stage, r.error?.message ?? null])).toEqual([
      ['a', 'indexed', null],
      ['b', 'failed', 'broken'],
      ['c', 'cancelled', null],
    ]);
    expect(s.rows.every((r) => FINAL_STAGES.includes(r.stage))).toBe(true);
  });

  it('collects the LLM usage of every report of a run (re-indexing one document after another)', () => {
    const ctx = (path: string) => ({ path, provider: 'openai', model: 'llama3.1', requests: 1, input_tokens: 10, output_tokens: 5, cache_write_tokens: 0, cache_read_tokens: 0, hits: 0, misses: 1, fallbacks: 0, excerpted: 0, cost: 0 });
    const report = (path: string) => ({ indexed: [path], unchanged: [], failed: [], cancelled: false, chunks: 1, seconds: 0.2, contexts: [ctx(path)] });
    let s = started();
    s = ingestReducer(s, { type: 'finish', report: report('a') });
    s = ingestReducer(s, { type: 'finish', report: report('b') });
    expect(s.report?.contexts.map((c) => c.path)).toEqual(['a', 'b']);
  });
});
