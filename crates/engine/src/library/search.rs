//! Hybrid search: the dense, keyword and exact channels fused (by score, or by weighted RRF), with
//! snippets.

use super::*;
use folio_core::chunker::ChunkType;
use folio_core::fusion::Fused;

/// Candidates each channel returns before fusion, by default. ObliQA dev (MiniLM, default weights,
/// 2,788 questions), under RRF: depth 50 → Recall@10 0.744, MAP@10 0.589; 100 → 0.748 / 0.592.
/// Under score fusion the depth also sets each channel's floor: 100 → 0.787 / 0.660, 150 → 0.787
/// / 0.661, 200 → 0.791 / 0.662.
pub const DEFAULT_DEPTH: usize = 200;

/// Keyword hits whose text feeds pseudo-relevance feedback.
const FEEDBACK_DOCS: usize = 5;

/// Search settings.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Hits to return.
    pub limit: usize,
    /// Candidates each channel returns before fusion (default [`DEFAULT_DEPTH`]).
    pub depth: usize,
    /// How the channels are fused, and their weights.
    pub fusion: FusionConfig,
    /// Channels to run (all by default).
    pub channels: Vec<Channel>,
    /// Restrict to documents (ids or labels).
    pub documents: Vec<String>,
    /// Restrict to chunks of these types (all when empty).
    pub chunk_types: Vec<folio_core::chunker::ChunkType>,
    /// Restrict to a section subtree: (document id or label, section id).
    pub section: Option<(String, String)>,
    /// Run the exact channel on every query, not only on lookups (see `Query::is_lookup`).
    pub exact_always: bool,
    /// Weight of the match between the query's words and a hit's section headings and defined
    /// terms, in units of a first-ranked channel (0 = off).
    pub heading_boost: f32,
    /// Share of a top hit's score given to the sections it refers to (0 = off).
    pub follow_refs: f32,
    /// Pseudo-relevance feedback for the keyword channel: terms taken from its first hits and
    /// their weight against a query word (0 terms = off).
    pub feedback_terms: usize,
    /// Weight of a feedback term against a query word.
    pub feedback_weight: f32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 10,
            depth: DEFAULT_DEPTH,
            fusion: FusionConfig::default(),
            channels: Channel::ALL.to_vec(),
            documents: Vec::new(),
            chunk_types: Vec::new(),
            section: None,
            exact_always: false,
            heading_boost: 0.0,
            follow_refs: 0.0,
            feedback_terms: 0,
            feedback_weight: 0.3,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Hit {
    /// The chunk's id in the catalog.
    pub chunk_id: i64,
    /// The fused score (higher is better).
    pub score: f32,
    /// The document's id.
    pub doc_id: i64,
    /// The document's title.
    pub document: String,
    /// The document's short label ("GEN").
    pub label: String,
    /// The document's file.
    pub path: String,
    /// The breadcrumb: the chunk's section and its ancestors, each with its id.
    pub crumbs: Vec<Crumb>,
    /// "GEN 2.1.3, General Rulebook, p. 12".
    pub citation: String,
    /// The section the chunk begins in (an internal id: for links, not for reading).
    pub section_id: String,
    /// That section's number as the document prints it ("5.5.1", "Note 12", "Item 7"), when it
    /// has one.
    pub section_number: Option<String>,
    /// The sections whose own text the chunk holds.
    pub section_ids: Vec<String>,
    /// The document's title and the headings above the chunk, outermost first.
    pub parent_chain: Vec<String>,
    /// What the chunk mostly is (a requirement, a definition, a table …).
    pub chunk_type: folio_core::chunker::ChunkType,
    /// The pages the chunk lies on (paged formats).
    pub pages: Option<folio_core::model::PageRange>,
    /// Where the chunk lies in the document text (bytes).
    pub span: folio_core::model::Span,
    /// The chunk's text.
    pub content: String,
    /// The text as embedded: the chunk's context, then its text.
    pub contextualized: String,
    /// The content with query terms marked `[[like this]]`.
    pub snippet: String,
    /// The chunk's rank and score in the dense (vector) channel, if it was there.
    pub dense: Option<ChannelRank>,
    /// Its rank and score in the keyword (BM25) channel, if it was there.
    pub keyword: Option<ChannelRank>,
    /// Its rank and score in the exact channel (section numbers, defined terms), if there.
    pub exact: Option<ChannelRank>,
    /// Milliseconds per channel and for the whole query.
    pub timings_ms: Timings,
}

/// Where a query's time went.
#[derive(Debug, Clone, Copy, Default, Serialize, schemars::JsonSchema)]
pub struct Timings {
    /// Embedding the query.
    pub embed: f64,
    /// The dense channel's nearest-neighbour search.
    pub dense: f64,
    /// The keyword channel.
    pub keyword: f64,
    /// The exact channel.
    pub exact: f64,
    /// The whole search, fusion and hit assembly included.
    pub total: f64,
}

/// Lower-case words of a query worth highlighting (three letters or more, or numbers).
pub(super) fn highlight_terms(query: &str) -> Vec<String> {
    const STOP: [&str; 12] =
        ["the", "and", "for", "what", "does", "mean", "are", "with", "that", "this", "from", "how"];
    query
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| (w.len() >= 3 || w.chars().any(|c| c.is_ascii_digit())) && !STOP.contains(&w.as_str()))
        .collect()
}

/// Up to ~300 characters around the first query term, terms marked `[[…]]`.
pub(super) fn snippet(text: &str, terms: &[String]) -> String {
    let lower = text.to_lowercase();
    let first = terms.iter().filter_map(|t| lower.find(t.as_str())).min().unwrap_or(0);
    let mut start = first.saturating_sub(80);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + 300).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let window = &text[start..end];
    let wl = window.to_lowercase();
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for t in terms {
        let mut from = 0;
        while let Some(p) = wl[from..].find(t.as_str()) {
            let s = from + p;
            // Lower-casing can change byte lengths; only mark where the window agrees.
            if window.is_char_boundary(s) && window.is_char_boundary(s + t.len()) {
                marks.push((s, s + t.len()));
            }
            from = s + t.len().max(1);
        }
    }
    marks.sort();
    let mut out = String::new();
    let mut at = 0;
    for (s, e) in marks {
        if s < at {
            continue;
        }
        out.push_str(&window[at..s]);
        out.push_str("[[");
        out.push_str(&window[s..e]);
        out.push_str("]]");
        at = e;
    }
    out.push_str(&window[at..]);
    let prefix = if start > 0 { "…" } else { "" };
    let suffix = if end < text.len() { "…" } else { "" };
    format!("{prefix}{}{suffix}", out.replace('\n', " "))
}

impl Library {
    pub(super) fn doc_ids(&self, keys: &[String]) -> Result<Vec<i64>, EngineError> {
        keys.iter().map(|k| self.find_document(k).map(|d| d.id)).collect()
    }

    /// Hybrid search: the channels run side by side, their lists are fused (and reranked where
    /// asked), and the fused list is read back as hits until the limit, filters applied.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>, EngineError> {
        let t0 = Instant::now();
        if query.trim().is_empty() {
            return Err(EngineError::Invalid("the query is empty".into()));
        }
        let scope = self.scope(opts)?;
        // Filters need deeper candidate lists.
        let filtered = !opts.chunk_types.is_empty() || scope.subtree.is_some();
        let depth = if filtered { opts.depth * 4 } else { opts.depth };
        let kfilter = KeywordFilter {
            docs: scope.docs.iter().map(|d| *d as u64).collect(),
            chunk_types: opts.chunk_types.iter().map(|t| t.as_str().to_string()).collect(),
        };
        let (mut lists, mut timings) = self.run_channels(query, opts, &scope.docs, depth, &kfilter)?;
        if opts.feedback_terms > 0 && !lists.keyword.is_empty() {
            let t = Instant::now();
            lists.keyword = self.keyword_with_feedback(query, &lists.keyword, opts, depth, &kfilter)?;
            timings.keyword += t.elapsed().as_secs_f64() * 1e3;
        }
        let mut fused = fuse(
            &[
                (Channel::Dense, &lists.dense[..]),
                (Channel::Keyword, &lists.keyword[..]),
                (Channel::Exact, &lists.exact[..]),
            ],
            &opts.fusion,
            depth,
        );
        self.rerank(query, &mut fused, opts, opts.fusion.unit())?;
        let parsed = parse_query(query);
        if parsed.term.is_none() && !parsed.sections.is_empty() && parsed.is_lookup() {
            lead_with_the_section(&mut fused);
        }
        let mut hits = self.hits(query, &fused, opts, scope.subtree)?;
        timings.total = t0.elapsed().as_secs_f64() * 1e3;
        for h in &mut hits {
            h.timings_ms = timings;
        }
        Ok(hits)
    }

    /// The documents a search is restricted to (ids), and the section subtree (its document and
    /// span) when it is restricted to one.
    fn scope(&self, opts: &SearchOptions) -> Result<SearchScope, EngineError> {
        // Every document named must exist, also where a section narrows the search further.
        let docs = self.doc_ids(&opts.documents)?;
        let Some((doc, sid)) = &opts.section else {
            return Ok(SearchScope { docs, subtree: None });
        };
        let d = self.find_document(doc)?;
        let s = self
            .catalog
            .sections(d.id)?
            .into_iter()
            .find(|s| s.section_id == *sid)
            .ok_or_else(|| EngineError::NotFound(format!("no section {sid} in {}", d.label)))?;
        Ok(SearchScope { docs: vec![d.id], subtree: Some((d.id, s.span)) })
    }

    /// The three channels' ranked lists, the dense and keyword channels on threads of their own
    /// (they share only what is thread-safe: the catalog's connection is not), with their times.
    fn run_channels(
        &self,
        query: &str,
        opts: &SearchOptions,
        docs: &[i64],
        depth: usize,
        kfilter: &KeywordFilter,
    ) -> Result<(ChannelLists, Timings), EngineError> {
        let want = |c| opts.channels.contains(&c);
        let parsed = parse_query(query);
        let (embedder, vectors, keyword_index, exact_index) =
            (&self.embedder, &self.vectors, &self.keyword, &self.exact);
        let mut timings = Timings::default();
        let (dense, keyword, exact) = std::thread::scope(|s| {
            let dense = s.spawn(|| -> Result<(Ranked, f64, f64), EngineError> {
                if !want(Channel::Dense) {
                    return Ok((Vec::new(), 0.0, 0.0));
                }
                let t = Instant::now();
                let v = embedder.embed_query(query)?;
                let embed = t.elapsed().as_secs_f64() * 1e3;
                let t = Instant::now();
                let hits = vectors.search(&v, depth, docs)?;
                Ok((hits, embed, t.elapsed().as_secs_f64() * 1e3))
            });
            let keyword = s.spawn(|| -> Result<(Ranked, f64), EngineError> {
                if !want(Channel::Keyword) {
                    return Ok((Vec::new(), 0.0));
                }
                let t = Instant::now();
                let hits = keyword_index.ranker().rank(query, depth, kfilter)?;
                Ok((
                    hits.into_iter().map(|(id, s)| (id as i64, s)).collect(),
                    t.elapsed().as_secs_f64() * 1e3,
                ))
            });
            let t = Instant::now();
            // The exact channel answers lookups, not questions that merely cite a rule.
            let exact = if want(Channel::Exact) && (parsed.is_lookup() || opts.exact_always) {
                exact_index.search(&parsed, depth, docs)
            } else {
                Vec::new()
            };
            let exact_ms = t.elapsed().as_secs_f64() * 1e3;
            let panicked = |c: &str| EngineError::Internal(format!("the {c} channel panicked"));
            (
                dense.join().unwrap_or_else(|_| Err(panicked("dense"))),
                keyword.join().unwrap_or_else(|_| Err(panicked("keyword"))),
                (exact, exact_ms),
            )
        });
        let (dense, embed_ms, dense_ms) = dense?;
        let (keyword, keyword_ms) = keyword?;
        let (exact, exact_ms) = exact;
        timings.embed = embed_ms;
        timings.dense = dense_ms;
        timings.keyword = keyword_ms;
        timings.exact = exact_ms;
        Ok((ChannelLists { dense, keyword, exact }, timings))
    }

    /// The keyword channel again with pseudo-relevance feedback: the words of its first hits, the
    /// rarer the heavier, added to the query. Only BM25 on this computer can weigh the words (its
    /// term statistics); a server's ranking keeps its first list, asked once.
    fn keyword_with_feedback(
        &self,
        query: &str,
        first: &Ranked,
        opts: &SearchOptions,
        depth: usize,
        kfilter: &KeywordFilter,
    ) -> Result<Ranked, EngineError> {
        let Some(index) = self.keyword.local() else { return Ok(first.clone()) };
        let ids: Vec<i64> = first.iter().take(FEEDBACK_DOCS).map(|(id, _)| *id).collect();
        let texts: Vec<String> =
            self.catalog.chunks_by_id(&ids)?.iter().map(|r| r.contextualized()).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let fb = index.feedback_terms(query, &texts, opts.feedback_terms)?;
        Ok(index
            .search_expanded(query, &fb, opts.feedback_weight, depth, kfilter)?
            .into_iter()
            .map(|(id, s)| (id as i64, s))
            .collect())
    }

    /// The fused list read back as hits, in batches, until the limit: filtered by chunk type and
    /// subtree, and only from documents whole in every store.
    fn hits(
        &self,
        query: &str,
        fused: &[Fused<i64>],
        opts: &SearchOptions,
        subtree: Option<(i64, folio_core::model::Span)>,
    ) -> Result<Vec<Hit>, EngineError> {
        let terms = highlight_terms(query);
        let mut hits = Vec::with_capacity(opts.limit);
        for batch in fused.chunks(opts.limit.max(1) * 2) {
            let ids: Vec<i64> = batch.iter().map(|f| f.id).collect();
            let rows = self.catalog.chunks_by_id(&ids)?;
            for f in batch {
                let Some(row) = rows.iter().find(|r| r.id == f.id) else { continue };
                if !opts.chunk_types.is_empty()
                    && !opts.chunk_types.iter().any(|t| t.as_str() == row.chunk_type)
                {
                    continue;
                }
                if let Some((d, span)) = &subtree {
                    if row.doc_id != *d || row.span.start < span.start || row.span.end > span.end {
                        continue;
                    }
                }
                let Some(doc) =
                    self.docs.iter().find(|d| d.id == row.doc_id && d.status == DocumentStatus::Indexed)
                else {
                    continue;
                };
                hits.push(self.hit(row, doc, f, &terms));
                if hits.len() >= opts.limit {
                    return Ok(hits);
                }
            }
        }
        Ok(hits)
    }

    /// One hit: the chunk with its document, breadcrumb, citation, snippet and channel ranks.
    fn hit(&self, row: &ChunkRow, doc: &DocumentRow, f: &Fused<i64>, terms: &[String]) -> Hit {
        Hit {
            chunk_id: row.id,
            score: f.score,
            doc_id: row.doc_id,
            document: doc.title.clone(),
            label: doc.label.clone(),
            path: doc.path.clone(),
            crumbs: self.crumbs(row.doc_id, &row.section_id),
            citation: self.citation(Some(doc), &row.section_id, row.pages),
            section_id: row.section_id.clone(),
            section_number: self.section_row(row.doc_id, &row.section_id).and_then(|s| s.number.clone()),
            section_ids: row.section_ids.clone(),
            // The chain's root is the document, named as the library names it now (its title may
            // have been given by the library or the user since the chunk was stored).
            parent_chain: std::iter::once(doc.title.clone())
                .chain(row.parent_chain.iter().skip(1).cloned())
                .collect(),
            // A name this version does not know (a later version's) reads as plain content.
            chunk_type: ChunkType::parse(&row.chunk_type).unwrap_or(ChunkType::Content),
            pages: row.pages,
            span: row.span,
            content: row.content.clone(),
            contextualized: row.contextualized(),
            snippet: snippet(&row.content, terms),
            dense: f.channel(Channel::Dense),
            keyword: f.channel(Channel::Keyword),
            exact: f.channel(Channel::Exact),
            timings_ms: Timings::default(),
        }
    }
}

/// A section lookup ("GEN Rule 5.5.1", "Section 203(a)") leads with the section's own text, then
/// its guidance, then what cites it: the exact channel's order (its tiers, in reading order
/// within each), whatever the other channels thought of those chunks; the rest follow in fused
/// order.
fn lead_with_the_section(fused: &mut [Fused<i64>]) {
    let key = |(i, f): &(usize, &Fused<i64>)| match f.channel(Channel::Exact) {
        Some(r) => (0, r.rank),
        None => (1, *i),
    };
    let mut order: Vec<(usize, &Fused<i64>)> = fused.iter().enumerate().collect();
    order.sort_by_key(key);
    let sorted: Vec<Fused<i64>> = order.into_iter().map(|(_, f)| f.clone()).collect();
    fused.clone_from_slice(&sorted);
}

/// Where a search looks: documents (ids; empty for all) and a section subtree.
struct SearchScope {
    docs: Vec<i64>,
    subtree: Option<(i64, folio_core::model::Span)>,
}

/// The channels' ranked lists, before fusion.
struct ChannelLists {
    dense: Ranked,
    keyword: Ranked,
    exact: Ranked,
}
