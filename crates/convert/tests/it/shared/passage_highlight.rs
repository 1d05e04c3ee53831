//! "Open original" marks the whole passage: for a paragraph of several lines every line of it on
//! the page, and for a table every row. Checked on the Debian Policy Manual (PDF) and a filing's
//! table, with the passages as the converter reads them (the chunks' text comes from the same).

use folio_convert::pdf::{render_page, PdfConverter};
use folio_convert::{ConvertOptions, Converter};
use folio_core::model::BlockKind;

fn convert(path: &std::path::Path) -> (Vec<u8>, folio_core::model::Document) {
    let bytes = std::fs::read(path).unwrap();
    let doc = PdfConverter.convert("x.pdf", &bytes, &ConvertOptions::default()).unwrap();
    (bytes, doc)
}

#[test]
#[ignore = "needs ../shared and .assets (PDFium); scripts/test.sh runs it"]
fn every_line_of_a_paragraph_and_every_row_of_a_table_is_marked() {
    folio_testkit::paths::require_asset("pdfium/libpdfium.so");
    let policy = folio_testkit::paths::require_shared("data/debian-policy/policy.pdf");
    let (bytes, doc) = convert(&policy);
    // Paragraphs of several lines, each on one page.
    let paragraphs: Vec<_> = doc
        .blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Paragraph))
        .filter(|b| b.pages.is_some_and(|p| p.start == p.end))
        .filter(|b| doc.block_text(b).len() > 400)
        .step_by(25)
        .take(8)
        .collect();
    assert!(paragraphs.len() >= 5, "{} paragraphs", paragraphs.len());
    for b in paragraphs {
        let text = doc.block_text(b);
        let page = b.pages.unwrap().start;
        let r = render_page(&bytes, page, 1200, Some(text), &ConvertOptions::default()).unwrap();
        // A line holds some 80–100 characters here: a passage of n characters spans about n/100
        // lines at least.
        let lines = text.len() / 110;
        assert!(
            r.highlights.len() >= lines,
            "page {page}: {} rects for ~{lines} lines of {text:?}",
            r.highlights.len()
        );
        let top = r.highlights.iter().map(|h| h[1]).fold(f32::MAX, f32::min);
        let bottom = r.highlights.iter().map(|h| h[1] + h[3]).fold(0f32, f32::max);
        assert!(bottom - top > 14.0 * lines as f32, "page {page}: the marks span {:.0} px", bottom - top);
    }

    let filing = folio_testkit::paths::require_shared("data/filings/APPLE_2022_10K.pdf");
    let (bytes, doc) = convert(&filing);
    let tables: Vec<_> = doc
        .blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Table { .. }))
        .filter(|b| b.pages.is_some_and(|p| p.start == p.end))
        .filter(|b| doc.block_text(b).lines().count() >= 5)
        .take(4)
        .collect();
    assert!(!tables.is_empty());
    for b in tables {
        let text = doc.block_text(b);
        let rows = text.lines().count();
        let page = b.pages.unwrap().start;
        let r = render_page(&bytes, page, 1200, Some(text), &ConvertOptions::default()).unwrap();
        assert!(r.highlights.len() >= rows, "page {page}: {} rects for {rows} rows", r.highlights.len());
    }
}
