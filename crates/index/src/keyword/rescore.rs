//! Scores added to the chunks a query's rarer words ranked first: its common words' BM25, and a
//! bonus for neighbouring query words found side by side.
//!
//! One query with every word and each pair as a phrase clause gives the same scores, but it is slow
//! on a large library. Phrase scorers carry no score bounds, so tantivy then has to score every
//! chunk that holds any query word; and common words ("firm", "must", "person") have posting lists
//! as long as the library, which even block-max WAND (tantivy skipping the blocks of postings that
//! cannot reach the top) walks through. Here the rarer words are ranked alone (with WAND), and the
//! common words and the pairs are scored only on that ranking's candidates, by seeking each
//! candidate in their postings. A common word scores as tantivy's term query does, a pair as its
//! phrase query does (BM25 with the phrase's count in the chunk and the sum of its words' idf).

use crate::IndexError;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::Bm25Weight;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet, Score, Searcher, Term};

/// The widest gap (in word positions, stop words included) between two query words that are still
/// tried as a pair: "conduct of business" pairs "conduct" with "business". ObliQA (BM25 alone, 64-
/// token merge limit, even half of the dev questions): a gap of 1 → 0.730 / 0.592 Recall@10 /
/// MAP@10, 2 → 0.732 / 0.597, 3 to 6 → 0.733 / 0.599.
pub(super) const PAIR_GAP: u32 = 3;

/// Two neighbouring query words and the gap the query had between them.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Pair {
    pub first: Term,
    pub second: Term,
    pub gap: u32,
}

impl Pair {
    /// The pair as tantivy's phrase query (the scoring this module reproduces; used by the tests).
    #[cfg(test)]
    pub fn phrase(&self) -> tantivy::query::PhraseQuery {
        tantivy::query::PhraseQuery::new_with_offset(vec![
            (0, self.first.clone()),
            (self.gap as usize, self.second.clone()),
        ])
    }
}

/// Neighbouring query words as pairs, each pair once, keeping the gap the query had between them
/// (stop words removed from the query still occupy their positions in the text).
pub(super) fn pairs(words: &[(usize, Term)]) -> Vec<Pair> {
    let mut out: Vec<Pair> = Vec::new();
    for w in words.windows(2) {
        let ((p0, t0), (p1, t1)) = (&w[0], &w[1]);
        let gap = p1.saturating_sub(*p0) as u32;
        if gap == 0 || gap > PAIR_GAP || t0 == t1 {
            continue;
        }
        let pair = Pair { first: t0.clone(), second: t1.clone(), gap };
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

/// What is scored on the candidates: words of one field, and pairs of them.
pub(super) struct Later {
    /// Words scored by BM25 (their term query's score).
    pub words: Vec<Term>,
    /// Neighbouring query words, each scored by BM25 as a phrase times `pair_boost`.
    pub pairs: Vec<Pair>,
    pub pair_boost: f32,
}

/// Adds to each hit's score the BM25 score of each of `later`'s words it holds and `pair_boost`
/// times that of each pair found in it, as tantivy's term and phrase queries would score them,
/// then sorts the hits best first.
pub(super) fn add_scores(
    searcher: &Searcher,
    later: &Later,
    hits: &mut [(Score, DocAddress)],
) -> Result<(), IndexError> {
    let Some(field) = later.words.first().or(later.pairs.first().map(|p| &p.first)).map(Term::field) else {
        return Ok(());
    };
    let pairs = &later.pairs;
    let weights = pairs
        .iter()
        .map(|p| {
            let weight = Bm25Weight::for_terms(searcher, &[p.first.clone(), p.second.clone()])?;
            Ok(weight.boost_by(later.pair_boost))
        })
        .collect::<Result<Vec<_>, IndexError>>()?;
    // The distinct words, each pair's two as indexes into them, the scored words' weights.
    let mut terms: Vec<Term> = Vec::new();
    let mut index_of = |t: &Term| -> usize {
        terms.iter().position(|x| x == t).unwrap_or_else(|| {
            terms.push(t.clone());
            terms.len() - 1
        })
    };
    let ends: Vec<(usize, usize)> = pairs.iter().map(|p| (index_of(&p.first), index_of(&p.second))).collect();
    let scored: Vec<(usize, Bm25Weight)> = later
        .words
        .iter()
        .map(|t| Ok((index_of(t), Bm25Weight::for_terms(searcher, std::slice::from_ref(t))?)))
        .collect::<Result<_, IndexError>>()?;
    let mut freqs = vec![0u32; terms.len()];
    let mut paired = vec![false; terms.len()];
    for &(a, b) in &ends {
        (paired[a], paired[b]) = (true, true);
    }

    // Candidates segment by segment, each segment's in doc order (postings only seek forward).
    let mut order: Vec<usize> = (0..hits.len()).collect();
    order.sort_by_key(|&i| (hits[i].1.segment_ord, hits[i].1.doc_id));
    let mut positions: Vec<Vec<u32>> = vec![Vec::new(); terms.len()];
    let mut present = vec![false; terms.len()];
    let mut start = 0;
    while start < order.len() {
        let segment = hits[order[start]].1.segment_ord;
        let end = start + order[start..].iter().take_while(|&&i| hits[i].1.segment_ord == segment).count();
        let reader = searcher.segment_reader(segment);
        let inverted = reader.inverted_index(field)?;
        let norms = reader.get_fieldnorms_reader(field)?;
        let mut postings: Vec<Option<SegmentPostings>> = terms
            .iter()
            .map(|t| inverted.read_postings(t, IndexRecordOption::WithFreqsAndPositions))
            .collect::<Result<_, _>>()?;
        for &i in &order[start..end] {
            let doc: DocId = hits[i].1.doc_id;
            for (k, p) in postings.iter_mut().enumerate() {
                present[k] = match p {
                    Some(p) => {
                        let found = seek(p, doc);
                        if found {
                            freqs[k] = p.term_freq();
                            if paired[k] {
                                p.positions(&mut positions[k]);
                            }
                        }
                        found
                    }
                    None => false,
                };
            }
            let norm = norms.fieldnorm_id(doc);
            for (k, weight) in &scored {
                if present[*k] {
                    hits[i].0 += weight.score(norm, freqs[*k]);
                }
            }
            for (&(a, b), (pair, weight)) in ends.iter().zip(pairs.iter().zip(&weights)) {
                if present[a] && present[b] {
                    let count = count_at_gap(&positions[a], &positions[b], pair.gap);
                    if count > 0 {
                        hits[i].0 += weight.score(norm, count);
                    }
                }
            }
        }
        start = end;
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(())
}

/// Whether the postings hold `doc`, moving them there (never backwards: a candidate after the
/// postings' current document is sought, one before it is absent).
fn seek(postings: &mut SegmentPostings, doc: DocId) -> bool {
    let at = postings.doc();
    if at < doc {
        postings.seek(doc) == doc
    } else {
        at == doc
    }
}

/// How many positions `p` in `first` have `p + gap` in `second` (both ascending).
fn count_at_gap(first: &[u32], second: &[u32], gap: u32) -> u32 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < first.len() && j < second.len() {
        let want = first[i] + gap;
        match second[j].cmp(&want) {
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn count_at_gap_matches_a_plain_count(
            a in proptest::collection::btree_set(0u32..60, 0..20),
            b in proptest::collection::btree_set(0u32..60, 0..20),
            gap in 1u32..4,
        ) {
            let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
            let plain = a.iter().filter(|p| b.contains(&(*p + gap))).count() as u32;
            prop_assert_eq!(count_at_gap(&a, &b, gap), plain);
        }
    }
}
