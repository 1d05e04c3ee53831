//! Opening a folder library: its stores (the catalog, the keyword index, LanceDB), what a store
//! that fails to open tells the user, and the vector store's checkpoint.

use super::lock::take_write_lock;
use super::{Keywords, Library, LibraryOptions, Stores};
use crate::EngineError;
use folio_ai::Embedder;
use folio_index::catalog::SqliteCatalog;
use folio_index::keyword::KeywordIndex;
use folio_index::vectors::{LanceVectors, MemoryVectors};
use std::path::Path;
use std::sync::Arc;

/// What a store that failed to open or read tells the user, naming the store: damage (which
/// repair mends, `remedy` saying from what), a refusal of the operating system (permission denied,
/// disk full), or the failure as it came.
pub(super) fn store_failure(
    store: &str,
    dir: &Path,
    e: folio_index::IndexError,
    remedy: &str,
) -> EngineError {
    if e.is_damage() {
        EngineError::Damaged(format!(
            "the library's {store} in {} is damaged ({e}); Repair library (or `folio repair`) rebuilds it {remedy}",
            dir.display()
        ))
    } else if let Some(words) = e.refusal_words() {
        // The whole error, often long, goes to the log; the user reads what was refused, and where.
        tracing::warn!("the library's {store} in {} could not be used: {e}", dir.display());
        EngineError::Refused(format!(
            "the library's {store} in {} could not be used: {words} (the operating system refused to read or write its files; nothing is damaged)",
            dir.display()
        ))
    } else {
        EngineError::Storage(folio_index::IndexError::In {
            context: format!("the library's {store} in {} could not be opened", dir.display()),
            source: Box::new(e),
        })
    }
}

/// The store an error came from, and what repair rebuilds it from.
pub(super) fn store_of(e: &folio_index::IndexError) -> (&'static str, &'static str) {
    use folio_index::IndexError as E;
    match e {
        E::Tantivy(_) => ("keyword index", "from the catalog"),
        E::Lance(_) | E::Arrow(_) => ("vector store", "from the catalog"),
        _ => ("catalog (catalog.sqlite)", "from the chunk records"),
    }
}

impl Library {
    /// Opens (or creates) the library in `dir`. The lookup tables are rebuilt from storage.
    ///
    /// A store that cannot be opened is reported for what happened: [`EngineError::Damaged`] only
    /// where its files are damaged (repair rebuilds it), otherwise the refusal or failure itself
    /// (permission denied, disk full, a library from a later Folio) with the store named.
    pub fn open(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
    ) -> Result<Library, EngineError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| store_failure("folder", dir, folio_index::IndexError::from(e), ""))?;
        let write_lock = take_write_lock(dir)?;
        // The vector store loads its mirror (the slowest part of opening) on a thread of its own
        // while the catalog's lookup tables are computed here.
        std::thread::scope(|scope| {
            let loading = (!options.in_memory_vectors).then(|| {
                let (at, model, dim) = (dir.join("vectors"), embedder.id().to_string(), embedder.dim());
                scope.spawn(move || LanceVectors::open(&at, &model, dim))
            });
            let catalog = SqliteCatalog::open(&dir.join("catalog.sqlite"))
                .map_err(|e| store_failure("catalog (catalog.sqlite)", dir, e, "from the chunk records"))?;
            let keyword = KeywordIndex::open(&dir.join("keyword"))
                .map(|k| Keywords::Local(Box::new(k)))
                .map_err(|e| store_failure("keyword index", dir, e, "from the catalog"))?;
            let stores = Stores {
                dir: dir.to_path_buf(),
                catalog: Arc::new(catalog),
                keyword,
                // In memory until the disk store has loaded (below), or for good.
                vectors: Box::new(MemoryVectors::default()),
                write_lock,
                team: None,
            };
            let mut lib = Library::with_stores(stores, embedder, options)?;
            // Reading the stores through may find damage that opening them did not.
            let read_through = |lib: &mut Library| -> Result<(), EngineError> {
                lib.seen_version = lib.catalog.data_version()?;
                lib.rebuild_lookups(false)?;
                if let Some(loading) = loading {
                    let opened = loading
                        .join()
                        .map_err(|_| EngineError::Internal("opening the vector store panicked".into()))?;
                    lib.vectors = Box::new(
                        opened.map_err(|e| store_failure("vector store", dir, e, "from the catalog"))?,
                    );
                }
                lib.checkpoint_vectors();
                if lib.is_writable() {
                    lib.repaired = lib.reconcile()?;
                    if !lib.repaired.is_empty() {
                        // The documents rolled back leave the tables computed above.
                        lib.changed();
                        lib.rebuild_lookups(false)?;
                    }
                }
                Ok(())
            };
            match read_through(&mut lib) {
                Ok(()) => Ok(lib),
                Err(EngineError::Storage(e)) => {
                    let (store, remedy) = store_of(&e);
                    Err(store_failure(store, dir, e, remedy))
                }
                Err(e) => Err(e),
            }
        })
    }

    /// Saves what makes the vector store's next open fast (see `VectorStore::checkpoint`). A
    /// failure costs only that, so it is logged, not returned.
    pub(super) fn checkpoint_vectors(&self) {
        if let Err(e) = self.vectors.checkpoint() {
            tracing::warn!(
                "the vector store's lists could not be saved (the next open builds them again): {e}"
            );
        }
    }
}
