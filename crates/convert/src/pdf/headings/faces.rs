//! Which of a document's heading faces ranks above which, where size, weight and capitals say
//! nothing: eBay's 10-Q sets its MD&A subheadings in one size of Arial, "Liquidity and Capital
//! Resources" in Arial Bold over "Cash Flows" in Bold Italic over "Continuing Operating
//! Activities" in Italic, where Lockheed Martin's 10-K sets "Consolidated Results of Operations" in
//! Bold Italic over "Net Sales" in Bold. No convention orders faces across filings; each document's
//! own sequence does. A face that ranks higher opens sections: its runs come right after the
//! heading they are under (an Item, a Note) or a more prominent one. A face that ranks lower comes
//! after the face it is under. So the faces are ranked in rounds: first those that open sections,
//! then those that follow the faces ranked so far, and so on, counted over the whole document.
//! Where the faces keep indents of their own, the deeper indent ranks lower (eBay indents each
//! face a step under the one above it), provided the indented face follows the other somewhere.
//! A section holds more subsections than it has siblings between them, so a face ranked lower
//! comes in runs no shorter than the face above it; where it does not, the sequence can be read
//! both ways (Lockheed Martin's MD&A opens with a Bold section and sets its later sections in Bold
//! Italic over Bold subsections), and the faces rank alike.

use super::super::blocks::{Blk, BlkKind, Ctx, LevelFrom};
use super::statements::is_statement_part;
use super::styles::{prominence, StyleKey, SAME_TIER};
use std::collections::HashMap;

/// The deepest level a heading goes to (as the levels the other evidence gives are clamped).
const DEEPEST: u8 = 9;

/// Where type alone placed sibling headings, a face the document ranks below another
/// ([`face_ranks`]) goes a level under the heading of that face before it, and what lies under it
/// goes with it: eBay's "Liquidity and Capital Resources › Cash Flows › Continuing Operating
/// Activities", placed beside one another because they are one size and weight.
pub(super) fn nest_faces(ctx: &Ctx, blocks: &mut [Blk]) {
    let levels: Vec<Option<u8>> =
        blocks.iter().map(|b| b.level.filter(|_| b.kind == BlkKind::Heading)).collect();
    let typed: Vec<bool> = blocks
        .iter()
        .map(|b| b.level_from == Some(LevelFrom::Typography) && !is_statement_part(&b.text))
        .collect();
    let runs = sibling_runs(&levels, &typed);
    let key = |k: usize| ctx.style_key(&ctx.lines[blocks[k].lines[0]]);
    // A style used once ranks nothing (an acronym in capitals, one italic aside).
    let mut uses: HashMap<StyleKey, usize> = HashMap::new();
    runs.iter().flatten().for_each(|&k| *uses.entry(key(k)).or_default() += 1);
    let sequences: Vec<Vec<StyleKey>> =
        runs.iter().map(|r| r.iter().map(|&k| key(k)).filter(|s| uses[s] > 1).collect()).collect();
    let mut indents: HashMap<StyleKey, Vec<f32>> = HashMap::new();
    for &k in runs.iter().flatten() {
        let line = &ctx.lines[blocks[k].lines[0]];
        indents.entry(key(k)).or_default().push(line.x0 - line.col_x0);
    }
    let indents = indents.into_iter().filter_map(|(s, v)| Some((s, steady_indent(v)?))).collect();
    let ranks = face_ranks(&sequences, &indents);
    if ranks.is_empty() {
        return;
    }
    let deeper = shifts(&levels, &runs, |k| ranks.get(&key(k)).copied().unwrap_or(1));
    for (b, by) in blocks.iter_mut().zip(deeper) {
        if let Some(level) = b.level.filter(|_| by > 0) {
            b.level = Some(level.saturating_add(by).min(DEEPEST));
        }
    }
}

/// How many levels each block goes down (`levels`: each block's heading level, `None` for other
/// blocks): in each run, a heading whose face ranks below the face of a heading before it goes a
/// level under the nearest such heading, and what lies under it goes with it.
fn shifts(levels: &[Option<u8>], runs: &[Vec<usize>], rank: impl Fn(usize) -> u8) -> Vec<u8> {
    let mut deeper = vec![0u8; levels.len()];
    for run in runs {
        // The ranks of the faces above the heading in hand, shallowest first.
        let mut chain: Vec<u8> = Vec::new();
        for &k in run {
            let rank = rank(k);
            while chain.last().is_some_and(|&r| r >= rank) {
                chain.pop();
            }
            let by = chain.len() as u8;
            chain.push(rank);
            let Some(level) = levels[k].filter(|_| by > 0) else { continue };
            // It and what lies under it, up to the next heading at its level or above.
            deeper[k] += by;
            for (j, lv) in levels.iter().enumerate().skip(k + 1) {
                match lv {
                    Some(lv) if *lv <= level => break,
                    Some(_) => deeper[j] += by,
                    None => {}
                }
            }
        }
    }
    deeper
}

/// The runs of sibling headings type alone placed (`typed`): consecutive headings at one level
/// under one parent, the deeper ones between them aside; a sibling other evidence placed (a
/// numbered or listed heading, a part of the financial statements) ends a run.
fn sibling_runs(levels: &[Option<u8>], typed: &[bool]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    // The runs still open, by level, shallowest first: (level, run).
    let mut open: Vec<(u8, usize)> = Vec::new();
    for (k, (level, &typed)) in levels.iter().zip(typed).enumerate() {
        let Some(level) = *level else { continue };
        while open.last().is_some_and(|&(lv, _)| lv > level) {
            open.pop();
        }
        match open.last() {
            Some(&(lv, r)) if lv == level && typed => runs[r].push(k),
            Some(&(lv, _)) if lv == level => {
                open.pop();
            }
            _ if typed => {
                runs.push(vec![k]);
                open.push((level, runs.len() - 1));
            }
            _ => {}
        }
    }
    runs
}

/// The share of a face's runs that must follow the faces ranked so far for it to rank next.
const FOLLOWS_SHARE: f32 = 0.25;
/// The fewest runs of a face that rank it below another.
const FEWEST_RUNS: usize = 2;

/// What a run of one face comes right after.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Before {
    /// The heading the group is under, or a more prominent subheading.
    Opener,
    /// A face of the same size, weight and capitals.
    Face(FaceId),
}

/// A face: the font and whether it is underlined.
type FaceId = (u16, bool);

/// A style's face.
fn face(key: &StyleKey) -> FaceId {
    (key.2, key.4)
}

/// A style without its face: faces that share it are told apart only by their sequence.
fn class(key: &StyleKey) -> (u16, bool, bool) {
    (key.0, key.1, key.3)
}

/// Each face's rank within its class (1 at the top), for the classes whose faces the document
/// orders: `groups` are runs of sibling headings, in order, as their styles; `indents` the indent
/// each style keeps wherever it is used (see [`steady_indent`]). Where every face of a class keeps
/// an indent and they differ, the deeper indent ranks lower (eBay indents Bold Italic a step and
/// Italic two under Bold); otherwise the sequence does. A class whose faces all open sections, or
/// that has one face, is left out (its faces rank alike).
pub(super) fn face_ranks(
    groups: &[Vec<StyleKey>],
    indents: &HashMap<StyleKey, f32>,
) -> HashMap<StyleKey, u8> {
    let seq = Sequence::read(groups);
    let before = &seq.before;
    let mut classes: HashMap<(u16, bool, bool), Vec<StyleKey>> = HashMap::new();
    for key in before.keys() {
        classes.entry(class(key)).or_default().push(*key);
    }
    let mut ranks = HashMap::new();
    for faces in classes.values().filter(|f| f.len() > 1) {
        // An indent ranks a face lower only where the face follows one it ranks higher: a
        // heading block set apart in its own indent (a rule's agency and subject lines over its
        // sections) heads what follows it, whatever its indent.
        let follows = |ranked: &HashMap<StyleKey, u8>| {
            ranked.iter().filter(|(_, r)| **r > 1).all(|(f, r)| {
                before.get(f).is_some_and(|b| {
                    b.keys().any(
                        |x| matches!(x, Before::Face(g) if faces.iter().any(|h| face(h) == *g && ranked[h] < *r)),
                    )
                })
            })
        };
        if let Some(ranked) = by_indent(faces, indents).filter(follows) {
            ranks.extend(ranked);
            continue;
        }
        let mut ranked = rank_faces(faces, before);
        seq.join_where_read_both_ways(&mut ranked);
        if ranked.values().any(|&r| r > 1) {
            ranks.extend(ranked);
        }
    }
    ranks
}

/// How a document's faces follow one another in its runs of sibling headings.
struct Sequence {
    /// For each style, what each of its runs comes right after.
    before: HashMap<StyleKey, HashMap<Before, usize>>,
    /// For each style, how long its runs are, in order.
    runs: HashMap<StyleKey, Vec<usize>>,
    /// Where a run of one face comes right after a run of another of its class: (the face
    /// before, its run's index, the face after, its run's index).
    adjacent: Vec<(StyleKey, usize, StyleKey, usize)>,
}

impl Sequence {
    fn read(groups: &[Vec<StyleKey>]) -> Sequence {
        let mut seq = Sequence { before: HashMap::new(), runs: HashMap::new(), adjacent: Vec::new() };
        for group in groups {
            for (k, key) in group.iter().enumerate() {
                let p = prominence(key);
                // The nearest heading above it at least as prominent; deeper ones closed before it.
                let prev = group[..k].iter().rev().find(|q| prominence(q) >= p * (1.0 - SAME_TIER));
                let what = match prev {
                    None => Before::Opener,
                    Some(q) if q == key => {
                        if let Some(n) = seq.runs.get_mut(key).and_then(|r| r.last_mut()) {
                            *n += 1;
                        }
                        continue;
                    }
                    Some(q) if class(q) == class(key) => Before::Face(face(q)),
                    Some(q) if prominence(q) > p * (1.0 + SAME_TIER) => Before::Opener,
                    Some(_) => continue,
                };
                *seq.before.entry(*key).or_default().entry(what).or_default() += 1;
                seq.runs.entry(*key).or_default().push(1);
                if let (Before::Face(_), Some(q)) = (what, prev) {
                    seq.adjacent.push((*q, seq.runs[q].len() - 1, *key, seq.runs[key].len() - 1));
                }
            }
        }
        seq
    }

    /// Where runs of `b` come right after runs of `a`: how long those runs of `a` are on average,
    /// and those of `b`.
    fn run_lengths(&self, a: &StyleKey, b: &StyleKey) -> Option<(f32, f32)> {
        let pairs: Vec<(usize, usize)> = self
            .adjacent
            .iter()
            .filter(|(x, _, y, _)| x == a && y == b)
            .map(|(_, i, _, j)| (self.runs[a][*i], self.runs[b][*j]))
            .collect();
        let n = pairs.len().max(1) as f32;
        let mean = |f: fn(&(usize, usize)) -> usize| pairs.iter().map(f).sum::<usize>() as f32 / n;
        (!pairs.is_empty()).then(|| (mean(|p| p.0), mean(|p| p.1)))
    }

    /// Sections hold more subsections than they have siblings between them: where runs of a face
    /// ranked lower, right after runs of a higher one, are shorter than those runs, the sequence
    /// is read the wrong way round there (Lockheed Martin's Bold Italic sections over runs of
    /// Bold, after a first Bold section), and the lower face's rank joins the one above it
    /// (Oracle's Bold Italic subheadings, alone now and then under its Bold Underlined ones, join
    /// them; both stay under its Bold).
    fn join_where_read_both_ways(&self, ranked: &mut HashMap<StyleKey, u8>) {
        while let Some(r) = ranked
            .iter()
            .flat_map(|(a, ra)| ranked.iter().map(move |(b, rb)| (a, *ra, b, *rb)))
            .find(|(a, ra, b, rb)| rb > ra && self.run_lengths(a, b).is_some_and(|(la, lb)| lb < la))
            .map(|(_, _, _, rb)| rb)
        {
            ranked.values_mut().filter(|v| **v >= r).for_each(|v| *v -= 1);
        }
    }
}

/// The furthest apart two indents of one face may lie, in points.
const INDENT_SAME: f32 = 2.0;
/// The least step between two faces' indents that ranks one under the other, in points.
const INDENT_STEP: f32 = 4.0;

/// A style's indent from its column's left edge, where at least three quarters of its headings
/// keep it (a centred heading keeps none).
fn steady_indent(mut indents: Vec<f32>) -> Option<f32> {
    indents.sort_by(f32::total_cmp);
    let median = *indents.get(indents.len() / 2)?;
    let near = indents.iter().filter(|x| (*x - median).abs() <= INDENT_SAME).count();
    (4 * near >= 3 * indents.len()).then_some(median)
}

/// One class's faces ranked by indent, where each keeps one and they differ by a step: faces
/// whose indents lie within a step of each other rank alike.
fn by_indent(faces: &[StyleKey], indents: &HashMap<StyleKey, f32>) -> Option<HashMap<StyleKey, u8>> {
    let mut at: Vec<(f32, StyleKey)> =
        faces.iter().map(|f| Some((*indents.get(f)?, *f))).collect::<Option<_>>()?;
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rank = 1u8;
    let mut ranks = HashMap::new();
    for (i, (x, f)) in at.iter().enumerate() {
        if i > 0 && x - at[i - 1].0 >= INDENT_STEP {
            rank += 1;
        }
        ranks.insert(*f, rank);
    }
    (rank > 1).then_some(ranks)
}

/// One class's faces in rounds: those with a share of their runs right after an opener or a face
/// ranked in an earlier round rank next; what no round reaches ranks last.
fn rank_faces(
    faces: &[StyleKey],
    before: &HashMap<StyleKey, HashMap<Before, usize>>,
) -> HashMap<StyleKey, u8> {
    let mut ranks: HashMap<StyleKey, u8> = HashMap::new();
    let mut round = 1u8;
    loop {
        let reached: Vec<StyleKey> = faces
            .iter()
            .filter(|f| !ranks.contains_key(*f))
            .filter(|f| {
                let runs = &before[*f];
                let total: usize = runs.values().sum();
                let after_ranked: usize = runs
                    .iter()
                    .filter(|(b, _)| match b {
                        Before::Opener => true,
                        Before::Face(f) => faces.iter().any(|g| face(g) == *f && ranks.contains_key(g)),
                    })
                    .map(|(_, n)| n)
                    .sum();
                // A face seen in a single run ranks with the first round: too little to go on.
                (round == 1 && total < FEWEST_RUNS) || after_ranked as f32 >= FOLLOWS_SHARE * total as f32
            })
            .copied()
            .collect();
        if reached.is_empty() {
            break;
        }
        ranks.extend(reached.into_iter().map(|f| (f, round)));
        round = round.saturating_add(1);
    }
    for f in faces {
        ranks.entry(*f).or_insert(round);
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Nesting by face keeps an outline whole: no heading goes up, none lands more than one
        /// level under the heading before it, and a run's first heading moves only with the
        /// heading it is under.
        #[test]
        fn nesting_by_face_leaves_no_gap(
            steps in proptest::collection::vec((0u8..3, any::<bool>(), any::<bool>(), 1u8..4), 1..60)
        ) {
            // A gap-free outline: each heading at most one under the one before it.
            let mut levels = Vec::new();
            let mut typed = Vec::new();
            let mut ranks = Vec::new();
            let mut last = 0u8;
            for (up, deeper, is_typed, rank) in steps {
                let level = if deeper { last + 1 } else { last.saturating_sub(up).max(1) };
                levels.push(Some(level));
                typed.push(is_typed);
                ranks.push(rank);
                last = level;
            }
            let runs = sibling_runs(&levels, &typed);
            let by = shifts(&levels, &runs, |k| ranks[k]);
            let after: Vec<u8> = levels.iter().zip(&by).map(|(l, b)| l.unwrap() + b).collect();
            let mut before_level = 0u8;
            for (k, lv) in after.iter().enumerate() {
                prop_assert!(*lv >= levels[k].unwrap());
                prop_assert!(*lv <= before_level + 1, "gap at {k}: {levels:?} {ranks:?} -> {after:?}");
                before_level = *lv;
            }
            // A run's first heading moves only with the heading it is under.
            for run in &runs {
                let first = run[0];
                let level = levels[first].unwrap();
                let parent = (0..first).rev().find(|&j| levels[j].unwrap() < level);
                prop_assert_eq!(by[first], parent.map_or(0, |p| by[p]));
            }
        }
    }

    const BOLD: StyleKey = (17, true, 1, false, false);
    const BOLD_ITALIC: StyleKey = (17, true, 2, false, false);
    const ITALIC: StyleKey = (17, true, 3, false, false);
    const CAPITALS: StyleKey = (17, true, 1, true, false);

    #[test]
    fn faces_rank_by_which_opens_sections() {
        // eBay's MD&A: capitals over Bold over Bold Italic over Italic, all one size and weight.
        let groups = vec![
            vec![CAPITALS, BOLD, BOLD, CAPITALS, BOLD, BOLD_ITALIC, ITALIC, ITALIC, BOLD_ITALIC, BOLD],
            vec![BOLD, BOLD_ITALIC, BOLD_ITALIC, ITALIC, BOLD],
        ];
        let ranks = face_ranks(&groups, &HashMap::new());
        assert_eq!((ranks[&BOLD], ranks[&BOLD_ITALIC], ranks[&ITALIC]), (1, 2, 3));
        assert!(!ranks.contains_key(&CAPITALS), "capitals are a class of their own");
        // Lockheed Martin's: Bold Italic over Bold.
        let groups = vec![vec![BOLD_ITALIC, BOLD, BOLD, BOLD, BOLD_ITALIC, BOLD], vec![BOLD_ITALIC, BOLD]];
        let ranks = face_ranks(&groups, &HashMap::new());
        assert_eq!((ranks[&BOLD_ITALIC], ranks[&BOLD]), (1, 2));
    }

    #[test]
    fn faces_that_each_open_sections_rank_alike() {
        let groups = vec![vec![BOLD, BOLD], vec![BOLD_ITALIC, BOLD], vec![BOLD, BOLD_ITALIC]];
        assert!(face_ranks(&groups, &HashMap::new()).is_empty());
        // A face seen once tells nothing.
        let groups = vec![vec![BOLD, BOLD_ITALIC, BOLD]];
        assert!(face_ranks(&groups, &HashMap::new()).is_empty());
    }

    #[test]
    fn faces_read_both_ways_rank_alike() {
        // Bold opens the section, but its runs are long and Bold Italic's single: Bold Italic
        // heads runs of Bold as often as it follows one.
        let mut group = vec![BOLD, BOLD_ITALIC, BOLD_ITALIC, BOLD_ITALIC];
        for run in [5, 8, 3] {
            group.extend(std::iter::repeat_n(BOLD, run));
            group.push(BOLD_ITALIC);
        }
        assert!(face_ranks(&[group], &HashMap::new()).is_empty());
    }

    #[test]
    fn a_deeper_indent_ranks_lower_whatever_the_sequence() {
        // eBay's Notes open with Bold Italic right under each Note; its MD&A indents Bold Italic a
        // step and Italic two under Bold.
        let groups =
            vec![vec![BOLD_ITALIC, BOLD_ITALIC, ITALIC], vec![BOLD, BOLD_ITALIC, ITALIC], vec![ITALIC, BOLD]];
        let indents = HashMap::from([(BOLD, 0.0), (BOLD_ITALIC, 11.7), (ITALIC, 23.3)]);
        let ranks = face_ranks(&groups, &indents);
        assert_eq!((ranks[&BOLD], ranks[&BOLD_ITALIC], ranks[&ITALIC]), (1, 2, 3));
        // One face without a steady indent: the sequence decides.
        let indents = HashMap::from([(BOLD, 0.0), (BOLD_ITALIC, 11.7)]);
        assert_ne!(face_ranks(&groups, &indents).get(&ITALIC), Some(&3));
        // The Federal Register's agency and subject lines, indented, over each rule's sections:
        // the indented face never follows the other, so the sequence ranks them.
        let rule = [vec![ITALIC; 3], vec![BOLD; 10]].concat();
        let indents = HashMap::from([(BOLD, 1.0), (ITALIC, 20.0)]);
        let ranks = face_ranks(&[rule.clone(), rule], &indents);
        assert_eq!((ranks[&ITALIC], ranks[&BOLD]), (1, 2));
        assert_eq!(steady_indent(vec![0.0, 0.3, 0.1, 83.4]), Some(0.3));
        assert_eq!(steady_indent(vec![40.0, 120.0, 75.0]), None);
    }

    #[test]
    fn underline_is_a_face_and_short_runs_join_only_the_rank_above() {
        // Oracle's business description: Bold Underlined over Bold Italic over Bold Italic
        // Underlined, one size and weight. Bold Italic comes alone under each Bold Underlined
        // (runs shorter than the face above it): it joins that face's rank, and Bold Italic
        // Underlined, in long runs, stays under both.
        const BOLD_UNDERLINED: StyleKey = (17, true, 1, false, true);
        const BOLD_ITALIC_UNDERLINED: StyleKey = (17, true, 2, false, true);
        let mut group = Vec::new();
        for _ in 0..3 {
            group.extend([BOLD_UNDERLINED, BOLD_UNDERLINED, BOLD_ITALIC]);
            group.extend([BOLD_ITALIC_UNDERLINED; 4]);
        }
        let ranks = face_ranks(&[group], &HashMap::new());
        assert_eq!(ranks[&BOLD_UNDERLINED], ranks[&BOLD_ITALIC]);
        assert_eq!(ranks[&BOLD_ITALIC_UNDERLINED], ranks[&BOLD_ITALIC] + 1);
        assert!(!ranks.contains_key(&BOLD), "a style not used ranks nothing");
    }

    #[test]
    fn only_runs_side_by_side_weigh_how_faces_nest() {
        // Oracle's MD&A sets Bold over Bold Underlined; its Notes run long lists of Bold
        // subheadings with no other face among them. Those long runs say nothing of how Bold and
        // Bold Underlined nest: where the two meet, a Bold heading heads runs of Bold Underlined.
        const BOLD_UNDERLINED: StyleKey = (17, true, 1, false, true);
        let groups = vec![
            vec![BOLD; 9],
            vec![
                BOLD,
                BOLD_UNDERLINED,
                BOLD_UNDERLINED,
                BOLD_UNDERLINED,
                BOLD,
                BOLD_UNDERLINED,
                BOLD_UNDERLINED,
            ],
        ];
        let ranks = face_ranks(&groups, &HashMap::new());
        assert_eq!((ranks[&BOLD], ranks[&BOLD_UNDERLINED]), (1, 2));
    }

    #[test]
    fn a_deeper_heading_between_does_not_count() {
        // A smaller heading closes before the next Bold Italic, which still follows the Bold.
        let small: StyleKey = (15, false, 4, false, false);
        let groups = vec![vec![BOLD, BOLD_ITALIC, small, BOLD_ITALIC, BOLD, BOLD_ITALIC]];
        let ranks = face_ranks(&groups, &HashMap::new());
        assert_eq!((ranks[&BOLD], ranks[&BOLD_ITALIC]), (1, 2));
    }
}
