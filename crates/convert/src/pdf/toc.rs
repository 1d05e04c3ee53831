//! Printed contents lists: the pages that hold one are skipped as text, and their entries
//! (title, number, page, indentation) can serve as the declared outline when there are no
//! bookmarks, each entry matched to the heading line it names.

use super::bookmarks::{match_lines, TitleKey};
use super::layout::Line;
use super::titles::{clean_number, is_lone_label, label_depth, unglue_number};
use folio_core::numbering::split_heading_number;
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

fn is_contents_word(s: &str) -> bool {
    if s.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let t: String = s.chars().filter(|c| c.is_alphabetic() || *c == ' ').collect::<String>().to_lowercase();
    let t = t.trim();
    t == "contents" || t == "table of contents" || t == "content"
}

/// Finds printed contents pages, marks their lines skipped and returns their entries.
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
    for (p, idx) in by_page.iter().enumerate().take(scan_pages) {
        if idx.is_empty() {
            continue;
        }
        let leaders = idx.iter().filter(|&&i| toc_line_re().is_match(lines[i].text.trim())).count();
        let numbered = idx
            .iter()
            .filter(|&&i| {
                let t = lines[i].text.trim();
                toc_line_re().is_match(t) || trailing_page_re().is_match(t)
            })
            .count();
        let has_word = idx.iter().any(|&i| is_contents_word(&lines[i].text));
        let n = idx.len();
        let is_toc = (leaders >= 3 && leaders * 10 >= n * 3)
            || (has_word && numbered * 2 >= n && numbered >= 3)
            || (prev_toc && numbered * 2 >= n && numbered >= 2);
        if !is_toc {
            if prev_toc && p > 0 {
                prev_toc = false;
            }
            continue;
        }
        prev_toc = true;
        let mut pending: Option<(String, f32)> = None;
        for &i in idx {
            lines[i].skip = true;
            let l = &lines[i];
            let t = l.text.trim();
            if is_contents_word(t) {
                continue;
            }
            let caps = toc_line_re().captures(t).or_else(|| trailing_page_re().captures(t));
            match caps {
                Some(c) => {
                    let mut title = c["title"].trim().to_string();
                    let mut x0 = l.x0;
                    if let Some((prev, px)) = pending.take() {
                        title = format!("{prev} {title}");
                        x0 = px;
                    }
                    let page_txt = &c["page"];
                    let page = page_txt.parse::<i64>().ok();
                    let (number, depth) = match split_heading_number(&title) {
                        Some(h) if !h.title.is_empty() => {
                            (Some(clean_number(h.label)), Some(label_depth(&h.parsed, h.label)))
                        }
                        _ => (None, None),
                    };
                    entries.push(TocEntry { title, number, depth, page, x0 });
                }
                None if is_lone_label(t) => {
                    // "PART II" over "Item 5. Market … 50": a division without a page of its own,
                    // an entry of its own (not the start of the next entry's title).
                    pending = None;
                    entries.push(TocEntry {
                        title: t.to_string(),
                        number: None,
                        depth: None,
                        page: None,
                        x0: l.x0,
                    });
                }
                None => {
                    // A wrapped entry: keep the text for the next line.
                    if t.chars().count() < 120 {
                        pending = Some(match pending.take() {
                            Some((prev, px)) => (format!("{prev} {t}"), px),
                            None => (t.to_string(), l.x0),
                        });
                    }
                }
            }
        }
    }
    entries
}

/// Uses a printed contents list as the declared outline: each entry matched to a later line.
/// Returns how many entries matched.
pub(super) fn apply_toc(lines: &mut [Line], order: &[usize], entries: &[TocEntry]) -> usize {
    // Levels: numbering depth, else indentation rank. Divisions listed without a page ("PART II",
    // set centred over their entries) are the top level and their entries one below, whatever the
    // indentation says.
    let is_division = |e: &TocEntry| e.page.is_none() && is_lone_label(&e.title);
    let below = entries.iter().any(is_division) as u8;
    let mut indents: Vec<f32> = Vec::new();
    for e in entries.iter().filter(|e| !is_division(e)) {
        if !indents.iter().any(|x| (x - e.x0).abs() < 4.0) {
            indents.push(e.x0);
        }
    }
    indents.sort_by(|a, b| a.total_cmp(b));
    let indent_level =
        |x: f32| indents.iter().position(|v| (v - x).abs() < 4.0).map(|p| p as u8 + 1).unwrap_or(1);
    let mut cursor = 0usize;
    let mut offset: Option<i64> = None;
    let mut matched = 0;
    for e in entries {
        let key = TitleKey::new(&e.title);
        if key.bare.is_empty() {
            continue;
        }
        let level = if is_division(e) {
            1
        } else {
            below + e.depth.map(|d| d.min(9) as u8).unwrap_or_else(|| indent_level(e.x0))
        };
        let limit_page = match (e.page, offset) {
            (Some(p), Some(o)) => Some(p + o + 1),
            _ => None,
        };
        let mut pos = cursor;
        let mut found = None;
        while pos < order.len() {
            let l = &lines[order[pos]];
            if limit_page.is_some_and(|lp| l.page as i64 + 1 > lp) {
                break;
            }
            if !l.skip && l.declared.is_none() {
                let unglued = unglue_number(l.text.trim());
                let num_ok = match (&e.number, split_heading_number(&unglued)) {
                    (Some(n), Some(h)) => clean_number(h.label) == *n,
                    (Some(_), None) => false,
                    _ => true,
                };
                if let Some(n) = match_lines(lines, order, pos, &key).filter(|_| num_ok) {
                    found = Some((pos, n));
                    break;
                }
            }
            pos += 1;
        }
        if let Some((pos, n)) = found {
            let i = order[pos];
            lines[i].declared = Some(level);
            lines[i].declared_lines = n as u8;
            if let Some(p) = e.page {
                offset = Some(lines[i].page as i64 + 1 - p);
            }
            cursor = pos + 1;
            matched += 1;
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_lines() {
        assert!(toc_line_re().is_match("1.1 Overview ......................... 6"));
        assert!(toc_line_re().is_match("1.3.1 Early history . . . . . . . . . . 4"));
        assert!(!toc_line_re().is_match("This is a sentence. It ends here 5"));
        assert!(trailing_page_re().is_match("1 About this manual 3"));
    }
}
