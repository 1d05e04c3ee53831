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

mod headers;

use super::layout::{Cell, Line};
use headers::assign_headers;
use regex::Regex;
use std::sync::OnceLock;

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

fn value_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?i:(?:up|down)\s+)?[($€£¥]?\s*[($€£¥]?\s*[-–—+]?\s*\d[\d,]*(?:\.\d+)?\s*[%x)]?\s*\)?%?$|^[—–-]+$|^(?i:n/?a|nm|flat)$",
        )
        .expect("valid value regex")
    })
}

/// Whether a cell's text is a value: a number, an amount, a percentage (also "up 2%", "down
/// (11)%", "flat" as changes are printed), or a dash for none.
pub(super) fn is_value(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.len() <= 32 && value_re().is_match(t)
}

/// The line's cells, with lone currency signs and brackets joined to their numbers.
fn cells(l: &Line) -> Vec<Cell> {
    let raw: Vec<Cell> = if l.cells.is_empty() {
        vec![Cell { x0: l.x0, x1: l.x1, text: l.text.trim().to_string() }]
    } else {
        l.cells.clone()
    };
    let mut out: Vec<Cell> = Vec::with_capacity(raw.len());
    let mut pending: Option<Cell> = None;
    for c in raw {
        let t = c.text.trim().to_string();
        let t = t.as_str();
        if matches!(t, "$" | "€" | "£" | "¥" | "(" | "$(" | "($") {
            pending = Some(match pending.take() {
                Some(mut p) => {
                    p.text.push_str(t);
                    p
                }
                None => c,
            });
            continue;
        }
        let mut c = c;
        if let Some(p) = pending.take() {
            // The sign stands apart at the column's left; the value's own extent places it.
            c.text = format!("{}{}", p.text.trim(), c.text.trim());
        }
        if matches!(t, ")" | "%" | ")%") {
            // A closing bracket or percent sign closes the value before it; over a column of
            // percentages a lone "%" is that column's header.
            if let Some(last) = out.last_mut().filter(|l| is_value(&format!("{}{t}", l.text.trim()))) {
                last.text.push_str(t);
                last.x1 = c.x1;
                continue;
            }
        }
        out.push(c);
    }
    if let Some(p) = pending {
        out.push(p);
    }
    // "3,587.5 3,262.8": values set closer than a fragment break are cells of their own, placed
    // by their share of the characters.
    let mut split: Vec<Cell> = Vec::with_capacity(out.len());
    // A currency sign ending one fragment ("down (11)% $") belongs to the value that opens the
    // next ("(1,316) down (6)%").
    let mut carry: Option<String> = None;
    for mut c in out {
        if let Some(sign) = carry.take() {
            c.text = format!("{sign}{}", c.text.trim_start());
        }
        let words: Vec<&str> = c.text.split_whitespace().collect();
        let mut glued: Vec<String> = glue_values(&words);
        if glued.len() >= 2
            && matches!(glued.last().map(String::as_str), Some("$" | "€" | "£" | "¥"))
            && glued[..glued.len() - 1].iter().all(|w| is_value(w))
        {
            carry = glued.pop();
            let cut = c.text.trim_end().len() - carry.as_deref().map_or(0, str::len);
            let width = c.x1 - c.x0;
            let total = c.text.chars().count().max(1) as f32;
            c.x1 = c.x0 + width * c.text[..cut].chars().count() as f32 / total;
            c.text = c.text[..cut].trim_end().to_string();
        }
        if glued.len() >= 2 && glued.iter().all(|w| is_value(w)) {
            let total = c.text.chars().count().max(1) as f32;
            let width = c.x1 - c.x0;
            let mut at = 0usize;
            for w in glued {
                let start = c.text[at..].find(w.chars().next().unwrap_or(' ')).map(|i| i + at).unwrap_or(at);
                let n = w.chars().count();
                let x0 = c.x0 + width * c.text[..start].chars().count() as f32 / total;
                let x1 = x0 + width * n as f32 / total;
                at = (start + w.len()).min(c.text.len());
                split.push(Cell { x0, x1, text: w });
            }
        } else {
            split.push(c);
        }
    }
    for c in &mut split {
        if is_value(&c.text) {
            c.text = compact_value(&c.text);
        }
    }
    split
}

/// A value without inner spaces ("$ 2.45" → "$2.45"), but for the word of a change ("down
/// (11)%").
fn compact_value(text: &str) -> String {
    let t = text.trim();
    let word = ["up ", "down ", "Up ", "Down ", "UP ", "DOWN "].iter().find(|w| t.starts_with(*w));
    match word {
        Some(w) => format!("{w}{}", t[w.len()..].split_whitespace().collect::<String>()),
        None => t.split_whitespace().collect(),
    }
}

/// Words of a cell as values: a currency sign, a bracket or the word of a change alone joins the
/// next word, a closing bracket or percent sign the previous ("$ 2.45" → "$2.45", "12.6 %" →
/// "12.6%", "down (11)%").
fn glue_values(words: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for w in words {
        if matches!(*w, "$" | "€" | "£" | "¥" | "(" | "$(") {
            pending.push_str(w);
        } else if pending.is_empty() && matches!(w.to_ascii_lowercase().as_str(), "up" | "down") {
            // The word of a change ("down (11)%").
            pending = format!("{w} ");
        } else if matches!(*w, ")" | "%" | ")%") && pending.is_empty() && !out.is_empty() {
            if let Some(last) = out.last_mut() {
                last.push_str(w);
            }
        } else {
            out.push(format!("{pending}{w}"));
            pending.clear();
        }
    }
    if !pending.is_empty() {
        out.push(pending);
    }
    out
}

/// A year as a column header prints it: "2023", "2022 (1)", "Fiscal 2021".
fn is_year(text: &str) -> bool {
    let t = text.trim();
    let digits: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
    digits.len() == 4
        && (digits.starts_with("19") || digits.starts_with("20"))
        && !t.contains(',')
        && !t.contains('$')
}

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
}

fn overlap(a0: f32, a1: f32, b0: f32, b1: f32) -> f32 {
    a1.min(b1) - a0.max(b0)
}

/// Finds the tables among lines `order` (reading order; lines of one page are consecutive).
pub(super) fn find_tables(lines: &[Line], order: &[usize]) -> Vec<Table> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let page = lines[order[start]].page;
        let mut end = start;
        while end < order.len() && lines[order[end]].page == page {
            end += 1;
        }
        page_tables(lines, &order[start..end], &mut out);
        start = end;
    }
    out
}

fn page_tables(lines: &[Line], order: &[usize], out: &mut Vec<Table>) {
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
            if b.col != a.col || b.declared.is_some() || (a.y - b.y).abs() > 0.45 * a.size.max(b.size) {
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
        let built = build(lines, order, &cells, &data, s, end)
            .filter(|t| data_rows >= 2 || t.header.iter().any(|h| h.split_whitespace().any(is_year)));
        if let Some(t) = built {
            used_until = end;
            out.push(t);
        }
        k = end;
    }
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
    let min_members = if rows.len() >= 4 { 2 } else { 1 };
    let span = |g: &Vec<&Cell>| Column {
        x0: g.iter().map(|c| c.x0).fold(f32::MAX, f32::min),
        x1: g.iter().map(|c| c.x1).fold(f32::MIN, f32::max),
    };
    // A lone value right of every column is a column of its own (a total only the last row
    // gives: Apple's "$ 60,665" under "Approximate Dollar Value …"), not part of the last one.
    let right_edge =
        groups.iter().filter(|g| g.len() >= min_members).map(|g| span(g).x1).fold(f32::MIN, f32::max);
    let mut cols: Vec<Column> = groups
        .iter()
        .filter(|g| g.len() >= min_members || span(g).x0 > right_edge + 2.0 * tol)
        .map(span)
        .collect();
    // Spans that overlap (a wide value cell) belong to one column.
    cols.sort_by(|a, b| a.x1.total_cmp(&b.x1));
    let mut merged: Vec<Column> = Vec::new();
    for c in cols {
        match merged.last_mut() {
            Some(m) if c.x0 < m.x1 - 0.5 => {
                m.x0 = m.x0.min(c.x0);
                m.x1 = m.x1.max(c.x1);
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

fn build(
    lines: &[Line],
    order: &[usize],
    cells: &[Vec<Cell>],
    data: &[bool],
    start: usize,
    end: usize,
) -> Option<Table> {
    let size = lines[order[start]].size.max(1.0);
    let body: Vec<&[Cell]> = (start..end).filter(|&j| data[j]).map(|j| cells[j].as_slice()).collect();
    let cols = columns(&body, size);
    if cols.is_empty() {
        return None;
    }
    let label_right = cols[0].x0 - 0.3 * size;
    // Where the row labels end: header cells right of it stand over the columns.
    let label_end = cells[start..end]
        .iter()
        .filter_map(|r| r.first())
        .filter(|c| c.x1 <= label_right + 0.5 * size && !is_value(&c.text))
        .map(|c| c.x1)
        .fold(f32::MIN, f32::max)
        .min(label_right);
    // A row without a label cell: the label column's cells end before the first column.
    let has_label =
        |cs: &[Cell]| cs.first().is_some_and(|c| c.x1 <= label_right + 0.5 * size && !is_value(&c.text));
    let in_columns = |cs: &[Cell]| cs.iter().all(|c| c.x0 > label_end + 0.5 * size);
    // Header rows: the run's first rows without a label, and lines just above it standing over
    // the columns.
    let mut first_body = start;
    // Header cells are words or years, never amounts.
    let heading_like = |cs: &[Cell]| cs.iter().all(|c| !is_value(&c.text) || is_year(&c.text));
    while first_body < end
        && !has_label(&cells[first_body])
        && in_columns(&cells[first_body])
        && heading_like(&cells[first_body])
    {
        first_body += 1;
    }
    let mut head = start;
    while head > 0 && start - head < 6 {
        let (above, below) = (&lines[order[head - 1]], &lines[order[head]]);
        let gap = above.y - below.y;
        if above.page != below.page || gap > 2.6 * size || gap < 0.0 || above.declared.is_some() {
            break;
        }
        let cs = &cells[head - 1];
        let spans_columns =
            cs.iter().any(|c| cols.iter().any(|k| overlap(c.x0, c.x1, k.x0 - size, k.x1 + size) > 0.0));
        let right_side = cs.iter().all(|c| c.x0 > label_end + 0.5 * size)
            || (cs.len() >= 2 && cs[1..].iter().all(|c| c.x0 > label_end + 0.5 * size));
        // A sentence above the table ("The following table sets forth …") is no header, though
        // it spans the columns (a table whose first column holds years has no label column to
        // keep it left).
        let prose = cs.iter().any(|c| {
            let words = c.text.split_whitespace().count();
            words > 8 || (words >= 3 && c.text.trim_end().ends_with(':'))
        });
        if !(spans_columns && right_side && heading_like(cs)) || prose {
            break;
        }
        head -= 1;
    }
    let ncols = cols.len() + 1;
    let mut header = vec![String::new(); ncols];
    assign_headers(&cells[head..first_body], &cols, label_end, size, &mut header);
    // Rows: lines whose baselines nearly meet are one row (a label set a little below its
    // values).
    let mut row_lines: Vec<Vec<usize>> = Vec::new();
    for j in first_body..end {
        let y = lines[order[j]].y;
        match row_lines.last_mut() {
            Some(r) if (lines[order[*r.last().unwrap_or(&j)]].y - y).abs() <= 0.45 * size => r.push(j),
            _ => row_lines.push(vec![j]),
        }
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut pending_label: Option<String> = None;
    for (ri, group) in row_lines.iter().enumerate() {
        let mut row = vec![String::new(); ncols];
        let mut rcells: Vec<&Cell> = group.iter().flat_map(|&j| cells[j].iter()).collect();
        rcells.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        for c in rcells {
            if c.x1 <= label_right + 0.5 * size && !(is_value(&c.text) && c.x0 > label_right - 4.0 * size) {
                push_text(&mut row[0], &c.text);
            } else if let Some((value, words)) = value_then_words(&c.text) {
                // "$20,850 Total liabilities": a label the page set after the value.
                push_text(&mut row[column_of(c, &cols) + 1], value);
                push_text(&mut row[0], words);
            } else {
                push_text(&mut row[column_of(c, &cols) + 1], &c.text);
            }
        }
        let label_only = row[1..].iter().all(String::is_empty);
        let values_only = row[0].is_empty() && !label_only;
        if let Some(p) = pending_label.take() {
            // A label wrapped onto the next line ("Net cash provided by" / "operating
            // activities"), or the label of values printed above it.
            if row[0].starts_with(|c: char| c.is_lowercase()) || values_only {
                row[0] = format!("{p} {}", row[0]).trim().to_string();
            } else {
                let mut r = vec![String::new(); ncols];
                r[0] = p;
                rows.push(r);
            }
        }
        let next = row_lines.get(ri + 1);
        let next_is_data = next.is_some_and(|g| g.iter().any(|&j| data[j]));
        if label_only && next_is_data && !row[0].ends_with(':') {
            pending_label = Some(std::mem::take(&mut row[0]));
            continue;
        }
        // Values whose label the page set just below them.
        if values_only {
            if let Some(g) = next {
                let label_below = g.iter().all(|&j| !data[j] && cells[j].len() == 1)
                    && g.first().is_some_and(|&j| {
                        let (a, b) = (&lines[order[group[0]]], &lines[order[j]]);
                        a.y - b.y <= 1.3 * size && cells[j][0].x1 <= label_right + 0.5 * size
                    });
                if label_below {
                    rows.push(row);
                    continue;
                }
            }
        }
        if label_only
            && rows
                .last()
                .is_some_and(|r: &Vec<String>| r[0].is_empty() && r[1..].iter().any(|v| !v.is_empty()))
        {
            // The label of the values above it.
            if let Some(last) = rows.last_mut() {
                last[0] = std::mem::take(&mut row[0]);
            }
            continue;
        }
        rows.push(row);
    }
    if let Some(p) = pending_label {
        let mut r = vec![String::new(); ncols];
        r[0] = p;
        rows.push(r);
    }
    // Columns that hold nothing are dropped.
    let keep: Vec<bool> = (0..ncols)
        .map(|c| c == 0 || !header[c].is_empty() || rows.iter().any(|r| !r[c].is_empty()))
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

/// Page lines built from arbitrary bytes, for the fuzzer: each line takes a byte for its
/// vertical step and cell count, and each cell four bytes (position, width, text). Returns the
/// tables found, as TSV, after checking the builder's invariants.
pub(super) fn fuzz(data: &[u8]) -> Vec<String> {
    const WORDS: [&str; 16] = [
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
            cells.push(Cell {
                x0,
                x1: x0 + 2.0 + b as f32 / 2.0,
                text: WORDS[(c & 15) as usize].to_string(),
            });
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
            skip: false,
            declared: None,
            declared_lines: 0,
            declared_title: None,
            synthetic: false,
        });
    }
    let order: Vec<usize> = (0..lines.len()).collect();
    let tables = find_tables(&lines, &order);
    let mut seen = std::collections::HashSet::new();
    for t in &tables {
        assert!(t.lines.windows(2).all(|w| w[0] < w[1]), "a table's lines are in reading order");
        assert!(t.lines.iter().all(|i| seen.insert(*i)), "a line belongs to one table");
        assert!(t.rows.iter().all(|r| r.len() == t.header.len()), "every row has a cell per column");
    }
    tables.iter().map(Table::to_tsv).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, cells: &[(f32, f32, &str)]) -> Line {
        let cs: Vec<Cell> = cells.iter().map(|&(x0, x1, t)| Cell { x0, x1, text: t.into() }).collect();
        Line {
            page: 0,
            x0: cs[0].x0,
            x1: cs.last().unwrap().x1,
            y,
            top: y + 9.0,
            size: 9.0,
            weight: 400,
            font: 0,
            col: 0,
            col_x0: 50.0,
            col_x1: 560.0,
            text: cs.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" "),
            fixed_frac: 0.0,
            tag: None,
            wide_gaps: 0,
            cells: if cs.len() > 1 { cs } else { Vec::new() },
            skip: false,
            declared: None,
            declared_lines: 0,
            declared_title: None,
            synthetic: false,
        }
    }

    #[test]
    fn values() {
        for v in ["3,954,687", "$ 1,234", "(12)", "4 %", "—", "$(1,234.5)", "12.5%", "n/a", "2022"] {
            assert!(is_value(v), "{v}");
        }
        for v in ["Total assets", "March 31,", "1A.", "Item 7"] {
            assert!(!is_value(v), "{v}");
        }
    }

    #[test]
    fn a_balance_sheet_with_a_two_row_header() {
        let lines = vec![
            line(
                700.0,
                &[(50.0, 300.0, "This paragraph introduces the table and runs wide across the page.")],
            ),
            line(680.0, &[(380.0, 520.0, "Three months ended March 31,")]),
            line(668.0, &[(400.0, 420.0, "2022"), (480.0, 500.0, "2021")]),
            line(656.0, &[(50.0, 120.0, "Current assets:")]),
            line(
                644.0,
                &[(60.0, 150.0, "Cash"), (390.0, 395.0, "$"), (400.0, 420.0, "1,234"), (480.0, 500.0, "987")],
            ),
            line(632.0, &[(60.0, 150.0, "Receivables"), (400.0, 420.0, "55"), (480.0, 500.0, "(12)")]),
            line(
                620.0,
                &[(50.0, 150.0, "Total assets"), (395.0, 420.0, "3,954,687"), (470.0, 500.0, "3,743,567")],
            ),
            line(590.0, &[(50.0, 500.0, "A paragraph after the table, set across the whole column width.")]),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        let t = &t[0];
        assert_eq!(t.lines, vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(
            t.header,
            vec!["", "Three months ended March 31, 2022", "Three months ended March 31, 2021"]
        );
        assert_eq!(t.rows[0], vec!["Current assets:", "", ""]);
        assert_eq!(t.rows[1], vec!["Cash", "$1,234", "987"]);
        assert_eq!(t.rows[2], vec!["Receivables", "55", "(12)"]);
        assert_eq!(t.rows[3], vec!["Total assets", "3,954,687", "3,743,567"]);
        assert!(t.to_tsv().starts_with("\tThree months ended March 31, 2022\t"));
    }

    #[test]
    fn arbitrary_lines_keep_the_invariants() {
        // FOLIO_TABLE_CASES raises the number of cases for a longer run without cargo-fuzz.
        let cases: usize =
            std::env::var("FOLIO_TABLE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
        let mut seed = 7u64;
        for _ in 0..cases {
            let data: Vec<u8> = (0..200)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 33) as u8
                })
                .collect();
            fuzz(&data);
        }
    }

    #[test]
    fn the_sentence_introducing_a_table_of_years_is_no_header() {
        // FedEx's jet fuel table: years in the first column (no label column), and the sentence
        // above it, which spans the columns, ends with a colon.
        let lines = vec![
            line(
                720.0,
                &[(50.0, 540.0, "The following table sets forth the costs for jet fuel and their share of")],
            ),
            line(708.0, &[(50.0, 200.0, "revenues for the last five fiscal years:")]),
            line(690.0, &[(380.0, 440.0, "Total Jet"), (470.0, 540.0, "Percentage of")]),
            line(
                678.0,
                &[(50.0, 110.0, "Fiscal Year"), (380.0, 440.0, "Fuel Cost"), (470.0, 540.0, "Revenue")],
            ),
            line(666.0, &[(50.0, 70.0, "2023"), (400.0, 430.0, "$4,515"), (500.0, 520.0, "5.0%")]),
            line(654.0, &[(50.0, 70.0, "2022"), (400.0, 430.0, "3,867"), (500.0, 520.0, "4.1")]),
            line(642.0, &[(50.0, 70.0, "2021"), (400.0, 430.0, "2,065"), (500.0, 520.0, "2.5")]),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        assert!(
            t[0].header.iter().all(|h| !h.contains("following") && !h.contains("fiscal years:")),
            "{:?}",
            t[0].header
        );
        assert!(!t[0].lines.contains(&0) && !t[0].lines.contains(&1), "{:?}", t[0].lines);
    }

    #[test]
    fn what_is_set_level_with_the_last_row_belongs_to_it() {
        // eBay's income statement: "Diluted" sits a point under "537 556" and comes after it.
        let lines = vec![
            line(680.0, &[(400.0, 420.0, "2023"), (480.0, 500.0, "2022")]),
            line(668.0, &[(50.0, 150.0, "Weighted-average shares:")]),
            line(656.0, &[(60.0, 90.0, "Basic"), (400.0, 420.0, "534"), (480.0, 500.0, "556")]),
            line(644.0, &[(400.0, 420.0, "537"), (480.0, 500.0, "556")]),
            line(643.0, &[(60.0, 95.0, "Diluted")]),
            line(600.0, &[(50.0, 500.0, "The accompanying notes are an integral part of these statements.")]),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].rows.last().unwrap(), &vec!["Diluted", "537", "556"], "{:?}", t[0].rows);
        assert!(t[0].lines.contains(&4) && !t[0].lines.contains(&5));

        // Oracle's repurchases: "$ 93.29" two points under "Total 1.6 1.6", read after it.
        let lines = vec![
            line(680.0, &[(60.0, 200.0, "March 2023"), (280.0, 292.0, "0.6"), (370.0, 390.0, "$87.46")]),
            line(668.0, &[(60.0, 200.0, "April 2023"), (280.0, 292.0, "0.5"), (370.0, 390.0, "$94.72")]),
            line(656.0, &[(60.0, 90.0, "Total"), (280.0, 292.0, "1.6")]),
            line(654.0, &[(370.0, 390.0, "$93.29")]),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].rows.last().unwrap(), &vec!["Total", "1.6", "$93.29"], "{:?}", t[0].rows);
    }

    #[test]
    fn a_total_only_the_last_row_gives_is_a_column_of_its_own() {
        // Apple's repurchases: the dollar value left is printed on the total row alone, right of
        // every other column.
        let mut lines = Vec::new();
        for (k, month) in ["June", "July", "August", "September"].iter().enumerate() {
            let y = 680.0 - 12.0 * k as f32;
            lines.push(line(y, &[(60.0, 200.0, month), (300.0, 330.0, "41,690"), (380.0, 410.0, "$145.91")]));
        }
        lines.push(line(
            632.0,
            &[(60.0, 90.0, "Total"), (300.0, 330.0, "160,172"), (520.0, 560.0, "$60,665")],
        ));
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].rows.last().unwrap(), &vec!["Total", "160,172", "", "$60,665"], "{:?}", t[0].rows);
    }

    #[test]
    fn a_header_set_on_two_lines_over_one_column() {
        // FedEx's segment tables: "Percent" over "Change", the second line a point under the row
        // "2023  2022  Percent of Revenue".
        let lines = vec![
            line(700.0, &[(452.0, 478.0, "Percent")]),
            line(
                690.0,
                &[(331.0, 347.0, "2023"), (395.0, 411.0, "2022"), (519.0, 585.0, "Percent of Revenue")],
            ),
            line(689.0, &[(452.0, 478.0, "Change")]),
            line(680.0, &[(520.0, 536.0, "2023"), (568.0, 584.0, "2022")]),
            line(
                668.0,
                &[
                    (60.0, 150.0, "Revenue"),
                    (337.0, 372.0, "$9,632"),
                    (401.0, 437.0, "$9,532"),
                    (476.0, 492.0, "1"),
                    (523.0, 553.0, "100.0%"),
                    (571.0, 601.0, "100.0%"),
                ],
            ),
            line(
                656.0,
                &[
                    (60.0, 150.0, "Rentals"),
                    (337.0, 372.0, "1,661"),
                    (401.0, 437.0, "1,410"),
                    (476.0, 492.0, "18"),
                    (523.0, 553.0, "5.0"),
                    (571.0, 601.0, "4.2"),
                ],
            ),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(
            t[0].header,
            vec!["", "2023", "2022", "Percent Change", "Percent of Revenue 2023", "Percent of Revenue 2022"]
        );
    }

    #[test]
    fn changes_printed_as_words_and_percent_headers() {
        // Intel's revenue bridge: "%" heads a column of "down (11)%", "up 2%"; a fragment ends in
        // the "$" of the next value.
        let lines = vec![
            line(700.0, &[(300.0, 380.0, "2020 vs. 2019"), (440.0, 520.0, "2019 vs. 2018")]),
            line(
                688.0,
                &[
                    (50.0, 110.0, "(In Millions)"),
                    (300.0, 310.0, "%"),
                    (350.0, 385.0, "$ Impact"),
                    (440.0, 450.0, "%"),
                    (490.0, 525.0, "$ Impact"),
                ],
            ),
            line(
                676.0,
                &[
                    (50.0, 200.0, "Desktop platform volume"),
                    (290.0, 345.0, "down (11)% $"),
                    (360.0, 475.0, "(1,316) down (6)%"),
                    (505.0, 525.0, "(705)"),
                ],
            ),
            line(
                664.0,
                &[
                    (50.0, 200.0, "Desktop platform ASP"),
                    (295.0, 320.0, "up 2%"),
                    (365.0, 385.0, "186"),
                    (435.0, 460.0, "up 3%"),
                    (505.0, 525.0, "307"),
                ],
            ),
            line(
                652.0,
                &[
                    (50.0, 200.0, "Notebook platform volume"),
                    (295.0, 320.0, "up 28%"),
                    (360.0, 385.0, "5,770"),
                    (430.0, 475.0, "down (5)%"),
                    (500.0, 525.0, "(1,080)"),
                ],
            ),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        let t = find_tables(&lines, &order);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(
            t[0].header,
            vec![
                "(In Millions)",
                "2020 vs. 2019 %",
                "2020 vs. 2019 $ Impact",
                "2019 vs. 2018 %",
                "2019 vs. 2018 $ Impact"
            ]
        );
        assert_eq!(
            t[0].rows[0],
            vec!["Desktop platform volume", "down (11)%", "$(1,316)", "down (6)%", "(705)"]
        );
        assert_eq!(t[0].rows[1], vec!["Desktop platform ASP", "up 2%", "186", "up 3%", "307"]);
    }

    #[test]
    fn prose_with_numbers_is_no_table() {
        let lines = vec![
            line(700.0, &[(50.0, 500.0, "In 2022 net sales rose 8% to $394 billion, while the")]),
            line(688.0, &[(50.0, 500.0, "number of employees was about 164,000 at year end.")]),
        ];
        let order: Vec<usize> = (0..lines.len()).collect();
        assert!(find_tables(&lines, &order).is_empty());
    }
}
