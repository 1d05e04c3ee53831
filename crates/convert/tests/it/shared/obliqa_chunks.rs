//! Acceptance: on all 40 ObliQA rulebooks, every non-empty gold passage lies inside one chunk (or a run
//! of consecutive chunks) whose section is the passage's own (`PassageID` → the section numbered so).
//! Needs `../shared/data/obliqa`; skips with a message when it is absent.

use folio_convert::{convert_file, ConvertOptions};
use folio_core::analysis::analyze;
use folio_core::chunker::ChunkerConfig;
use folio_core::tokens::{TokenCounter, WordPieceTokenizer};
use std::collections::HashMap;
use std::path::PathBuf;

fn shared() -> PathBuf {
    folio_testkit::paths::shared_dir()
}

fn counter() -> Box<dyn TokenCounter> {
    let vocab = folio_testkit::paths::require_asset("minilm/vocab.txt");
    let text = std::fs::read_to_string(&vocab).expect("the vocabulary reads");
    Box::new(WordPieceTokenizer::from_vocab_txt(&text).expect("the vocabulary parses"))
}

/// Text compared without whitespace and direction marks.
fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace() && !matches!(c, '\u{200e}' | '\u{200f}' | '\u{feff}')).collect()
}

fn norm_label(s: &str) -> String {
    s.trim().trim_end_matches('.').to_string()
}

/// A PassageID may prefix the printed label with its container ("APP1.A1.1" for "A1.1" in APP1):
/// the sections numbered by the rest that lie inside the section numbered by the prefix.
fn within_container(
    outline: &folio_core::outline::Outline,
    by_number: &HashMap<String, Vec<usize>>,
    pid: &str,
) -> Option<Vec<usize>> {
    let (prefix, rest) = pid.split_once('.')?;
    let parents = by_number.get(norm_label(prefix).as_str())?;
    let found: Vec<usize> = by_number
        .get(norm_label(rest).as_str())?
        .iter()
        .copied()
        .filter(|&s| parents.iter().any(|&p| outline.is_within(s, p)))
        .collect();
    (!found.is_empty()).then_some(found)
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn gold_passages_lie_in_their_sections_chunks() {
    let root = shared().join("data/obliqa");
    folio_testkit::paths::require_shared("data/obliqa/document_map.json");
    let map: HashMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(root.join("document_map.json")).unwrap()).unwrap();
    let counter = counter();
    let config = ChunkerConfig::default();
    let (mut total, mut in_section, mut anywhere, mut no_section) = (0usize, 0usize, 0usize, 0usize);
    let mut per_doc = Vec::new();
    let mut misses: Vec<String> = Vec::new();
    let mut ids: Vec<_> = map.keys().cloned().collect();
    ids.sort_by_key(|k| k.parse::<u32>().unwrap_or(0));
    for id in ids {
        let file = &map[&id];
        let doc =
            convert_file(&root.join("documents").join(file), &ConvertOptions::default()).expect("converts");
        let a = analyze(doc, counter.as_ref(), &config);
        let passages: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(root.join(format!("passages/{id}.json"))).unwrap())
                .unwrap();
        // Section index by printed number.
        let mut by_number: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, s) in a.outline.sections.iter().enumerate() {
            if let Some(n) = &s.number {
                by_number.entry(norm_label(n)).or_default().push(i);
            }
        }
        let chunk_text: Vec<String> = a.chunks.iter().map(|c| squash(&c.text)).collect();
        let (mut t, mut ok) = (0, 0);
        for p in &passages {
            // "/Table Start" and "/Table End" are the data set's markup, not document text.
            let text = squash(p["Passage"].as_str().unwrap_or(""))
                .replace("/TableStart", "")
                .replace("/TableEnd", "");
            if text.is_empty() {
                continue;
            }
            total += 1;
            t += 1;
            let pid = norm_label(p["PassageID"].as_str().unwrap_or(""));
            if chunk_text.iter().any(|c| c.contains(&text)) {
                anywhere += 1;
            }
            let Some(secs) =
                by_number.get(&pid).cloned().or_else(|| within_container(&a.outline, &by_number, &pid))
            else {
                no_section += 1;
                if t - ok <= 3 {
                    misses.push(format!("{file}: no section numbered {pid:?}"));
                }
                continue;
            };
            let ids: Vec<&str> = secs.iter().map(|&s| a.outline.sections[s].id.as_str()).collect();
            // Chunks holding the section's own text, consecutive.
            let holding: Vec<usize> = a
                .chunks
                .iter()
                .enumerate()
                .filter(|(_, c)| c.section_ids.iter().any(|x| ids.contains(&x.as_str())))
                .map(|(i, _)| i)
                .collect();
            let mut found = false;
            for start in 0..holding.len() {
                let mut joined = String::new();
                for (k, &ci) in holding[start..].iter().enumerate() {
                    if k > 0 && ci != holding[start + k - 1] + 1 {
                        break;
                    }
                    joined.push_str(&chunk_text[ci]);
                    if joined.contains(&text) {
                        found = true;
                        break;
                    }
                }
                if found {
                    break;
                }
            }
            if found {
                in_section += 1;
                ok += 1;
            } else if t - ok <= 3 {
                misses.push(format!("{file}: passage {pid:?} not inside its section's chunks"));
            }
        }
        per_doc.push(format!("{id:>2} {:5.1}% of {t:4}  {file}", 100.0 * ok as f64 / t.max(1) as f64));
    }
    for l in &per_doc {
        eprintln!("{l}");
    }
    for m in &misses {
        eprintln!("miss: {m}");
    }
    let rate = in_section as f64 / total as f64;
    eprintln!(
        "ObliQA passages: {total} non-empty; in their section's chunks {in_section} ({:.2}%); inside some chunk {anywhere} ({:.2}%); no section with the PassageID's number {no_section}",
        100.0 * rate,
        100.0 * anywhere as f64 / total as f64
    );
    assert!(rate >= 0.98, "only {:.2}% of passages lie in their section's chunks", 100.0 * rate);
}
