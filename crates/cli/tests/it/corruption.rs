//! Damaged stores: a truncated tantivy segment, a deleted LanceDB data file, a corrupt SQLite page.
//! Each is detected with a clear message naming the store and the remedy; `folio repair` rebuilds
//! the derived indexes (keyword, vectors) from the catalog, or a damaged catalog from the chunk
//! records in the vector store, after which the library answers as before.
//! Skips when `.assets` lacks potion-base-2M or MiniLM's vocabulary.

use folio_testkit::files::files_under;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn folio(lib: &Path, args: &[&str]) -> Output {
    folio_with(lib, "fast", args)
}

fn folio_with(lib: &Path, model: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", model, "--library"])
        .arg(lib)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

fn require_models() {
    for a in ["potion-base-2M/model.safetensors", "minilm/vocab.txt"] {
        folio_testkit::paths::require_asset(a);
    }
}

fn fresh_library() -> (tempfile::TempDir, PathBuf) {
    require_models();
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    let o = folio(&lib, &["ingest", root().join("tests/fixtures").to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let o = folio(&lib, &["search", "lockers"]);
    assert!(o.status.success() && text(&o).contains("locker"), "{}", text(&o));
    (tmp, lib)
}

/// `folio repair` succeeds, embedding again what `embedded` says (`"0"`: nothing; `"all"`: every
/// chunk), and search answers.
fn repaired_and_searchable(lib: &Path, embedded: &str) {
    let o = folio(lib, &["repair"]);
    let t = text(&o);
    assert!(o.status.success(), "repair: {t}");
    assert!(t.contains("re-indexed from the catalog"), "{t}");
    let line = t.lines().find(|l| l.starts_with("repaired")).unwrap_or_default();
    // "… D documents, C chunks re-indexed from the catalog (E embedded again)"
    let number_before = |marker: &str| -> usize {
        let head = line.split(marker).next().unwrap_or_default();
        head.rsplit([' ', '('])
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{marker}? {line}"))
    };
    let (chunks, again) = (number_before(" chunks re-indexed"), number_before(" embedded again"));
    assert!(chunks > 0, "{line}");
    match embedded {
        "0" => assert_eq!(again, 0, "nothing embedded again: {line}"),
        _ => assert_eq!(again, chunks, "every chunk embedded again: {line}"),
    }
    println!("repair → {line}");
    let o = folio(lib, &["search", "lockers"]);
    assert!(o.status.success() && text(&o).contains("locker"), "after repair: {}", text(&o));
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn truncated_keyword_segment() {
    let (_tmp, lib) = fresh_library();
    let segments =
        files_under(&lib.join("keyword"), &|p| p.extension().is_some_and(|e| e == "idx" || e == "term"));
    assert!(!segments.is_empty());
    for s in &segments {
        let f = std::fs::OpenOptions::new().write(true).open(s).unwrap();
        f.set_len(3).unwrap();
    }
    let o = folio(&lib, &["search", "lockers"]);
    let t = text(&o);
    assert!(!o.status.success(), "a damaged keyword index is not used silently: {t}");
    assert!(t.contains("damaged") || t.contains("corrupt") || t.contains("keyword"), "a clear message: {t}");
    println!("truncated tantivy segment → {}", t.lines().last().unwrap_or(""));
    // The vectors are sound: nothing is embedded again.
    repaired_and_searchable(&lib, "0");
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn deleted_lance_fragment() {
    let (_tmp, lib) = fresh_library();
    let data = files_under(&lib.join("vectors"), &|p| {
        p.extension().is_some_and(|e| e == "lance") && p.to_string_lossy().contains("/data/")
    });
    assert!(!data.is_empty(), "LanceDB data files exist");
    for d in &data {
        std::fs::remove_file(d).unwrap();
    }
    let o = folio(&lib, &["search", "lockers"]);
    let t = text(&o);
    assert!(!o.status.success(), "a damaged vector store is not used silently: {t}");
    assert!(t.contains("vector store") && t.contains("folio repair"), "a clear message: {t}");
    println!("deleted LanceDB fragment → {}", t.lines().last().unwrap_or(""));
    repaired_and_searchable(&lib, "all");
}

/// Answers of a library that a rebuilt catalog must give again.
fn answers(lib: &Path) -> Vec<String> {
    let run = |args: &[&str]| {
        let o = folio(lib, args);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    vec![
        run(&["docs"]),
        run(&["search", "lockers", "--json"]),
        run(&["search", "Mooring Fee payable", "--json"]),
        run(&["define", "Authorised Person"]),
        run(&["define", "Vessel Operator"]),
        run(&["outline", "rulebook.txt"]),
        run(&["outline", "sample.md"]),
        run(&["refs", "3.1.2"]),
    ]
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn corrupt_catalog_page() {
    require_models();
    // A library over copies of the fixtures, so that one source file can go missing.
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for f in ["rulebook.txt", "sample.md"] {
        std::fs::copy(root().join("tests/fixtures").join(f), docs.join(f)).unwrap();
    }
    let lib = tmp.path().join("library");
    let o = folio(&lib, &["ingest", docs.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let o = folio(&lib, &["watch", "add", docs.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let before = answers(&lib);

    let db = lib.join("catalog.sqlite");
    // Fold the WAL in first, so the damage is in the main file.
    let fold = || {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.pragma_update(None, "wal_checkpoint", "TRUNCATE").unwrap();
    };
    fold();
    let damage = |db: &Path| {
        let mut bytes = std::fs::read(db).unwrap();
        let page = 4096;
        assert!(bytes.len() > 3 * page, "{}", bytes.len());
        for b in &mut bytes[page + 100..2 * page] {
            *b = 0xA5;
        }
        std::fs::write(db, &bytes).unwrap();
        let _ = std::fs::remove_file(db.with_extension("sqlite-wal"));
        let _ = std::fs::remove_file(db.with_extension("sqlite-shm"));
    };
    damage(&db);
    // Detected with a clear message that names the remedy.
    let o = folio(&lib, &["search", "lockers"]);
    let t = text(&o);
    assert!(!o.status.success(), "a damaged catalog answers: {t}");
    assert!(
        t.contains("catalog") && t.contains("damaged") && t.contains("folio repair"),
        "a clear message: {t}"
    );
    println!("corrupt SQLite page → {}", t.lines().last().unwrap_or(""));

    // A repair with another model than the library's finds no records of its own: it says so and
    // leaves the store as it was.
    if folio_testkit::paths::assets_dir().join("minilm/model.safetensors").is_file() {
        let o = folio_with(&lib, "minilm", &["repair"]);
        let t = text(&o);
        assert!(!o.status.success() && t.contains("no records for all-MiniLM-L6-v2"), "{t}");
        assert!(t.contains("potion"), "names the model it holds: {t}");
        assert!(lib.join("vectors").is_dir() && !lib.join("vectors.repairing").exists());
    }

    // Repaired from the chunk records: every answer as before, no file re-embedded.
    let o = folio(&lib, &["repair"]);
    let t = text(&o);
    assert!(o.status.success(), "repair: {t}");
    assert!(t.contains("rebuilt from the chunk records") && t.contains("2 documents"), "{t}");
    assert!(t.contains("2 with their source file's outline"), "{t}");
    println!("repair → {}", t.lines().find(|l| l.starts_with("repaired")).unwrap_or(""));
    let after = answers(&lib);
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(strip_ids(b), strip_ids(a), "the same answer after the rebuild");
    }
    let o = folio(&lib, &["watch", "list"]);
    assert!(text(&o).contains(docs.to_str().unwrap()), "watched folders survive: {}", text(&o));
    assert!(std::fs::read_dir(&lib).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("catalog.damaged-")));

    // Again, with a source file gone: that document comes back from its records alone.
    fold();
    damage(&db);
    std::fs::remove_file(docs.join("sample.md")).unwrap();
    let o = folio(&lib, &["repair"]);
    let t = text(&o);
    assert!(o.status.success(), "repair: {t}");
    assert!(
        t.contains("1 with their source file's outline, 1 from the records alone") && t.contains("sample.md"),
        "{t}"
    );
    let o = folio(&lib, &["search", "lockers"]);
    assert!(o.status.success() && text(&o).contains("locker"), "after repair: {}", text(&o));
    let o = folio(&lib, &["define", "Authorised Person"]);
    assert!(o.status.success() && text(&o).contains("handling course"), "{}", text(&o));
    let o = folio(&lib, &["outline", "sample.md"]);
    assert!(o.status.success() && text(&o).contains("1.2 Scope"), "{}", text(&o));

    // A rebuild cut short after it set the records aside (as a kill would leave it) runs again
    // from there.
    fold();
    damage(&db);
    std::fs::rename(lib.join("vectors"), lib.join("vectors.repairing")).unwrap();
    let o = folio(&lib, &["repair"]);
    assert!(o.status.success() && text(&o).contains("rebuilt from the chunk records"), "{}", text(&o));
    assert!(!lib.join("vectors.repairing").exists() && lib.join("vectors").is_dir());
    let o = folio(&lib, &["search", "Mooring Fee payable"]);
    assert!(
        o.status.success() && text(&o).contains("Harbour Master"),
        "after the resumed repair: {}",
        text(&o)
    );
}

/// An answer without the ids a rebuild renumbers (documents, chunks).
fn strip_ids(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('#');
            }
            digits = true;
        } else {
            digits = false;
            out.push(c);
        }
    }
    out
}
