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

/// The fast model (potion-base-2M) from `.assets`, with the options a library opens with: what
/// the tests that run `folio --model fast` open the same library with.
pub fn fast_model() -> (Arc<dyn folio_ai::Embedder>, LibraryOptions) {
    folio_engine::assets::library_setup(
        folio_engine::assets::EmbeddingModel::Fast,
        &folio_engine::Environment { assets_dir: Some(crate::paths::assets_dir()), ..Default::default() },
    )
    .expect("the fast model in .assets (scripts/setup-assets.sh)")
}

/// Where a test library keeps its stores: a folder (SQLite, LanceDB or RAM vectors, tantivy), or a
/// team library on the test PostgreSQL server (a database of its own, dropped after the test), its
/// keyword channel from a cache in a temporary folder or from the server's full-text search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// A folder library.
    Folder,
    /// A team library on PostgreSQL with pgvector, keywords ranked in a BM25 cache here.
    Team,
    /// A team library whose keywords PostgreSQL's full-text search ranks.
    TeamFullText,
}

/// A library for one test on a provider, opened (and opened again) as the test needs.
pub struct TestLibrary {
    provider: Provider,
    dir: tempfile::TempDir,
    database: Option<folio_postgres::testing::TestDatabase>,
}

impl TestLibrary {
    /// A new, empty library on `provider`.
    pub fn new(provider: Provider) -> TestLibrary {
        let database = (provider != Provider::Folder).then(folio_postgres::testing::TestDatabase::create);
        TestLibrary { provider, dir: tempfile::tempdir().expect("a temporary folder"), database }
    }

    /// The provider.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Opens the library (a folder library's vectors in RAM when `options` says so; a team
    /// library's are always on the server).
    pub fn open(
        &self,
        embedder: Arc<dyn folio_ai::Embedder>,
        options: LibraryOptions,
    ) -> Result<Library, folio_engine::EngineError> {
        match &self.database {
            None => Library::open(&self.dir.path().join("library"), embedder, options),
            Some(db) => {
                let team = folio_engine::TeamLocation {
                    address: folio_engine::TeamAddress::parse(db.url())?,
                    cache: self.dir.path().join("cache"),
                    computer: "test-computer".into(),
                    keywords: match self.provider {
                        Provider::TeamFullText => folio_engine::TeamKeywords::Server,
                        _ => folio_engine::TeamKeywords::Cache,
                    },
                };
                Library::open_team(&team, embedder, options)
            }
        }
    }

    /// Opens the library with the hashing embedder and default options.
    pub fn open_hashing(&self) -> Library {
        self.open(Arc::new(HashingEmbedder::default()), LibraryOptions::default()).expect("the library opens")
    }
}

/// Makes a test of a check for each provider: `mod NAME { fn folder(); fn team(); fn
/// team_fulltext() }`, calling `NAME(Provider)`. The team ones need the test PostgreSQL (ignored by a plain `cargo test`;
/// `scripts/test.sh` starts the server and runs it). With `ignore = "…"` both are ignored (a check
/// that needs `.assets` or the shared data as well).
#[macro_export]
macro_rules! on_each_provider {
    ($check:ident) => {
        mod $check {
            #[test]
            fn folder() {
                super::$check($crate::library::Provider::Folder)
            }
            #[test]
            #[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
            fn team() {
                super::$check($crate::library::Provider::Team)
            }
            #[test]
            #[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
            fn team_fulltext() {
                super::$check($crate::library::Provider::TeamFullText)
            }
        }
    };
    ($check:ident, ignore = $why:literal) => {
        mod $check {
            #[test]
            #[ignore = $why]
            fn folder() {
                super::$check($crate::library::Provider::Folder)
            }
            #[test]
            #[ignore = $why]
            fn team() {
                super::$check($crate::library::Provider::Team)
            }
            #[test]
            #[ignore = $why]
            fn team_fulltext() {
                super::$check($crate::library::Provider::TeamFullText)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_engine::{Cancel, SearchOptions};

    fn a_temporary_library_ingests_and_finds_without_model_files(provider: Provider) {
        let test = TestLibrary::new(provider);
        let mut lib = test.open_hashing();
        let rulebook = crate::paths::repo_root().join("tests/fixtures/rulebook.txt");
        let report = lib.ingest(&[rulebook], &mut |_| {}, &Cancel::new());
        assert_eq!(report.indexed.len(), 1, "{report:?}");
        let hits = lib.search("Mooring Fee", &SearchOptions::default()).unwrap();
        assert!(hits.iter().take(3).any(|h| h.content.contains("Mooring Fee")), "{:?}", hits.first());
    }
    crate::on_each_provider!(a_temporary_library_ingests_and_finds_without_model_files);
}
