//! What the engine reports to its shells about a document and about a failure: types the library
//! and the workspace both use, kept apart so that neither module imports the other's.

use crate::{EngineError, ErrorCode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An error as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackendError {
    pub code: ErrorCode,
    pub message: String,
}

impl From<EngineError> for BackendError {
    fn from(e: EngineError) -> BackendError {
        BackendError { code: e.code(), message: e.to_string() }
    }
}

impl BackendError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> BackendError {
        BackendError { code, message: message.into() }
    }
}

/// A file that could not be added, with why; folder syncs try it again once it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileFailure {
    pub path: String,
    /// The file's modification time (Unix seconds) and size when it failed.
    pub mtime: i64,
    pub size: i64,
    pub code: ErrorCode,
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
    pub sections: usize,
    pub chunks: usize,
    pub definitions: usize,
    pub references: usize,
}
