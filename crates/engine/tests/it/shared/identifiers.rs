//! Identifier and defined-term queries on real rulebooks: "GEN 2.1.3", "Rule 3.3.31 of COBS",
//! "PIN Rule 5.7.2", "section 56 of the FSMR", "What does 'Authorised Person' mean?" must put the
//! named section's own text (after its heading line, not its guidance) or a definition of the term
//! first. Queries are built from the ingested outline and
//! definitions of five ObliQA rulebooks (../shared/data/obliqa), every k-th numbered rule and term so
//! the set is spread over each document; at least 90 % must be right at rank 1.
//!
//! Uses the fast potion-base-2M embedder with in-RAM vectors (identifier queries are the exact and
//! keyword channels' work; the dense channel still runs and still competes in the fusion). Skips
//! with a message when the data or `.assets/potion-base-2M` is absent.

use folio_core::cancel::Cancel;
use folio_engine::{LibraryOptions, SearchOptions};
use folio_testkit::library::{Provider, TestLibrary};
use std::path::PathBuf;
use std::sync::Arc;

fn inputs() -> (PathBuf, Vec<PathBuf>) {
    let model = folio_testkit::paths::require_asset("potion-base-2M/model.safetensors")
        .parent()
        .unwrap()
        .to_path_buf();
    let data = folio_testkit::paths::require_shared("data/obliqa/documents");
    let entries = std::fs::read_dir(&data).expect("the ObliQA documents folder reads");
    let wanted = ["GEN_", "COBS_", "PIN_", "FSMR ", "GLO_"];
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| wanted.iter().any(|w| n.starts_with(w)))
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), wanted.len(), "the five rulebooks are in {}", data.display());
    (model, files)
}

enum Want {
    /// (document label, section id)
    Section(String, String),
    /// defined-term key
    Term(String),
}

folio_testkit::on_each_provider!(
    identifier_queries_rank_their_target_first,
    ignore = "needs ../shared, .assets and, for a team library, PostgreSQL; scripts/test.sh runs it"
);

fn identifier_queries_rank_their_target_first(provider: Provider) {
    let (model, files) = inputs();
    let test = TestLibrary::new(provider);
    let embedder = Arc::new(folio_ai::StaticEmbedder::load(&model).unwrap());
    let options = LibraryOptions {
        in_memory_vectors: true,
        vocab: Some(folio_testkit::paths::assets_dir().join("minilm/vocab.txt")).filter(|p| p.is_file()),
        ..LibraryOptions::default()
    };
    let mut lib = test.open(embedder, options).unwrap();
    let report = lib.ingest(&files, &mut |_| {}, &Cancel::new());
    assert!(report.failed.is_empty(), "{:?}", report.failed);

    let mut queries: Vec<(String, Want)> = Vec::new();
    let forms = ["{d} {n}", "Rule {n} of {d}", "{d} Rule {n}"];
    for label in ["GEN", "COBS", "PIN"] {
        let (_, sections) = lib.outline(label).unwrap();
        let rules: Vec<_> = sections
            .iter()
            .filter(|s| {
                s.number.as_deref().is_some_and(|n| {
                    let n = n.trim_end_matches('.');
                    n.split('.').count() == 3 && n.split('.').all(|p| p.chars().all(|c| c.is_ascii_digit()))
                })
            })
            .collect();
        let step = (rules.len() / 10).max(1);
        for (k, s) in rules.iter().step_by(step).take(10).enumerate() {
            let n = s.number.as_deref().unwrap().trim_end_matches('.');
            let q = forms[k % forms.len()].replace("{d}", label).replace("{n}", n);
            queries.push((q, Want::Section(label.into(), s.section_id.clone())));
        }
    }
    // The FSMR numbers its sections 1… across its Parts: "section 56 of the FSMR".
    let (_, sections) = lib.outline("FSMR").unwrap();
    let fsmr: Vec<_> = sections
        .iter()
        .filter(|s| {
            s.number.as_deref().is_some_and(|n| {
                let parts: Vec<&str> = n.trim_end_matches('.').split('.').collect();
                parts.len() == 2
                    && parts[0].starts_with("Part ")
                    && !parts[1].is_empty()
                    && parts[1].chars().all(|c| c.is_ascii_digit())
            })
        })
        .collect();
    let step = (fsmr.len() / 6).max(1);
    for s in fsmr.iter().step_by(step).take(6) {
        let n = s.number.as_deref().unwrap().trim_end_matches('.').rsplit('.').next().unwrap().to_string();
        queries
            .push((format!("section {n} of the FSMR"), Want::Section("FSMR".into(), s.section_id.clone())));
    }
    // Defined terms of the glossary.
    let defs: Vec<_> = lib.definitions().unwrap().into_iter().filter(|d| d.document == "GLO").collect();
    let step = (defs.len() / 12).max(1);
    let term_forms = ["What does '{t}' mean?", "define {t}", "What is meant by {t}?"];
    for (k, d) in defs.iter().step_by(step).take(12).enumerate() {
        let q = term_forms[k % term_forms.len()].replace("{t}", &d.definition.term);
        queries.push((q, Want::Term(d.definition.key.clone())));
    }
    assert!(queries.len() >= 30, "{} queries", queries.len());

    let chunks = lib.chunks().unwrap();
    let docs = lib.documents().unwrap();
    let outlines: std::collections::HashMap<i64, Vec<folio_engine::SectionRow>> =
        docs.iter().map(|d| (d.id, lib.outline(&d.id.to_string()).unwrap().1)).collect();
    // Whether a hit holds the section's own text: it reaches past the section's heading line into
    // its span, and begins in no guidance note.
    let own_text = |h: &folio_engine::Hit, sid: &str| {
        let sections = &outlines[&h.doc_id];
        let Some(s) = sections.iter().find(|s| s.section_id == sid) else { return false };
        let guidance = sections
            .iter()
            .find(|x| x.section_id == h.section_id)
            .and_then(|x| x.number.as_deref())
            .is_some_and(|n| n.to_ascii_lowercase().contains("guidance"));
        let body = (s.span.start + s.heading.len()).min(s.span.end);
        !guidance && h.span.start < s.span.end && h.span.end > body
    };
    let mut right = 0;
    let mut misses = Vec::new();
    for (q, want) in &queries {
        let hits = lib.search(q, &SearchOptions::default()).unwrap();
        let top = hits.first();
        let ok = top.is_some_and(|h| match want {
            Want::Section(label, sid) => {
                docs.iter().any(|d| d.id == h.doc_id && &d.label == label) && own_text(h, sid)
            }
            Want::Term(key) => chunks.iter().any(|c| c.id == h.chunk_id && c.defined_terms.contains(key)),
        });
        if ok {
            right += 1;
        } else {
            misses.push(format!("{q:?} -> {:?}", top.map(|h| (&h.document, &h.section_id))));
        }
    }
    let share = right as f64 / queries.len() as f64;
    eprintln!("identifier queries: {right}/{} right at rank 1 ({:.1} %)", queries.len(), 100.0 * share);
    for m in &misses {
        eprintln!("  miss: {m}");
    }
    assert!(share >= 0.9, "{right}/{} at rank 1", queries.len());
}
