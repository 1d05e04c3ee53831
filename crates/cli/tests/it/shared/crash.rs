//! Crash safety: `folio ingest` of the 40 ObliQA rulebooks (fast model) is killed with SIGKILL at
//! 20 pseudo-random moments; after each kill the library opens, every document is whole in all
//! three stores (catalog, vectors, keyword index) or absent, and searching works; a final ingest
//! completes the library. A folder library, and a team library on the test PostgreSQL (its
//! half-written documents are rolled back once their writer's connection is gone). An ingest that ends before its moment is checked too but does not count:
//! the next moments are drawn below the time it took, until 20 ingests were really killed. Prints
//! every outcome. Skips when the data or assets are absent.

use folio_engine::{Library, SearchOptions};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The library: a folder, or a team library's address with the cache folder of its clients.
#[derive(Clone, Copy)]
enum At<'a> {
    Folder(&'a Path),
    Team(&'a str, &'a Path),
}

impl At<'_> {
    fn arg(&self) -> std::ffi::OsString {
        match self {
            At::Folder(p) => p.as_os_str().to_owned(),
            At::Team(url, _) => url.into(),
        }
    }

    fn open(&self) -> Library {
        let (embedder, options) = folio_testkit::library::fast_model();
        match self {
            At::Folder(p) => Library::open(p, embedder, options).expect("the library opens after a crash"),
            At::Team(url, cache) => {
                let team = folio_engine::TeamLocation {
                    address: folio_engine::TeamAddress::parse(url).unwrap(),
                    cache: cache.join("checker"),
                    computer: "checker".into(),
                    keywords: Default::default(),
                };
                // The killed writer's claims end when the server sees its connection close (a
                // moment after the kill): until then its half-written document is not abandoned.
                let start = Instant::now();
                loop {
                    let l = Library::open_team(&team, embedder.clone(), options.clone())
                        .expect("the library opens after a crash");
                    let writing = l
                        .documents()
                        .unwrap()
                        .iter()
                        .any(|d| d.status != folio_engine::DocumentStatus::Indexed);
                    if !writing || start.elapsed() > Duration::from_secs(10) {
                        break l;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }
}

fn ingest(lib: At<'_>, docs: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_folio"));
    if let At::Team(_, cache) = lib {
        c.env("XDG_CACHE_HOME", cache.join("ingest"));
    }
    c.env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib.arg())
        .args(["ingest", "--context", "structural"])
        .arg(docs)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Opens the library and checks it, then removes every `drop_every`-th document so the next
/// ingest has work to be killed in: returns (whole documents, rolled back on open).
fn check(lib: At<'_>, drop_every: usize) -> (usize, usize) {
    let l = lib.open();
    let repaired = l.repaired().len();
    let docs = l.verify().unwrap();
    for (d, [catalog, vectors, keyword]) in &docs {
        assert_eq!(d.status, folio_engine::DocumentStatus::Indexed, "{}", d.path);
        assert!(*catalog > 0, "{} has chunks", d.path);
        assert_eq!(
            (catalog, vectors, keyword),
            (catalog, catalog, catalog),
            "{} is whole in every store",
            d.path
        );
    }
    if !docs.is_empty() {
        let hits = l.search("Authorised Person", &SearchOptions::default()).unwrap();
        assert!(
            hits.iter().all(|h| docs.iter().any(|(d, _)| d.id == h.doc_id)),
            "hits only from whole documents"
        );
    }
    let n = docs.len();
    drop(l);
    if drop_every > 0 {
        let mut l = lib.open();
        for (d, _) in docs.iter().step_by(drop_every) {
            l.remove(&d.id.to_string()).unwrap();
        }
    }
    (n, repaired)
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn killed_ingests_leave_a_consistent_library() {
    let dir = tempfile::tempdir().unwrap();
    killed_ingests(At::Folder(dir.path()));
}

#[test]
#[ignore = "needs ../shared, .assets and PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn killed_ingests_leave_a_consistent_team_library() {
    let db = folio_postgres::testing::TestDatabase::create();
    let caches = tempfile::tempdir().unwrap();
    killed_ingests(At::Team(db.url(), caches.path()));
}

fn killed_ingests(lib: At<'_>) {
    let docs = folio_testkit::paths::require_shared("data/obliqa/documents");
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    // Pseudo-random kill times (a fixed LCG, so a failure can be replayed), from 0.3 s up to a
    // ceiling that starts at 12 s and drops below the time of any ingest that finished first.
    let mut x: u64 = 0x5EED_F011;
    let mut ceiling_ms: u64 = 12_000;
    let (mut kills, mut round) = (0, 0);
    while kills < 20 {
        round += 1;
        assert!(round <= 60, "only {kills} of 60 ingests could be killed before they finished");
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let after = Duration::from_millis(300 + (x >> 33) % (ceiling_ms - 300));
        let mut child = ingest(lib, &docs).spawn().unwrap();
        let start = Instant::now();
        let finished = loop {
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            if start.elapsed() >= after {
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                break false;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if finished {
            ceiling_ms = (start.elapsed().as_millis() as u64 * 9 / 10).max(400);
        } else {
            kills += 1;
        }
        let (n, repaired) = check(lib, 3);
        let line = format!(
            "round {round:2}: {} after {:5} ms; opens with {n:2} whole documents, {repaired} rolled back",
            if finished { "finished" } else { "killed" },
            start.elapsed().as_millis()
        );
        println!("{line}");
    }
    println!("{kills} ingests killed in {round} rounds");
    let status = ingest(lib, &docs).status().unwrap();
    assert!(status.success());
    let (n, _) = check(lib, 0);
    println!("after a final ingest: {n} documents");
    assert_eq!(n, 40, "a re-ingest completes the library");
}
