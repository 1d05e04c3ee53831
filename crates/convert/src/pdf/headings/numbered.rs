//! The levels numbering gives: the keyword ranks a document uses, in order, are levels 1, 2, …;
//! decimal numbers go below the keyword heading whose number they extend; a numbered run that
//! opens right under an unnumbered heading nests under it; a lone plain number is no numbering.
//! [`Numbered::inside`] says which numbered division each block lies in.

use super::super::blocks::{Blk, BlkKind, Ctx};
use super::super::titles::is_contents_word;
use super::candidates::Cands;
use super::numbering::{in_sequence, lone_container_rank, NumInfo};
use super::statements::{statement_part, StatementPart};
use std::collections::HashMap;

/// What the numbering says of each block's level.
pub(super) struct Numbered {
    /// The level numbering (or a structure tree's heading role) gives.
    pub levels: Vec<Option<u8>>,
    /// For a block of a numbered run that opens under an unnumbered heading: that heading, and the
    /// level the run's first heading took.
    pub run_parent: Vec<Option<(usize, u8)>>,
}

impl Numbered {
    /// For each block, the level of the numbered division it lies inside, where the numbering
    /// says so: the last numbered heading before it (not one of a run nested under an unnumbered
    /// heading) when the next numbered heading at that level or above is at that same level. What
    /// lies between two headings of one numbered sequence (Item 8 … Item 9) is inside the first,
    /// however large its type: a balance sheet's title set above the Items' face is Item 8's.
    pub(super) fn inside(&self) -> Vec<Option<u8>> {
        let n = self.levels.len();
        let standing = |j: usize| self.levels[j].filter(|_| self.run_parent[j].is_none());
        // For each standing heading, the level of the next one at its level or above (a stack of
        // the headings still waiting for theirs, deepest on top): linear in the blocks.
        let mut closed_by: Vec<Option<u8>> = vec![None; n];
        let mut waiting: Vec<(usize, u8)> = Vec::new();
        for k in 0..n {
            let Some(lv) = standing(k) else { continue };
            while let Some(&(j, l)) = waiting.last() {
                if lv > l {
                    break;
                }
                closed_by[j] = Some(lv);
                waiting.pop();
            }
            waiting.push((k, lv));
        }
        // A block's division is the last standing heading before it; the first standing heading
        // after the block at that level or above is the one that closes that heading.
        let mut out = vec![None; n];
        let mut last: Option<(u8, Option<u8>)> = None;
        for k in 0..n {
            if let Some(lv) = standing(k) {
                last = Some((lv, closed_by[k]));
            } else if let Some((l, Some(next))) = last {
                out[k] = (next == l).then_some(l);
            }
        }
        out
    }

    /// Extends [`Numbered::inside`] past the last numbered division of the top level, which
    /// runs to the end of the document: what follows it (up to the next numbered heading) is
    /// inside it where it is set in a style that lay inside the division before it, itself set as
    /// the last is (each certification's title under its label, "Exhibit 31.01" to "Exhibit 32.02":
    /// the last certification's too). A deeper division's last runs to its parent's end, which
    /// the page does not show (a 10-K's signatures after Item 16 are Part IV's, not the Item's):
    /// those are left as they are. `style` is a block's style, `None` for a block that is no
    /// candidate.
    pub(super) fn extend_last_division<K: Eq + std::hash::Hash>(
        &self,
        inside: &mut [Option<u8>],
        style: impl Fn(usize) -> Option<K>,
    ) {
        let standing = |j: usize| self.levels[j].filter(|_| self.run_parent[j].is_none());
        let mut tops = (0..self.levels.len()).rev().filter(|&j| standing(j) == Some(1));
        let (Some(last), Some(prev)) = (tops.next(), tops.next()) else { return };
        if style(prev).is_none() || style(prev) != style(last) {
            return;
        }
        let within: std::collections::HashSet<K> =
            (prev + 1..last).filter(|&k| inside[k] == Some(1)).filter_map(&style).collect();
        for (k, slot) in inside.iter_mut().enumerate().skip(last + 1) {
            if standing(k).is_some() {
                break;
            }
            if style(k).is_some_and(|s| within.contains(&s)) {
                *slot = Some(1);
            }
        }
    }
}

/// Levels from numbering: the keyword ranks the document uses, in order, are levels 1, 2, …;
/// decimal numbers go below the keyword heading whose number they extend.
pub(super) fn numbering_levels(ctx: &Ctx, blocks: &[Blk], cands: &Cands) -> Numbered {
    let mut ranks: Vec<u8> = Vec::new();
    for (b, c) in blocks.iter().zip(cands) {
        let Some(c) = c else { continue };
        let rank = if b.kind == BlkKind::Heading {
            b.num_level
        } else {
            c.info.as_ref().and_then(|i| i.rank).or_else(|| lone_container_rank(&b.text))
        };
        ranks.extend(rank);
    }
    ranks.sort_unstable();
    ranks.dedup();
    let kw_level =
        |rank: u8| -> u8 { ranks.iter().position(|r| *r == rank).map(|p| p as u8 + 1).unwrap_or(1) };
    let max_kw = ranks.len() as u8;
    let mut current_kw: Option<(u8, String)> = None; // (level, number)
    let mut levels: Vec<Option<u8>> = vec![None; blocks.len()];
    // Ranks whose current run nests one level under an unnumbered heading: the heading, and the
    // level the run's first heading takes.
    let mut nested: HashMap<u8, (usize, u8)> = HashMap::new();
    let mut run_parent: Vec<Option<(usize, u8)>> = vec![None; blocks.len()];
    // The current run of plain numbers nested under an unnumbered heading: that heading, and the
    // level the run's first heading takes.
    let mut plain_run: Option<(usize, u8)> = None;
    let lone = lone_plain_numbers(cands);
    for k in 0..blocks.len() {
        let Some(cand) = &cands[k] else { continue };
        let b = &blocks[k];
        if b.kind == BlkKind::Heading {
            if let Some(r) = b.num_level {
                plain_run = None;
                let lv = kw_level(r);
                levels[k] = Some(lv);
                current_kw = Some((lv, b.number.clone().unwrap_or_default()));
            }
            continue;
        }
        let Some(inf) = &cand.info else {
            if let Some(r) = lone_container_rank(&b.text) {
                plain_run = None;
                let lv = kw_level(r);
                levels[k] = Some(lv);
                nested.retain(|&rank, _| rank <= r);
                current_kw = Some((lv, String::new()));
            }
            continue;
        };
        if let Some(r) = inf.rank {
            plain_run = None;
            // A run of numbered headings that opens right under an unnumbered heading set at
            // least as prominently ("Notes to Consolidated Financial Statements", then "Note 1 –")
            // nests under it, down to the next heading of a higher rank.
            nested.retain(|&rank, _| rank <= r);
            if inf.tokens.first().map(String::as_str) == Some("1") {
                match opening_parent(ctx, blocks, cands, k) {
                    Some(j) => nested.insert(r, (j, kw_level(r) + 1)),
                    None => nested.remove(&r),
                };
            }
            let run = nested.get(&r).copied();
            run_parent[k] = run;
            let lv = run.map(|(_, base)| base).unwrap_or_else(|| kw_level(r));
            levels[k] = Some(lv + inf.depth.saturating_sub(1) as u8);
            current_kw = Some((lv, inf.tokens.first().cloned().unwrap_or_default()));
        } else if inf.plain_decimal && !lone[k] {
            let plain = PlainNumber { info: inf, current_kw: current_kw.as_ref(), max_kw };
            let (level, parent) = plain.level(ctx, blocks, cands, k, &mut plain_run);
            levels[k] = Some(level);
            run_parent[k] = parent;
        }
    }
    // A structure tree's heading role overrides the numbering.
    for (level, c) in levels.iter_mut().zip(cands) {
        if let Some(tag) = c.as_ref().and_then(|c| c.tag) {
            *level = Some(tag);
        }
    }
    Numbered { levels, run_parent }
}

/// The candidates whose number is one plain number, with no dot after it, that no other plain
/// number continues or is continued by ("942 South Shady Grove Road", a cover's address; "14 CFR
/// Part 39", a citation): a number is a heading's only where a sequence or the dot of a section
/// number shows it ("1." then "2.", "7" then "7.1", "15."); the type places such a line.
fn lone_plain_numbers(cands: &Cands) -> Vec<bool> {
    let plain: Vec<(usize, &NumInfo)> = cands
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.as_ref()?.info.as_ref().filter(|i| i.plain_decimal).map(|i| (k, i)))
        .collect();
    let mut lone = vec![false; cands.len()];
    for (i, &(k, info)) in plain.iter().enumerate() {
        let after = i.checked_sub(1).is_some_and(|p| in_sequence(&plain[p].1.tokens, &info.tokens));
        let before = plain.get(i + 1).is_some_and(|(_, next)| in_sequence(&info.tokens, &next.tokens));
        lone[k] = info.depth == 1 && !info.trailing_dot && !after && !before;
    }
    lone
}

/// A plain number ("7.1", "15.") where the numbering stands: the keyword heading last met (its
/// level and number) and how many keyword ranks the document uses.
struct PlainNumber<'a> {
    info: &'a NumInfo,
    current_kw: Option<&'a (u8, String)>,
    max_kw: u8,
}

impl PlainNumber<'_> {
    /// Block `k`'s level, and the heading its run nests under, if any; `run` is the current run
    /// of plain numbers nested under an unnumbered heading, which a "1." may open.
    fn level(
        &self,
        ctx: &Ctx,
        blocks: &[Blk],
        cands: &Cands,
        k: usize,
        run: &mut Option<(usize, u8)>,
    ) -> (u8, Option<(usize, u8)>) {
        let d = self.info.depth as u8;
        // "7.1" under "Item 7" extends the Item's number; "15." after "Item 15" is a numbered
        // heading of its own (a Note), not the Item again.
        let extends = |num: &String| d >= 2 && self.info.tokens.first() == Some(num);
        let own = match self.current_kw {
            Some((lv, num)) if extends(num) => lv + d - 1,
            Some(_) => self.max_kw + d,
            None => d,
        };
        if self.current_kw.is_some_and(|(_, num)| extends(num)) {
            return (own, None);
        }
        // Below a keyword heading, a run of plain numbers that opens right under an unnumbered
        // heading ("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS", then "1. ORGANIZATION …") nests
        // under it, as a keyword run does, until a keyword heading ends it. (A document numbered
        // plainly throughout keeps its numbers' own levels.)
        if d == 1 && self.info.tokens.first().map(String::as_str) == Some("1") {
            *run = self
                .current_kw
                .and(opening_parent(ctx, blocks, cands, k))
                .filter(|&j| !is_contents_word(&blocks[j].text))
                .map(|j| (j, own));
        }
        (run.map(|(_, base)| base + d - 1).unwrap_or(own), *run)
    }
}

/// The unnumbered heading right before block `k` that a numbered run opening at `k` nests under:
/// a candidate with no number of its own, found by typography (not a merged label, not a
/// contents entry), set at least as large as the run's first heading. A statement is no such
/// heading: Notes that follow the last statement with no title of their own are not parts of it.
/// Nor is the document's title, its first heading on its first page ("FORM 10-Q" over a filing
/// whose contents page is missing): it names the document, and its Parts are no run under it.
fn opening_parent(ctx: &Ctx, blocks: &[Blk], cands: &Cands, k: usize) -> Option<usize> {
    let prev = (0..k).rev().find(|&j| cands[j].is_some())?;
    let title = blocks[prev].pages.start == 1 && cands[..prev].iter().all(Option::is_none);
    if title {
        return None;
    }
    let size = |j: usize| ctx.style_key(&ctx.lines[blocks[j].lines[0]]).0;
    let statement = statement_part(&blocks[prev].text).is_some_and(|p| p != StatementPart::NotesTitle);
    (cands[prev].as_ref().is_some_and(|c| c.info.is_none())
        && blocks[prev].kind != BlkKind::Heading
        && blocks[prev].declared.is_none()
        && !statement
        && size(prev) >= size(k))
    .then_some(prev)
}

#[cfg(test)]
mod tests {
    use super::Numbered;
    use proptest::prelude::*;

    fn numbered(levels: &[Option<u8>], nested: &[bool]) -> Numbered {
        Numbered {
            levels: levels.to_vec(),
            run_parent: nested.iter().map(|&n| n.then_some((0, 1))).collect(),
        }
    }

    /// The definition, scanned forward from each block.
    fn inside_by_scanning(n: &Numbered) -> Vec<Option<u8>> {
        let standing = |j: usize| n.levels[j].filter(|_| n.run_parent[j].is_none());
        (0..n.levels.len())
            .map(|k| {
                if standing(k).is_some() {
                    return None;
                }
                let l = (0..k).rev().find_map(standing)?;
                let next = (k + 1..n.levels.len()).filter_map(standing).find(|&lv| lv <= l)?;
                (next == l).then_some(l)
            })
            .collect()
    }

    #[test]
    fn between_two_items_is_inside_the_first() {
        // PART I, Item 1, a heading, Item 2, a heading, PART II, a heading, Item 5, a heading,
        // Item 6. Only the heading between Items 1 and 2 and the one between Items 5 and 6 are
        // inside an Item: Item 2 and PART II are closed by a higher level, and nothing closes PART II.
        let levels = [Some(1), Some(2), None, Some(2), None, Some(1), None, Some(2), None, Some(2)];
        let n = numbered(&levels, &[false; 10]);
        let want = [None, None, Some(2), None, None, None, None, None, Some(2), None];
        assert_eq!(n.inside(), want);
        // A nested run (Notes under their title) closes nothing: Item 8, its Notes' title, Note 1,
        // a heading, Note 2, a heading, Item 9. All of it is Item 8's, the Notes too.
        let levels = [Some(2), None, Some(3), None, Some(3), None, Some(2)];
        let n = numbered(&levels, &[false, false, true, false, true, false, false]);
        assert_eq!(n.inside(), [None, Some(2), Some(2), Some(2), Some(2), Some(2), None]);
    }

    #[test]
    fn the_top_level_s_last_division_holds_what_its_predecessor_held() {
        // Exhibit 31.01, its certification, Exhibit 32.01, its certification, Exhibit 32.02, a
        // certification, a heading in another style. Styles: labels 0, certifications 1, other 2.
        let levels = [Some(1), None, Some(1), None, Some(1), None, None];
        let n = numbered(&levels, &[false; 7]);
        let styles = [0, 1, 0, 1, 0, 1, 2];
        let mut inside = n.inside();
        assert_eq!(inside, [None, Some(1), None, Some(1), None, None, None]);
        n.extend_last_division(&mut inside, |k| Some(styles[k]));
        assert_eq!(inside, [None, Some(1), None, Some(1), None, Some(1), None]);
        // The last label set apart from the one before it: another kind of division.
        let mut inside = n.inside();
        n.extend_last_division(&mut inside, |k| Some([0, 1, 0, 1, 3, 1, 2][k]));
        assert_eq!(inside[5], None);
        // A deeper level's last division (Item 16 under Part IV) is left: its end is its parent's.
        let levels = [Some(1), Some(2), None, Some(2), None];
        let n = numbered(&levels, &[false; 5]);
        let mut inside = n.inside();
        n.extend_last_division(&mut inside, |k| Some([0, 1, 2, 1, 2][k]));
        assert_eq!(inside, [None, None, Some(2), None, None]);
    }

    proptest! {
        #[test]
        fn inside_is_the_first_heading_that_closes_the_last(
            blocks in proptest::collection::vec((proptest::option::of(1u8..5), any::<bool>()), 0..80)
        ) {
            let levels: Vec<Option<u8>> = blocks.iter().map(|b| b.0).collect();
            let nested: Vec<bool> = blocks.iter().map(|b| b.1 && b.0.is_some()).collect();
            let n = numbered(&levels, &nested);
            prop_assert_eq!(n.inside(), inside_by_scanning(&n));
        }
    }
}
