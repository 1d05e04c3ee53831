//! The desktop app's side of the engine: one library shared between an ingest thread and the
//! searches, the user's settings (a JSON file that never holds a key), API keys in the keychain,
//! and the views the UI shows (document summaries, section views with marked terms and links, page
//! images). Every call is synchronous and shell-free; the Tauri commands are one-line adapters.

use folio_core::cancel::Cancel;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

pub use crate::outcome::{BackendError, DocumentStats};
use folio_ai::keys::{ApiKeys, KeyStatus};
use folio_core::fusion::FusionConfig;
use folio_core::model::PageRange;
use folio_index::catalog::{DocumentRow, SectionRow};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::assets::{library_setup, EmbeddingModel};
use crate::environment::Environment;
use crate::library::{ingest_shared, read, write};
use crate::settings::{read_settings, saved_settings, Settings, SettingsChange};
use crate::watcher::{FolderWatcher, SyncReport};
use crate::{
    Backlinks, ContextMode, ContextProvider, Crumb, EngineError, Hit, IngestReport, Library, Progress,
    SearchOptions,
};

/// Where the reports of the folder watcher's passes go (kept to restart it on another library).
type SyncSink = Arc<Mutex<Box<dyn FnMut(SyncReport) + Send>>>;

/// A folder the library keeps in step with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WatchedFolder {
    /// The folder.
    pub path: String,
    /// Whether the folder is there now (an unplugged drive is not).
    pub exists: bool,
    /// Documents from files under it.
    pub documents: usize,
    /// Why the OS does not follow the folder now (it is gone, the system's limit on watches is
    /// reached, permission is denied); `None` while it is followed.
    pub error: Option<String>,
}

/// A document with its figures.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentSummary {
    /// The document's row.
    pub document: DocumentRow,
    /// What it holds.
    pub stats: DocumentStats,
    /// Why its figures could not be read, if they could not.
    pub error: Option<BackendError>,
}

/// The library as a whole: where it is, whether this process may write it, and what was repaired
/// when it opened.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LibraryStatus {
    /// The library's folder, or a team library's address (without a password).
    pub dir: String,
    /// The embedding model it is indexed with.
    pub model: EmbeddingModel,
    /// False when another Folio process holds the library's write lock: this window reads only.
    pub writable: bool,
    /// Documents an interrupted ingest had left half-written, rolled back on open.
    pub repaired: Vec<String>,
}

/// A document's outline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Outline {
    /// The document's row.
    pub document: DocumentRow,
    /// Its sections in document order, each with its parent.
    pub sections: Vec<SectionRow>,
}

/// A search as the UI asks it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchRequest {
    /// What the user typed.
    pub query: String,
    /// Hits to return.
    pub limit: usize,
    /// Restrict to these documents (ids or labels; all when empty).
    pub documents: Vec<String>,
    /// Restrict to these chunk types (all when empty).
    pub chunk_types: Vec<folio_core::chunker::ChunkType>,
    /// Restrict to a section and what lies under it.
    pub section: Option<SectionFilter>,
}

/// A section subtree to search within.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SectionFilter {
    /// The document (id or label).
    pub doc: String,
    /// The section's id.
    pub section_id: String,
}

/// A defined term used in a section's text (offsets in UTF-16 code units of `SectionView::text`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TermMark {
    /// Start (UTF-16 code units).
    pub start: usize,
    /// End (UTF-16 code units).
    pub end: usize,
    /// The term as defined.
    pub term: String,
    /// The term's key, for `define`.
    pub key: String,
    /// The document of the definition that applies here.
    pub definition_doc_id: i64,
    /// The section the applying definition is written in.
    pub definition_section_id: String,
}

/// A cross-reference in a section's text (offsets in UTF-16 code units); the target is unset when
/// the cited section is not in the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LinkMark {
    /// Start (UTF-16 code units).
    pub start: usize,
    /// End (UTF-16 code units).
    pub end: usize,
    /// The reference, normalised ("Rule 2.2.7").
    pub label: String,
    /// The cited document, when it is in the library.
    pub target_doc_id: Option<i64>,
    /// The cited section in it, when found.
    pub target_section: Option<String>,
    /// The other document the reference names, as written ("FSMR"); with no `target_doc_id` it is
    /// not in the library.
    pub document: Option<String>,
}

/// A table in a section's text (offsets in UTF-16 code units of `SectionView::text`): its rows are
/// the lines of `text[start..end]`, its cells separated by tabs, its first `header_rows` rows head
/// the columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TableMark {
    /// Start (UTF-16 code units).
    pub start: usize,
    /// End (UTF-16 code units).
    pub end: usize,
    /// How many first rows head the columns.
    pub header_rows: u32,
}

/// A section as the reader shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SectionView {
    /// The document's id.
    pub doc_id: i64,
    /// The document's title.
    pub document: String,
    /// The document's label ("GEN").
    pub label: String,
    /// The section's row.
    pub section: SectionRow,
    /// The breadcrumb: the section and its ancestors.
    pub crumbs: Vec<Crumb>,
    /// The section's own text.
    pub text: String,
    /// Defined terms used in the text.
    pub terms: Vec<TermMark>,
    /// Cross-references in the text.
    pub links: Vec<LinkMark>,
    /// Tables in the text.
    pub tables: Vec<TableMark>,
    /// The pages the section lies on (paged formats).
    pub pages: Option<PageRange>,
    /// The document's file.
    pub path: String,
    /// The document's format ("pdf", "docx" …).
    pub format: String,
}

/// A PDF page as an image, with the cited passage's place on it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PageImage {
    /// The page as a PNG, base64.
    pub png_base64: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Rectangles in image pixels, from the top left.
    pub highlights: Vec<Rect>,
}

/// A rectangle in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
}

/// The width pages are drawn at for the Reader, in pixels, unless asked otherwise (a quick
/// low-resolution draw first, say).
pub const PAGE_WIDTH: u32 = 1200;

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

    /// A section with its defined terms and cross-references marked.
    pub fn show(&self, doc: &str, section_id: &str) -> Result<SectionView, EngineError> {
        let lib = self.lib();
        let d = lib.find_document(doc)?;
        let st = lib.show(Some(doc), section_id)?;
        let base = st.section.span.start;
        let text = st.text;
        // The definitions that apply here: this document's own, then those of the documents it
        // adopts (a glossary it cites or its family shares); a term is marked with the first.
        let utf16 = Utf16Offsets::new(&text);
        let terms = lib
            .used_terms(d.id, section_id, &text)?
            .into_iter()
            .map(|u| TermMark {
                start: utf16.at(u.span.start),
                end: utf16.at(u.span.end),
                term: u.term,
                key: u.key,
                definition_doc_id: u.definition.doc_id,
                definition_section_id: u.definition.definition.section_id,
            })
            .collect();
        let refs = lib.section_references(d.id, &st.section)?;
        let links = refs
            .into_iter()
            .filter(|r| r.span.start >= base && r.span.end <= base + text.len())
            .map(|r| {
                let (target_doc_id, target_section) = match (&r.document, r.target_doc_id) {
                    (Some(_), Some(t)) => (Some(t), r.target_doc_section.clone()),
                    (Some(_), None) => (None, None),
                    (None, _) => (r.target_section.as_ref().map(|_| d.id), r.target_section.clone()),
                };
                LinkMark {
                    start: utf16.at(r.span.start - base),
                    end: utf16.at(r.span.end - base),
                    label: r.label,
                    target_doc_id,
                    target_section,
                    document: r.document,
                }
            })
            .collect();
        let tables = lib
            .section_tables(d.id, &st.section)?
            .into_iter()
            .map(|t| TableMark {
                start: utf16.at(t.span.start - base),
                end: utf16.at(t.span.end - base),
                header_rows: t.header_rows,
            })
            .collect();
        Ok(SectionView {
            doc_id: d.id,
            document: d.title.clone(),
            label: d.label.clone(),
            crumbs: lib.crumbs(d.id, &st.section.section_id),
            pages: st.section.pages,
            section: st.section,
            text,
            terms,
            links,
            tables,
            path: d.path,
            format: d.format,
        })
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

    /// Page `page` (from 1) of a PDF document as a PNG, with the chunk's opening words highlighted.
    pub fn page_image(
        &self,
        doc: &str,
        page: u32,
        chunk_id: Option<i64>,
        width: Option<u32>,
    ) -> Result<PageImage, EngineError> {
        let (path, format, find, convert) = {
            let lib = self.lib();
            let d = lib.find_document(doc)?;
            let find = match chunk_id {
                Some(id) => lib.chunk(id)?.map(|c| c.content),
                None => None,
            };
            (d.path, d.format, find, lib.convert_options().clone())
        };
        if format != "pdf" {
            return Err(EngineError::Invalid(format!("{path} is not a PDF; it has no pages to show")));
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            EngineError::NotFound(format!("{path}: {e} (the original file has moved or gone)"))
        })?;
        let r = folio_convert::pdf::render_page(
            &bytes,
            page,
            width.unwrap_or(PAGE_WIDTH),
            find.as_deref(),
            &convert,
        )
        .map_err(|e| EngineError::Invalid(format!("{path}, page {page}: {e}")))?;
        Ok(PageImage {
            png_base64: base64(&r.png),
            width: r.width,
            height: r.height,
            highlights: r.highlights.iter().map(|h| Rect { x: h[0], y: h[1], w: h[2], h: h[3] }).collect(),
        })
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

    /// The keychain entry of `provider`: `postgres` stands for the team library the settings name
    /// (its password), filed under its address.
    fn entry(&self, provider: &str) -> Result<String, EngineError> {
        crate::settings::key_entry(&self.settings(), provider)
    }

    /// Where a provider's key comes from (never the key).
    pub fn key_status(&self, provider: &str) -> KeyStatus {
        match self.entry(provider) {
            Ok(entry) => self.keys.status(&entry),
            Err(_) => self.keys.status(provider),
        }
    }

    /// Saves a key in the keychain; the team library's password (`postgres`) opens it again with
    /// the password.
    pub fn set_key(&self, provider: &str, key: &str) -> Result<KeyStatus, EngineError> {
        let status = self.keys.set(&self.entry(provider)?, key)?;
        if provider == "postgres" {
            self.reopen()?;
        }
        Ok(status)
    }

    /// Deletes a key from the keychain.
    pub fn remove_key(&self, provider: &str) -> Result<KeyStatus, EngineError> {
        Ok(self.keys.remove(&self.entry(provider)?)?)
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

/// Where a provider's key comes from, under the settings saved at `settings_path` (no library
/// open: the one the settings name could not be opened, and its password may be what is missing).
pub fn key_status_at(settings_path: &Path, provider: &str) -> Result<KeyStatus, EngineError> {
    let entry = crate::settings::key_entry(&saved_settings(settings_path), provider)?;
    Ok(ApiKeys::default().status(&entry))
}

/// Saves a key under the settings saved at `settings_path` (see [`key_status_at`]).
pub fn set_key_at(settings_path: &Path, provider: &str, key: &str) -> Result<KeyStatus, EngineError> {
    let entry = crate::settings::key_entry(&saved_settings(settings_path), provider)?;
    Ok(ApiKeys::default().set(&entry, key)?)
}

/// Deletes a key under the settings saved at `settings_path` (see [`key_status_at`]).
pub fn remove_key_at(settings_path: &Path, provider: &str) -> Result<KeyStatus, EngineError> {
    let entry = crate::settings::key_entry(&saved_settings(settings_path), provider)?;
    Ok(ApiKeys::default().remove(&entry)?)
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

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Byte offsets to UTF-16 offsets in one text.
struct Utf16Offsets {
    /// (byte offset, utf-16 offset) at each char boundary.
    table: Vec<(usize, usize)>,
}

impl Utf16Offsets {
    fn new(text: &str) -> Utf16Offsets {
        let mut table = Vec::with_capacity(text.len() + 1);
        let mut u = 0;
        for (b, c) in text.char_indices() {
            table.push((b, u));
            u += c.len_utf16();
        }
        table.push((text.len(), u));
        Utf16Offsets { table }
    }

    fn at(&self, byte: usize) -> usize {
        match self.table.binary_search_by_key(&byte, |(b, _)| *b) {
            Ok(i) => self.table[i].1,
            Err(i) => self.table[i.saturating_sub(1)].1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_encodes() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn utf16_offsets() {
        let t = "a€b𝄞c";
        let u = Utf16Offsets::new(t);
        assert_eq!(u.at(0), 0);
        assert_eq!(u.at(1), 1); // €
        assert_eq!(u.at(4), 2); // b
        assert_eq!(u.at(5), 3); // 𝄞 (two code units)
        assert_eq!(u.at(9), 5); // c
        assert_eq!(u.at(t.len()), 6);
    }
}
