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
mod frame;
mod headers;

use super::binding::HRule;
use super::chars::WordGap;
use super::layout::{Cell, Line};
pub(in crate::pdf) use cells::is_value;
use cells::{cells, is_currency_sign, is_year};
use frame::Frame;
use headers::{assign_headers, HeaderRow};

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

/// A column: the horizontal span of its value cells (or of its words, in a column of words).
#[derive(Debug, Clone, Copy)]
struct Column {
    x0: f32,
    x1: f32,
    /// Made of one value alone (a total only one row gives): kept only where it holds a value.
    lone: bool,
    /// A column of words between the row labels and the values ("Balance Sheet Location").
    words: bool,
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
            // A long label goes too where the row's label goes on from it in lower case
            // ("… recognized in net" / "revenues  $ 14"); a short one goes whatever follows.
            let wraps_on = cells[s].first().is_some_and(|f| f.text.starts_with(|ch: char| ch.is_lowercase()));
            let label = c.len() == 1
                && c[0].x1 < first_value_x
                && (c[0].text.chars().count() <= 60
                    || (wraps_on && !c[0].text.trim_end().ends_with(['.', ':'])));
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
            (Column { x0, x1, lone: !full, words: false }, full, g.iter().any(|c| !is_year(&c.text)))
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
