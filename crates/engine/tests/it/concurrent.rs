//! Searches while a shared library ingests (as the desktop app runs them): every search answers,
//! and a hit only ever comes from a document the library lists as indexed at that moment: a folder
//! library with its vectors in RAM or in LanceDB, and a team library on PostgreSQL. Embedded with
//! the test kit's hashing embedder.

use folio_core::cancel::Cancel;
use folio_engine::{ingest_shared, DocumentStatus, Library, LibraryOptions, SearchOptions};
use folio_testkit::embedder::HashingEmbedder;
use folio_testkit::library::{Provider, TestLibrary};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

fn open(test: &TestLibrary, in_memory_vectors: bool) -> Library {
    let options = LibraryOptions { in_memory_vectors, ..LibraryOptions::default() };
    test.open(Arc::new(HashingEmbedder::default()), options).unwrap()
}

/// Copies of the test rulebook, each with a line of its own.
fn documents(dir: &Path, n: usize) -> Vec<PathBuf> {
    let rulebook = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/rulebook.txt"),
    )
    .unwrap();
    (0..n)
        .map(|i| {
            let p = dir.join(format!("copy{i}.txt"));
            std::fs::write(&p, format!("{rulebook}\nCopy number {i} of the rulebook.\n")).unwrap();
            p
        })
        .collect()
}

fn searches_see_only_listed_documents(test: &TestLibrary, in_memory_vectors: bool) {
    let docs = tempfile::tempdir().unwrap();
    let files = documents(docs.path(), 6);
    let lib = RwLock::new(open(test, in_memory_vectors));
    let first = ingest_shared(&lib, &files[..1], &mut |_| {}, &Cancel::new());
    assert_eq!(first.indexed.len(), 1, "{first:?}");

    let done = AtomicBool::new(false);
    let (searches, seen) = std::thread::scope(|scope| {
        let searcher = scope.spawn(|| {
            let (mut searches, mut seen) = (0usize, HashSet::new());
            let opts = SearchOptions::default();
            // At least a few searches, however quick the ingest.
            while !done.load(Ordering::SeqCst) || searches < 5 {
                let l = lib.read().unwrap();
                let hits = l.search("rulebook copy number", &opts).expect("a search during the ingest");
                let listed: HashSet<i64> = l
                    .documents()
                    .unwrap()
                    .into_iter()
                    .filter(|d| d.status == DocumentStatus::Indexed)
                    .map(|d| d.id)
                    .collect();
                for h in &hits {
                    assert!(listed.contains(&h.doc_id), "a hit from document {} not listed yet", h.doc_id);
                    seen.insert(h.doc_id);
                }
                drop(l);
                searches += 1;
            }
            (searches, seen)
        });
        let report = ingest_shared(&lib, &files[1..], &mut |_| {}, &Cancel::new());
        done.store(true, Ordering::SeqCst);
        assert_eq!(report.indexed.len(), 5, "{report:?}");
        searcher.join().unwrap()
    });
    assert!(searches >= 5 && !seen.is_empty(), "{searches} searches, hits from {seen:?}");
    // Afterwards every copy is found, and the lookups caught up (each copy's sections by number).
    let l = lib.read().unwrap();
    let all: HashSet<i64> = l
        .search("rulebook copy number", &SearchOptions { limit: 100, ..SearchOptions::default() })
        .unwrap()
        .iter()
        .map(|h| h.doc_id)
        .collect();
    assert_eq!(all.len(), 6, "{all:?}");
    assert_eq!(l.documents().unwrap().len(), 6);
}

#[test]
fn searches_during_a_shared_ingest_see_only_listed_documents_in_ram() {
    searches_see_only_listed_documents(&TestLibrary::new(Provider::Folder), true);
}

/// LanceDB for a folder library, PostgreSQL for a team library.
fn searches_during_a_shared_ingest_see_only_listed_documents(provider: Provider) {
    searches_see_only_listed_documents(&TestLibrary::new(provider), false);
}
folio_testkit::on_each_provider!(searches_during_a_shared_ingest_see_only_listed_documents);
