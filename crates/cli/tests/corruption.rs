//! Damaged stores: a truncated tantivy segment, a deleted LanceDB data file, a corrupt SQLite page.
//! Each is detected with a clear message naming the store and the remedy; `folio repair` rebuilds
//! the derived indexes (keyword, vectors) from the catalog, after which search answers again. A
//! damaged catalog cannot be rebuilt from the indexes, and `folio repair` says so.
//! Skips when `.assets` lacks potion-base-2M or MiniLM's vocabulary.

#[path = "../../ai/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::files_under;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn folio(lib: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", root().join(".assets"))
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

fn fresh_library() -> Option<(tempfile::TempDir, PathBuf)> {
    if !root().join(".assets/potion-base-2M/model.safetensors").is_file()
        || !root().join(".assets/minilm/vocab.txt").is_file()
    {
        eprintln!("SKIP: .assets/potion-base-2M or .assets/minilm is absent (run scripts/setup-assets.sh)");
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    let o = folio(&lib, &["ingest", root().join("tests/fixtures").to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let o = folio(&lib, &["search", "lockers"]);
    assert!(o.status.success() && text(&o).contains("locker"), "{}", text(&o));
    Some((tmp, lib))
}

fn repaired_and_searchable(lib: &Path) {
    let o = folio(lib, &["repair"]);
    assert!(o.status.success(), "repair: {}", text(&o));
    assert!(text(&o).contains("re-indexed from the catalog"), "{}", text(&o));
    let o = folio(lib, &["search", "lockers"]);
    assert!(o.status.success() && text(&o).contains("locker"), "after repair: {}", text(&o));
}

#[test]
fn truncated_keyword_segment() {
    let Some((_tmp, lib)) = fresh_library() else { return };
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
    repaired_and_searchable(&lib);
}

#[test]
fn deleted_lance_fragment() {
    let Some((_tmp, lib)) = fresh_library() else { return };
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
    repaired_and_searchable(&lib);
}

#[test]
fn corrupt_catalog_page() {
    let Some((_tmp, lib)) = fresh_library() else { return };
    let db = lib.join("catalog.sqlite");
    // Fold the WAL in first, so the damage is in the main file.
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    assert!(bytes.len() > 3 * page, "{}", bytes.len());
    for b in &mut bytes[page + 100..2 * page] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    let _ = std::fs::remove_file(lib.join("catalog.sqlite-wal"));
    let _ = std::fs::remove_file(lib.join("catalog.sqlite-shm"));
    let o = folio(&lib, &["repair"]);
    let t = text(&o);
    assert!(!o.status.success(), "repair cannot invent a catalog: {t}");
    assert!(
        t.contains("catalog") && (t.contains("damaged") || t.contains("malformed") || t.contains("corrupt")),
        "a clear message: {t}"
    );
    println!("corrupt SQLite page → {}", t.lines().last().unwrap_or(""));
}
