//! Two processes on one library: a `folio ingest` child writes the 40 ObliQA rulebooks (fast model)
//! while this process, which opened the library read-only, searches 1,000 times and catches up as
//! documents land. No search may fail, every hit must belong to a document that is whole (its
//! final chunk, with the final text), the reader must see documents arrive during the ingest, and
//! once the writer exits the reader sees all 40 and becomes the writer. Skips without the data.

use folio_engine::{Library, SearchOptions};
use std::collections::{HashMap, HashSet};
use std::process::{Command, Stdio};
use std::time::Instant;

const QUERIES: &[&str] = &[
    "Authorised Person",
    "client money",
    "GEN 2.1.3",
    "What are the capital requirements for a bank?",
    "anti money laundering",
    "Rule 3.3.31",
    "conflicts of interest",
    "the Regulator may",
];

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_reader_searches_while_another_process_ingests() {
    let docs = folio_testkit::paths::require_shared("data/obliqa/documents");
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    std::env::set_var("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir());
    let dir = tempfile::tempdir().unwrap();
    let lib_dir = dir.path().join("lib");
    // The writer starts first and takes the write lock; the reader waits until it has.
    let mut writer = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["--model", "fast", "--library"])
        .arg(&lib_dir)
        .args(["ingest", "--context", "structural"])
        .arg(&docs)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (embedder, options) = folio_testkit::library::fast_model();
    let start = Instant::now();
    let mut lib = loop {
        if lib_dir.join("write.lock").exists() && lib_dir.join("catalog.sqlite").exists() {
            std::thread::sleep(std::time::Duration::from_millis(200));
            let l = Library::open(&lib_dir, embedder.clone(), options.clone()).unwrap();
            if !l.is_writable() {
                break l;
            }
            panic!("the writer did not hold the library");
        }
        assert!(start.elapsed().as_secs() < 60, "the writer never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    // Every hit seen: (document path, chunk id, chunk text); the documents visible per search.
    let mut seen: HashSet<(String, i64, String)> = HashSet::new();
    let mut visible_counts = Vec::new();
    let mut during_ingest = 0;
    let mut refreshes = 0;
    let mut times = Vec::new();
    for i in 0..1000 {
        let t = Instant::now();
        if lib.is_stale() && lib.refresh().expect("catching up never fails") {
            refreshes += 1;
        }
        let q = QUERIES[i % QUERIES.len()];
        let hits =
            lib.search(q, &SearchOptions::default()).unwrap_or_else(|e| panic!("search {i} ({q}): {e}"));
        times.push(t.elapsed().as_secs_f64() * 1e3);
        for h in hits {
            seen.insert((h.path, h.chunk_id, h.content));
        }
        let running = writer.try_wait().unwrap().is_none();
        if running {
            during_ingest += 1;
            visible_counts.push(
                lib.documents()
                    .unwrap()
                    .iter()
                    .filter(|d| d.status == folio_engine::DocumentStatus::Indexed)
                    .count(),
            );
        }
    }
    let status = writer.wait().unwrap();
    assert!(status.success(), "the ingest succeeded");
    // The writer has gone: the reader catches up with everything and takes over the library. When
    // the ingest ended before the last search, a catch-up in the loop above has done so already.
    if !lib.is_writable() {
        assert!(lib.is_stale(), "a reader whose writer has gone is behind");
        lib.refresh().unwrap();
    }
    assert!(lib.is_writable(), "the reader becomes the writer once the writer exits");
    let docs_now = lib.documents().unwrap();
    assert_eq!(docs_now.len(), 40);
    // Every hit seen during the ingest is a chunk of a whole document, with its final text.
    for (d, counts) in lib.verify().unwrap() {
        assert_eq!(counts, [counts[0]; 3], "{} is whole", d.path);
    }
    let paths: HashMap<i64, String> = docs_now.iter().map(|d| (d.id, d.path.clone())).collect();
    let final_chunks: HashMap<i64, (String, String)> =
        lib.chunks().unwrap().into_iter().map(|c| (c.id, (paths[&c.doc_id].clone(), c.content))).collect();
    for (path, id, content) in &seen {
        let (p, c) =
            final_chunks.get(id).unwrap_or_else(|| panic!("chunk {id} of {path} is not in the library"));
        assert_eq!((p, c), (path, content), "chunk {id} was seen with its final document and text");
    }
    times.sort_by(f64::total_cmp);
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "1000 searches, {during_ingest} while the ingest ran; {refreshes} catch-ups; {} distinct hits; documents visible during the ingest: first {}, last {}; search+catch-up ms p50 {:.1} p99 {:.1} max {:.1}",
        seen.len(),
        visible_counts.first().copied().unwrap_or(0),
        visible_counts.last().copied().unwrap_or(0),
        p(0.5),
        p(0.99),
        p(1.0)
    );
    assert!(during_ingest >= 100, "searches ran while the ingest did ({during_ingest})");
    assert!(
        visible_counts.last() > visible_counts.first(),
        "the reader saw documents arrive: {visible_counts:?}"
    );
}
