//! Stage one, second step: a page's fragments into lines in reading order, column by column.

use super::binding::HRule;
use super::chars::{Frag, WordGap};

/// A line of text in reading order, the compact record kept for the whole document.
#[derive(Debug, Clone)]
pub(super) struct Line {
    /// 0-based page index.
    pub page: u32,
    pub x0: f32,
    pub x1: f32,
    /// Baseline.
    pub y: f32,
    pub top: f32,
    /// Dominant effective font size (points).
    pub size: f32,
    pub weight: i16,
    pub font: u16,
    /// Column index on its page (0 for single-column text and spanning lines).
    pub col: u8,
    /// Left and right edge of the column the line lies in.
    pub col_x0: f32,
    pub col_x1: f32,
    pub text: String,
    /// Share of characters in a monospaced font.
    pub fixed_frac: f32,
    /// Heading level from the structure tree.
    pub tag: Option<u8>,
    /// Wide gaps inside the line (table cells set side by side).
    pub wide_gaps: u8,
    /// The fragments the line joins, left to right, when there are several (table cells);
    /// empty for a line of one fragment.
    pub cells: Vec<Cell>,
    /// A line of one fragment: its word gaps far wider than a word space ([`Frag::loose_gaps`]);
    /// a line of several keeps them in its cells.
    pub loose: Vec<WordGap>,
    /// Dropped as running header/footer, page number or contents page.
    pub skip: bool,
    /// Heading level declared by the bookmarks or the printed contents list.
    pub declared: Option<u8>,
    /// How many lines, from this one, the declared heading's printed title spans.
    pub declared_lines: u8,
    /// The bookmark's title, for a heading a bookmark declares.
    pub declared_title: Option<String>,
    /// Whether this line was synthesised from a bookmark that matched no printed line.
    pub synthetic: bool,
    /// Whether a rule under it runs the length of its text and no further ([`mark_underlined`]).
    pub underlined: bool,
}

impl Line {
    /// A heading line the page does not print (a bookmark or a contents division that names no
    /// printed text), declared at `level` and set at `y` on the 0-based `page`.
    pub fn synthetic(page: u32, y: f32, size: f32, title: &str, level: u8) -> Line {
        Line {
            page,
            x0: 0.0,
            x1: 0.0,
            y,
            top: y,
            size,
            weight: 700,
            font: 0,
            col: 0,
            col_x0: 0.0,
            col_x1: 0.0,
            text: title.to_string(),
            fixed_frac: 0.0,
            tag: None,
            wide_gaps: 0,
            cells: Vec::new(),
            loose: Vec::new(),
            skip: false,
            declared: Some(level),
            declared_lines: 1,
            declared_title: None,
            synthetic: true,
            underlined: false,
        }
    }

    /// A printed line of body weight at `y` on the 0-based `page`, for tests.
    #[cfg(test)]
    pub fn printed(page: u32, y: f32, size: f32, text: &str) -> Line {
        Line {
            weight: 400,
            declared: None,
            declared_lines: 0,
            synthetic: false,
            ..Line::synthetic(page, y, size, text, 1)
        }
    }
}

/// A gap between two fragments of a line wider than this many times its size is a wide one (table
/// cells set side by side, a title and its page).
const WIDE_GAP: f32 = 2.5;

/// Whether text starting at `x0` after text ending at `x1`, in type of `size`, is a wide gap away.
pub(super) fn wide_gap(x1: f32, x0: f32, size: f32) -> bool {
    x0 - x1 > WIDE_GAP * size
}

/// A run of text inside a line, with its horizontal extent.
#[derive(Debug, Clone)]
pub(super) struct Cell {
    pub x0: f32,
    pub x1: f32,
    pub text: String,
    /// Its word gaps far wider than a word space, where cells set closer than a fragment break
    /// part ([`Frag::loose_gaps`]).
    pub loose: Vec<WordGap>,
}

impl Cell {
    /// A cell without loose gaps.
    pub fn new(x0: f32, x1: f32, text: impl Into<String>) -> Cell {
        Cell { x0, x1, text: text.into(), loose: Vec::new() }
    }

    /// The cell parted at its loose gaps, each part spanning its words.
    pub fn parts(&self) -> Vec<Cell> {
        let mut out = Vec::with_capacity(self.loose.len() + 1);
        let (mut from, mut x0) = (0, self.x0);
        for g in &self.loose {
            let Some(text) = self.text.get(from..g.at) else { return vec![self.clone()] };
            out.push(Cell::new(x0, g.x0, text.trim()));
            (from, x0) = (g.at, g.x1);
        }
        let Some(rest) = self.text.get(from..) else { return vec![self.clone()] };
        out.push(Cell::new(x0, self.x1, rest.trim()));
        out
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct PageInfo {
    pub width: f32,
    pub height: f32,
}

/// Column gutters on a page: x-ranges free of text between well-filled columns.
fn find_columns(frags: &[Frag], page: PageInfo) -> Vec<(f32, f32)> {
    if frags.len() < 12 {
        return Vec::new();
    }
    let xmin = frags.iter().map(|f| f.x0).fold(f32::MAX, f32::min).max(0.0);
    let xmax = frags.iter().map(|f| f.x1).fold(f32::MIN, f32::max).min(page.width.max(1.0) * 1.5);
    let span = xmax - xmin;
    if span < 100.0 {
        return Vec::new();
    }
    let narrow: Vec<&Frag> = frags.iter().filter(|f| f.width() < 0.55 * span).collect();
    if narrow.len() < 10 {
        return Vec::new();
    }
    let bins = span.ceil() as usize + 1;
    let mut cover = vec![0u32; bins];
    for f in &narrow {
        let a = ((f.x0 - xmin).max(0.0)) as usize;
        let z = (((f.x1 - xmin).max(0.0)) as usize).min(bins - 1);
        for c in cover.iter_mut().take(z + 1).skip(a) {
            *c += 1;
        }
    }
    // Maximal (nearly) empty runs, not at the edges; a few crossing lines (a table or a title
    // over the columns) become spanning lines.
    let allowed = (narrow.len() / 40).max(1) as u32;
    let mut gutters = Vec::new();
    let mut i = 0;
    while i < bins {
        if cover[i] <= allowed {
            let s = i;
            while i < bins && cover[i] <= allowed {
                i += 1;
            }
            let e = i;
            if s > 0 && e < bins && (e - s) as f32 >= 3.0 {
                gutters.push((xmin + s as f32, xmin + e as f32));
            }
        } else {
            i += 1;
        }
    }
    if gutters.is_empty() {
        return Vec::new();
    }
    // Keep gutters whose columns hold enough text and are wide enough.
    let mut kept: Vec<(f32, f32)> = Vec::new();
    let mut edges: Vec<f32> = vec![xmin];
    for g in &gutters {
        edges.push((g.0 + g.1) / 2.0);
    }
    edges.push(xmax);
    let col_ok = |lo: f32, hi: f32| -> bool {
        let members: Vec<&&Frag> = narrow.iter().filter(|f| f.x0 >= lo - 1.0 && f.x1 <= hi + 1.0).collect();
        if members.len() < 5 || hi - lo < 0.16 * span {
            return false;
        }
        let mut widths: Vec<f32> = members.iter().map(|f| f.width()).collect();
        widths.sort_by(|a, b| a.total_cmp(b));
        let median = widths[widths.len() / 2];
        let chars: usize = members.iter().map(|f| f.text.len()).sum();
        median >= 0.45 * (hi - lo) && chars >= 150
    };
    // Greedy: a gutter is real when the columns on both sides (up to the neighbouring real
    // gutters or edges) are good. Merge bad columns into their neighbours.
    let mut bounds: Vec<f32> = edges.clone();
    loop {
        let mut changed = false;
        let mut j = 1;
        while j + 1 < bounds.len() {
            let left_ok = col_ok(bounds[j - 1], bounds[j]);
            let right_ok = col_ok(bounds[j], bounds[j + 1]);
            if !(left_ok && right_ok) {
                bounds.remove(j);
                changed = true;
            } else {
                j += 1;
            }
        }
        if !changed {
            break;
        }
    }
    for w in bounds.windows(2).skip(1) {
        let x = w[0];
        if let Some(g) = gutters.iter().find(|g| (g.0 + g.1) / 2.0 == x) {
            kept.push(*g);
        }
    }
    // Column text must overlap vertically on both sides of each gutter.
    kept.retain(|g| {
        let left: Vec<&&Frag> = narrow.iter().filter(|f| f.x1 <= g.0 + 0.5).collect();
        let right: Vec<&&Frag> = narrow.iter().filter(|f| f.x0 >= g.1 - 0.5).collect();
        let range = |v: &[&&Frag]| {
            let lo = v.iter().map(|f| f.bottom).fold(f32::MAX, f32::min);
            let hi = v.iter().map(|f| f.top).fold(f32::MIN, f32::max);
            (lo, hi)
        };
        if left.is_empty() || right.is_empty() {
            return false;
        }
        let (l0, l1) = range(&left);
        let (r0, r1) = range(&right);
        let overlap = l1.min(r1) - l0.max(r0);
        overlap > 0.3 * (l1 - l0).min(r1 - r0)
    });
    kept
}

/// Puts a page's fragments into reading order and merges fragments sharing a baseline.
pub(super) fn page_lines(mut frags: Vec<Frag>, page_index: u32, page: PageInfo) -> Vec<Line> {
    let gutters = find_columns(&frags, page);
    let ncols = gutters.len() + 1;
    // Column of each fragment; None = spans a gutter.
    let col_of = |f: &Frag| -> Option<usize> {
        for (k, g) in gutters.iter().enumerate() {
            if f.x0 < g.0 + 0.5 && f.x1 > g.1 - 0.5 {
                return None;
            }
            if f.x1 <= g.1 - 0.5 && (k == 0 || f.x0 >= gutters[k - 1].0 - 0.5) {
                return Some(k);
            }
        }
        Some(ncols - 1)
    };
    frags.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x0.total_cmp(&b.x0)));
    let cols: Vec<Option<usize>> = frags.iter().map(col_of).collect();
    // Band separators: spanning fragments, top to bottom.
    let spanning: Vec<usize> = (0..frags.len()).filter(|&i| cols[i].is_none()).collect();
    let mut col_bounds: Vec<(f32, f32)> = Vec::new();
    {
        let xmin = frags.iter().map(|f| f.x0).fold(f32::MAX, f32::min);
        let xmax = frags.iter().map(|f| f.x1).fold(f32::MIN, f32::max);
        let mut lo = xmin;
        for g in &gutters {
            col_bounds.push((lo, g.0));
            lo = g.1;
        }
        col_bounds.push((lo, xmax));
    }
    // Order: walk bands; in each band, columns left to right.
    let mut order: Vec<(usize, Option<usize>)> = Vec::new(); // (frag index, column)
    let mut band_top = f32::MAX;
    let mut seps: Vec<f32> = spanning.iter().map(|&i| frags[i].y).collect();
    seps.push(f32::MIN);
    let mut si = 0;
    for (k, &sep_y) in seps.iter().enumerate() {
        // Column fragments with band_top > y > sep_y.
        for c in 0..ncols {
            for (i, f) in frags.iter().enumerate() {
                if cols[i] == Some(c) && f.y <= band_top && f.y > sep_y {
                    order.push((i, Some(c)));
                }
            }
        }
        if k < spanning.len() {
            order.push((spanning[si], None));
            si += 1;
        }
        band_top = sep_y;
    }
    // Column fragments exactly on a separator's baseline.
    let placed: std::collections::HashSet<usize> = order.iter().map(|(i, _)| *i).collect();
    for (i, c) in cols.iter().enumerate() {
        if !placed.contains(&i) {
            order.push((i, *c));
        }
    }
    // Merge consecutive fragments of one column sharing a baseline into lines.
    let mut lines: Vec<Line> = Vec::new();
    let mut last_group: Option<(usize, Option<usize>)> = None; // (line index, col)
    for (i, c) in order {
        let f = &frags[i];
        let merge_into = last_group.and_then(|(li, lc)| {
            let l: &Line = &lines[li];
            let tol = 0.5 * l.size.max(f.size);
            ((lc == c) && (f.y - l.y).abs() <= tol && f.x0 >= l.x1 - 0.5 * f.size).then_some(li)
        });
        let (cx0, cx1) = match c {
            Some(k) => col_bounds[k],
            None => (col_bounds[0].0, col_bounds[ncols - 1].1),
        };
        let dom = f.dominant();
        match merge_into {
            Some(li) => {
                let l = &mut lines[li];
                if wide_gap(l.x1, f.x0, l.size.max(f.size)) {
                    l.wide_gaps = l.wide_gaps.saturating_add(1);
                }
                if l.cells.is_empty() {
                    let loose = std::mem::take(&mut l.loose);
                    l.cells.push(Cell { x0: l.x0, x1: l.x1, text: l.text.clone(), loose });
                }
                l.cells.push(Cell { x0: f.x0, x1: f.x1, text: f.text.clone(), loose: f.loose_gaps() });
                l.text.push(' ');
                l.text.push_str(&f.text);
                l.x1 = l.x1.max(f.x1);
                l.top = l.top.max(f.top);
                let before = l.text.len() as f32;
                let add = f.text.len() as f32;
                l.fixed_frac = (l.fixed_frac * before + f.fixed_chars as f32 / f.nchars.max(1) as f32 * add)
                    / (before + add).max(1.0);
            }
            None => {
                lines.push(Line {
                    page: page_index,
                    x0: f.x0,
                    x1: f.x1,
                    y: f.y,
                    top: f.top,
                    size: dom.0 as f32 / 2.0,
                    weight: dom.1,
                    font: dom.2,
                    col: c.map(|k| k as u8).unwrap_or(0),
                    col_x0: cx0,
                    col_x1: cx1,
                    text: f.text.clone(),
                    fixed_frac: f.fixed_chars as f32 / f.nchars.max(1) as f32,
                    tag: f.tag,
                    wide_gaps: 0,
                    cells: Vec::new(),
                    loose: f.loose_gaps(),
                    skip: false,
                    declared: None,
                    declared_lines: 0,
                    declared_title: None,
                    synthetic: false,
                    underlined: false,
                });
                last_group = Some((lines.len() - 1, c));
            }
        }
        // Track style counts for merged lines: keep the style of the longer part.
        if let Some(li) = merge_into {
            let l = &mut lines[li];
            if f.nchars as usize > l.text.len() / 2 {
                l.size = dom.0 as f32 / 2.0;
                l.weight = dom.1;
                l.font = dom.2;
            }
        }
    }
    lines
}

/// How far below its baseline a line's underline may lie, and how far above, over its size.
const UNDERLINE_BELOW: f32 = 0.4;
const UNDERLINE_ABOVE: f32 = 0.05;
/// The share of a line's length its underline covers.
const UNDERLINE_COVER: f32 = 0.9;
/// How far past either end of a line, over its size, an underline may run: a rule running
/// further is a table's or a page's rule under the line, not the line's own underline.
const UNDERLINE_OVERRUN: f32 = 1.0;

/// Marks the lines whose text is underlined: rules just under the baseline (one, or one per
/// word) cover the line's length and run no further past its ends.
pub(super) fn mark_underlined(lines: &mut [Line], rules: &[HRule]) {
    if rules.is_empty() {
        return;
    }
    for l in lines.iter_mut() {
        let (lo, hi) = (l.y - UNDERLINE_BELOW * l.size, l.y + UNDERLINE_ABOVE * l.size);
        let slack = UNDERLINE_OVERRUN * l.size;
        let mut under: Vec<(f32, f32)> = rules
            .iter()
            .filter(|r| r.y >= lo && r.y <= hi && r.x1 > l.x0 && r.x0 < l.x1)
            .map(|r| (r.x0, r.x1))
            .collect();
        if under.is_empty() || under.iter().any(|&(a, b)| a < l.x0 - slack || b > l.x1 + slack) {
            continue;
        }
        under.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut covered, mut reach) = (0f32, l.x0);
        for (a, b) in under {
            let (a, b) = (a.max(reach), b.min(l.x1));
            if b > a {
                covered += b - a;
                reach = b;
            }
        }
        l.underlined = covered >= UNDERLINE_COVER * (l.x1 - l.x0);
    }
}

#[cfg(test)]
mod cell_tests {
    use super::*;

    #[test]
    fn a_cell_parts_at_its_loose_gaps() {
        let gap = |at, x0, x1| WordGap { at, x0, x1 };
        let c = Cell {
            x0: 100.0,
            x1: 250.0,
            text: "FISCAL 2022 % CHANGE FISCAL 2021".into(),
            loose: vec![gap(12, 140.0, 152.0), gap(21, 195.0, 208.0)],
        };
        let parts: Vec<(f32, f32, String)> = c.parts().into_iter().map(|p| (p.x0, p.x1, p.text)).collect();
        assert_eq!(
            parts,
            vec![
                (100.0, 140.0, "FISCAL 2022".to_string()),
                (152.0, 195.0, "% CHANGE".to_string()),
                (208.0, 250.0, "FISCAL 2021".to_string())
            ]
        );
        // No loose gaps, or gaps past its text (the text cut since), leave it whole.
        assert_eq!(Cell::new(0.0, 10.0, "Total").parts().len(), 1);
        let cut = Cell { loose: vec![gap(40, 1.0, 2.0)], ..c };
        assert_eq!(cut.parts()[0].text, cut.text);
    }
}

#[cfg(test)]
mod underline_tests {
    use super::*;

    fn line(x0: f32, x1: f32, y: f32) -> Line {
        Line { x0, x1, ..Line::printed(0, y, 10.0, "Acquisitions") }
    }

    fn rule(x0: f32, x1: f32, y: f32) -> HRule {
        HRule { x0, x1, y }
    }

    fn marked(l: Line, rules: &[HRule]) -> bool {
        let mut lines = vec![l];
        mark_underlined(&mut lines, rules);
        lines[0].underlined
    }

    #[test]
    fn a_rule_under_the_text_and_no_longer_underlines_it() {
        // Oracle's "Acquisitions": a 0.6 pt bar a point under the baseline, its text's length.
        assert!(marked(line(18.1, 62.5, 714.8), &[rule(18.0, 62.8, 713.8)]));
        // One rule per word, the spaces between left out.
        assert!(marked(line(10.0, 100.0, 500.0), &[rule(10.0, 48.0, 499.0), rule(52.0, 100.0, 499.0)]));
    }

    #[test]
    fn other_rules_underline_nothing() {
        let l = || line(18.0, 62.0, 714.8);
        // A table's or a page's rule running far past the text.
        assert!(!marked(l(), &[rule(18.0, 590.0, 713.8)]));
        // A rule under part of the line only (a link inside it).
        assert!(!marked(l(), &[rule(18.0, 30.0, 713.8)]));
        // A rule a line's height below (the next line's top) or above (a strike or a box's top).
        assert!(!marked(l(), &[rule(18.0, 62.0, 705.0)]));
        assert!(!marked(l(), &[rule(18.0, 62.0, 718.0)]));
        assert!(!marked(l(), &[]));
    }
}
