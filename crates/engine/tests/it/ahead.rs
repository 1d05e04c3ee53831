//! Ingest reads the next file ahead while the current one is embedded: the events of each file
//! still come in order and whole, a file that fails is reported in its place, and a cancel during
//! an embedding stops the reader too. Embedded with the test kit's hashing embedder.

use folio_core::cancel::Cancel;
use folio_engine::{Library, LibraryOptions, Stage};
use folio_testkit::embedder::{HashingEmbedder, Watched};
use folio_testkit::library::{Provider, TestLibrary};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn open(test: &TestLibrary, cancel: Option<Cancel>) -> Library {
    // The hashing embedder, which cancels the ingest at its first batch when given a flag.
    let before = move |_: &[&str]| {
        if let Some(c) = &cancel {
            c.cancel();
        }
    };
    let embedder = Arc::new(Watched { inner: HashingEmbedder::default(), before });
    test.open(embedder, LibraryOptions { in_memory_vectors: true, ..LibraryOptions::default() }).unwrap()
}

/// Five documents, the third of them not what its extension says.
fn documents(dir: &Path) -> Vec<PathBuf> {
    let rulebook = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/rulebook.txt"),
    )
    .unwrap();
    (0..5)
        .map(|i| {
            let p = dir.join(format!("doc{i}.{}", if i == 2 { "pdf" } else { "txt" }));
            let text = if i == 2 { "not a PDF".to_string() } else { format!("{rulebook}\nCopy {i}.\n") };
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect()
}

fn each_file_comes_in_order_and_whole_while_the_next_is_read(provider: Provider) {
    let docs = tempfile::tempdir().unwrap();
    let files = documents(docs.path());
    let test = TestLibrary::new(provider);
    let mut lib = open(&test, None);
    let mut events = Vec::new();
    let report = lib.ingest(&files, &mut |p| events.push((p.file_index, p.stage)), &Cancel::new());
    assert_eq!(report.indexed.len(), 4, "{report:?}");
    assert_eq!(report.failed.len(), 1);
    assert!(report.failed[0].path.ends_with("doc2.pdf"), "{:?}", report.failed);
    // After the queue, the files' events in file order, each file from converting to its end.
    let work: Vec<(usize, Stage)> = events.into_iter().filter(|(_, s)| *s != Stage::Queued).collect();
    let order: Vec<usize> = work.iter().map(|(i, _)| *i).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "files interleaved: {order:?}");
    for i in 0..5 {
        let stages: Vec<Stage> = work.iter().filter(|(f, _)| *f == i).map(|(_, s)| *s).collect();
        assert_eq!(stages.first(), Some(&Stage::Converting), "file {i}: {stages:?}");
        let last = if i == 2 { Stage::Failed } else { Stage::Indexed };
        assert_eq!(stages.last(), Some(&last), "file {i}: {stages:?}");
        if i != 2 {
            for s in [Stage::Analysing, Stage::Embedding, Stage::Indexing] {
                assert!(stages.contains(&s), "file {i} lacks {s:?}: {stages:?}");
            }
        }
    }
    // Again: every file is unchanged (the reader skips analysing them), the bad one fails again.
    let again = lib.ingest(&files, &mut |_| {}, &Cancel::new());
    assert_eq!((again.unchanged.len(), again.failed.len(), again.indexed.len()), (4, 1, 0), "{again:?}");
}

fn a_cancel_during_an_embedding_stops_the_reader_too(provider: Provider) {
    let docs = tempfile::tempdir().unwrap();
    let files = documents(docs.path());
    let test = TestLibrary::new(provider);
    let cancel = Cancel::new();
    let mut lib = open(&test, Some(cancel.clone()));
    let mut stages = Vec::new();
    let report = lib.ingest(&files, &mut |p| stages.push((p.file_index, p.stage)), &cancel);
    assert!(report.cancelled, "{report:?}");
    assert!(report.indexed.len() <= 1, "at most the file being embedded is written: {report:?}");
    assert!(
        stages.iter().all(|(i, s)| *i == 0 || *s == Stage::Queued),
        "no later file was taken up: {stages:?}"
    );
    drop(lib);
    // The library is whole: a new ingest (not cancelled) finishes the job.
    let mut lib = open(&test, None);
    let report = lib.ingest(&files, &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len() + report.unchanged.len(), 4, "{report:?}");
    assert_eq!(lib.documents().unwrap().len(), 4);
}

/// A file is written while the next one is embedded, before the catalog knows it: the same file
/// named again right after it is unchanged all the same, and a copy of it (another path, the same
/// text) is a document of its own in a folder library but the same document in a team library,
/// which holds one document per content.
fn a_file_named_again_or_copied_while_it_is_written(provider: Provider) {
    let docs = tempfile::tempdir().unwrap();
    let one = documents(docs.path()).swap_remove(0);
    let copy = docs.path().join("copy.txt");
    std::fs::copy(&one, &copy).unwrap();
    let test = TestLibrary::new(provider);
    let mut lib = open(&test, None);
    let mut ends = Vec::new();
    let report = lib.ingest(
        &[one.clone(), one.clone(), copy],
        &mut |p| {
            if matches!(p.stage, Stage::Indexed | Stage::Unchanged | Stage::Failed) {
                ends.push((p.file_index, p.stage));
            }
        },
        &Cancel::new(),
    );
    let team = provider != Provider::Folder;
    let copy_end = if team { Stage::Unchanged } else { Stage::Indexed };
    assert_eq!(ends, vec![(0, Stage::Indexed), (1, Stage::Unchanged), (2, copy_end)], "{report:?}");
    assert_eq!(lib.documents().unwrap().len(), if team { 1 } else { 2 });
}

folio_testkit::on_each_provider!(each_file_comes_in_order_and_whole_while_the_next_is_read);
folio_testkit::on_each_provider!(a_file_named_again_or_copied_while_it_is_written);
folio_testkit::on_each_provider!(a_cancel_during_an_embedding_stops_the_reader_too);
