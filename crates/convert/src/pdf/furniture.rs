//! The page's furniture and the body style: the most common text style, the typical line
//! spacing, and running headers, footers and page numbers (marked skipped).

use super::chars::{FontInfo, StyleStats};
use super::layout::{Line, PageInfo};
use std::collections::HashMap;

/// The body text style and derived measures.
#[derive(Debug, Clone, Copy)]
pub(super) struct Body {
    pub size: f32,
    pub weight: i16,
    pub font: u16,
    /// Typical baseline distance between body lines.
    pub spacing: f32,
}

pub(super) fn body_style(tables: &StyleStats) -> Body {
    let mut by_size: HashMap<u16, u64> = HashMap::new();
    for (&(s, _, _), &n) in &tables.style_chars {
        *by_size.entry(s).or_insert(0) += n;
    }
    let size_q = by_size.iter().max_by_key(|(s, n)| (**n, **s)).map(|(s, _)| *s).unwrap_or(20);
    let mut by_weight: HashMap<i16, u64> = HashMap::new();
    let mut by_font: HashMap<u16, u64> = HashMap::new();
    for (&(s, w, f), &n) in &tables.style_chars {
        if s == size_q {
            *by_weight.entry(w).or_insert(0) += n;
            *by_font.entry(f).or_insert(0) += n;
        }
    }
    let weight = by_weight.iter().max_by_key(|(w, n)| (**n, -**w)).map(|(w, _)| *w).unwrap_or(400);
    let font = by_font.iter().max_by_key(|(f, n)| (**n, **f)).map(|(f, _)| *f).unwrap_or(0);
    let size = (size_q as f32 / 2.0).max(1.0);
    Body { size, weight, font, spacing: size * 1.2 }
}

pub(super) fn measure_spacing(lines: &[Line], body: &Body) -> f32 {
    let mut deltas: Vec<f32> = Vec::new();
    for w in lines.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if a.page == b.page
            && a.col == b.col
            && (a.size - body.size).abs() < 0.6
            && (b.size - body.size).abs() < 0.6
        {
            let d = a.y - b.y;
            if d > 0.8 * body.size && d < 2.5 * body.size {
                deltas.push(d);
            }
        }
        if deltas.len() > 20_000 {
            break;
        }
    }
    if deltas.is_empty() {
        return body.size * 1.2;
    }
    deltas.sort_by(|a, b| a.total_cmp(b));
    deltas[deltas.len() / 2]
}

pub(super) fn squash_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
    }
    out
}

pub(super) fn is_page_number_text(s: &str) -> bool {
    let t = s.trim().trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c.is_whitespace());
    let t = t.strip_prefix("Page ").or_else(|| t.strip_prefix("page ")).unwrap_or(t).trim();
    if t.is_empty() || t.len() > 12 {
        return false;
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    // "3 of 10", roman numerals.
    if let Some((a, b)) = t.split_once(" of ") {
        return a.trim().chars().all(|c| c.is_ascii_digit()) && b.trim().chars().all(|c| c.is_ascii_digit());
    }
    folio_core::numbering::roman_value(&t.to_ascii_lowercase()).is_some() && t.len() <= 6
}

/// A leading or trailing integer of a margin line ("4 Chapter 1. About", "Guide 12").
pub(super) fn edge_number(s: &str) -> Option<i64> {
    let t = s.trim();
    let lead: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let trail: String = {
        let mut v: Vec<char> = t.chars().rev().take_while(|c| c.is_ascii_digit()).collect();
        v.reverse();
        v.into_iter().collect()
    };
    let ok = |d: &str| !d.is_empty() && d.len() <= 5;
    if ok(&trail) {
        return trail.parse().ok();
    }
    if ok(&lead) {
        return lead.parse().ok();
    }
    None
}

/// The body style of each page, its text size and its font: what most characters have on the
/// page and the two pages before and after it (the document's body style where they hold little
/// text). A page that holds [`A_PAGE_OF_TEXT`] of running text (outside tables) has its own where
/// that text is set in a typeface other than the pages around it (a one-page form attached to a
/// filing between a credit agreement and the certifications, each in its own size and font), and
/// its own size where that is larger than theirs by a heading's step.
pub(super) fn page_bodies(
    lines: &[Line],
    in_table: &[bool],
    fonts: &[FontInfo],
    pages: usize,
    body: &Body,
) -> (Vec<f32>, Vec<u16>) {
    let family = |f: u16| fonts.get(f as usize).map(|f| font_family(&f.name));
    let size_key = |l: &Line| (l.size * 2.0).round() as u16;
    let mut own: Vec<[HashMap<u16, usize>; 2]> = vec![Default::default(); pages];
    let mut all: Vec<[HashMap<u16, usize>; 2]> = vec![Default::default(); pages];
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| !l.skip) {
        let Some(counts) = all.get_mut(l.page as usize) else { continue };
        *counts[0].entry(size_key(l)).or_insert(0) += l.text.len();
        *counts[1].entry(l.font).or_insert(0) += l.text.len();
        if !in_table.get(i).copied().unwrap_or(false) {
            let counts = &mut own[l.page as usize];
            *counts[0].entry(size_key(l)).or_insert(0) += l.text.len();
            *counts[1].entry(l.font).or_insert(0) += l.text.len();
        }
    }
    let (mut sizes, mut fonts) = (Vec::with_capacity(pages), Vec::with_capacity(pages));
    for p in 0..pages {
        let near = &all[p.saturating_sub(2)..(p + 3).min(pages)];
        let near_font = mode(near.iter().map(|c| &c[1]), ENOUGH_TEXT);
        let own_font = mode([&own[p][1]], A_PAGE_OF_TEXT);
        let own_size = mode([&own[p][0]], A_PAGE_OF_TEXT);
        let near_size = mode(near.iter().map(|c| &c[0]), ENOUGH_TEXT);
        let (size, font) = match own_font {
            Some(f) if near_font.is_none_or(|n| family(n) != family(f)) => (own_size, Some(f)),
            // A page whose running text is set larger than the pages around it by a heading's
            // step (a one-page amendment in 12 pt after a report in 10) is read at its own size:
            // its body text is no heading for being larger than theirs. (Smaller, it is notes
            // under a table.)
            _ if set_larger(own_size, near_size) => (own_size, near_font),
            _ => (near_size, near_font),
        };
        sizes.push(size.map_or(body.size, |k| k as f32 / 2.0));
        fonts.push(font.unwrap_or(body.font));
    }
    (sizes, fonts)
}

/// A line's size over the body's at which it reads as set larger (`Ctx::is_larger`).
pub(super) const LARGER_THAN_BODY: f32 = 1.12;

/// Whether one size (half points) is larger than another by what sets a heading off from its body.
fn set_larger(size: Option<u16>, than: Option<u16>) -> bool {
    matches!((size, than), (Some(a), Some(b)) if a as f32 >= b as f32 * LARGER_THAN_BODY)
}

/// A font's typeface, without its subset tag, style and vendor suffix:
/// "ABCDEF+TimesNewRomanPS-BoldMT" and "TimesNewRomanPSMT" are both "TimesNewRoman",
/// "Arial-ItalicMT" and "ArialMT" "Arial".
pub(super) fn font_family(name: &str) -> &str {
    let name = name.split_once('+').map_or(name, |(tag, rest)| if tag.len() == 6 { rest } else { name });
    let name = name.split(['-', ',']).next().unwrap_or(name);
    ["PSMT", "MT", "PS"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(name)
}

/// The value with the most characters over some pages' counts, if they hold `enough` characters.
fn mode<'a>(counts: impl IntoIterator<Item = &'a HashMap<u16, usize>>, enough: usize) -> Option<u16> {
    let mut sum: HashMap<u16, usize> = HashMap::new();
    for h in counts {
        for (k, n) in h {
            *sum.entry(*k).or_insert(0) += n;
        }
    }
    let total: usize = sum.values().sum();
    let most = sum.into_iter().max_by_key(|(k, n)| (*n, *k)).map(|(k, _)| k);
    most.filter(|_| total >= enough)
}

/// Characters on five pages below which they tell nothing of the body's style.
const ENOUGH_TEXT: usize = 1500;
/// Characters on one page enough to tell its own body font (a form, a short certification).
const A_PAGE_OF_TEXT: usize = 500;

/// Whether a line has a word: a repeated line of numbers alone ("2023   2022") heads table
/// columns page after page, and is no running header.
fn has_words(s: &str) -> bool {
    s.chars().filter(|c| c.is_alphabetic()).count() >= 2
}

/// Marks running headers, footers and page numbers as skipped. A line that opens or closes a page
/// with the page's printed number ("4 Chapter 1. About") is furniture only when it is not set
/// larger than the body text: a chapter heading "2 Core Principles" at the top of page 2 stays.
pub(super) fn remove_page_furniture(lines: &mut [Line], pages: &[PageInfo], body: &Body) {
    let npages = pages.len();
    // Margin candidates: lines in the top or bottom 11% of the page, plus the outermost line.
    let mut by_page: Vec<Vec<usize>> = vec![Vec::new(); npages];
    for (i, l) in lines.iter().enumerate() {
        by_page[l.page as usize].push(i);
    }
    let mut margin: Vec<usize> = Vec::new();
    let mut outermost: std::collections::HashSet<usize> = std::collections::HashSet::new();
    // A page's last line alone, set well above the bottom margin (a short page whose number sits
    // under its text): furniture only as a page number in step with the others.
    let mut raised: Vec<usize> = Vec::new();
    for (p, idx) in by_page.iter().enumerate() {
        if idx.is_empty() {
            continue;
        }
        let h = pages[p].height.max(1.0);
        let top = idx.iter().copied().max_by(|&a, &b| lines[a].y.total_cmp(&lines[b].y));
        let bot = idx.iter().copied().min_by(|&a, &b| lines[a].y.total_cmp(&lines[b].y));
        for &i in idx {
            let l = &lines[i];
            let in_zone = l.y > h * 0.89 || l.y < h * 0.11;
            let outer = Some(i) == top && l.y > h * 0.8 || Some(i) == bot && l.y < h * 0.2;
            if in_zone || outer {
                margin.push(i);
            } else if Some(i) == bot && l.y < h * 0.4 && is_page_number_text(&l.text) {
                raised.push(i);
            }
            if Some(i) == top || Some(i) == bot {
                outermost.insert(i);
            }
        }
    }
    // Repeated text at about the same height, digits ignored.
    let in_zone = |l: &Line| {
        let h = pages[l.page as usize].height.max(1.0);
        l.y > h * 0.905 || l.y < h * 0.095
    };
    let mut counts: HashMap<(String, i32), Vec<(u32, String)>> = HashMap::new();
    for &i in &margin {
        let l = &lines[i];
        if !in_zone(l) {
            continue;
        }
        let key = squash_digits(&l.text);
        if key.is_empty() {
            continue;
        }
        let yb = (l.y / 6.0).round() as i32;
        let e = counts.entry((key, yb)).or_default();
        if e.last().map(|(p, _)| *p) != Some(l.page) {
            e.push((l.page, l.text.clone()));
        }
    }
    let threshold = if npages <= 4 { 2 } else { 3 };
    // Running text recurs on many pages or on pages close together; where its digits change, the
    // same text recurs or a number follows the pages (see `numbers_recur_or_count_pages`).
    let running = |v: &Vec<(u32, String)>| {
        let near = v.windows(2).filter(|w| w[1].0 - w[0].0 <= 2).count();
        v.len() >= threshold
            && (v.len() * 10 >= npages || near * 2 >= v.len())
            && numbers_recur_or_count_pages(v)
    };
    let repeated = |l: &Line| -> bool {
        let key = squash_digits(&l.text);
        let yb = (l.y / 6.0).round() as i32;
        (-1..=1).any(|d| counts.get(&(key.clone(), yb + d)).is_some_and(running))
    };
    // The printed page number offset: physical page - printed number, most common.
    let mut offsets: HashMap<i64, u32> = HashMap::new();
    for &i in margin.iter().chain(&raised) {
        let l = &lines[i];
        if let Some(n) = edge_number(&l.text) {
            *offsets.entry(l.page as i64 + 1 - n).or_insert(0) += 1;
        }
    }
    // The most common offset, where a tenth of the pages or more agree on it and no other offset
    // comes near (a filing with exhibits numbered apart agrees on its own pages only); ties go the
    // same way on every run.
    let mut ranked: Vec<(i64, u32)> = offsets.iter().map(|(o, n)| (*o, *n)).collect();
    ranked.sort_by_key(|&(o, n)| (std::cmp::Reverse(n), o.abs(), o));
    let best_offset = ranked
        .first()
        .filter(|&&(_, n)| n as usize >= 3.max(npages / 10))
        .filter(|&&(_, n)| ranked.get(1).is_none_or(|&(_, m)| n >= 2 * m))
        .map(|&(o, _)| o);
    // A line whose number at its edge is its page's printed number.
    let in_step =
        |l: &Line| best_offset.is_some_and(|off| edge_number(&l.text) == Some(l.page as i64 + 1 - off));
    for &i in &raised {
        if in_step(&lines[i]) {
            lines[i].skip = true;
        }
    }
    for &i in &margin {
        let l = &lines[i];
        let numbered_furniture = outermost.contains(&i)
            && l.size <= body.size * 1.15
            && in_step(l)
            && l.text.chars().count() <= 90;
        if is_page_number_text(&l.text)
            || (in_zone(l) && repeated(l) && has_words(&l.text))
            || numbered_furniture
        {
            lines[i].skip = true;
        }
    }
}

/// The digit runs of a text, as numbers ("Exhibit 31.2" → [31, 2]).
fn numbers(s: &str) -> Vec<i64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|d| !d.is_empty() && d.len() <= 9)
        .filter_map(|d| d.parse().ok())
        .collect()
}

/// Whether lines that agree but for their digits (each on its page) are running text: the same
/// text recurs ("2022 Annual Report", "Section 3" over several pages), or, where every page's
/// differs, one of its numbers counts the pages ("Form 10-K | 45", "| 46", …). Labels whose
/// numbers neither recur nor count ("Exhibit 21.1", "Exhibit 23.1", "Exhibit 31.1" heading the
/// exhibits' pages) are the pages' own headings.
fn numbers_recur_or_count_pages<T: AsRef<str>>(v: &[(u32, T)]) -> bool {
    let distinct: std::collections::HashSet<&str> = v.iter().map(|(_, t)| t.as_ref()).collect();
    if distinct.len() < v.len() {
        return true;
    }
    let pairs = v.len().saturating_sub(1);
    // A page number is one field of the line, counting in the same place from page to page:
    // "Exhibit 31.01", "31.02", "32.01", "32.02" on four pages step by one in one field, then the
    // other, and are the exhibits' labels.
    let nums: Vec<(i64, Vec<i64>)> = v.iter().map(|(p, t)| (*p as i64, numbers(t.as_ref()))).collect();
    let fields = nums.iter().map(|(_, n)| n.len()).max().unwrap_or(0);
    let counting = (0..fields)
        .map(|i| {
            nums.windows(2)
                .filter(|w| {
                    let ((pa, a), (pb, b)) = (&w[0], &w[1]);
                    a.len() == b.len() && a.get(i).zip(b.get(i)).is_some_and(|(x, y)| y - x == pb - pa)
                })
                .count()
        })
        .max()
        .unwrap_or(0);
    counting * 4 >= pairs * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typefaces_of_fonts() {
        assert_eq!(font_family("ABCDEF+TimesNewRomanPS-BoldMT"), "TimesNewRoman");
        assert_eq!(font_family("TimesNewRomanPSMT"), "TimesNewRoman");
        assert_eq!(font_family("Arial-ItalicMT"), "Arial");
        assert_eq!(font_family("ArialMT"), "Arial");
        assert_eq!(font_family("Arial,Bold"), "Arial");
        assert_eq!(font_family("HelveticaNeueLTStd-Lt"), font_family("HelveticaNeueLTStd-B1"));
        assert_ne!(font_family("TimesNewRomanPSMT"), font_family("ArialMT"));
    }

    #[test]
    fn furniture_texts() {
        assert!(is_page_number_text("12"));
        assert!(is_page_number_text("- 3 -"));
        assert!(is_page_number_text("xiv"));
        assert!(is_page_number_text("Page 4"));
        assert!(!is_page_number_text("1.1 Scope"));
        assert_eq!(edge_number("4 Chapter 1. About this manual"), Some(4));
        assert_eq!(squash_digits("Page 12 of 40"), "page#of#");
    }

    #[test]
    fn page_numbers_under_short_pages() {
        // Twenty pages whose number sits at y 179 under text ending at y 218, well above the bottom
        // margin; on the last page the lowest line is a year in the text, not its number.
        let mut lines = Vec::new();
        for p in 0..20u32 {
            let body = Line::printed(p, 218.0, 8.5, "volume milestone targets. These assumptions and");
            let text = if p == 19 { "1999".to_string() } else { format!("{}", p + 1) };
            let number = Line { top: 187.0, ..Line::printed(p, 179.0, 8.5, &text) };
            lines.push(body);
            lines.push(number);
        }
        let pages = vec![PageInfo { width: 612.0, height: 792.0 }; 20];
        let body = Body { size: 8.5, weight: 400, font: 0, spacing: 10.4 };
        remove_page_furniture(&mut lines, &pages, &body);
        assert!(lines.iter().step_by(2).all(|l| !l.skip), "the text stays");
        assert!(lines[1..38].iter().step_by(2).all(|l| l.skip), "the numbers go");
        assert!(!lines[39].skip, "a year ending a page is text");
    }

    #[test]
    fn running_text_repeats_or_counts_pages() {
        let footer = [
            (4, "Apple Inc. | 2022 Form 10-K | 3"),
            (5, "Apple Inc. | 2022 Form 10-K | 4"),
            (7, "Apple Inc. | 2022 Form 10-K | 6"),
        ];
        assert!(numbers_recur_or_count_pages(&footer));
        let header = [(9, "Section 3"), (10, "Section 3"), (11, "Section 4")];
        assert!(numbers_recur_or_count_pages(&header));
        let exhibits = [
            (75, "Exhibit 21.1"),
            (76, "Exhibit 23.1"),
            (77, "Exhibit 31.1"),
            (78, "Exhibit 31.2"),
            (79, "Exhibit 32.1"),
        ];
        assert!(!numbers_recur_or_count_pages(&exhibits));
        // Each step counts a page, but in one field, then the other: labels, not page numbers.
        let certifications =
            [(185, "Exhibit 31.01"), (186, "Exhibit 31.02"), (187, "Exhibit 32.01"), (188, "Exhibit 32.02")];
        assert!(!numbers_recur_or_count_pages(&certifications));
        let two_fields = [(12, "Part 2 – page 12"), (13, "Part 2 – page 13"), (14, "Part 3 – page 14")];
        assert!(numbers_recur_or_count_pages(&two_fields));
    }
}
