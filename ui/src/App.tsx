import { useCallback, useEffect, useMemo, useReducer, useState, type ComponentType } from 'react';
import { BackendContext, type Backend } from './backend';
import { DefinitionsIcon, LibraryIcon, ReaderIcon, SearchIcon, SettingsIcon, UploadIcon } from './components/Icons';
import { canBack, canForward, current, emptyHistory, historyReducer, type Loc } from './state/history';
import { IngestProvider, useIngestController } from './state/ingest';
import { NavContext, type Nav, type View } from './state/nav';
import { isEditableTarget } from './state/keyboard';
import { useQuery } from './state/query';
import { DefinitionsView } from './views/DefinitionsView';
import { LibraryView } from './views/LibraryView';
import { ReaderView } from './views/ReaderView';
import { SearchView } from './views/SearchView';
import { SettingsView } from './views/SettingsView';

const VIEWS: { id: View; label: string; Icon: ComponentType<{ size?: number }> }[] = [
  { id: 'library', label: 'Library', Icon: LibraryIcon },
  { id: 'search', label: 'Search', Icon: SearchIcon },
  { id: 'reader', label: 'Reader', Icon: ReaderIcon },
  { id: 'definitions', label: 'Definitions', Icon: DefinitionsIcon },
  { id: 'settings', label: 'Settings', Icon: SettingsIcon },
];

export type AppProps = {
  backend: Backend;
  initialView?: View;
  /** Search debounce in milliseconds (tests shorten it). */
  debounceMs?: number;
};

export function App({ backend, initialView = 'search', debounceMs }: AppProps) {
  const [view, setView] = useState<View>(initialView);
  const [visited, setVisited] = useState<Set<View>>(() => new Set([initialView]));
  const [history, dispatch] = useReducer(historyReducer, emptyHistory);
  const [libraryVersion, setLibraryVersion] = useState(0);
  const [focusToken, setFocusToken] = useState(0);
  const [dragOver, setDragOver] = useState(false);

  const show = useCallback((v: View) => {
    setView(v);
    setVisited((s) => (s.has(v) ? s : new Set([...s, v])));
  }, []);

  const libraryChanged = useCallback(() => setLibraryVersion((n) => n + 1), []);
  const ingest = useIngestController(backend, libraryChanged);

  const nav = useMemo<Nav>(
    () => ({
      view,
      setView: show,
      open: (loc: Loc) => {
        dispatch({ type: 'push', loc });
        show('reader');
      },
      replace: (loc: Loc) => dispatch({ type: 'replace', loc }),
      libraryVersion,
      libraryChanged,
    }),
    [view, show, libraryVersion, libraryChanged],
  );

  // A first run (an empty library) opens on the Library's welcome, unless the user moved already.
  // Asked once: documents added later do not move the user. A library that cannot be read says so
  // in its own view.
  const firstDocuments = useQuery(() => backend.libraryDocuments(), [backend], { library: false });
  const firstRun = firstDocuments.data?.length === 0;
  useEffect(() => {
    if (!firstRun) return;
    setView((v) => (v === initialView ? 'library' : v));
    setVisited((s) => (s.has('library') ? s : new Set([...s, 'library'])));
  }, [firstRun, initialView]);

  // A background pass over watched folders changed the library: every view reloads what it shows.
  useEffect(() => backend.onLibraryChanged(() => libraryChanged()), [backend, libraryChanged]);

  // Files dropped anywhere on the window are added to the library.
  useEffect(
    () =>
      backend.onFileDrop(
        (paths) => {
          show('library');
          ingest.ingest(paths);
        },
        (over) => setDragOver(over),
      ),
    [backend, show, ingest.ingest],
  );

  // Files opened with Folio ("Open with", or while it runs): added to the library, then the first of
  // them that is in it shown in the reader (a file that failed stays listed in the Library).
  useEffect(
    () =>
      backend.onOpenFiles((paths) => {
        show('library');
        ingest.ingest(paths, (report) => {
          const done = new Set([...report.indexed, ...report.unchanged]);
          const first = paths.find((p) => done.has(p));
          if (!first) return;
          backend
            .libraryDocuments()
            .then((docs) => {
              const row = docs.find((d) => d.document.path === first);
              if (!row) return;
              dispatch({ type: 'push', loc: { doc: String(row.document.id), sectionId: null } });
              show('reader');
            })
            .catch(() => {
              /* the Library view shows the document; the reader is one click away */
            });
        });
      }),
    [backend, show, ingest.ingest],
  );

  // Global keys: / and Ctrl+K focus search; Alt+←/→ move through the reader's history.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const editable = isEditableTarget(e.target);
      const ctrlK = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !editable;
      if (ctrlK || slash) {
        e.preventDefault();
        show('search');
        setFocusToken((n) => n + 1);
        return;
      }
      if (view === 'reader' && e.altKey && !e.ctrlKey && !e.metaKey && !editable) {
        if (e.key === 'ArrowLeft') {
          e.preventDefault();
          dispatch({ type: 'back' });
        } else if (e.key === 'ArrowRight') {
          e.preventDefault();
          dispatch({ type: 'forward' });
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [view, show]);

  const loc = current(history);

  return (
    <BackendContext.Provider value={backend}>
      <NavContext.Provider value={nav}>
        <IngestProvider value={ingest}>
          <div className="app">
            <nav className="rail" aria-label="Views">
              <div className="brand" aria-hidden="true">
                F
              </div>
              {VIEWS.map(({ id, label, Icon }) => (
                <button
                  key={id}
                  type="button"
                  className={`rail-button${view === id ? ' active' : ''}`}
                  data-testid={`nav-${id}`}
                  aria-current={view === id ? 'page' : undefined}
                  title={id === 'search' ? 'Search (/ or Ctrl+K)' : label}
                  onClick={() => {
                    show(id);
                    if (id === 'search') setFocusToken((n) => n + 1);
                  }}
                >
                  <Icon size={20} />
                  <span className="rail-label">{label}</span>
                  {id === 'library' && ingest.state.running && <span className="rail-dot" aria-label="ingest running" />}
                </button>
              ))}
              {backend.kind === 'fake' && (
                <div className="rail-note" title="Running in a browser with the in-memory sample library">
                  sample
                </div>
              )}
            </nav>
            <main className="content">
              {visited.has('library') && (
                <section className="pane" hidden={view !== 'library'} aria-label="Library">
                  <LibraryView />
                </section>
              )}
              {visited.has('search') && (
                <section className="pane" hidden={view !== 'search'} aria-label="Search">
                  <SearchView focusToken={focusToken} debounceMs={debounceMs} />
                </section>
              )}
              {visited.has('reader') && (
                <section className="pane" hidden={view !== 'reader'} aria-label="Reader">
                  <ReaderView
                    loc={loc}
                    canBack={canBack(history)}
                    canForward={canForward(history)}
                    onBack={() => dispatch({ type: 'back' })}
                    onForward={() => dispatch({ type: 'forward' })}
                  />
                </section>
              )}
              {visited.has('definitions') && (
                <section className="pane" hidden={view !== 'definitions'} aria-label="Definitions">
                  <DefinitionsView />
                </section>
              )}
              {visited.has('settings') && (
                <section className="pane" hidden={view !== 'settings'} aria-label="Settings">
                  <SettingsView />
                </section>
              )}
            </main>
            {dragOver && (
              <div className="drop-overlay" data-testid="drop-overlay" aria-hidden="true">
                <UploadIcon size={48} />
                <p>Drop files or folders to add them to the library</p>
              </div>
            )}
          </div>
        </IngestProvider>
      </NavContext.Provider>
    </BackendContext.Provider>
  );
}
