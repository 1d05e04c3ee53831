//! A team library written by two processes at once: two `folio ingest` children add the 40 ObliQA
//! rulebooks into one new team library, each 25 of them (10 in common, given in opposite orders so
//! that both reach the common ones), while a third `folio search` process searches again and
//! again. The library ends with 40 documents, none twice, and as many chunks as one process
//! ingesting all 40 into a library of its own; no search fails. Needs the test PostgreSQL, the
//! shared data and `.assets` (fast model).

use folio_postgres::testing::TestDatabase;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

fn folio(library: &str, cache: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_folio"));
    c.args(["--model", "fast", "--library", library]).env("XDG_CACHE_HOME", cache);
    c
}

fn chunk_count(db: &TestDatabase) -> (i64, i64, i64) {
    let mut c = postgres::Client::connect(db.url(), postgres::NoTls).unwrap();
    let r = c
        .query_one(
            "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(DISTINCT content_hash) FROM documents), (SELECT COUNT(*) FROM chunks)",
            &[],
        )
        .unwrap();
    (r.get(0), r.get(1), r.get(2))
}

#[test]
#[ignore = "needs ../shared, .assets and PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn two_processes_ingest_one_team_library_at_once() {
    let docs = folio_testkit::paths::require_shared("data/obliqa/documents");
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&docs).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    assert_eq!(files.len(), 40);
    // First: 0..25; second: 15..40, the common 15..25 first, so that both reach them together.
    let first: Vec<PathBuf> = files[..25].to_vec();
    let mut second: Vec<PathBuf> = files[15..25].to_vec();
    second.extend_from_slice(&files[25..]);

    let db = TestDatabase::create();
    let caches = tempfile::tempdir().unwrap();
    // Make the schema first, so that the searcher has a library to search from its start.
    let status =
        folio(db.url(), &caches.path().join("s")).arg("docs").stdout(Stdio::null()).status().unwrap();
    assert!(status.success());

    let done = AtomicBool::new(false);
    let (a, b, searches) = std::thread::scope(|s| {
        let searcher = s.spawn(|| {
            let (mut ok, mut failed) = (0, Vec::new());
            while !done.load(Ordering::SeqCst) {
                let out = folio(db.url(), &caches.path().join("s"))
                    .args(["search", "Authorised Person must notify the Regulator", "--limit", "5"])
                    .output()
                    .unwrap();
                if out.status.success() {
                    ok += 1;
                } else {
                    failed.push(String::from_utf8_lossy(&out.stderr).into_owned());
                }
            }
            (ok, failed)
        });
        let spawn = |cache: &str, files: &[PathBuf]| {
            folio(db.url(), &caches.path().join(cache))
                .arg("ingest")
                .args(files)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn("a", &first), spawn("b", &second));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        done.store(true, Ordering::SeqCst);
        (a, b, searcher.join().unwrap())
    });
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let (documents, contents, chunks) = chunk_count(&db);
    assert_eq!((documents, contents), (40, 40), "40 documents, none twice");

    // One process, one library of its own: the same chunks.
    let alone = TestDatabase::create();
    let out = folio(alone.url(), &caches.path().join("alone")).arg("ingest").arg(&docs).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(chunks, chunk_count(&alone).2, "as many chunks as one process ingesting alone");
    let (ok, failed) = searches;
    assert!(
        failed.is_empty(),
        "{} of {} searches failed: {:?}",
        failed.len(),
        ok + failed.len(),
        failed.first()
    );
    eprintln!("{ok} searches meanwhile, none failed; {documents} documents, {chunks} chunks");
}
