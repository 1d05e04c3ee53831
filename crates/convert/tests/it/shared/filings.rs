//! Outlines of company filings (10-K, 10-Q, annual report) against their own bookmarks.
//!
//! For each filing with bookmarks the test converts it twice:
//!
//! - **bookmarks on**: every bookmark must come out as a heading on its destination page, at its
//!   bookmark level, titled as the bookmark says;
//! - **page alone**: the outline and the structure tree are stripped with `qpdf --empty --pages`
//!   (a new file with the same pages and nothing else), so headings come from the page's
//!   typography, numbering and printed contents list only. The reference is then the bookmarks
//!   whose title the page prints (a bookmark such as "Cover Page" or "BLANK (DO NOT REMOVE)" names
//!   no text on the page and cannot be recovered from it); how many were left out is printed.
//!
//! A bookmark is found when a heading, in document order, lies on its destination page (or the
//! next, for a bookmark set just above a page break) and its normalised text equals the
//! bookmark's or one contains the other. Recall = found / bookmarks; level agreement = found at
//! the bookmark's level / found; title equality = headings whose normalised text equals the
//! bookmark title / bookmarks.
//!
//! Four of the eight bookmark outlines are one level (Part I beside Item 1 beside "General"),
//! four nest Items under Parts; their printed contents pages set Parts and Items alike. No outline
//! agrees with both: Folio nests, as the four-level outlines and the form do, and level agreement
//! is asserted against the outlines that have levels.
//!
//! Needs `../shared/data/filings`, `libpdfium.so` and `qpdf`: ignored by a plain `cargo test`.

use folio_convert::pdf::outline_check::{
    document_headings, marks_of, printed_only, score_outline, strip_outline, strip_outline_keeping, Mark,
    OutlineScore,
};
use folio_convert::pdf::{find_pdfium_library, page_texts, read_outline, PdfConverter};
use folio_convert::{ConvertOptions, Converter};
use folio_core::model::Document;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The filing's path; the test fails, saying what is missing, without the filing, PDFium or qpdf.
fn filing(name: &str) -> PathBuf {
    let path = folio_testkit::paths::require_shared(&format!("data/filings/{name}"));
    assert!(
        find_pdfium_library(&ConvertOptions::default()).is_some(),
        "libpdfium.so not found (run scripts/setup-assets.sh or set FOLIO_PDFIUM)"
    );
    assert!(
        Command::new("qpdf").arg("--version").output().is_ok(),
        "qpdf not installed (apt-get install qpdf)"
    );
    path
}

/// A copy of the PDF with the same pages and no outline or structure tree.
fn strip(path: &Path, dir: &Path) -> Vec<u8> {
    let bytes = strip_outline(path, dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(read_outline(&bytes, &ConvertOptions::default()).unwrap().is_empty(), "bookmarks left");
    bytes
}

fn report(label: &str, s: &OutlineScore) {
    eprintln!(
        "{label}: recall {:.3} ({}/{}), level agreement {:.3}, level steps agreeing {:.3}, equal titles {:.3}",
        s.recall(),
        s.found,
        s.marks,
        s.levels(),
        s.shape(),
        s.titles()
    );
    for n in s.notes.iter().take(60) {
        eprintln!("    {n}");
    }
}

fn bookmarks(bytes: &[u8]) -> Vec<Mark> {
    marks_of(read_outline(bytes, &ConvertOptions::default()).unwrap())
}

fn convert(bytes: &[u8], name: &str) -> Document {
    PdfConverter.convert(name, bytes, &ConvertOptions::default()).expect("the filing converts")
}

/// The filing converted from the page alone: its bookmarks and structure tree stripped.
fn page_alone(name: &str) -> Document {
    let dir = tempfile::tempdir().unwrap();
    convert(&strip(&filing(name), dir.path()), name)
}

/// A document's headings and their levels, in order.
fn outline(doc: &Document) -> Vec<(&str, u8)> {
    doc.blocks_with_text().filter_map(|(b, t)| Some((t, b.kind.heading_level()?))).collect()
}

/// What the page alone must recover of one filing's bookmarks (see the module note on one-level
/// outlines).
struct Floors {
    recall: f64,
    /// `None` where the bookmarks are one level: they say which headings are divisions, not how
    /// they nest.
    levels: Option<f64>,
}

fn check(name: &str, floors: Floors) {
    let path = filing(name);
    let bytes = std::fs::read(&path).unwrap();
    let marks = bookmarks(&bytes);
    assert!(marks.len() >= 10, "{name}: {} bookmarks", marks.len());
    let one_level = marks.iter().all(|m| m.level == 1);
    assert_eq!(one_level, floors.levels.is_none(), "{name}: one-level bookmarks: {one_level}");

    let with = convert(&bytes, name);
    let with_score = score_outline(&marks, &document_headings(&with));
    report(&format!("{name}, bookmarks on"), &with_score);
    eprintln!("{name}, bookmarks on: levels from {:?}", with.meta.outline_evidence);

    let dir = tempfile::tempdir().unwrap();
    let stripped = strip(&path, dir.path());
    let texts = page_texts(&bytes, &ConvertOptions::default()).unwrap();
    let (reference, left_out) = printed_only(bookmarks(&bytes), &texts);
    eprintln!("{name}: {} bookmarks name no printed text: {left_out:?}", left_out.len());
    let alone_doc = convert(&stripped, name);
    let alone = score_outline(&reference, &document_headings(&alone_doc));
    report(&format!("{name}, page alone"), &alone);
    eprintln!("{name}, page alone: levels from {:?}", alone_doc.meta.outline_evidence);

    // With bookmarks: every one a heading at its level, titled as it says.
    assert_eq!(with_score.found, with_score.marks, "{name}: bookmarks found");
    assert_eq!(with_score.same_level, with_score.found, "{name}: bookmarks at their level");
    assert!(with_score.titles() >= 0.95, "{name}: equal titles with bookmarks {:.3}", with_score.titles());
    assert!(with.meta.outline_evidence.as_deref().is_some_and(|e| e.contains("bookmarks")));
    assert!(alone.recall() >= floors.recall, "{name}: recall from the page alone {:.3}", alone.recall());
    if let Some(levels) = floors.levels {
        assert!(
            alone.levels() >= levels,
            "{name}: level agreement from the page alone {:.3}",
            alone.levels()
        );
    }
}

// The floors are the figures measured (issue 31's targets are recall 0.95 and level agreement
// 0.90; Intel's levels fall short of them).

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn apple_10k() {
    check("APPLE_2022_10K.pdf", Floors { recall: 0.98, levels: Some(0.98) });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn intel_10k() {
    check("INTEL_2020_10K.pdf", Floors { recall: 0.99, levels: Some(0.88) });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn adobe_10k() {
    check("ADOBE_2016_10K.pdf", Floors { recall: 0.99, levels: Some(0.94) });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn lockheed_martin_10k() {
    check("LOCKHEEDMARTIN_2022_10K.pdf", Floors { recall: 0.98, levels: Some(0.91) });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn fedex_annual_report() {
    check("FEDEX_2023_annualreport.pdf", Floors { recall: 0.99, levels: None });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn nike_10k() {
    check("NIKE_2023_10K.pdf", Floors { recall: 0.99, levels: None });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn pepsico_earnings_release() {
    check("PEPSICO_2023Q1_EARNINGS.pdf", Floors { recall: 0.99, levels: None });
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn amcor_earnings_release() {
    check("AMCOR_2023Q4_EARNINGS.pdf", Floors { recall: 0.99, levels: None });
}

/// The page alone with one page left out as well ([`strip_outline_keeping`], `1-(p-1),(p+1)-z`):
/// no outline, no structure tree, and not that page. The reference is the bookmarks the remaining
/// pages print, moved up a page after the one left out.
fn score_without_page(name: &str, left_out: u32) -> OutlineScore {
    let path = filing(name);
    let dir = tempfile::tempdir().unwrap();
    let pages = format!("1-{},{}-z", left_out - 1, left_out + 1);
    let bytes = strip_outline_keeping(&path, dir.path(), &pages).unwrap_or_else(|e| panic!("{e}"));
    let texts = page_texts(&bytes, &ConvertOptions::default()).unwrap();
    let marks: Vec<Mark> = bookmarks(&std::fs::read(&path).unwrap())
        .into_iter()
        .filter(|m| m.page != left_out)
        .map(|m| Mark { page: if m.page > left_out { m.page - 1 } else { m.page }, ..m })
        .collect();
    let (reference, _) = printed_only(marks, &texts);
    let doc = convert(&bytes, name);
    let score = score_outline(&reference, &document_headings(&doc));
    report(&format!("{name}, page alone without page {left_out}"), &score);
    eprintln!("levels from {:?}", doc.meta.outline_evidence);
    score
}

/// Without its printed contents page, a filing's levels come from its type and numbering alone.
/// Intel's only numbered headings are its Notes, a run nested under "Notes to Consolidated
/// Financial Statements": their levels are relative to that heading, so the type ranks the rest
/// (page banners over section titles over subheadings) instead of every heading coming out at one
/// level (level agreement 0.05 before).
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn levels_hold_without_the_contents_page() {
    for (name, contents, recall, levels) in [
        ("INTEL_2020_10K.pdf", 2, 0.99, 0.80),
        ("APPLE_2022_10K.pdf", 3, 0.98, 0.98),
        ("LOCKHEEDMARTIN_2022_10K.pdf", 2, 0.98, 0.89),
        ("ADOBE_2016_10K.pdf", 2, 0.95, 0.95),
    ] {
        let s = score_without_page(name, contents);
        assert!(s.recall() >= recall, "{name} without its contents page: recall {:.3}", s.recall());
        assert!(s.levels() >= levels, "{name} without its contents page: levels {:.3}", s.levels());
    }
}

/// Below bookmarks coarser than the page, the page's headings add the levels they leave out: the
/// annual report's bookmarks stop at the Items, and its Notes come out under Item 8, beside its
/// statements.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn notes_come_out_below_a_coarse_bookmark() {
    let path = filing("FEDEX_2023_annualreport.pdf");
    let doc = convert(&std::fs::read(&path).unwrap(), "fedex.pdf");
    let heads: Vec<(u8, String)> = doc
        .blocks_with_text()
        .filter_map(|(b, t)| Some((b.kind.heading_level()?, t.to_uppercase())))
        .collect();
    let item8 = heads.iter().position(|(_, t)| t.starts_with("ITEM 8.")).expect("Item 8");
    let item9 = heads.iter().position(|(_, t)| t.starts_with("ITEM 9.")).expect("Item 9");
    let (level8, _) = heads[item8];
    let notes: Vec<&(u8, String)> =
        heads[item8..item9].iter().filter(|(_, t)| t.starts_with("NOTE ")).collect();
    assert!(notes.len() >= 15, "{} Notes under Item 8", notes.len());
    assert!(notes.iter().all(|(lv, _)| *lv > level8), "Notes nest under Item 8: {notes:?}");
    assert_eq!(heads[item9].0, level8, "Item 9 stays beside Item 8");
    // No Note is a part of the statement above it: with no Notes title of their own, they stand
    // beside the statements.
    let statements: Vec<u8> = heads[item8..item9]
        .iter()
        .filter(|(_, t)| t.starts_with("CONSOLIDATED "))
        .map(|(lv, _)| *lv)
        .collect();
    assert!(statements.len() >= 5, "the statements under Item 8: {statements:?}");
    assert!(
        notes.iter().all(|(lv, _)| Some(lv) == statements.iter().min()),
        "Notes beside the statements ({statements:?}): {notes:?}"
    );
}

/// A 10-K's cover wrapped inside an annual report, after the letter to stockholders (page 4 of
/// FedEx's), is a form to tick: only its title (and, with bookmarks, the bookmark) may head
/// anything there, not "(Mark One)", "OR" or "Commission file number 1-15829".
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_cover_inside_a_report_makes_no_sections() {
    let path = filing("FEDEX_2023_annualreport.pdf");
    let dir = tempfile::tempdir().unwrap();
    let alone = convert(&strip(&path, dir.path()), "fedex.pdf");
    // With bookmarks, the page's own headings refine the bookmark over the cover; its lines must
    // not either. The bookmark itself stays.
    let marked = convert(&std::fs::read(&path).unwrap(), "fedex.pdf");
    for (mode, doc, most) in [("page alone", &alone, 1), ("bookmarks on", &marked, 2)] {
        let on_cover: Vec<&str> = doc
            .blocks_with_text()
            .filter(|(b, _)| b.kind.heading_level().is_some() && b.pages.is_some_and(|p| p.start == 4))
            .map(|(_, t)| t)
            .collect();
        assert!(on_cover.len() <= most, "{mode}, headings on the cover: {on_cover:?}");
        // The letter before it keeps its headings.
        let letter = doc
            .blocks_with_text()
            .filter(|(b, _)| b.kind.heading_level().is_some() && b.pages.is_some_and(|p| p.start <= 3))
            .count();
        assert!(letter >= 3, "{mode}: {letter} headings in the letter");
        // The company's street address, on the report's front and back covers, heads nothing.
        let addresses: Vec<&str> = doc
            .blocks_with_text()
            .filter(|(b, t)| b.kind.heading_level().is_some() && t.contains("Shady Grove Road"))
            .map(|(_, t)| t)
            .collect();
        assert!(addresses.is_empty(), "{mode}: {addresses:?}");
    }
}

/// The same PDF gives the same outline on every conversion. Maps iterate in a new order in every
/// process and every map, and a tie between two heading styles once went either way (eBay's MD&A
/// subheadings at level 3 or 4 from run to run).
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_filing_converts_the_same_every_time() {
    let path = filing("EBAY_2023Q2_10Q.pdf");
    let bytes = std::fs::read(&path).unwrap();
    let outline = |doc: Document| -> Vec<(String, u8)> {
        doc.blocks_with_text().filter_map(|(b, t)| Some((t.to_string(), b.kind.heading_level()?))).collect()
    };
    let first = outline(convert(&bytes, "ebay.pdf"));
    for _ in 0..5 {
        assert_eq!(outline(convert(&bytes, "ebay.pdf")), first);
    }
}

/// A filing's exhibits are documents of their own, each in its own type: eBay's 10-Q carries a
/// credit agreement set in another face and size, then a one-page loan notice form, then the
/// certifications. The form's fields and footnotes ("3. Resulting Borrowing[s]:", "By:", "4 Must
/// be a Business Day.") are its body text, not headings; neither are an agreement's definitions
/// ("“Term SOFR Borrowing” means …") or its asides ("(Remainder of Page Intentionally Left
/// Blank)"); and "ARTICLE VII.NEGATIVE COVENANTS", its space lost, is an Article like the others.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn an_exhibit_in_its_own_type_makes_no_headings_of_its_body() {
    let doc = convert(&std::fs::read(filing("EBAY_2023Q2_10Q.pdf")).unwrap(), "ebay.pdf");
    let headings: Vec<(String, u8, u32)> = doc
        .blocks_with_text()
        .filter_map(|(b, t)| Some((t.to_string(), b.kind.heading_level()?, b.pages?.start)))
        .collect();
    let on_form: Vec<&String> = headings.iter().filter(|(_, _, p)| *p == 184).map(|(t, _, _)| t).collect();
    assert!(on_form.is_empty(), "headings on the loan notice form: {on_form:?}");
    for (t, _, _) in &headings {
        assert!(!t.starts_with('“') && !t.starts_with('('), "not a heading: {t}");
    }
    let article = |n: &str| headings.iter().find(|(t, _, _)| t.starts_with(n)).map(|(_, lv, _)| *lv);
    let vi = article("ARTICLE VI. ").expect("Article VI");
    assert_eq!(article("ARTICLE VII."), Some(vi), "Article VII beside Article VI");
    assert_eq!(article("ARTICLE VIII. "), Some(vi));
}

/// A table's column heads set apart from its body are no headings: words in cells apart ("Name
/// and Office   Age") or labels side by side ("Volume(a)" over one column, "Revenue" over
/// another; "Exhibit" / "Description of Exhibit" / "Number").
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_table_s_column_heads_are_no_headings() {
    for (name, heads) in [
        (
            "FEDEX_2023_annualreport.pdf",
            &["Name and Office Age", "Exhibit Description of Exhibit Number"][..],
        ),
        ("PEPSICO_2023Q1_EARNINGS.pdf", &["Volume(a) Revenue", "Percentage Point Impact % Change"][..]),
        ("INTEL_2020_10K.pdf", &["Name Current Title Age Experience"][..]),
    ] {
        let doc = page_alone(name);
        for (t, _) in outline(&doc) {
            assert!(!heads.contains(&t), "{name}: a column head as a heading: {t}");
        }
        assert!(
            heads.iter().all(|h| doc.text.contains(h.split(' ').next().unwrap())),
            "{name}: heads kept as text"
        );
    }
}

/// The company's name printed large over each statement's title ("NIKE, INC." over
/// "CONSOLIDATED BALANCE SHEETS", five pages running) is a caption, not a division: as a heading
/// it took the statements and every Note out of Item 8. Page alone, they sit under Item 8.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_caption_over_each_statement_heads_nothing() {
    let doc = page_alone("NIKE_2023_10K.pdf");
    let headings = outline(&doc);
    assert!(!headings.iter().any(|(t, _)| *t == "NIKE, INC."), "the caption is no heading");
    let level = |start: &str| headings.iter().find(|(t, _)| t.starts_with(start)).map(|(_, lv)| *lv);
    let item8 = level("ITEM 8.").expect("Item 8");
    for under in ["CONSOLIDATED BALANCE SHEETS", "NOTE 1 ", "NOTE 19 "] {
        assert!(level(under).is_some_and(|lv| lv > item8), "{under} under Item 8: {headings:?}");
    }
    // Item 8's section runs on to Item 9: nothing between them at Item 8's level or above.
    let from = headings.iter().position(|(t, _)| t.starts_with("ITEM 8.")).unwrap();
    let to = headings.iter().position(|(t, _)| t.starts_with("ITEM 9.")).expect("Item 9");
    assert!(headings[from + 1..to].iter().all(|(_, lv)| *lv > item8), "{:?}", &headings[from..to]);
}

/// A 10-Q without its contents page: its Parts still hold its Items. "PART I: FINANCIAL
/// INFORMATION" came right after the cover's "FORM 10-Q", under which the Parts' run nested a
/// level down, to their own Items' level, and "PART II" fell under Item 4. The document's title heads
/// no run: Parts at the top, Items under them.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_filing_s_parts_hold_its_items_without_its_contents_page() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = strip_outline_keeping(&filing("EBAY_2023Q2_10Q.pdf"), dir.path(), "1,3-z").unwrap();
    let doc = convert(&bytes, "ebay.pdf");
    let headings = outline(&doc);
    let level = |start: &str| headings.iter().find(|(t, _)| t.starts_with(start)).map(|(_, lv)| *lv);
    assert_eq!(level("PART I:"), Some(1), "{headings:?}");
    assert_eq!(level("PART II:"), Some(1), "{headings:?}");
    assert_eq!(level("Item 1: Financial Statements"), Some(2), "{headings:?}");
    assert_eq!(level("Item 4: Controls"), Some(2), "{headings:?}");
    assert_eq!(level("Item 1: Legal Proceedings"), Some(2), "{headings:?}");
}

/// "See notes to consolidated financial statements." under a statement is a note, not a heading:
/// on Oracle's statement of comprehensive income, whose figures are set smaller than the note,
/// the note was larger than that page's body and came out as a section under the statement.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_statement_s_note_to_see_the_notes_heads_nothing() {
    let doc = convert(&std::fs::read(filing("ORACLE_2023_10K.pdf")).unwrap(), "oracle.pdf");
    let headings = outline(&doc);
    assert!(headings.iter().any(|(t, _)| t.starts_with("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME")));
    assert!(!headings.iter().any(|(t, _)| t.starts_with("See notes")), "{headings:?}");
}

/// An earnings release's financial statements, appended after its text in a smaller face (often
/// another typeface, the tables'), are schedules of the release, not sections of its last
/// subheading: they stood under "Prepared Management Remarks …" (PepsiCo), "Fiscal 2024 Guidance"
/// (Amcor) and "FORWARD-LOOKING STATEMENTS" (McDonald's, whose title begins with the company's
/// name). Page alone, each stands at the release's top level, as the releases' bookmarks put them.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_release_s_statements_stand_at_its_top_level() {
    for name in ["PEPSICO_2023Q1_EARNINGS.pdf", "AMCOR_2023Q4_EARNINGS.pdf", "MCDONALDS_2023Q1_EARNINGS.pdf"]
    {
        let doc = page_alone(name);
        let headings = outline(&doc);
        let statements: Vec<&(&str, u8)> = headings
            .iter()
            .filter(|(t, _)| {
                let t = t.to_lowercase();
                t.contains("consolidated statement") || t.contains("consolidated balance sheet")
            })
            .collect();
        assert!(!statements.is_empty(), "{name}: no statement among {headings:?}");
        assert!(statements.iter().all(|(_, lv)| *lv == 1), "{name}: {headings:?}");
    }
}

/// The auditor's report printed after the last Note is a part of Item 8 beside the Notes, not a
/// subsection of the last Note: Apple sets Items, Notes and subheadings in one bold face, and the
/// report fell under "Note 11 – Segment Information" with its own subheadings beside it.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn the_auditor_s_report_after_the_notes_stands_beside_them() {
    let doc = page_alone("APPLE_2022_10K.pdf");
    let headings = outline(&doc);
    let level = |start: &str| headings.iter().find(|(t, _)| t.starts_with(start)).map(|(_, lv)| *lv);
    let notes = level("Notes to Consolidated Financial Statements").expect("the Notes' title");
    let reports: Vec<u8> = headings
        .iter()
        .filter(|(t, _)| t.starts_with("Report of Independent Registered"))
        .map(|(_, lv)| *lv)
        .collect();
    assert_eq!(reports, [notes, notes], "{headings:?}");
    assert_eq!(level("Opinion on the Financial Statements"), Some(notes + 1));
}

/// An exhibit printed larger than the report it is filed with (Lockheed's one-page plan
/// amendments in 12 pt after a 10-K in 10) is read at its own size: its numbered clauses and its
/// signature block ("By: _/s/ …", "Date: …") are no headings, and its bold label ("Exhibit
/// 10.13", set small at the top) still is.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn an_exhibit_set_larger_than_the_report_makes_no_headings_of_its_body() {
    let doc = page_alone("LOCKHEEDMARTIN_2022_10K.pdf");
    let on_amendments: Vec<&str> = doc
        .blocks_with_text()
        .filter(|(b, _)| {
            b.kind.heading_level().is_some() && b.pages.is_some_and(|p| (112..=113).contains(&p.start))
        })
        .map(|(_, t)| t)
        .collect();
    for t in &on_amendments {
        assert!(
            !t.starts_with("By:") && !t.starts_with("Date:") && !t.starts_with("1. "),
            "{on_amendments:?}"
        );
    }
    assert!(on_amendments.contains(&"Exhibit 10.13"), "{on_amendments:?}");
}

/// A pull quote's first lines, set large, are no headings: Intel opens a quotation over each
/// segment's pages ("\"We are driving game-"), which it closes lines later.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_pull_quote_makes_no_heading() {
    let doc = page_alone("INTEL_2020_10K.pdf");
    let quotes: Vec<&str> = doc
        .blocks_with_text()
        .filter(|(b, t)| b.kind.heading_level().is_some() && t.starts_with(['"', '“']))
        .map(|(_, t)| t)
        .collect();
    assert!(quotes.is_empty(), "{quotes:?}");
    assert!(doc.text.contains("We are driving game"), "the quote's text is kept");
}

/// Exhibit labels at the top of consecutive pages ("Exhibit 31.01", "31.02", "32.01", "32.02" on
/// pages 185-188 of eBay's 10-Q) step by one from page to page, but in one number, then the other:
/// they are the exhibits' headings, not a running header counting pages. Each exhibit's content
/// nests under its label: the credit agreement under Exhibit 10.02, a certification under 31.01,
/// the last under 32.02.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_filing_s_exhibits_head_their_content() {
    let path = filing("EBAY_2023Q2_10Q.pdf");
    let dir = tempfile::tempdir().unwrap();
    let doc = convert(&strip(&path, dir.path()), "ebay.pdf");
    let heads = outline(&doc);
    let at = |title: &str| heads.iter().position(|(t, _)| t.starts_with(title));
    for label in ["Exhibit 10.02", "Exhibit 31.01", "Exhibit 31.02", "Exhibit 32.01", "Exhibit 32.02"] {
        assert!(at(label).is_some(), "{label} is a heading: {heads:?}");
    }
    let under = |label: &str, title: &str| {
        let (l, t) = (at(label).unwrap(), at(title).unwrap_or_else(|| panic!("{title}")));
        t > l && heads[l + 1..=t].iter().all(|(_, lv)| *lv > heads[l].1)
    };
    assert!(under("Exhibit 10.02", "CREDIT AGREEMENT"), "{heads:?}");
    assert!(under("Exhibit 31.01", "CERTIFICATION OF CHIEF EXECUTIVE OFFICER"), "{heads:?}");
    // The last exhibit's content too, with no exhibit after it to close it.
    assert!(
        under("Exhibit 32.02", "CERTIFICATION OF CHIEF FINANCIAL OFFICER, AS REQUIRED BY SECTION 906"),
        "{heads:?}"
    );
}

/// Faces of one size and weight rank as each filing sets them: FedEx's MD&A puts bold capitals
/// ("FINANCIAL CONDITION") over bold italic capitals ("LIQUIDITY"), and the description of
/// securities Apple files as Exhibit 4.1 puts bold ("Common Stock") over bold italic ("Voting
/// Rights"); eBay's MD&A indents bold italic ("Cash Flows") a step under bold ("Liquidity and
/// Capital Resources") and italic ("Continuing Operating Activities") a step under that. All came
/// out as siblings, one face being as large and as bold as the other.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn faces_of_one_size_rank_as_the_filing_sets_them() {
    for (name, section, subsections) in [
        ("FEDEX_2023_annualreport.pdf", "FINANCIAL CONDITION", &["LIQUIDITY", "CAPITAL RESOURCES"][..]),
        ("APPLE_2022_10K.pdf", "Common Stock", &["Fully Paid and Nonassessable", "Voting Rights"][..]),
        ("EBAY_2023Q2_10Q.pdf", "Liquidity and Capital Resources", &["Cash Flows"][..]),
        ("EBAY_2023Q2_10Q.pdf", "Cash Flows", &["Continuing Operating Activities"][..]),
    ] {
        let doc = page_alone(name);
        let headings = outline(&doc);
        let at = headings.iter().position(|(t, _)| *t == section).expect(section);
        let level = headings[at].1;
        for sub in subsections {
            let found = headings[at + 1..].iter().find(|(t, _)| t == sub).map(|(_, lv)| *lv);
            assert_eq!(found, Some(level + 1), "{name}: {sub} under {section}: {headings:?}");
        }
    }
}

/// Below coarse bookmarks the page's headings nest as they do from the page alone: FedEx's
/// bookmarks stop at the Items, and Item 7's headings came out in one flat list under it
/// ("RESULTS OF OPERATIONS AND OUTLOOK" beside its "CONSOLIDATED RESULTS" and their "Revenue"),
/// though the page alone ranks them in three.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn the_page_nests_its_headings_below_coarse_bookmarks() {
    let name = "FEDEX_2023_annualreport.pdf";
    let doc = convert(&std::fs::read(filing(name)).unwrap(), name);
    let headings = outline(&doc);
    let level = |title: &str| headings.iter().find(|(t, _)| *t == title).map(|(_, lv)| *lv);
    let item = headings
        .iter()
        .find(|(t, _)| t.to_lowercase().starts_with("item 7."))
        .map(|(_, lv)| *lv)
        .expect("Item 7");
    assert_eq!(level("RESULTS OF OPERATIONS AND OUTLOOK"), Some(item + 1), "{headings:?}");
    assert_eq!(level("CONSOLIDATED RESULTS"), Some(item + 2), "{headings:?}");
    assert_eq!(level("Revenue"), Some(item + 3), "{headings:?}");
}

/// A heading the contents list leaves out, set exactly as the listed entry before it, stands
/// beside that entry: Intel's contents page lists "Market for Our Common Stock" but not "Stock
/// Performance Graph" and "Issuer Purchases of Equity Securities", printed after it in the same
/// face, and lists "Form 10-K Cross-Reference Index" but not "Signatures", the next page's banner.
/// They came out as subsections of the listed heading. A listed division's own banner-set parts
/// ("Report of Independent Registered Public Accounting Firm" under "Financial Statements and
/// Supplemental Details", whose entries the list indents under it) stay under it.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn a_heading_set_as_the_listed_one_before_it_stands_beside_it() {
    let doc = page_alone("INTEL_2020_10K.pdf");
    let headings = outline(&doc);
    let level = |title: &str| headings.iter().find(|(t, _)| *t == title).map(|(_, lv)| *lv);
    let market = level("Market for Our Common Stock").expect("listed");
    assert_eq!(level("Stock Performance Graph"), Some(market), "{headings:?}");
    assert_eq!(level("Issuer Purchases of Equity Securities"), Some(market), "{headings:?}");
    assert_eq!(level("Signatures"), level("Form 10-K Cross-Reference Index"), "{headings:?}");
    let statements = level("Financial Statements and Supplemental Details").expect("listed");
    assert_eq!(level("Report of Independent Registered Public Accounting Firm"), Some(statements + 1));
}

/// Underlined headings: Amcor's segment sections set "June 2023 quarter" underlined at the body's
/// size and weight, and Oracle's business description "Oracle Autonomous Database" so; neither
/// was a heading, their text running on in the section before. Oracle sets "Oracle Cloud
/// Infrastructure (OCI)" in bold italic underlined under "Oracle Infrastructure Technologies –
/// Cloud and License Business Offerings" in bold italic, and its MD&A's "Impact of Acquisitions"
/// in bold underlined under "Results of Operations" in bold, all one size: underline is a face
/// of its own, ranked as the filing uses it, and each pair were siblings.
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn underlined_lines_head_sections_and_rank_as_a_face() {
    let doc = page_alone("AMCOR_2023Q4_EARNINGS.pdf");
    let headings = outline(&doc);
    assert!(headings.iter().filter(|(t, _)| *t == "June 2023 quarter").count() >= 3, "{headings:?}");
    let doc = convert(&std::fs::read(filing("ORACLE_2023_10K.pdf")).unwrap(), "oracle.pdf");
    let headings = outline(&doc);
    let level = |title: &str| headings.iter().find(|(t, _)| *t == title).map(|(_, lv)| *lv);
    assert!(level("Oracle Autonomous Database").is_some(), "{headings:?}");
    let offerings = level("Oracle Infrastructure Technologies – Cloud and License Business Offerings");
    assert_eq!(level("Oracle Cloud Infrastructure (OCI)"), offerings.map(|lv| lv + 1), "{headings:?}");
    // Plain underlined, the one heading so set, under the bold italic underlined before it.
    let licences = level("Oracle Database Licenses");
    assert_eq!(level("Oracle Autonomous Database"), licences.map(|lv| lv + 1), "{headings:?}");
    // The MD&A: bold "Results of Operations" over bold underlined "Impact of Acquisitions".
    let results = level("Results of Operations").expect("Results of Operations");
    assert_eq!(level("Impact of Acquisitions"), Some(results + 1), "{headings:?}");
}

/// An index of the statements or the Notes further in is no text to search, and its title heads
/// what follows: Nike's Notes open with an index whose labels ("Note 1") and titles sit a line
/// apart, and Intel's index carries the page column's header ("Index to Consolidated Financial
/// Statements ⟶ Page"); the index stayed as text, the Notes' title was lost, and Intel's index
/// title, read as a table's column heads, was no heading. With bookmarks that stop at the Items,
/// Nike's MD&A subheadings share the Notes' style, which their run puts two levels under the Items:
/// the type still ranks them ("REVENUES › FISCAL 2023 COMPARED TO FISCAL 2022").
#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn an_index_further_in_leaves_its_title_to_head_the_part() {
    let doc = page_alone("NIKE_2023_10K.pdf");
    let headings = outline(&doc);
    let notes = headings.iter().position(|(t, _)| *t == "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS");
    let notes = notes.unwrap_or_else(|| panic!("the Notes' title: {headings:?}"));
    let first = headings.iter().position(|(t, _)| t.starts_with("NOTE 1 ")).expect("Note 1");
    assert!(first > notes && headings[first].1 == headings[notes].1 + 1, "{headings:?}");
    let doc = page_alone("INTEL_2020_10K.pdf");
    assert!(outline(&doc).iter().any(|(t, _)| *t == "Index to Consolidated Financial Statements"));
    let name = "NIKE_2023_10K.pdf";
    let doc = convert(&std::fs::read(filing(name)).unwrap(), name);
    let headings = outline(&doc);
    let at = headings.iter().position(|(t, _)| *t == "REVENUES").expect("REVENUES");
    assert_eq!(headings[at + 1].1, headings[at].1 + 1, "{headings:?}");
}
