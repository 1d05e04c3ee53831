//! The desktop app's side of the engine: one library shared between an ingest thread and the
//! searches, the user's settings (a JSON file that never holds a key), API keys in the keychain,
//! and the views the UI shows (document summaries, section views with marked terms and links, page
//! images). Every call is synchronous and shell-free; the Tauri commands are one-line adapters.

use folio_core::cancel::Cancel;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

pub use crate::outcome::{BackendError, DocumentStats};
use folio_ai::keys::ApiKeys;
use folio_core::fusion::FusionConfig;
use folio_index::catalog::DocumentRow;

use crate::assets::library_setup;
use crate::environment::Environment;
use crate::library::{ingest_shared, read, write};
use crate::settings::{read_settings, saved_settings, Settings, SettingsChange};
use crate::watcher::{FolderWatcher, SyncReport};

mod keys;
mod reader;
mod views;

use crate::{
    Backlinks, ContextMode, ContextProvider, EngineError, Hit, IngestReport, Library, Progress, SearchOptions,
};
pub use keys::{key_status_at, remove_key_at, set_key_at};
pub use views::{
    DocumentSummary, LibraryStatus, LinkMark, Outline, PageImage, Rect, SearchRequest, SectionFilter,
    SectionView, TableMark, TermMark, WatchedFolder, PAGE_WIDTH,
};

/// Where the reports of the folder watcher's passes go (kept to restart it on another library).
type SyncSink = Arc<Mutex<Box<dyn FnMut(SyncReport) + Send>>>;

/// One library shared by the app's threads, with its settings.
pub struct Workspace {
    settings_path: PathBuf,
    settings: RwLock<Settings>,
    library: Arc<RwLock<Library>>,
    /// Held for the whole of an ingest (or a watched folder's pass): one at a time.
    ingesting: Arc<Mutex<()>>,
    /// Keeps the watched folders in step once `start_watching` ran (writable libraries only).
    watcher: Mutex<Option<FolderWatcher>>,
    sync_sink: Mutex<Option<SyncSink>>,
    cancel: Cancel,
    keys: ApiKeys,
    /// What the shell read from its environment at start.
    env: Environment,
}

impl Workspace {
    /// Opens the library the settings at `settings_path` name (defaults when the file is absent).
    pub fn open(settings_path: &Path, env: &Environment) -> Result<Workspace, EngineError> {
        Self::with_settings(settings_path, saved_settings(settings_path), env)
    }

    /// Opens with given settings (tests), saving them at `settings_path`.
    pub fn with_settings(
        settings_path: &Path,
        settings: Settings,
        env: &Environment,
    ) -> Result<Workspace, EngineError> {
        let keys = ApiKeys::default();
        let library = open_library(&settings, env, &keys)?;
        let ws = Workspace {
            settings_path: settings_path.to_path_buf(),
            settings: RwLock::new(settings),
            library: Arc::new(RwLock::new(library)),
            ingesting: Arc::new(Mutex::new(())),
            watcher: Mutex::new(None),
            sync_sink: Mutex::new(None),
            cancel: Cancel::new(),
            keys,
            env: env.clone(),
        };
        Ok(ws)
    }

    /// The library, caught up first when it is read-only and the writing process committed
    /// since (or let go of it, when this one becomes the writer).
    fn lib(&self) -> std::sync::RwLockReadGuard<'_, Library> {
        if read(&self.library).is_stale() {
            let became_writer = {
                let mut lib = write(&self.library);
                let was_writer = lib.is_writable();
                // A failed catch-up leaves the last good view; the next call tries again.
                if lib.is_stale() {
                    if let Err(e) = lib.refresh() {
                        tracing::warn!("catching up with the writing process failed: {e}");
                    }
                }
                !was_writer && lib.is_writable()
            };
            // The other process let go: this one keeps the watched folders in step from now on.
            if became_writer {
                if let Err(e) = self.restart_watcher() {
                    tracing::error!("watched folders are not followed: {e}");
                }
            }
        }
        read(&self.library)
    }

    /// Repairs the library the settings at `settings_path` name, when it could not be opened
    /// because a store is damaged (see [`Library::repair`]); open it again afterwards.
    pub fn repair(
        settings_path: &Path,
        env: &Environment,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<crate::RepairReport, EngineError> {
        let s = saved_settings(settings_path);
        let (embedder, options) = library_setup(s.model, env)?;
        Library::repair(Path::new(&s.library_dir), embedder, options, progress)
    }

    /// Where the library is, whether it can be written, and what was repaired on open.
    pub fn status(&self) -> LibraryStatus {
        let lib = self.lib();
        LibraryStatus {
            dir: lib.location(),
            model: read_settings(&self.settings).model,
            writable: lib.is_writable(),
            repaired: lib.repaired().to_vec(),
        }
    }

    /// For diagnostics: the library folder, how its embedder runs, and its documents and chunks
    /// (each `None` when the library could not say).
    pub(crate) fn library_figures(&self) -> (String, String, Option<usize>, Option<usize>) {
        let lib = self.lib();
        (
            lib.dir().display().to_string(),
            lib.embedder_description(),
            lib.documents().ok().map(|d| d.len()),
            lib.chunk_count().ok(),
        )
    }

    /// The documents with their figures.
    pub fn documents(&self) -> Result<Vec<DocumentSummary>, EngineError> {
        let lib = self.lib();
        lib.documents()?
            .into_iter()
            .map(|d| {
                let stats = lib.document_stats(d.id)?;
                Ok(DocumentSummary { document: d, stats, error: None })
            })
            .collect()
    }

    /// Ingests files and folders; searches go on meanwhile. Progress arrives on the calling thread.
    pub fn ingest(
        &self,
        paths: &[PathBuf],
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IngestReport, EngineError> {
        let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
        self.cancel.reset();
        let mode = self.context_mode()?;
        write(&self.library).set_context(mode);
        Ok(ingest_shared(&self.library, paths, progress, &self.cancel))
    }

    /// Stops the running ingest between documents (or embedding batches, or LLM requests);
    /// returns whether one was running.
    pub fn cancel_ingest(&self) -> bool {
        let running = self.ingesting.try_lock().is_err();
        if running {
            self.cancel.cancel();
        }
        running
    }

    /// Removes a document.
    pub fn remove_document(&self, doc: &str) -> Result<(), EngineError> {
        let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
        write(&self.library).remove(doc).map(|_| ())
    }

    /// Names a document as the user wants it cited; `None` (or an empty title) gives it back the
    /// title its file gives.
    pub fn rename_document(&self, doc: &str, title: Option<&str>) -> Result<DocumentRow, EngineError> {
        let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
        write(&self.library).rename(doc, title)
    }

    /// How many bytes of files each path holds that an ingest would read (a folder: its library
    /// files; a file Folio does not read, or one that cannot be read: 0) — what a queue of files not
    /// yet started weighs, for its time-left estimate.
    pub fn file_sizes(&self, paths: &[PathBuf]) -> Vec<u64> {
        paths.iter().map(|p| crate::library::library_files(p).iter().map(|f| f.1).sum()).collect()
    }

    /// Indexes a document again from its file (after a settings change).
    pub fn reindex_document(
        &self,
        doc: &str,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IngestReport, EngineError> {
        let path = self.lib().find_document(doc)?.path;
        if !Path::new(&path).exists() {
            return Err(EngineError::NotFound(format!(
                "{path} is gone; remove the document or restore the file"
            )));
        }
        {
            let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
            write(&self.library).remove(doc)?;
        }
        self.ingest(&[PathBuf::from(path)], progress)
    }

    /// Hybrid search with the settings' fusion weights.
    pub fn search(&self, req: &SearchRequest) -> Result<Vec<Hit>, EngineError> {
        let s = read_settings(&self.settings);
        let opts = SearchOptions {
            limit: req.limit.clamp(1, 200),
            fusion: FusionConfig {
                method: s.fusion,
                k: s.rrf_k,
                dense: s.weights.dense,
                keyword: s.weights.keyword,
                exact: s.weights.exact,
            },
            documents: req.documents.clone(),
            chunk_types: req.chunk_types.clone(),
            section: req.section.as_ref().map(|f| (f.doc.clone(), f.section_id.clone())),
            ..SearchOptions::default()
        };
        self.lib().search(&req.query, &opts)
    }

    /// A document's outline.
    pub fn outline(&self, doc: &str) -> Result<Outline, EngineError> {
        let (document, sections) = self.lib().outline(doc)?;
        Ok(Outline { document, sections })
    }

    /// References out of a section and into it.
    pub fn references(&self, doc: &str, section_id: &str) -> Result<Backlinks, EngineError> {
        self.lib().references(Some(doc), section_id)
    }

    /// What a term means.
    pub fn define(&self, term: &str) -> Result<Vec<crate::DefinitionHit>, EngineError> {
        self.lib().define(term)
    }

    /// Every definition in the library.
    pub fn definitions(&self) -> Result<Vec<crate::DefinitionHit>, EngineError> {
        self.lib().definitions()
    }

    /// The settings.
    pub fn settings(&self) -> Settings {
        read_settings(&self.settings).clone()
    }

    /// Saves settings; reopens the library when its folder or model changed.
    pub fn save_settings(&self, new: Settings) -> Result<SettingsChange, EngineError> {
        if new.rrf_k.is_nan()
            || new.rrf_k <= 0.0
            || [new.weights.dense, new.weights.keyword, new.weights.exact]
                .iter()
                .any(|w| w.is_nan() || *w < 0.0)
        {
            return Err(EngineError::Invalid("RRF k must be positive and the weights not negative".into()));
        }
        let old = self.settings();
        let mut reasons = Vec::new();
        if new.model != old.model {
            reasons.push("the embedding model changed: documents must be embedded again");
        }
        let context_changed = new.context_provider != old.context_provider
            || (new.context_provider == ContextProvider::Anthropic
                && new.anthropic_model != old.anthropic_model)
            || (new.context_provider == ContextProvider::Openai
                && (new.openai_model != old.openai_model || new.openai_base_url != old.openai_base_url));
        if context_changed {
            reasons.push("the context provider changed: chunk contexts must be written again");
        }
        if new.library_dir != old.library_dir
            || new.model != old.model
            || new.ocr != old.ocr
            || new.team_library != old.team_library
        {
            // The watcher follows the folders of the library it started on: stopped first, started
            // again on the new one.
            let watcher = self.watcher.lock().unwrap_or_else(|e| e.into_inner()).take();
            drop(watcher);
            {
                let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
                *write(&self.library) = open_library(&new, &self.env, &self.keys)?;
            }
            self.restart_watcher()?;
        }
        crate::settings::write_settings(&self.settings_path, &new)?;
        *self.settings.write().unwrap_or_else(|e| e.into_inner()) = new.clone();
        let needs_reindex = !reasons.is_empty() && !self.lib().documents()?.is_empty();
        Ok(SettingsChange { settings: new, needs_reindex, reason: needs_reindex.then(|| reasons.join("; ")) })
    }

    /// Starts keeping the watched folders in step (first bringing each in step with what changed
    /// while the app was closed); `report` hears about every pass that changed the library or met a
    /// failure. Does nothing while another process writes the library.
    pub fn start_watching(&self, report: impl FnMut(SyncReport) + Send + 'static) -> Result<(), EngineError> {
        let sink: SyncSink = Arc::new(Mutex::new(Box::new(report)));
        *self.sync_sink.lock().unwrap_or_else(|e| e.into_inner()) = Some(sink);
        self.restart_watcher()
    }

    fn restart_watcher(&self) -> Result<(), EngineError> {
        let Some(sink) = self.sync_sink.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
            return Ok(());
        };
        let mut slot = self.watcher.lock().unwrap_or_else(|e| e.into_inner());
        *slot = None;
        if self.lib().is_writable() {
            *slot = Some(FolderWatcher::start(self.library.clone(), self.ingesting.clone(), move |r| {
                (sink.lock().unwrap_or_else(|e| e.into_inner()))(r)
            })?);
        }
        Ok(())
    }

    /// The watched folders.
    pub fn watched_folders(&self) -> Result<Vec<WatchedFolder>, EngineError> {
        let lib = self.lib();
        let docs = lib.documents()?;
        let watcher = self.watcher.lock().unwrap_or_else(|e| e.into_inner());
        Ok(lib
            .watched_folders()?
            .into_iter()
            .map(|f| WatchedFolder {
                exists: f.is_dir(),
                documents: docs.iter().filter(|d| Path::new(&d.path).starts_with(&f)).count(),
                error: watcher.as_ref().and_then(|w| w.error(&f)),
                path: f.display().to_string(),
            })
            .collect())
    }

    /// Watches a folder: its files are ingested now (in the background, reported like any pass)
    /// and followed from then on.
    pub fn watch_folder(&self, folder: &Path) -> Result<Vec<WatchedFolder>, EngineError> {
        let (abs, _) = write(&self.library).add_watched_folder(folder)?;
        if let Some(w) = self.watcher.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            w.watch(abs);
        }
        self.watched_folders()
    }

    /// Stops watching a folder; its documents stay in the library.
    pub fn unwatch_folder(&self, folder: &Path) -> Result<Vec<WatchedFolder>, EngineError> {
        write(&self.library).remove_watched_folder(folder)?;
        if let Some(w) = self.watcher.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            w.unwatch(folder.to_path_buf());
        }
        self.watched_folders()
    }

    /// The documents the library cites most but does not hold (at most 20, most cited first).
    pub fn missing_documents(&self) -> Result<Vec<crate::MissingDocument>, EngineError> {
        self.lib().missing_documents(20)
    }

    /// Files that could not be indexed, with why (each is tried again when it changes).
    pub fn failures(&self) -> Result<Vec<crate::FileFailure>, EngineError> {
        self.lib().failures()
    }

    /// Opens the library the settings name again (after its password changed).
    fn reopen(&self) -> Result<(), EngineError> {
        let settings = self.settings();
        let watcher = self.watcher.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(watcher);
        {
            let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
            *write(&self.library) = open_library(&settings, &self.env, &self.keys)?;
        }
        self.restart_watcher()
    }

    /// The context mode the settings ask for.
    fn context_mode(&self) -> Result<ContextMode, EngineError> {
        let s = self.settings();
        let (model, url) = match s.context_provider {
            ContextProvider::Anthropic => {
                (Some(s.anthropic_model.as_str()), self.env.anthropic_base_url.as_deref())
            }
            ContextProvider::Openai => (Some(s.openai_model.as_str()), Some(s.openai_base_url.as_str())),
            ContextProvider::None | ContextProvider::Structural => (None, None),
        };
        ContextMode::from_provider(s.context_provider.as_str(), model, url, None, &self.keys)
    }
}

pub(crate) fn open_library(s: &Settings, env: &Environment, keys: &ApiKeys) -> Result<Library, EngineError> {
    let (embedder, mut options) = library_setup(s.model, env)?;
    options.convert.ocr = s.ocr;
    match &s.team_library {
        Some(team) => {
            let mut location = crate::TeamLocation::for_address(&team.address(), keys)?;
            location.keywords = team.keywords;
            Library::open_team(&location, embedder, options)
        }
        None => Library::open(Path::new(&s.library_dir), embedder, options),
    }
}
