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
    Library::open(dir, Arc::new(HashingEmbedder::default()), LibraryOptions::default())
        .expect("the library opens")
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_engine::{Cancel, SearchOptions};

    #[test]
    fn a_temporary_library_ingests_and_finds_without_model_files() {
        let (_dir, mut lib) = temp_library();
        let rulebook = crate::paths::repo_root().join("tests/fixtures/rulebook.txt");
        let report = lib.ingest(&[rulebook], &mut |_| {}, &Cancel::new());
        assert_eq!(report.indexed.len(), 1, "{report:?}");
        let hits = lib.search("Mooring Fee", &SearchOptions::default()).unwrap();
        assert!(hits.iter().take(3).any(|h| h.content.contains("Mooring Fee")), "{:?}", hits.first());
    }
}
