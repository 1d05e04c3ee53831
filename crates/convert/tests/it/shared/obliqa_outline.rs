//! Acceptance: on all 40 ObliQA rulebooks, no section sits at the top level of the outline unless it
//! is a division of the document (a chapter, part, schedule, appendix or the like: a one-value number
//! such as "3.", "Part 4", "APP 2", "A", or an unnumbered title); numbered rules, guidance notes and
//! their paragraphs always nest under something. And the sections of each document come in document
//! order with every child after its parent.
//!
//! Needs `../shared/data/obliqa`; skips with a message when it is absent.

use folio_convert::{convert_file, ConvertOptions};
use folio_core::numbering::{Container, Label};
use folio_core::outline::Outline;
use std::collections::HashMap;
use std::path::PathBuf;

fn shared() -> PathBuf {
    folio_testkit::paths::shared_dir()
}

/// Whether a top-level section is a division of its document.
fn is_division(number: Option<&str>) -> bool {
    let Some(n) = number else { return true };
    let Some(label) = Label::parse(n) else { return true };
    let first = &label.segments[0];
    let division = matches!(
        first.container,
        Container::Part
            | Container::Chapter
            | Container::Title
            | Container::Schedule
            | Container::Appendix
            | Container::Annex
            | Container::Division
            | Container::Subpart
    ) && first.explicit;
    division || label.tokens().len() == 1
}

#[test]
#[ignore = "needs ../shared; scripts/test.sh runs it"]
fn only_divisions_sit_at_the_top_of_the_rulebooks_outlines() {
    let root = shared().join("data/obliqa");
    folio_testkit::paths::require_shared("data/obliqa/document_map.json");
    let map: HashMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(root.join("document_map.json")).unwrap()).unwrap();
    let mut files: Vec<&String> = map.values().collect();
    files.sort();
    let mut offenders = Vec::new();
    let mut top = 0usize;
    for file in files {
        let doc =
            convert_file(&root.join("documents").join(file), &ConvertOptions::default()).expect("converts");
        let outline = Outline::build(&doc);
        for (i, s) in outline.sections.iter().enumerate().skip(1) {
            let parent = s.parent.expect("every section but the root has a parent");
            assert!(parent < i, "{file}: section {} comes before its parent", s.heading);
            if s.level == 1 {
                top += 1;
                if !is_division(s.number.as_deref()) {
                    offenders.push(format!("{file}: {}", s.heading.chars().take(80).collect::<String>()));
                }
            }
        }
    }
    eprintln!("{top} top-level sections in 40 rulebooks, {} not divisions", offenders.len());
    for o in offenders.iter().take(60) {
        eprintln!("  {o}");
    }
    assert!(offenders.is_empty(), "{} numbered sections sit at the top level", offenders.len());
}
