//! What the engine reports to its shells about a document and about a failure: types the library
//! and the workspace both use, kept apart so that neither module imports the other's.

use crate::{EngineError, ErrorCode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An error as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackendError {
    /// What went wrong, as a code the UI matches on.
    pub code: ErrorCode,
    /// What went wrong, in words.
    pub message: String,
}

impl From<EngineError> for BackendError {
    fn from(e: EngineError) -> BackendError {
        BackendError { code: e.code(), message: e.to_string() }
    }
}

impl BackendError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> BackendError {
        BackendError { code, message: message.into() }
    }
}

/// A file that could not be added, with why; folder syncs try it again once it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileFailure {
    /// The file.
    pub path: String,
    /// The file's modification time (Unix seconds) and size when it failed.
    pub mtime: i64,
    /// Its size in bytes then.
    pub size: i64,
    /// Why, as a code.
    pub code: ErrorCode,
    /// Why, in words.
    pub message: String,
    /// When it failed (Unix seconds).
    pub at: i64,
}

impl From<folio_index::catalog::FailureRow> for FileFailure {
    fn from(r: folio_index::catalog::FailureRow) -> FileFailure {
        FileFailure {
            code: ErrorCode::parse(&r.code),
            path: r.path,
            mtime: r.mtime,
            size: r.size,
            message: r.message,
            at: r.at,
        }
    }
}

/// What a document holds.
#[derive(Debug, Clone, Copy, Default, Serialize, JsonSchema)]
pub struct DocumentStats {
    /// Sections of its outline.
    pub sections: usize,
    /// Chunks indexed.
    pub chunks: usize,
    /// Defined terms.
    pub definitions: usize,
    /// Cross-references written in it.
    pub references: usize,
}
