//! Column headers: which header cell heads which columns.

use super::cells::is_year;
use super::{column_of, in_label_column, overlap, push_text, Column};
use crate::pdf::binding::HRule;
use crate::pdf::layout::Cell;

/// A header line's cells, with its baseline and text size.
pub(super) struct HeaderRow {
    pub y: f32,
    pub size: f32,
    pub cells: Vec<Cell>,
}

/// Lines of one label set one under the other ("% CHANGE" / "EXCLUDING" / "CURRENCY" /
/// "CHANGES", Oracle's "Accrued / May 31,") lie at most this many times their size apart. A head
/// spanning columns is set further above what it spans, or ruled off from it (Lockheed's "2022"
/// over Aeronautics … Total, 1.4 times its size above them, a rule between).
const STACKED_LEADING: f32 = 1.6;
/// How far off the middle of the heads under it a head may be set and still be centred on them,
/// as a share of their width (at least the text size).
pub(super) const CENTRED_SLACK: f32 = 0.15;

/// Column headers from the header rows (top to bottom). The row with the most cells over the
/// columns (captions in brackets left out) is the leaf row, one cell per column; a cell above it
/// heads the columns of the leaf cells it stands over ("Three Months Ended" over "2023" and
/// "2022"), or those of the cell above it that it stands under ("June 30," under "Three Months
/// Ended"). A column the leaf row leaves bare is headed by the lowest cell above over it alone.
/// A line of a label set on several lines heads the column of the line under it. A lone cell below the leaf row, or one in brackets, is
/// a caption ("(In millions)", "(Unaudited)") and goes to the label column.
pub(super) fn assign_headers(
    rows: &[HeaderRow],
    cols: &[Column],
    label_end: f32,
    size: f32,
    rules: &[HRule],
    header: &mut [String],
) {
    if rows.is_empty() {
        return;
    }
    let got = rows.iter().map(|r| vec![None; r.cells.len()]).collect();
    let mut h = Headers { rows, cols, rules, label_end, size, leaf: 0, got };
    h.leaf = h.leaf_row();
    h.place_leaf();
    h.place_bare_columns();
    h.place_stacked();
    h.place_centred();
    for pass in 0..3 {
        h.place_rest(pass);
    }
    h.settle_shared_columns();
    h.keep_words_column_to_its_heads();
    for (r, row) in rows.iter().enumerate() {
        for (ci, c) in row.cells.iter().enumerate() {
            match &h.got[r][ci] {
                Some(ks) => ks.iter().for_each(|&k| push_text(&mut header[k + 1], &c.text)),
                None => push_text(&mut header[0], &c.text),
            }
        }
    }
}

/// Whether a head names a change between periods ("% Change", "Increase/(Decrease)", "Inc/
/// (Dec)", "Variance").
fn names_a_change(text: &str) -> bool {
    let t = text.to_lowercase();
    ["change", "increase", "decrease", "variance", "inc/"].iter().any(|w| t.contains(w))
}

/// Whether a cell's text is in brackets ("(In millions)", "(Unaudited)").
pub(super) fn bracketed(text: &str) -> bool {
    let t = text.trim();
    t.starts_with('(') && t.ends_with(')')
}

/// The header rows of one table and the columns each cell is found to head (`got`).
struct Headers<'a> {
    rows: &'a [HeaderRow],
    cols: &'a [Column],
    /// The page's thin horizontal rules.
    rules: &'a [HRule],
    label_end: f32,
    size: f32,
    leaf: usize,
    got: Vec<Vec<Option<Vec<usize>>>>,
}

/// Column indices in order, each once.
fn column_set(ks: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut ks: Vec<usize> = ks.collect();
    ks.sort_unstable();
    ks.dedup();
    ks
}

impl Headers<'_> {
    /// Whether a head whose middle is `mid` is centred on what spans `x0..x1`, give or take
    /// [`CENTRED_SLACK`] of its width (at least the text size).
    fn centred(&self, mid: f32, x0: f32, x1: f32) -> bool {
        ((x0 + x1) / 2.0 - mid).abs() <= self.size.max(CENTRED_SLACK * (x1 - x0))
    }

    /// The leaf row's cell that heads column `k` alone, if any.
    fn leaf_head(&self, k: usize) -> Option<&Cell> {
        let mut leaf = self.rows[self.leaf].cells.iter().zip(&self.got[self.leaf]);
        leaf.find(|(_, g)| g.as_deref() == Some(&[k][..])).map(|(d, _)| d)
    }

    fn in_label(&self, c: &Cell) -> bool {
        in_label_column(c, self.label_end, self.size)
    }

    /// The row with the most cells heading columns (row labels' and captions in brackets, as
    /// "(in millions)" under "Amount", head none), the lowest of those that tie.
    fn leaf_row(&self) -> usize {
        let heads =
            |r: &HeaderRow| r.cells.iter().filter(|c| !bracketed(&c.text) && !self.in_label(c)).count();
        (0..self.rows.len()).max_by_key(|&r| (heads(&self.rows[r]), r)).unwrap_or(0)
    }

    /// The columns a cell stands over, give or take `margin` either side.
    fn cols_over(&self, c: &Cell, margin: f32) -> Vec<usize> {
        (0..self.cols.len())
            .filter(|&k| overlap(c.x0 - margin, c.x1 + margin, self.cols[k].x0, self.cols[k].x1) > 0.0)
            .collect()
    }

    /// The columns a cell stands over, give or take a character.
    fn cols_under(&self, c: &Cell) -> Vec<usize> {
        self.cols_over(c, self.size)
    }

    fn caption(&self, r: usize, c: &Cell) -> bool {
        (bracketed(&c.text) && !self.ends_a_head(r, c))
            || (r > self.leaf
                && self.rows[r].cells.len() == 1
                && self.cols.len() >= 2
                && self.cols_under(c).is_empty())
    }

    /// The column of the placed head right above a cell under the leaf row that it ends,
    /// centred under that head and no wider: eBay's "(Level 1)" under "Identical Assets", centred
    /// on its column's "$" and amounts but clear of the amounts themselves.
    fn last_line_under(&self, r: usize, c: &Cell) -> Option<usize> {
        let q = r.checked_sub(1).filter(|_| r > self.leaf)?;
        if self.rows[q].y - self.rows[r].y > STACKED_LEADING * self.rows[q].size {
            return None;
        }
        let (d, ks) = self.lone_placed(q, |d| overlap(c.x0, c.x1, d.x0, d.x1) > 0.0)?;
        let centred = ((c.x0 + c.x1) / 2.0 - (d.x0 + d.x1) / 2.0).abs() <= self.size;
        let narrow = c.x1 - c.x0 <= d.x1 - d.x0 + self.size;
        match ks.as_slice() {
            [k] if centred && narrow && !bracketed(&d.text) => Some(*k),
            _ => None,
        }
    }

    /// Whether a bracketed cell of the leaf row (or one under it) is the last line of the head set
    /// over it a line higher ("RETAINED / EARNINGS / (DEFICIT)", "Inc/ / (Dec)"), not a caption: the line above
    /// has a cell over it, and it stands over a column.
    fn ends_a_head(&self, r: usize, c: &Cell) -> bool {
        if self.last_line_under(r, c).is_some() {
            return true;
        }
        let Some(above) = r.checked_sub(1).map(|q| &self.rows[q]) else { return false };
        let over = self.cols_over(c, 0.0).len();
        // Under the leaf row, over one column alone and no wider than the head above it: a
        // caption under the heads ("(In millions, except par value)") is wider.
        let under_leaf = r > self.leaf && over == 1;
        (r == self.leaf && over >= 1 || under_leaf)
            && above.y - self.rows[r].y <= STACKED_LEADING * above.size
            && above.cells.iter().any(|d| {
                let narrow = !under_leaf || c.x1 - c.x0 <= d.x1 - d.x0 + self.size;
                overlap(c.x0, c.x1, d.x0, d.x1) > 0.0 && !bracketed(&d.text) && narrow
            })
    }

    /// Whether a cell heads no column of its own: it is a row label's or a caption.
    fn aside(&self, r: usize, c: &Cell) -> bool {
        self.in_label(c) || self.caption(r, c)
    }

    /// A cell of a row of several heads what lies under it and up to half way to its neighbours
    /// ("U.S. Pension Plans" over "2023 2022 2021", "International Pension Plans" over the next).
    fn reach(&self, r: usize, ci: usize) -> (f32, f32) {
        let row = &self.rows[r].cells;
        let c = &row[ci];
        if row.len() < 2 || r == self.leaf {
            return (c.x0, c.x1);
        }
        let left = (ci > 0).then(|| (c.x0 - row[ci - 1].x1).max(0.0) / 2.0);
        let right = (ci + 1 < row.len()).then(|| (row[ci + 1].x0 - c.x1).max(0.0) / 2.0);
        let (l, r) = (left.or(right).unwrap_or(0.0), right.or(left).unwrap_or(0.0));
        (c.x0 - l, c.x1 + r)
    }

    /// Row `q`'s placed cells: their extent and columns.
    fn placed_row(&self, q: usize) -> Vec<(f32, f32, Vec<usize>)> {
        self.rows[q]
            .cells
            .iter()
            .zip(&self.got[q])
            .filter_map(|(c, g)| g.as_ref().map(|ks| (c.x0, c.x1, ks.clone())))
            .collect()
    }

    /// A head over several columns reaches a column of words only where it stands over it: "Net
    /// Book Value at May 31," centred on its two years heads not "Range" beside them.
    fn keep_words_column_to_its_heads(&mut self) {
        let cols = self.cols;
        for (r, row) in self.rows.iter().enumerate() {
            for (c, got) in row.cells.iter().zip(self.got[r].iter_mut()) {
                if let Some(ks) = got.as_mut().filter(|ks| ks.len() >= 2) {
                    let over =
                        |k: &usize| !cols[*k].words || overlap(c.x0, c.x1, cols[*k].x0, cols[*k].x1) > 0.0;
                    // (A head over columns of words alone, and over none of them, keeps them.)
                    if ks.iter().any(over) {
                        ks.retain(over);
                    }
                }
            }
        }
    }

    /// The leaf row's cells head their column; one over several columns heads them all
    /// ("Percent of Revenue" over its "2023" and "2022", set a line lower). Under the leaf row, a
    /// cell over a column is that column's lowest header line.
    fn place_leaf(&mut self) {
        let leaf = self.leaf;
        for (ci, c) in self.rows[leaf].cells.iter().enumerate() {
            if !self.aside(leaf, c) {
                let spanned = self.cols_over(c, 0.0);
                self.got[leaf][ci] =
                    Some(if spanned.len() >= 2 { spanned } else { vec![column_of(c, self.cols)] });
            }
        }
        for r in leaf + 1..self.rows.len() {
            for (ci, c) in self.rows[r].cells.iter().enumerate() {
                if let Some(k) = self.last_line_under(r, c) {
                    self.got[r][ci] = Some(vec![k]);
                } else if !self.aside(r, c) && !self.cols_under(c).is_empty() {
                    self.got[r][ci] = Some(vec![column_of(c, self.cols)]);
                }
            }
        }
    }

    /// A column the leaf row leaves bare takes its head from the lowest line above the leaf row
    /// with a cell over that column alone: heads set top-aligned, the leaf row being the lowest
    /// line of other columns' taller heads (FedEx's "2023  2022" under "May 31," beside "Interest
    /// Rate %  Maturity", a line lower).
    fn place_bare_columns(&mut self) {
        let leaf = self.leaf;
        let mut headed: Vec<bool> = vec![false; self.cols.len()];
        for ks in self.got[leaf].iter().flatten() {
            ks.iter().for_each(|&k| headed[k] = true);
        }
        for r in (0..leaf).rev() {
            for ci in 0..self.rows[r].cells.len() {
                let c = &self.rows[r].cells[ci];
                if self.aside(r, c) {
                    continue;
                }
                if let [k] = self.cols_over(c, 0.0).as_slice() {
                    if !headed[*k] {
                        headed[*k] = true;
                        self.got[r][ci] = Some(vec![*k]);
                    }
                }
            }
        }
    }

    /// A cell above the leaf row set a line above one placed cell, centred on it, over no other
    /// cell of its row and no column but its, is a line of the same label ("% CHANGE" / "EXCLUDING" /
    /// "CURRENCY" over "CHANGES"; "Cessna" over "SkyCourier 408") and heads its columns. Rows
    /// are placed from the bottom up, so a label of three lines is placed line by line.
    fn place_stacked(&mut self) {
        for r in (0..self.leaf).rev() {
            for ci in 0..self.rows[r].cells.len() {
                let c = &self.rows[r].cells[ci];
                if self.got[r][ci].is_none() && !self.aside(r, c) {
                    self.got[r][ci] = self.stacked_on(r, c);
                }
            }
        }
    }

    /// The one cell of row `q` that `keep` keeps, with the columns it was found to head; `None`
    /// where it keeps none or several, or the one it keeps heads nothing yet.
    fn lone_placed(&self, q: usize, keep: impl Fn(&Cell) -> bool) -> Option<(&Cell, &Vec<usize>)> {
        let mut kept = self.rows[q].cells.iter().zip(&self.got[q]).filter(|(d, _)| keep(d));
        match (kept.next(), kept.next()) {
            (Some((d, Some(ks))), None) => Some((d, ks)),
            _ => None,
        }
    }

    /// The columns of the placed cell that `c` (of row `r`) is the line above of, if any.
    fn stacked_on(&self, r: usize, c: &Cell) -> Option<Vec<usize>> {
        let (y, size) = (self.rows[r].y, self.rows[r].size);
        // A cell right under it, footnote marks left out.
        let beneath = |d: &Cell| overlap(c.x0, c.x1, d.x0, d.x1) > 0.0 && !bracketed(&d.text);
        let under_it = |q: usize| self.rows[q].y < y && self.rows[q].cells.iter().any(beneath);
        // The nearest row under it with a cell under it; footnote marks set between ("May 31, /
        // (2) / 2022") are passed over, the leading allowed their size.
        let q = (r + 1..self.rows.len())
            .filter(|&q| under_it(q))
            .min_by(|&a, &b| self.rows[b].y.total_cmp(&self.rows[a].y))?;
        let marks: f32 = (r + 1..self.rows.len())
            .filter(|&m| {
                let row = &self.rows[m];
                row.y > self.rows[q].y && row.y < y && row.cells.iter().all(|d| bracketed(&d.text))
            })
            .map(|m| self.rows[m].size)
            .sum();
        if y - self.rows[q].y > STACKED_LEADING * size + marks {
            return None;
        }
        // A rule between it and the line under it, running past it, rules a spanning head off
        // from the heads it spans.
        let ruled_off = self.rules.iter().any(|h| {
            h.y < y
                && h.y > self.rows[q].y
                && overlap(h.x0, h.x1, c.x0, c.x1) > 0.0
                && h.x1 - h.x0 > c.x1 - c.x0 + size
        });
        if ruled_off {
            return None;
        }
        let (d, ks) = self.lone_placed(q, beneath)?;
        let mid = (c.x0 + c.x1) / 2.0;
        let centred = mid >= d.x0 - size / 2.0 && mid <= d.x1 + size / 2.0;
        (centred && self.cols_over(c, 0.0).iter().all(|k| ks.contains(k))).then(|| ks.clone())
    }

    /// A lone cell above the leaf row, centred over the columns ("Years ended"), heads them all,
    /// unless it is the upper line of one column's header whose rest lies under the leaf row
    /// ("Percent" over "Change" where the leaf row is "2023 2022 Percent of Revenue" and
    /// "Change" sits a point under it).
    fn place_centred(&mut self) {
        let cols = self.cols;
        if cols.len() < 2 {
            return;
        }
        let (c_first, c_last) = (cols[0].x0 + cols[0].x1, cols[cols.len() - 1].x0 + cols[cols.len() - 1].x1);
        let q = (c_last - c_first) / 6.0;
        for r in 0..self.leaf {
            if let [c] = self.rows[r].cells.as_slice() {
                if self.got[r][0].is_some() || self.aside(r, c) || self.upper_line_of_column(c) {
                    continue;
                }
                let mid = c.x0 + c.x1;
                if let Some(ks) = self.change_over(c).or_else(|| self.centred_over(r, c)) {
                    self.got[r][0] = Some(ks);
                } else if let Some(ks) = self.top_line_of_a_head(r, c) {
                    self.got[r][0] = Some(ks);
                } else if mid >= c_first + q && mid <= c_last - q {
                    self.got[r][0] = Some((0..cols.len()).collect());
                }
            }
        }
    }

    /// A head naming a change ("Percent Change", "Increase (Decrease)") set over the middle of
    /// the leaf row heads the run of leaf cells naming no year that it is centred on (Oracle's
    /// "Actual  Constant" between "2023" and "2022"), not the years beside them; over years alone
    /// (a change per year) it is left to the other rules.
    fn change_over(&self, c: &Cell) -> Option<Vec<usize>> {
        if !names_a_change(&c.text) {
            return None;
        }
        let leaf: Vec<(&Cell, &Vec<usize>)> = self.rows[self.leaf]
            .cells
            .iter()
            .zip(&self.got[self.leaf])
            .filter_map(|(d, ks)| Some((d, ks.as_ref()?)))
            .collect();
        let mid = (c.x0 + c.x1) / 2.0;
        leaf.split(|(d, _)| is_year(&d.text)).filter(|run| !run.is_empty()).find_map(|run| {
            let (x0, x1) = (run.first()?.0.x0, run.last()?.0.x1);
            self.centred(mid, x0, x1).then(|| column_set(run.iter().flat_map(|(_, ks)| ks.iter().copied())))
        })
    }

    /// The columns under a cell whose heads the leaf row left bare, or whose heads are set on
    /// several lines, where their top lines are the line under it and it is centred on them, give
    /// or take [`CENTRED_SLACK`]: "May 31," over "2023  2022", not over the rate and maturity
    /// columns headed a line lower; Adobe's "Operating Leases" over "Future / Minimum / Lease /
    /// Payments" and "… Sublease Income", not over "Purchase / Obligations" beside them.
    fn centred_over(&self, r: usize, c: &Cell) -> Option<Vec<usize>> {
        let q = r + 1;
        if q >= self.leaf || self.rows[r].y - self.rows[q].y > STACKED_LEADING * self.rows[r].size {
            return None;
        }
        // Placed so far above the leaf row: heads of bare columns and upper lines of stacked heads.
        let cells: Vec<(&Cell, &Vec<usize>)> = (self.rows[q].cells.iter().zip(&self.got[q]))
            .filter_map(|(d, ks)| Some((d, ks.as_ref()?)))
            .collect();
        let (x0, x1) = (cells.first()?.0.x0, cells.last()?.0.x1);
        let mid = (c.x0 + c.x1) / 2.0;
        // Centred on the whole leaf row as well, it heads every column ("Payment Due by Period"
        // over "Total" and the periods, "Less than … More than" a line under it).
        let leaf = self.placed_row(self.leaf);
        let whole = leaf.first().zip(leaf.last()).is_some_and(|(a, b)| self.centred(mid, a.0, b.1));
        if !self.centred(mid, x0, x1) || whole {
            return None;
        }
        let (lo, hi) = cells
            .iter()
            .flat_map(|(_, ks)| ks.iter())
            .fold((usize::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)));
        (lo <= hi).then(|| (lo..=hi).collect())
    }

    /// The column of the head a lone cell is the top line of, set a little further above it than
    /// the head's own lines are apart (eBay's "Quoted Prices in" over "Active Markets for /
    /// Identical Assets / (Level 1)"): the line under it has one cell under it, heading one column,
    /// centred under it and about as wide, and it is not centred on the leaf row as a whole.
    fn top_line_of_a_head(&self, r: usize, c: &Cell) -> Option<Vec<usize>> {
        let (y, size) = (self.rows[r].y, self.rows[r].size);
        let q = r + 1;
        self.rows.get(q).filter(|row| y - row.y <= 2.0 * STACKED_LEADING * size)?;
        let (d, ks) = self.lone_placed(q, |d| overlap(c.x0, c.x1, d.x0, d.x1) > 0.0)?;
        let (wc, wd) = (c.x1 - c.x0, d.x1 - d.x0);
        let mid = (c.x0 + c.x1) / 2.0;
        let centred = (mid - (d.x0 + d.x1) / 2.0).abs() <= size;
        // Centred on the leaf row's heads too ("Years ended" over the middle year of three), it
        // heads them all.
        let leaf = self.rows[self.leaf].cells.iter().zip(&self.got[self.leaf]).filter(|(_, g)| g.is_some());
        let (l0, l1) = leaf.fold((f32::MAX, f32::MIN), |(a, b), (e, _)| (a.min(e.x0), b.max(e.x1)));
        let over_all = (mid - (l0 + l1) / 2.0).abs() <= size;
        (ks.len() == 1 && centred && !over_all && wc <= wd + 2.0 * size && wd <= wc + 2.0 * size)
            .then(|| ks.clone())
    }

    /// Whether a cell over one column has its header go on in a lone cell under the leaf row.
    fn upper_line_of_column(&self, c: &Cell) -> bool {
        match self.cols_under(c).as_slice() {
            [k] => (self.leaf + 1..self.rows.len())
                .any(|r| matches!(self.rows[r].cells.as_slice(), [d] if self.cols_under(d).contains(k))),
            _ => false,
        }
    }

    /// The cells still unplaced: over leaf cells first (pass 0, from the leaf row up, so a head
    /// sees the spanning heads placed under it), then under or over cells already placed, nearest
    /// rows first (pass 1), then the column nearest to each (pass 2).
    fn place_rest(&mut self, pass: usize) {
        let leaf = self.leaf;
        for r in (0..leaf).rev().chain(leaf + 1..self.rows.len()) {
            for ci in 0..self.rows[r].cells.len() {
                let c = &self.rows[r].cells[ci];
                if self.got[r][ci].is_some() || self.aside(r, c) {
                    continue;
                }
                let ks = match pass {
                    // Over the leaf row's cells and the lines of one column's head below it (a
                    // period over "EPS / (Diluted / US / cents)" set lower than the leaf row).
                    0 if r < self.leaf => {
                        // "COMMON STOCK" over "CLASS A" and "CLASS B", each over its shares and
                        // amount, heads all four.
                        let below: Vec<_> = (r + 1..self.rows.len())
                            .flat_map(|q| {
                                self.placed_row(q).into_iter().filter(move |p| q <= leaf || p.2.len() == 1)
                            })
                            .collect();
                        let ks = self.over(c, self.reach(r, ci), &below);
                        self.widened_to_centre(r, ci, ks)
                    }
                    0 => self.over(c, self.reach(r, ci), &self.placed_row(self.leaf)),
                    1 => {
                        let mut near: Vec<usize> = (0..self.rows.len()).filter(|&q| q != r).collect();
                        near.sort_by_key(|&q| (q as i64 - r as i64).abs());
                        near.iter()
                            .map(|&q| self.over(c, self.reach(r, ci), &self.placed_row(q)))
                            .find(|v| !v.is_empty())
                            .unwrap_or_default()
                    }
                    _ => vec![column_of(c, self.cols)],
                };
                if !ks.is_empty() {
                    self.got[r][ci] = Some(ks);
                }
            }
            if pass == 0 && r < leaf {
                // The heads above see this row's spans settled.
                self.settle_row(r);
            }
        }
    }

    /// The columns `ks` that the cell `ci` of row `r` (one of several) reaches, widened by a leaf
    /// head or two beside them, none under another cell of the row, where the cell is centred on
    /// the wider run and not on theirs: Oracle's "Year Ended May 31, 2023", centred over "Initial
    /// Costs" to "Others", reaches half way to the "Accrued" beside it and falls short of "Initial
    /// Costs".
    fn widened_to_centre(&self, r: usize, ci: usize, ks: Vec<usize>) -> Vec<usize> {
        let c = &self.rows[r].cells[ci];
        let leaf = self.placed_row(self.leaf);
        let inside = |p: &(f32, f32, Vec<usize>)| !p.2.is_empty() && p.2.iter().all(|k| ks.contains(k));
        let (Some(first), Some(last)) = (leaf.iter().position(inside), leaf.iter().rposition(inside)) else {
            return ks;
        };
        let mid = (c.x0 + c.x1) / 2.0;
        let off = |a: usize, b: usize| (leaf[a].0 + leaf[b].1) / 2.0 - mid;
        let centred = |a: usize, b: usize| self.centred(mid, leaf[a].0, leaf[b].1);
        // A leaf head another cell of the row stands over, or whose column it heads.
        let taken = |i: usize| {
            let p = &leaf[i];
            self.rows[r].cells.iter().zip(&self.got[r]).enumerate().any(|(cj, (d, g))| {
                cj != ci
                    && (overlap(d.x0, d.x1, p.0, p.1) > 0.0
                        || g.as_ref().is_some_and(|g| p.2.iter().any(|k| g.contains(k))))
            })
        };
        if self.rows[r].cells.len() < 2 || centred(first, last) {
            return ks;
        }
        let (mut a, mut b) = (first, last);
        for _ in 0..2 {
            if off(a, b) > 0.0 && a > 0 && !taken(a - 1) {
                a -= 1;
            } else if off(a, b) < 0.0 && b + 1 < leaf.len() && !taken(b + 1) {
                b += 1;
            } else {
                break;
            }
            if centred(a, b) {
                return column_set(leaf[a..=b].iter().flat_map(|p| p.2.iter().copied()).chain(ks));
            }
        }
        ks
    }

    /// Where two spanning cells of one row both head a column at the end of their spans, it
    /// goes to the one it centres better, as a share of the span: Oracle's "Intangible Assets,
    /// Net", reaching half way to "Accumulated Amortization", gives up the latter's last column.
    fn settle_shared_columns(&mut self) {
        let leaf = self.leaf;
        for r in (0..self.rows.len()).filter(|&r| r != leaf) {
            self.settle_row(r);
        }
    }

    /// [`Headers::settle_shared_columns`] for row `r`; and a change column that the cell after
    /// it reaches first, half way between two periods, stands with the periods before it, whose
    /// change it is (eBay's first "% Change", a point nearer "Six Months Ended" than "Three").
    fn settle_row(&mut self, r: usize) {
        for ci in 1..self.got[r].len() {
            let (Some(before), Some(after)) = (&self.got[r][ci - 1], &self.got[r][ci]) else { continue };
            let (Some(&last), Some(&first)) = (before.last(), after.first()) else { continue };
            let change = self.leaf_head(first).is_some_and(|d| names_a_change(&d.text));
            if change && first == last + 1 && after.len() >= 2 {
                if let Some(a) = self.got[r][ci].as_mut() {
                    a.remove(0);
                }
                if let Some(b) = self.got[r][ci - 1].as_mut() {
                    b.push(first);
                }
            }
        }
        for k in 0..self.cols.len() {
            let claims: Vec<usize> = (0..self.got[r].len())
                .filter(|&ci| self.got[r][ci].as_ref().is_some_and(|ks| ks.len() >= 2 && ks.contains(&k)))
                .collect();
            if claims.len() < 2 {
                continue;
            }
            // How much better centred each claimant is with the column than without it.
            let gain = |ci: usize| {
                let ks = self.got[r][ci].as_deref().unwrap_or_default();
                let without: Vec<usize> = ks.iter().copied().filter(|&j| j != k).collect();
                self.off_centre(&self.rows[r].cells[ci], &without)
                    - self.off_centre(&self.rows[r].cells[ci], ks)
            };
            let Some(keep) = claims.iter().copied().max_by(|&a, &b| gain(a).total_cmp(&gain(b))) else {
                continue;
            };
            for ci in claims.into_iter().filter(|&ci| ci != keep) {
                if let Some(ks) = self.got[r][ci].as_mut() {
                    if ks.first() == Some(&k) || ks.last() == Some(&k) {
                        ks.retain(|&j| j != k);
                    }
                }
            }
        }
    }

    /// How far a cell's middle lies off the middle of the heads of columns `ks`, as a share of
    /// their width: each column's head is the leaf cell over it alone, or the column itself.
    fn off_centre(&self, c: &Cell, ks: &[usize]) -> f32 {
        let extent =
            |k: usize| self.leaf_head(k).map_or((self.cols[k].x0, self.cols[k].x1), |d| (d.x0, d.x1));
        let (x0, x1) = ks
            .iter()
            .map(|&k| extent(k))
            .fold((f32::MAX, f32::MIN), |(a, b), (x0, x1)| (a.min(x0), b.max(x1)));
        if x1 <= x0 {
            return f32::MAX;
        }
        ((x0 + x1) / 2.0 - (c.x0 + c.x1) / 2.0).abs() / (x1 - x0)
    }

    /// The columns of the placed cells a cell stands over: those it overlaps, and those whose
    /// middle lies within its reach.
    fn over(&self, c: &Cell, (x0, x1): (f32, f32), row: &[(f32, f32, Vec<usize>)]) -> Vec<usize> {
        let over = row.iter().filter(|(a0, a1, _)| {
            let mid = (a0 + a1) / 2.0;
            overlap(c.x0, c.x1, a0 - 1.0, a1 + 1.0) > 0.0 || (mid >= x0 && mid <= x1)
        });
        column_set(over.flat_map(|(_, _, ks)| ks.iter().copied()))
    }
}
