//! Bookmarks, the PDF's declared outline: read for [`read_outline`], and matched to the lines
//! they point at so that each becomes a heading at its bookmark's level.

use super::binding::RawBookmark;
use super::engine::with_document;
use super::layout::{Line, PageInfo};
use super::titles::{normalise_title, normalised_heading_text};
use crate::{ConvertOptions, ErrorKind};

/// One bookmark: its depth (0 = top), title, and destination page (0-based) and y.
pub(super) type Bookmark = RawBookmark;

/// One entry of a PDF's bookmark outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineEntry {
    /// 1 for top-level bookmarks.
    pub level: u8,
    /// The bookmark's title as the PDF gives it, trimmed (empty when it has none).
    pub title: String,
    /// 1-based destination page.
    pub page: Option<u32>,
}

/// The PDF's bookmarks (its declared outline), in document order; empty when it has none.
pub fn read_outline(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<OutlineEntry>, ErrorKind> {
    with_document(bytes, options, |d| {
        d.bookmarks()
            .into_iter()
            .map(|b| OutlineEntry { level: b.depth + 1, title: b.title, page: b.page.map(|p| p + 1) })
            .collect()
    })
}

/// A title as lines are matched to it: all its letters, and its letters after any leading
/// numbering label ("Note 12 – Leases" → "noteleases" and "leases"). Digits are left out of both.
pub(super) struct TitleKey {
    pub full: String,
    pub bare: String,
}

impl TitleKey {
    pub fn new(title: &str) -> TitleKey {
        TitleKey { full: normalise_title(title), bare: normalised_heading_text(title) }
    }
}

/// Up to four consecutive unskipped lines of one page, starting at `start`, whose joined text
/// is `key` (with or without its numbering label); returns how many lines.
pub(super) fn match_lines(lines: &[Line], order: &[usize], start: usize, key: &TitleKey) -> Option<usize> {
    let mut acc = String::new();
    for n in 0..4 {
        let &i = order.get(start + n)?;
        let l = &lines[i];
        if n > 0 && (l.page != lines[order[start]].page || l.declared.is_some()) {
            return None;
        }
        if !acc.is_empty() {
            acc.push(' ');
        }
        acc.push_str(l.text.trim());
        let equal = |full: &str, bare: &str| {
            (!key.full.is_empty() && full == key.full) || (!key.bare.is_empty() && bare == key.bare)
        };
        let (full, bare) = (normalise_title(&acc), normalised_heading_text(&acc));
        // The printed title may add a parenthetical the entry leaves out ("Financial Information
        // by Quarter (Unaudited)" for "Financial Information by Quarter").
        let head = acc.strip_suffix(')').and_then(|a| a.rfind('(').map(|p| &acc[..p]));
        if equal(&full, &bare)
            || head.is_some_and(|h| equal(&normalise_title(h), &normalised_heading_text(h)))
        {
            return Some(n + 1);
        }
        let open = |norm: &str, key: &str| !norm.is_empty() && key.starts_with(norm);
        if !(open(&full, &key.full) || open(&bare, &key.bare) || (bare.is_empty() && n == 0)) {
            return None;
        }
    }
    None
}

/// Marks bookmark targets as declared headings; inserts synthetic lines for unmatched ones.
pub(super) fn apply_bookmarks(
    lines: &mut Vec<Line>,
    order: &mut Vec<usize>,
    bookmarks: &[Bookmark],
    pages: &[PageInfo],
) {
    let mut pos_of_page: Vec<usize> = vec![usize::MAX; pages.len() + 1];
    let rebuild = |order: &[usize], lines: &[Line], pos_of_page: &mut Vec<usize>| {
        pos_of_page.iter_mut().for_each(|p| *p = usize::MAX);
        for (pos, &i) in order.iter().enumerate() {
            let p = lines[i].page as usize;
            if pos_of_page[p] == usize::MAX {
                pos_of_page[p] = pos;
            }
        }
    };
    rebuild(order, lines, &mut pos_of_page);
    let mut cursor = 0usize;
    for bm in bookmarks {
        let key = TitleKey::new(&bm.title);
        let level = (bm.depth + 1).min(9);
        let Some(page) = bm.page else { continue };
        if key.full.is_empty() {
            continue;
        }
        // Search the destination page (below the destination y), then the next page.
        let mut found: Option<(usize, usize)> = None;
        for p in [page, page + 1] {
            let start = pos_of_page.get(p as usize).copied().unwrap_or(usize::MAX);
            if start == usize::MAX {
                continue;
            }
            let mut pos = start.max(if p == page { 0 } else { cursor });
            while pos < order.len() && lines[order[pos]].page == p {
                let l = &lines[order[pos]];
                let below = bm.y.is_none_or(|y| l.top <= y + 2.0 * l.size.max(6.0)) || p != page;
                if below && l.declared.is_none() && !l.skip {
                    if let Some(n) = match_lines(lines, order, pos, &key) {
                        found = Some((pos, n));
                        break;
                    }
                }
                pos += 1;
            }
            if found.is_some() {
                break;
            }
        }
        match found {
            Some((pos, n)) => {
                let i = order[pos];
                lines[i].declared = Some(level);
                lines[i].declared_lines = n as u8;
                lines[i].declared_title = Some(bm.title.clone());
                cursor = pos;
            }
            None => {
                // A heading the page does not print: insert it where the destination points.
                let p = page as usize;
                let y = bm.y.unwrap_or(f32::MAX);
                let mut at = pos_of_page.get(p).copied().unwrap_or(usize::MAX);
                if at == usize::MAX {
                    at = pos_of_page
                        .iter()
                        .skip(p + 1)
                        .copied()
                        .find(|&x| x != usize::MAX)
                        .unwrap_or(order.len());
                } else {
                    while at < order.len() && lines[order[at]].page == page && lines[order[at]].top > y + 1.0
                    {
                        at += 1;
                    }
                }
                let size = lines.get(order.get(at).copied().unwrap_or(0)).map(|l| l.size).unwrap_or(12.0);
                let y = if y.is_finite() && y < f32::MAX { y } else { pages[p].height };
                let mut line = Line::synthetic(page, y, size, &bm.title, level);
                line.declared_title = Some(bm.title.clone());
                lines.push(line);
                order.insert(at, lines.len() - 1);
                rebuild(order, lines, &mut pos_of_page);
            }
        }
    }
}
