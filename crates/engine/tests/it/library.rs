//! The library end to end on the fixtures shipped in `tests/fixtures`, with the real MiniLM embedder,
//! on each provider (a folder with LanceDB on disk; a team library on PostgreSQL, its keywords
//! ranked in a cache or on the server): ingest with a bad file in the folder, search by identifier
//! and by words, define, outline, show, references and backlinks, then close, reopen and ask again.
//! Needs `.assets/minilm` (scripts/setup-assets.sh): ignored by a plain `cargo test`.

use folio_core::cancel::Cancel;
use folio_core::chunker::ChunkType;
use folio_engine::{Library, LibraryOptions, SearchOptions, Stage};
use folio_testkit::library::{Provider, TestLibrary};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn assets() -> PathBuf {
    folio_testkit::paths::require_asset("minilm/model.safetensors").parent().unwrap().to_path_buf()
}

fn open(test: &TestLibrary, model: &Path) -> Library {
    let embedder = Arc::new(folio_ai::MiniLm::load(model).expect("MiniLM loads"));
    let options = LibraryOptions { vocab: Some(model.join("vocab.txt")), ..LibraryOptions::default() };
    test.open(embedder, options).expect("library opens")
}

folio_testkit::on_each_provider!(
    ingest_search_navigate_and_reopen,
    ignore = "needs .assets (scripts/setup-assets.sh) and, for a team library, PostgreSQL; scripts/test.sh runs it"
);

fn ingest_search_navigate_and_reopen(provider: Provider) {
    let model = assets();
    let test = TestLibrary::new(provider);
    let docs = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    std::fs::copy(fixtures.join("rulebook.txt"), docs.path().join("HAR_rules.txt")).unwrap();
    std::fs::copy(fixtures.join("sample.md"), docs.path().join("sample.md")).unwrap();
    std::fs::write(docs.path().join("broken.pdf"), b"this is not a PDF at all").unwrap();

    let mut lib = open(&test, &model);
    let mut stages = Vec::new();
    let report = lib.ingest(&[docs.path().to_path_buf()], &mut |p| stages.push(p.stage), &Cancel::new());
    assert_eq!(report.indexed.len(), 2, "{report:?}");
    assert_eq!(report.failed.len(), 1, "the bad file is reported: {report:?}");
    assert_eq!(report.failed[0].code, folio_engine::ErrorCode::WrongExtension);
    assert!(stages.contains(&Stage::Embedding) && stages.contains(&Stage::Failed));

    let by_id = lib.search("HAR 3.1.2", &SearchOptions::default()).unwrap();
    assert!(
        by_id[0].section_ids.contains(&"sec_3_1_2".to_string()),
        "{:?}",
        by_id.iter().map(|h| &h.section_ids).collect::<Vec<_>>()
    );
    assert!(by_id[0].exact.is_some());
    let words =
        lib.search("what must be left in the lockers by the entrance", &SearchOptions::default()).unwrap();
    assert!(words[0].content.contains("lockers"), "{}", words[0].content);
    assert!(words[0].parent_chain.len() >= 2, "hits carry their parent chain");
    let definition = lib.search("What does 'Mooring Fee' mean?", &SearchOptions::default()).unwrap();
    assert!(definition[0].content.contains("Mooring Fee"));
    let only_req = SearchOptions { chunk_types: vec![ChunkType::Requirement], ..SearchOptions::default() };
    assert!(lib
        .search("vessel operator", &only_req)
        .unwrap()
        .iter()
        .all(|h| h.chunk_type == ChunkType::Requirement));

    let defs = lib.define("Authorised Person").unwrap();
    assert_eq!(defs.len(), 1);
    assert!(defs[0].definition.text.contains("member of staff"));
    let (_, outline) = lib.outline("HAR").unwrap();
    assert!(outline.iter().any(|s| s.section_id == "sec_3_1_3"));
    let shown = lib.show(Some("HAR"), "3.1.3").unwrap();
    assert!(shown.text.contains("keep a log"));
    let refs = lib.references(Some("HAR"), "sec_3_1_1").unwrap();
    assert!(refs.incoming.iter().any(|r| r.from_section == "sec_3_1_2"), "backlink from 3.1.2: {refs:?}");

    let before: Vec<i64> = by_id.iter().map(|h| h.chunk_id).collect();
    let chunks = lib.chunk_count().unwrap();
    drop(lib);

    // Reopen: same answers, nothing re-parsed, and re-ingesting the folder changes nothing.
    let mut lib = open(&test, &model);
    assert_eq!(lib.chunk_count().unwrap(), chunks);
    let again: Vec<i64> =
        lib.search("HAR 3.1.2", &SearchOptions::default()).unwrap().iter().map(|h| h.chunk_id).collect();
    assert_eq!(before, again);
    assert_eq!(lib.define("Authorised Person").unwrap().len(), 1);
    let report = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(report.unchanged.len(), 2);
    assert!(report.indexed.is_empty());

    let removed = lib.remove("sample.md").unwrap();
    assert!(removed.path.ends_with("sample.md"));
    assert!(lib.define("Authorised Person").unwrap().is_empty());
    assert!(lib
        .search("lockers by the entrance", &SearchOptions::default())
        .unwrap()
        .iter()
        .all(|h| !h.path.ends_with("sample.md")));
}
