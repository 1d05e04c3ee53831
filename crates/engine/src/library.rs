//! The library: ingest, search and navigation over one folder.

use crate::EngineError;
use folio_ai::Embedder;
use folio_convert::{convert_file, ConvertOptions};
use folio_core::analysis::analyze;
use folio_core::chunker::ChunkerConfig;
use folio_core::fusion::{fuse, Channel, ChannelRank, FusionConfig};
use folio_core::query::parse_query;
use folio_core::tokens::{TokenCounter, WordCounter, WordPieceCounter};
use crate::context::{contextualize, plan, ContextMode};
use folio_ai::context::cost::Estimate;
use folio_index::catalog::{Catalog, ChunkRow, ContextRun, DefinitionRow, DocumentRow, RefRow, SectionRow};
use folio_index::exact::{document_label, number_keys, ExactIndex};
use folio_index::keyword::{KeywordDoc, KeywordFilter, KeywordIndex};
use folio_index::vectors::{LanceVectors, MemoryVectors, VectorRecord, VectorStore};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

/// A channel's ranked chunk ids with their scores.
type Ranked = Vec<(i64, f32)>;

/// How a library is opened.
#[derive(Debug, Clone)]
pub struct LibraryOptions {
    pub chunker: ChunkerConfig,
    pub convert: ConvertOptions,
    /// Keep vectors in RAM instead of LanceDB (tests).
    pub in_memory_vectors: bool,
    /// The vocabulary for counting chunk tokens in the embedder's own units (`vocab.txt`).
    pub vocab: Option<PathBuf>,
    /// Texts embedded per batch during ingest.
    pub embed_batch: usize,
    /// How chunks get their context (structural by default).
    pub context: ContextMode,
}

impl Default for LibraryOptions {
    fn default() -> Self {
        LibraryOptions {
            // The whole MiniLM window for chunk text: on ObliQA 96.9 % of the gold passages lie
            // inside one chunk at 254 pieces against 75.5 % at 154. The heading chain (and an
            // LLM context, when there is one) that overflow the window are embedded as a further
            // window and averaged in (see `folio_ai::MiniLm::embed_documents`).
            chunker: ChunkerConfig::for_window(256, 0),
            convert: ConvertOptions::default(),
            in_memory_vectors: false,
            vocab: None,
            embed_batch: 64,
            context: ContextMode::default(),
        }
    }
}

/// What ingest is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Queued,
    Converting,
    Contextualizing,
    Embedding,
    Indexing,
    Indexed,
    Unchanged,
    Failed,
}

/// A progress event.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub file: String,
    /// Index of the file among those asked for, and their number.
    pub file_index: usize,
    pub files: usize,
    pub stage: Stage,
    /// Work done and total within the stage (chunks embedded, say).
    pub done: usize,
    pub total: usize,
}

/// One failed file.
#[derive(Debug, Clone, Serialize)]
pub struct IngestFailure {
    pub path: String,
    pub code: String,
    pub message: String,
}

/// The result of an ingest.
#[derive(Debug, Default, Clone, Serialize)]
pub struct IngestReport {
    pub indexed: Vec<String>,
    pub unchanged: Vec<String>,
    pub failed: Vec<IngestFailure>,
    pub cancelled: bool,
    pub chunks: usize,
    pub seconds: f64,
    /// Per document contextualized by an LLM: cache hits and misses, fallbacks, tokens and cost.
    pub contexts: Vec<ContextRun>,
}

/// Search settings.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub limit: usize,
    /// Candidates each channel returns before fusion.
    pub depth: usize,
    pub fusion: FusionConfig,
    /// Channels to run (all by default).
    pub channels: Vec<Channel>,
    /// Restrict to documents (ids or labels).
    pub documents: Vec<String>,
    pub chunk_types: Vec<String>,
    /// Restrict to a section subtree: (document id or label, section id).
    pub section: Option<(String, String)>,
    /// Run the exact channel on every query, not only on lookups (see `Query::is_lookup`).
    pub exact_always: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 10,
            depth: 50,
            fusion: FusionConfig::default(),
            channels: Channel::ALL.to_vec(),
            documents: Vec::new(),
            chunk_types: Vec::new(),
            section: None,
            exact_always: false,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub chunk_id: i64,
    pub score: f32,
    pub doc_id: i64,
    pub document: String,
    pub path: String,
    pub section_id: String,
    /// The sections whose own text the chunk holds.
    pub section_ids: Vec<String>,
    pub parent_chain: Vec<String>,
    pub chunk_type: String,
    pub pages: Option<folio_core::model::PageRange>,
    pub span: folio_core::model::Span,
    pub content: String,
    pub contextualized: String,
    /// The content with query terms marked `[[like this]]`.
    pub snippet: String,
    pub dense: Option<ChannelRank>,
    pub keyword: Option<ChannelRank>,
    pub exact: Option<ChannelRank>,
    /// Milliseconds per channel and for the whole query.
    pub timings_ms: Timings,
}

/// Where a query's time went.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Timings {
    pub embed: f64,
    pub dense: f64,
    pub keyword: f64,
    pub exact: f64,
    pub total: f64,
}

/// A definition with its document.
#[derive(Debug, Clone, Serialize)]
pub struct DefinitionHit {
    pub document: String,
    pub doc_id: i64,
    #[serde(flatten)]
    pub definition: DefinitionRow,
}

/// A section's text.
#[derive(Debug, Clone, Serialize)]
pub struct SectionText {
    pub doc_id: i64,
    pub document: String,
    pub section: SectionRow,
    pub parent_chain: Vec<String>,
    pub text: String,
}

/// References out of a section and into it.
#[derive(Debug, Clone, Serialize)]
pub struct Backlinks {
    pub outgoing: Vec<RefRow>,
    pub incoming: Vec<RefRow>,
}

/// A library folder.
pub struct Library {
    dir: PathBuf,
    catalog: Catalog,
    keyword: KeywordIndex,
    exact: ExactIndex,
    vectors: Box<dyn VectorStore + Sync>,
    embedder: Arc<dyn Embedder>,
    counter: Box<dyn TokenCounter>,
    options: LibraryOptions,
}

fn mtime_of(path: &Path) -> i64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64)
}

impl Library {
    /// Opens (or creates) the library in `dir`. The lookup tables are rebuilt from storage.
    pub fn open(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
    ) -> Result<Library, EngineError> {
        std::fs::create_dir_all(dir).map_err(folio_index::IndexError::from)?;
        let catalog = Catalog::open(&dir.join("catalog.sqlite"))?;
        let keyword = KeywordIndex::open(&dir.join("keyword"))?;
        let vectors: Box<dyn VectorStore + Sync> = if options.in_memory_vectors {
            Box::new(MemoryVectors::default())
        } else {
            Box::new(LanceVectors::open(&dir.join("vectors"), embedder.id(), embedder.dim())?)
        };
        let counter: Box<dyn TokenCounter> =
            match options.vocab.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
                Some(v) => Box::new(WordPieceCounter::from_vocab_txt(&v)),
                None => Box::new(WordCounter),
            };
        let mut lib = Library {
            dir: dir.to_path_buf(),
            catalog,
            keyword,
            exact: ExactIndex::default(),
            vectors,
            embedder,
            counter,
            options,
        };
        lib.rebuild_exact()?;
        Ok(lib)
    }

    /// The library folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn rebuild_exact(&mut self) -> Result<(), EngineError> {
        let docs = self.catalog.documents()?;
        let mut sections = Vec::new();
        for d in &docs {
            sections.extend(self.catalog.sections(d.id)?);
        }
        let chunks = self.catalog.chunks(None)?;
        self.exact = ExactIndex::build(&docs, &sections, &chunks);
        Ok(())
    }

    /// Resolves references to other documents against the documents now in the library.
    fn resolve_external(&mut self) -> Result<(), EngineError> {
        let refs = self.catalog.external_references()?;
        let mut out = Vec::with_capacity(refs.len());
        for (rowid, r) in refs {
            let target_doc = r.document.as_deref().and_then(|l| self.exact.document(l));
            let section = target_doc.and_then(|d| {
                let number = r.label.split_whitespace().last().unwrap_or("");
                number_keys(number)
                    .into_iter()
                    .find_map(|k| self.exact.sections(&k, Some(d)).into_iter().next().map(|s| s.1))
            });
            out.push((rowid, target_doc, section));
        }
        self.catalog.set_resolutions(&out)?;
        Ok(())
    }

    /// Ingests files and folders (recursively). Unchanged files are skipped; a file that fails is
    /// reported and the others go on; `cancel` stops between files and between embedding batches.
    pub fn ingest(
        &mut self,
        paths: &[PathBuf],
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> IngestReport {
        ingest_with(&mut Access::Owned(self), paths, progress, cancel)
    }

    /// Sets how chunks get their context in later ingests.
    pub fn set_context(&mut self, mode: ContextMode) {
        self.options.context = mode;
    }

    /// What contextualizing `paths` with the configured LLM would cost, counting only chunks not in
    /// the cache; `None` when the context mode is not an LLM. Converts the files (nothing is stored).
    pub fn estimate_context(&self, paths: &[PathBuf]) -> Result<Option<(Estimate, usize)>, EngineError> {
        let ContextMode::Llm { writer, prices, .. } = &self.options.context else { return Ok(None) };
        let mut files = Vec::new();
        for p in paths {
            collect_files(p, &mut files);
        }
        let docs: Vec<_> = files
            .iter()
            .filter_map(|f| convert_file(f, &self.options.convert).ok())
            .map(|d| analyze(d, self.counter.as_ref(), &self.options.chunker))
            .collect();
        Ok(Some(plan(&self.catalog, writer.as_ref(), prices, &docs)?))
    }

    /// Every recorded LLM contextualizing run, oldest first.
    pub fn context_runs(&self) -> Result<Vec<ContextRun>, EngineError> {
        Ok(self.catalog.context_runs()?)
    }

    /// The slow half of ingesting one file, which only reads the library (searches go on meanwhile):
    /// convert, analyse, contextualize and embed. `Ok(None)` when the file is unchanged.
    fn prepare_file(
        &self,
        file: &Path,
        progress: &mut dyn FnMut(Stage, usize, usize),
        cancel: &AtomicBool,
    ) -> Result<Option<Prepared>, (String, String)> {
        let internal = |e: EngineError| (e.code().to_string(), e.to_string());
        let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        let path = abs.display().to_string();
        let mtime = mtime_of(&abs);
        let doc = convert_file(&abs, &self.options.convert)
            .map_err(|e| (e.kind.code().to_string(), e.to_string()))?;
        let mode = self.options.context.tag();
        if let Some(old) = self.catalog.document_by_path(&path).map_err(|e| internal(e.into()))? {
            if old.content_hash == doc.meta.content_hash {
                let same_mode = self.catalog.context_mode(old.id).map_err(|e| internal(e.into()))? == mode;
                // Chunks whose LLM request failed last time are asked again.
                let retry = self.options.context.is_llm()
                    && self.catalog.fallback_chunks(old.id).map_err(|e| internal(e.into()))? > 0;
                if same_mode && !retry {
                    return Ok(None);
                }
            }
        }
        let size = std::fs::metadata(&abs).map(|m| m.len() as i64).unwrap_or(0);
        let analysis = analyze(doc, self.counter.as_ref(), &self.options.chunker);
        let label = document_label(&path);
        progress(Stage::Contextualizing, 0, analysis.chunks.len());
        let (contexts, run) = contextualize(
            &self.catalog,
            &self.options.context,
            &analysis,
            &label,
            &path,
            cancel,
            &mut |d, t| progress(Stage::Contextualizing, d, t),
        )
        .map_err(|e| match e {
            EngineError::Embedding(folio_ai::AiError::Cancelled) => ("cancelled".to_string(), "cancelled".to_string()),
            e => internal(e),
        })?;
        // "{context}\n\n{chunk}" is embedded; without a context, the heading chain stands in.
        let texts: Vec<String> = analysis
            .chunks
            .iter()
            .zip(&contexts)
            .map(|(c, x)| {
                if x.text.is_empty() {
                    format!("{}\n{}", c.parent_chain.join(" › "), c.text)
                } else {
                    format!("{}\n\n{}", x.text, c.text)
                }
            })
            .collect();
        let total = texts.len();
        let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(total);
        for batch in texts.chunks(self.options.embed_batch.max(1)) {
            if cancel.load(Ordering::Relaxed) {
                return Err(("cancelled".into(), "cancelled".into()));
            }
            progress(Stage::Embedding, vectors.len(), total);
            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
            vectors.extend(self.embedder.embed_documents(&refs).map_err(|e| internal(e.into()))?);
        }
        Ok(Some(Prepared { path, mtime, size, label, mode, analysis, contexts, run, vectors }))
    }

    /// The quick half: writes a prepared document to the catalog, the vectors and the keyword index.
    fn commit_file(&mut self, p: Prepared) -> Result<(usize, Option<ContextRun>), (String, String)> {
        let internal = |e: EngineError| (e.code().to_string(), e.to_string());
        let Prepared { path, mtime, size, label, mode, analysis, contexts, run, vectors } = p;
        let (doc_id, rows) = self
            .catalog
            .put_document(&path, &label, mtime, size, &analysis, &contexts, &mode)
            .map_err(|e| internal(e.into()))?;
        if let Some(run) = &run {
            self.catalog.record_context_run(run).map_err(|e| internal(e.into()))?;
        }
        let records: Vec<VectorRecord> = rows
            .iter()
            .zip(&vectors)
            .map(|(r, v)| {
                vector_record(r, v, &path, mtime, size, analysis.document.meta.format.as_str(), &analysis)
            })
            .collect();
        self.vectors.put_document(doc_id, &records).map_err(|e| internal(e.into()))?;
        let chains: Vec<String> = rows.iter().map(|r| r.parent_chain.join(" › ")).collect();
        let bodies: Vec<String> = rows.iter().map(ChunkRow::contextualized).collect();
        let kdocs: Vec<KeywordDoc<'_>> = rows
            .iter()
            .zip(&chains)
            .zip(&bodies)
            .map(|((r, chain), body)| KeywordDoc {
                chunk_id: r.id as u64,
                doc_id: doc_id as u64,
                chunk_type: &r.chunk_type,
                text: body,
                headings: chain,
            })
            .collect();
        self.keyword.put_document(doc_id as u64, &kdocs).map_err(|e| internal(e.into()))?;
        self.keyword.commit().map_err(|e| internal(e.into()))?;
        Ok((rows.len(), run))
    }

    /// After the files: the exact index and cross-document references catch up.
    fn finish_ingest(&mut self) -> Result<(), EngineError> {
        self.rebuild_exact()?;
        self.resolve_external()
    }

    /// Removes a document (by id, label or path).
    pub fn remove(&mut self, doc: &str) -> Result<DocumentRow, EngineError> {
        let d = self.find_document(doc)?;
        self.vectors.remove_document(d.id)?;
        self.keyword.remove_document(d.id as u64)?;
        self.keyword.commit()?;
        self.catalog.remove_document(d.id)?;
        self.rebuild_exact()?;
        self.resolve_external()?;
        Ok(d)
    }

    /// All documents.
    pub fn documents(&self) -> Result<Vec<DocumentRow>, EngineError> {
        Ok(self.catalog.documents()?)
    }

    /// A document by id, label, path or file name.
    pub fn find_document(&self, key: &str) -> Result<DocumentRow, EngineError> {
        let docs = self.catalog.documents()?;
        let found = docs
            .iter()
            .find(|d| d.id.to_string() == key || d.path == key)
            .or_else(|| docs.iter().find(|d| d.label.eq_ignore_ascii_case(key)))
            .or_else(|| {
                docs.iter()
                    .find(|d| Path::new(&d.path).file_name().is_some_and(|n| n.to_string_lossy() == key))
            })
            .or_else(|| docs.iter().find(|d| d.title.eq_ignore_ascii_case(key)));
        found.cloned().ok_or_else(|| EngineError::NotFound(format!("no document '{key}' in the library")))
    }

    fn doc_ids(&self, keys: &[String]) -> Result<Vec<i64>, EngineError> {
        keys.iter().map(|k| self.find_document(k).map(|d| d.id)).collect()
    }

    /// Hybrid search.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>, EngineError> {
        let t0 = Instant::now();
        if query.trim().is_empty() {
            return Err(EngineError::Invalid("the query is empty".into()));
        }
        let parsed = parse_query(query);
        let docs = self.doc_ids(&opts.documents)?;
        let subtree =
            match &opts.section {
                Some((doc, sid)) => {
                    let d = self.find_document(doc)?;
                    let s =
                        self.catalog.sections(d.id)?.into_iter().find(|s| s.section_id == *sid).ok_or_else(
                            || EngineError::NotFound(format!("no section {sid} in {}", d.label)),
                        )?;
                    Some((d.id, s.span))
                }
                None => None,
            };
        let docs = match (&subtree, docs.is_empty()) {
            (Some((d, _)), _) => vec![*d],
            (None, _) => docs,
        };
        // Filters need deeper candidate lists.
        let filtered = !opts.chunk_types.is_empty() || subtree.is_some();
        let depth = if filtered { opts.depth * 4 } else { opts.depth };
        let want = |c| opts.channels.contains(&c);
        let kfilter = KeywordFilter {
            docs: docs.iter().map(|d| *d as u64).collect(),
            chunk_types: opts.chunk_types.clone(),
        };
        let mut timings = Timings::default();
        // The channels share only what is thread-safe (the catalog's connection is not).
        let (embedder, vectors, keyword_index, exact_index) =
            (&self.embedder, &self.vectors, &self.keyword, &self.exact);
        let (dense, keyword, exact) = std::thread::scope(|s| {
            let dense = s.spawn(|| -> Result<(Ranked, f64, f64), EngineError> {
                if !want(Channel::Dense) {
                    return Ok((Vec::new(), 0.0, 0.0));
                }
                let t = Instant::now();
                let v = embedder.embed_query(query)?;
                let embed = t.elapsed().as_secs_f64() * 1e3;
                let t = Instant::now();
                let hits = vectors.search(&v, depth, &docs)?;
                Ok((hits, embed, t.elapsed().as_secs_f64() * 1e3))
            });
            let keyword = s.spawn(|| -> Result<(Ranked, f64), EngineError> {
                if !want(Channel::Keyword) {
                    return Ok((Vec::new(), 0.0));
                }
                let t = Instant::now();
                let hits = keyword_index.search(query, depth, &kfilter)?;
                Ok((
                    hits.into_iter().map(|(id, s)| (id as i64, s)).collect(),
                    t.elapsed().as_secs_f64() * 1e3,
                ))
            });
            let t = Instant::now();
            // The exact channel answers lookups, not questions that merely cite a rule.
            let exact = if want(Channel::Exact) && (parsed.is_lookup() || opts.exact_always) {
                exact_index.search(&parsed, depth, &docs)
            } else {
                Vec::new()
            };
            let exact_ms = t.elapsed().as_secs_f64() * 1e3;
            (
                dense
                    .join()
                    .unwrap_or_else(|_| Err(EngineError::Invalid("the dense channel panicked".into()))),
                keyword
                    .join()
                    .unwrap_or_else(|_| Err(EngineError::Invalid("the keyword channel panicked".into()))),
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
        let fused = fuse(
            &[(Channel::Dense, &dense[..]), (Channel::Keyword, &keyword[..]), (Channel::Exact, &exact[..])],
            &opts.fusion,
        );
        // Fetch rows, apply the remaining filters, and stop at the limit.
        let doc_rows = self.catalog.documents()?;
        let terms = highlight_terms(query);
        let mut hits = Vec::with_capacity(opts.limit);
        for chunk_ids in fused.chunks(opts.limit.max(1) * 2) {
            let ids: Vec<i64> = chunk_ids.iter().map(|f| f.id).collect();
            let rows = self.catalog.chunks_by_id(&ids)?;
            for f in chunk_ids {
                let Some(row) = rows.iter().find(|r| r.id == f.id) else { continue };
                if !opts.chunk_types.is_empty() && !opts.chunk_types.contains(&row.chunk_type) {
                    continue;
                }
                if let Some((d, span)) = &subtree {
                    if row.doc_id != *d || row.span.start < span.start || row.span.end > span.end {
                        continue;
                    }
                }
                let doc = doc_rows.iter().find(|d| d.id == row.doc_id);
                hits.push(Hit {
                    chunk_id: row.id,
                    score: f.score,
                    doc_id: row.doc_id,
                    document: doc.map(|d| d.title.clone()).unwrap_or_default(),
                    path: doc.map(|d| d.path.clone()).unwrap_or_default(),
                    section_id: row.section_id.clone(),
                    section_ids: row.section_ids.clone(),
                    parent_chain: row.parent_chain.clone(),
                    chunk_type: row.chunk_type.clone(),
                    pages: row.pages,
                    span: row.span,
                    content: row.content.clone(),
                    contextualized: row.contextualized(),
                    snippet: snippet(&row.content, &terms),
                    dense: f.channel(Channel::Dense),
                    keyword: f.channel(Channel::Keyword),
                    exact: f.channel(Channel::Exact),
                    timings_ms: Timings::default(),
                });
                if hits.len() >= opts.limit {
                    break;
                }
            }
            if hits.len() >= opts.limit {
                break;
            }
        }
        timings.total = t0.elapsed().as_secs_f64() * 1e3;
        for h in &mut hits {
            h.timings_ms = timings;
        }
        Ok(hits)
    }

    /// Definitions of a term (by its normalised key), each with its document.
    pub fn define(&self, term: &str) -> Result<Vec<DefinitionHit>, EngineError> {
        let key = folio_core::definitions::normalise_term(term.trim_matches(|c: char| "\"'“”‘’".contains(c)));
        self.definition_hits(Some(&key))
    }

    /// Every definition in the library (a glossary), in document order.
    pub fn definitions(&self) -> Result<Vec<DefinitionHit>, EngineError> {
        self.definition_hits(None)
    }

    /// Definitions of one key, or all, each with its document's label.
    fn definition_hits(&self, key: Option<&str>) -> Result<Vec<DefinitionHit>, EngineError> {
        let docs = self.catalog.documents()?;
        Ok(self
            .catalog
            .definitions(key)?
            .into_iter()
            .map(|d| DefinitionHit {
                document: docs.iter().find(|x| x.id == d.doc_id).map(|x| x.label.clone()).unwrap_or_default(),
                doc_id: d.doc_id,
                definition: d,
            })
            .collect())
    }

    /// A document's outline.
    pub fn outline(&self, doc: &str) -> Result<(DocumentRow, Vec<SectionRow>), EngineError> {
        let d = self.find_document(doc)?;
        let s = self.catalog.sections(d.id)?;
        Ok((d, s))
    }

    /// A section's text (doc may be omitted when the section id is unique in the library).
    pub fn show(&self, doc: Option<&str>, section: &str) -> Result<SectionText, EngineError> {
        let candidates: Vec<DocumentRow> = match doc {
            Some(k) => vec![self.find_document(k)?],
            None => self.catalog.documents()?,
        };
        for d in candidates {
            let sections = self.catalog.sections(d.id)?;
            let wanted = sections.iter().find(|s| s.section_id == section).or_else(|| {
                let keys = number_keys(section);
                sections.iter().find(|s| {
                    s.number.as_deref().is_some_and(|n| number_keys(n).iter().any(|k| keys.contains(k)))
                })
            });
            if let Some(s) = wanted {
                let text = self.catalog.document_text(d.id)?;
                let body = text.get(s.span.start..s.span.end).unwrap_or("").to_string();
                let mut chain = Vec::new();
                let mut cur = s.parent_ord;
                while let Some(p) = cur {
                    let ps = &sections[p as usize];
                    chain.push(if p == 0 { d.title.clone() } else { ps.heading.clone() });
                    cur = ps.parent_ord;
                }
                chain.reverse();
                chain.push(s.heading.clone());
                return Ok(SectionText {
                    doc_id: d.id,
                    document: d.label.clone(),
                    section: s.clone(),
                    parent_chain: chain,
                    text: body,
                });
            }
        }
        Err(EngineError::NotFound(format!("no section '{section}'")))
    }

    /// References out of a section and backlinks into it.
    pub fn references(&self, doc: Option<&str>, section: &str) -> Result<Backlinks, EngineError> {
        let s = self.show(doc, section)?;
        Ok(Backlinks {
            outgoing: self.catalog.references(s.doc_id, &s.section.section_id, true)?,
            incoming: self.catalog.references(s.doc_id, &s.section.section_id, false)?,
        })
    }

    /// Chunks stored, for reports.
    pub fn chunk_count(&self) -> Result<usize, EngineError> {
        Ok(self.vectors.len()?)
    }

    /// All chunks of the library (for evaluation).
    pub fn chunks(&self) -> Result<Vec<ChunkRow>, EngineError> {
        Ok(self.catalog.chunks(None)?)
    }
}

/// A document converted, analysed, contextualized and embedded, not yet written.
struct Prepared {
    path: String,
    mtime: i64,
    size: i64,
    label: String,
    mode: String,
    analysis: folio_core::analysis::Analysis,
    contexts: Vec<folio_index::catalog::ChunkContext>,
    run: Option<ContextRun>,
    vectors: Vec<Vec<f32>>,
}

/// How an ingest reaches the library: owned outright (the CLI), or behind a lock that it takes for
/// reading while a document is prepared and for writing only while it is written, so that searches
/// answer during a long ingest (the desktop app).
enum Access<'a> {
    Owned(&'a mut Library),
    Shared(&'a RwLock<Library>),
}

impl Access<'_> {
    fn prepare(
        &self,
        file: &Path,
        progress: &mut dyn FnMut(Stage, usize, usize),
        cancel: &AtomicBool,
    ) -> Result<Option<Prepared>, (String, String)> {
        match self {
            Access::Owned(l) => l.prepare_file(file, progress, cancel),
            Access::Shared(l) => read(l).prepare_file(file, progress, cancel),
        }
    }

    fn commit(&mut self, p: Prepared) -> Result<(usize, Option<ContextRun>), (String, String)> {
        match self {
            Access::Owned(l) => l.commit_file(p),
            Access::Shared(l) => write(l).commit_file(p),
        }
    }

    fn finish(&mut self) -> Result<(), EngineError> {
        match self {
            Access::Owned(l) => l.finish_ingest(),
            Access::Shared(l) => write(l).finish_ingest(),
        }
    }

    fn dir(&self) -> PathBuf {
        match self {
            Access::Owned(l) => l.dir.clone(),
            Access::Shared(l) => read(l).dir.clone(),
        }
    }
}

/// Reads a shared library; a writer that panicked left nothing half-written in the stores it
/// had finished, so the lock is taken over.
pub(crate) fn read(l: &RwLock<Library>) -> std::sync::RwLockReadGuard<'_, Library> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn write(l: &RwLock<Library>) -> std::sync::RwLockWriteGuard<'_, Library> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

/// Ingests into a library shared between threads: searches (which take the lock for reading) go
/// on while documents are converted, contextualized and embedded; the lock is taken for writing
/// only while each document is written.
pub fn ingest_shared(
    library: &RwLock<Library>,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> IngestReport {
    ingest_with(&mut Access::Shared(library), paths, progress, cancel)
}

fn ingest_with(
    access: &mut Access<'_>,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> IngestReport {
    let start = Instant::now();
    let mut files = Vec::new();
    for p in paths {
        collect_files(p, &mut files);
    }
    let n = files.len();
    let mut report = IngestReport::default();
    for (i, file) in files.iter().enumerate() {
        progress(Progress { file: file.display().to_string(), file_index: i, files: n, stage: Stage::Queued, done: 0, total: 1 });
    }
    for (i, file) in files.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            report.cancelled = true;
            break;
        }
        let name = file.display().to_string();
        let ev = |stage, done, total| Progress { file: name.clone(), file_index: i, files: n, stage, done, total };
        progress(ev(Stage::Converting, 0, 1));
        let outcome = match access.prepare(file, &mut |s, d, t| progress(ev(s, d, t)), cancel) {
            Ok(Some(p)) => {
                progress(ev(Stage::Indexing, 0, 1));
                access.commit(p).map(Some)
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        match outcome {
            Ok(Some((chunks, run))) => {
                report.chunks += chunks;
                report.contexts.extend(run);
                report.indexed.push(name.clone());
                progress(ev(Stage::Indexed, 1, 1));
            }
            Ok(None) => {
                report.unchanged.push(name.clone());
                progress(ev(Stage::Unchanged, 1, 1));
            }
            Err((code, message)) => {
                if code == "cancelled" {
                    report.cancelled = true;
                    break;
                }
                report.failed.push(IngestFailure { path: name.clone(), code, message });
                progress(ev(Stage::Failed, 1, 1));
            }
        }
    }
    if let Err(e) = access.finish() {
        report.failed.push(IngestFailure { path: access.dir().display().to_string(), code: e.code().into(), message: e.to_string() });
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

fn collect_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            let hidden = e.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if !hidden {
                collect_files(&e, out);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
}

fn vector_record(
    r: &ChunkRow,
    v: &[f32],
    path: &str,
    mtime: i64,
    size: i64,
    format: &str,
    a: &folio_core::analysis::Analysis,
) -> VectorRecord {
    let refs: Vec<&folio_core::crossref::CrossReference> =
        a.references.iter().filter(|x| x.span.start >= r.span.start && x.span.end <= r.span.end).collect();
    let first_def = r.defined_terms.first().and_then(|k| a.definitions.iter().find(|d| &d.key == k));
    VectorRecord {
        chunk_id: r.id,
        doc_id: r.doc_id,
        source_path: path.to_string(),
        chunk_index: r.chunk_index,
        content: r.content.clone(),
        contextualized_content: r.contextualized(),
        embedding: v.to_vec(),
        mtime,
        file_type: format.to_string(),
        file_size_bytes: size,
        parent_chain: serde_json::to_string(&r.parent_chain).unwrap_or_default(),
        section_id: r.section_id.clone(),
        heading_level: r.heading_level,
        chunk_type: r.chunk_type.clone(),
        cross_references: serde_json::to_string(&refs).unwrap_or_default(),
        doc_summary: a.document.meta.title.clone(),
        defined_term: first_def.map(|d| d.term.clone()),
        defined_term_normalized: first_def.map(|d| d.key.clone()),
        page_start: r.pages.map(|p| p.start as i64),
        page_end: r.pages.map(|p| p.end as i64),
        char_start: r.span.start as i64,
        char_end: r.span.end as i64,
        content_hash: r.content_hash.clone(),
    }
}

/// Lower-case words of a query worth highlighting (three letters or more, or numbers).
fn highlight_terms(query: &str) -> Vec<String> {
    const STOP: [&str; 12] =
        ["the", "and", "for", "what", "does", "mean", "are", "with", "that", "this", "from", "how"];
    query
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| (w.len() >= 3 || w.chars().any(|c| c.is_ascii_digit())) && !STOP.contains(&w.as_str()))
        .collect()
}

/// Up to ~300 characters around the first query term, terms marked `[[…]]`.
fn snippet(text: &str, terms: &[String]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_mark_terms() {
        let s =
            snippet("A Relevant Person must keep records of GEN 2.1.3.", &highlight_terms("records 2.1.3"));
        assert_eq!(s, "A Relevant Person must keep [[records]] of GEN [[2.1.3]].");
    }
}

// The desktop app shares one library between its ingest thread and its searches.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<Library>();
};
