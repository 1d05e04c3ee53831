//! Opening a library reports what happened, never a guess: a vocabulary that cannot be read is an
//! error (another token counter would cut other chunks), a library written by a later Folio asks
//! for a newer Folio (it is not damage), and only damage says "damaged". Embedded with the test
//! kit's hashing embedder: no model files needed.

use folio_engine::{EngineError, ErrorCode, Library, LibraryOptions};
use folio_testkit::embedder::HashingEmbedder;
use std::path::Path;
use std::sync::Arc;

fn open(dir: &Path, options: LibraryOptions) -> Result<Library, EngineError> {
    Library::open(dir, Arc::new(HashingEmbedder::default()), options)
}

#[test]
fn a_vocabulary_that_cannot_be_read_is_an_error_not_a_silent_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent/vocab.txt");
    let e = open(
        &dir.path().join("lib"),
        LibraryOptions { vocab: Some(missing.clone()), ..LibraryOptions::default() },
    )
    .err()
    .expect("a library whose vocabulary is missing does not open");
    assert_eq!(e.code(), ErrorCode::Embedding, "{e}");
    assert!(e.to_string().contains(&missing.display().to_string()), "names the file: {e}");
    // A file that is there but is no vocabulary (no [UNK], [CLS], …) is refused too.
    let garbage = dir.path().join("vocab.txt");
    std::fs::write(&garbage, "the\nof\nand\n").unwrap();
    let e =
        open(&dir.path().join("lib2"), LibraryOptions { vocab: Some(garbage), ..LibraryOptions::default() })
            .err()
            .expect("a malformed vocabulary is refused");
    assert!(e.to_string().contains("not a usable vocabulary"), "{e}");
}

#[test]
fn a_library_from_a_later_folio_asks_for_an_update_and_is_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path(), LibraryOptions::default()).unwrap());
    let catalog = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
    catalog.pragma_update(None, "user_version", 999).unwrap();
    drop(catalog);
    let e = open(dir.path(), LibraryOptions::default()).err().expect("a later library does not open");
    assert_ne!(e.code(), ErrorCode::Damaged, "{e}");
    assert!(!e.to_string().contains("damaged") && e.to_string().contains("update Folio"), "{e}");
}

#[test]
fn a_vector_folder_that_is_a_file_is_a_refusal_not_damage() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vectors"), b"not a folder").unwrap();
    let e = open(dir.path(), LibraryOptions::default()).err().expect("the vectors cannot be opened");
    assert_ne!(e.code(), ErrorCode::Damaged, "{e}");
    assert!(!e.to_string().contains("damaged"), "{e}");
    assert!(e.to_string().contains("vector store"), "names the store: {e}");
}
