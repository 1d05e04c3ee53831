// The UI's single gateway to the engine. Everything outside `backend/` talks to `Backend`;
// only `tauri.ts` imports `@tauri-apps/api`.
import { createContext, useContext } from 'react';
import type {
  About,
  AssistantSnippet,
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
  Progress,
  RepairReport,
  SearchRequest,
  SectionView,
  Settings,
  SettingsChange,
  SyncReport,
  WatchedFolder,
} from './types';
import { createTauriBackend } from './tauri';

export type * from './types';
export { toBackendError, errorMessage } from './errors';
export { writeClipboard } from './clipboard';

export type ProgressHandler = (p: Progress) => void;

export interface Backend {
  /** Which implementation this is: the desktop shell or the in-memory sample. */
  readonly kind: 'tauri' | 'fake';
  libraryDocuments(): Promise<DocumentSummary[]>;
  /**
   * Where the library lives and whether this window may change it: `writable` is false while
   * another Folio process holds its write lock; `repaired` lists files whose interrupted ingest was
   * rolled back when the library opened (they must be added again).
   */
  libraryStatus(): Promise<LibraryStatus>;
  ingest(paths: string[], onProgress: ProgressHandler): Promise<IngestReport>;
  cancelIngest(): Promise<void>;
  /**
   * The bytes an ingest would read for each path (a folder: its library files; a file Folio does
   * not read, or one that cannot be read: 0): what files waiting in the queue weigh, for its time
   * left.
   */
  fileSizes(paths: string[]): Promise<number[]>;
  removeDocument(doc: string): Promise<void>;
  /**
   * Names a document as the user wants it cited (kept across re-indexing); `null` or an empty title
   * gives it back the title its file gives. Answers the document as it is now (`renamed` says
   * whether its title is the user's).
   */
  renameDocument(doc: string, title: string | null): Promise<DocumentRow>;
  reindexDocument(doc: string, onProgress?: ProgressHandler): Promise<IngestReport>;
  /** Files chosen in a dialog; empty when the dialog is dismissed. */
  pickFiles(): Promise<string[]>;
  /** A folder chosen in a dialog (as a one-element list); empty when dismissed. */
  pickFolder(): Promise<string[]>;
  /**
   * Calls `cb` with the paths dropped onto the window; `onHover` (optional) with whether files are
   * being dragged over it. Returns the function that stops listening.
   */
  onFileDrop(cb: (paths: string[]) => void, onHover?: (over: boolean) => void): () => void;
  /**
   * Calls `cb` with the files opened with Folio: those it was started with ("Open with" in the file
   * manager) and those opened while it runs. Returns the function that stops listening.
   */
  onOpenFiles(cb: (paths: string[]) => void): () => void;
  search(req: SearchRequest): Promise<Hit[]>;
  /** `doc` is a document id (as a string) or label. */
  outline(doc: string): Promise<Outline>;
  show(doc: string, sectionId: string): Promise<SectionView>;
  references(doc: string, sectionId: string): Promise<Backlinks>;
  define(term: string): Promise<DefinitionHit[]>;
  definitions(): Promise<DefinitionHit[]>;
  getSettings(): Promise<Settings>;
  /** What to paste into an AI assistant's MCP configuration to start Folio's server. */
  assistantSnippet(): Promise<AssistantSnippet>;
  saveSettings(s: Settings): Promise<SettingsChange>;
  keyStatus(provider: string): Promise<KeyStatus>;
  setKey(provider: string, key: string): Promise<KeyStatus>;
  removeKey(provider: string): Promise<KeyStatus>;
  /**
   * Page `page` (from 1) of a PDF document as a PNG `width` pixels wide (null: the engine's default,
   * 1200), with the lines of chunk `chunkId` highlighted in the image's own pixels. A narrow one is
   * quick to draw: the overlay shows one at once, then the full one.
   */
  pageImage(doc: string, page: number, chunkId: number | null, width?: number | null): Promise<PageImage>;
  copyText(text: string): Promise<void>;
  /** Folders the library keeps in step with (files added, changed, renamed, deleted). */
  watchedFolders(): Promise<WatchedFolder[]>;
  /** Watches a folder: its files are added in the background, then followed. */
  watchFolder(path: string): Promise<WatchedFolder[]>;
  /** Stops watching a folder; its documents stay. */
  unwatchFolder(path: string): Promise<WatchedFolder[]>;
  /** Files that could not be added, with why; each is tried again when it changes. */
  failures(): Promise<FileFailure[]>;
  /** Folio's version and the third-party parts it ships, with their licences. */
  about(): Promise<About>;
  /**
   * What a bug report needs: versions, OS, the embedder's CPU kernel, the library's size, where the
   * log is and its last errors (messages only, no document text), and all of it as plain `text`.
   */
  diagnostics(): Promise<Diagnostics>;
  /** Opens the folder holding Folio's log in the system's file manager. */
  openLogFolder(): Promise<void>;
  /** The documents the library cites most but does not hold, most cited first. */
  missingDocuments(): Promise<MissingDocument[]>;
  /** Calls `cb` after each background pass over watched folders; returns the function that stops listening. */
  onLibraryChanged(cb: (report: SyncReport) => void): () => void;
  /**
   * Repairs a library that could not be opened because a store is damaged (errors with code
   * `damaged`): rebuilds the indexes from the catalog, or the catalog from the chunk records, then
   * opens it. Nothing is embedded again when the catalog is rebuilt; no LLM is asked.
   */
  repairLibrary(onProgress?: ProgressHandler): Promise<RepairReport>;
}

declare global {
  interface Window {
    __TAURI_INTERNALS__?: unknown;
  }
}

export function inTauri(): boolean {
  return typeof window !== 'undefined' && window.__TAURI_INTERNALS__ !== undefined;
}

/** What a production build says when opened outside the desktop app (it holds no sample library). */
export const OUTSIDE_DESKTOP =
  "Folio's window must run inside the desktop app: start Folio (folio-desktop) rather than opening this page in a browser.";

/**
 * The Tauri backend inside the desktop shell. Outside it, in development (`npm run dev`) and in
 * tests, the in-memory sample library. A production build, what the desktop app embeds, holds no
 * sample: `vite build` replaces `import.meta.env.DEV` and `MODE` with constants, the import below
 * becomes dead code and no chunk is emitted for it (`src/bundle.test.ts` checks); opened in a
 * browser, that build rejects with `OUTSIDE_DESKTOP`.
 */
export async function createBackend(): Promise<Backend> {
  if (inTauri()) return createTauriBackend();
  if (import.meta.env.DEV || import.meta.env.MODE === 'test') {
    const { FakeBackend } = await import('./fake');
    return new FakeBackend();
  }
  throw new Error(OUTSIDE_DESKTOP);
}

export const BackendContext = createContext<Backend | null>(null);

export function useBackend(): Backend {
  const backend = useContext(BackendContext);
  if (!backend) throw new Error('useBackend outside <BackendContext.Provider>');
  return backend;
}
