//! Which of a document's heading faces ranks above which, where size, weight and capitals say
//! nothing: eBay's 10-Q sets its MD&A subheadings in one size of Arial, "Liquidity and Capital
//! Resources" in Arial Bold over "Cash Flows" in Bold Italic over "Continuing Operating
//! Activities" in Italic, where Lockheed Martin's 10-K sets "Consolidated Results of Operations" in
//! Bold Italic over "Net Sales" in Bold. No convention orders faces across filings; each document's
//! own sequence does. A face that ranks higher opens sections: its runs come right after the
//! heading they are under (an Item, a Note) or a more prominent one. A face that ranks lower comes
//! after the face it is under. So the faces are ranked in rounds: first those that open sections,
//! then those that follow the faces ranked so far, and so on, counted over the whole document.
//! A section holds more subsections than it has siblings between them, so a face ranked lower
//! comes in runs no shorter than the face above it; where it does not, the sequence can be read
//! both ways (Lockheed Martin's MD&A opens with a Bold section and sets its later sections in Bold
//! Italic over Bold subsections), and the faces rank alike.

use super::styles::{prominence, StyleKey, SAME_TIER};
use std::collections::HashMap;

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
    Face(u16),
}

/// A style without its font: faces that share it are told apart only by their sequence.
fn class(key: &StyleKey) -> (u16, bool, bool) {
    (key.0, key.1, key.3)
}

/// Each face's rank within its class (1 at the top), for the classes whose faces the document's
/// sequence orders: `groups` are the subheadings under each heading other evidence placed, in
/// order, as their styles. A class whose faces all open sections, or that has one face, is left
/// out (its faces rank alike).
pub(super) fn face_ranks(groups: &[Vec<StyleKey>]) -> HashMap<StyleKey, u8> {
    // For each style, what each of its runs comes right after, and how long its runs are.
    let mut before: HashMap<StyleKey, HashMap<Before, usize>> = HashMap::new();
    let mut runs: HashMap<StyleKey, Vec<usize>> = HashMap::new();
    for group in groups {
        for (k, key) in group.iter().enumerate() {
            let p = prominence(key);
            // The nearest heading above it at least as prominent; deeper ones closed before it.
            let prev = group[..k].iter().rev().find(|q| prominence(q) >= p * (1.0 - SAME_TIER));
            let what = match prev {
                None => Before::Opener,
                Some(q) if q == key => {
                    if let Some(n) = runs.get_mut(key).and_then(|r| r.last_mut()) {
                        *n += 1;
                    }
                    continue;
                }
                Some(q) if class(q) == class(key) => Before::Face(q.2),
                Some(q) if prominence(q) > p * (1.0 + SAME_TIER) => Before::Opener,
                Some(_) => continue,
            };
            *before.entry(*key).or_default().entry(what).or_default() += 1;
            runs.entry(*key).or_default().push(1);
        }
    }
    let mean_run = |key: &StyleKey| {
        let r = &runs[key];
        r.iter().sum::<usize>() as f32 / r.len().max(1) as f32
    };
    let mut classes: HashMap<(u16, bool, bool), Vec<StyleKey>> = HashMap::new();
    for key in before.keys() {
        classes.entry(class(key)).or_default().push(*key);
    }
    let mut ranks = HashMap::new();
    for faces in classes.values().filter(|f| f.len() > 1) {
        let ranked = rank_faces(faces, &before);
        // Sections hold more subsections than they have siblings between them: a face ranked
        // lower whose runs are shorter than a higher one's says the sequence is read the wrong way
        // round somewhere, and the faces rank alike.
        let agrees =
            ranked.iter().all(|(a, ra)| ranked.iter().all(|(b, rb)| rb <= ra || mean_run(b) >= mean_run(a)));
        if agrees && ranked.values().any(|&r| r > 1) {
            ranks.extend(ranked);
        }
    }
    ranks
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
                        Before::Face(font) => faces.iter().any(|g| g.2 == *font && ranks.contains_key(g)),
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

    const BOLD: StyleKey = (17, true, 1, false);
    const BOLD_ITALIC: StyleKey = (17, true, 2, false);
    const ITALIC: StyleKey = (17, true, 3, false);
    const CAPITALS: StyleKey = (17, true, 1, true);

    #[test]
    fn faces_rank_by_which_opens_sections() {
        // eBay's MD&A: capitals over Bold over Bold Italic over Italic, all one size and weight.
        let groups = vec![
            vec![CAPITALS, BOLD, BOLD, CAPITALS, BOLD, BOLD_ITALIC, ITALIC, ITALIC, BOLD_ITALIC, BOLD],
            vec![BOLD, BOLD_ITALIC, BOLD_ITALIC, ITALIC, BOLD],
        ];
        let ranks = face_ranks(&groups);
        assert_eq!((ranks[&BOLD], ranks[&BOLD_ITALIC], ranks[&ITALIC]), (1, 2, 3));
        assert!(!ranks.contains_key(&CAPITALS), "capitals are a class of their own");
        // Lockheed Martin's: Bold Italic over Bold.
        let groups = vec![vec![BOLD_ITALIC, BOLD, BOLD, BOLD, BOLD_ITALIC, BOLD], vec![BOLD_ITALIC, BOLD]];
        let ranks = face_ranks(&groups);
        assert_eq!((ranks[&BOLD_ITALIC], ranks[&BOLD]), (1, 2));
    }

    #[test]
    fn faces_that_each_open_sections_rank_alike() {
        let groups = vec![vec![BOLD, BOLD], vec![BOLD_ITALIC, BOLD], vec![BOLD, BOLD_ITALIC]];
        assert!(face_ranks(&groups).is_empty());
        // A face seen once tells nothing.
        let groups = vec![vec![BOLD, BOLD_ITALIC, BOLD]];
        assert!(face_ranks(&groups).is_empty());
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
        assert!(face_ranks(&[group]).is_empty());
    }

    #[test]
    fn a_deeper_heading_between_does_not_count() {
        // A smaller heading closes before the next Bold Italic, which still follows the Bold.
        let small: StyleKey = (15, false, 4, false);
        let groups = vec![vec![BOLD, BOLD_ITALIC, small, BOLD_ITALIC, BOLD, BOLD_ITALIC]];
        let ranks = face_ranks(&groups);
        assert_eq!((ranks[&BOLD], ranks[&BOLD_ITALIC]), (1, 2));
    }
}
