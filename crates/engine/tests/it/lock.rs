//! One writer per library: a second opening (another process, or here another handle) is
//! read-only and says so; searches still work there; the lock goes with its holder.
//! Embedded with the test kit's hashing embedder: no model files needed.

use folio_core::cancel::Cancel;
use folio_core::fusion::Channel;
use folio_engine::{Library, LibraryOptions, SearchOptions};
use std::path::Path;
use std::sync::Arc;

fn open(dir: &Path) -> Library {
    let embedder = Arc::new(folio_testkit::embedder::HashingEmbedder::default());
    Library::open(dir, embedder, LibraryOptions { in_memory_vectors: true, ..LibraryOptions::default() })
        .unwrap()
}

#[test]
fn a_second_opening_reads_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = open(dir.path());
    assert!(writer.is_writable());
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/rulebook.txt");
    let report = writer.ingest(std::slice::from_ref(&fixtures), &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), 1);

    let mut reader = open(dir.path());
    assert!(!reader.is_writable());
    let refused = reader.ingest(std::slice::from_ref(&fixtures), &mut |_| {}, &Cancel::new());
    assert_eq!(refused.failed.len(), 1);
    assert_eq!(refused.failed[0].code, folio_engine::ErrorCode::ReadOnly);
    assert!(refused.failed[0].message.contains("read-only"), "{}", refused.failed[0].message);
    assert_eq!(reader.remove("rulebook").unwrap_err().code(), folio_engine::ErrorCode::ReadOnly);
    // Keyword and exact channels (the reader's in-RAM vectors are empty in this test).
    let opts = SearchOptions { channels: vec![Channel::Keyword, Channel::Exact], ..SearchOptions::default() };
    let from_writer = writer.search("Mooring Fee", &opts).unwrap();
    let from_reader = reader.search("Mooring Fee", &opts).unwrap();
    assert!(!from_writer.is_empty(), "the writer finds it");
    assert_eq!(
        from_reader.iter().map(|h| h.chunk_id).collect::<Vec<_>>(),
        from_writer.iter().map(|h| h.chunk_id).collect::<Vec<_>>(),
        "the reader sees what the writer wrote: {:?}",
        reader.documents().unwrap()
    );

    drop(writer);
    drop(reader);
    let again = open(dir.path());
    assert!(again.is_writable(), "the lock went with its holder");
}
