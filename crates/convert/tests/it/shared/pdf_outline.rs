//! Outline fidelity of the PDF converter against each document's own declared outline.
//!
//! The reference outlines are read independently of the converter's heading logic: the bookmarks
//! of `policy.pdf` and the Review Guide (pdfium's raw outline), and the printed CONTENTS list of the
//! USLM User Guide (parsed here from pdfium's raw page text), cross-checked with its Markdown twin.
//! Headings are matched in document order by normalised title (lower-case alphanumerics, numbers
//! stripped). Recall = matched reference headings / reference headings; level agreement = matched
//! with the same level / matched.
//!
//! Needs `../shared` and `libpdfium.so`: ignored by a plain `cargo test`.

use folio_convert::pdf::{find_pdfium_library, page_texts, read_outline, PdfConverter};
use folio_convert::{ConvertOptions, Converter};
use folio_core::model::Document;
use regex::Regex;
use std::path::PathBuf;

use crate::common::headings;

fn shared() -> PathBuf {
    folio_testkit::paths::shared_dir()
}

/// The file's bytes; the test fails, saying what is missing, without the data or the PDF engine.
fn input(rel: &str) -> Vec<u8> {
    let path = folio_testkit::paths::require_shared(rel);
    assert!(
        find_pdfium_library(&ConvertOptions::default()).is_some(),
        "libpdfium.so not found (set FOLIO_PDFIUM or run scripts/setup-assets.sh)"
    );
    std::fs::read(&path).expect("the file reads")
}

fn norm(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric() && !c.is_numeric()).flat_map(|c| c.to_lowercase()).collect()
}

fn convert(bytes: &[u8], name: &str, use_bookmarks: bool) -> Document {
    let options = ConvertOptions { use_bookmarks, ..ConvertOptions::default() };
    PdfConverter.convert(name, bytes, &options).expect("conversion succeeds")
}

/// (recall, level agreement, matched, reference size) and the unmatched reference titles.
/// Matching is an order-preserving alignment (longest common subsequence of title keys).
fn score(
    reference: &[(String, u8)],
    got: &[(String, u8, Option<String>)],
) -> (f64, f64, usize, usize, Vec<String>) {
    let a: Vec<String> = reference.iter().map(|(t, _)| norm(t)).collect();
    let b: Vec<String> = got.iter().map(|(t, _, _)| norm(t)).collect();
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if a[i] == b[j] { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    let (mut matched, mut same_level) = (0, 0);
    let mut notes = Vec::new();
    while i < n && j < m {
        if a[i] == b[j] && dp[i][j] == dp[i + 1][j + 1] + 1 {
            matched += 1;
            if got[j].1 == reference[i].1 {
                same_level += 1;
            } else {
                notes.push(format!("level {} (want {}): {}", got[j].1, reference[i].1, reference[i].0));
            }
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            notes.push(format!("missing: {}", reference[i].0));
            i += 1;
        } else {
            j += 1;
        }
    }
    for r in &reference[i..] {
        notes.push(format!("missing: {}", r.0));
    }
    let recall = matched as f64 / n.max(1) as f64;
    let agreement = same_level as f64 / matched.max(1) as f64;
    (recall, agreement, matched, n, notes)
}

fn report(label: &str, r: &(f64, f64, usize, usize, Vec<String>)) {
    eprintln!("{label}: recall {:.3} ({}/{}), level agreement {:.3}", r.0, r.2, r.3, r.1);
    for m in r.4.iter().take(15) {
        eprintln!("    {m}");
    }
}

/// The printed CONTENTS list: "1.2.1 Model the Data as It Appears ......... 6".
fn printed_contents(pages: &[String]) -> Vec<(String, u8)> {
    let re = Regex::new(r"^(\d+(?:\.\d+)*)\s+(.+?)\s*\.{3,}\s*(\d+)\s*$").unwrap();
    let mut out = Vec::new();
    for page in pages.iter().take(8) {
        for line in page.lines() {
            if let Some(c) = re.captures(line.trim()) {
                let depth = c[1].split('.').count() as u8;
                out.push((format!("{} {}", &c[1], &c[2]), depth));
            }
        }
    }
    out
}

fn markdown_headings(md: &str) -> Vec<(String, u8)> {
    let re = Regex::new(r"^(#{1,6})\s+(\d+(?:\.\d+)*)\s+(.+)$").unwrap();
    md.lines()
        .filter_map(|l| re.captures(l.trim()))
        .map(|c| (format!("{} {}", &c[2], c[3].replace("&amp;", "&")), c[2].split('.').count() as u8))
        .collect()
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn uslm_user_guide_outline() {
    let bytes = input("data/uslm/USLM-User-Guide.pdf");
    let pages = page_texts(&bytes, &ConvertOptions::default()).unwrap();
    let reference = printed_contents(&pages);
    assert!(reference.len() >= 80, "parsed only {} contents entries", reference.len());
    assert!(
        read_outline(&bytes, &ConvertOptions::default()).unwrap().is_empty(),
        "the guide has no bookmarks"
    );

    // Cross-check the reference with the Markdown twin.
    if let Ok(md) = std::fs::read_to_string(shared().join("data/uslm/USLM-User-Guide.md")) {
        let twin = markdown_headings(&md);
        let twin_keys: Vec<String> = twin.iter().map(|(t, _)| norm(t)).collect();
        let in_twin = reference.iter().filter(|(t, _)| twin_keys.contains(&norm(t))).count();
        eprintln!("USLM User Guide: {} contents entries, {} of them in the Markdown twin ({} numbered headings there)", reference.len(), in_twin, twin.len());
    }

    for use_bookmarks in [false, true] {
        let doc = convert(&bytes, "USLM-User-Guide.pdf", use_bookmarks);
        let got = headings(&doc);
        let r = score(&reference, &got);
        report(
            &format!("USLM-User-Guide.pdf, declared outline {}", if use_bookmarks { "ON" } else { "OFF" }),
            &r,
        );
        if use_bookmarks {
            assert!(r.0 >= 0.999 && r.1 >= 0.999, "with the contents list as outline: {:.3}/{:.3}", r.0, r.1);
        } else {
            assert!(r.0 >= 0.95, "recall {:.3}", r.0);
            assert!(r.1 >= 0.90, "level agreement {:.3}", r.1);
        }
        // Cross-check against the Markdown twin's numbered headings.
        if let Ok(md) = std::fs::read_to_string(shared().join("data/uslm/USLM-User-Guide.md")) {
            let twin = markdown_headings(&md);
            let t = score(&twin, &got);
            report("    vs Markdown twin", &(t.0, t.1, t.2, t.3, Vec::new()));
        }
        // No contents-page text leaks into the body.
        assert!(!doc.text.contains("......"), "dot leaders leaked into the text");
    }
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn debian_policy_outline() {
    let bytes = input("data/debian-policy/policy.pdf");
    let outline = read_outline(&bytes, &ConvertOptions::default()).unwrap();
    assert!(outline.len() > 300);
    let reference: Vec<(String, u8)> = outline.iter().map(|e| (e.title.clone(), e.level)).collect();
    for use_bookmarks in [false, true] {
        let doc = convert(&bytes, "policy.pdf", use_bookmarks);
        let got = headings(&doc);
        let r = score(&reference, &got);
        report(&format!("policy.pdf, bookmarks {}", if use_bookmarks { "ON" } else { "OFF" }), &r);
        if use_bookmarks {
            assert!(r.0 >= 0.999 && r.1 >= 0.999, "with bookmarks: {:.3}/{:.3}", r.0, r.1);
        } else {
            assert!(r.0 >= 0.95, "recall {:.3}", r.0);
            assert!(r.1 >= 0.90, "level agreement {:.3}", r.1);
        }
        // The chapter opener "CHAPTER / ONE / ABOUT THIS MANUAL" is one numbered heading.
        let first = got.iter().find(|(t, _, _)| norm(t) == "aboutthismanual").expect("chapter 1 heading");
        assert_eq!(first.1, 1);
        assert_eq!(first.2.as_deref(), Some("1"));
        assert!(got.iter().any(|(t, l, n)| t == "1.1 Scope" && *l == 2 && n.as_deref() == Some("1.1")));
        // Running headers and footers are gone.
        assert!(!doc.text.contains("Debian Policy Manual, Release 4.6.2.0"));
        assert!(!doc.text.contains("Chapter 1. About this manual"));
        // Hyphenated line ends are joined; pages are kept.
        assert!(doc.blocks.iter().all(|b| b.pages.is_some()));
    }
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn review_guide_numbers() {
    let bytes = input("data/uslm/USLM-2_0-Review-Guide-v2_0_12.pdf");
    let outline = read_outline(&bytes, &ConvertOptions::default()).unwrap();
    let reference: Vec<(String, u8)> = outline.iter().map(|e| (e.title.clone(), e.level)).collect();
    for use_bookmarks in [false, true] {
        let doc = convert(&bytes, "USLM-2_0-Review-Guide-v2_0_12.pdf", use_bookmarks);
        let got = headings(&doc);
        let r = score(&reference, &got);
        report(&format!("Review Guide, bookmarks {}", if use_bookmarks { "ON" } else { "OFF" }), &r);
        assert!(r.0 >= 0.95 && r.1 >= 0.90);
        let h = got.iter().find(|(t, _, _)| t.starts_with("6.1.2 ")).expect("6.1.2 heading");
        assert_eq!(h.2.as_deref(), Some("6.1.2"));
        assert_eq!(h.1, 3);
    }
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn federal_register_columns() {
    let bytes = input("data/pdf/federal-register-2020-17221.pdf");
    let doc = convert(&bytes, "federal-register-2020-17221.pdf", true);
    let text = &doc.text;
    // Column text reads on within its column: the summary sentence is contiguous.
    assert!(
        text.contains("The FAA proposes to supersede Airworthiness Directive (AD)"),
        "summary sentence broken across columns"
    );
    // Running header removed.
    assert!(!text.contains("Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules"));
    assert!(doc.blocks.iter().all(|b| b.pages.is_some()));
    // Every block's page is within the document.
    assert!(doc.blocks.iter().all(|b| b.pages.unwrap().end <= 15));
}
