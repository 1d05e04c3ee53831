//! Folio's library storage: the SQLite [`catalog`] (source of truth), the tantivy [`keyword`] index,
//! the in-memory [`exact`] index and the dense [`vectors`] (LanceDB, with an in-RAM twin for tests).
//!
//! ```
//! use folio_index::keyword::{KeywordDoc, KeywordFilter, KeywordIndex};
//! let mut k = KeywordIndex::in_memory().unwrap();
//! k.put_document(1, &[KeywordDoc { chunk_id: 7, doc_id: 1, chunk_type: "content", text: "Rule 2.1.3 applies.", headings: "GEN" }]).unwrap();
//! k.commit().unwrap();
//! assert_eq!(k.search("2.1.3", 5, &KeywordFilter::default()).unwrap()[0].0, 7);
//! ```

pub mod catalog;
pub mod exact;
pub mod keyword;
pub mod vectors;

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("catalog: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("keyword index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("vector store: {0}")]
    Lance(#[from] lancedb::Error),
    #[error("vector batch: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("storage I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("encoding: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the library is damaged: {0}")]
    Corrupt(String),
    #[error("invalid data: {0}")]
    Invalid(String),
}

impl IndexError {
    /// Whether the error means a store's files are damaged (rather than, say, busy or unreadable):
    /// what `folio repair` is for.
    pub fn is_damage(&self) -> bool {
        use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
        match self {
            IndexError::Corrupt(_) => true,
            IndexError::Sqlite(e) => matches!(e.sqlite_error_code(), Some(DatabaseCorrupt | NotADatabase)),
            _ => false,
        }
    }
}

impl From<tantivy::directory::error::OpenDirectoryError> for IndexError {
    fn from(e: tantivy::directory::error::OpenDirectoryError) -> Self {
        IndexError::Corrupt(e.to_string())
    }
}
