//! What the engine reports to its shells about a document and about a failure: types the library
//! and the workspace both use, kept apart so that neither module imports the other's.

use crate::EngineError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An error as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackendError {
    pub code: String,
    pub message: String,
}

impl From<EngineError> for BackendError {
    fn from(e: EngineError) -> BackendError {
        BackendError { code: e.code().to_string(), message: e.to_string() }
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
