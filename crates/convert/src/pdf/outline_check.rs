//! How well a converted document's headings recover a reference outline (a PDF's own bookmarks):
//! the measure behind the filing tests and `examples/outline_check.rs`.
//!
//! A bookmark is *found* when a heading, in document order, lies on its destination page (or the
//! next, for a bookmark set just above a page break) and its normalised text equals the
//! bookmark's, or one contains the other. Bookmarks and headings are aligned in order (the longest
//! common subsequence of matches), so one heading answers at most one bookmark.
//!
//! - recall = found / bookmarks;
//! - level agreement = found at the bookmark's level / found;
//! - steps agreeing = consecutive found pairs whose step (deeper, same, shallower) agrees;
//! - equal titles = found headings whose normalised text equals the bookmark's / bookmarks.
//!
//! The page alone cannot print a bookmark such as "Cover Page": [`printed_only`] keeps the
//! bookmarks whose title the destination page (or the next) prints.

use super::bookmarks::OutlineEntry;
use folio_core::model::Document;

/// Letters and digits only, lower-cased: how titles are compared.
pub fn outline_key(s: &str) -> String {
    super::titles::alphanumerics(s)
}

/// A heading as the measure sees it.
#[derive(Debug, Clone)]
pub struct FoundHeading {
    /// Its text, as [`outline_key`] compares it.
    pub key: String,
    /// Its level, 1 at the top.
    pub level: u8,
    /// The first and last pages it is printed on (1-based).
    pub first_page: u32,
    /// See `first_page`.
    pub last_page: u32,
}

/// A document's headings in order.
pub fn document_headings(doc: &Document) -> Vec<FoundHeading> {
    doc.blocks_with_text()
        .filter_map(|(b, t)| {
            let level = b.kind.heading_level()?;
            let pages = b.pages?;
            Some(FoundHeading { key: outline_key(t), level, first_page: pages.start, last_page: pages.end })
        })
        .collect()
}

/// A reference bookmark: normalised title, level, 1-based destination page, title as written.
#[derive(Debug, Clone)]
pub struct Mark {
    /// The title as [`outline_key`] compares it (or the part of it the page prints).
    pub key: String,
    /// The bookmark's level, 1 at the top.
    pub level: u8,
    /// Its destination page (1-based).
    pub page: u32,
    /// The title as the bookmark gives it.
    pub title: String,
}

/// The bookmarks with a destination page and a title, as reference marks.
pub fn marks_of(outline: Vec<OutlineEntry>) -> Vec<Mark> {
    outline
        .into_iter()
        .filter_map(|e| {
            Some(Mark { key: outline_key(&e.title), level: e.level, page: e.page?, title: e.title })
        })
        .filter(|m| !m.key.is_empty())
        .collect()
}

/// Splits the marks into those whose title the destination page (or the next) prints, given each
/// page's plain text, and the titles of the rest.
pub fn printed_only(marks: Vec<Mark>, page_texts: &[String]) -> (Vec<Mark>, Vec<String>) {
    let pages: Vec<String> = page_texts.iter().map(|t| outline_key(t)).collect();
    let on = |p: u32| pages.get((p as usize).wrapping_sub(1)).map(String::as_str).unwrap_or("");
    let (mut kept, mut left) = (Vec::new(), Vec::new());
    for mut m in marks {
        let printed = |key: &str| on(m.page).contains(key) || on(m.page + 1).contains(key);
        if printed(&m.key) {
            kept.push(m);
        } else if let Some(rest) = unlabelled(&m.title).filter(|k| printed(k)) {
            // "A-1 - Condensed Consolidated Statement of Income": the page prints the title, its
            // exhibit code elsewhere (in the footer).
            m.key = rest;
            kept.push(m);
        } else {
            left.push(m.title);
        }
    }
    (kept, left)
}

/// The key of a title after a short leading code and a dash or colon ("A-1 - Condensed …").
fn unlabelled(title: &str) -> Option<String> {
    let (code, rest) = [" - ", " – ", " — ", ": "].iter().find_map(|sep| title.split_once(sep))?;
    let rest = outline_key(rest);
    (outline_key(code).len() <= 6 && rest.len() >= 8).then_some(rest)
}

/// The measure's counts, and a line per miss.
#[derive(Default, Debug, Clone)]
pub struct OutlineScore {
    /// Reference marks.
    pub marks: usize,
    /// Marks found as headings.
    pub found: usize,
    /// Found at the mark's level.
    pub same_level: usize,
    /// Found with the mark's title exactly (normalised).
    pub equal_title: usize,
    /// Consecutive found pairs.
    pub steps: usize,
    /// Consecutive found pairs whose step (deeper, same, shallower) agrees.
    pub same_step: usize,
    /// A line per miss, level difference or title difference.
    pub notes: Vec<String>,
}

impl OutlineScore {
    /// Found / marks.
    pub fn recall(&self) -> f64 {
        self.found as f64 / self.marks.max(1) as f64
    }
    /// Found at the mark's level / found.
    pub fn levels(&self) -> f64 {
        self.same_level as f64 / self.found.max(1) as f64
    }
    /// Steps agreeing / steps.
    pub fn shape(&self) -> f64 {
        self.same_step as f64 / self.steps.max(1) as f64
    }
    /// Equal titles / marks.
    pub fn titles(&self) -> f64 {
        self.equal_title as f64 / self.marks.max(1) as f64
    }
}

fn matches(m: &Mark, h: &FoundHeading) -> bool {
    let on_page = h.first_page <= m.page + 1 && h.last_page + 1 >= m.page;
    let short = m.key.len().min(h.key.len());
    on_page && (m.key == h.key || (short >= 4 && (m.key.contains(&h.key) || h.key.contains(&m.key))))
}

/// A copy of the PDF at `path` with the same pages and no outline or structure tree, made with
/// `qpdf --empty --pages` in `dir`: what the page alone gives.
pub fn strip_outline(path: &std::path::Path, dir: &std::path::Path) -> Result<Vec<u8>, String> {
    strip_outline_keeping(path, dir, "1-z")
}

/// [`strip_outline`] keeping only the pages of a qpdf page range ("1-1,3-z" leaves page 2 out).
pub fn strip_outline_keeping(
    path: &std::path::Path,
    dir: &std::path::Path,
    pages: &str,
) -> Result<Vec<u8>, String> {
    let out = dir.join("stripped.pdf");
    let status = std::process::Command::new("qpdf")
        .args(["--empty", "--pages"])
        .arg(path)
        .args([pages, "--"])
        .arg(&out)
        .status()
        .map_err(|e| format!("qpdf did not run ({e}); install it with apt-get install qpdf"))?;
    // qpdf exits 3 for warnings (it repaired something) with a good output file.
    if !(status.success() || status.code() == Some(3)) {
        return Err(format!("qpdf failed on {}", path.display()));
    }
    std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))
}

/// Aligns the marks with the headings in order and counts what agrees.
pub fn score_outline(marks: &[Mark], got: &[FoundHeading]) -> OutlineScore {
    let (n, m) = (marks.len(), got.len());
    let mut dp = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if matches(&marks[i], &got[j]) {
                dp[i + 1][j + 1] + 1
            } else {
                dp[i + 1][j].max(dp[i][j + 1])
            };
        }
    }
    let mut s = OutlineScore { marks: n, ..OutlineScore::default() };
    let (mut i, mut j) = (0, 0);
    let mut last: Option<(u8, u8)> = None;
    while i < n {
        if j < m && matches(&marks[i], &got[j]) && dp[i][j] == dp[i + 1][j + 1] + 1 {
            s.found += 1;
            if let Some((want, had)) = last {
                s.steps += 1;
                s.same_step += (marks[i].level.cmp(&want) == got[j].level.cmp(&had)) as usize;
            }
            last = Some((marks[i].level, got[j].level));
            if got[j].level == marks[i].level {
                s.same_level += 1;
            } else {
                s.notes.push(format!("level {} (want {}): {}", got[j].level, marks[i].level, marks[i].title));
            }
            if got[j].key == marks[i].key {
                s.equal_title += 1;
            } else {
                s.notes.push(format!("title differs: {}", marks[i].title));
            }
            i += 1;
            j += 1;
        } else if j >= m || dp[i + 1][j] >= dp[i][j + 1] {
            s.notes.push(format!("missing: {} (p{})", marks[i].title, marks[i].page));
            i += 1;
        } else {
            j += 1;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(t: &str, level: u8, page: u32) -> Mark {
        Mark { key: outline_key(t), level, page, title: t.into() }
    }
    fn head(t: &str, level: u8, page: u32) -> FoundHeading {
        FoundHeading { key: outline_key(t), level, first_page: page, last_page: page }
    }

    #[test]
    fn counts_found_levels_and_misses() {
        let marks = [mark("Item 7. MD&A", 1, 10), mark("Results", 2, 11), mark("Liquidity", 2, 14)];
        let got = [head("Item 7. MD&A", 1, 10), head("Results of Operations", 1, 11), head("Other", 2, 14)];
        let s = score_outline(&marks, &got);
        assert_eq!((s.marks, s.found, s.same_level), (3, 2, 1));
        assert_eq!(s.steps, 1);
        assert_eq!(s.same_step, 0, "deeper wanted, same level found");
        assert!(s.notes.iter().any(|n| n.starts_with("missing: Liquidity")));
    }

    #[test]
    fn a_heading_on_another_page_does_not_count() {
        let s = score_outline(&[mark("Risk Factors", 1, 5)], &[head("Risk Factors", 1, 9)]);
        assert_eq!(s.found, 0);
    }

    #[test]
    fn printed_only_keeps_titles_the_page_prints() {
        let marks = vec![mark("Cover Page", 1, 1), mark("Item 1. Business", 1, 2)];
        let pages = vec!["UNITED STATES".to_string(), "Item 1.  Business\nWe make".to_string()];
        let (kept, left) = printed_only(marks, &pages);
        assert_eq!(kept.len(), 1);
        assert_eq!(left, vec!["Cover Page".to_string()]);
    }

    #[test]
    fn a_title_printed_without_its_code_counts_as_printed() {
        let marks = vec![mark("A-1 - Condensed Statement of Income", 1, 1)];
        let pages = vec!["PepsiCo\nCondensed Statement of Income\n(in millions)".to_string()];
        let (kept, _) = printed_only(marks, &pages);
        assert_eq!(kept[0].key, "condensedstatementofincome");
    }
}
