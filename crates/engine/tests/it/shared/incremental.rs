//! Re-ingesting a changed document embeds only the chunks whose text changed: one paragraph of the
//! General Rulebook (../shared/data/obliqa, 262 chunks) is edited, and the embedder — counted — sees
//! only the chunks around it; unchanged chunks keep their vectors. Prints both ingest times. On each
//! provider (a folder library; a team library, keywords ranked in a cache or on the server).
//! Skips with a message when the data or `.assets/potion-base-2M` is absent.

use folio_ai::StaticEmbedder;
use folio_core::cancel::Cancel;
use folio_engine::{LibraryOptions, SearchOptions};
use folio_testkit::embedder::Watched;
use folio_testkit::library::{Provider, TestLibrary};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

folio_testkit::on_each_provider!(
    only_changed_chunks_are_embedded_again,
    ignore = "needs ../shared, .assets and, for a team library, PostgreSQL; scripts/test.sh runs it"
);

fn only_changed_chunks_are_embedded_again(provider: Provider) {
    let model = folio_testkit::paths::require_asset("potion-base-2M/model.safetensors")
        .parent()
        .unwrap()
        .to_path_buf();
    let gen = folio_testkit::paths::require_shared("data/obliqa/documents/GEN_VER08.181223.txt");
    // Counts the texts it embeds for documents.
    let texts = Arc::new(AtomicUsize::new(0));
    let counter = texts.clone();
    let embedder = Arc::new(Watched {
        inner: StaticEmbedder::load(&model).unwrap(),
        before: move |t: &[&str]| {
            counter.fetch_add(t.len(), Ordering::SeqCst);
        },
    });
    let test = TestLibrary::new(provider);
    let docs = tempfile::tempdir().unwrap();
    let file = docs.path().join("GEN_VER08.181223.txt");
    let original = std::fs::read_to_string(&gen).unwrap();
    std::fs::write(&file, &original).unwrap();
    let mut lib = test.open(embedder.clone(), LibraryOptions::default()).unwrap();

    let t = Instant::now();
    let first = lib.ingest(std::slice::from_ref(&file), &mut |_| {}, &Cancel::new());
    let first_s = t.elapsed().as_secs_f64();
    assert_eq!(first.indexed.len(), 1, "{first:?}");
    let all = texts.swap(0, Ordering::SeqCst);
    assert_eq!(all, first.chunks);

    // Edit one paragraph: a sentence of Rule 2.2.1's text is reworded.
    let needle = original.find("\n2.2.1").expect("GEN has Rule 2.2.1");
    let line_end = needle + 1 + original[needle + 1..].find('\n').unwrap();
    let mut edited = original.clone();
    edited.insert_str(line_end, " This sentence was added by the incremental re-indexing test.");
    std::fs::write(&file, &edited).unwrap();

    let t = Instant::now();
    let second = lib.ingest(std::slice::from_ref(&file), &mut |_| {}, &Cancel::new());
    let second_s = t.elapsed().as_secs_f64();
    assert_eq!(second.indexed.len(), 1, "{second:?}");
    let again = texts.load(Ordering::SeqCst);
    println!(
        "first ingest: {} chunks embedded in {first_s:.2} s; after a one-paragraph edit: {again} embedded in {second_s:.2} s",
        all
    );
    assert!(
        (1..=3).contains(&again),
        "only the edited chunk (and at most its neighbours) is embedded again: {again}"
    );
    let hits = lib.search("added by the incremental re-indexing test", &SearchOptions::default()).unwrap();
    assert!(hits[0].content.contains("incremental re-indexing test"), "the new text is found");

    // Unchanged: nothing at all.
    let third = lib.ingest(&[file], &mut |_| {}, &Cancel::new());
    assert_eq!(third.unchanged.len(), 1);
    assert_eq!(texts.load(Ordering::SeqCst), again);
}
