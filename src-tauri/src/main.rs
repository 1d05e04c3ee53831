//! `folio-desktop`: the Tauri shell. Every command is a one-line adapter over
//! `folio_engine::Workspace`, run on a blocking thread so the window never waits on the engine;
//! long work streams progress over a `Channel` (throttled, final events always sent); errors reach
//! the UI as `{code, message}`.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use folio_engine::{
    instance, AssistantSnippet, BackendError, Backlinks, DefinitionHit, Diagnostics, DocumentRow,
    DocumentSummary, EngineError, ErrorCode, FileFailure, Hit, IngestReport, LibraryStatus, MissingDocument,
    Outline, PageImage, Progress, ProgressThrottle, RepairReport, SearchRequest, SectionView, Settings,
    SettingsChange, WatchedFolder, Workspace,
};
use tauri::ipc::Channel;
use tauri::{Emitter, Manager, State};

type Res<T> = Result<T, BackendError>;
type KeyStatus = folio_engine::KeyStatus;

/// The workspace, opened on a background thread at start so the window shows at once; and, when
/// that open failed on a damaged library, the one opened again after `repair_library`.
#[derive(Default)]
struct App {
    opened: OnceLock<Result<Arc<Workspace>, BackendError>>,
    repaired: RwLock<Option<Arc<Workspace>>>,
    settings: OnceLock<PathBuf>,
    handle: OnceLock<tauri::AppHandle>,
    /// Files opened with Folio (at start, or handed over by a later `folio-desktop FILE…`) that
    /// the UI has not taken yet.
    opened_files: Mutex<Vec<PathBuf>>,
    /// The folder of the app's log files.
    log_dir: PathBuf,
    /// Whether to report the start-up time (scripts/bench/startup.sh).
    startup_report: Option<StartupReport>,
    /// What the environment sets for the engine, read at start (with a bundle's own assets
    /// where the environment names none); set once, in the app's setup.
    env: OnceLock<folio_engine::Environment>,
}

impl App {
    /// What the environment sets for the engine.
    fn env(&self) -> &folio_engine::Environment {
        static UNSET: OnceLock<folio_engine::Environment> = OnceLock::new();
        self.env.get().unwrap_or_else(|| UNSET.get_or_init(folio_engine::Environment::default))
    }

    /// The open workspace (waiting for the first open), or why there is none.
    fn workspace(&self) -> Result<Arc<Workspace>, BackendError> {
        if let Some(ws) = self.repaired.read().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(ws);
        }
        self.opened.wait().clone()
    }

    /// Stops the work in progress (an ingest, a folder pass) when the app ends.
    fn stop_work(&self) {
        let repaired = self.repaired.read().unwrap_or_else(|e| e.into_inner()).clone();
        let opened = self.opened.get().and_then(|w| w.as_ref().ok()).cloned();
        for ws in repaired.into_iter().chain(opened) {
            ws.cancel_ingest();
        }
    }

    /// Keeps the watched folders followed, announcing each pass that changed the library.
    fn watch(&self, ws: &Workspace) {
        let Some(handle) = self.handle.get().cloned() else { return };
        if let Err(e) = ws.start_watching(move |r| {
            if let Err(e) = handle.emit("library-changed", r) {
                tracing::warn!("the window was not told of a watched folder's changes: {e}");
            }
        }) {
            tracing::error!("watched folders are not followed: {e}");
        }
    }

    /// The settings file.
    fn settings_path(&self) -> PathBuf {
        self.settings.get().cloned().unwrap_or_else(folio_engine::default_settings_path)
    }

    /// Opens the library the settings name, after a change to what stopped it from opening.
    fn reopen(&self) -> Result<(), BackendError> {
        let ws = Arc::new(Workspace::open(&self.settings_path(), self.env())?);
        self.watch(&ws);
        *self.repaired.write().unwrap_or_else(|e| e.into_inner()) = Some(ws);
        Ok(())
    }

    /// Repairs the library that could not be opened, then opens it.
    fn repair(&self, mut progress: impl FnMut(Progress)) -> Result<RepairReport, BackendError> {
        if self.workspace().is_ok() {
            return Err(BackendError::new(ErrorCode::Invalid, "the library is open and needs no repair"));
        }
        let settings = self.settings.get().cloned().unwrap_or_else(folio_engine::default_settings_path);
        let report = Workspace::repair(&settings, self.env(), &mut progress)?;
        let ws = Arc::new(Workspace::open(&settings, self.env())?);
        self.watch(&ws);
        *self.repaired.write().unwrap_or_else(|e| e.into_inner()) = Some(ws);
        Ok(report)
    }
}

/// Runs `f` with the app on a blocking thread, so the window never waits on the engine.
async fn off_thread<T: Send + 'static>(
    app: &State<'_, Arc<App>>,
    f: impl FnOnce(&App) -> Res<T> + Send + 'static,
) -> Res<T> {
    let app = app.inner().clone();
    tauri::async_runtime::spawn_blocking(move || f(&app))
        .await
        .map_err(|e| BackendError::new(ErrorCode::Internal, format!("the engine stopped: {e}")))?
}

/// Runs `f` on a blocking thread once the workspace is open.
async fn run<T: Send + 'static>(
    app: &State<'_, Arc<App>>,
    f: impl FnOnce(&Workspace) -> Result<T, EngineError> + Send + 'static,
) -> Res<T> {
    off_thread(app, move |a| {
        let ws = a.workspace()?;
        f(&ws).map_err(BackendError::from)
    })
    .await
}

/// Progress to a channel, at most ten events a second per file and stage.
fn progress(channel: Channel<Progress>) -> impl FnMut(Progress) {
    let mut throttle = ProgressThrottle::new(Duration::from_millis(100), move |p| {
        // Fails only once the window that asked has gone; the work goes on and reports at its end.
        if let Err(e) = channel.send(p) {
            tracing::debug!("a progress event found no window: {e}");
        }
    });
    move |p| throttle.push(p)
}

#[tauri::command]
async fn library_documents(app: State<'_, Arc<App>>) -> Res<Vec<DocumentSummary>> {
    let report = app.startup_report;
    run(&app, |w| w.documents()).await.inspect(|_| startup_probe(report))
}

/// Repairs a library that could not be opened because a store is damaged, with progress, and
/// opens it.
#[tauri::command]
async fn repair_library(app: State<'_, Arc<App>>, on_progress: Channel<Progress>) -> Res<RepairReport> {
    off_thread(&app, move |a| a.repair(progress(on_progress))).await
}

/// When the UI first has the library (the window is up and interactive): with
/// `FOLIO_STARTUP_REPORT` set, prints `{"startup_ms": …}` since the process started, and with
/// `FOLIO_STARTUP_REPORT=exit` quits (scripts/bench/startup.sh).
fn startup_probe(report: Option<StartupReport>) {
    static DONE: OnceLock<()> = OnceLock::new();
    let Some(report) = report else { return };
    if DONE.set(()).is_ok() {
        let ms = STARTED.get().map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3);
        println!("{{\"startup_ms\": {ms:.1}}}");
        if report == StartupReport::Exit {
            std::process::exit(0);
        }
    }
}

/// `FOLIO_STARTUP_REPORT`: print the start-up time (any value), and quit after it (`exit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartupReport {
    Print,
    Exit,
}

static STARTED: OnceLock<std::time::Instant> = OnceLock::new();

/// What the environment says, read once at start (as ripgrep turns its flags into options).
struct DesktopOptions {
    /// The settings file (`FOLIO_SETTINGS`, or the platform's config folder).
    settings: PathBuf,
    /// The log (`FOLIO_LOG_DIR`, or the platform's data folder + `folio/logs`).
    log: folio_engine::log::LogOptions,
    /// `FOLIO_STARTUP_REPORT`.
    startup_report: Option<StartupReport>,
    /// What the environment sets for the engine (`FOLIO_ASSETS_DIR`, `FOLIO_PDFIUM`, …), or why
    /// a value it sets is not understood.
    env: Result<folio_engine::Environment, String>,
}

impl DesktopOptions {
    fn from_env() -> DesktopOptions {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let mut log = folio_engine::log::LogOptions::in_folder(
            var("FOLIO_LOG_DIR").unwrap_or_else(folio_engine::log::default_log_dir),
        );
        // Started from a terminal: the log shows there too.
        log.stderr = std::io::IsTerminal::is_terminal(&std::io::stderr());
        DesktopOptions {
            settings: var("FOLIO_SETTINGS").unwrap_or_else(folio_engine::default_settings_path),
            log,
            env: folio_engine::Environment::from_process().map_err(|e| e.to_string()),
            startup_report: std::env::var_os("FOLIO_STARTUP_REPORT").map(|v| {
                if v == "exit" {
                    StartupReport::Exit
                } else {
                    StartupReport::Print
                }
            }),
        }
    }
}

#[tauri::command]
async fn library_status(app: State<'_, Arc<App>>) -> Res<LibraryStatus> {
    run(&app, |w| Ok(w.status())).await
}

#[tauri::command]
async fn ingest(
    app: State<'_, Arc<App>>,
    paths: Vec<PathBuf>,
    on_event: Channel<Progress>,
) -> Res<IngestReport> {
    run(&app, move |w| w.ingest(&paths, &mut progress(on_event))).await
}

#[tauri::command]
async fn cancel_ingest(app: State<'_, Arc<App>>) -> Res<bool> {
    run(&app, |w| Ok(w.cancel_ingest())).await
}

#[tauri::command]
async fn remove_document(app: State<'_, Arc<App>>, doc: String) -> Res<()> {
    run(&app, move |w| w.remove_document(&doc)).await
}

#[tauri::command]
async fn reindex_document(
    app: State<'_, Arc<App>>,
    doc: String,
    on_event: Channel<Progress>,
) -> Res<IngestReport> {
    run(&app, move |w| w.reindex_document(&doc, &mut progress(on_event))).await
}

#[tauri::command]
async fn search(app: State<'_, Arc<App>>, request: SearchRequest) -> Res<Vec<Hit>> {
    run(&app, move |w| w.search(&request)).await
}

/// Names a document as the user wants it cited (`None`: the title its file gives).
#[tauri::command]
async fn rename_document(app: State<'_, Arc<App>>, doc: String, title: Option<String>) -> Res<DocumentRow> {
    run(&app, move |w| w.rename_document(&doc, title.as_deref())).await
}

/// The bytes each path would have an ingest read (for the queue's time left).
#[tauri::command]
async fn file_sizes(app: State<'_, Arc<App>>, paths: Vec<PathBuf>) -> Res<Vec<u64>> {
    run(&app, move |w| Ok(w.file_sizes(&paths))).await
}

#[tauri::command]
async fn outline(app: State<'_, Arc<App>>, doc: String) -> Res<Outline> {
    run(&app, move |w| w.outline(&doc)).await
}

#[tauri::command]
async fn show_section(app: State<'_, Arc<App>>, doc: String, section_id: String) -> Res<SectionView> {
    run(&app, move |w| w.show(&doc, &section_id)).await
}

#[tauri::command]
async fn references(app: State<'_, Arc<App>>, doc: String, section_id: String) -> Res<Backlinks> {
    run(&app, move |w| w.references(&doc, &section_id)).await
}

#[tauri::command]
async fn define(app: State<'_, Arc<App>>, term: String) -> Res<Vec<DefinitionHit>> {
    run(&app, move |w| w.define(&term)).await
}

#[tauri::command]
async fn definitions(app: State<'_, Arc<App>>) -> Res<Vec<DefinitionHit>> {
    run(&app, |w| w.definitions()).await
}

// The settings and the keys answer also while no library is open (the one the settings name could
// not be opened: a team library's server out of reach, its password not given yet), so that the
// user can change what stops it; a change tries to open it again.

#[tauri::command]
async fn get_settings(app: State<'_, Arc<App>>) -> Res<Settings> {
    off_thread(&app, |a| match a.workspace() {
        Ok(w) => Ok(w.settings()),
        Err(_) => Ok(folio_engine::settings_at(&a.settings_path())),
    })
    .await
}

#[tauri::command]
async fn save_settings(app: State<'_, Arc<App>>, settings: Settings) -> Res<SettingsChange> {
    off_thread(&app, move |a| match a.workspace() {
        Ok(w) => w.save_settings(settings).map_err(BackendError::from),
        Err(_) => {
            folio_engine::write_settings(&a.settings_path(), &settings)?;
            a.reopen()?;
            Ok(SettingsChange { settings, needs_reindex: false, reason: None })
        }
    })
    .await
}

#[tauri::command]
async fn key_status(app: State<'_, Arc<App>>, provider: String) -> Res<KeyStatus> {
    off_thread(&app, move |a| match a.workspace() {
        Ok(w) => Ok(w.key_status(&provider)),
        Err(_) => Ok(folio_engine::key_status_at(&a.settings_path(), &provider)?),
    })
    .await
}

#[tauri::command]
async fn set_key(app: State<'_, Arc<App>>, provider: String, key: String) -> Res<KeyStatus> {
    off_thread(&app, move |a| match a.workspace() {
        Ok(w) => w.set_key(&provider, &key).map_err(BackendError::from),
        Err(_) => {
            let status = folio_engine::set_key_at(&a.settings_path(), &provider, &key)?;
            a.reopen()?;
            Ok(status)
        }
    })
    .await
}

#[tauri::command]
async fn remove_key(app: State<'_, Arc<App>>, provider: String) -> Res<KeyStatus> {
    off_thread(&app, move |a| match a.workspace() {
        Ok(w) => w.remove_key(&provider).map_err(BackendError::from),
        Err(_) => Ok(folio_engine::remove_key_at(&a.settings_path(), &provider)?),
    })
    .await
}

#[tauri::command]
async fn page_image(
    app: State<'_, Arc<App>>,
    doc: String,
    page: u32,
    chunk_id: Option<i64>,
    width: Option<u32>,
) -> Res<PageImage> {
    run(&app, move |w| w.page_image(&doc, page, chunk_id, width)).await
}

#[tauri::command]
async fn watched_folders(app: State<'_, Arc<App>>) -> Res<Vec<WatchedFolder>> {
    run(&app, |w| w.watched_folders()).await
}

#[tauri::command]
async fn watch_folder(app: State<'_, Arc<App>>, path: PathBuf) -> Res<Vec<WatchedFolder>> {
    run(&app, move |w| w.watch_folder(&path)).await
}

#[tauri::command]
async fn unwatch_folder(app: State<'_, Arc<App>>, path: PathBuf) -> Res<Vec<WatchedFolder>> {
    run(&app, move |w| w.unwatch_folder(&path)).await
}

#[tauri::command]
fn about(app: State<'_, Arc<App>>) -> folio_engine::about::About {
    folio_engine::about::about(app.env())
}

#[tauri::command]
async fn missing_documents(app: State<'_, Arc<App>>) -> Res<Vec<MissingDocument>> {
    run(&app, |w| w.missing_documents()).await
}

/// Files opened with Folio that the UI has not added yet (taken once); the `open-files` event
/// says when more arrive.
#[tauri::command]
fn opened_files(app: State<'_, Arc<App>>) -> Vec<PathBuf> {
    std::mem::take(&mut *app.opened_files.lock().unwrap_or_else(|e| e.into_inner()))
}

/// What a bug report needs: version, system, embedder kernel, library size, recent problems.
#[tauri::command]
async fn diagnostics(app: State<'_, Arc<App>>) -> Res<Diagnostics> {
    off_thread(&app, |a| {
        let ws = a.workspace();
        Ok(folio_engine::diagnostics(&a.log_dir, ws.as_deref().map_err(|e| e.message.as_str())))
    })
    .await
}

/// Opens the log folder in the system's file manager.
#[tauri::command]
fn open_log_folder(app: State<'_, Arc<App>>) -> Res<()> {
    folio_engine::log::reveal(&app.log_dir).map_err(|e| {
        BackendError::new(
            ErrorCode::Io,
            format!("the log folder {} could not be opened: {e}", app.log_dir.display()),
        )
    })
}

#[tauri::command]
async fn failures(app: State<'_, Arc<App>>) -> Res<Vec<FileFailure>> {
    run(&app, |w| w.failures()).await
}

/// `folio-desktop mcp`: an AI assistant's MCP server over the library the settings name, on
/// stdin and stdout, no window; refused unless Settings allow assistants. Returns the exit status.
fn serve_assistant(options: DesktopOptions) -> i32 {
    let env = options.env.unwrap_or_else(|why| {
        tracing::error!("{why}; going on without the environment's settings");
        folio_engine::Environment::default()
    });
    match folio_mcp::serve_settings_library(&options.settings, &env) {
        Ok(()) => 0,
        Err(e) => {
            tracing::error!("the assistant's MCP server stopped: {e}");
            eprintln!("folio: {e}");
            2
        }
    }
}

/// What to paste into an AI assistant's MCP configuration: this program, started with `mcp`.
#[tauri::command]
fn assistant_snippet() -> Res<AssistantSnippet> {
    let program = std::env::current_exe()
        .map_err(|e| BackendError::new(ErrorCode::Internal, format!("the app's own path is unknown: {e}")))?;
    Ok(AssistantSnippet::new(&program, &["mcp"]))
}

fn main() {
    folio_engine::tune_allocator();
    folio_engine::serve_converter_if_asked();
    STARTED.get_or_init(std::time::Instant::now);
    let options = DesktopOptions::from_env();
    if let Err(e) = folio_engine::log::start(&options.log) {
        // Nowhere else to say it: the app runs on without a log file.
        eprintln!("folio: no log file in {}: {e}", options.log.dir.display());
    }
    if std::env::args_os().nth(1).is_some_and(|a| a == "mcp") {
        std::process::exit(serve_assistant(options));
    }
    let settings = options.settings.clone();
    // One window per library: files opened while Folio runs go to that window.
    let opened = instance::opened_paths(std::env::args_os().skip(1));
    let listener = match instance::claim(&settings, &opened) {
        instance::Claim::Forwarded => {
            tracing::info!("this library is open in another Folio window; the files went there");
            return;
        }
        instance::Claim::First(l) => Some(l),
        instance::Claim::Alone(why) => {
            tracing::warn!("files opened later start another window: {why}");
            None
        }
    };
    let mut env = options.env.unwrap_or_else(|why| {
        // Said in the log; the app runs as if the variable were unset.
        tracing::error!("{why}; going on without the environment's settings");
        folio_engine::Environment::default()
    });
    let app_state = Arc::new(App {
        opened_files: Mutex::new(opened),
        log_dir: options.log.dir.clone(),
        startup_report: options.startup_report,
        ..App::default()
    });
    let opening = app_state.clone();
    let closing = app_state.clone();
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(app_state)
        .setup(move |app| {
            // Bundles carry the models and pdfium as resources.
            if env.assets_dir.is_none() {
                if let Ok(dir) = app.path().resource_dir().map(|d| d.join("assets")) {
                    if dir.is_dir() {
                        env.assets_dir = Some(dir);
                    }
                }
            }
            opening.env.get_or_init(|| std::mem::take(&mut env));
            // The window title carries the version, as `folio --version` does.
            if let Some(w) = app.get_webview_window("main") {
                if let Err(e) = w.set_title(&format!("Folio {}", env!("CARGO_PKG_VERSION"))) {
                    tracing::warn!("the window title was not set: {e}");
                }
            }
            if let Some(listener) = listener {
                let (handle, state) = (app.handle().clone(), opening.clone());
                listener.serve(move |paths| {
                    state.opened_files.lock().unwrap_or_else(|e| e.into_inner()).extend(paths);
                    if let Some(w) = handle.get_webview_window("main") {
                        // Bringing the window forward is a courtesy; the files arrive either way.
                        if let Err(e) = w.unminimize().and_then(|()| w.show()).and_then(|()| w.set_focus()) {
                            tracing::debug!("the window was not brought forward: {e}");
                        }
                    }
                    if let Err(e) = handle.emit("open-files", ()) {
                        tracing::warn!("the window was not told of files opened with Folio: {e}");
                    }
                });
            }
            // Set once, here: the app's setup runs once.
            opening.handle.get_or_init(|| app.handle().clone());
            opening.settings.get_or_init(|| settings.clone());
            std::thread::spawn(move || {
                let ws = Workspace::open(&settings, opening.env()).map(Arc::new).map_err(BackendError::from);
                if let Err(e) = &ws {
                    tracing::error!(code = %e.code, "the library could not be opened: {}", e.message);
                }
                opening.opened.get_or_init(|| ws.clone());
                // Watched folders: brought in step with changes made while the app was closed,
                // then followed; each pass that changed the library is announced to the UI.
                if let Ok(ws) = ws {
                    opening.watch(&ws);
                }
            });
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            assistant_snippet,
            library_documents,
            library_status,
            ingest,
            cancel_ingest,
            remove_document,
            reindex_document,
            search,
            outline,
            show_section,
            references,
            define,
            definitions,
            get_settings,
            save_settings,
            key_status,
            set_key,
            remove_key,
            page_image,
            watched_folders,
            watch_folder,
            unwatch_folder,
            failures,
            rename_document,
            file_sizes,
            diagnostics,
            open_log_folder,
            opened_files,
            missing_documents,
            about,
            repair_library,
        ])
        .build(tauri::generate_context!())
        .expect("the Folio window could not start")
        .run(move |_, event| {
            // The window closed: an ingest in progress stops (the document being written is
            // rolled back at the next start, as after a crash), so the app ends at once.
            if let tauri::RunEvent::ExitRequested { .. } | tauri::RunEvent::Exit = event {
                closing.stop_work();
            }
        });
}
