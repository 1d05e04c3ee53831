//! BM25 over chunks with tantivy: a stemmed English field over the contextualized text and the
//! heading chain, and an identifier field whose tokenizer keeps numbers whole ("2.1.3", "203(a)",
//! "4.2"), so "GEN 2.1.3" matches the rule and not every "2" and "1".

use crate::IndexError;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RegexTokenizer, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter,
    TextAnalyzer, TokenStream,
};
use tantivy::{doc, Index, IndexReader, IndexWriter, ReloadPolicy, Term};

mod maxscore;
mod rescore;
mod top;

const IDS_TOKENIZER: &str = "folio_ids";
const BODY_TOKENIZER: &str = "en_stem";
/// The body field's analyzer for queries: `en_stem` with English stop words removed.
const QUERY_BODY_TOKENIZER: &str = "folio_en_query";
/// Identifiers: dotted numbers with optional letter suffixes and bracketed parts, "§"-free.
const ID_PATTERN: &str = r"[0-9]+[A-Za-z]?(?:\.[0-9]+[A-Za-z]?)*(?:\([A-Za-z0-9]{1,4}\))*";
/// How much an identifier match counts against a word match.
const ID_BOOST: f32 = 2.0;
/// How much two neighbouring query words found side by side in a chunk add, against a word match.
/// ObliQA (BM25 alone, 64-token merge limit, even half of the dev questions): no pairs 0.702 /
/// 0.562 Recall@10 / MAP@10; boost 0.25 → 0.723 / 0.588; 0.35 → 0.732 / 0.597; 0.5 → 0.733 /
/// 0.599; 0.75 → 0.731 / 0.597; 1 → 0.726 / 0.594 (all questions: 2 → 0.718 / 0.583).
const PAIR_BOOST: f32 = 0.5;
/// How many times the asked-for number of chunks the rarer words rank before the common words and
/// the pairs are scored on them (see [`rescore`]); a chunk below that depth would need more from
/// those than the rarer words' score gap to reach the asked-for number.
const CANDIDATES: usize = 3;
/// A query word held by more than this share of the chunks is scored only on the candidates the
/// rarer words rank (see [`rescore`]), where one of the rarer words is in enough chunks to fill
/// them. ObliQA dev, all 2,788 questions, MiniLM, three channels fused (Recall@10 / MAP@10), every
/// word ranked: 0.790 / 0.662. Common words scored later whether or not the rarer fill the
/// candidates: a share of 0.2 with twice the candidates 0.790 / 0.661, 0.15 0.789 / 0.661, 0.1 with
/// three times 0.789 / 0.661, with twice 0.787 / 0.660, 0.05 0.782 / 0.652; the keyword channel at
/// a million chunks (p50 / p99 ms): 25.2 / 55.6 every word, 18.3 / 43.5 at 0.2, 14.5 / 26.7 at 0.1
/// (three times), 9.8 / 19.0 at 0.05. The cookbook's Pass@10 fell from 93.9 to 92.7 at 0.1 that
/// way; only when the rarer words fill the candidates, it stays 93.9 (ObliQA 0.789 / 0.661).
const COMMON_SHARE: f64 = 0.1;

/// Where the keyword channel's ranking comes from: this computer's BM25 index
/// ([`KeywordIndex`]), or a server's own full-text search (a team library's PostgreSQL). Chunk ids
/// with scores, best first; only the order counts (the channels are fused by rank or by
/// normalised score).
pub trait KeywordRanker: Send + Sync {
    /// At most `limit` chunks matching `query`, within `filter`.
    fn rank(&self, query: &str, limit: usize, filter: &KeywordFilter) -> Result<Vec<(u64, f32)>, IndexError>;
}

impl KeywordRanker for KeywordIndex {
    fn rank(&self, query: &str, limit: usize, filter: &KeywordFilter) -> Result<Vec<(u64, f32)>, IndexError> {
        self.search(query, limit, filter)
    }
}

/// The keyword index.
pub struct KeywordIndex {
    index: Index,
    reader: IndexReader,
    /// Made at the first write; behind a lock so that a write goes through a shared index while
    /// searches (which use `reader` alone) go on.
    writer: Mutex<Option<IndexWriter>>,
    f_chunk: Field,
    f_doc: Field,
    f_type: Field,
    f_body: Field,
    f_ids: Field,
}

/// The keyword index's writer, held locked.
struct WriterGuard<'a>(MutexGuard<'a, Option<IndexWriter>>);

impl WriterGuard<'_> {
    fn get(&mut self) -> &mut IndexWriter {
        self.0.as_mut().expect("the writer is made before its guard is handed out")
    }
}

/// A chunk to index.
pub struct KeywordDoc<'a> {
    /// The chunk's id in the catalog.
    pub chunk_id: u64,
    /// Its document's id.
    pub doc_id: u64,
    /// What the chunk mostly is (`definition`, `requirement`, …), for filtering.
    pub chunk_type: &'a str,
    /// The contextualized text.
    pub text: &'a str,
    /// The heading chain, joined.
    pub headings: &'a str,
}

/// Weighted terms from pseudo-relevance feedback ([`KeywordIndex::feedback_terms`]).
#[derive(Debug, Default, Clone)]
pub struct Feedback(Vec<(Term, f32)>);

impl Feedback {
    /// How many terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no terms.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Filters on a keyword search.
#[derive(Debug, Default, Clone)]
pub struct KeywordFilter {
    /// Only these documents' chunks; empty for all documents.
    pub docs: Vec<u64>,
    /// Only chunks of these types (`requirement`, …); empty for all types.
    pub chunk_types: Vec<String>,
}

fn schema() -> Schema {
    let mut b = Schema::builder();
    b.add_u64_field("chunk_id", INDEXED | STORED | FAST);
    b.add_u64_field("doc_id", INDEXED | FAST);
    b.add_text_field("chunk_type", STRING);
    let body = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(BODY_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    b.add_text_field("body", body);
    let ids = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(IDS_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    b.add_text_field("ids", ids);
    b.build()
}

/// tantivy's `en_stem` (simple tokens, at most 40 bytes, lower-cased, Snowball English stems) with
/// English stop words removed before stemming.
fn query_body_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::English).expect("tantivy ships English stop words"))
        .filter(Stemmer::new(Language::English))
        .build()
}

fn ids_analyzer() -> Result<TextAnalyzer, IndexError> {
    Ok(TextAnalyzer::builder(RegexTokenizer::new(ID_PATTERN)?).filter(LowerCaser).build())
}

impl KeywordIndex {
    /// Opens or creates the index in a folder.
    pub fn open(dir: &Path) -> Result<KeywordIndex, IndexError> {
        let index = crate::creation::one_at_a_time(dir, || {
            Ok(if dir.join("meta.json").exists() {
                Index::open_in_dir(dir)?
            } else {
                Index::create_in_dir(dir, schema())?
            })
        })?;
        Self::setup(index)
    }

    /// An in-RAM index, for tests.
    pub fn in_memory() -> Result<KeywordIndex, IndexError> {
        Self::setup(Index::create_in_ram(schema()))
    }

    fn setup(index: Index) -> Result<KeywordIndex, IndexError> {
        index.tokenizers().register(IDS_TOKENIZER, ids_analyzer()?);
        index.tokenizers().register(QUERY_BODY_TOKENIZER, query_body_analyzer());
        let s = index.schema();
        let field = |n: &str| {
            s.get_field(n).map_err(|_| IndexError::Corrupt(format!("keyword index lacks field {n}")))
        };
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(KeywordIndex {
            f_chunk: field("chunk_id")?,
            f_doc: field("doc_id")?,
            f_type: field("chunk_type")?,
            f_body: field("body")?,
            f_ids: field("ids")?,
            index,
            reader,
            writer: Mutex::new(None),
        })
    }

    /// The writer, made at the first write. A panic during a write leaves tantivy's writer as
    /// tantivy leaves it (uncommitted changes are dropped at the next commit or open), so a
    /// poisoned lock is taken over.
    fn writer(&self) -> Result<WriterGuard<'_>, IndexError> {
        let mut guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(self.index.writer_with_num_threads(1, 64 * 1024 * 1024)?);
        }
        Ok(WriterGuard(guard))
    }

    /// Replaces a document's chunks (uncommitted until [`KeywordIndex::commit`]).
    pub fn put_document(&self, doc_id: u64, chunks: &[KeywordDoc<'_>]) -> Result<(), IndexError> {
        let (f_chunk, f_doc, f_type, f_body, f_ids) =
            (self.f_chunk, self.f_doc, self.f_type, self.f_body, self.f_ids);
        let mut guard = self.writer()?;
        let w = guard.get();
        w.delete_term(Term::from_field_u64(f_doc, doc_id));
        for c in chunks {
            let body = format!("{}\n{}", c.headings, c.text);
            let ids = format!("{}\n{}", c.headings, c.text);
            w.add_document(doc!(
                f_chunk => c.chunk_id,
                f_doc => c.doc_id,
                f_type => c.chunk_type,
                f_body => body,
                f_ids => ids,
            ))?;
        }
        Ok(())
    }

    /// Removes a document's chunks (uncommitted until [`KeywordIndex::commit`]).
    pub fn remove_document(&self, doc_id: u64) -> Result<(), IndexError> {
        self.writer()?.get().delete_term(Term::from_field_u64(self.f_doc, doc_id));
        Ok(())
    }

    /// Chunks indexed for a document (consistency checks).
    pub fn document_count(&self, doc_id: u64) -> Result<usize, IndexError> {
        let q = TermQuery::new(Term::from_field_u64(self.f_doc, doc_id), IndexRecordOption::Basic);
        Ok(self.reader.searcher().search(&q, &tantivy::collector::Count)?)
    }

    /// Sees what another process committed since the last look.
    pub fn reload(&self) -> Result<(), IndexError> {
        Ok(self.reader.reload()?)
    }

    /// Makes written changes durable and visible.
    pub fn commit(&self) -> Result<(), IndexError> {
        if let Some(w) = self.writer.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            w.commit()?;
        }
        self.reader.reload()?;
        Ok(())
    }

    /// The terms of a query under a field's analyzer, with their word positions, in order (repeats
    /// kept). Query words of the body field also pass an English stop-word filter: the index keeps
    /// "the" and "of" (phrases and snippets need them), but as query terms they only add noise; the
    /// words after them keep their positions.
    fn positioned_terms(&self, field: Field, text: &str) -> Result<Vec<(usize, Term)>, IndexError> {
        let mut analyzer = match self.index.tokenizers().get(QUERY_BODY_TOKENIZER) {
            Some(a) if field == self.f_body => a,
            _ => self.index.tokenizer_for_field(field)?,
        };
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(tok) = stream.next() {
            out.push((tok.position, Term::from_field_text(field, &tok.text)));
        }
        Ok(out)
    }

    /// BM25 search: chunk ids with scores, best first.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        filter: &KeywordFilter,
    ) -> Result<Vec<(u64, f32)>, IndexError> {
        self.search_expanded(query, &Feedback::default(), 0.0, limit, filter)
    }

    /// Terms to add to a query from texts that answered it well (pseudo-relevance feedback): the
    /// words the texts use most, weighed by how rare they are in the index, the query's own words
    /// left out; at most `n`, their weights scaled so the strongest is 1.
    pub fn feedback_terms(&self, query: &str, texts: &[&str], n: usize) -> Result<Feedback, IndexError> {
        let own: Vec<Term> = self.positioned_terms(self.f_body, query)?.into_iter().map(|(_, t)| t).collect();
        let searcher = self.reader.searcher();
        let docs = searcher.num_docs().max(1) as f32;
        let mut weight: std::collections::HashMap<Term, f32> = std::collections::HashMap::new();
        for text in texts {
            let terms = self.positioned_terms(self.f_body, text)?;
            let len = terms.len().max(1) as f32;
            for (_, t) in terms {
                if own.contains(&t)
                    || t.value()
                        .as_str()
                        .is_some_and(|w| w.len() < 3 || w.chars().any(|c| c.is_ascii_digit()))
                {
                    continue;
                }
                *weight.entry(t).or_default() += 1.0 / len;
            }
        }
        let mut scored: Vec<(Term, f32)> = weight
            .into_iter()
            .map(|(t, tf)| {
                let df = searcher.doc_freq(&t).unwrap_or(0) as f32;
                let idf = (docs / (df + 1.0)).ln().max(0.0);
                (t, tf * idf)
            })
            .filter(|(_, w)| *w > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(n);
        let top = scored.first().map_or(1.0, |x| x.1);
        Ok(Feedback(scored.into_iter().map(|(t, w)| (t, w / top)).collect()))
    }

    /// BM25 search with the feedback terms added, each boosted by its weight times `weight`.
    pub fn search_expanded(
        &self,
        query: &str,
        feedback: &Feedback,
        weight: f32,
        limit: usize,
        filter: &KeywordFilter,
    ) -> Result<Vec<(u64, f32)>, IndexError> {
        self.ranked(query, feedback, weight, limit, filter, COMMON_SHARE)
    }

    /// [`KeywordIndex::search_expanded`], the words held by more than `common_share` of the chunks
    /// scored on the candidates the others rank (see [`rescore`]).
    fn ranked(
        &self,
        query: &str,
        feedback: &Feedback,
        weight: f32,
        limit: usize,
        filter: &KeywordFilter,
        common_share: f64,
    ) -> Result<Vec<(u64, f32)>, IndexError> {
        let words = self.positioned_terms(self.f_body, query)?;
        let mut clauses: Vec<maxscore::Clause> =
            feedback.0.iter().map(|(t, w)| maxscore::Clause { term: t.clone(), boost: w * weight }).collect();
        let searcher = self.reader.searcher();
        // The common words are scored on the candidates alone, where the rarer words are enough to
        // fill the candidates (one of them in that many chunks).
        let limit = limit.max(1);
        let depth = limit.saturating_mul(CANDIDATES);
        let (mut rare, mut common, mut fill) = (Vec::new(), Vec::new(), 0);
        let most = (searcher.num_docs() as f64 * common_share) as u64;
        for t in distinct(&words) {
            match searcher.doc_freq(&t)? {
                0 => {}
                n if n > most => common.push(t),
                n => {
                    fill = fill.max(n);
                    rare.push(t);
                }
            }
        }
        if fill < depth as u64 {
            rare.append(&mut common);
        }
        clauses.extend(rare.into_iter().map(|term| maxscore::Clause { term, boost: 1.0 }));
        for term in distinct(&self.positioned_terms(self.f_ids, query)?) {
            clauses.push(maxscore::Clause { term, boost: ID_BOOST });
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let later = rescore::Later { words: common, pairs: rescore::pairs(&words), pair_boost: PAIR_BOOST };
        let depth = if later.pairs.is_empty() && later.words.is_empty() { limit } else { depth };
        // The words alone, unrestricted, are a disjunction ranked by MaxScore (which needs every
        // word to raise a score: a feedback weight may be set below zero); a restriction makes it
        // an intersection, which tantivy ranks.
        let unrestricted = filter.docs.is_empty() && filter.chunk_types.is_empty();
        let mut top = if unrestricted && clauses.iter().all(|c| c.boost > 0.0) {
            maxscore::top_k(&searcher, &clauses, depth)?
        } else {
            top::top_k(&searcher, &*self.words_query(&clauses, filter), depth)?
        };
        rescore::add_scores(&searcher, &later, &mut top)?;
        top.truncate(limit);
        // Chunk ids from the fast field's columns (a stored document is a compressed block read).
        let mut columns = std::collections::HashMap::new();
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let column = match columns.entry(addr.segment_ord) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(searcher.segment_reader(addr.segment_ord).fast_fields().u64("chunk_id")?)
                }
            };
            if let Some(id) = column.first(addr.doc_id) {
                out.push((id, score));
            }
        }
        Ok(out)
    }

    /// The clauses as one tantivy query, within the filter's documents and chunk types if any.
    fn words_query(&self, clauses: &[maxscore::Clause], filter: &KeywordFilter) -> Box<dyn Query> {
        let should: Vec<(Occur, Box<dyn Query>)> = clauses
            .iter()
            .map(|c| -> (Occur, Box<dyn Query>) {
                let q: Box<dyn Query> =
                    Box::new(TermQuery::new(c.term.clone(), IndexRecordOption::WithFreqs));
                let q: Box<dyn Query> =
                    if c.boost == 1.0 { q } else { Box::new(BoostQuery::new(q, c.boost)) };
                (Occur::Should, q)
            })
            .collect();
        let words: Box<dyn Query> = Box::new(BooleanQuery::new(should));
        let mut restrictions = Vec::new();
        if !filter.docs.is_empty() {
            let docs = filter.docs.iter().map(|d| Term::from_field_u64(self.f_doc, *d));
            restrictions.push(any_of(docs));
        }
        if !filter.chunk_types.is_empty() {
            let types = filter.chunk_types.iter().map(|t| Term::from_field_text(self.f_type, t));
            restrictions.push(any_of(types));
        }
        if restrictions.is_empty() {
            return words;
        }
        let mut all: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, words)];
        all.extend(restrictions.into_iter().map(|r| (Occur::Must, r)));
        Box::new(BooleanQuery::new(all))
    }

    /// How many chunks are indexed.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether no chunk is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A query matching any of the terms (no scoring of its own: a restriction).
fn any_of(terms: impl Iterator<Item = Term>) -> Box<dyn Query> {
    let clauses: Vec<(Occur, Box<dyn Query>)> = terms
        .map(|t| -> (Occur, Box<dyn Query>) {
            (Occur::Should, Box::new(TermQuery::new(t, IndexRecordOption::Basic)))
        })
        .collect();
    Box::new(BooleanQuery::new(clauses))
}

/// The distinct terms of a query, in order.
fn distinct(words: &[(usize, Term)]) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    for (_, t) in words {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests;
