// An in-memory sample library implementing `Backend`, so the UI runs in a plain browser (`npm run
// dev`) and in component tests. Its answers are computed from its sample documents (search is a
// simple case-insensitive term match), not canned. It is not in the production bundle the desktop
// app embeds: `createBackend` imports it only in development and tests.
//
//   samples.ts  the documents: `folio parse --json --text` of tests/fixtures/samples (samples.json)
//   library.ts  finding sections, resolving references across documents, marking defined terms
//   search.ts   the answers         ingest.ts   adding files, with progress and failures
//   pages.ts    page images         text.ts     query terms and snippets
//   diagnostics.ts  the report for bug reports
import type { Backend, ProgressHandler } from '../index';
import type {
  About,
  AssistantSnippet,
  BackendError,
  Backlinks,
  DefinitionHit,
  Diagnostics,
  DocumentRow,
  DocumentSummary,
  FileFailure,
  Hit,
  IngestReport,
  KeyStatus,
  LibraryStatus,
  MissingDocument,
  Outline,
  PageImage,
  RepairReport,
  SearchRequest,
  SectionView,
  Settings,
  SettingsChange,
  SyncReport,
  WatchedFolder,
} from '../types';
import { writeClipboard } from '../clipboard';
import { backendError } from '../errors';
import { SAMPLE_LOG_DIR, diagnosticsReport } from './diagnostics';
import { SampleIngest, sleep } from './ingest';
import { SampleLibrary } from './library';
import { pageImage } from './pages';
import { GEN, GLO } from './samples';
import * as answers from './search';

export { markSnippet, queryTerms } from './text';

const DEFAULT_SETTINGS: Settings = {
  library_dir: '/Users/analyst/Library/Application Support/Folio/library',
  model: 'minilm',
  context_provider: 'structural',
  anthropic_model: 'claude-haiku-4-5',
  openai_base_url: 'http://localhost:11434/v1',
  openai_model: 'llama3.1',
  fusion: 'scores',
  rrf_k: 60,
  weights: { dense: 0.75, keyword: 1, exact: 2 },
  ocr: true,
  team_library: null,
  assistants: false,
};

export type FakeOptions = {
  /** Milliseconds between simulated ingest steps. */
  delayMs?: number;
  /** Start with the two sample documents (default) or an empty library. */
  empty?: boolean;
  /** Whether this window holds the library's write lock (default true). */
  writable?: boolean;
  /** Files an interrupted ingest left half-written, rolled back on open (default none). */
  repaired?: string[];
  /** The library's catalog is damaged: it does not open until `repairLibrary` (default false). */
  damaged?: boolean;
};

export class FakeBackend implements Backend {
  readonly kind = 'fake' as const;
  private lib = new SampleLibrary();
  private delayMs: number;
  private settings: Settings = clone(DEFAULT_SETTINGS);
  private ingester: SampleIngest;
  private keys = new Map<string, string>();
  private pages = new Map<string, PageImage>();
  private writable: boolean;
  private repaired: string[];
  private damaged: boolean;
  private watched: string[] = [];
  /** Why the OS does not follow a watched folder, by path (none: all are followed). */
  private watchErrors = new Map<string, string>();
  private changeListeners = new Set<(r: SyncReport) => void>();
  private openListeners = new Set<(paths: string[]) => void>();

  constructor(options: FakeOptions = {}) {
    this.delayMs = options.delayMs ?? 120;
    this.writable = options.writable ?? true;
    this.repaired = [...(options.repaired ?? [])];
    this.damaged = options.damaged ?? false;
    this.ingester = new SampleIngest(this.lib, this.delayMs, () => this.settings);
    if (!options.empty) {
      this.lib.add(GEN);
      this.lib.add(GLO);
    }
  }

  /** Test hook: as if another process took (false) or released (true) the write lock. */
  setWritable(writable: boolean): void {
    this.writable = writable;
  }

  /** Test hook: as if the OS stopped following a watched folder, and why (null: follows it again). */
  setWatchError(path: string, error: string | null): void {
    if (error === null) this.watchErrors.delete(path);
    else this.watchErrors.set(path, error);
  }

  /** Test hook: the files reported as rolled back when the library opened. */
  setRepaired(paths: string[]): void {
    this.repaired = [...paths];
  }

  private readOnly(): BackendError {
    return backendError('read_only', 'Another Folio process is changing this library; it is read-only here until it closes.');
  }

  /** As the engine answers while a store is damaged. */
  private sound(): void {
    if (this.damaged) {
      throw backendError(
        'damaged',
        `the library's catalog (catalog.sqlite) in ${this.settings.library_dir} is damaged (catalog: database disk image is malformed); Repair library (or \`folio repair\`) rebuilds it from the chunk records`,
      );
    }
  }

  // --- the library and its answers ------------------------------------------------------------

  async libraryStatus(): Promise<LibraryStatus> {
    this.sound();
    return { dir: this.settings.library_dir, model: this.settings.model, writable: this.writable, repaired: [...this.repaired] };
  }

  async libraryDocuments(): Promise<DocumentSummary[]> {
    this.sound();
    return answers.summaries(this.lib);
  }

  async search(req: SearchRequest): Promise<Hit[]> {
    this.sound();
    return answers.search(this.lib, req, this.settings.model);
  }

  async outline(doc: string): Promise<Outline> {
    return answers.outline(this.lib, doc);
  }

  async show(doc: string, sectionId: string): Promise<SectionView> {
    return answers.show(this.lib, doc, sectionId);
  }

  async references(doc: string, sectionId: string): Promise<Backlinks> {
    return answers.references(this.lib, doc, sectionId);
  }

  async define(term: string): Promise<DefinitionHit[]> {
    return answers.define(this.lib, term);
  }

  async definitions(): Promise<DefinitionHit[]> {
    return answers.definitions(this.lib);
  }

  async missingDocuments(): Promise<MissingDocument[]> {
    return answers.missingDocuments(this.lib);
  }

  async pageImage(doc: string, page: number, chunkId: number | null, width: number | null = null): Promise<PageImage> {
    return pageImage(this.lib.find(doc), page, chunkId, width, this.pages);
  }

  // --- adding and removing --------------------------------------------------------------------

  async ingest(paths: string[], onProgress: ProgressHandler): Promise<IngestReport> {
    if (!this.writable) throw this.readOnly();
    this.repaired = this.repaired.filter((p) => !paths.includes(p));
    return this.ingester.run(this.ingester.expand(paths), onProgress, false);
  }

  async reindexDocument(doc: string, onProgress?: ProgressHandler): Promise<IngestReport> {
    if (!this.writable) throw this.readOnly();
    const d = this.lib.find(doc);
    return this.ingester.run([d.row.path], onProgress, true);
  }

  async cancelIngest(): Promise<void> {
    this.ingester.cancel();
  }

  async fileSizes(paths: string[]): Promise<number[]> {
    return paths.map((p) => this.ingester.bytesOf(p));
  }

  async removeDocument(doc: string): Promise<void> {
    if (!this.writable) throw this.readOnly();
    this.lib.remove(this.lib.find(doc));
  }

  async renameDocument(doc: string, title: string | null): Promise<DocumentRow> {
    if (!this.writable) throw this.readOnly();
    const d = this.lib.find(doc);
    this.lib.rename(d, title);
    return { ...d.row };
  }

  async failures(): Promise<FileFailure[]> {
    return [...this.ingester.failed.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  async pickFiles(): Promise<string[]> {
    return ['/Users/analyst/Downloads/COBS Conduct of Business.pdf', '/Users/analyst/Downloads/corrupt-scan.pdf'];
  }

  async pickFolder(): Promise<string[]> {
    return ['/Users/analyst/Downloads/Rulebooks 2026'];
  }

  onFileDrop(cb: (paths: string[]) => void, onHover?: (over: boolean) => void): () => void {
    if (typeof window === 'undefined') return () => {};
    // A plain browser does not reveal dropped files' paths; their names stand in for them.
    const over = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      onHover?.(true);
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) onHover?.(false);
    };
    const drop = (e: DragEvent) => {
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length === 0) return;
      e.preventDefault();
      onHover?.(false);
      cb(files.map((f) => `/Users/analyst/Dropped/${f.name}`));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }

  onOpenFiles(cb: (paths: string[]) => void): () => void {
    this.openListeners.add(cb);
    return () => this.openListeners.delete(cb);
  }

  /** Files opened with Folio from outside the window (the desktop's "Open with"). */
  openFiles(paths: string[]): void {
    this.openListeners.forEach((cb) => cb(paths));
  }

  // --- watched folders ------------------------------------------------------------------------

  private watchedFolderRows(): WatchedFolder[] {
    return this.watched.map((path) => ({
      path,
      exists: true,
      documents: this.lib.docs.filter((d) => d.row.path.startsWith(`${path}/`)).length,
      error: this.watchErrors.get(path) ?? null,
    }));
  }

  async watchedFolders(): Promise<WatchedFolder[]> {
    return this.watchedFolderRows();
  }

  async watchFolder(path: string): Promise<WatchedFolder[]> {
    if (!this.writable) throw this.readOnly();
    if (!this.watched.includes(path)) {
      this.watched.push(path);
      // Like the engine: the folder's files are added in the background, then announced.
      void this.ingester.run(this.ingester.expand([path]), undefined, false).then((r) => {
        const report: SyncReport = { indexed: r.indexed, removed: [], failed: r.failed, rescan: true, seconds: r.seconds };
        this.changeListeners.forEach((cb) => cb(report));
      });
    }
    return this.watchedFolderRows();
  }

  async unwatchFolder(path: string): Promise<WatchedFolder[]> {
    if (!this.writable) throw this.readOnly();
    this.watched = this.watched.filter((p) => p !== path);
    return this.watchedFolderRows();
  }

  onLibraryChanged(cb: (report: SyncReport) => void): () => void {
    this.changeListeners.add(cb);
    return () => this.changeListeners.delete(cb);
  }

  // --- settings, keys, about, repair ----------------------------------------------------------

  async getSettings(): Promise<Settings> {
    return clone(this.settings);
  }

  async assistantSnippet(): Promise<AssistantSnippet> {
    const command = '/Applications/Folio.app/Contents/MacOS/folio-desktop';
    const args = ['mcp'];
    const config = JSON.stringify({ mcpServers: { folio: { command, args } } }, null, 2);
    return { command, args, config };
  }

  async saveSettings(s: Settings): Promise<SettingsChange> {
    if (!(s.rrf_k > 0)) throw backendError('invalid', 'RRF k must be a positive number.');
    for (const [name, w] of Object.entries(s.weights)) {
      if (!(w >= 0)) throw backendError('invalid', `The ${name} weight must be zero or more.`);
    }
    const before = this.settings;
    this.settings = clone(s);
    let reason: string | null = null;
    if (before.model !== s.model) reason = 'The embedding model changed: every document must be embedded again.';
    else if (before.context_provider !== s.context_provider)
      reason = 'The context provider changed: chunks must be contextualized and embedded again.';
    return { settings: clone(this.settings), needs_reindex: reason !== null, reason };
  }

  async keyStatus(provider: string): Promise<KeyStatus> {
    const set = this.keys.has(provider);
    return { provider, set, source: set ? 'keychain' : 'none', keychain_available: true, keychain: 'macOS Keychain' };
  }

  async setKey(provider: string, key: string): Promise<KeyStatus> {
    if (!key.trim()) throw backendError('invalid', 'The key is empty.');
    this.keys.set(provider, key);
    return this.keyStatus(provider);
  }

  async removeKey(provider: string): Promise<KeyStatus> {
    this.keys.delete(provider);
    return this.keyStatus(provider);
  }

  async about(): Promise<About> {
    const apache = 'Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/';
    return {
      version: '0.1.0',
      components: [
        { name: 'all-MiniLM-L6-v2', role: 'the default embedding model (sentence-transformers)', licence: 'Apache-2.0', text: apache },
        { name: 'potion-base-2M', role: 'the fast embedding model', licence: 'Apache-2.0', text: apache },
        { name: 'PDFium', role: 'reads PDF files', licence: 'BSD-3-Clause', text: null },
      ],
    };
  }

  async diagnostics(): Promise<Diagnostics> {
    const docs = this.lib.docs;
    return diagnosticsReport({
      version: (await this.about()).version,
      os: 'a web browser (the in-memory sample library)',
      kernel: 'none: the sample library embeds nothing',
      library: this.settings.library_dir,
      documents: docs.length,
      chunks: docs.reduce((n, d) => n + d.chunks.length, 0),
      library_bytes: docs.reduce((n, d) => n + d.row.size, 0),
      log_dir: SAMPLE_LOG_DIR,
      // As the engine's log has them: the file and why, never its text.
      recent_errors: [...this.ingester.failed.values()].sort((a, b) => a.at - b.at).map((f) => `${f.path}: ${f.message}`),
    });
  }

  async openLogFolder(): Promise<void> {
    // A browser has no file manager to show the folder in; the desktop app opens it.
  }

  async repairLibrary(onProgress?: ProgressHandler): Promise<RepairReport> {
    if (!this.damaged) throw backendError('invalid', 'the library is open and needs no repair');
    const docs = this.lib.docs;
    for (const [i, d] of docs.entries()) {
      await sleep(this.delayMs);
      onProgress?.({ file: d.row.path, file_index: i, files: docs.length, stage: 'indexing', done: 0, total: 1, error: null, remaining_s: null });
    }
    this.damaged = false;
    const chunks = docs.reduce((n, d) => n + d.chunks.length, 0);
    return {
      documents: docs.length,
      chunks,
      embedded: 0,
      rolled_back: [],
      catalog: {
        damaged_copy: `${this.settings.library_dir}/catalog.damaged-1796300000.sqlite`,
        from_source: docs.length,
        from_records: [],
        salvaged: ['context_cache', 'context_runs', 'watched_folders', 'failures'],
        lost: ['documents'],
      },
    };
  }

  async copyText(text: string): Promise<void> {
    await writeClipboard(text);
  }
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
