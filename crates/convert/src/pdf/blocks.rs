//! Lines into blocks: paragraphs (hyphenated line ends joined), list items, code, and the lines
//! a declared outline names, each a block of its own.

use super::chars::FontInfo;
use super::furniture::{Body, LARGER_THAN_BODY};
use super::layout::Line;
use super::tables::Table;
use super::titles::{alphanumerics, is_lone_label, unglue_number};
use folio_core::model::PageRange;
use folio_core::numbering::split_heading_number;
use regex::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Debug, Clone)]
pub(super) struct Blk {
    /// Indices into the line list.
    pub lines: Vec<usize>,
    pub text: String,
    pub kind: BlkKind,
    pub pages: PageRange,
    /// Heading facts.
    pub number: Option<String>,
    /// Numbering-derived level, when the label decides it.
    pub num_level: Option<u8>,
    pub level: Option<u8>,
    pub declared: Option<u8>,
    /// A declared heading's printed text, where it differs from the bookmark title the block
    /// holds.
    pub printed: Option<String>,
    pub gap_before: f32,
    /// What decided a heading's level.
    pub level_from: Option<LevelFrom>,
}

/// The evidence that decided a heading's level, as [`folio_core::model::Metadata::outline_evidence`]
/// counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LevelFrom {
    Bookmarks,
    /// The page's own headings below a bookmark coarser than the page.
    BelowBookmarks,
    ContentsPage,
    StructureTags,
    Numbering,
    /// The parts of a filing's financial statements (the auditor's report, each statement, the
    /// Notes), which stand beside one another.
    StatementParts,
    Typography,
}

impl LevelFrom {
    pub fn name(self) -> &'static str {
        match self {
            LevelFrom::Bookmarks => "bookmarks",
            LevelFrom::BelowBookmarks => "the page below coarse bookmarks",
            LevelFrom::ContentsPage => "contents page",
            LevelFrom::StructureTags => "structure tags",
            LevelFrom::Numbering => "numbering",
            LevelFrom::StatementParts => "financial statements' parts",
            LevelFrom::Typography => "typography",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum BlkKind {
    Para,
    List {
        marker: String,
        depth: u8,
    },
    Code,
    Heading,
    /// The table of this index in the tables found.
    Table(usize),
}

pub(super) fn list_marker(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:[•◦▪▫●○■□‣⁃∙·*–—-]|\(?[0-9]{1,3}[.)]|\((?:[a-zA-Z]|[ivxlc]{2,5})\)|[a-z][.)])\s+\S")
            .expect("valid list regex")
    });
    let t = text.trim_start();
    if re.is_match(t) {
        let m = t.split_whitespace().next().unwrap_or("").to_string();
        return Some(m);
    }
    None
}

pub(super) fn ends_sentence(s: &str) -> bool {
    let t = s.trim_end().trim_end_matches(['"', '\'', '”', '’', ')']);
    t.ends_with(['.', '!', '?', ':', ';'])
}

/// A line's size over the body's above which bold text is at about the body's size (small caps
/// and a bold face's own metrics set some headings a little smaller).
const NEAR_BODY_SIZE: f32 = 0.95;
/// The gap above a block, over the body's line spacing, past which the block stands apart from
/// the paragraph above it (a heading set on its own line, not a paragraph's next line).
pub(super) const STANDS_APART: f32 = 1.15;

/// What block and heading decisions look at: the lines, the body style and the fonts.
pub(super) struct Ctx<'a> {
    pub lines: &'a [Line],
    pub body: Body,
    pub fonts: &'a [FontInfo],
    /// The body text size around each page (a filing's exhibit may be set in another size than
    /// the report it is attached to).
    pub page_body: &'a [f32],
    /// The body font around each page (an exhibit is set in its own typeface).
    pub page_font: &'a [u16],
}

impl Ctx<'_> {
    pub fn is_bold(&self, l: &Line) -> bool {
        let f = self.fonts.get(l.font as usize);
        let body_bold = self.fonts.get(self.body.font as usize).is_some_and(|f| f.bold_name);
        (l.weight >= self.body.weight + 150 && l.weight >= 450)
            || (f.is_some_and(|f| f.bold_name) && !body_bold)
    }
    /// Whether a line is set in an italic face where the body around it is upright.
    pub fn is_italic(&self, l: &Line) -> bool {
        let body = self.page_font.get(l.page as usize).copied().unwrap_or(self.body.font);
        let italic = |f: u16| self.fonts.get(f as usize).is_some_and(|f| f.italic);
        italic(l.font) && !italic(body)
    }
    /// Monospaced text at most body size, not bold: code.
    pub fn is_fixed(&self, l: &Line) -> bool {
        l.fixed_frac >= 0.9
            && !self.fonts.get(self.body.font as usize).is_some_and(|f| f.fixed)
            && l.size <= self.body_size(l) * 1.05
            && !self.is_bold(l)
    }
    /// A font family different from the body's around the line and no italic or monospace
    /// variant of text.
    pub fn distinct_font(&self, l: &Line) -> bool {
        let body = self.page_font.get(l.page as usize).copied().unwrap_or(self.body.font);
        if l.font == body || l.font == self.body.font {
            return false;
        }
        match (self.fonts.get(l.font as usize), self.fonts.get(body as usize)) {
            (Some(f), Some(b)) => f.name != b.name && !f.italic && !f.fixed,
            _ => false,
        }
    }
    pub fn size_class(&self, l: &Line) -> f32 {
        l.size / self.body_size(l)
    }
    /// The body text size where the line is.
    pub fn body_size(&self, l: &Line) -> f32 {
        self.page_body.get(l.page as usize).copied().unwrap_or(self.body.size)
    }
    /// Whether a line is set larger than the body text around it: a heading's size, not the
    /// body's size give or take the rounding of a font's metrics (measured on the development
    /// documents: body lines vary by up to ±5 %, the smallest heading sizes start some 12 % up).
    pub fn is_larger(&self, l: &Line) -> bool {
        self.size_class(l) >= LARGER_THAN_BODY
    }
    /// Whether a line is set at about the body's size around it, or larger.
    pub fn near_body_size(&self, l: &Line) -> bool {
        self.size_class(l) >= NEAR_BODY_SIZE
    }
    /// Whether a line's style sets it off from body text as a heading: larger, or bold at about
    /// the body's size.
    pub fn styled(&self, l: &Line) -> bool {
        self.is_larger(l) || (self.near_body_size(l) && self.is_bold(l))
    }
    /// Whether a block stands apart from the text above it: a gap over the body's line spacing by
    /// more than [`STANDS_APART`] (or a block that opens its page column).
    pub fn stands_apart(&self, gap_before: f32) -> bool {
        gap_before > STANDS_APART * self.body.spacing || gap_before.is_infinite()
    }
    /// Style key used to cluster heading styles: size in half points, bold, font, capitals and
    /// underline. Underline is a face of its own, ranked as the document uses it (Oracle sets
    /// "Results of Operations" in bold over "Impact of Acquisitions" in bold underlined).
    pub fn style_key(&self, l: &Line) -> (u16, bool, u16, bool, bool) {
        ((l.size * 2.0).round() as u16, self.is_bold(l), l.font, set_in_capitals(&l.text), l.underlined)
    }
}

/// Whether a line is set in capitals ("RESULTS OF OPERATIONS"): in the same font and size, a
/// heading in capitals ranks above one in title case ("Revenue"). A name keeps its own small
/// letters among capitals ("ABOUT McDONALD'S", "eBAY INC."): a word is in capitals where at most a
/// quarter of its letters are small.
pub(super) fn set_in_capitals(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let in_capitals = |word: &str| {
        let small = word.chars().filter(|c| c.is_lowercase()).count();
        4 * small <= word.chars().filter(|c| c.is_alphabetic()).count()
    };
    letters >= 4 && text.split_whitespace().all(in_capitals)
}

/// Groups lines into blocks.
pub(super) fn group_blocks(ctx: &Ctx, order: &[usize], tables: &[Table]) -> Vec<Blk> {
    let table_of: HashMap<usize, usize> =
        tables.iter().enumerate().flat_map(|(t, tb)| tb.lines.iter().map(move |&i| (i, t))).collect();
    let lines = ctx.lines;
    let body = ctx.body;
    let mut blocks: Vec<Blk> = Vec::new();
    let mut prev: Option<usize> = None;
    // Lines still to join to the declared heading being read.
    let mut declared_left = 0u8;
    for &i in order {
        let l = &lines[i];
        if let Some(&t) = table_of.get(&i) {
            match blocks.last_mut() {
                Some(b) if b.kind == BlkKind::Table(t) => {
                    b.lines.push(i);
                    b.pages = b.pages.cover(PageRange::single(l.page + 1));
                }
                _ => blocks.push(Blk {
                    lines: vec![i],
                    text: tables[t].to_tsv(),
                    kind: BlkKind::Table(t),
                    pages: PageRange::single(l.page + 1),
                    number: None,
                    num_level: None,
                    level: None,
                    declared: None,
                    printed: None,
                    gap_before: f32::INFINITY,
                    level_from: None,
                }),
            }
            prev = Some(i);
            declared_left = 0;
            continue;
        }
        let gap_before = match prev {
            Some(p) if lines[p].page == l.page && lines[p].col == l.col && lines[p].y > l.y => {
                lines[p].y - l.y
            }
            _ => f32::INFINITY,
        };
        let marker = list_marker(&l.text);
        let mut start_new = true;
        if let (Some(p), Some(cur)) = (prev, blocks.last()) {
            let a = &lines[p];
            // A line the table does not hold is no part of its text.
            start_new = matches!(cur.kind, BlkKind::Table(_))
                || breaks_between(ctx, a, l, &cur.kind, marker.is_some(), gap_before);
        }
        if l.declared.is_some() || l.synthetic {
            start_new = true;
        } else if declared_left > 0 {
            // The rest of a declared heading's printed title.
            start_new = false;
        } else if blocks.last().is_some_and(|b| b.declared.is_some()) {
            start_new = true;
        }
        declared_left = declared_left.saturating_sub(1);
        if start_new {
            let kind = if ctx.is_fixed(l) {
                BlkKind::Code
            } else if let Some(m) = marker {
                let depth = (((l.x0 - l.col_x0).max(0.0)) / (2.5 * body.size)).floor().min(3.0) as u8;
                BlkKind::List { marker: m, depth }
            } else {
                BlkKind::Para
            };
            blocks.push(Blk {
                lines: vec![i],
                text: l.text.trim().to_string(),
                kind,
                pages: PageRange::single(l.page + 1),
                number: None,
                num_level: None,
                level: None,
                declared: l.declared,
                printed: None,
                gap_before,
                level_from: None,
            });
            if l.declared.is_some() {
                declared_left = l.declared_lines.max(1) - 1;
            }
        } else if let Some(cur) = blocks.last_mut() {
            cur.lines.push(i);
            join_line(&mut cur.text, &l.text, cur.kind == BlkKind::Code);
            cur.pages = cur.pages.cover(PageRange::single(l.page + 1));
        }
        prev = Some(i);
    }
    for b in &mut blocks {
        if let Some(title) = b.lines.first().and_then(|&i| lines[i].declared_title.as_deref()) {
            let title = folio_core::model::collapse_whitespace(title);
            let want = alphanumerics(&title);
            // The printed title, or the printed title after its number ("1.1 Scope" for the
            // bookmark "Scope"), is kept as printed; other printed text is kept beside the
            // bookmark's title.
            let unglued = unglue_number(&b.text);
            let same = alphanumerics(&b.text) == want
                || split_heading_number(&unglued).is_some_and(|h| alphanumerics(h.title) == want);
            if lines[b.lines[0]].synthetic || !same {
                if !lines[b.lines[0]].synthetic {
                    b.printed = Some(std::mem::take(&mut b.text));
                }
                b.text = title;
            }
        }
    }
    blocks
}

pub(super) fn join_line(text: &mut String, next: &str, keep_lines: bool) {
    let next = next.trim();
    if keep_lines {
        text.push('\n');
        text.push_str(next);
        return;
    }
    let ends_hyphen = {
        let mut it = text.chars().rev();
        matches!((it.next(), it.next()), (Some('-' | '\u{2010}'), Some(c)) if c.is_alphabetic())
    };
    if ends_hyphen {
        if next.chars().next().is_some_and(|c| c.is_lowercase()) {
            text.pop();
        }
        text.push_str(next);
    } else {
        text.push(' ');
        text.push_str(next);
    }
}

fn breaks_between(ctx: &Ctx, a: &Line, b: &Line, kind: &BlkKind, b_marker: bool, gap: f32) -> bool {
    let body = ctx.body;
    if b_marker {
        return true;
    }
    let size_change = (a.size - b.size).abs() > 0.08 * a.size.max(b.size);
    let bold_change = ctx.is_bold(a) != ctx.is_bold(b);
    let fixed_change = ctx.is_fixed(a) != ctx.is_fixed(b);
    if fixed_change {
        return true;
    }
    if *kind == BlkKind::Code {
        return gap > 2.5 * body.spacing;
    }
    if size_change || (bold_change && (ctx.styled(a) || ctx.styled(b))) {
        return true;
    }
    if !ctx.styled(a) && !ctx.styled(b) && ctx.distinct_font(a) != ctx.distinct_font(b) {
        return true;
    }
    // A set-off container label alone ("PART II" over "ITEM 5. MARKET FOR…") is a heading of its
    // own; `merge_chapter_labels` joins it to the title line that follows when that is unnumbered.
    if ctx.styled(a) && is_lone_label(&a.text) {
        return true;
    }
    let same_flow = a.page == b.page && a.col == b.col;
    if same_flow && ctx.styled(a) && ctx.styled(b) && centred_over_margin(a, b) {
        // A title's wrapped lines share their alignment: a centred line over one set at the
        // column's margin ("GAAP diluted EPS of 12.3 cps" centred under the headline, then
        // "Fiscal 2023 Full Year Highlights") are two texts.
        return true;
    }
    let scale = (a.size / body.size).max(0.5);
    if same_flow {
        if gap.is_infinite() || gap <= 0.0 {
            return true;
        }
        if gap > body.spacing * scale * 1.32 {
            return true;
        }
        // The short last line of a paragraph.
        let short = a.x1 < a.col_x1 - 4.0 * a.size;
        if short && ends_sentence(&a.text) {
            return true;
        }
        // A short line that opens with a section number ("6.2.4 Back Matter") over a line that
        // starts a sentence is a heading set like the body (a light heading face, or a scan where
        // weight does not show), not the start of a paragraph.
        if short && opens_with_section_number(&a.text) && b.text.starts_with(|c: char| c.is_uppercase()) {
            return true;
        }
        // First-line indent (not a hanging list continuation).
        let indented = b.x0 > a.x0 + 0.9 * b.size;
        if indented && !matches!(kind, BlkKind::List { .. }) && ends_sentence(&a.text) {
            return true;
        }
        false
    } else {
        // Across a column or page break: continue a sentence left open.
        let open = !ends_sentence(&a.text);
        let cont_start = b.text.chars().next().is_some_and(|c| c.is_lowercase());
        !(open || cont_start) || ctx.styled(a) || ctx.styled(b)
    }
}

/// Whether `a` is centred in its column, clear of its margin, and `b` set at the column's left
/// margin, apart from `a`'s centre (within a character).
fn centred_over_margin(a: &Line, b: &Line) -> bool {
    let tol = a.size.max(b.size);
    let mid = |l: &Line| (l.x0 + l.x1) / 2.0;
    let col_mid = (a.col_x0 + a.col_x1) / 2.0;
    centred(a, tol) && (b.x0 - b.col_x0).abs() <= tol && (mid(b) - col_mid).abs() > tol
}

/// Whether a line is centred in its column (its middle within `tol` of the column's) and clear of
/// the column's left margin by more than twice `tol`.
pub(super) fn centred(l: &Line, tol: f32) -> bool {
    let mid = (l.x0 + l.x1) / 2.0;
    let col_mid = (l.col_x0 + l.col_x1) / 2.0;
    (mid - col_mid).abs() <= tol && l.x0 > l.col_x0 + 2.0 * tol
}

/// Whether a line opens with a dotted section number and a capitalised word ("6.2.4 Back
/// Matter", "3.1. Scope").
fn opens_with_section_number(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^\d{1,3}(?:\.\d{1,3})+\.?\s+\p{Lu}").expect("valid regex"))
        .is_match(text.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_numbers_opening_a_line() {
        assert!(opens_with_section_number("6.2.4 Back Matter"));
        assert!(opens_with_section_number("3.1. Scope"));
        assert!(!opens_with_section_number("4.9 of the annex explains how the rules relate"));
        assert!(!opens_with_section_number("6 Schema Changes"));
        assert!(!opens_with_section_number("2022 Annual Report"));
    }

    #[test]
    fn capitals() {
        assert!(set_in_capitals("RESULTS OF OPERATIONS"));
        assert!(set_in_capitals("ABOUT McDONALD’S"));
        assert!(set_in_capitals("eBAY INC. AND SUBSIDIARIES"));
        assert!(!set_in_capitals("Revenue"));
        assert!(!set_in_capitals("Item 1A. Risk Factors"));
        assert!(!set_in_capitals("MD&A"));
        assert!(!set_in_capitals("RESULTS of OPERATIONS"));
    }

    #[test]
    fn hyphenation() {
        let mut t = String::from("the docu-");
        join_line(&mut t, "ment is here", false);
        assert_eq!(t, "the document is here");
        let mut t = String::from("FAA-");
        join_line(&mut t, "Approved", false);
        assert_eq!(t, "FAA-Approved");
    }

    #[test]
    fn list_markers() {
        assert_eq!(list_marker("• The terms must"), Some("•".into()));
        assert_eq!(list_marker("1. Allow existing titles"), Some("1.".into()));
        assert_eq!(list_marker("(a) In general"), Some("(a)".into()));
        assert_eq!(list_marker("1.1 Scope"), None);
    }
}
