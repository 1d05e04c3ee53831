//! A printed contents list as the declared outline: each entry matched to the heading line it
//! names, at the level the list gives it.

use super::TocEntry;
use crate::pdf::bookmarks::{match_lines, TitleKey};
use crate::pdf::layout::Line;
use crate::pdf::titles::{clean_number, is_contents_word, unglue_number};
use folio_core::numbering::split_heading_number;

/// Uses a printed contents list as the declared outline: each entry matched to a later line.
/// Returns how many entries matched.
pub(in crate::pdf) fn apply_toc(
    lines: &mut Vec<Line>,
    order: &mut Vec<usize>,
    entries: &[TocEntry],
) -> usize {
    let levels = entry_levels(entries);
    let mut cursor = 0usize;
    let mut offset: Option<i64> = None;
    let mut matched = 0;
    let mut unprinted_group: Option<(usize, &TocEntry)> = None;
    let mut last_page: Option<i64> = None;
    for (k, e) in entries.iter().enumerate() {
        let key = TitleKey::new(&e.title);
        if key.bare.is_empty() {
            continue;
        }
        let level = levels[k];
        // Where to look from: on from the last entry found, or, where the list starts again (a
        // second list, of the financial statements, after the first), from the page named.
        let from = |n: &TocEntry, cursor: usize| match (n.page, offset, last_page) {
            (Some(p), Some(o), Some(last)) if p < last => {
                let page = (p + o - 1).max(0) as u32;
                order.partition_point(|&i| lines[i].page < page)
            }
            _ => cursor,
        };
        // The last page an entry's heading may be printed on, once the page offset is known.
        let limit_page = |n: &TocEntry| n.page.zip(offset).map(|(p, o)| p + o + 1);
        if e.page.is_some() {
            cursor = from(e, cursor);
        }
        let found = if e.page.is_some() {
            let limit_page = limit_page(e);
            find_entry(lines, order, e, &key, cursor, order.len(), limit_page).or_else(|| {
                // "Condensed Consolidated Balance Sheet as of June 30, 2023 and …" is printed
                // over the statement as "CONDENSED CONSOLIDATED BALANCE SHEET".
                let short = TitleKey::new(without_period(&e.title)?);
                find_entry(lines, order, e, &short, cursor, order.len(), limit_page)
            })
        } else {
            // A division without a page is printed before the first entry that has one: look for
            // it up to where that entry is printed.
            let next = entries[k + 1..].iter().find(|n| n.page.is_some());
            let start = next.map(|n| from(n, cursor)).unwrap_or(cursor);
            let end = next
                .and_then(|n| {
                    find_entry(lines, order, n, &TitleKey::new(&n.title), start, order.len(), limit_page(n))
                })
                .map(|(pos, _)| pos)
                .unwrap_or(order.len());
            find_entry(lines, order, e, &key, start, end, None)
        };
        if e.page.is_some() {
            last_page = e.page;
        }
        let Some((mut pos, n)) = found else {
            if e.group && !is_contents_word(&e.title) {
                unprinted_group = Some((k, e));
            }
            continue;
        };
        if let Some((_, g)) = unprinted_group.take().filter(|(gk, _)| *gk + 1 == k && !e.group) {
            // A division the pages do not print ("Fundamentals of Our Business" over "Introduction
            // to Our Business"): it starts where its first entry does.
            let at = &lines[order[pos]];
            let line = Line::synthetic(at.page, at.top + 0.5, at.size, &g.title, 1);
            lines.push(line);
            order.insert(pos, lines.len() - 1);
            pos += 1;
        }
        let i = order[pos];
        lines[i].declared = Some(level);
        lines[i].declared_lines = n as u8;
        if let Some(p) = e.page {
            offset = Some(lines[i].page as i64 + 1 - p);
        }
        cursor = pos + 1;
        matched += 1;
    }
    matched
}

/// Each entry's level: the deeper of its numbering's depth and its indentation's rank among the
/// entries. Divisions listed without a page ("PART II", set centred over their entries) are the
/// top level and their entries one below, whatever the indentation says. A list that starts again
/// further on (its pages go back: the index of the financial statements printed under "Item 1.
/// Financial Statements") nests under the entry of the lists before it whose page holds its first
/// entry, its own indentation ranked afresh.
fn entry_levels(entries: &[TocEntry]) -> Vec<u8> {
    let mut starts = vec![0];
    let mut last: Option<i64> = None;
    for (k, e) in entries.iter().enumerate() {
        if let Some(p) = e.page {
            if last.is_some_and(|l| p < l) {
                starts.push(k);
            }
            last = Some(p);
        }
    }
    starts.push(entries.len());
    let mut levels = vec![1u8; entries.len()];
    for w in starts.windows(2) {
        let (from, to) = (w[0], w[1]);
        let list = &entries[from..to];
        let base = match list.iter().find_map(|e| e.page) {
            Some(first) if from > 0 => (0..from)
                .filter(|&j| entries[j].page.is_some_and(|p| p <= first))
                .max_by_key(|&j| (entries[j].page, j))
                .map(|j| levels[j])
                .unwrap_or(0),
            _ => 0,
        };
        let below = list.iter().any(|e| e.group && !is_contents_word(&e.title)) as u8;
        let mut indents: Vec<f32> = Vec::new();
        for e in list.iter().filter(|e| !e.group) {
            if !indents.iter().any(|x| (x - e.x0).abs() < 4.0) {
                indents.push(e.x0);
            }
        }
        indents.sort_by(|a, b| a.total_cmp(b));
        let indent_level =
            |x: f32| indents.iter().position(|v| (v - x).abs() < 4.0).map(|p| p as u8 + 1).unwrap_or(1);
        for (k, e) in list.iter().enumerate() {
            let own = if e.group {
                1
            } else {
                below + e.depth.map(|d| d.min(9) as u8).unwrap_or(1).max(indent_level(e.x0))
            };
            levels[from + k] = (base + own).min(9);
        }
    }
    levels
}

/// A title without the period it covers ("… Balance Sheet as of June 30, 2023 and December 31,
/// 2022", "… Statements of Income for the three months ended …"), where it names one.
fn without_period(title: &str) -> Option<&str> {
    let lower = title.to_lowercase();
    let at = [" as of ", " as at ", " for the ", " for each of "]
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        .filter(|&at| at >= 8 && title.is_char_boundary(at))?;
    let rest = &lower[at..];
    rest.chars().any(|c| c.is_ascii_digit()).then(|| title[..at].trim_end_matches([',', ' ']))
}

/// The first line at or after `from` (before `end`, not past the page `limit_page`, 1-based)
/// that prints the entry's title, and how many lines the title spans.
fn find_entry(
    lines: &[Line],
    order: &[usize],
    e: &TocEntry,
    key: &TitleKey,
    from: usize,
    end: usize,
    limit_page: Option<i64>,
) -> Option<(usize, usize)> {
    for pos in from..end.min(order.len()) {
        let l = &lines[order[pos]];
        if limit_page.is_some_and(|lp| l.page as i64 + 1 > lp) {
            return None;
        }
        if l.skip || l.declared.is_some() {
            continue;
        }
        let unglued = unglue_number(l.text.trim());
        let num_ok = match (&e.number, split_heading_number(&unglued)) {
            (Some(n), Some(h)) => clean_number(h.label) == *n,
            (Some(_), None) => false,
            _ => true,
        };
        if let Some(n) = match_lines(lines, order, pos, key).filter(|_| num_ok) {
            return Some((pos, n));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_named_in_titles() {
        assert_eq!(
            without_period("Condensed Consolidated Balance Sheet as of June 30, 2023 and December 31, 2022"),
            Some("Condensed Consolidated Balance Sheet")
        );
        assert_eq!(
            without_period("Consolidated Statements of Operations for the years ended September 24, 2022"),
            Some("Consolidated Statements of Operations")
        );
        assert_eq!(without_period("Provision for the Tax"), None);
    }
}
