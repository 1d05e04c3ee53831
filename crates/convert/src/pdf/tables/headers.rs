//! Column headers: which header cell heads which columns.

use super::{column_of, overlap, push_text, Column};
use crate::pdf::layout::Cell;

/// Column headers from the header rows (top to bottom). The row with the most cells is the
/// leaf row, one cell per column; a cell above it heads the columns of the leaf cells it stands
/// over ("Three Months Ended" over "2023" and "2022"), or those of the cell above it that it
/// stands under ("June 30," under "Three Months Ended"). A lone cell below the leaf row, or one
/// in brackets, is a caption ("(In millions)", "(Unaudited)") and goes to the label column.
pub(super) fn assign_headers(
    rows: &[Vec<Cell>],
    cols: &[Column],
    label_end: f32,
    size: f32,
    header: &mut [String],
) {
    let Some(leaf) = (0..rows.len()).max_by_key(|&r| (rows[r].len(), r)) else { return };
    let in_label = |c: &Cell| c.x0 <= label_end + 0.5 * size;
    // The columns a cell stands over, give or take `margin` either side.
    let cols_over = |c: &Cell, margin: f32| -> Vec<usize> {
        (0..cols.len())
            .filter(|&k| overlap(c.x0 - margin, c.x1 + margin, cols[k].x0, cols[k].x1) > 0.0)
            .collect()
    };
    // Give or take a character.
    let cols_under = |c: &Cell| cols_over(c, size);
    let caption = |r: usize, c: &Cell| {
        let t = c.text.trim();
        (t.starts_with('(') && t.ends_with(')'))
            || (r > leaf && rows[r].len() == 1 && cols.len() >= 2 && cols_under(c).is_empty())
    };
    // A cell of a row of several heads what lies under it and up to half way to its neighbours
    // ("U.S. Pension Plans" over "2023 2022 2021", "International Pension Plans" over the next).
    let reach = |r: usize, ci: usize| -> (f32, f32) {
        let row = &rows[r];
        let c = &row[ci];
        if row.len() < 2 || r == leaf {
            return (c.x0, c.x1);
        }
        let left = (ci > 0).then(|| (c.x0 - row[ci - 1].x1).max(0.0) / 2.0);
        let right = (ci + 1 < row.len()).then(|| (row[ci + 1].x0 - c.x1).max(0.0) / 2.0);
        let (l, r) = (left.or(right).unwrap_or(0.0), right.or(left).unwrap_or(0.0));
        (c.x0 - l, c.x1 + r)
    };
    // The columns of the placed cells a cell stands over: those it overlaps, and those whose
    // middle lies within its reach.
    let over = |c: &Cell, (x0, x1): (f32, f32), row: &[(f32, f32, Vec<usize>)]| -> Vec<usize> {
        let mut ks: Vec<usize> = row
            .iter()
            .filter(|(a0, a1, _)| {
                let mid = (a0 + a1) / 2.0;
                overlap(c.x0, c.x1, a0 - 1.0, a1 + 1.0) > 0.0 || (mid >= x0 && mid <= x1)
            })
            .flat_map(|(_, _, ks)| ks.iter().copied())
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    };
    // Each cell's columns: over leaf cells first, then under or over cells already placed
    // (nearest rows first), then the column nearest to it.
    let mut got: Vec<Vec<Option<Vec<usize>>>> = rows.iter().map(|r| vec![None; r.len()]).collect();
    for (ci, c) in rows[leaf].iter().enumerate() {
        if !in_label(c) && !caption(leaf, c) {
            // A leaf cell over several columns heads them all ("Percent of Revenue" over its
            // "2023" and "2022", set a line lower).
            let spanned = cols_over(c, 0.0);
            got[leaf][ci] = Some(if spanned.len() >= 2 { spanned } else { vec![column_of(c, cols)] });
        }
    }
    // A lone cell above the leaf row, centred over the columns ("Years ended"), heads them all.
    let (c_first, c_last) = (cols[0].x0 + cols[0].x1, cols[cols.len() - 1].x0 + cols[cols.len() - 1].x1);
    // One over a single column whose header goes on in a lone cell under the leaf row is that
    // column's upper line ("Percent" over "Change" where the leaf row is "2023 2022 Percent of
    // Revenue" and "Change" sits a point under it).
    let stacked = |c: &Cell| match cols_under(c).as_slice() {
        [k] => (leaf + 1..rows.len()).any(|r| matches!(rows[r].as_slice(), [d] if cols_under(d).contains(k))),
        _ => false,
    };
    for r in 0..leaf {
        if let [c] = rows[r].as_slice() {
            let mid = c.x0 + c.x1;
            let q = (c_last - c_first) / 6.0;
            if cols.len() >= 2
                && !in_label(c)
                && !caption(r, c)
                && !stacked(c)
                && mid >= c_first + q
                && mid <= c_last - q
            {
                got[r][0] = Some((0..cols.len()).collect());
            }
        }
    }
    for pass in 0..3 {
        for r in (0..rows.len()).filter(|&r| r != leaf) {
            for (ci, c) in rows[r].iter().enumerate() {
                if got[r][ci].is_some() || in_label(c) || caption(r, c) {
                    continue;
                }
                let placed_row = |q: usize| -> Vec<(f32, f32, Vec<usize>)> {
                    rows[q]
                        .iter()
                        .zip(&got[q])
                        .filter_map(|(c, g)| g.as_ref().map(|ks| (c.x0, c.x1, ks.clone())))
                        .collect()
                };
                let ks = match pass {
                    // Under the leaf row, a cell over a column is that column's lowest header line.
                    0 if r > leaf && !cols_under(c).is_empty() => vec![column_of(c, cols)],
                    0 => over(c, reach(r, ci), &placed_row(leaf)),
                    1 => {
                        let mut near: Vec<usize> = (0..rows.len()).filter(|&q| q != r).collect();
                        near.sort_by_key(|&q| (q as i64 - r as i64).abs());
                        near.iter()
                            .map(|&q| over(c, reach(r, ci), &placed_row(q)))
                            .find(|v| !v.is_empty())
                            .unwrap_or_default()
                    }
                    _ => vec![column_of(c, cols)],
                };
                if !ks.is_empty() {
                    got[r][ci] = Some(ks);
                }
            }
        }
    }
    for (r, row) in rows.iter().enumerate() {
        for (ci, c) in row.iter().enumerate() {
            match &got[r][ci] {
                Some(ks) => ks.iter().for_each(|&k| push_text(&mut header[k + 1], &c.text)),
                None => push_text(&mut header[0], &c.text),
            }
        }
    }
}
