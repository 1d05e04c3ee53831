//! The best-scoring chunks of a disjunction of words by MaxScore (Turtle and Flood, 1995), its
//! candidates added up a window of chunk numbers at a time: the same chunks and scores as
//! tantivy's block-max WAND over the same term queries, with less work where a query has many
//! words and many chunks are asked for.
//!
//! The keyword channel asks for hundreds of candidates with a dozen words or more (a question,
//! stop words removed). Block-max WAND re-sorts the words' cursors by their document at every
//! step, and with hundreds asked for the bar a chunk must beat stays low, so it skips little: at
//! a million chunks it was most of the channel's time. MaxScore orders the words once, by the
//! most each can add to a chunk's score. The words whose bounds add up to no more than the bar
//! are *non-essential*: a chunk holding only those cannot beat it. The other, rarer words are
//! walked a window of [`WINDOW`] chunk numbers at a time, each word's postings in one loop into
//! one sum per chunk (no cursor comparisons per chunk); each chunk they hold then seeks the
//! non-essential words' postings, strongest first, and stops as soon as what is left to add
//! cannot lift it over the bar. As the bar rises, more words become non-essential and their
//! postings are only ever sought, not walked.
//!
//! A million-chunk library (`examples/library_million`), the keyword channel alone over 580
//! ObliQA dev questions, p50 / p99: block-max WAND 9.8 / 22 ms, MaxScore chunk by chunk 8.0 /
//! 18.7 ms, by windows 5.7 / 11 ms.
//!
//! Segments are ranked largest first, each from the bar the best so far set ([`super::top`]).

use super::rescore::seek;
use super::top::{largest_first, Best};
use crate::IndexError;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::Bm25Weight;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Score, Searcher, SegmentReader, Term, TERMINATED};

/// A query word and the weight its BM25 score counts with (a term query boosted by `boost`,
/// which must be positive: a word can only raise a chunk's score).
#[derive(Debug, Clone)]
pub(super) struct Clause {
    pub term: Term,
    pub boost: Score,
}

/// Bounds are raised by this share, so that a sum taken in another order (rounded differently)
/// never exceeds the bound it was checked against.
const BOUND_SLACK: Score = 1e-5;

/// One word's postings in one segment.
struct Cursor {
    postings: SegmentPostings,
    norms: FieldNormReader,
    weight: Bm25Weight,
    /// The most this word adds to any chunk's score.
    most: Score,
}

impl Cursor {
    /// The word's score in the chunk its postings are on.
    fn score(&self) -> Score {
        let doc = self.postings.doc();
        self.weight.score(self.norms.fieldnorm_id(doc), self.postings.term_freq())
    }
}

/// The best `k` chunks for the sum of the clauses' BM25 scores (at least one asked for), best
/// first; a chunk must hold one of the words.
pub(super) fn top_k(
    searcher: &Searcher,
    clauses: &[Clause],
    k: usize,
) -> Result<Vec<(Score, DocAddress)>, IndexError> {
    let weights = clauses
        .iter()
        .map(|c| Ok(Bm25Weight::for_terms(searcher, std::slice::from_ref(&c.term))?.boost_by(c.boost)))
        .collect::<Result<Vec<_>, IndexError>>()?;
    debug_assert!(clauses.iter().all(|c| c.boost > 0.0), "MaxScore needs positive weights");
    let mut best = Best::new(k);
    for segment in largest_first(searcher) {
        rank_segment(searcher.segment_reader(segment), segment, clauses, &weights, &mut best)?;
    }
    Ok(best.into_sorted())
}

/// The clauses' cursors in one segment (words it does not hold left out), weakest bound first.
fn cursors(
    reader: &SegmentReader,
    clauses: &[Clause],
    weights: &[Bm25Weight],
) -> Result<Vec<Cursor>, IndexError> {
    let mut out = Vec::with_capacity(clauses.len());
    for (c, weight) in clauses.iter().zip(weights) {
        let field = c.term.field();
        let Some(postings) =
            reader.inverted_index(field)?.read_postings(&c.term, IndexRecordOption::WithFreqs)?
        else {
            continue;
        };
        if postings.doc() == TERMINATED {
            continue;
        }
        let norms = reader.get_fieldnorms_reader(field)?;
        out.push(Cursor { postings, norms, most: weight.max_score(), weight: weight.clone() });
    }
    out.sort_by(|a, b| a.most.total_cmp(&b.most));
    Ok(out)
}

/// Chunk numbers whose essential words are added up together: each word's postings in the window
/// are walked in one loop, into one sum per chunk.
const WINDOW: usize = 2048;

/// Adds one segment's chunks that beat the bar to `best`.
fn rank_segment(
    reader: &SegmentReader,
    segment: u32,
    clauses: &[Clause],
    weights: &[Bm25Weight],
    best: &mut Best,
) -> Result<(), IndexError> {
    let mut cursors = cursors(reader, clauses, weights)?;
    // bound[i]: the most cursors[..=i] add to a chunk together.
    let bound: Vec<Score> = cursors
        .iter()
        .scan(0.0, |sum, c| {
            *sum += c.most;
            Some(*sum * (1.0 + BOUND_SLACK))
        })
        .collect();
    let alive = reader.alive_bitset();
    let mut bar = best.bar();
    let (mut sums, mut held) = (vec![0.0 as Score; WINDOW], vec![0u64; WINDOW / 64]);
    // cursors[..essential] cannot lift a chunk over the bar by themselves.
    let mut essential = bound.partition_point(|&b| b <= bar);
    while essential < cursors.len() {
        let start = cursors[essential..].iter().map(|c| c.postings.doc()).min().unwrap_or(TERMINATED);
        if start == TERMINATED {
            break;
        }
        let end = start.saturating_add(WINDOW as u32);
        for c in &mut cursors[essential..] {
            let mut doc = c.postings.doc();
            while doc < end {
                let at = (doc - start) as usize;
                sums[at] += c.score();
                held[at / 64] |= 1 << (at % 64);
                doc = c.postings.advance();
            }
        }
        // The window's chunks in order, each completed by the non-essential words that could
        // still lift it over the bar, strongest first.
        for (w, word) in held.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let at = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let doc = start + at as u32;
                let mut score = std::mem::take(&mut sums[at]);
                for i in (0..essential).rev() {
                    if score + bound[i] <= bar {
                        break;
                    }
                    let c = &mut cursors[i];
                    if seek(&mut c.postings, doc) {
                        score += c.score();
                    }
                }
                if score > bar && !alive.is_some_and(|a| a.is_deleted(doc)) {
                    bar = best.push(score, DocAddress::new(segment, doc));
                }
            }
        }
        while essential < cursors.len() && bound[essential] <= bar {
            essential += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Index};

    const WORDS: [&str; 10] =
        ["firm", "client", "money", "rules", "market", "risk", "fund", "audit", "conduct", "business"];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// MaxScore finds the chunks tantivy's collector finds for the same boosted term queries
        /// over two fields, across segments with deletions (scores equal; the order of equal
        /// scores aside).
        #[test]
        fn the_best_are_tantivys(
            segments in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::collection::vec(0usize..10, 1..16), proptest::collection::vec(0usize..10, 0..3)),
                    1..40),
                1..5),
            deleted in proptest::collection::vec(0usize..10, 0..2),
            query in proptest::collection::vec((0usize..10, proptest::bool::ANY, 0usize..3), 1..8),
            k in 1usize..30,
        ) {
            let mut schema = Schema::builder();
            let body = schema.add_text_field("body", TEXT);
            let ids = schema.add_text_field("ids", TEXT);
            let index = Index::create_in_ram(schema.build());
            let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
            writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
            let text = |w: &[usize]| w.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
            for chunks in &segments {
                for (b, i) in chunks {
                    writer.add_document(doc!(body => text(b), ids => text(i))).unwrap();
                }
                writer.commit().unwrap();
            }
            for w in &deleted {
                writer.delete_term(Term::from_field_text(ids, WORDS[*w]));
            }
            writer.commit().unwrap();
            let searcher = index.reader().unwrap().searcher();
            let boosts = [1.0, 2.0, 0.3];
            let clauses: Vec<Clause> = query
                .iter()
                .map(|&(w, in_ids, b)| Clause {
                    term: Term::from_field_text(if in_ids { ids } else { body }, WORDS[w]),
                    boost: boosts[b],
                })
                .collect();
            let should: Vec<(Occur, Box<dyn Query>)> = clauses
                .iter()
                .map(|c| -> (Occur, Box<dyn Query>) {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(c.term.clone(), IndexRecordOption::WithFreqs));
                    (Occur::Should, Box::new(BoostQuery::new(q, c.boost)))
                })
                .collect();
            let got = top_k(&searcher, &clauses, k).unwrap();
            let want = searcher
                .search(&BooleanQuery::new(should), &TopDocs::with_limit(k).order_by_score())
                .unwrap();
            proptest::prop_assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                proptest::prop_assert!((g.0 - w.0).abs() <= 1e-4 * w.0.abs().max(1.0), "{got:?} vs {want:?}");
            }
            for g in &got {
                proptest::prop_assert!(!searcher.segment_reader(g.1.segment_ord).is_deleted(g.1.doc_id));
            }
        }
    }
}
