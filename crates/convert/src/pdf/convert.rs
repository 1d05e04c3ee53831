//! The conversion of one document: stage one page by page, stage two document-wide, then the
//! blocks into the document model.

use super::binding::{Doc, HRule};
use super::blocks::{group_blocks, Blk, BlkKind, Ctx};
use super::bookmarks::{apply_bookmarks, Bookmark};
use super::chars::{page_fragments, StyleStats};
use super::furniture::{body_style, measure_spacing, page_bodies, remove_page_furniture};
use super::headings::{decide_headings, merge_chapter_labels, outline_evidence, restrict_to_declared};
use super::layout::{mark_underlined, page_lines, Line, PageInfo};
use super::scan::{needs_ocr, ocr_threads, render, word_frags, Recognizer};
use super::tables::{find_tables, Table};
use super::toc::{apply_toc, detect_toc};
use crate::{ConvertOptions, ErrorKind};
use folio_core::model::{BlockKind, Document, DocumentBuilder, Format};
use folio_core::progress::{Stage, Step};
use std::collections::HashMap;

fn sensible_title(t: &str) -> bool {
    let t = t.trim();
    let lower = t.to_ascii_lowercase();
    t.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && t.chars().count() <= 300
        && !["untitled", "microsoft word", "document", "title", "slide 1"].iter().any(|b| lower == *b)
        && !lower.starts_with("microsoft word - ")
        && ![".doc", ".docx", ".pdf", ".tex", ".dvi", ".indd", ".qxd"].iter().any(|e| lower.ends_with(e))
}

pub(super) fn convert_document(
    doc: Doc<'_>,
    name: &str,
    bytes: &[u8],
    options: &ConvertOptions,
    report: &mut dyn FnMut(Step),
) -> Result<Document, ErrorKind> {
    let page_count =
        doc.page_count().ok_or_else(|| ErrorKind::Corrupt("the page tree is unreadable".into()))?;
    if page_count > options.max_pages {
        return Err(ErrorKind::TooManyPages { pages: page_count, limit: options.max_pages });
    }
    if page_count == 0 {
        return Err(ErrorKind::Empty);
    }
    let read = read_pages(&doc, page_count, options, report);
    let title_meta = doc.meta_text("Title");
    let bookmarks = if options.use_bookmarks { doc.bookmarks() } else { Vec::new() };
    // The document (and PDFium with it) is let go before the document-wide work.
    drop(doc);
    if read.lines.iter().all(|l| l.text.trim().is_empty()) {
        return Err(no_text(&read, options));
    }
    let warnings = read.warnings.clone();
    let laid_out = lay_out(read, bookmarks, options, page_count, report);
    let title = document_title(&title_meta, &laid_out.lines, name);
    let mut builder = DocumentBuilder::new(Format::Pdf, title, bytes);
    builder.set_page_count(page_count);
    builder.set_warnings(warnings);
    if let Some(evidence) = outline_evidence(&laid_out.blocks) {
        builder.set_outline_evidence(evidence);
    }
    push_blocks(&mut builder, &laid_out);
    if builder.blocks().is_empty() {
        return Err(ErrorKind::Empty);
    }
    report(Step::new(Stage::Analysing, ANALYSIS_STEPS, ANALYSIS_STEPS));
    Ok(builder.finish())
}

/// What stage one read, page by page.
struct PagesRead {
    /// Every page's lines, in page order.
    lines: Vec<Line>,
    pages: Vec<PageInfo>,
    stats: StyleStats,
    /// Pages that could not be read, said in the document's warnings.
    warnings: Vec<String>,
    /// Pages without a text layer, sent to OCR (when it is on).
    scanned: u32,
    /// Each page's thin horizontal rules (none read on a scanned page).
    rules: Vec<Vec<HRule>>,
}

/// Stage one: each page's text fragments laid out into lines, a scanned page's from OCR (on
/// threads of its own, while the text pages are read).
fn read_pages(
    doc: &Doc<'_>,
    page_count: u32,
    options: &ConvertOptions,
    report: &mut dyn FnMut(Step),
) -> PagesRead {
    let mut stats = StyleStats::default();
    let mut warnings: Vec<String> = Vec::new();
    let mut pages: Vec<PageInfo> = Vec::with_capacity(page_count as usize);
    // Structure-tree headings, read only when the first pages show the PDF is tagged with them.
    let mut tagged = false;
    let mut tags: HashMap<i32, u8> = HashMap::new();
    // Lines per page: a scanned page's lines arrive from OCR after the text pages'.
    let mut page_lines_of: Vec<Vec<Line>> = Vec::with_capacity(page_count as usize);
    let mut rules_of: Vec<Vec<HRule>> = Vec::with_capacity(page_count as usize);
    let mut recognizer: Option<Recognizer> = None;
    let mut scanned = 0u32;
    // Pages read so far: a text page when its lines are laid out, a scanned one when OCR answers.
    let mut read = 0u32;
    let mut page_read = |n: u32| {
        if n > 0 {
            read += n;
            report(Step::new(Stage::Converting, read as usize, page_count as usize));
        }
    };
    for p in 0..page_count {
        page_lines_of.push(Vec::new());
        rules_of.push(Vec::new());
        if let Some(r) = recognizer.as_mut() {
            page_read(r.collect_ready());
        }
        let Some(page) = doc.page(p) else {
            pages.push(PageInfo { width: 612.0, height: 792.0 });
            page_read(1);
            continue;
        };
        let (width, height) = page.size();
        let info = PageInfo { width, height };
        pages.push(info);
        if options.ocr && needs_ocr(&page) {
            scanned += 1;
            match render(&page, p) {
                Ok(image) => recognizer
                    .get_or_insert_with(|| Recognizer::start(&options.ocr_options(), ocr_threads()))
                    .send(image),
                Err(e) => {
                    warnings.push(format!("page {}: cannot render it for OCR ({e})", p + 1));
                    page_read(1);
                }
            }
            continue;
        }
        if !page.has_text() {
            page_read(1);
            continue;
        }
        if p < 8 || tagged {
            tags = page.heading_mcids();
            tagged |= !tags.is_empty();
        }
        let frags = page_fragments(&page, &mut stats, &tags);
        let rules = page.horizontal_rules();
        drop(page);
        let mut lines = page_lines(frags, p, info);
        mark_underlined(&mut lines, &rules);
        page_lines_of[p as usize] = lines;
        rules_of[p as usize] = rules;
        page_read(1);
    }
    if let Some(r) = recognizer {
        let mut results: Vec<_> = r.finish(|| page_read(1)).into_iter().collect();
        results.sort_by_key(|(p, _)| *p);
        for (p, words) in results {
            match words {
                Ok(words) => {
                    let frags = word_frags(&words, pages[p as usize].height, &mut stats);
                    page_lines_of[p as usize] = page_lines(frags, p, pages[p as usize]);
                }
                Err(e) => warnings.push(format!("page {}: {e}", p + 1)),
            }
        }
    }
    let lines = page_lines_of.into_iter().flatten().collect();
    PagesRead { lines, pages, stats, warnings, scanned, rules: rules_of }
}

/// Why a PDF with no text on any page cannot be added.
fn no_text(read: &PagesRead, options: &ConvertOptions) -> ErrorKind {
    let why = if read.scanned == 0 {
        "a PDF without text".to_string()
    } else if !options.ocr {
        "a scanned PDF without a text layer, and OCR is off".to_string()
    } else {
        format!(
            "a scanned PDF whose pages OCR could not read ({})",
            read.warnings.first().cloned().unwrap_or_default()
        )
    };
    ErrorKind::Unsupported(why)
}

/// Stage two's steps, which an analyst sees move (a long PDF spends seconds here).
const ANALYSIS_STEPS: usize = 4;

/// What stage two made of the lines: the blocks, with their headings decided, and the tables.
struct LaidOut {
    lines: Vec<Line>,
    blocks: Vec<Blk>,
    tables: Vec<Table>,
}

/// Stage two, document-wide: the body style, page furniture removed, the outline a contents
/// page or the bookmarks declare, tables, blocks and headings.
fn lay_out(
    read: PagesRead,
    bookmarks: Vec<Bookmark>,
    options: &ConvertOptions,
    page_count: u32,
    report: &mut dyn FnMut(Step),
) -> LaidOut {
    let PagesRead { mut lines, pages, mut stats, rules, .. } = read;
    let mut analysing = |done: usize| report(Step::new(Stage::Analysing, done, ANALYSIS_STEPS));
    analysing(0);
    let mut body = body_style(&stats);
    body.spacing = measure_spacing(&lines, &body);
    remove_page_furniture(&mut lines, &pages, &body);
    let toc = detect_toc(&mut lines, pages.len());
    analysing(1);

    let mut order: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].skip).collect();
    let usable_bookmarks: Vec<Bookmark> =
        bookmarks.into_iter().filter(|b| b.page.is_some() && !b.title.is_empty()).collect();
    // Bookmarks are the whole outline; a printed contents list gives the levels of the headings
    // it names, and the page's typography finds the headings below them.
    let mut declared_mode = false;
    if options.use_bookmarks {
        if usable_bookmarks.len() >= 2 {
            apply_bookmarks(&mut lines, &mut order, &usable_bookmarks, &pages);
            declared_mode = true;
        } else if toc.len() >= 3 {
            let matched = apply_toc(&mut lines, &mut order, &toc);
            if matched * 2 < toc.len() {
                // Too few entries found: not this document's outline (nor its divisions).
                order.retain(|&i| !lines[i].synthetic);
                lines.iter_mut().for_each(|l| l.declared = None);
            }
        }
    }

    let fonts = std::mem::take(&mut stats.fonts);
    let tables = if options.detect_tables { find_tables(&lines, &order, &rules) } else { Vec::new() };
    let mut in_table = vec![false; lines.len()];
    for &i in tables.iter().flat_map(|t| &t.lines) {
        in_table[i] = true;
    }
    let (page_body, page_font) = page_bodies(&lines, &in_table, &fonts, pages.len(), &body);
    let ctx = Ctx { lines: &lines, body, fonts: &fonts, page_body: &page_body, page_font: &page_font };
    analysing(2);
    let mut blocks = group_blocks(&ctx, &order, &tables);
    merge_chapter_labels(&ctx, &mut blocks);
    decide_headings(&ctx, &mut blocks, declared_mode, page_count);
    analysing(3);
    if declared_mode {
        restrict_to_declared(&mut blocks);
    }
    LaidOut { lines, blocks, tables }
}

/// The blocks into the document model.
fn push_blocks(builder: &mut DocumentBuilder, laid_out: &LaidOut) {
    for blk in &laid_out.blocks {
        let kind = match &blk.kind {
            BlkKind::Heading => {
                BlockKind::Heading { level: blk.level.unwrap_or(1), number: blk.number.clone() }
            }
            BlkKind::Para => BlockKind::Paragraph,
            BlkKind::List { marker, depth } => {
                BlockKind::ListItem { marker: Some(marker.clone()), depth: *depth }
            }
            BlkKind::Code => BlockKind::Code,
            BlkKind::Table(t) => BlockKind::Table { header_rows: laid_out.tables[*t].has_header() as u8 },
        };
        let text = match &blk.kind {
            BlkKind::List { marker, .. } => {
                let t = blk.text.trim_start();
                t.strip_prefix(marker.as_str()).map(str::trim_start).unwrap_or(t).to_string()
            }
            _ => blk.text.clone(),
        };
        builder.push(kind, &text, Some(blk.pages));
        if let Some(printed) = &blk.printed {
            // The page prints the heading otherwise than its bookmark: keep the printed words.
            builder.push(BlockKind::Paragraph, printed, Some(blk.pages));
        }
    }
}

/// Pages searched for a filing's cover (an annual report prints its 10-K's cover after the
/// letter to shareholders).
const COVER_PAGES: u32 = 30;

/// The title a reader would cite: a filing's cover (issuer, form, period); the issuer with the
/// document's own first-page title where the cover comes later (an annual report around its
/// 10-K); metadata that is a title rather than a job name; the first page's largest text; the file
/// name.
fn document_title(meta: &str, lines: &[Line], name: &str) -> String {
    let opening: Vec<&str> = lines.iter().filter(|l| l.page < COVER_PAGES).map(|l| l.text.as_str()).collect();
    let cover = folio_core::titles::find_cover(&opening);
    let first_page = largest_text_on_first_page(lines);
    let cover_page = cover
        .as_ref()
        .map(|c| lines.iter().filter(|l| l.page < COVER_PAGES).nth(c.line).map_or(0, |l| l.page));
    match (cover, first_page) {
        (Some(c), Some(own)) if cover_page.is_some_and(|p| p > 2) && !own.contains(&c.issuer) => {
            // "FedEx 2023 Annual Report" under FedEx Corporation's cover: "FedEx Corporation — 2023
            // Annual Report".
            let brand = c.issuer.split_whitespace().next().unwrap_or_default();
            let own = own.strip_prefix(brand).map(str::trim_start).filter(|o| !o.is_empty()).unwrap_or(&own);
            format!("{} — {own}", c.issuer)
        }
        (Some(c), _) => c.title(),
        (None, _) if sensible_title(meta) && !folio_core::titles::is_job_name(meta) => {
            meta.trim().to_string()
        }
        (None, Some(own)) => own,
        (None, None) => crate::text::file_stem(name),
    }
}

/// Whether a line can be (part of) a title: it has words, and is no contact ("investors@…"), no
/// label ending in a colon, no date stamp, no "for immediate release", no list item, and no label
/// of a word and a number ("Exhibit 99.1", "Page 3"), and no line continuing another.
fn can_be_title(text: &str) -> bool {
    let t = text.trim();
    let lower = t.to_lowercase();
    let words: Vec<&str> = t.split_whitespace().collect();
    let label = words.len() == 2 && words[1].chars().next().is_some_and(|c| c.is_ascii_digit());
    t.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && !label
        // A line that starts in lower case continues the one above it.
        && !t.starts_with(|c: char| c.is_lowercase())
        && !t.starts_with(['•', '●', '▪', '◦', '*', '-', '–'])
        && !t.contains('@')
        && !t.ends_with(':')
        && !lower.contains("immediate release")
        && !t.split_whitespace().any(|w| w.matches('/').count() == 2 && w.chars().any(|c| c.is_ascii_digit()))
}

/// The most prominent text on the document's first page with text (its title, as a cover or a
/// press release sets it: the largest, bold counting a little more), in title case where it is
/// set in capitals; a line repeated on the page is taken once. `None` where the most prominent
/// text runs to a paragraph (a page of body text has no title).
fn largest_text_on_first_page(lines: &[Line]) -> Option<String> {
    let first_page = lines.iter().find(|l| !l.skip && !l.text.trim().is_empty())?.page;
    let page: Vec<&Line> = lines.iter().filter(|l| l.page == first_page && !l.skip).collect();
    let mut weights: Vec<i16> = page.iter().map(|l| l.weight).collect();
    weights.sort_unstable();
    let body_weight = weights.get(weights.len() / 2).copied().unwrap_or(400);
    // Bold and capitals set a line off as sizes do: a headline in bold capitals a little smaller
    // than the body ("McDONALD'S REPORTS FIRST QUARTER 2023 RESULTS") still heads it.
    let prominence = |l: &Line| {
        let bold = if l.weight >= body_weight + 150 { 1.08 } else { 1.0 };
        let letters = l.text.chars().filter(|c| c.is_alphabetic()).count();
        let capitals = l.text.chars().filter(|c| c.is_uppercase()).count();
        let caps = if letters >= 8 && capitals * 10 >= letters * 9 { 1.1 } else { 1.0 };
        l.size * bold * caps
    };
    // The most prominent of the lines that can be a title: not a contact, a dateline or a label.
    let max = page.iter().filter(|l| can_be_title(&l.text)).map(|l| prominence(l)).fold(0f32, f32::max);
    // The first run of such lines at that prominence.
    let mut parts: Vec<&str> = Vec::new();
    for l in page.iter().skip_while(|l| !((prominence(l) - max).abs() < 0.5 && can_be_title(&l.text))) {
        if !((prominence(l) - max).abs() < 0.5 && can_be_title(&l.text)) {
            break;
        }
        let t = l.text.trim();
        if !parts.contains(&t) {
            parts.push(t);
        }
    }
    let t = folio_core::model::collapse_whitespace(&parts.join(" "));
    if t.chars().filter(|c| c.is_alphabetic()).count() < 2 || t.split_whitespace().count() > 30 {
        return None;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    if t.chars().filter(|c| c.is_lowercase()).count() * 10 > letters {
        return Some(t);
    }
    let body: String = page.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join(" ");
    Some(folio_core::titles::title_case(&t, &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_titles() {
        assert!(!sensible_title("Microsoft Word - report.docx"));
        assert!(sensible_title("Debian Policy Manual"));
    }
}
