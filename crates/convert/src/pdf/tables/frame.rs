//! A run of lines read as a table: its value columns, where its row labels end, which of its
//! lines are heads, and its body rows.

use super::cells::{is_currency_sign, is_value, is_year};
use super::headers::{bracketed, CENTRED_SLACK};
use super::{column_of, columns, in_label_column, overlap, push_text, Column, MAX_HEADER_LINES, ONE_ROW};
use crate::pdf::layout::{Cell, Line};

/// A run of lines with the geometry its table is read by: the text size, the value columns, and
/// where the row labels end.
pub(super) struct Frame<'a> {
    lines: &'a [Line],
    order: &'a [usize],
    cells: &'a [Vec<Cell>],
    data: &'a [bool],
    pub size: f32,
    pub cols: Vec<Column>,
    /// Left of this (give or take half the text size) a cell is a row label.
    label_right: f32,
    /// Where the row labels end: header cells right of it stand over the columns.
    pub label_end: f32,
    /// Where each column's currency signs begin (its left edge where it has none).
    sign_x0: Vec<f32>,
}

impl<'a> Frame<'a> {
    pub(super) fn new(
        lines: &'a [Line],
        order: &'a [usize],
        cells: &'a [Vec<Cell>],
        data: &'a [bool],
        start: usize,
        end: usize,
    ) -> Option<Frame<'a>> {
        let size = lines[order[start]].size.max(1.0);
        let body: Vec<&[Cell]> = (start..end).filter(|&j| data[j]).map(|j| cells[j].as_slice()).collect();
        let mut cols = columns(&body, size);
        if cols.is_empty() {
            return None;
        }
        // Each data row with the lines level with it: a label the page set a little off its values.
        let level_rows: Vec<Vec<Cell>> = level_groups(lines, order, size, start..end)
            .into_iter()
            .filter(|g| g.iter().any(|&j| data[j]))
            .map(|g| {
                let mut row: Vec<Cell> = g.iter().flat_map(|&j| cells[j].iter().cloned()).collect();
                row.sort_by(|a, b| a.x0.total_cmp(&b.x0));
                row
            })
            .collect();
        let level_rows: Vec<&[Cell]> = level_rows.iter().map(Vec::as_slice).collect();
        // Columns of words, right to left (Oracle's "Hypothetical Change" and "Impact").
        while let Some(w) = word_column(&level_rows, cols[0].x0) {
            cols.insert(0, w);
        }
        let label_right = cols[0].x0 - 0.3 * size;
        let label_end = cells[start..end]
            .iter()
            .filter_map(|r| r.first())
            .filter(|c| c.x1 <= label_right + 0.5 * size && (!is_value(&c.text) || is_year(&c.text)))
            .map(|c| c.x1)
            .fold(f32::MIN, f32::max)
            .min(label_right);
        // Where each column's currency signs begin, set apart at its left ("$" … "28").
        let mut sign_x0: Vec<f32> = cols.iter().map(|c| c.x0).collect();
        for j in (start..end).filter(|&j| data[j]) {
            // A sign alone, or ending a fragment ("1-5 years  $"), placed by its share of the
            // fragment's characters.
            let signs = lines[order[j]].cells.iter().filter_map(|s| {
                let t = s.text.trim_end();
                let (rest, last) = t.split_at(t.char_indices().last()?.0);
                let share = (s.x1 - s.x0) / t.chars().count() as f32;
                (is_currency_sign(last) && (rest.is_empty() || rest.ends_with(' ')))
                    .then_some((s.x1 - share, s.x1))
            });
            for (x0, x1) in signs {
                if let Some(k) = cols.iter().position(|c| c.x0 >= x1) {
                    sign_x0[k] = sign_x0[k].min(x0);
                }
            }
        }
        Some(Frame { lines, order, cells, data, size, cols, sign_x0, label_right, label_end })
    }

    /// Whether a row's first cell is a label: it ends before the first column, and is no value.
    fn has_label(&self, cs: &[Cell]) -> bool {
        cs.first().is_some_and(|c| c.x1 <= self.label_right + 0.5 * self.size && !is_value(&c.text))
    }

    /// Whether a cell stands over the columns: it overlaps one (give or take the text size), or is
    /// centred on a run of them, each with the currency signs set apart at its left ("30, 2023"
    /// over "$      28"; "Twelve Months Ended June 30, 2022" over four), give or take
    /// [`CENTRED_SLACK`] of their width (at least the text size). A currency sign alone, set
    /// apart from its amount on another baseline, is no head; nor is a title set off the columns'
    /// middles (Nike's "DERIVATIVE ASSETS" over a column of words and two of amounts).
    fn over_a_column(&self, c: &Cell) -> bool {
        let size = self.size;
        let mid = (c.x0 + c.x1) / 2.0;
        // A column of words is headed by a cell over it that reaches no column of values
        // ("Location of Gains (Losses)"); a title across it and the values ("DERIVATIVE
        // ASSETS") heads the table, not its columns.
        let values: Vec<usize> = (0..self.cols.len()).filter(|&k| !self.cols[k].words).collect();
        if let Some(w) = self.cols.iter().find(|col| col.words) {
            if overlap(c.x0, c.x1, w.x0, w.x1) > 0.0 {
                return values.iter().all(|&k| overlap(c.x0, c.x1, self.sign_x0[k], self.cols[k].x1) <= 0.0);
            }
        }
        let centred = |a: usize, b: usize| {
            let (x0, x1) = (self.sign_x0[a], self.cols[b].x1);
            ((x0 + x1) / 2.0 - mid).abs() <= size.max(CENTRED_SLACK * (x1 - x0))
        };
        values.iter().any(|&k| overlap(c.x0, c.x1, self.cols[k].x0 - size, self.cols[k].x1 + size) > 0.0)
            || (c.text.chars().any(char::is_alphanumeric)
                && values.iter().any(|&a| values.iter().any(|&b| b >= a && centred(a, b))))
    }

    /// Header rows: the run's first rows without a label, and lines just above it standing over
    /// the columns. Returns the first header line and the first body line (indices into `order`).
    pub(super) fn header_rows(&self, start: usize, end: usize) -> (usize, usize) {
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
            // Lines level with it are one header row with it: a head over a column of words
            // ("Estimated", a point under "May 31,") stands with the heads over the amounts.
            // (`order` holds one page's lines.)
            let level_with = |&j: &usize| (self.lines[self.order[j]].y - above.y).abs() <= ONE_ROW * size;
            let level: Vec<usize> = (0..head - 1)
                .rev()
                .take_while(level_with)
                .chain((head..first_body).take_while(level_with))
                .collect();
            // (A row of values level with it makes it the row's label, no head.)
            let amounts = |j: usize| {
                self.data[j] && !cells[j].iter().all(|c| footnote_marks(&c.text) || !is_value(&c.text))
            };
            let spans_columns = !level.iter().any(|&j| amounts(j))
                && cs
                    .iter()
                    .chain(level.iter().flat_map(|&j| cells[j].iter()))
                    .any(|c| self.over_a_column(c));
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
    pub(super) fn rows(&self, first_body: usize, end: usize) -> Vec<Vec<String>> {
        let row_lines = level_groups(self.lines, self.order, self.size, first_body..end);
        let mut built: Vec<Vec<String>> = row_lines.iter().map(|g| self.row(g)).collect();
        let ncols = self.cols.len() + 1;
        let label_row = |label: String| {
            let mut r = vec![String::new(); ncols];
            r[0] = label;
            r
        };
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut pending_label: Option<String> = None;
        for (ri, group) in row_lines.iter().enumerate() {
            let mut row = std::mem::take(&mut built[ri]);
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
            // A label line that goes on in lower case on the next label line ("Derivatives
            // designated as" / "cash flow hedges:") is one label with it.
            let next_goes_on = built.get(ri + 1).is_some_and(|r| {
                r[1..].iter().all(String::is_empty) && r[0].starts_with(|c: char| c.is_lowercase())
            });
            if label_only && (next_is_data || next_goes_on) && !introduces_rows(&row[0]) {
                pending_label = Some(std::mem::take(&mut row[0]));
                continue;
            }
            // Values whose label the page set just below them.
            if values_only && next.is_some_and(|g| self.label_just_below(group, g)) {
                rows.push(row);
                continue;
            }
            // Words wrapped onto the next line in a column of words, the values on the last
            // ("Total, from continuing operations before" / "income taxes    17").
            if let Some(last) =
                rows.last_mut().filter(|last| self.words_only(last) && self.continues_words(&row))
            {
                for (k, cell) in row.iter().enumerate().skip(1) {
                    if self.cols[k - 1].words {
                        push_text(&mut last[k], cell);
                    } else {
                        last[k].clone_from(cell);
                    }
                }
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
        // off "(50.2)") opens the value after it; one no value follows stays over its column.
        let over_its_column =
            |row: &mut [String], s: &Cell| push_text(&mut row[column_of(s, &self.cols) + 1], &s.text);
        // Left of a column of words, whatever its length, a cell of words is the row's label.
        let words_x0 = self.cols.first().filter(|w| w.words).map(|w| w.x0);
        let mut sign: Option<&Cell> = None;
        for c in rcells {
            if is_currency_sign(c.text.trim()) {
                if let Some(s) = sign.replace(c) {
                    over_its_column(&mut row, s);
                }
                continue;
            }
            let text = match sign.take() {
                Some(s) if is_value(&c.text) => format!("{}{}", s.text.trim(), c.text.trim()),
                Some(s) => {
                    over_its_column(&mut row, s);
                    c.text.clone()
                }
                None => c.text.clone(),
            };
            let before_words = words_x0.is_some_and(|x| c.x0 < x - 0.5 * size) && !is_value(&text);
            if before_words
                || (c.x1 <= label_right + 0.5 * size && !(is_value(&text) && c.x0 > label_right - 4.0 * size))
            {
                push_text(&mut row[0], &text);
                continue;
            }
            let k = column_of(c, &self.cols);
            if self.cols[k].words {
                // "15 to 30 years" under "Range": the column's words, whole.
                push_text(&mut row[k + 1], &text);
            } else if let Some((value, words)) = value_then_words(&text) {
                // "$20,850 Total liabilities": a label the page set after the value.
                push_text(&mut row[k + 1], value);
                push_text(&mut row[0], words);
            } else {
                push_text(&mut row[k + 1], &text);
            }
        }
        if let Some(s) = sign {
            over_its_column(&mut row, s);
        }
        row
    }

    /// Whether a row holds words in a column of words and nothing else.
    fn words_only(&self, row: &[String]) -> bool {
        let words = |k: usize| self.cols[k - 1].words;
        row[0].is_empty()
            && (1..row.len()).all(|k| words(k) || row[k].is_empty())
            && (1..row.len()).any(|k| words(k) && !row[k].is_empty())
    }

    /// Whether a row with no label goes on with the words of the row above: its words start in
    /// lower case.
    fn continues_words(&self, row: &[String]) -> bool {
        row[0].is_empty()
            && (1..row.len())
                .any(|k| self.cols[k - 1].words && row[k].starts_with(|c: char| c.is_lowercase()))
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

/// The lines `range` (indices into `order`) in rows: a line whose baseline lies within
/// [`ONE_ROW`] of the text size of the line before it is in that line's row (a label set a little
/// off its values, a value read after its label).
fn level_groups(
    lines: &[Line],
    order: &[usize],
    size: f32,
    range: std::ops::Range<usize>,
) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for j in range {
        let y = lines[order[j]].y;
        match groups.last_mut() {
            Some(g) if g.last().is_some_and(|&k| (lines[order[k]].y - y).abs() <= ONE_ROW * size) => {
                g.push(j)
            }
            _ => groups.push(vec![j]),
        }
    }
    groups
}

/// The fewest rows that make a column of words.
const WORD_COLUMN_ROWS: usize = 3;

/// How far apart the aligned edges of a column of words' cells may lie, in points.
const WORD_COLUMN_ALIGN: f32 = 1.5;

/// A column of words between the row labels and the values (eBay's "Balance Sheet Location":
/// "Foreign exchange contracts …    Other current assets    $ 26"): in at least
/// [`WORD_COLUMN_ROWS`] data rows, and half of those with a label, a cell of words set apart after
/// the label, aligned at their left, right or middle (as such a column is set), and no row's cell
/// across the column's left edge. `rows`: the run's rows that hold values, each with the lines
/// level with it; `first_value_x0`: where the first column of values begins.
fn word_column<'c>(rows: &[&'c [Cell]], first_value_x0: f32) -> Option<Column> {
    let wordy = |c: &Cell| {
        let t = c.text.trim();
        !is_value(t)
            && !is_currency_sign(t)
            && !footnote_marks(t)
            && t.chars().filter(|ch| ch.is_alphabetic()).count() >= 3
    };
    let before_values = |r: &'c [Cell]| -> Vec<&'c Cell> {
        r.iter().take_while(|c| c.x1 < first_value_x0 && !is_value(&c.text)).collect()
    };
    let labelled = rows.iter().filter(|r| r.first().is_some_and(wordy)).count();
    let second: Vec<&Cell> = rows
        .iter()
        .filter_map(|r| {
            let words = before_values(r);
            let last = *words.last()?;
            (words.len() >= 2 && wordy(words[0]) && wordy(last)).then_some(last)
        })
        .collect();
    // The edge most of them share: left, right or centre, as the column is set.
    let edges: [fn(&Cell) -> f32; 3] = [|c| c.x0, |c| c.x1, |c| (c.x0 + c.x1) / 2.0];
    let aligned = |edge: fn(&Cell) -> f32, x: f32| -> Vec<&Cell> {
        second.iter().copied().filter(|c| (edge(c) - x).abs() <= WORD_COLUMN_ALIGN).collect()
    };
    let mut aligned_sets: Vec<Vec<&Cell>> = edges
        .iter()
        .flat_map(|&edge| second.iter().map(move |c| (edge, edge(c))))
        .map(|(e, x)| aligned(e, x))
        .collect();
    aligned_sets.sort_by_key(|m| std::cmp::Reverse(m.len()));
    // The largest set that makes a column: enough rows, and no row's cell across its left edge
    // (words aligned at their left may also line up at their right, by chance, with fewer).
    let clear = |x0: f32| {
        let crosses = |c: &Cell| c.x0 < x0 - WORD_COLUMN_ALIGN && c.x1 > x0 + WORD_COLUMN_ALIGN;
        rows.iter().all(|r| !r.iter().any(crosses))
    };
    let left = |m: &[&Cell]| m.iter().map(|c| c.x0).fold(f32::MAX, f32::min);
    let members = aligned_sets
        .into_iter()
        .find(|m| m.len() >= WORD_COLUMN_ROWS && 2 * m.len() >= labelled && clear(left(m)))?;
    let x0 = left(&members);
    let x1 = members.iter().map(|c| c.x1).fold(f32::MIN, f32::max);
    Some(Column { x0, x1, lone: false, words: true })
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

/// "$20,850 Total liabilities" → ("$20,850", "Total liabilities").
fn value_then_words(text: &str) -> Option<(&str, &str)> {
    let t = text.trim();
    let (head, tail) = t.split_once(' ')?;
    (is_value(head) && tail.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !is_value(tail))
        .then_some((head, tail.trim()))
}
