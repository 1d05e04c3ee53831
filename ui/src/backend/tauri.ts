// The only module that talks to Tauri. Command names and argument names follow the engine's
// shell contract (snake_case commands, camelCase arguments as Tauri v2 expects from JS).
import { Channel, invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import { open } from '@tauri-apps/plugin-dialog';
import type { Backend, ProgressHandler } from './index';
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
import { toBackendError } from './errors';
import { writeClipboard } from './clipboard';

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    throw toBackendError(e);
  }
}

function progressChannel(onProgress?: ProgressHandler): Channel<Progress> {
  const channel = new Channel<Progress>();
  channel.onmessage = (p) => onProgress?.(p);
  return channel;
}

const DOCUMENT_EXTENSIONS = ['pdf', 'docx', 'html', 'htm', 'xhtml', 'epub', 'md', 'markdown', 'txt', 'xml'];

/**
 * Holds a Tauri listener that registers asynchronously: the returned function stops it, even when
 * called before registration finished. A listener that cannot register is left out (the UI works
 * without it).
 */
function subscription(registering: Promise<() => void>): () => void {
  let stopped = false;
  let unlisten: (() => void) | null = null;
  registering
    .then((fn) => {
      if (stopped) fn();
      else unlisten = fn;
    })
    .catch(() => {
      /* unavailable: drag and drop or background updates are missed; the buttons still work */
    });
  return () => {
    stopped = true;
    unlisten?.();
  };
}

function asList(picked: string | string[] | null): string[] {
  if (picked === null) return [];
  return Array.isArray(picked) ? picked : [picked];
}

export function createTauriBackend(): Backend {
  return {
    kind: 'tauri',
    libraryDocuments: () => call<DocumentSummary[]>('library_documents'),
    libraryStatus: () => call<LibraryStatus>('library_status'),
    ingest: (paths, onProgress) => call<IngestReport>('ingest', { paths, onEvent: progressChannel(onProgress) }),
    cancelIngest: () => call<void>('cancel_ingest'),
    fileSizes: (paths) => call<number[]>('file_sizes', { paths }),
    removeDocument: (doc) => call<void>('remove_document', { doc }),
    renameDocument: (doc, title) => call<DocumentRow>('rename_document', { doc, title }),
    reindexDocument: (doc, onProgress) =>
      call<IngestReport>('reindex_document', { doc, onEvent: progressChannel(onProgress) }),
    async pickFiles() {
      try {
        return asList(
          await open({
            multiple: true,
            directory: false,
            title: 'Add documents',
            filters: [
              { name: 'Documents', extensions: DOCUMENT_EXTENSIONS },
              { name: 'All files', extensions: ['*'] },
            ],
          }),
        );
      } catch (e) {
        throw toBackendError(e);
      }
    },
    async pickFolder() {
      try {
        return asList(await open({ multiple: false, directory: true, title: 'Add a folder of documents' }));
      } catch (e) {
        throw toBackendError(e);
      }
    },
    onFileDrop(cb, onHover) {
      return subscription(
        getCurrentWebview().onDragDropEvent((event) => {
          const payload = event.payload;
          if (payload.type === 'drop') {
            onHover?.(false);
            if (payload.paths.length > 0) cb(payload.paths);
          } else if (payload.type === 'enter' || payload.type === 'over') {
            onHover?.(true);
          } else {
            onHover?.(false);
          }
        }),
      );
    },
    onOpenFiles(cb) {
      // The shell keeps opened files until taken; the event says more arrived.
      const take = () =>
        call<string[]>('opened_files')
          .then((paths) => paths.length > 0 && cb(paths))
          .catch(() => {
            /* the files stay unopened; the user can still add them */
          });
      const stop = subscription(listen('open-files', () => void take()));
      void take();
      return stop;
    },
    search: (request: SearchRequest) => call<Hit[]>('search', { request }),
    outline: (doc) => call<Outline>('outline', { doc }),
    show: (doc, sectionId) => call<SectionView>('show_section', { doc, sectionId }),
    references: (doc, sectionId) => call<Backlinks>('references', { doc, sectionId }),
    define: (term) => call<DefinitionHit[]>('define', { term }),
    definitions: () => call<DefinitionHit[]>('definitions'),
    getSettings: () => call<Settings>('get_settings'),
    assistantSnippet: () => call<AssistantSnippet>('assistant_snippet'),
    saveSettings: (settings) => call<SettingsChange>('save_settings', { settings }),
    keyStatus: (provider) => call<KeyStatus>('key_status', { provider }),
    setKey: (provider, key) => call<KeyStatus>('set_key', { provider, key }),
    removeKey: (provider) => call<KeyStatus>('remove_key', { provider }),
    pageImage: (doc, page, chunkId, width = null) => call<PageImage>('page_image', { doc, page, chunkId, width }),
    copyText: (text) => writeClipboard(text),
    watchedFolders: () => call<WatchedFolder[]>('watched_folders'),
    watchFolder: (path) => call<WatchedFolder[]>('watch_folder', { path }),
    unwatchFolder: (path) => call<WatchedFolder[]>('unwatch_folder', { path }),
    failures: () => call<FileFailure[]>('failures'),
    missingDocuments: () => call<MissingDocument[]>('missing_documents'),
    about: () => call<About>('about'),
    diagnostics: () => call<Diagnostics>('diagnostics'),
    openLogFolder: () => call<void>('open_log_folder'),
    repairLibrary: (onProgress) => call<RepairReport>('repair_library', { onProgress: progressChannel(onProgress) }),
    onLibraryChanged: (cb) => subscription(listen<SyncReport>('library-changed', (event) => cb(event.payload))),
  };
}
