//! Acceptance: defined terms and cross-references on real documents.
//!
//! - ADGM glossary (GLO): recall of the terms of its "Defined Terms / Definitions" tables, counted
//!   from the raw text independently of the converter (each table row whose first cell is non-empty and
//!   not a "(a)" continuation).
//! - USLM public laws: recall of the `<term>` elements, and of the body-text `<ref>` elements by the
//!   reference scanner (refs in side notes and metadata are not body text and are not counted).
//!
//! Needs `../shared/data`; each test skips with a message when it is absent.

use folio_convert::{convert_file, ConvertOptions};
use folio_core::analysis::analyze;
use folio_core::chunker::ChunkerConfig;
use folio_core::definitions::normalise_term;
use folio_core::tokens::WordCounter;
use quick_xml::events::Event;
use quick_xml::Reader;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    folio_testkit::paths::require_shared("data")
}

/// Fails the test, saying what is missing, when `p` does not exist.
fn present(p: &Path) -> bool {
    assert!(p.exists(), "{} is missing from the shared test data", p.display());
    true
}

fn detected_keys(path: &Path) -> BTreeSet<String> {
    let doc = convert_file(path, &ConvertOptions::default()).expect("converts");
    let a = analyze(doc, &WordCounter, &ChunkerConfig::default());
    a.definitions.into_iter().map(|d| d.key).collect()
}

fn report(name: &str, truth: &BTreeSet<String>, found: &BTreeSet<String>) -> f64 {
    let hit = truth.iter().filter(|t| found.contains(*t)).count();
    let recall = hit as f64 / truth.len().max(1) as f64;
    let missed: Vec<&String> = truth.iter().filter(|t| !found.contains(*t)).take(15).collect();
    let extra = found.iter().filter(|f| !truth.contains(*f)).count();
    eprintln!(
        "{name}: {} defined terms, {hit} found, recall {recall:.3}; {} detected in all ({extra} not in the reference list); missed e.g. {missed:?}",
        truth.len(),
        found.len()
    );
    recall
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn glossary_rulebook_terms() {
    let path = shared().join("obliqa/documents/GLO_VER19.181223.txt");
    if !present(&path) {
        return;
    }
    let raw = std::fs::read_to_string(&path).unwrap();
    let mut truth = BTreeSet::new();
    let (mut in_table, mut header_seen) = (false, false);
    for line in raw.lines() {
        let t = line.trim().trim_start_matches(['/', '\\']).to_ascii_lowercase();
        if t == "table start" {
            in_table = true;
            header_seen = false;
            continue;
        }
        if t == "table end" {
            in_table = false;
            continue;
        }
        if !in_table {
            continue;
        }
        if !header_seen {
            header_seen = true;
            continue;
        }
        if let Some((first, _)) = line.split_once('\t') {
            let first = first.trim();
            if !first.is_empty() && !first.starts_with('(') {
                truth.insert(normalise_term(first));
            }
        }
    }
    assert!(truth.len() > 700, "reference list looks wrong: {}", truth.len());
    let found = detected_keys(&path);
    let recall = report("GLO", &truth, &found);
    assert!(recall >= 0.95, "GLO definition recall {recall:.3}");
}

/// The text of an XML file with the byte ranges (in that text) of the elements named `want`, outside
/// the elements named in `skip`; tags are removed and elements are separated by spaces.
fn xml_text(path: &Path, want: &str, skip: &[&str]) -> (String, Vec<(usize, usize)>) {
    let mut reader = Reader::from_file(path).expect("opens");
    let mut buf = Vec::new();
    let mut text = String::new();
    let mut ranges = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut skipping = 0usize;
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                if skip.contains(&name.as_str()) || skipping > 0 {
                    skipping += 1;
                } else if name == want {
                    open.push(text.len());
                } else if !text.ends_with(' ') {
                    text.push(' ');
                }
            }
            Event::End(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                if skipping > 0 {
                    skipping -= 1;
                } else if name == want {
                    if let Some(s) = open.pop() {
                        ranges.push((s, text.len()));
                    }
                }
            }
            Event::Text(t) if skipping == 0 => {
                let s = t.unescape().map(|c| c.into_owned()).unwrap_or_default();
                text.push_str(&s.split_whitespace().collect::<Vec<_>>().join(" "));
                if s.ends_with(char::is_whitespace) {
                    text.push(' ');
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    (text, ranges)
}

const LAWS: [&str; 2] = ["uslm/113publ121-uslm.xml", "uslm/114publ190-uslm.xml"];

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn public_law_terms() {
    let mut truth_all = 0;
    let mut hit_all = 0;
    for law in LAWS {
        let path = shared().join(law);
        if !present(&path) {
            return;
        }
        let (text, terms) = xml_text(&path, "term", &["meta"]);
        let truth: BTreeSet<String> = terms.iter().map(|&(s, e)| normalise_term(&text[s..e])).collect();
        let found = detected_keys(&path);
        report(law, &truth, &found);
        truth_all += truth.len();
        hit_all += truth.iter().filter(|t| found.contains(*t)).count();
    }
    let recall = hit_all as f64 / truth_all as f64;
    eprintln!("public laws: {truth_all} distinct terms, recall {recall:.3}");
    assert!(recall >= 0.95, "public-law definition recall {recall:.3}");
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn public_law_references() {
    let (mut total, mut found) = (0usize, 0usize);
    for law in LAWS {
        let path = shared().join(law);
        if !present(&path) {
            return;
        }
        let (text, refs) = xml_text(&path, "ref", &["meta", "sidenote"]);
        let scanned = folio_core::crossref::scan(&text);
        let mut missed = Vec::new();
        let mut hit = 0;
        for &(s, e) in &refs {
            if scanned.iter().any(|r| r.start < e && s < r.end) {
                hit += 1;
            } else if missed.len() < 12 {
                missed.push(text[s..e].to_string());
            }
        }
        eprintln!("{law}: {} body <ref>s, {hit} found by the scanner; missed e.g. {missed:?}", refs.len());
        total += refs.len();
        found += hit;
    }
    let recall = found as f64 / total as f64;
    eprintln!("public laws: {total} body references, recall {recall:.3}");
    assert!(recall >= 0.90, "reference recall {recall:.3}");
}
