//! Watched folders: files added, modified, renamed and deleted while the watcher runs reach the
//! library within 2 s of the last change; temporary and lock files never do; changes made while
//! the library was closed are found by the rescan on start; a file that failed is not tried again
//! until it changes. Prints each latency. Embedded with the test kit's hashing embedder (no model
//! files), on each provider (a folder library; a team library, whose watched folders are kept per
//! computer on the server).

use folio_engine::{FolderWatcher, Library, LibraryOptions, SyncReport};
use folio_testkit::embedder::HashingEmbedder;
use folio_testkit::library::{Provider, TestLibrary};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(2);

fn rules(title: &str, word: &str) -> String {
    format!(
        "# 1 {title}\n\n1.1 These rules apply to every Authorised Person that deals in {word}.\n\n\
         # 2 Conduct\n\n2.1 An Authorised Person must act with integrity when it handles {word}.\n"
    )
}

struct Running {
    lib: Arc<RwLock<Library>>,
    watcher: Option<FolderWatcher>,
    reports: Receiver<SyncReport>,
}

fn start(test: &TestLibrary, embedder: Arc<HashingEmbedder>) -> Running {
    let lib = Arc::new(RwLock::new(test.open(embedder, LibraryOptions::default()).unwrap()));
    let (tx, reports) = channel();
    let watcher = FolderWatcher::start(lib.clone(), Arc::new(Mutex::new(())), move |r| {
        let _ = tx.send(r);
    })
    .unwrap();
    Running { lib, watcher: Some(watcher), reports }
}

/// File names of the indexed documents, with their content hashes.
fn state(lib: &RwLock<Library>) -> BTreeSet<(String, String)> {
    lib.read()
        .unwrap()
        .documents()
        .unwrap()
        .into_iter()
        .filter(|d| d.status == folio_engine::DocumentStatus::Indexed)
        .map(|d| (Path::new(&d.path).file_name().unwrap().to_string_lossy().into_owned(), d.content_hash))
        .collect()
}

fn names(lib: &RwLock<Library>) -> BTreeSet<String> {
    state(lib).into_iter().map(|(n, _)| n).collect()
}

/// Waits until `ok` holds; returns the time it took from `since`.
fn until(what: &str, since: Instant, mut ok: impl FnMut() -> bool) -> Duration {
    loop {
        if ok() {
            let t = since.elapsed();
            println!("{what}: {} ms", t.as_millis());
            assert!(t <= LIMIT, "{what} took {t:?}");
            return t;
        }
        assert!(since.elapsed() < Duration::from_secs(20), "{what}: never happened");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

folio_testkit::on_each_provider!(the_library_follows_a_watched_folder);

fn the_library_follows_a_watched_folder(provider: Provider) {
    // The hashing embedder: the folder watcher's plumbing needs no model files.
    let embedder = Arc::new(HashingEmbedder::default());
    let test = TestLibrary::new(provider);
    let folder = tempfile::tempdir().unwrap();
    let f = |n: &str| folder.path().join(n);
    std::fs::write(f("a.md"), rules("Scope", "apples")).unwrap();
    std::fs::write(f("b.md"), rules("Banking", "bonds")).unwrap();
    std::fs::create_dir(f("sub")).unwrap();
    std::fs::write(f("sub/s.txt"), rules("Securities", "shares")).unwrap();
    std::fs::write(f("empty.md"), "").unwrap();

    let run = start(&test, embedder.clone());
    run.lib.write().unwrap().add_watched_folder(folder.path()).unwrap();
    run.watcher.as_ref().unwrap().watch(folder.path().to_path_buf());
    let t = Instant::now();
    until("first pass over a newly watched folder", t, || names(&run.lib) == set(&["a.md", "b.md", "s.txt"]));
    let failures = run.lib.read().unwrap().failures().unwrap();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].path.ends_with("empty.md") && failures[0].code == folio_engine::ErrorCode::Empty,
        "{failures:?}"
    );

    // Added.
    let t = Instant::now();
    std::fs::write(f("c.md"), rules("Custody", "cash")).unwrap();
    until("added c.md", t, || names(&run.lib).contains("c.md"));

    // Modified.
    let before = state(&run.lib);
    let t = Instant::now();
    std::fs::write(f("a.md"), rules("Scope", "avocados")).unwrap();
    until("modified a.md", t, || {
        let now = state(&run.lib);
        now.iter().any(|(n, _)| n == "a.md") && now != before
    });

    // Renamed (same content: the document follows the file).
    let t = Instant::now();
    std::fs::rename(f("b.md"), f("b-renamed.md")).unwrap();
    until("renamed b.md", t, || names(&run.lib) == set(&["a.md", "b-renamed.md", "c.md", "s.txt"]));

    // Deleted, in a subfolder.
    let t = Instant::now();
    std::fs::remove_file(f("sub/s.txt")).unwrap();
    until("deleted sub/s.txt", t, || !names(&run.lib).contains("s.txt"));

    // A burst of saves, with an editor's temporary and lock files among them: one state at the end.
    let t0 = Instant::now();
    for i in 0..5 {
        std::fs::write(f(&format!("burst{i}.md")), rules("Burst", &format!("item{i}"))).unwrap();
        std::fs::write(f(&format!(".~lock.burst{i}.md#")), "lock").unwrap();
        std::fs::write(f(&format!("~$burst{i}.docx")), "owner").unwrap();
        std::fs::write(f(&format!("burst{i}.md.swp")), "swap").unwrap();
        std::fs::write(f(&format!("download{i}.pdf.part")), "partial").unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    let last = Instant::now();
    until("burst of 5 files (from the last write)", last, || {
        (0..5).all(|i| names(&run.lib).contains(&format!("burst{i}.md")))
    });
    println!("burst: {} ms from the first write", t0.elapsed().as_millis());
    // The failed file is not tried again while it is unchanged; fixing it indexes it.
    let t = Instant::now();
    std::fs::write(f("empty.md"), rules("Empty no more", "eggs")).unwrap();
    until("fixed empty.md", t, || {
        names(&run.lib).contains("empty.md") && run.lib.read().unwrap().failures().unwrap().is_empty()
    });
    let expected = set(&[
        "a.md",
        "b-renamed.md",
        "c.md",
        "empty.md",
        "burst0.md",
        "burst1.md",
        "burst2.md",
        "burst3.md",
        "burst4.md",
    ]);
    assert_eq!(names(&run.lib), expected, "no temporary or lock file was indexed");
    let reports: Vec<SyncReport> = run.reports.try_iter().collect();
    assert!(reports.iter().any(|r| r.removed.iter().any(|p| p.ends_with("b.md"))), "{reports:?}");

    // Closed; files change meanwhile.
    let Running { lib, mut watcher, .. } = run;
    watcher.take();
    drop(lib);
    std::fs::write(f("d.md"), rules("Derivatives", "dates")).unwrap();
    std::fs::write(f("c.md"), rules("Custody", "coins")).unwrap();
    std::fs::remove_file(f("burst0.md")).unwrap();
    std::fs::rename(f("burst1.md"), f("sub/burst1-moved.md")).unwrap();
    std::fs::write(f("broken.pdf"), "not a pdf at all").unwrap();
    let c_before = {
        let l = test.open(embedder.clone(), LibraryOptions::default()).unwrap();
        let c = l.documents().unwrap().into_iter().find(|d| d.path.ends_with("/c.md")).unwrap();
        c.content_hash
    };

    let t = Instant::now();
    let run = start(&test, embedder.clone());
    let mut expected = expected;
    expected.remove("burst0.md");
    expected.remove("burst1.md");
    expected.insert("d.md".into());
    expected.insert("burst1-moved.md".into());
    until("rescan on start", t, || names(&run.lib) == expected);
    let c_now = state(&run.lib).into_iter().find(|(n, _)| n == "c.md").unwrap().1;
    assert_ne!(c_now, c_before, "c.md changed while closed and was indexed again");
    let failed = run.lib.read().unwrap().failures().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    let failed_at = failed[0].clone();
    assert!(failed_at.path.ends_with("broken.pdf"));

    // Restarted once more with nothing changed: nothing is read again, the failure is not retried.
    let Running { lib, mut watcher, .. } = run;
    watcher.take();
    drop(lib);
    std::thread::sleep(Duration::from_millis(1100));
    let run = start(&test, embedder);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(names(&run.lib), expected);
    assert_eq!(
        run.lib.read().unwrap().failures().unwrap(),
        vec![failed_at],
        "an unchanged failure is not retried"
    );
    assert!(run.reports.try_iter().next().is_none(), "an unchanged folder needs no pass");

    // The whole folder goes away (an unplugged drive): its documents stay.
    let away = folder.path().with_extension("away");
    std::fs::rename(folder.path(), &away).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(names(&run.lib), expected, "a vanished watched folder keeps its documents");
    std::fs::rename(&away, folder.path()).unwrap();
}

folio_testkit::on_each_provider!(a_folder_the_os_cannot_follow_says_why_and_is_followed_once_it_is_back);

/// A folder the OS refuses to follow (here: one that is gone when the watcher starts) shows why on
/// that folder, and is followed again once it is back: its files then reach the library.
fn a_folder_the_os_cannot_follow_says_why_and_is_followed_once_it_is_back(provider: Provider) {
    let embedder = Arc::new(HashingEmbedder::default());
    let test = TestLibrary::new(provider);
    let parent = tempfile::tempdir().unwrap();
    let folder = parent.path().join("on-a-drive");
    std::fs::create_dir(&folder).unwrap();
    {
        let mut lib = test.open(embedder.clone(), LibraryOptions::default()).unwrap();
        lib.add_watched_folder(&folder).unwrap();
    }
    // The drive is unplugged while Folio is closed.
    std::fs::remove_dir(&folder).unwrap();
    let run = start(&test, embedder);
    let watcher = run.watcher.as_ref().unwrap();
    let t = Instant::now();
    let why = loop {
        if let Some(why) = watcher.error(&folder) {
            break why;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "the refused watch was never reported");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(why.contains("not there"), "{why}");
    // Plugged in again, with a file: followed at the next retry (the watcher's own pace), and the
    // error is gone from the folder.
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("back.md"), rules("Back", "boats")).unwrap();
    let t = Instant::now();
    while watcher.error(&folder).is_some() || !names(&run.lib).contains("back.md") {
        assert!(
            t.elapsed() < folio_engine::WATCH_RETRY + Duration::from_secs(10),
            "the folder was not followed again: {:?}",
            watcher.error(&folder)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
