//! Contextual retrieval through the engine, against a local server speaking the Anthropic Messages
//! API: every chunk is asked once, the answers are cached in the catalog (a second ingest, and a
//! re-ingest after removing the document, send nothing), a chunk whose request fails keeps the
//! structural context and is asked again on the next ingest, and the key is nowhere on disk.
//! Skips with a message when `.assets/potion-base-2M` is absent.

use folio_ai::context::{AnthropicConfig, AnthropicWriter};
use folio_ai::http::RetryPolicy;
use folio_core::cancel::Cancel;
use folio_engine::{ContextMode, Library, LibraryOptions, SearchOptions};
use folio_testkit::files::files_containing;
use folio_testkit::http::{anthropic_answer, chunk_of, Reply, Server};
use folio_testkit::library::{Provider, TestLibrary};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "sk-ant-engine-test-7f3a9c1e-DO-NOT-STORE";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn embedder() -> Arc<folio_ai::StaticEmbedder> {
    let model = folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    Arc::new(folio_ai::StaticEmbedder::load(model.parent().unwrap()).unwrap())
}

fn docs() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let fixtures = root().join("tests/fixtures");
    std::fs::copy(fixtures.join("rulebook.txt"), d.path().join("HAR_rules.txt")).unwrap();
    std::fs::copy(fixtures.join("sample.md"), d.path().join("sample.md")).unwrap();
    d
}

fn llm(server: &Server) -> ContextMode {
    let mut c = AnthropicConfig::new(KEY);
    c.base_url = server.url.clone();
    c.retry = RetryPolicy {
        max_retries: 1,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    };
    ContextMode::llm(Arc::new(AnthropicWriter::new(c).unwrap()))
}

fn open(dir: &Path, embedder: Arc<folio_ai::StaticEmbedder>, mode: ContextMode) -> Library {
    let options = LibraryOptions { in_memory_vectors: true, context: mode, ..LibraryOptions::default() };
    Library::open(dir, embedder, options).unwrap()
}

fn open_on(test: &TestLibrary, embedder: Arc<folio_ai::StaticEmbedder>, mode: ContextMode) -> Library {
    let options = LibraryOptions { in_memory_vectors: true, context: mode, ..LibraryOptions::default() };
    test.open(embedder, options).unwrap()
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn contexts_are_cached_and_never_asked_twice() {
    let embedder = embedder();
    let server = Server::start(|req, n| {
        let chunk = chunk_of(req);
        let first_words: String = chunk.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        Reply::ok(anthropic_answer(&format!("Situated: {first_words}"), if n == 0 { 500 } else { 0 }, 0))
    });
    let lib_dir = tempfile::tempdir().unwrap();
    let docs = docs();
    let mut lib = open(lib_dir.path(), embedder.clone(), llm(&server));
    let (estimate, cached) = lib.estimate_context(&[docs.path().to_path_buf()]).unwrap().unwrap();
    assert_eq!(cached, 0);
    let report = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), 2, "{report:?}");
    let asked = server.requests().len();
    assert_eq!(asked, report.chunks, "one request per chunk");
    assert_eq!(estimate.requests as usize, asked, "the estimate counted the requests");
    let misses: u64 = report.contexts.iter().map(|r| r.misses).sum();
    let hits: u64 = report.contexts.iter().map(|r| r.hits).sum();
    assert_eq!((misses as usize, hits), (asked, 0));
    assert!(report.contexts.iter().all(|r| r.fallbacks == 0 && r.cost > 0.0));
    let chunks = lib.chunks().unwrap();
    assert!(chunks.iter().all(|c| c.context_source == "llm" && c.context.starts_with("Situated:")));
    // The context is indexed with the chunk: its words find it.
    let hits = lib.search("Situated", &SearchOptions::default()).unwrap();
    assert!(!hits.is_empty() && hits[0].contextualized.starts_with("Situated:"));
    assert_eq!(lib.context_runs().unwrap().len(), 2, "usage is kept in the catalog");

    // The same files again: nothing changed, nothing asked.
    let again = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(again.unchanged.len(), 2);
    assert_eq!(server.requests().len(), asked, "a second ingest makes zero LLM calls");

    // Removed and ingested again (re-indexing): every context comes from the cache.
    lib.remove("HAR").unwrap();
    let re = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(re.indexed.len(), 1);
    assert_eq!(server.requests().len(), asked, "re-indexing makes zero LLM calls");
    assert!(re.contexts[0].hits > 0 && re.contexts[0].misses == 0);
    drop(lib);

    // Reopened with the context mode unchanged: still nothing to ask.
    let mut lib = open(lib_dir.path(), embedder, llm(&server));
    let reopened = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(reopened.unchanged.len(), 2);
    assert_eq!(server.requests().len(), asked);

    // The key is nowhere in the library folder.
    assert!(files_containing(lib_dir.path(), KEY.as_bytes()).is_empty());
    assert!(
        !files_containing(lib_dir.path(), b"Situated:").is_empty(),
        "the search itself works on the files"
    );
}

fn failed_requests_fall_back_and_are_retried_next_time(provider: Provider) {
    let embedder = embedder();
    let broken = Arc::new(AtomicBool::new(true));
    let b = broken.clone();
    let server = Server::start(move |req, _| {
        if b.load(Ordering::SeqCst) && chunk_of(req).contains("locker") {
            Reply::status(500, &[], "overloaded")
        } else {
            Reply::ok(anthropic_answer("An LLM context.", 0, 0))
        }
    });
    let test = TestLibrary::new(provider);
    let docs = docs();
    let mut lib = open_on(&test, embedder, llm(&server));
    let report = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), 2, "the ingest never stops because the LLM did: {report:?}");
    let fallbacks: u64 = report.contexts.iter().map(|r| r.fallbacks).sum();
    assert!(fallbacks >= 1);
    let chunks = lib.chunks().unwrap();
    let fell: Vec<_> = chunks.iter().filter(|c| c.context_source == "fallback").collect();
    assert_eq!(fell.len() as u64, fallbacks);
    assert!(fell.iter().all(|c| c.context.starts_with("From ")), "the structural context stands in");
    let before = server.requests().len();

    broken.store(false, Ordering::SeqCst);
    let again = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(again.indexed.len(), 1, "only the document with fallbacks is redone: {again:?}");
    assert_eq!(
        server.requests().len() - before,
        fallbacks as usize,
        "only the failed chunks are asked again"
    );
    assert!(lib.chunks().unwrap().iter().all(|c| c.context_source == "llm"));
}

fn structural_contexts_by_default(provider: Provider) {
    let embedder = embedder();
    let test = TestLibrary::new(provider);
    let docs = docs();
    let mut lib = open_on(&test, embedder, ContextMode::default());
    let report = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), 2);
    assert!(report.contexts.is_empty(), "no LLM, no usage");
    let chunks = lib.chunks().unwrap();
    assert!(chunks.iter().all(|c| c.context_source == "structural" && c.context.starts_with("From ")));
    // Switching to no context re-indexes (the documents were indexed another way).
    lib.set_context(ContextMode::None);
    let again = lib.ingest(&[docs.path().to_path_buf()], &mut |_| {}, &Cancel::new());
    assert_eq!(again.indexed.len(), 2);
    assert!(lib.chunks().unwrap().iter().all(|c| c.context.is_empty()));
}

folio_testkit::on_each_provider!(
    failed_requests_fall_back_and_are_retried_next_time,
    ignore = "needs .assets (scripts/setup-assets.sh), and for the team library PostgreSQL (scripts/postgres.sh); scripts/test.sh runs it"
);
folio_testkit::on_each_provider!(
    structural_contexts_by_default,
    ignore = "needs .assets (scripts/setup-assets.sh), and for the team library PostgreSQL (scripts/postgres.sh); scripts/test.sh runs it"
);
