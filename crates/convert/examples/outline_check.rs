//! How much of each PDF's bookmark outline the page alone recovers.
//!
//! ```text
//! cargo run --release -p folio-convert --example outline_check -- ../shared/data/filings/*.pdf
//! cargo run --release -p folio-convert --example outline_check -- --notes FILE.pdf
//! ```
//!
//! For each PDF with bookmarks: converts it as it is (bookmarks on) and a copy with the outline
//! and the structure tree stripped (`qpdf --empty --pages`, which must be installed), and prints
//! recall, level agreement and which evidence decided the levels (the document's
//! `outline_evidence` metadata). PDFs without bookmarks print their outline's size and evidence
//! only. `--notes` prints each miss, `--outline` the outlines. The measure is `folio_convert::pdf::outline_check`'s.

use folio_convert::pdf::outline_check::{
    document_headings, marks_of, printed_only, score_outline, strip_outline, OutlineScore,
};
use folio_convert::pdf::{page_texts, read_outline, PdfConverter};
use folio_convert::{ConvertOptions, Converter};
use folio_core::model::Document;
use std::path::Path;
use std::time::Instant;

fn evidence(doc: &Document) -> String {
    doc.meta.outline_evidence.clone().unwrap_or_else(|| "none".into())
}

fn row(name: &str, s: &OutlineScore, doc: &Document, notes: bool) {
    println!(
        "| {name} | {}/{} | {:.3} | {:.3} | {:.3} | {} |",
        s.found,
        s.marks,
        s.recall(),
        s.levels(),
        s.shape(),
        evidence(doc)
    );
    if notes {
        for n in &s.notes {
            println!("    {n}");
        }
    }
}

/// The headings, indented by level, with their first page.
fn print_outline(doc: &Document) {
    for (b, t) in doc.blocks_with_text() {
        if let (Some(level), Some(pages)) = (b.kind.heading_level(), b.pages) {
            let t: String = t.chars().take(90).collect();
            println!("    {}{t}  (p{})", "  ".repeat(level as usize - 1), pages.start);
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut notes, mut outline) = (false, false);
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--notes" {
            notes = true;
        } else if a == "--outline" {
            outline = true;
        } else {
            files.push(a);
        }
    }
    if files.is_empty() {
        return Err("usage: outline_check [--notes] [--outline] FILE.pdf…".into());
    }
    let options = ConvertOptions::default();
    println!("| file, mode | found | recall | level agreement | steps agreeing | evidence |");
    println!("|---|---|---|---|---|---|");
    let (mut pages, mut seconds) = (0usize, 0f64);
    for f in &files {
        let path = Path::new(f);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let bytes = std::fs::read(path)?;
        let marks = marks_of(read_outline(&bytes, &options)?);
        let doc = PdfConverter.convert(&name, &bytes, &options)?;
        if marks.is_empty() {
            let n = document_headings(&doc).len();
            println!("| {name}, no bookmarks | {n} headings | | | | {} |", evidence(&doc));
            if outline {
                print_outline(&doc);
            }
            continue;
        }
        row(&format!("{name}, bookmarks on"), &score_outline(&marks, &document_headings(&doc)), &doc, notes);
        if outline {
            print_outline(&doc);
        }
        let dir = tempfile::tempdir()?;
        let stripped = strip_outline(path, dir.path())?;
        let texts = page_texts(&bytes, &options)?;
        let (reference, _left) = printed_only(marks, &texts);
        let started_alone = Instant::now();
        let alone = PdfConverter.convert(&name, &stripped, &options)?;
        seconds += started_alone.elapsed().as_secs_f64();
        pages += texts.len();
        row(
            &format!("{name}, page alone"),
            &score_outline(&reference, &document_headings(&alone)),
            &alone,
            notes,
        );
        if outline {
            print_outline(&alone);
        }
    }
    if pages > 0 {
        println!(
            "\npage-alone conversion: {pages} pages in {seconds:.1} s ({:.0} pages/s)",
            pages as f64 / seconds
        );
    }
    Ok(())
}
