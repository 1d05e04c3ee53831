//! What only a team library has: roles that may only read, a password that must not be written
//! anywhere, a server out of reach or refusing the login, and two computers adding the same file.
//! Against the test PostgreSQL (`scripts/postgres.sh start`; `FOLIO_TEST_POSTGRES`).

use folio_core::cancel::Cancel;
use folio_engine::{ErrorCode, Library, LibraryOptions, SearchOptions, TeamAddress, TeamLocation};
use folio_postgres::testing::TestDatabase;
use folio_testkit::embedder::HashingEmbedder;
use folio_testkit::files::files_containing;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn location(url: &str, password: Option<&str>, cache: &Path, computer: &str) -> TeamLocation {
    let address = TeamAddress::parse(url).unwrap();
    let address = match password {
        Some(p) => address.with_password(p),
        None => address,
    };
    TeamLocation {
        address,
        cache: cache.to_path_buf(),
        computer: computer.into(),
        keywords: Default::default(),
    }
}

fn open(team: &TeamLocation) -> Result<Library, folio_engine::EngineError> {
    Library::open_team(team, Arc::new(HashingEmbedder::default()), LibraryOptions::default())
}

fn rulebook(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(folio_testkit::paths::repo_root().join("tests/fixtures/rulebook.txt"))
        .unwrap();
    let p = dir.join(name);
    std::fs::write(&p, format!("{text}\n{extra}\n")).unwrap();
    p
}

#[test]
#[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn a_role_that_may_only_read_searches_and_is_refused_writes() {
    let db = TestDatabase::create();
    let docs = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut writer = open(&location(db.url(), None, &cache.path().join("w"), "writer")).unwrap();
    let report = writer.ingest(&[rulebook(docs.path(), "rules.txt", "")], &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), 1, "{report:?}");

    const PASSWORD: &str = "pw-only-in-the-keychain-7c1e";
    let reader_url = db.reader_role(PASSWORD);
    let mut reader = open(&location(&reader_url, Some(PASSWORD), &cache.path().join("r"), "reader")).unwrap();
    let hits = reader.search("Mooring Fee", &SearchOptions::default()).unwrap();
    assert!(
        hits.iter().take(3).any(|h| h.content.contains("Mooring Fee")),
        "the reader searches: {:?}",
        hits.first()
    );
    assert!(!reader.outline("rules").unwrap().1.is_empty(), "and reads the outline");

    let more =
        reader.ingest(&[rulebook(docs.path(), "more.txt", "Another copy.")], &mut |_| {}, &Cancel::new());
    assert_eq!((more.failed.len(), more.indexed.len()), (1, 0), "refused once, before any work: {more:?}");
    assert_eq!(more.failed[0].code, ErrorCode::ReadOnly, "{more:?}");
    assert!(more.failed[0].message.contains("read-only for you"), "{:?}", more.failed[0].message);
    let removed = reader.remove("rules").unwrap_err();
    assert_eq!(removed.code(), ErrorCode::ReadOnly, "{removed}");
    assert_eq!(writer.documents().unwrap().len(), 1, "nothing was removed");

    // The password is in no file the library or its cache wrote.
    drop(reader);
    assert!(
        files_containing(cache.path(), PASSWORD.as_bytes()).is_empty(),
        "the password was written to a file"
    );

    let wrong =
        open(&location(&reader_url, Some("not-the-password"), &cache.path().join("x"), "x")).err().unwrap();
    assert_eq!(wrong.code(), ErrorCode::LoginRefused, "{wrong}");
    assert!(!wrong.to_string().contains("not-the-password"), "{wrong}");
}

#[test]
#[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn a_server_out_of_reach_says_so() {
    // A port nothing listens on (the test server's own, plus one that no test uses).
    let cache = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let e = open(&location("postgres://folio@127.0.0.1:1/folio?connect_timeout=2", None, cache.path(), "c"))
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::Unreachable, "{e}");
    assert!(e.to_string().contains("cannot be reached"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
}

#[test]
#[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn the_same_file_from_two_computers_is_one_document() {
    let db = TestDatabase::create();
    let (a_docs, b_docs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let cache = tempfile::tempdir().unwrap();
    let mut a = open(&location(db.url(), None, &cache.path().join("a"), "a")).unwrap();
    let mut b = open(&location(db.url(), None, &cache.path().join("b"), "b")).unwrap();
    let ra = a.ingest(&[rulebook(a_docs.path(), "rules.txt", "")], &mut |_| {}, &Cancel::new());
    let rb = b.ingest(&[rulebook(b_docs.path(), "Rules (copy).txt", "")], &mut |_| {}, &Cancel::new());
    assert_eq!((ra.indexed.len(), rb.indexed.len(), rb.unchanged.len()), (1, 0, 1), "{ra:?} {rb:?}");
    assert_eq!(b.documents().unwrap().len(), 1);
    // b's keyword cache caught up with a's document.
    b.refresh().unwrap();
    let hits = b.search("Mooring Fee", &SearchOptions::default()).unwrap();
    assert!(hits.iter().any(|h| h.keyword.is_some()), "b's keyword cache finds a's document: {hits:?}");
    // a removes it: b follows.
    a.remove("rules").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert!(b.is_stale());
    b.refresh().unwrap();
    assert!(b.documents().unwrap().is_empty());
    assert!(b.search("Mooring Fee", &SearchOptions::default()).unwrap().is_empty());
}
