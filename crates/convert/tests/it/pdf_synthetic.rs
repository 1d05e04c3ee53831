//! PDF converter tests on PDFs generated here: typed errors (encrypted, truncated, garbage, too
//! many pages, missing engine) and layout rules (running headers, page numbers, contents pages,
//! hyphenation, cross-references that must not become headings, numbered heading levels).
//!
//! Skips (with a message) when `libpdfium.so` is not found.

use folio_convert::pdf::{find_pdfium_library, PdfConverter};
use folio_convert::{convert_bytes, convert_file_guarded_reporting, ConvertOptions, Converter, ErrorKind};
use folio_core::cancel::Cancel;
use folio_core::progress::Stage;

use crate::common::headings;
use folio_testkit::pdf::{text_op, text_pdf};

/// Fails the test when PDFium is missing, saying how to get it.
fn require_engine() {
    assert!(
        find_pdfium_library(&ConvertOptions::default()).is_some(),
        "libpdfium.so not found (set FOLIO_PDFIUM or run scripts/setup-assets.sh)"
    );
}

/// A text show operation: font 1 = Helvetica, 2 = Helvetica-Bold.
fn text(x: f32, y: f32, size: f32, bold: bool, s: &str) -> String {
    text_op(x, y, size, bold, s)
}

/// A PDF with one content stream per page and an optional trailer addition (e.g. /Encrypt).
fn build_pdf(pages: &[String], extra_objects: &[String], trailer_extra: &str) -> Vec<u8> {
    text_pdf(pages, extra_objects, trailer_extra, "")
}

/// Body lines at 10 pt, 12 pt apart, from `y` down; returns the next free y.
fn body(out: &mut String, mut y: f32, lines: &[&str]) -> f32 {
    for l in lines {
        out.push_str(&text(72.0, y, 10.0, false, l));
        y -= 12.0;
    }
    y - 8.0
}

/// A five-page handbook: cover, contents page, three content pages with running header/footer.
fn handbook() -> Vec<u8> {
    let mut pages = Vec::new();
    pages.push(text(150.0, 600.0, 24.0, true, "Synthetic Rules Handbook"));
    let mut toc = text(72.0, 720.0, 16.0, true, "CONTENTS");
    for (i, (t, p)) in [
        ("1 Scope", 3),
        ("1.1 Purpose", 3),
        ("1.2 Application", 3),
        ("2 Rules", 4),
        ("2.1 General rules", 4),
        ("2.2 Special rules", 5),
    ]
    .iter()
    .enumerate()
    {
        toc.push_str(&text(
            72.0,
            690.0 - 16.0 * i as f32,
            10.0,
            false,
            &format!("{t} ........................................ {p}"),
        ));
    }
    pages.push(toc);
    let filler = [
        "This handbook sets out the rules that apply to every member of the association and to",
        "its officers. The rules are binding from the date of adoption and remain in force until",
        "they are amended or repealed by a resolution of the general meeting of the members.",
    ];
    let headings: [&[(&str, f32)]; 3] = [
        &[("1 Scope", 16.0), ("1.1 Purpose", 13.0), ("1.2 Application", 13.0)],
        &[("2 Rules", 16.0), ("2.1 General rules", 13.0)],
        &[("2.2 Special rules", 13.0)],
    ];
    for (k, hs) in headings.iter().enumerate() {
        let mut c = text(72.0, 760.0, 9.0, false, "Synthetic Rules Handbook - Draft for consultation");
        c.push_str(&text(300.0, 30.0, 9.0, false, &format!("{}", k + 1)));
        let mut y = 720.0;
        for (h, size) in hs.iter() {
            c.push_str(&text(72.0, y, *size, true, h));
            y -= size * 2.0;
            y = body(&mut c, y, &filler);
            if *h == "1.1 Purpose" {
                // A cross-reference at the start of a line inside a paragraph, and a hyphenated word.
                y = body(
                    &mut c,
                    y,
                    &[
                        "The purpose of these rules is explained in more detail in the annex, where",
                        "4.9 of the annex explains how the rules relate to the articles of the regu-",
                        "lation adopted by the members at the founding meeting of the association.",
                    ],
                );
            }
        }
        pages.push(c);
    }
    build_pdf(&pages, &[], "")
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn handbook_structure() {
    require_engine();
    let bytes = handbook();
    for use_bookmarks in [false, true] {
        let options = ConvertOptions { use_bookmarks, ..ConvertOptions::default() };
        let doc = PdfConverter.convert("handbook.pdf", &bytes, &options).expect("converts");
        let got = headings(&doc);
        // The contents page's title stays a heading of its own (as the filings' bookmarks have
        // one), at the top level; the entries under it are skipped as text.
        let mut want: Vec<(String, u8, Option<String>)> = vec![("CONTENTS".to_string(), 1, None)];
        want.extend(
            [
                ("1 Scope", 1, "1"),
                ("1.1 Purpose", 2, "1.1"),
                ("1.2 Application", 2, "1.2"),
                ("2 Rules", 1, "2"),
                ("2.1 General rules", 2, "2.1"),
                ("2.2 Special rules", 2, "2.2"),
            ]
            .iter()
            .map(|(t, l, n)| (t.to_string(), *l, Some(n.to_string()))),
        );
        let got_body: Vec<_> =
            got.iter().filter(|(t, _, _)| t != "Synthetic Rules Handbook").cloned().collect();
        assert_eq!(got_body, want, "use_bookmarks={use_bookmarks}");
        assert_eq!(doc.meta.title, "Synthetic Rules Handbook");
        assert_eq!(doc.meta.page_count, Some(5));
        let text = &doc.text;
        assert!(!text.contains("Draft for consultation"), "running header kept");
        assert!(!text.contains("....."), "contents page leaked");
        assert!(text.contains("articles of the regulation adopted"), "hyphenation not joined: {text}");
        assert!(text.contains("where 4.9 of the annex explains"), "cross-reference split off");
        assert!(got.iter().all(|(t, _, _)| !t.contains("4.9")));
        // Page numbers are gone and pages are kept.
        assert!(doc.blocks.iter().all(|b| doc.block_text(b).trim() != "2"));
        let scope = doc.blocks.iter().find(|b| doc.block_text(b) == "2 Rules").unwrap();
        assert_eq!(scope.pages.unwrap().start, 4);
    }
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_chapter_heading_that_opens_the_page_of_its_own_number_is_kept() {
    // Page n opens with chapter "n …" in the top margin: a large bold heading, not a running
    // header with a page number ("4 Chapter 1. About"), which is set in small type. The page
    // numbers in the footer are still removed.
    require_engine();
    let filler = [
        "The members of the association agree to the rules in this chapter and to any guidance that",
        "the committee publishes on them from time to time, as set out in the minutes of its meetings.",
    ];
    let pages: Vec<String> = (1..=4)
        .map(|n| {
            let mut c = text(
                72.0,
                716.0,
                14.0,
                true,
                &format!("{n} Chapter {}", ["One", "Two", "Three", "Four"][n - 1]),
            );
            let mut y = 690.0;
            for k in 1..=2 {
                c.push_str(&text(72.0, y, 11.0, true, &format!("{n}.{k} Part {k} of chapter {n}")));
                y = body(&mut c, y - 18.0, &filler);
            }
            c.push_str(&text(300.0, 30.0, 9.0, false, &n.to_string()));
            c
        })
        .collect();
    let doc = PdfConverter
        .convert("chapters.pdf", &build_pdf(&pages, &[], ""), &ConvertOptions::default())
        .unwrap();
    let got: Vec<(String, u8)> = headings(&doc).into_iter().map(|(t, l, _)| (t, l)).collect();
    let want: Vec<(String, u8)> = (1..=4)
        .flat_map(|n| {
            let chapter = format!("{n} Chapter {}", ["One", "Two", "Three", "Four"][n - 1]);
            [
                (chapter, 1),
                (format!("{n}.1 Part 1 of chapter {n}"), 2),
                (format!("{n}.2 Part 2 of chapter {n}"), 2),
            ]
        })
        .collect();
    assert_eq!(got, want);
    assert!(
        doc.blocks.iter().all(|b| !["1", "2", "3", "4"].contains(&doc.block_text(b).trim())),
        "page numbers kept"
    );
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn pages_are_reported_as_they_are_read_in_a_worker_process_and_on_a_thread() {
    require_engine();
    let bytes = handbook();
    // Pages read, then the steps of the layout analysis after them.
    let want: Vec<(Stage, usize, usize)> =
        (1..=5).map(|d| (Stage::Converting, d, 5)).chain((0..=4).map(|d| (Stage::Analysing, d, 4))).collect();
    let mut seen = Vec::new();
    PdfConverter
        .convert_reporting("handbook.pdf", &bytes, &ConvertOptions::default(), &mut |s| {
            seen.push((s.stage, s.done, s.total))
        })
        .unwrap();
    assert_eq!(seen, want);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("handbook.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let worker = std::path::PathBuf::from(env!("CARGO_BIN_EXE_folio-convert-worker"));
    for worker in [Some(worker), None] {
        let options = ConvertOptions { worker: worker.clone(), ..ConvertOptions::default() };
        let mut seen = Vec::new();
        let doc = convert_file_guarded_reporting(&path, &options, &Cancel::new(), &mut |s| {
            seen.push((s.stage, s.done, s.total))
        })
        .unwrap();
        assert_eq!(doc.meta.page_count, Some(5));
        assert_eq!(seen, want, "worker {worker:?}");
    }
    // Formats without pages say nothing.
    let md = dir.path().join("a.md");
    std::fs::write(&md, "# 1 Scope\n\nText.\n").unwrap();
    let mut seen = 0;
    convert_file_guarded_reporting(&md, &ConvertOptions::default(), &Cancel::new(), &mut |_| seen += 1)
        .unwrap();
    assert_eq!(seen, 0);
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn encrypted_pdf_is_typed() {
    require_engine();
    // Standard security handler, revision 2, with a user password: the empty password fails.
    let encrypt =
        format!("<< /Filter /Standard /V 1 /R 2 /O <{}> /U <{}> /P -4 >>", "41".repeat(32), "5a".repeat(32));
    let pages = vec![text(72.0, 700.0, 12.0, false, "secret")];
    let n_objects = 4 + 2 * pages.len();
    let bytes = build_pdf(
        &pages,
        &[encrypt],
        &format!(
            "/Encrypt {} 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]",
            n_objects + 1
        ),
    );
    let err = PdfConverter.convert("locked.pdf", &bytes, &ConvertOptions::default()).unwrap_err();
    assert_eq!(err, ErrorKind::Encrypted);
    assert_eq!(
        convert_bytes("locked.pdf", &bytes, &ConvertOptions::default()).unwrap_err(),
        ErrorKind::Encrypted
    );
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn broken_pdfs_are_typed_and_never_panic() {
    require_engine();
    let good = handbook();
    let options = ConvertOptions::default();
    // Truncated at many points.
    for cut in [10, 100, good.len() / 3, good.len() / 2, good.len() - 40] {
        let err = PdfConverter.convert("t.pdf", &good[..cut], &options).unwrap_err();
        assert!(matches!(err, ErrorKind::Corrupt(_)), "cut {cut}: {err:?}");
    }
    // Garbage with PDF markers; a damaged xref; bytes flipped in the middle.
    let mut garbage = b"%PDF-1.7\n".to_vec();
    garbage.extend((0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    garbage.extend(b"\n%%EOF\n");
    assert!(matches!(PdfConverter.convert("g.pdf", &garbage, &options), Err(ErrorKind::Corrupt(_))));
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    for b in &mut flipped[mid..mid + 200] {
        *b = b.wrapping_add(77);
    }
    // Either recovered or a typed error; never a panic.
    let _ = PdfConverter.convert("f.pdf", &flipped, &options);
    let no_pages = build_pdf(&[], &[], "");
    assert!(PdfConverter.convert("e.pdf", &no_pages, &options).is_err());
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn page_limit_and_missing_engine() {
    require_engine();
    let bytes = handbook();
    let options = ConvertOptions { max_pages: 3, ..ConvertOptions::default() };
    assert_eq!(
        PdfConverter.convert("h.pdf", &bytes, &options).unwrap_err(),
        ErrorKind::TooManyPages { pages: 5, limit: 3 }
    );
    let options = ConvertOptions {
        pdfium_library: Some("/nonexistent/libpdfium.so".into()),
        ..ConvertOptions::default()
    };
    assert!(matches!(PdfConverter.convert("h.pdf", &bytes, &options), Err(ErrorKind::PdfEngineMissing(_))));
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_cyclic_outline_is_read_once() {
    require_engine();
    // Two bookmarks whose /Next links form a loop (A → B → A), and A is its own first child.
    let pages = vec![format!(
        "{}{}",
        text(72.0, 720.0, 16.0, true, "1 Introduction"),
        text(72.0, 690.0, 10.0, false, "The rules apply to every member of the association.")
    )];
    let extra = [
        "<< /Type /Outlines /First 8 0 R /Last 9 0 R /Count 2 >>".to_string(),
        "<< /Title (1 Introduction) /Parent 7 0 R /Next 9 0 R /First 8 0 R /Dest [5 0 R /XYZ 0 792 0] >>"
            .to_string(),
        "<< /Title (2 Rules) /Parent 7 0 R /Prev 8 0 R /Next 8 0 R /Dest [5 0 R /XYZ 0 700 0] >>".to_string(),
    ];
    let pdf = text_pdf(&pages, &extra, "", "/Outlines 7 0 R");
    let outline = folio_convert::pdf::read_outline(&pdf, &ConvertOptions::default()).unwrap();
    let titles: Vec<&str> = outline.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(titles, ["1 Introduction", "2 Rules"]);
    let doc = convert_bytes("loop.pdf", &pdf, &ConvertOptions::default()).unwrap();
    assert!(doc.blocks.len() < 10, "{} blocks from a one-page PDF", doc.blocks.len());
}

/// A filing's last pages: Part IV, Item 15 with the Notes to the statements (numbered "1.",
/// "2.", "15." under an unnumbered title), a pull quote broken off mid-sentence, a lead sentence
/// set large, and Item 16.
fn filing_tail() -> Vec<u8> {
    let filler = [
        "The financial statements are prepared in conformity with accounting principles generally",
        "accepted in the United States and include the accounts of the company and its subsidiaries.",
    ];
    let mut p1 = text(72.0, 720.0, 16.0, true, "PART IV");
    p1.push_str(&text(72.0, 690.0, 12.0, true, "Item 15. Exhibits and Financial Statement Schedules"));
    let mut y = body(&mut p1, 666.0, &filler);
    // A pull quote set large, whose sentence runs on in the body's size.
    p1.push_str(&text(72.0, y - 10.0, 14.0, true, "Revenue grew in every segment this year, driven"));
    y = body(&mut p1, y - 26.0, &["by demand for our services and a weaker dollar over the year.", ""]);
    // A lead sentence set larger than the body: no heading.
    p1.push_str(&text(
        72.0,
        y - 10.0,
        12.0,
        false,
        "The Company provides guidance on a basis that we cannot predict for all of the year.",
    ));
    body(&mut p1, y - 30.0, &filler);
    let mut p2 = text(72.0, 720.0, 12.0, true, "Notes to Financial Statements");
    let mut y = 690.0;
    for note in ["1. ORGANIZATION", "2. ACQUISITIONS", "15. EARNINGS PER SHARE"] {
        p2.push_str(&text(72.0, y, 10.0, true, note));
        y = body(&mut p2, y - 20.0, &filler) - 12.0;
    }
    p2.push_str(&text(72.0, y - 10.0, 12.0, true, "Item 16. Form 10-K Summary"));
    body(&mut p2, y - 34.0, &["None."]);
    build_pdf(&[p1, p2], &[], "")
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_filing_s_notes_nest_and_sentences_are_no_headings() {
    require_engine();
    let doc = PdfConverter.convert("tail.pdf", &filing_tail(), &ConvertOptions::default()).expect("converts");
    let got: Vec<(String, u8)> = headings(&doc).into_iter().map(|(t, l, _)| (t, l)).collect();
    let want: Vec<(String, u8)> = [
        ("PART IV", 1),
        ("Item 15. Exhibits and Financial Statement Schedules", 2),
        // The Notes' numbers open under their title, and "15." is a Note, not Item 15 again.
        ("Notes to Financial Statements", 3),
        ("1. ORGANIZATION", 4),
        ("2. ACQUISITIONS", 4),
        ("15. EARNINGS PER SHARE", 4),
        ("Item 16. Form 10-K Summary", 2),
    ]
    .iter()
    .map(|(t, l)| (t.to_string(), *l))
    .collect();
    assert_eq!(got, want);
    assert!(doc.text.contains("driven"), "the pull quote's text is kept");
}

/// A statement page: a bold title opening the page, set smaller than the table's figures under it.
fn statement_page() -> Vec<u8> {
    let mut p = text(200.0, 740.0, 10.0, true, "Supplemental Financial Information (in millions)");
    let rows = [
        "Net revenue",
        "Cost of sales",
        "Gross profit",
        "Selling expenses",
        "Administrative expenses",
        "Operating profit",
        "Interest expense",
        "Other income",
        "Income before taxes",
        "Income taxes",
        "Net income",
        "Depreciation",
        "Amortization",
        "Capital spending",
        "Dividends paid",
        "Share repurchases",
        "Free cash flow",
        "Net debt",
        "Shares outstanding",
        "Employees",
    ];
    statement_rows(&mut p, 11.5, &rows);
    build_pdf(&[p], &[], "")
}

/// A statement's rows from y = 700 down, each label with two amounts in columns, at `size` pt.
fn statement_rows(p: &mut String, size: f32, rows: &[&str]) {
    for (i, r) in rows.iter().enumerate() {
        let y = 700.0 - 22.0 * i as f32;
        p.push_str(&text(72.0, y, size, false, r));
        p.push_str(&text(330.0, y, size, false, &format!("{},{:03}", 10 + i, 7 * i)));
        p.push_str(&text(450.0, y, size, false, &format!("{},{:03}", 9 + i, 5 * i)));
    }
}

/// The headings of `doc` with their levels, against `want`.
fn assert_levels(doc: &folio_core::model::Document, want: &[(&str, u8)]) {
    let got: Vec<(String, u8)> = headings(doc).into_iter().map(|(t, l, _)| (t, l)).collect();
    let want: Vec<(String, u8)> = want.iter().map(|(t, l)| (t.to_string(), *l)).collect();
    assert_eq!(got, want);
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_bold_title_over_a_table_heads_it() {
    require_engine();
    let doc = PdfConverter
        .convert("statement.pdf", &statement_page(), &ConvertOptions::default())
        .expect("converts");
    let got: Vec<String> = headings(&doc).into_iter().map(|(t, _, _)| t).collect();
    assert_eq!(got, ["Supplemental Financial Information (in millions)"]);
    assert!(doc.blocks.iter().any(|b| matches!(b.kind, folio_core::model::BlockKind::Table { .. })));
}

/// A release's headline over its sections: the headline names the document and divides nothing,
/// so the sections stand at the top level beside it, not one level under it.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_headline_over_every_section_is_the_title_not_their_parent() {
    require_engine();
    let filler = [
        "The company reported revenue growth in each of its divisions over the quarter just ended,",
        "and it raised its guidance for the full year on the strength of demand in every region.",
    ];
    let mut p1 = text(72.0, 720.0, 18.0, true, "Acme Reports First-Quarter Results");
    let mut y = body(&mut p1, 690.0, &filler);
    for section in ["Reported Results", "Summary Performance"] {
        p1.push_str(&text(72.0, y - 14.0, 14.0, true, section));
        y = body(&mut p1, y - 40.0, &filler);
    }
    let mut p2 = text(72.0, 720.0, 14.0, true, "Guidance and Outlook");
    let y = body(&mut p2, 690.0, &filler);
    p2.push_str(&text(72.0, y - 14.0, 12.0, true, "Conference Call"));
    body(&mut p2, y - 40.0, &filler);
    let doc = PdfConverter
        .convert("release.pdf", &build_pdf(&[p1, p2], &[], ""), &ConvertOptions::default())
        .expect("converts");
    assert_levels(
        &doc,
        &[
            ("Acme Reports First-Quarter Results", 1),
            ("Reported Results", 1),
            ("Summary Performance", 1),
            ("Guidance and Outlook", 1),
            ("Conference Call", 2),
        ],
    );
}

/// A heading repeated on page after page right over another ("Guidance" over its subject in each
/// rule of a rulebook) divides each rule: unlike a running caption, it is not at the head of its
/// page.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn a_heading_repeated_inside_pages_is_no_caption() {
    require_engine();
    let filler = [
        "An Authorised Person must establish and maintain systems and controls that are appropriate",
        "to the nature, scale and complexity of its business and to the risks it is exposed to.",
    ];
    let mut pages = Vec::new();
    for (n, rule) in ["Systems and Controls", "Record Keeping", "Outsourcing"].iter().enumerate() {
        // A full page of text (a sparse first page would be a cover).
        let rule_text: Vec<&str> = filler.iter().cycle().take(12).copied().collect();
        let mut p = text(72.0, 720.0, 12.0, true, &format!("{}.1 {rule}", n + 1));
        let y = body(&mut p, 696.0, &rule_text);
        p.push_str(&text(72.0, y - 12.0, 10.0, true, "Guidance"));
        p.push_str(&text(72.0, y - 36.0, 10.0, true, "Scope of the requirement"));
        body(&mut p, y - 56.0, &rule_text);
        pages.push(p);
    }
    let doc = PdfConverter
        .convert("rules.pdf", &build_pdf(&pages, &[], ""), &ConvertOptions::default())
        .expect("converts");
    let guidance = headings(&doc).into_iter().filter(|(t, _, _)| t == "Guidance").count();
    assert_eq!(guidance, 3, "{:?}", headings(&doc));
}

/// The statements of one set stand beside one another under their Item, whatever face each is set
/// in: an income statement set larger than the balance sheet after it does not take the balance
/// sheet (and the rest) under it. The auditor's report's sections are the report's, and Notes with
/// no title of their own are not part of the last statement.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn financial_statements_stand_beside_one_another() {
    require_engine();
    let filler = [
        "The financial statements on the following pages are presented in accordance with generally",
        "accepted accounting principles and should be read together with the notes to them.",
    ];
    let mut item = text(72.0, 720.0, 12.0, true, "Item 8. Financial Statements and Supplementary Data");
    body(&mut item, 696.0, &filler.repeat(8));
    let mut report = text(72.0, 740.0, 11.0, true, "Report of Independent Registered Public Accounting Firm");
    let mut y = body(&mut report, 716.0, &filler);
    for section in ["Opinion on the Financial Statements", "Basis for Opinion"] {
        report.push_str(&text(72.0, y - 10.0, 10.0, true, section));
        y = body(&mut report, y - 34.0, &filler.repeat(3));
    }
    let mut pages = vec![item, report];
    for (title, size) in [
        ("Consolidated Statements of Income", 14.0),
        ("Consolidated Balance Sheets", 12.0),
        ("Consolidated Statements of Cash Flows", 12.0),
    ] {
        let mut p = text(72.0, 740.0, size, true, title);
        statement_rows(&mut p, 10.0, &["Revenue", "Costs", "Taxes", "Other items", "Total", "Per share"]);
        pages.push(p);
    }
    let mut notes = text(72.0, 740.0, 12.0, true, "Note 1 — Summary of Significant Accounting Policies");
    let y = body(&mut notes, 716.0, &filler.repeat(3));
    notes.push_str(&text(72.0, y - 10.0, 12.0, true, "Note 2 — Revenue"));
    body(&mut notes, y - 34.0, &filler.repeat(3));
    pages.push(notes);
    let doc = PdfConverter
        .convert("statements.pdf", &build_pdf(&pages, &[], ""), &ConvertOptions::default())
        .expect("converts");
    assert_levels(
        &doc,
        &[
            ("Item 8. Financial Statements and Supplementary Data", 1),
            ("Report of Independent Registered Public Accounting Firm", 2),
            ("Opinion on the Financial Statements", 3),
            ("Basis for Opinion", 3),
            ("Consolidated Statements of Income", 2),
            ("Consolidated Balance Sheets", 2),
            ("Consolidated Statements of Cash Flows", 2),
            ("Note 1 — Summary of Significant Accounting Policies", 2),
            ("Note 2 — Revenue", 2),
        ],
    );
}

/// Under an Item, subheadings in two faces (bold capitals, then bold in upper and lower case) are
/// two levels: "Item 7 › CONSOLIDATED RESULTS › Revenue", not all side by side under the Item.
#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn subheadings_in_two_faces_are_two_levels() {
    require_engine();
    let filler = [
        "Revenue grew in every segment over the year, driven by higher volumes and by pricing actions",
        "taken early in the year, partly offset by the effect of a stronger dollar on reported results.",
    ];
    let mut pages = Vec::new();
    for (item, sections) in [
        (
            "Item 7. Management's Discussion and Analysis",
            [("CONSOLIDATED RESULTS", ["Revenue", "Operating Expenses"])],
        ),
        ("Item 7A. Market Risk Disclosures", [("INTEREST RATE RISK", ["Borrowings", "Investments"])]),
    ] {
        let mut p = text(72.0, 740.0, 12.0, true, item);
        let mut y = body(&mut p, 716.0, &filler);
        for (section, subs) in sections {
            p.push_str(&text(72.0, y - 10.0, 10.0, true, section));
            y = body(&mut p, y - 34.0, &filler);
            for sub in subs {
                p.push_str(&text(72.0, y - 10.0, 10.0, true, sub));
                y = body(&mut p, y - 34.0, &filler.repeat(2));
            }
        }
        pages.push(p);
    }
    let doc = PdfConverter
        .convert("mdna.pdf", &build_pdf(&pages, &[], ""), &ConvertOptions::default())
        .expect("converts");
    assert_levels(
        &doc,
        &[
            ("Item 7. Management's Discussion and Analysis", 1),
            ("CONSOLIDATED RESULTS", 2),
            ("Revenue", 3),
            ("Operating Expenses", 3),
            ("Item 7A. Market Risk Disclosures", 1),
            ("INTEREST RATE RISK", 2),
            ("Borrowings", 3),
            ("Investments", 3),
        ],
    );
}
