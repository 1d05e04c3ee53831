//! `folio parse` shows the chunks a library indexes: the same chunker settings (the library's, by
//! default) cut a filing into as many chunks, table chunks with their column headers alike.

use std::path::Path;
use std::process::{Command, Output};

fn folio(lib: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .args(args)
        .output()
        .unwrap()
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn parse_cuts_a_filing_as_the_library_does() {
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    folio_testkit::paths::require_pdfium();
    let filing = folio_testkit::paths::require_shared("data/filings/APPLE_2022_10K.pdf");
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");

    let parsed = folio(&lib, &["parse", "--json", filing.to_str().unwrap()]);
    assert!(parsed.status.success(), "{}", String::from_utf8_lossy(&parsed.stderr));
    let json: serde_json::Value = serde_json::from_slice(&parsed.stdout).unwrap();
    let chunks = json["chunks"].as_array().unwrap();
    assert_eq!(json["chunker"]["max_tokens"], folio_engine::DEFAULT_CHUNK_TOKENS, "{}", json["chunker"]);
    assert!(json["document"]["outline_evidence"].as_str().is_some_and(|e| e.contains("bookmarks")));

    let ingested = folio(&lib, &["ingest", filing.to_str().unwrap()]);
    let out =
        String::from_utf8_lossy(&ingested.stdout).to_string() + &String::from_utf8_lossy(&ingested.stderr);
    assert!(ingested.status.success(), "{out}");
    let want = format!("{} chunks in", chunks.len());
    assert!(out.contains(&want), "parse cut {} chunks; the library: {out}", chunks.len());

    // A statement's table chunk, as parse shows it, is a chunk of the library, column headers and
    // all: the library returns the same text for a search of it.
    let table = chunks
        .iter()
        .find(|c| {
            c["chunk_type"] == "table" && c["text"].as_str().is_some_and(|t| t.contains("Total assets"))
        })
        .expect("a balance sheet chunk");
    let text = table["text"].as_str().unwrap();
    let query: String = text.split_whitespace().take(30).collect::<Vec<_>>().join(" ");
    let found = folio(&lib, &["search", "--json", "--limit", "20", &query]);
    assert!(found.status.success(), "{}", String::from_utf8_lossy(&found.stderr));
    let hits: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert!(
        hits.as_array().unwrap().iter().any(|h| h["content"].as_str() == Some(text)),
        "no chunk of the library is the table chunk parse shows: {text}"
    );
}
