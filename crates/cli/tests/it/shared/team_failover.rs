//! Failover of a team library: a primary and two streaming replicas on loopback (a cluster of the
//! test's own, `scripts/postgres.sh start 2` in a folder and on ports of its own). A library on
//! all three hosts is searched 10 times a second for 60 s while `folio ingest` adds the 40 ObliQA
//! rulebooks; the primary is killed during the ingest and the first replica promoted. Searches go
//! on answering (the errors and the longest gap between answers are printed), the ingest goes on
//! against the new primary, and no document it reported indexed is lost.

use folio_engine::{Library, SearchOptions, TeamAddress, TeamLocation};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A cluster of the test's own, stopped when dropped.
struct Cluster {
    dir: PathBuf,
    port: u16,
}

impl Cluster {
    fn script(&self, args: &[&str]) -> std::process::Output {
        Command::new(folio_testkit::paths::repo_root().join("scripts/postgres.sh"))
            .args(args)
            .env("FOLIO_PG_DIR", &self.dir)
            .env("FOLIO_PG_PORT", self.port.to_string())
            .output()
            .unwrap()
    }

    fn start(dir: PathBuf, port: u16) -> Cluster {
        let c = Cluster { dir, port };
        let out = c.script(&["start", "2"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        c
    }

    fn url(&self) -> String {
        let p = self.port;
        format!(
            "postgres://postgres@127.0.0.1:{p},127.0.0.1:{},127.0.0.1:{}/folio?connect_timeout=2",
            p + 1,
            p + 2
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let out = self.script(&["stop"]);
        if !out.status.success() {
            eprintln!("the failover cluster did not stop: {}", String::from_utf8_lossy(&out.stderr));
        }
        // Its data is the test's own (the servers ran as another user when this one is root).
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            eprintln!("{} was not removed: {e}", self.dir.display());
        }
    }
}

fn open(url: &str, cache: &Path) -> Library {
    let (embedder, options) = folio_testkit::library::fast_model();
    let team = TeamLocation {
        address: TeamAddress::parse(url).unwrap(),
        cache: cache.to_path_buf(),
        computer: "searcher".into(),
        keywords: Default::default(),
    };
    Library::open_team(&team, embedder, options).unwrap()
}

#[test]
#[ignore = "needs ../shared, .assets and the PostgreSQL binaries (scripts/postgres.sh); scripts/test.sh runs it"]
fn searches_and_an_ingest_go_on_when_the_primary_fails() {
    let docs = folio_testkit::paths::require_shared("data/obliqa/documents");
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    // Outside the user's home (the servers may run as another user), on ports no other test uses.
    let cluster =
        Cluster::start(PathBuf::from(format!("/tmp/folio-failover-{}", std::process::id())), 56_430);
    let url = cluster.url();
    let caches = tempfile::tempdir().unwrap();
    // The schema, and a first document, before the searches start.
    let first = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["--model", "fast", "--library", &url, "ingest"])
        .arg(docs.join("GEN_VER08.181223.txt"))
        .env("XDG_CACHE_HOME", caches.path().join("writer"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));

    let stop = AtomicBool::new(false);
    let (searches, errors, longest_gap, ingest) = std::thread::scope(|s| {
        let searcher = s.spawn(|| {
            let lib = std::sync::RwLock::new(open(&url, &caches.path().join("searcher")));
            let (mut n, mut errors) = (0usize, Vec::new());
            let (mut last_ok, mut longest) = (Instant::now(), Duration::ZERO);
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(60) {
                let t = Instant::now();
                match lib.read().unwrap().search("Authorised Person", &SearchOptions::default()) {
                    Ok(_) => {
                        longest = longest.max(last_ok.elapsed());
                        last_ok = Instant::now();
                        n += 1;
                    }
                    Err(e) => errors.push(e.to_string()),
                }
                std::thread::sleep(Duration::from_millis(100).saturating_sub(t.elapsed()));
            }
            stop.store(true, Ordering::SeqCst);
            (n, errors, longest)
        });
        let ingest = Command::new(env!("CARGO_BIN_EXE_folio"))
            .args(["--model", "fast", "--library", &url, "ingest"])
            .arg(&docs)
            .env("XDG_CACHE_HOME", caches.path().join("writer"))
            .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(6));
        let killed = cluster.script(&["kill-primary"]);
        assert!(killed.status.success(), "{}", String::from_utf8_lossy(&killed.stderr));
        let failed_at = Instant::now();
        std::thread::sleep(Duration::from_secs(2));
        let promoted = cluster.script(&["promote", "1"]);
        assert!(promoted.status.success(), "{}", String::from_utf8_lossy(&promoted.stderr));
        eprintln!("primary killed; replica 1 promoted {:.1} s later", failed_at.elapsed().as_secs_f64());
        let ingest = ingest.wait_with_output().unwrap();
        let (n, errors, longest) = searcher.join().unwrap();
        (n, errors, longest, ingest)
    });
    eprintln!(
        "{searches} searches answered in 60 s, {} failed, longest gap between answers {:.2} s",
        errors.len(),
        longest_gap.as_secs_f64()
    );
    let out = String::from_utf8_lossy(&ingest.stdout).into_owned() + &String::from_utf8_lossy(&ingest.stderr);
    assert!(ingest.status.success(), "the ingest went on against the new primary: {out}");
    assert!(errors.is_empty(), "searches failed: {errors:?}");
    // Every document the ingest reported is in the library on the new primary.
    let lib = open(&url, &caches.path().join("after"));
    let docs_now = lib.documents().unwrap();
    assert_eq!(docs_now.len(), 40, "{:?}", docs_now.iter().map(|d| &d.label).collect::<Vec<_>>());
    assert!(docs_now.iter().all(|d| d.status == folio_engine::DocumentStatus::Indexed));
}
