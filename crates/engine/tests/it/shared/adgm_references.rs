//! Acceptance: cross-references between the 40 ADGM rulebooks of `../shared/data/obliqa`, scored on
//! a gold set checked by reading (`tests/data/adgm_references.tsv`, proposed by
//! `scripts/eval/xref_candidates.py`, each line read against its sentence and target passage).
//!
//! Each gold reference names its source passage (document number and PassageID), the reference as
//! written there, and its target: a document and PassageID, or for an instrument outside the 40 its
//! name. A reference is *found* when one of Folio's references covers it in the converted text, and
//! *resolved* when Folio sends it to that document and section (or, for an outside instrument, names
//! that instrument and resolves it to nothing in the library). Resolution across documents is the
//! engine's own: [`CrossIndex`] over every document's label, title, glossary names and sections.
//!
//! Needs `../shared/data/obliqa`; skips with a message when it is absent.

use folio_convert::{convert_file, ConvertOptions};
use folio_core::analysis::{analyze, Analysis};
use folio_core::chunker::ChunkerConfig;
use folio_core::crossref::{name_key, CrossIndex, CrossReference, SectionIndex};
use folio_core::tokens::WordCounter;
use folio_index::exact::document_label;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

fn data() -> PathBuf {
    folio_testkit::paths::shared_dir().join("data/obliqa")
}

fn skip_char(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{feff}')
}

/// The text without whitespace and direction marks, with each kept byte's offset in the original.
fn squash(s: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(s.len());
    let mut map = Vec::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if !skip_char(c) {
            out.push(c);
            map.extend(std::iter::repeat_n(i, c.len_utf8()));
        }
    }
    map.push(s.len());
    (out, map)
}

fn norm_number(s: &str) -> String {
    s.chars().filter(|c| !skip_char(*c)).collect::<String>().trim_end_matches('.').to_string()
}

struct Doc {
    analysis: Analysis,
    squashed: String,
    map: Vec<usize>,
}

struct Gold {
    form: String,
    src: String,
    pid: String,
    written: String,
    target_doc: String,
    target: String,
}

#[derive(Default)]
struct Tally {
    total: usize,
    located: usize,
    found: usize,
    resolved: usize,
    misses: Vec<String>,
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn adgm_cross_references_are_found_and_resolved() {
    let root = data();
    folio_testkit::paths::require_shared("data/obliqa/document_map.json");
    let gold: Vec<Gold> = include_str!("../../data/adgm_references.tsv")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 7, "gold line: {l}");
            Gold {
                form: f[0].into(),
                src: f[1].into(),
                pid: f[2].into(),
                written: f[3].into(),
                target_doc: f[5].into(),
                target: f[6].into(),
            }
        })
        .collect();
    assert!(gold.len() >= 300, "the gold set holds {} references", gold.len());

    let map: HashMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(root.join("document_map.json")).unwrap()).unwrap();
    let mut docs: HashMap<String, Doc> = HashMap::new();
    let mut cross = CrossIndex::default();
    for (num, file) in &map {
        let path = root.join("documents").join(file);
        let document = convert_file(&path, &ConvertOptions::default()).expect("converts");
        let analysis = analyze(document, &WordCounter, &ChunkerConfig::default());
        let id: i64 = num.parse().unwrap();
        let label = document_label(&path.to_string_lossy());
        cross.add_document(
            id,
            &label,
            &analysis.document.meta.title,
            SectionIndex::from_outline(&analysis.outline),
        );
        let (squashed, offsets) = squash(&analysis.document.text);
        docs.insert(num.clone(), Doc { analysis, squashed, map: offsets });
    }
    for d in docs.values() {
        for def in &d.analysis.definitions {
            if def.term.split_whitespace().count() <= 8 {
                cross.learn_definition(&def.term, &def.text);
            }
        }
    }

    let mut passages: HashMap<String, Vec<serde_json::Value>> = HashMap::new();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for g in &gold {
        let t = tallies.entry(g.form.clone()).or_default();
        t.total += 1;
        let ps = passages.entry(g.src.clone()).or_insert_with(|| {
            serde_json::from_str(
                &std::fs::read_to_string(root.join(format!("passages/{}.json", g.src))).unwrap(),
            )
            .unwrap()
        });
        let doc = &docs[&g.src];
        let written = squash(&g.written).0;
        // The passage in the converted text, then the reference in the passage.
        let range = ps
            .iter()
            .filter(|p| p["PassageID"].as_str() == Some(g.pid.as_str()))
            .filter_map(|p| {
                let text = squash(p["Passage"].as_str().unwrap_or("")).0;
                let text = text.replace("/TableStart", "").replace("/TableEnd", "");
                let at = text.find(&written)?;
                // The passage's text up to the reference, found in the document.
                let head = &text[..at + written.len()];
                let tail_len = 60.min(head.len());
                let probe = &head[head.len() - tail_len..];
                let mut from = doc.squashed.find(&text[..text.len().min(80)]).unwrap_or(0);
                if let Some(found) = doc.squashed[from..].find(probe) {
                    from += found + probe.len() - written.len();
                    return Some((doc.map[from], doc.map[from + written.len() - 1] + 1));
                }
                None
            })
            .next();
        let Some((start, end)) = range else {
            t.misses.push(format!(
                "{} {} {:?}: passage not located in the converted text",
                g.src, g.pid, g.written
            ));
            continue;
        };
        t.located += 1;
        let best = doc
            .analysis
            .references
            .iter()
            .filter(|r| r.span.start < end && start < r.span.end)
            .max_by_key(|r| r.span.end.min(end) - r.span.start.max(start));
        let Some(r) = best else {
            t.misses.push(format!("{} {} {:?}: not found", g.src, g.pid, g.written));
            continue;
        };
        t.found += 1;
        let (ok, got) = judge(g, r, &g.src, &docs, &cross);
        if ok {
            t.resolved += 1;
        } else {
            t.misses.push(format!(
                "{} {} {:?} → want {} {}, got {got} (read {:?} as {:?} in {:?})",
                g.src, g.pid, g.written, g.target_doc, g.target, r.text, r.label, r.document
            ));
        }
    }

    let (mut total, mut located, mut found, mut resolved) = (0, 0, 0, 0);
    eprintln!("{:<28} {:>6} {:>8} {:>6} {:>9}", "form", "gold", "located", "found", "resolved");
    for (form, t) in &tallies {
        eprintln!("{form:<28} {:>6} {:>8} {:>6} {:>9}", t.total, t.located, t.found, t.resolved);
        total += t.total;
        located += t.located;
        found += t.found;
        resolved += t.resolved;
    }
    let recall = found as f64 / located.max(1) as f64;
    let precision = resolved as f64 / found.max(1) as f64;
    eprintln!(
        "all: {total} gold, {located} located, found {found} ({recall:.3}), resolved right {resolved} ({precision:.3} of found)"
    );
    for (form, t) in &tallies {
        for m in t.misses.iter().take(8) {
            eprintln!("  {form}: {m}");
        }
    }
    assert!(located * 100 >= total * 95, "only {located} of {total} gold passages located");
    assert!(recall >= 0.95, "found {recall:.3} of the references");
    assert!(precision >= 0.95, "resolved {precision:.3} of the found references to the right section");
}

/// Whether Folio sent a reference where the gold says, and where it sent it.
fn judge(
    g: &Gold,
    r: &CrossReference,
    src: &str,
    docs: &HashMap<String, Doc>,
    cross: &CrossIndex,
) -> (bool, String) {
    let number_of = |doc: &str, section_id: &str| -> Option<String> {
        let o = &docs.get(doc)?.analysis.outline;
        o.by_id(section_id).and_then(|i| o.sections[i].number.clone())
    };
    if g.target_doc == "-" {
        // An instrument outside the library: named, and not taken for one of the 40.
        let Some(d) = &r.document else {
            return (false, format!("no document (section {:?})", r.target_section));
        };
        let (want, have) = (name_key(&g.target), name_key(d));
        let named = have.contains(&want) || want.contains(&have);
        let outside = cross.document(d).is_none();
        return (named && outside, format!("document {d:?}, in library: {}", !outside));
    }
    let (doc, number) = match &r.document {
        None => (src.to_string(), r.target_section.as_deref().and_then(|s| number_of(src, s))),
        Some(name) => match cross.resolve(name, &r.label, r.container) {
            Some((d, section)) => {
                let d = d.to_string();
                let number = section.and_then(|i| docs[&d].analysis.outline.sections[i].number.clone());
                (d, number)
            }
            None => (format!("outside the library: {name:?}"), None),
        },
    };
    let want = norm_number(&g.target);
    let ok = doc == g.target_doc
        && number.as_deref().is_some_and(|n| {
            let n = norm_number(n);
            n == want || want.ends_with(&format!(".{n}"))
        });
    (ok, format!("{doc} {}", number.unwrap_or_else(|| "no section".into())))
}
