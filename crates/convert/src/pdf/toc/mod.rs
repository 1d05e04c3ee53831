//! Printed contents lists: the pages that hold one are skipped as text, and their entries
//! (title, number, page, indentation) can serve as the declared outline when there are no
//! bookmarks, each entry matched to the heading line it names.

mod outline;

use super::layout::{wide_gap, Line};
use super::titles::{clean_number, is_contents_word, is_lone_label, label_depth};
use folio_core::numbering::split_heading_number;
pub(super) use outline::apply_toc;
use regex::Regex;
use std::sync::OnceLock;

/// One entry of a printed contents list.
#[derive(Debug, Clone)]
pub(super) struct TocEntry {
    pub title: String,
    pub number: Option<String>,
    pub depth: Option<usize>,
    pub page: Option<i64>,
    pub x0: f32,
    /// A division listed without a page of its own, over the entries that follow it ("PART II",
    /// "Management's Discussion and Analysis" set larger or bolder than its entries), or the
    /// contents page's own title: the top level.
    pub group: bool,
}

impl TocEntry {
    /// A division listed without a page, or the contents page's own title.
    fn division(title: &str, x0: f32) -> TocEntry {
        TocEntry { title: title.to_string(), number: None, depth: None, page: None, x0, group: true }
    }
}

pub(super) fn toc_line_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?P<title>.*?\S)\s*(?P<lead>(?:[.·…_]\s*){3,})\s*(?P<page>\d{1,4}|[ivxlcdmIVXLCDM]{1,7})$",
        )
        .expect("valid toc regex")
    })
}

pub(super) fn trailing_page_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^(?P<title>.*?[^\d\s.])\s+(?P<page>\d{1,4})$").expect("valid regex"))
}

/// An entry line's title and page ("Risk Factors ....... 53", "Risk Factors 53", or a title
/// ending in a year with the page set apart in a column of its own: "… June 30, 2023 and 2022 ⟶
/// 8"); a number past the document's pages ("For the Fiscal Year Ended September 24, 2022") is
/// no page.
fn entry_parts(line: &Line, npages: usize) -> Option<(String, String)> {
    let t = line.text.trim();
    let (title, page) = match toc_line_re().captures(t).or_else(|| trailing_page_re().captures(t)) {
        Some(c) => (c["title"].trim().to_string(), c["page"].to_string()),
        None => {
            let (last, rest) = line.cells.split_last()?;
            let page = last.text.trim();
            if page.is_empty() || page.len() > 4 || !page.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let title = rest.iter().map(|c| c.text.trim()).collect::<Vec<_>>().join(" ");
            if title.chars().filter(|c| c.is_alphabetic()).count() < 3 {
                return None;
            }
            (title, page.to_string())
        }
    };
    if page.parse::<usize>().is_ok_and(|n| n > npages + 2) {
        return None;
    }
    Some((title, page))
}

/// A division's name as a contents list sets it: a container label alone or before its title
/// ("PART II", "PART I: FINANCIAL INFORMATION").
fn is_division_name(text: &str) -> bool {
    let mut words = text.split_whitespace();
    match (words.next(), words.next()) {
        (Some(k), Some(v)) => is_lone_label(&format!("{k} {}", v.trim_end_matches([':', '.', '—', '-']))),
        _ => false,
    }
}

/// The page column's own header, alone on its line.
fn is_page_column_word(text: &str) -> bool {
    matches!(text.trim().to_ascii_lowercase().as_str(), "page" | "pages" | "page no." | "page number")
}

/// Drops the page column's own header ("Fundamentals of Our Business ⟶ Page"), a last cell
/// that is only the word "Page(s)" or "Page number", from a contents line.
fn strip_page_column(line: &mut Line) {
    if has_page_column(line) {
        line.cells.pop();
        line.x1 = line.cells.last().map(|c| c.x1).unwrap_or(line.x1);
        line.text = line.cells.iter().map(|c| c.text.trim()).collect::<Vec<_>>().join(" ");
        // The gaps left between its cells (as `page_lines` counts them).
        let wide = line.cells.windows(2).filter(|w| wide_gap(w[0].x1, w[1].x0, line.size)).count();
        line.wide_gaps = wide.min(u8::MAX as usize) as u8;
        if line.cells.len() == 1 {
            // A line of one fragment keeps that fragment's loose gaps itself.
            line.loose = line.cells.pop().map(|c| c.loose).unwrap_or_default();
        }
    }
}

/// Whether a line's last cell is the page column's own header.
fn has_page_column(line: &Line) -> bool {
    line.cells.len() >= 2 && line.cells.last().is_some_and(|c| is_page_column_word(&c.text))
}

/// Finds printed contents pages, marks their lines skipped and returns their entries. Contents
/// pages in the front of the document give the entries; an index of a part later on (a
/// financial-statements divider listing its statements and notes with pages) is skipped as text
/// but kept out of the outline, and its title stays in the text.
pub(super) fn detect_toc(lines: &mut [Line], npages: usize) -> Vec<TocEntry> {
    let mut by_page: Vec<Vec<usize>> = vec![Vec::new(); npages];
    for (i, l) in lines.iter().enumerate() {
        if !l.skip {
            by_page[l.page as usize].push(i);
        }
    }
    let mut entries = Vec::new();
    let mut prev_toc = false;
    let scan_pages = npages.min(40.max(npages / 8));
    for (p, idx) in by_page.iter().enumerate() {
        if idx.is_empty() {
            continue;
        }
        if p >= scan_pages {
            skip_part_index(lines, idx, npages);
            continue;
        }
        let leaders = idx.iter().filter(|&&i| toc_line_re().is_match(lines[i].text.trim())).count();
        let numbered = idx.iter().filter(|&&i| entry_parts(&lines[i], npages).is_some()).count();
        let has_word = idx.iter().any(|&i| is_contents_word(&lines[i].text));
        let n = idx.len();
        let is_toc = (leaders >= 3 && leaders * 10 >= n * 3)
            || (has_word && numbered * 2 >= n && numbered >= 3)
            || (prev_toc && numbered * 2 >= n && numbered >= 2);
        if !is_toc {
            if prev_toc && p > 0 {
                prev_toc = false;
            }
            skip_part_index(lines, idx, npages);
            continue;
        }
        prev_toc = true;
        read_contents_page(lines, idx, npages, &mut entries);
    }
    entries
}

/// A wrapped entry's first line(s), waiting for the line that gives the page.
struct Pending {
    text: String,
    x0: f32,
    lines: usize,
    last_y: f32,
}

fn read_contents_page(lines: &mut [Line], idx: &[usize], npages: usize, entries: &mut Vec<TocEntry>) {
    // The list starts under the page's "Contents" title, where it has one; what is set above it
    // (the filer's name, the form, the fiscal year) is the page's header.
    // On a page that continues the list without such a title (an index of the financial
    // statements under "Item 1: Financial Statements"), the lines above its first entry are the
    // page's own headings and stay in the text.
    let start = match idx.iter().position(|&i| is_contents_word(&lines[i].text)) {
        Some(k) => {
            for &i in &idx[..k] {
                lines[i].skip = true;
            }
            k
        }
        None => {
            let k = idx.iter().position(|&i| entry_parts(&lines[i], npages).is_some()).unwrap_or(0);
            for &i in &idx[..k] {
                lines[i].skip |= is_page_column_word(&lines[i].text);
            }
            k
        }
    };
    for &i in &idx[start.saturating_sub(1)..] {
        strip_page_column(&mut lines[i]);
    }
    // Each line's title and page, where it is an entry.
    let parts: Vec<Option<(String, String)>> = idx.iter().map(|&i| entry_parts(&lines[i], npages)).collect();
    // The entries' own type: a line without a page set larger or bolder than them, over an entry,
    // heads a group of entries.
    let mut sizes: Vec<f32> = Vec::new();
    let mut weights: Vec<i16> = Vec::new();
    for (&i, _) in idx.iter().zip(&parts).filter(|(_, p)| p.is_some()) {
        sizes.push(lines[i].size);
        weights.push(lines[i].weight);
    }
    sizes.sort_by(|a, b| a.total_cmp(b));
    weights.sort_unstable();
    let entry_size = sizes.get(sizes.len() / 2).copied().unwrap_or(0.0);
    let entry_weight = weights.get(weights.len() / 2).copied().unwrap_or(400);
    let mut pending: Option<Pending> = None;
    for (k, &i) in idx.iter().enumerate().skip(start) {
        if is_contents_word(&lines[i].text) {
            // The contents page's own title stays in the text as a heading.
            pending = None;
            entries.push(TocEntry::division(lines[i].text.trim(), lines[i].x0));
            continue;
        }
        lines[i].skip = true;
        let l = &lines[i];
        let t = l.text.trim();
        // A wrapped entry's lines follow each other closely; a paragraph of prose above the list
        // (an introduction) is not the start of its first entry.
        let close = |p: &Pending| p.last_y - l.y <= l.size.max(1.0) * 1.8;
        match &parts[k] {
            Some((title, page_txt)) => {
                let (mut title, mut x0) = (title.clone(), l.x0);
                if let Some(p) = pending.take().filter(|p| close(p)) {
                    title = format!("{} {title}", p.text);
                    x0 = p.x0;
                }
                let page = page_txt.parse::<i64>().ok();
                let (number, depth) = match split_heading_number(&title) {
                    Some(h) if !h.title.is_empty() => {
                        (Some(clean_number(h.label)), Some(label_depth(&h.parsed, h.label)))
                    }
                    _ => (None, None),
                };
                entries.push(TocEntry { title, number, depth, page, x0, group: false });
            }
            None => {
                if is_page_column_word(t) {
                    continue;
                }
                let set_off = l.size >= entry_size + 0.5 || l.weight >= entry_weight + 100;
                let heads_entry = parts.get(k + 1).is_some_and(Option::is_some);
                if is_lone_label(t) || ((set_off || is_division_name(t)) && heads_entry) {
                    // "PART II" over "Item 5. Market … 50", or a group's name set off over its
                    // entries: a division without a page of its own, an entry of its own (not the
                    // start of the next entry's title).
                    pending = None;
                    entries.push(TocEntry::division(t, l.x0));
                } else if t.chars().count() < 120 {
                    // A wrapped entry: keep the text for the next line (two lines at most).
                    pending = Some(match pending.take().filter(|p| close(p) && p.lines < 2) {
                        Some(p) => {
                            Pending { text: format!("{} {t}", p.text), lines: p.lines + 1, last_y: l.y, ..p }
                        }
                        None => Pending { text: t.to_string(), x0: l.x0, lines: 1, last_y: l.y },
                    });
                } else {
                    pending = None;
                }
            }
        }
    }
}

/// An index of one part of the document further in (its statements and notes with their pages):
/// five or more entries whose pages never go back, lie within the document and not far before
/// the page itself, most of the page's lines from the first entry to the last. Those lines are
/// skipped as text (a list of page numbers is no passage to search); the lines above the list
/// (the part's title, the index's own heading) stay.
fn skip_part_index(lines: &mut [Line], idx: &[usize], npages: usize) {
    // Only a line ending in digits can give a page here (runs on every page: the regular
    // expressions wait for those).
    let pages: Vec<(usize, i64)> = idx
        .iter()
        .enumerate()
        .filter(|&(_, &i)| lines[i].text.trim_end().ends_with(|c: char| c.is_ascii_digit()))
        .filter_map(|(k, &i)| Some((k, entry_parts(&lines[i], npages)?.1.parse::<i64>().ok()?)))
        .collect();
    if pages.len() < 5 {
        return;
    }
    let (first, last) = (pages[0].0, pages[pages.len() - 1].0);
    let span = last - first + 1;
    // The lines entries take: each line that gives a page, and the line before it where an entry
    // wraps ("Consolidated Statements of Operations for the years ended …" over "… 2020  29"),
    // that is where a line lies between it and the entry before.
    let wrapped = pages.windows(2).filter(|w| w[1].0 > w[0].0 + 1).count();
    let entry_lines = (pages.len() + wrapped).min(span);
    let ascending = pages.windows(2).all(|w| w[0].1 <= w[1].1);
    let within = pages.iter().all(|&(_, n)| n >= 1 && n <= npages as i64);
    // An index lists the pages of its part, which follow it: numbers far below the page it is on
    // are a column of figures, not pages.
    let page = lines[idx[0]].page as i64 + 1;
    let forward = pages[0].1 * 2 >= page;
    if !(ascending
        && within
        && forward
        && entry_lines * 10 >= span * 6
        && pages[pages.len() - 1].1 > pages[0].1)
    {
        return;
    }
    for &i in &idx[first..=last] {
        lines[i].skip = true;
    }
    // The index's title carries the page column's header ("Index to Consolidated Financial
    // Statements ⟶ Page"), right over the first entry or over the first lines of a first entry
    // wrapped before its page ("Consolidated Statements of Operations for the years ended …").
    match (first.saturating_sub(MAX_ENTRY_LINES + 1)..first).rev().find(|&k| has_page_column(&lines[idx[k]]))
    {
        Some(title) => {
            for &i in &idx[title + 1..first] {
                lines[i].skip = true;
            }
            strip_page_column(&mut lines[idx[title]]);
        }
        None if first > 0 => strip_page_column(&mut lines[idx[first - 1]]),
        None => {}
    }
}

/// The most lines an index's entry wraps over before the line that gives its page.
const MAX_ENTRY_LINES: usize = 2;

#[cfg(test)]
mod tests {
    use super::super::layout::Cell;
    use super::*;

    #[test]
    fn contents_lines() {
        assert!(toc_line_re().is_match("1.1 Overview ......................... 6"));
        assert!(toc_line_re().is_match("1.3.1 Early history . . . . . . . . . . 4"));
        assert!(!toc_line_re().is_match("This is a sentence. It ends here 5"));
        assert!(trailing_page_re().is_match("1 About this manual 3"));
    }

    /// A line on `page` at baseline `y`: its text, or its cells when the text is split by `|`.
    fn line(page: u32, y: f32, size: f32, text: &str) -> Line {
        let parts: Vec<&str> = text.split('|').map(str::trim).collect();
        let mut l = Line { x0: 34.0, x1: 530.0, ..Line::printed(page, y, size, &parts.join(" ")) };
        if parts.len() > 1 {
            l.cells = parts
                .iter()
                .enumerate()
                .map(|(k, t)| Cell::new(34.0 + 400.0 * k as f32, 60.0 + 400.0 * k as f32, *t))
                .collect();
        }
        l
    }

    #[test]
    fn the_page_columns_own_header_is_dropped_however_it_is_worded() {
        for word in ["Page", "Pages", "Page No.", "Page number"] {
            let mut l = line(0, 700.0, 10.0, &format!("Fundamentals of Our Business | {word}"));
            strip_page_column(&mut l);
            assert_eq!((l.text.as_str(), l.cells.len()), ("Fundamentals of Our Business", 0), "{word}");
        }
        let mut l = line(0, 700.0, 10.0, "Risk Factors | 12");
        strip_page_column(&mut l);
        assert_eq!(l.cells.len(), 2);
    }

    type Got = Vec<(String, Option<i64>, bool)>;

    /// The entries a page's lines give: title, page, whether a division.
    fn read(lines: &mut [Line], npages: usize) -> Got {
        detect_toc(lines, npages).into_iter().map(|e| (e.title, e.page, e.group)).collect()
    }

    fn owned(want: &[(&str, Option<i64>, bool)]) -> Got {
        want.iter().map(|&(t, p, g)| (t.to_string(), p, g)).collect()
    }

    #[test]
    fn groups_set_off_over_their_entries_and_prose_above_the_list() {
        // Intel's contents page: a paragraph of prose, then groups set a point larger than their
        // entries, the first with the page column's header beside it.
        let mut lines = vec![
            line(1, 760.0, 18.0, "Table of Contents"),
            line(1, 700.0, 9.0, "The order and presentation of content in our Form 10-K differs from"),
            line(1, 689.0, 9.0, "the traditional format. See \"Key Terms\" within the Financial Statements."),
            line(1, 553.0, 10.0, "Fundamentals of Our Business | Page"),
            line(1, 538.0, 9.0, "Introduction to Our Business | 2"),
            line(1, 524.0, 9.0, "Our Strategy | 6"),
            line(1, 476.0, 10.0, "Management's Discussion and Analysis"),
            line(1, 462.0, 9.0, "Our Products | 17"),
            line(1, 447.0, 9.0, "Consolidated Results of Operations | 37"),
            line(1, 433.0, 9.0, "Liquidity and Capital Resources | 42"),
            line(1, 419.0, 9.0, "Contractual Obligations | 45"),
        ];
        assert_eq!(
            read(&mut lines, 120),
            owned(&[
                ("Table of Contents", None, true),
                ("Fundamentals of Our Business", None, true),
                ("Introduction to Our Business", Some(2), false),
                ("Our Strategy", Some(6), false),
                ("Management's Discussion and Analysis", None, true),
                ("Our Products", Some(17), false),
                ("Consolidated Results of Operations", Some(37), false),
                ("Liquidity and Capital Resources", Some(42), false),
                ("Contractual Obligations", Some(45), false),
            ])
        );
        assert!(!lines[0].skip, "the contents page's title stays a heading");
        assert!(lines[1..].iter().all(|l| l.skip));
    }

    #[test]
    fn a_title_ending_in_a_year_and_a_division_with_its_name() {
        // eBay's index of its statements: "… 2023 and 2022" with the page in a column of its own;
        // "PART I: FINANCIAL INFORMATION" over its items; the word "Page" alone; a year is no page.
        let mut lines = vec![
            line(1, 760.0, 9.0, "TABLE OF CONTENTS"),
            line(1, 740.0, 9.0, "Page"),
            line(1, 730.0, 9.0, "PART I: FINANCIAL INFORMATION"),
            line(1, 720.0, 9.0, "Item 1 | Financial Statements (unaudited) | 3"),
            line(1, 710.0, 9.0, "Balance Sheet as of June 30, 2023 and December 31, 2022 | 4"),
            line(1, 700.0, 9.0, "Item 2 | Management's Discussion and Analysis | 44"),
            line(1, 690.0, 9.0, "Item 3 | Quantitative and Qualitative Disclosures | 57"),
            line(1, 680.0, 9.0, "Item 4 | Controls and Procedures | 60"),
            line(1, 670.0, 9.0, "For the Fiscal Year Ended September 24, | 2022"),
        ];
        assert_eq!(
            read(&mut lines, 80),
            owned(&[
                ("TABLE OF CONTENTS", None, true),
                ("PART I: FINANCIAL INFORMATION", None, true),
                ("Item 1 Financial Statements (unaudited)", Some(3), false),
                ("Balance Sheet as of June 30, 2023 and December 31, 2022", Some(4), false),
                ("Item 2 Management's Discussion and Analysis", Some(44), false),
                ("Item 3 Quantitative and Qualitative Disclosures", Some(57), false),
                ("Item 4 Controls and Procedures", Some(60), false),
            ])
        );
    }

    #[test]
    fn an_index_further_in_is_skipped_below_its_title() {
        // Page 72 of 122: the part's title and the index's heading stay; the list goes.
        let mut lines = vec![line(71, 760.0, 12.0, "Financial Statements and Supplemental Details")];
        lines.push(line(71, 740.0, 9.0, "Index to Consolidated Financial Statements | Page"));
        for (k, (t, p)) in [
            ("Auditor's Reports", 71),
            ("Balance Sheets", 76),
            ("Notes", 79),
            ("Key Terms", 110),
            ("Exhibits", 114),
        ]
        .iter()
        .enumerate()
        {
            lines.push(line(71, 720.0 - 12.0 * k as f32, 9.0, &format!("{t} | {p}")));
        }
        lines.push(line(71, 600.0, 9.0, "All schedules have been omitted as not applicable."));
        // The same figures in a table on page 72 of a 300-page report, ascending by chance but
        // far below the page, are no index.
        let mut figures = lines.clone();
        for l in figures.iter_mut().skip(2).take(5) {
            let n: i64 = l.cells.last().unwrap().text.parse().unwrap();
            l.cells.last_mut().unwrap().text = (n - 60).to_string();
            l.text = l.cells.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
        }
        detect_toc(&mut figures, 300);
        assert!(figures.iter().all(|l| !l.skip), "a column of small figures stays text");
        let entries = detect_toc(&mut lines, 122);
        assert!(entries.is_empty(), "an index further in is no outline: {entries:?}");
        let kept: Vec<&str> = lines.iter().filter(|l| !l.skip).map(|l| l.text.as_str()).collect();
        assert_eq!(
            kept,
            [
                "Financial Statements and Supplemental Details",
                "Index to Consolidated Financial Statements",
                "All schedules have been omitted as not applicable."
            ]
        );
    }

    #[test]
    fn an_index_whose_entries_wrap_is_skipped_and_its_title_is_cleared() {
        // Apple's page 31 of 80: each statement's entry wraps before its page, and the index's
        // title carries the page column's header two lines above the first page.
        let mut lines = vec![line(30, 760.0, 9.0, "Item 8. Financial Statements and Supplementary Data")];
        let mut title = line(30, 740.0, 8.0, "Index to Consolidated Financial Statements | Page");
        title.wide_gaps = 1;
        lines.push(title);
        let mut y = 725.0;
        for (t, p) in [
            ("Consolidated Statements of Operations for the years ended", 29),
            ("Consolidated Statements of Comprehensive Income for the years ended", 30),
            ("Consolidated Balance Sheets as of September 24, 2022 and", 31),
            ("Consolidated Statements of Shareholders' Equity for the years ended", 32),
            ("Consolidated Statements of Cash Flows for the years ended", 33),
            ("Notes to Consolidated Financial Statements", 34),
        ] {
            lines.push(line(30, y, 9.0, t));
            lines.push(line(30, y - 9.0, 9.0, &format!("September 26, 2020 | {p}")));
            y -= 23.0;
        }
        let entries = detect_toc(&mut lines, 80);
        assert!(entries.is_empty(), "an index further in is no outline: {entries:?}");
        let kept: Vec<&Line> = lines.iter().filter(|l| !l.skip).collect();
        let texts: Vec<&str> = kept.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Item 8. Financial Statements and Supplementary Data",
                "Index to Consolidated Financial Statements"
            ]
        );
        assert_eq!(kept[1].wide_gaps, 0, "no gap is left in the title once the header is gone");
    }
}
