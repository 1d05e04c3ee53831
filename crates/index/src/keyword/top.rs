//! The best-scoring chunks of a query across the index's segments, each segment started from the
//! score the best so far set.
//!
//! tantivy's `TopDocs` ranks every segment on its own, from a threshold of nothing: block-max WAND
//! then skips little in a library's smaller segments, which it scores almost whole. A library
//! written by many ingests keeps a few large segments and several small ones (a million chunks:
//! one of 815,000, one of 104,000, six of 12,000 to 17,000). Here the segments are ranked largest
//! first, and each starts from the score the best `k` found so far must be beaten by, so the
//! smaller segments skip most of their postings too. The result is the same set of chunks.

use crate::IndexError;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use tantivy::query::{EnableScoring, Query};
use tantivy::{DocAddress, Score, Searcher};

/// A scored chunk, ordered by score, then (for ties) the earlier address first.
#[derive(Debug, Clone, Copy)]
struct Scored(Score, DocAddress);

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then_with(|| other.1.cmp(&self.1))
    }
}

/// The best `k` scored chunks met so far (at least one kept), and the score a new one must beat.
pub(super) struct Best {
    k: usize,
    /// The weakest on top.
    heap: BinaryHeap<Reverse<Scored>>,
}

impl Best {
    pub fn new(k: usize) -> Best {
        let k = k.max(1);
        Best { k, heap: BinaryHeap::with_capacity(k + 1) }
    }

    /// The score a chunk must beat to enter (the weakest kept, once `k` are kept).
    pub fn bar(&self) -> Score {
        match self.heap.peek() {
            Some(Reverse(weakest)) if self.heap.len() == self.k => weakest.0,
            _ => Score::MIN,
        }
    }

    /// Keeps a chunk if it is among the best `k`; returns the new bar.
    pub fn push(&mut self, score: Score, at: DocAddress) -> Score {
        self.heap.push(Reverse(Scored(score, at)));
        if self.heap.len() > self.k {
            self.heap.pop();
        }
        self.bar()
    }

    /// The chunks kept, best first.
    pub fn into_sorted(self) -> Vec<(Score, DocAddress)> {
        let mut out: Vec<Scored> = self.heap.into_iter().map(|Reverse(s)| s).collect();
        out.sort_by(|a, b| b.cmp(a));
        out.into_iter().map(|Scored(score, addr)| (score, addr)).collect()
    }
}

/// The searcher's segments, largest first (so the smaller ones start from a higher bar).
pub(super) fn largest_first(searcher: &Searcher) -> Vec<u32> {
    let mut segments: Vec<u32> = (0..searcher.segment_readers().len() as u32).collect();
    segments.sort_by_key(|&s| Reverse(searcher.segment_reader(s).max_doc()));
    segments
}

/// The best `k` chunks for `query` (at least one asked for), best first.
pub(super) fn top_k(
    searcher: &Searcher,
    query: &dyn Query,
    k: usize,
) -> Result<Vec<(Score, DocAddress)>, IndexError> {
    let weight = query.weight(EnableScoring::enabled_from_searcher(searcher))?;
    let mut best = Best::new(k);
    for segment in largest_first(searcher) {
        let reader = searcher.segment_reader(segment);
        let alive = reader.alive_bitset();
        let mut threshold = best.bar();
        weight.for_each_pruning(threshold, reader, &mut |doc, score| {
            if alive.is_some_and(|a| a.is_deleted(doc)) {
                return threshold;
            }
            threshold = best.push(score, DocAddress::new(segment, doc));
            threshold
        })?;
    }
    Ok(best.into_sorted())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, TermQuery};
    use tantivy::schema::{IndexRecordOption, Schema, TEXT};
    use tantivy::{doc, Index, Term};

    const WORDS: [&str; 8] = ["firm", "client", "money", "rules", "market", "risk", "fund", "audit"];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Segments ranked from the best so far find what tantivy's collector finds, segment by
        /// segment from nothing (scores equal; the order of equal scores aside).
        #[test]
        fn the_best_across_segments_are_tantivys(
            segments in proptest::collection::vec(
                proptest::collection::vec(proptest::collection::vec(0usize..8, 1..12), 1..30), 1..5),
            deleted in proptest::collection::vec(0usize..8, 0..2),
            query in proptest::collection::vec(0usize..8, 1..4),
            k in 1usize..12,
        ) {
            let mut schema = Schema::builder();
            let body = schema.add_text_field("body", TEXT);
            let index = Index::create_in_ram(schema.build());
            let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
            writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
            for texts in &segments {
                for t in texts {
                    let text: Vec<&str> = t.iter().map(|&w| WORDS[w]).collect();
                    writer.add_document(doc!(body => text.join(" "))).unwrap();
                }
                writer.commit().unwrap();
            }
            for w in &deleted {
                writer.delete_term(Term::from_field_text(body, WORDS[*w]));
            }
            writer.commit().unwrap();
            let searcher = index.reader().unwrap().searcher();
            let clauses: Vec<(Occur, Box<dyn Query>)> = query
                .iter()
                .map(|&w| -> (Occur, Box<dyn Query>) {
                    let t = Term::from_field_text(body, WORDS[w]);
                    (Occur::Should, Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)))
                })
                .collect();
            let q = BooleanQuery::new(clauses);
            let got = top_k(&searcher, &q, k).unwrap();
            let want = searcher.search(&q, &TopDocs::with_limit(k).order_by_score()).unwrap();
            proptest::prop_assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                proptest::prop_assert!((g.0 - w.0).abs() <= 1e-5, "{got:?} vs {want:?}");
            }
            for g in &got {
                proptest::prop_assert!(!searcher.segment_reader(g.1.segment_ord).is_deleted(g.1.doc_id));
            }
        }
    }
}
