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
use tantivy::schema::Field;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet, Score, Searcher, SegmentReader, Term};

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
    let plan = Plan::new(searcher, later)?;
    // Candidates segment by segment, each segment's in doc order (postings only seek forward).
    let mut order: Vec<(u32, DocId, usize)> =
        hits.iter().enumerate().map(|(i, h)| (h.1.segment_ord, h.1.doc_id, i)).collect();
    order.sort_unstable();
    for group in order.chunk_by(|a, b| a.0 == b.0) {
        plan.score_segment(searcher.segment_reader(group[0].0), field, group, hits)?;
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(())
}

/// What is scored, as indexes into the distinct words whose postings are read.
struct Plan {
    terms: Vec<Term>,
    /// Whether a word is one of a pair's (its positions are read).
    paired: Vec<bool>,
    /// The words scored alone, with their BM25 weights.
    words: Vec<(usize, Bm25Weight)>,
    /// The pairs' two words, their gap, and the phrase's BM25 weight (boosted).
    pairs: Vec<(usize, usize, u32, Bm25Weight)>,
}

impl Plan {
    fn new(searcher: &Searcher, later: &Later) -> Result<Plan, IndexError> {
        let mut terms: Vec<Term> = Vec::new();
        let mut index_of = |t: &Term| -> usize {
            terms.iter().position(|x| x == t).unwrap_or_else(|| {
                terms.push(t.clone());
                terms.len() - 1
            })
        };
        let mut pairs = Vec::with_capacity(later.pairs.len());
        for p in &later.pairs {
            let weight = Bm25Weight::for_terms(searcher, &[p.first.clone(), p.second.clone()])?;
            pairs.push((index_of(&p.first), index_of(&p.second), p.gap, weight.boost_by(later.pair_boost)));
        }
        let mut words = Vec::with_capacity(later.words.len());
        for t in &later.words {
            words.push((index_of(t), Bm25Weight::for_terms(searcher, std::slice::from_ref(t))?));
        }
        let mut paired = vec![false; terms.len()];
        for &(a, b, _, _) in &pairs {
            (paired[a], paired[b]) = (true, true);
        }
        Ok(Plan { terms, paired, words, pairs })
    }

    /// Adds the scores to the hits `group` names (segment, doc, index into `hits`), all in
    /// `reader`'s segment, in doc order.
    fn score_segment(
        &self,
        reader: &SegmentReader,
        field: Field,
        group: &[(u32, DocId, usize)],
        hits: &mut [(Score, DocAddress)],
    ) -> Result<(), IndexError> {
        let inverted = reader.inverted_index(field)?;
        let norms = reader.get_fieldnorms_reader(field)?;
        let mut postings: Vec<Option<SegmentPostings>> = self
            .terms
            .iter()
            .map(|t| inverted.read_postings(t, IndexRecordOption::WithFreqsAndPositions))
            .collect::<Result<_, _>>()?;
        let n = self.terms.len();
        let (mut present, mut freqs, mut positions) = (vec![false; n], vec![0u32; n], vec![Vec::new(); n]);
        for &(_, doc, i) in group {
            for (k, p) in postings.iter_mut().enumerate() {
                present[k] = false;
                let Some(p) = p else { continue };
                if !seek(p, doc) {
                    continue;
                }
                present[k] = true;
                freqs[k] = p.term_freq();
                if self.paired[k] {
                    p.positions(&mut positions[k]);
                }
            }
            let norm = norms.fieldnorm_id(doc);
            for (k, weight) in &self.words {
                if present[*k] {
                    hits[i].0 += weight.score(norm, freqs[*k]);
                }
            }
            for (a, b, gap, weight) in &self.pairs {
                if present[*a] && present[*b] {
                    let count = count_at_gap(&positions[*a], &positions[*b], *gap);
                    if count > 0 {
                        hits[i].0 += weight.score(norm, count);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether the postings hold `doc`, moving them there (never backwards: a candidate after the
/// postings' current document is sought, one before it is absent).
pub(super) fn seek(postings: &mut SegmentPostings, doc: DocId) -> bool {
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
