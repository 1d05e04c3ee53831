//! Folio's engine: the one API the shells call. A [`Library`] is one folder holding the SQLite
//! catalog, the tantivy keyword index and the LanceDB vectors; it ingests files (with progress and a
//! must-stop flag), and answers search, define, outline, show and references.
//!
//! ```no_run
//! use folio_engine::{Cancel, Library, LibraryOptions, SearchOptions};
//! use std::sync::Arc;
//! let embedder = Arc::new(folio_ai::MiniLm::load(".assets/minilm".as_ref()).unwrap());
//! let mut lib = Library::open("my-library".as_ref(), embedder, LibraryOptions::default()).unwrap();
//! let report = lib.ingest(&["rules/GEN.txt".into()], &mut |_| {}, &Cancel::new());
//! println!("{} indexed, {} failed", report.indexed.len(), report.failed.len());
//! for hit in lib.search("GEN 2.1.3", &SearchOptions::default()).unwrap() {
//!     println!("{} — {}", hit.parent_chain.join(" › "), hit.snippet);
//! }
//! ```

#![warn(missing_docs)]

/// Folio's version and the third-party parts it ships, with their licences (the About panel).
pub mod about;
mod allocator;
/// Where the models and PDFium are found (beside the executable, the installed layout, `.assets`), and a library's embedder from the settings' model.
pub mod assets;
mod assistant;
/// The TypeScript types of what the UI sends and receives, generated from the Rust types.
pub mod bindings;
mod context;
mod diagnostics;
mod environment;
mod error;
/// One window per library: a later `folio-desktop FILE` hands its files to the running one.
pub mod instance;
mod library;
/// The app's log file (rotated by size) and the problems it recorded.
pub mod log;
mod outcome;
mod recovery;
mod settings;
/// Progress for a UI, thinned to a few events a second.
mod throttle;
mod watcher;
mod workspace;

pub use allocator::tune_allocator;
pub use assets::EmbeddingModel;
pub use context::{ContextMode, ContextProvider};
pub use diagnostics::{diagnostics, Diagnostics};
pub use environment::Environment;
pub use error::{EngineError, ErrorCode};
pub use folio_ai::keys::KeyStatus;
pub use folio_core::cancel::Cancel;
pub use folio_postgres::{TeamAddress, TlsMode};
pub use settings::{
    key_entry, settings_at, write_settings, AssistantSnippet, Settings, SettingsChange, TeamLibrarySettings,
    Weights,
};
pub use workspace::{
    key_status_at, remove_key_at, set_key_at, BackendError, DocumentStats, DocumentSummary, LibraryStatus,
    LinkMark, Outline, PageImage, Rect, SearchRequest, SectionFilter, SectionView, TableMark, TermMark,
    WatchedFolder, Workspace,
};

/// Call first thing in a shell's `main`: in a process started as a converter worker, converts
/// one file and exits; otherwise lets this program's ingests convert each file in a worker process
/// of its own (a crash, a hang or runaway memory costs that file only; see
/// [`folio_convert::worker`]).
pub fn serve_converter_if_asked() {
    folio_convert::worker::serve_if_asked();
}

/// The default library folder: the platform's data folder + `folio/library` (on Linux
/// `$XDG_DATA_HOME/folio/library`, `~/.local/share/folio/library`).
pub fn default_library_dir() -> std::path::PathBuf {
    dirs::data_dir().unwrap_or_else(|| std::path::PathBuf::from(".")).join("folio/library")
}

/// The desktop app's settings file: the platform's config folder + `folio/settings.json` (on Linux
/// `$XDG_CONFIG_HOME/folio/settings.json`).
pub fn default_settings_path() -> std::path::PathBuf {
    dirs::config_dir().unwrap_or_else(|| std::path::PathBuf::from(".")).join("folio/settings.json")
}
pub use assistant::open_for_assistant;
pub use folio_index::catalog::ContextRun;
pub use folio_index::catalog::{DocumentRow, DocumentStatus, RefRow, SectionRow};
pub use library::{
    ingest_shared, is_library_file, Backlinks, CatalogRebuild, Crumb, DefinitionHit, Hit, IngestFailure,
    IngestReport, Library, LibraryOptions, MissingDocument, Progress, RepairReport, SearchOptions,
    SectionText, Stage, SyncPlan, TeamKeywords, TeamLocation, UsedTerm, DEFAULT_CHUNK_TOKENS, DEFAULT_DEPTH,
};
pub use outcome::FileFailure;
pub use throttle::ProgressThrottle;
pub use watcher::{FolderWatcher, SyncReport, RETRY as WATCH_RETRY};
