//! Tables from the page: runs of lines whose cells line up in columns of numbers, rebuilt as rows
//! × cells with their column headers.
//!
//! Financial statements and most report tables set a row label on the left and right-aligned
//! values in columns; the column headers (periods, "2022 | 2021", often over two or three rows,
//! "Three months ended March 31," spanning the columns below it) stand above the first row of
//! values. The detector works on a page's lines in reading order:
//!
//! 1. a *data row* has a label (or not) and at least one value cell (a number, "—", "$ 1,234",
//!    "(12)", "4 %") after its first cell;
//! 2. a table is a run of at least two data rows, with the label-only lines between them
//!    ("Current assets:", a wrapped label) and no wide vertical gap;
//! 3. its columns are the clusters of the value cells' right edges; the label column is what
//!    lies left of the first;
//! 4. header rows are the lines just above the run (and the run's first rows without a label)
//!    whose cells stand over the columns; a header cell that spans several columns heads each.

mod cells;
mod headers;

use super::binding::HRule;
use super::chars::WordGap;
use super::layout::{Cell, Line};
pub(in crate::pdf) use cells::is_value;
use cells::{cells, is_currency_sign, is_year};
use headers::{assign_headers, bracketed, HeaderRow};

/// A table rebuilt from a page's lines.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Table {
    /// Indices of the lines it covers (header rows included), in reading order.
    pub lines: Vec<usize>,
    /// One header per column, the label column first (empty when the page prints none); a header
    /// printed over several rows is joined top to bottom.
    pub header: Vec<String>,
    /// The rows, each with one cell per column, the label first.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Tab-separated text: the header row (when any column has one), then a line per row.
    pub fn to_tsv(&self) -> String {
        let mut out = Vec::with_capacity(self.rows.len() + 1);
        if self.header.iter().any(|h| !h.is_empty()) {
            out.push(self.header.join("\t"));
        }
        for r in &self.rows {
            out.push(r.join("\t"));
        }
        out.join("\n")
    }

    /// Whether the table has a header row.
    pub fn has_header(&self) -> bool {
        self.header.iter().any(|h| !h.is_empty())
    }
}

/// The most lines a table's header takes above its first row: a period over column heads of
/// four lines with a superscript line between (Amcor's "Three Months Ended June 30, 2022" over
/// "EPS / (Diluted / US / cents)(1)").
const MAX_HEADER_LINES: usize = 8;

/// A line with at least one value cell after its first cell.
/// A row of years alone ("2023  2022") heads columns; it is no data row.
fn is_data_row(cells: &[Cell]) -> bool {
    cells.len() >= 2
        && cells[1..].iter().any(|c| is_value(&c.text))
        && !cells.iter().all(|c| is_year(&c.text) || !is_value(&c.text))
}

/// A column: the horizontal span of its value cells and their right edges' mean.
#[derive(Debug, Clone, Copy)]
struct Column {
    x0: f32,
    x1: f32,
    /// Made of one value alone (a total only one row gives): kept only where it holds a value.
    lone: bool,
}

fn overlap(a0: f32, a1: f32, b0: f32, b1: f32) -> f32 {
    a1.min(b1) - a0.max(b0)
}

/// Whether a cell starts in the row labels' column: before where the labels end, give or take
/// half the text size.
fn in_label_column(c: &Cell, label_end: f32, size: f32) -> bool {
    c.x0 <= label_end + 0.5 * size
}

/// Lines whose baselines lie within this share of their text size are one row (a label set a
/// little below its values, two lines of column heads a point apart).
const ONE_ROW: f32 = 0.45;

/// Finds the tables among lines `order` (reading order; lines of one page are consecutive), with
/// each page's thin horizontal rules (`rules[page]`; a page without an entry has none).
pub(super) fn find_tables(lines: &[Line], order: &[usize], rules: &[Vec<HRule>]) -> Vec<Table> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let page = lines[order[start]].page;
        let mut end = start;
        while end < order.len() && lines[order[end]].page == page {
            end += 1;
        }
        let page_rules = rules.get(page as usize).map_or(&[][..], Vec::as_slice);
        page_tables(lines, &order[start..end], page_rules, &mut out);
        start = end;
    }
    out
}

fn page_tables(lines: &[Line], order: &[usize], rules: &[HRule], out: &mut Vec<Table>) {
    let cells: Vec<Vec<Cell>> = order.iter().map(|&i| cells(&lines[i])).collect();
    let data: Vec<bool> = cells.iter().map(|c| is_data_row(c)).collect();
    let n = order.len();
    let mut k = 0;
    let mut used_until = 0;
    while k < n {
        if !data[k] || lines[order[k]].declared.is_some() {
            k += 1;
            continue;
        }
        // The run: data rows and the label lines between them.
        let mut end = k + 1;
        let mut last_data = k;
        while end < n {
            let (a, b) = (&lines[order[end - 1]], &lines[order[end]]);
            let gap = a.y - b.y;
            let size = a.size.max(b.size);
            if b.col != a.col || gap > 3.2 * size || gap < -0.5 * size || b.declared.is_some() {
                break;
            }
            if data[end] {
                last_data = end;
            } else if gap.abs() <= ONE_ROW * size
                && data[end - 1]
                && rest_of_row(&cells[end - 1], &cells[end])
            {
                // The rest of the row before it, set on a baseline of its own: its label and
                // currency signs ("Euro  $  $" a twentieth of a point off "(50.2)  (104.3)").
                last_data = end;
            } else {
                let t = b.text.trim();
                let label_like = cells[end].len() == 1 && t.chars().count() <= 200;
                let data_follows = (end + 1..(end + 4).min(n)).any(|j| data[j]);
                if !(label_like && data_follows) {
                    break;
                }
            }
            end += 1;
        }
        let mut end = last_data + 1;
        // What the page set level with the last row but reads after it belongs to that row: its
        // label ("Diluted" a point under "537 556 539 571") or a value ("$ 93.29" two points
        // under "Total 1.6 1.6").
        while end < n {
            let (a, b) = (&lines[order[last_data]], &lines[order[end]]);
            if b.col != a.col || b.declared.is_some() || (a.y - b.y).abs() > ONE_ROW * a.size.max(b.size) {
                break;
            }
            end += 1;
        }
        // One row of values is a table only under a header of years ("2023  Actual  Change").
        let data_rows = (k..end).filter(|&j| data[j]).count();
        // Label lines just above the first row ("ASSETS", "Current assets:") belong to it.
        let first_value_x = cells[k][1..].iter().map(|c| c.x0).fold(f32::MAX, f32::min);
        let mut s = k;
        while s > used_until && k - s < 3 {
            let (above, below) = (&lines[order[s - 1]], &lines[order[s]]);
            let gap = above.y - below.y;
            let c = &cells[s - 1];
            let label = c.len() == 1 && c[0].x1 < first_value_x && c[0].text.chars().count() <= 60;
            if !label || above.declared.is_some() || gap < 0.0 || gap > 2.2 * above.size.max(below.size) {
                break;
            }
            s -= 1;
        }
        let built = build(lines, order, rules, &cells, &data, s, end)
            .filter(|t| data_rows >= 2 || t.header.iter().any(|h| h.split_whitespace().any(is_year)));
        if let Some(t) = built {
            used_until = end;
            out.push(t);
        }
        k = end;
    }
}

/// Whether the cells of a line set level with a row of values are the rest of that row: a label
/// left of its values, and currency signs; a word over the values is a head's (footnote marks
/// "(1)  (2)" read as values, level with a line of heads).
fn rest_of_row(values: &[Cell], rest: &[Cell]) -> bool {
    let first_value = values.iter().filter(|c| is_value(&c.text)).map(|c| c.x0).fold(f32::MAX, f32::min);
    rest.iter().all(|c| is_currency_sign(c.text.trim()) || c.x1 < first_value)
}

/// Columns from the value cells' right edges, left to right.
fn columns(rows: &[&[Cell]], size: f32) -> Vec<Column> {
    let mut vals: Vec<&Cell> = rows.iter().flat_map(|r| r.iter()).filter(|c| is_value(&c.text)).collect();
    vals.sort_by(|a, b| a.x1.total_cmp(&b.x1));
    let tol = (0.9 * size).max(4.0);
    let mut groups: Vec<Vec<&Cell>> = Vec::new();
    for c in vals {
        match groups.last_mut() {
            Some(g) if c.x1 - g.last().map(|l| l.x1).unwrap_or(c.x1) <= tol => g.push(c),
            _ => groups.push(vec![c]),
        }
    }
    // Years that open their rows, left of two columns of values or more, label the rows (FedEx's
    // segment reconciliation: "2023 / 2022 / 2021" under "Revenue", "Operating income (loss)").
    let opens_its_row = |c: &Cell| rows.iter().any(|r| r.first().is_some_and(|f| std::ptr::eq(f, c)));
    if groups.len() >= 3
        && groups[0].len() >= 2
        && groups[0].iter().all(|c| is_year(&c.text) && opens_its_row(c))
    {
        groups.remove(0);
    }
    let min_members = if rows.len() >= 4 { 2 } else { 1 };
    // Each group's span, whether enough values make it a column, and whether, too few, they
    // could be one still (a year alone is a head's line read as a row, no column's value).
    let spans: Vec<(Column, bool, bool)> = groups
        .iter()
        .map(|g| {
            let x0 = g.iter().map(|c| c.x0).fold(f32::MAX, f32::min);
            let x1 = g.iter().map(|c| c.x1).fold(f32::MIN, f32::max);
            let full = g.len() >= min_members;
            (Column { x0, x1, lone: !full }, full, g.iter().any(|c| !is_year(&c.text)))
        })
        .collect();
    // A lone value clear of every column, right of the first, is a column of its own (a total
    // only the last row gives: Apple's "$ 60,665" under "Approximate Dollar Value …", its
    // "(229)%" under "Change" between the years), not part of the column beside it.
    let full: Vec<Column> = spans.iter().filter(|(_, full, _)| *full).map(|(c, _, _)| *c).collect();
    let left_edge = full.iter().map(|c| c.x0).fold(f32::MAX, f32::min);
    let clear = |c: &Column| full.iter().all(|f| c.x0 > f.x1 + tol || c.x1 < f.x0 - tol);
    let mut cols: Vec<Column> = spans
        .into_iter()
        .filter(|(c, full, amounts)| *full || (*amounts && c.x0 > left_edge && clear(c)))
        .map(|(c, _, _)| c)
        .collect();
    // Spans that overlap (a wide value cell) belong to one column.
    cols.sort_by(|a, b| a.x1.total_cmp(&b.x1));
    let mut merged: Vec<Column> = Vec::new();
    for c in cols {
        match merged.last_mut() {
            Some(m) if c.x0 < m.x1 - 0.5 => {
                m.x0 = m.x0.min(c.x0);
                m.x1 = m.x1.max(c.x1);
                m.lone &= c.lone;
            }
            _ => merged.push(c),
        }
    }
    merged
}

/// The column a value cell belongs to: the one it overlaps most, else the nearest right edge.
fn column_of(c: &Cell, cols: &[Column]) -> usize {
    let best = cols
        .iter()
        .enumerate()
        .map(|(i, col)| (i, overlap(c.x0, c.x1, col.x0, col.x1)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((i, o)) if o > 0.0 => i,
        _ => cols
            .iter()
            .enumerate()
            .min_by(|a, b| (a.1.x1 - c.x1).abs().total_cmp(&(b.1.x1 - c.x1).abs()))
            .map(|(i, _)| i)
            .unwrap_or(0),
    }
}

/// "$20,850 Total liabilities" → ("$20,850", "Total liabilities").
fn value_then_words(text: &str) -> Option<(&str, &str)> {
    let t = text.trim();
    let (head, tail) = t.split_once(' ')?;
    (is_value(head) && tail.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !is_value(tail))
        .then_some((head, tail.trim()))
}

/// Appends a cell's text to a slot, a space between.
fn push_text(slot: &mut String, text: &str) {
    let t = text.trim();
    if t.is_empty() {
        return;
    }
    if !slot.is_empty() {
        slot.push(' ');
    }
    slot.push_str(t);
}

/// The run of lines `start..end` (in `order`) rebuilt as a table: its columns, the header rows
/// above and at the top of the run, and the rows with their labels; `None` when it holds fewer
/// than two values.
fn build(
    lines: &[Line],
    order: &[usize],
    rules: &[HRule],
    cells: &[Vec<Cell>],
    data: &[bool],
    start: usize,
    end: usize,
) -> Option<Table> {
    let frame = Frame::new(lines, order, cells, data, start, end)?;
    let (head, first_body) = frame.header_rows(start, end);
    let ncols = frame.cols.len() + 1;
    let mut header = vec![String::new(); ncols];
    let header_rows = header_rows(lines, order, cells, head, first_body);
    assign_headers(&header_rows, &frame.cols, frame.label_end, frame.size, rules, &mut header);
    let rows = frame.rows(first_body, end);
    // Columns that hold nothing are dropped, and one a lone value made that holds none (it went
    // to the column beside it) whatever its head.
    let holds = |c: usize| rows.iter().any(|r| !r[c].is_empty());
    let keep: Vec<bool> = (0..ncols)
        .map(|c| c == 0 || holds(c) || (!header[c].is_empty() && !frame.cols[c - 1].lone))
        .collect();
    let pick = |v: &Vec<String>| {
        v.iter().zip(&keep).filter(|(_, k)| **k).map(|(s, _)| s.clone()).collect::<Vec<_>>()
    };
    let values = rows.iter().map(|r| r[1..].iter().filter(|s| !s.is_empty()).count()).sum::<usize>();
    if values < 2 {
        return None;
    }
    Some(Table {
        lines: order[head..end].to_vec(),
        header: pick(&header),
        rows: rows.iter().map(pick).collect(),
    })
}

/// The header lines `head..first_body` as rows: lines whose baselines nearly meet are one row
/// (eBay's "Effect  FX-Neutral" a point above "As Reported … FX-Neutral"), and heads set
/// closer than a fragment break ("FISCAL 2022   % CHANGE") are cells of their own.
fn header_rows(
    lines: &[Line],
    order: &[usize],
    cells: &[Vec<Cell>],
    head: usize,
    first_body: usize,
) -> Vec<HeaderRow> {
    let mut rows: Vec<HeaderRow> = Vec::new();
    for j in head..first_body {
        let l = &lines[order[j]];
        let parts = cells[j].iter().flat_map(Cell::parts);
        match rows.last_mut() {
            Some(r) if (r.y - l.y).abs() <= ONE_ROW * r.size.max(l.size) => {
                r.cells.extend(parts);
                r.cells.sort_by(|a, b| a.x0.total_cmp(&b.x0));
                // The row sits on its main text's lowest baseline, not on its footnote marks'.
                if l.size > r.size + 0.5 {
                    (r.y, r.size) = (l.y, l.size);
                } else if l.size > r.size - 0.5 {
                    r.y = r.y.min(l.y);
                }
            }
            _ => rows.push(HeaderRow { y: l.y, size: l.size, cells: parts.collect() }),
        }
    }
    rows
}

/// A run of lines with the geometry its table is read by: the text size, the value columns, and
/// where the row labels end.
struct Frame<'a> {
    lines: &'a [Line],
    order: &'a [usize],
    cells: &'a [Vec<Cell>],
    data: &'a [bool],
    size: f32,
    cols: Vec<Column>,
    /// Left of this (give or take half the text size) a cell is a row label.
    label_right: f32,
    /// Where the row labels end: header cells right of it stand over the columns.
    label_end: f32,
}

impl<'a> Frame<'a> {
    fn new(
        lines: &'a [Line],
        order: &'a [usize],
        cells: &'a [Vec<Cell>],
        data: &'a [bool],
        start: usize,
        end: usize,
    ) -> Option<Frame<'a>> {
        let size = lines[order[start]].size.max(1.0);
        let body: Vec<&[Cell]> = (start..end).filter(|&j| data[j]).map(|j| cells[j].as_slice()).collect();
        let cols = columns(&body, size);
        if cols.is_empty() {
            return None;
        }
        let label_right = cols[0].x0 - 0.3 * size;
        let label_end = cells[start..end]
            .iter()
            .filter_map(|r| r.first())
            .filter(|c| c.x1 <= label_right + 0.5 * size && (!is_value(&c.text) || is_year(&c.text)))
            .map(|c| c.x1)
            .fold(f32::MIN, f32::max)
            .min(label_right);
        Some(Frame { lines, order, cells, data, size, cols, label_right, label_end })
    }

    /// Whether a row's first cell is a label: it ends before the first column, and is no value.
    fn has_label(&self, cs: &[Cell]) -> bool {
        cs.first().is_some_and(|c| c.x1 <= self.label_right + 0.5 * self.size && !is_value(&c.text))
    }

    /// Whether a cell stands over a column: it overlaps one (give or take the text size), or lies
    /// between the column before it (or the row labels) and its right edge, where a head centred
    /// over a column of amounts and their currency signs stands ("30, 2023" over "$   28", the
    /// sign at the column's left). A currency sign alone, set apart from its amount on another
    /// baseline, is no head.
    fn over_a_column(&self, c: &Cell) -> bool {
        let size = self.size;
        self.cols.iter().enumerate().any(|(k, col)| {
            let slot_start = if k == 0 { self.label_end } else { self.cols[k - 1].x1 };
            overlap(c.x0, c.x1, col.x0 - size, col.x1 + size) > 0.0
                || (c.x0 > slot_start + size
                    && c.x1 <= col.x1 + size
                    && c.text.chars().any(char::is_alphanumeric))
        })
    }

    /// Header rows: the run's first rows without a label, and lines just above it standing over
    /// the columns. Returns the first header line and the first body line (indices into `order`).
    fn header_rows(&self, start: usize, end: usize) -> (usize, usize) {
        let (cells, size, label_end) = (self.cells, self.size, self.label_end);
        let in_columns = |cs: &[Cell]| cs.iter().all(|c| !in_label_column(c, label_end, size));
        // A caption in brackets opening the run ("(Dollars in millions)", set level with the
        // column heads in the label column) is the header's too.
        let caption = |j: usize| matches!(cells[j].as_slice(), [c] if bracketed(&c.text)) && !self.data[j];
        let mut first_body = start;
        while first_body < end
            && (caption(first_body)
                || (!self.has_label(&cells[first_body])
                    && in_columns(&cells[first_body])
                    && heading_like(&cells[first_body])))
        {
            first_body += 1;
        }
        let mut head = start;
        while head > 0 && start - head < MAX_HEADER_LINES {
            let (above, below) = (&self.lines[self.order[head - 1]], &self.lines[self.order[head]]);
            let gap = above.y - below.y;
            if above.page != below.page || gap > 2.6 * size || gap < 0.0 || above.declared.is_some() {
                break;
            }
            let cs = &cells[head - 1];
            let spans_columns = cs.iter().any(|c| self.over_a_column(c));
            let right_side = in_columns(cs) || (cs.len() >= 2 && in_columns(&cs[1..]));
            // A sentence above the table ("The following table sets forth …") is no header,
            // though it spans the columns (a table whose first column holds years has no label
            // column to keep it left).
            let prose = cs.iter().any(|c| {
                let words = c.text.split_whitespace().count();
                words > 8 || (words >= 3 && c.text.trim_end().ends_with(':'))
            });
            // A line of footnote marks set small above the heads they belong to ("(1)(3)", "(2)").
            let marks = above.size <= 0.75 * below.size && cs.iter().all(|c| footnote_marks(&c.text));
            if !(spans_columns && right_side && (heading_like(cs) || marks)) || prose {
                break;
            }
            head -= 1;
        }
        (head, first_body)
    }

    /// The body's rows, one cell per column with the label first: lines whose baselines nearly
    /// meet are one row (a label set a little below its values); a label wrapped over two lines,
    /// or set above or below its values, joins them.
    fn rows(&self, first_body: usize, end: usize) -> Vec<Vec<String>> {
        let (lines, order, size) = (self.lines, self.order, self.size);
        let mut row_lines: Vec<Vec<usize>> = Vec::new();
        for j in first_body..end {
            let y = lines[order[j]].y;
            match row_lines.last_mut() {
                Some(r) if (lines[order[*r.last().unwrap_or(&j)]].y - y).abs() <= ONE_ROW * size => r.push(j),
                _ => row_lines.push(vec![j]),
            }
        }
        let ncols = self.cols.len() + 1;
        let label_row = |label: String| {
            let mut r = vec![String::new(); ncols];
            r[0] = label;
            r
        };
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut pending_label: Option<String> = None;
        for (ri, group) in row_lines.iter().enumerate() {
            let mut row = self.row(group);
            let label_only = row[1..].iter().all(String::is_empty);
            let values_only = row[0].is_empty() && !label_only;
            if let Some(p) = pending_label.take() {
                // A label wrapped onto the next line ("Net cash provided by" / "operating
                // activities"), or the label of values printed above it.
                if row[0].starts_with(|c: char| c.is_lowercase()) || values_only {
                    row[0] = format!("{p} {}", row[0]).trim().to_string();
                } else {
                    rows.push(label_row(p));
                }
            }
            let next = row_lines.get(ri + 1);
            let next_is_data = next.is_some_and(|g| g.iter().any(|&j| self.data[j]));
            if label_only && next_is_data && !introduces_rows(&row[0]) {
                pending_label = Some(std::mem::take(&mut row[0]));
                continue;
            }
            // Values whose label the page set just below them.
            if values_only && next.is_some_and(|g| self.label_just_below(group, g)) {
                rows.push(row);
                continue;
            }
            let last_lacks_label = rows
                .last()
                .is_some_and(|r: &Vec<String>| r[0].is_empty() && r[1..].iter().any(|v| !v.is_empty()));
            if label_only && last_lacks_label && !introduces_rows(&row[0]) {
                // The label of the values above it.
                if let Some(last) = rows.last_mut() {
                    last[0] = std::mem::take(&mut row[0]);
                }
                continue;
            }
            rows.push(row);
        }
        rows.extend(pending_label.map(label_row));
        rows
    }

    /// One row's cells, from the lines of `group`, put in their columns.
    fn row(&self, group: &[usize]) -> Vec<String> {
        let (size, label_right) = (self.size, self.label_right);
        let mut row = vec![String::new(); self.cols.len() + 1];
        let mut rcells: Vec<&Cell> = group.iter().flat_map(|&j| self.cells[j].iter()).collect();
        rcells.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        // A currency sign the page set on a baseline of its own ("Euro  $" a twentieth of a point
        // off "(50.2)") opens the value after it.
        // A sign no value follows stays over its column.
        let mut sign: Option<&Cell> = None;
        for c in rcells {
            if is_currency_sign(c.text.trim()) {
                if let Some(s) = sign.replace(c) {
                    push_text(&mut row[column_of(s, &self.cols) + 1], &s.text);
                }
                continue;
            }
            let text = match sign.take() {
                Some(s) if is_value(&c.text) => format!("{}{}", s.text.trim(), c.text.trim()),
                Some(s) => {
                    push_text(&mut row[column_of(s, &self.cols) + 1], &s.text);
                    c.text.clone()
                }
                None => c.text.clone(),
            };
            let c = &Cell { text, ..c.clone() };
            if c.x1 <= label_right + 0.5 * size && !(is_value(&c.text) && c.x0 > label_right - 4.0 * size) {
                push_text(&mut row[0], &c.text);
            } else if let Some((value, words)) = value_then_words(&c.text) {
                // "$20,850 Total liabilities": a label the page set after the value.
                push_text(&mut row[column_of(c, &self.cols) + 1], value);
                push_text(&mut row[0], words);
            } else {
                push_text(&mut row[column_of(c, &self.cols) + 1], &c.text);
            }
        }
        if let Some(s) = sign {
            push_text(&mut row[column_of(s, &self.cols) + 1], &s.text);
        }
        row
    }

    /// Whether the lines `next` are a lone label set just below the values of `group`.
    fn label_just_below(&self, group: &[usize], next: &[usize]) -> bool {
        let Some(&j) = next.first() else { return false };
        let (a, b) = (&self.lines[self.order[group[0]]], &self.lines[self.order[j]]);
        next.iter().all(|&j| !self.data[j] && self.cells[j].len() == 1)
            && !introduces_rows(&self.cells[j][0].text)
            && a.y - b.y <= 1.3 * self.size
            && self.cells[j][0].x1 <= self.label_right + 0.5 * self.size
    }
}

/// Whether a row label introduces the rows under it rather than labelling values: it ends with a
/// colon ("Senior unsecured debt:").
fn introduces_rows(label: &str) -> bool {
    label.trim_end().ends_with(':')
}

/// Footnote marks: bracketed numbers or letters, or asterisks ("(1)(3)", "(a)", "**").
fn footnote_marks(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && (t.chars().all(|c| c == '*')
            || (bracketed(t) && t.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '(' | ')' | ','))))
}

/// Header cells are words or years, never amounts.
fn heading_like(cs: &[Cell]) -> bool {
    cs.iter().all(|c| !is_value(&c.text) || is_year(&c.text))
}

/// Page lines built from arbitrary bytes, for the fuzzer: each line takes a byte for its
/// vertical step and cell count, and each cell three bytes (position, width, and its text and
/// whether a loose gap follows its first word). Returns the
/// tables found, as TSV, after checking the builder's invariants.
pub(super) fn fuzz(data: &[u8]) -> Vec<String> {
    const WORDS: [&str; 32] = [
        "Total assets",
        "$",
        "1,234",
        "(56)",
        "—",
        "2023",
        "2022",
        "Three Months Ended",
        "June 30,",
        "12.5 %",
        ")",
        "Net income",
        "(In millions)",
        "3,587.5 3,262.8",
        "Cash",
        "n/a",
        "Income tax $ 1,403",
        "Senior debt:",
        "-43 % $",
        "25",
        "% Change",
        "Percent Change",
        "Actual",
        "(Dec)",
        "Inc/",
        "May 31,",
        "Interest Rate %",
        "2022 – 2061",
        "$ —",
        "Long-term investments:",
        "FISCAL 2023",
        "$ — $ 1,000",
    ];
    let mut lines = Vec::new();
    let mut y = 780.0f32;
    let mut bytes = data.iter().copied();
    while let Some(head) = bytes.next() {
        y -= 6.0 + (head & 31) as f32;
        let n = 1 + (head >> 5) as usize;
        let mut cells = Vec::new();
        for _ in 0..n {
            let (Some(a), Some(b), Some(c)) = (bytes.next(), bytes.next(), bytes.next()) else { break };
            let x0 = a as f32 * 2.4;
            let mut cell = Cell::new(x0, x0 + 2.0 + b as f32 / 2.0, WORDS[(c & 31) as usize]);
            // A loose gap after the first word, where the byte says so and there are two words.
            if let Some(space) = cell.text.find(' ').filter(|_| c & 32 != 0) {
                let mid = (cell.x0 + cell.x1) / 2.0;
                cell.loose = vec![WordGap { at: space + 1, x0: mid - 1.0, x1: mid + 1.0 }];
            }
            cells.push(cell);
        }
        if cells.is_empty() || y < 0.0 {
            break;
        }
        cells.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        let text = cells.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
        lines.push(Line {
            page: 0,
            x0: cells[0].x0,
            x1: cells.iter().map(|c| c.x1).fold(f32::MIN, f32::max),
            y,
            top: y + 9.0,
            size: 9.0,
            weight: 400,
            font: 0,
            col: 0,
            col_x0: 0.0,
            col_x1: 612.0,
            text,
            fixed_frac: 0.0,
            tag: None,
            wide_gaps: 0,
            cells: if cells.len() > 1 { cells } else { Vec::new() },
            loose: Vec::new(),
            skip: false,
            declared: None,
            declared_lines: 0,
            declared_title: None,
            synthetic: false,
            underlined: false,
        });
    }
    let order: Vec<usize> = (0..lines.len()).collect();
    let tables = find_tables(&lines, &order, &[]);
    let mut seen = std::collections::HashSet::new();
    for t in &tables {
        assert!(t.lines.windows(2).all(|w| w[0] < w[1]), "a table's lines are in reading order");
        assert!(t.lines.iter().all(|i| seen.insert(*i)), "a line belongs to one table");
        assert!(t.rows.iter().all(|r| r.len() == t.header.len()), "every row has a cell per column");
    }
    tables.iter().map(Table::to_tsv).collect()
}

#[cfg(test)]
mod tests;
