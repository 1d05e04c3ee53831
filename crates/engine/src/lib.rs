//! Folio's engine: the one API the shells call. A [`Library`] is one folder holding the SQLite
//! catalog, the tantivy keyword index and the LanceDB vectors; it ingests files (with progress and a
//! must-stop flag), and answers search, define, outline, show and references.
//!
//! ```no_run
//! use folio_engine::{Library, LibraryOptions, SearchOptions};
//! use std::sync::{atomic::AtomicBool, Arc};
//! let embedder = Arc::new(folio_ai::MiniLm::load(".assets/minilm".as_ref()).unwrap());
//! let mut lib = Library::open("my-library".as_ref(), embedder, LibraryOptions::default()).unwrap();
//! let report = lib.ingest(&["rules/GEN.txt".into()], &mut |_| {}, &AtomicBool::new(false));
//! println!("{} indexed, {} failed", report.indexed.len(), report.failed.len());
//! for hit in lib.search("GEN 2.1.3", &SearchOptions::default()).unwrap() {
//!     println!("{} — {}", hit.parent_chain.join(" › "), hit.snippet);
//! }
//! ```

mod context;
mod library;

pub use context::ContextMode;
pub use folio_index::catalog::ContextRun;
pub use library::{ingest_shared, 
    Backlinks, DefinitionHit, Hit, IngestFailure, IngestReport, Library, LibraryOptions, Progress,
    SearchOptions, SectionText, Stage,
};

/// Errors the shells show. User errors (a bad query, an unknown document) apart from internal ones.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Storage(#[from] folio_index::IndexError),
    #[error(transparent)]
    Embedding(#[from] folio_ai::AiError),
}

impl EngineError {
    /// A stable code for the UI (`{code, message}`).
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::NotFound(_) => "not_found",
            EngineError::Invalid(_) => "invalid",
            EngineError::Storage(_) => "storage",
            EngineError::Embedding(_) => "embedding",
        }
    }
}
