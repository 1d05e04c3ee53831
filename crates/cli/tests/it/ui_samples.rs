//! The UI's sample library (`ui/src/backend/fake/samples.json`: what the in-browser backend and the
//! UI's component tests show) is `folio parse --json --text` of the documents in
//! `tests/fixtures/samples`, so the UI is tested on what the engine makes of real files, not on
//! hand-written copies of its output.
//!
//! The sample rulebook is a PDF laid out here from [`GEN_PAGES`] (bold numbered headings over body
//! text, a two-column table, page numbers in the footer), so the reader's page images and page
//! ranges have a real PDF behind them. `FOLIO_BLESS=1` rewrites the PDF and `samples.json` after a
//! change to the fixtures or to the engine's analysis; without it the test fails on any drift.

use folio_testkit::paths::{repo_root, require_asset, require_pdfium};
use folio_testkit::pdf::{text_op, text_pdf};
use std::path::Path;
use std::process::Command;

/// One printed line of the sample rulebook.
enum Line {
    Title(&'static str),
    /// A heading of level 1–3.
    Heading(u8, &'static str),
    /// A paragraph, wrapped to the page width.
    Para(&'static str),
    /// A table row of two cells; `true` for the header row.
    Row(bool, &'static str, &'static str),
}

use Line::{Heading, Para, Row, Title};

/// The General Rulebook, page by page.
const GEN_PAGES: &[&[Line]] = &[
    &[
        Title("General Rulebook"),
        Heading(1, "1 Introduction"),
        Para("This module sets out the general rules that apply to every Authorised Person. It is to be read together with the Glossary (GLO), which defines the capitalised terms used in it."),
        Heading(2, "1.1 Application"),
        Para("This rulebook applies to every Authorised Person and to every Approved Individual in respect of any Regulated Activity carried on in or from the jurisdiction. Chapter 2 does not apply to a representative office, except for Rule 2.1.3."),
        Heading(2, "1.2 Interpretation"),
        Para("In this Rulebook, the “Regulator” means the authority that licenses Authorised Persons and approves Approved Individuals."),
    ],
    &[
        Heading(1, "2 Core Principles"),
        Para("The Principles in this chapter are a general statement of the fundamental obligations of Authorised Persons and Approved Individuals."),
        Heading(2, "2.1 Principles for Authorised Persons"),
        Para("The following Principles apply to every Authorised Person. In this Chapter, “Senior Management” means the persons who are responsible for the day-to-day management of an Authorised Person and who report directly to its governing body."),
        Heading(3, "2.1.1 Principle 1 – Integrity"),
        Para("An Authorised Person must observe high standards of integrity and fair dealing in carrying on its Regulated Activities."),
    ],
    &[
        Heading(3, "2.1.2 Principle 2 – Due skill, care and diligence"),
        Para("An Authorised Person must act with due skill, care and diligence in carrying on its business. This Rule is to be read together with Rule 2.1.3."),
        Heading(3, "2.1.3 Principle 3 – Management, systems and controls"),
        Para("An Authorised Person must ensure that its affairs are managed effectively and responsibly by its Senior Management."),
        Para("An Authorised Person must have adequate systems and controls to enable it to comply with the Rules, including the record-keeping requirements in COBS Rule 6.1.1."),
        Heading(3, "2.1.4 Guidance on Principle 3"),
        Para("The systems and controls referred to in Rule 2.1.3 should be proportionate to the nature, scale and complexity of the Authorised Person’s business. Records should be kept for at least six years."),
    ],
    &[
        Heading(2, "2.2 Principles for Approved Individuals"),
        Para("Every Approved Individual must act with integrity in carrying out a Controlled Function, and must deal with the regulator in an open and co-operative way. See also Rule 2.1.1 and Rule 2.4.9."),
    ],
    &[
        Heading(2, "2.3 Record retention"),
        Para("Records are kept for at least the periods in the table below."),
        Row(true, "Record", "Retention period (years)"),
        Row(false, "Client agreements", "6"),
        Row(false, "Transaction records", "6"),
        Row(false, "Complaints", "3"),
    ],
];

/// Words of `text` in lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().unwrap();
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The sample rulebook as a PDF: US Letter, 1-inch margins, Helvetica.
fn gen_pdf() -> Vec<u8> {
    let pages: Vec<String> = GEN_PAGES
        .iter()
        .enumerate()
        .map(|(i, lines)| {
            let mut c = String::new();
            let mut y = 720.0;
            for line in lines.iter() {
                match line {
                    Title(t) => {
                        c.push_str(&text_op(72.0, y, 20.0, true, t));
                        y -= 40.0;
                    }
                    Heading(level, t) => {
                        let size = [14.0, 12.0, 11.0][*level as usize - 1];
                        y -= 6.0;
                        c.push_str(&text_op(72.0, y, size, true, t));
                        y -= size + 8.0;
                    }
                    Para(t) => {
                        for l in wrap(t, 92) {
                            c.push_str(&text_op(72.0, y, 10.0, false, &l));
                            y -= 13.0;
                        }
                        y -= 7.0;
                    }
                    Row(header, a, b) => {
                        c.push_str(&text_op(72.0, y, 10.0, *header, a));
                        c.push_str(&text_op(330.0, y, 10.0, *header, b));
                        y -= 15.0;
                    }
                }
            }
            c.push_str(&text_op(300.0, 40.0, 9.0, false, &(i + 1).to_string()));
            c
        })
        .collect();
    text_pdf(&pages, &[], "", "")
}

/// Fails when `path` does not hold `want`, or writes it under `FOLIO_BLESS=1`.
fn check_or_bless(path: &Path, want: &[u8]) {
    folio_testkit::generated::check_or_bless(
        path,
        want,
        "the fixtures or the engine's analysis",
        "`FOLIO_BLESS=1 cargo test -p folio-cli --test it ui_samples -- --include-ignored` and review the diff",
    );
}

#[test]
#[ignore = "needs .assets (PDFium and the MiniLM vocabulary; scripts/setup-assets.sh); scripts/test.sh runs it"]
fn ui_samples_are_the_parse_output_of_the_fixtures() {
    require_pdfium();
    require_asset("minilm/vocab.txt");
    let root = repo_root();
    let fixtures = root.join("tests/fixtures/samples");
    check_or_bless(&fixtures.join("GEN General Rulebook.pdf"), &gen_pdf());

    let mut names: Vec<String> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["COBS Conduct of Business.md", "GEN General Rulebook.pdf", "GLO Glossary.md"]);
    // Relative paths, so that `source_path` does not depend on where the repository is.
    let out = Command::new(env!("CARGO_BIN_EXE_folio"))
        .current_dir(&root)
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["parse", "--json", "--text"])
        .args(names.iter().map(|n| format!("tests/fixtures/samples/{n}")))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let documents: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(documents.len(), 3);
    for d in &documents {
        assert!(d.get("error").is_none(), "{d}");
        assert!(!d["outline"].as_array().unwrap().is_empty(), "no outline: {d}");
    }
    let samples = serde_json::json!({
        "about": "folio parse --json --text of tests/fixtures/samples (crates/cli/tests/it/ui_samples.rs writes it)",
        "documents": documents,
    });
    let mut json = serde_json::to_string_pretty(&samples).unwrap();
    json.push('\n');
    check_or_bless(&root.join("ui/src/backend/fake/samples.json"), json.as_bytes());
}

#[test]
fn paragraphs_wrap_at_word_boundaries() {
    assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
    assert_eq!(wrap("abcdefgh ij", 4), ["abcdefgh", "ij"]);
    assert_eq!(wrap("", 4), [""]);
}
