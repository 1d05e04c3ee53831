//! Whose definitions mark the terms of a document: in a library of two company filings and three
//! ADGM rulebooks (GEN, AML and their Glossary, GLO), no term of one filing may be marked with
//! another document's definition (a 10-K's "we, us, our" is its own), and GLO's definitions must
//! still mark terms in GEN and AML. Prints the cross-document marks a library-wide lookup would
//! make (the rule before) beside those made now. Embedded with the test kit's hashing embedder.

use folio_core::cancel::Cancel;
use folio_core::context::TermFinder;
use folio_engine::Library;
use folio_testkit::library::{Provider, TestLibrary};
use std::collections::BTreeMap;

folio_testkit::on_each_provider!(
    definitions_apply_in_their_own_document_and_where_it_is_adopted,
    ignore = "needs ../shared, .assets (PDFium) and, for a team library, PostgreSQL; scripts/test.sh runs it"
);

fn definitions_apply_in_their_own_document_and_where_it_is_adopted(provider: Provider) {
    let filings = folio_testkit::paths::require_shared("data/filings");
    let rules = folio_testkit::paths::require_shared("data/obliqa/documents");
    folio_testkit::paths::require_asset("pdfium/libpdfium.so");
    let files = vec![
        filings.join("APPLE_2022_10K.pdf"),
        filings.join("ORACLE_2023_10K.pdf"),
        rules.join("GEN_VER08.181223.txt"),
        rules.join("AML_VER09.211223.txt"),
        rules.join("GLO_VER19.181223.txt"),
    ];
    let test = TestLibrary::new(provider);
    let mut lib = test.open_hashing();
    let report = lib.ingest(&files, &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), files.len(), "{:?}", report.failed);
    let docs = lib.documents().unwrap();
    let label = |id: i64| docs.iter().find(|d| d.id == id).map(|d| d.label.clone()).unwrap_or_default();
    let is_filing = |id: i64| docs.iter().any(|d| d.id == id && d.path.ends_with(".pdf"));
    let all = lib.definitions().unwrap();

    // (shown document, defining document) → marks, now and under a library-wide lookup.
    let mut now: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut before: BTreeMap<(String, String), usize> = BTreeMap::new();
    for d in &docs {
        let (_, sections) = lib.outline(&d.id.to_string()).unwrap();
        // Library-wide: this document's definitions first, then everyone else's.
        let mut wide = all.clone();
        wide.sort_by_key(|h| h.doc_id != d.id);
        let finder =
            TermFinder::new(wide.iter().map(|h| (h.definition.term.as_str(), h.definition.key.as_str())));
        for s in &sections {
            let text = shown_text(&lib, d.id, &s.section_id);
            for u in lib.used_terms(d.id, &s.section_id, &text).unwrap() {
                if u.definition.doc_id != d.id {
                    *now.entry((d.label.clone(), label(u.definition.doc_id))).or_default() += 1;
                }
            }
            for u in finder.find(&text) {
                let first = wide.iter().find(|h| h.definition.key == u.key).map(|h| h.doc_id).unwrap_or(d.id);
                if first != d.id {
                    *before.entry((d.label.clone(), label(first))).or_default() += 1;
                }
            }
        }
    }
    println!("cross-document marks (shown in ← defined in: library-wide lookup → now):");
    let keys: std::collections::BTreeSet<_> = before.keys().chain(now.keys()).cloned().collect();
    for k in &keys {
        println!("  {} ← {}: {} → {}", k.0, k.1, before.get(k).unwrap_or(&0), now.get(k).unwrap_or(&0));
    }
    let total = |m: &BTreeMap<(String, String), usize>| m.values().sum::<usize>();
    println!("  all: {} → {}", total(&before), total(&now));

    let filing_labels: Vec<String> =
        docs.iter().filter(|d| is_filing(d.id)).map(|d| d.label.clone()).collect();
    for ((shown, defined), n) in &now {
        assert!(
            !filing_labels.contains(shown),
            "{n} terms of the filing {shown} marked with {defined}'s definitions"
        );
        assert!(
            !filing_labels.contains(defined),
            "{n} terms of {shown} marked with the filing {defined}'s definitions"
        );
    }
    for rulebook in ["GEN", "AML"] {
        let from_glossary = now.get(&(rulebook.to_string(), "GLO".to_string())).copied().unwrap_or(0);
        assert!(from_glossary > 50, "GLO's definitions mark {from_glossary} terms in {rulebook}");
    }
    assert!(total(&before) > total(&now), "the library-wide lookup marked more across documents");
}

/// A section's own text, as the Reader shows it.
fn shown_text(lib: &Library, doc: i64, section_id: &str) -> String {
    lib.show(Some(&doc.to_string()), section_id).map(|s| s.text).unwrap_or_default()
}

folio_testkit::on_each_provider!(
    rulebooks_are_named_as_the_glossary_names_them_and_the_user_can_rename,
    ignore = "needs ../shared and, for a team library, PostgreSQL; scripts/test.sh runs it"
);

/// Rulebooks printed without their titles ("GEN" is all GEN_VER08.181223.txt says of itself) are
/// named as the library's Glossary names them; a user's own title wins, and stays when the
/// document is indexed again.
fn rulebooks_are_named_as_the_glossary_names_them_and_the_user_can_rename(provider: Provider) {
    let rules = folio_testkit::paths::require_shared("data/obliqa/documents");
    // Copies, so that GEN can change and be indexed again.
    let copies = tempfile::tempdir().unwrap();
    let files =
        ["GEN_VER08.181223.txt", "AML_VER09.211223.txt", "COBS_VER15.150823.txt", "GLO_VER19.181223.txt"]
            .map(|f| {
                let to = copies.path().join(f);
                std::fs::copy(rules.join(f), &to).unwrap();
                to
            });
    let test = TestLibrary::new(provider);
    let mut lib = test.open_hashing();
    let report = lib.ingest(&files, &mut |_| {}, &Cancel::new());
    assert_eq!(report.indexed.len(), files.len(), "{:?}", report.failed);
    let titles: BTreeMap<String, String> =
        lib.documents().unwrap().into_iter().map(|d| (d.label, d.title)).collect();
    assert_eq!(titles["GEN"], "General Rulebook (GEN)");
    assert_eq!(titles["AML"], "Anti-Money Laundering and Sanctions Rules and Guidance (AML)");
    assert_eq!(titles["COBS"], "Conduct of Business Rulebook (COBS)");
    // Hits and citations name the document so too.
    let hit = lib.search("GEN Rule 5.5.1", &folio_engine::SearchOptions::default()).unwrap().remove(0);
    assert_eq!(hit.parent_chain[0], "General Rulebook (GEN)");
    lib.rename("GEN", Some("GEN — my annotated copy")).unwrap();
    assert_eq!(lib.find_document("GEN").unwrap().title, "GEN — my annotated copy");
    let mut gen = std::fs::read_to_string(&files[0]).unwrap();
    gen.push_str("\n99. A RULE ADDED LATER\n\n99.1 The file changed after it was renamed.\n");
    std::fs::write(&files[0], gen).unwrap();
    let again = lib.ingest(&files[..1], &mut |_| {}, &Cancel::new());
    assert_eq!(again.indexed.len(), 1, "GEN is indexed again: {again:?}");
    assert_eq!(lib.find_document("GEN").unwrap().title, "GEN — my annotated copy", "kept when indexed again");
    lib.rename("GEN", None).unwrap();
    assert_eq!(lib.find_document("GEN").unwrap().title, "General Rulebook (GEN)");
}
