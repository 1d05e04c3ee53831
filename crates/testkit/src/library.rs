//! A library in a temporary folder, embedded with the [`HashingEmbedder`](crate::embedder::HashingEmbedder):
//! the engine end to end (catalog, keyword index, vectors) with no model files.

use crate::embedder::HashingEmbedder;
use folio_engine::{Library, LibraryOptions};
use std::path::Path;
use std::sync::Arc;

/// A new library in a temporary folder (removed when the `TempDir` is dropped).
pub fn temp_library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let lib = open_library(dir.path());
    (dir, lib)
}

/// Opens (or creates) the library in `dir` with the hashing embedder, its vectors in LanceDB.
pub fn open_library(dir: &Path) -> Library {
    Library::open(dir, Arc::new(HashingEmbedder::default()), LibraryOptions::default()).expect("the library opens")
}
