//! The library: ingest, search and navigation over one folder.

use crate::context::{contextualize, plan, ContextMode};
use crate::EngineError;
use folio_ai::context::cost::Estimate;
use folio_ai::Embedder;
use folio_convert::{convert_file_guarded, convert_file_guarded_reporting, ConvertOptions};
use folio_core::analysis::analyze;
use folio_core::chunker::ChunkerConfig;
use folio_core::fusion::{fuse, Channel, ChannelRank, FusionConfig};
use folio_core::query::parse_query;
use folio_core::tokens::{TokenCounter, WordCounter, WordPieceCounter};
use folio_index::catalog::{
    Catalog, ChunkRow, ContextRun, DefinitionRow, DocumentRow, FailureRow, NewDocument, RefRow, SectionRow,
    TableRow,
};
use folio_index::exact::{document_label, number_keys, ExactIndex};
use folio_index::keyword::{KeywordDoc, KeywordFilter, KeywordIndex};
use folio_index::vectors::{LanceVectors, MemoryVectors, VectorRecord, VectorStore};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

/// What keeping files and folders in step with the library takes (see [`Library::sync_plan`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SyncPlan {
    /// Files new or changed since they were indexed (or failed).
    pub ingest: Vec<PathBuf>,
    /// Documents whose file is gone.
    pub remove: Vec<String>,
    /// Recorded failures of files that are gone.
    pub forget: Vec<String>,
}

impl SyncPlan {
    pub fn is_empty(&self) -> bool {
        self.ingest.is_empty() && self.remove.is_empty() && self.forget.is_empty()
    }
}

/// What `Library::repair` did.
#[derive(Debug, Default, Clone, Serialize, schemars::JsonSchema)]
pub struct RepairReport {
    /// Documents rebuilt in the vectors and the keyword index.
    pub documents: usize,
    pub chunks: usize,
    /// Chunks embedded again (their vectors were missing or unreadable); a damaged keyword index
    /// or catalog costs none.
    pub embedded: usize,
    /// Half-written documents rolled back.
    pub rolled_back: Vec<String>,
    /// Set when the catalog itself was damaged and rebuilt from the chunk records.
    pub catalog: Option<CatalogRebuild>,
}

/// How a damaged catalog was rebuilt (see [`Library::repair`]).
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct CatalogRebuild {
    /// Where the damaged catalog was moved (kept for the user; nothing reads it again).
    pub damaged_copy: PathBuf,
    /// Documents whose source file analysed again to the recorded chunks: whole outline,
    /// definitions and references.
    pub from_source: usize,
    /// Documents rebuilt from their chunk records alone (the file is gone or changed since).
    pub from_records: Vec<String>,
    /// Tables of the damaged catalog copied over whole (context cache, watched folders, …).
    pub salvaged: Vec<String>,
    /// Tables of the damaged catalog that could not be read.
    pub lost: Vec<String>,
}

/// The text embedded for a chunk: the chunk alone, or "{context}\n\n{chunk}" when an LLM wrote
/// its context (`source` `llm` or `llm-excerpt`: contextual retrieval). The structural context
/// (document and heading chain) is left out of the vector, where it cost a quarter of the word
/// pieces embedded and lowered retrieval; the keyword index keeps it. Measured on ObliQA dev, f32
/// MiniLM, all three channels: with the structural prefix Recall@10 0.767, MAP@10 0.612 (dense
/// alone 0.622 / 0.445), without it 0.777 / 0.635 (dense alone 0.667 / 0.500), ingest 423 → 326 s;
/// cookbook Pass@5/10/20 88.4 / 92.9 / 95.5 → 88.8 / 92.9 / 95.5; identifier queries 50/50 both.
/// Ingest, re-ingest (which keeps vectors by this exact text) and repair all use it.
fn embedded_text(context: &str, source: &str, content: &str) -> String {
    if source.starts_with("llm") && !context.is_empty() {
        format!("{context}\n\n{content}")
    } else {
        content.to_string()
    }
}

/// The embedded text of a stored chunk.
fn stored_embedded_text(c: &ChunkRow) -> String {
    embedded_text(&c.context, &c.context_source, &c.content)
}

/// Replaces a document's chunks in the keyword index: the contextualized text beside the heading
/// chain (uncommitted).
fn put_keywords(
    keyword: &mut KeywordIndex,
    doc_id: i64,
    rows: &[ChunkRow],
) -> Result<(), folio_index::IndexError> {
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
    keyword.put_document(doc_id as u64, &kdocs)
}

/// The most word pieces of a library chunk's text. A section (a numbered rule with its list of
/// items, a definition table row) up to this size stays one chunk; larger ones split at sentences.
/// Chunks longer than MiniLM's 256-piece window are embedded window by window and the windows
/// averaged (see `folio_ai::MiniLm::embed_documents`), so no forward pass exceeds the window.
/// Measured on ObliQA (40 rulebooks; BM25 alone, fast-model libraries, tuned on the even half of
/// the dev questions): of the 13,012 gold passages, 96.2 % lie inside one chunk at 254 pieces and
/// 98.8 % at 512;
/// Recall@10 / MAP@10 at 254: 0.733 / 0.599, 320: 0.744 / 0.612, 400: 0.750 / 0.620,
/// 512: 0.753 / 0.625, 768: 0.753 / 0.626; the held-out odd half at 512: 0.760 / 0.622 (254:
/// 0.745 / 0.602). With MiniLM, all three channels fused, all 2,788 questions: 254 → 0.748 /
/// 0.592, 512 → 0.767 / 0.612.
pub const DEFAULT_CHUNK_TOKENS: usize = 512;

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
            chunker: ChunkerConfig {
                max_tokens: DEFAULT_CHUNK_TOKENS,
                merge_small: true,
                merge_limit: folio_core::chunker::DEFAULT_MERGE_LIMIT,
            },
            convert: ConvertOptions::default(),
            in_memory_vectors: false,
            vocab: None,
            embed_batch: 32,
            context: ContextMode::default(),
        }
    }
}

/// What ingest is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    Cancelled,
}

/// A progress event.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Progress {
    pub file: String,
    /// Index of the file among those asked for, and their number.
    pub file_index: usize,
    pub files: usize,
    pub stage: Stage,
    /// Work done and total within the stage (chunks embedded, say).
    pub done: usize,
    pub total: usize,
    /// Why the file failed (with `Stage::Failed`).
    pub error: Option<crate::workspace::BackendError>,
}

impl Progress {
    /// A repair's progress: document `index` of `count` being written again (see
    /// [`Library::repair`]).
    pub fn repairing(path: &str, index: usize, count: usize) -> Progress {
        Progress {
            file: path.to_string(),
            file_index: index,
            files: count,
            stage: Stage::Indexing,
            done: 0,
            total: 1,
            error: None,
        }
    }
}

/// One failed file.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct IngestFailure {
    pub path: String,
    pub code: String,
    pub message: String,
}

/// The result of an ingest.
#[derive(Debug, Default, Clone, Serialize, schemars::JsonSchema)]
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

/// Candidates each channel returns before fusion, by default. ObliQA dev (MiniLM, default weights,
/// 2,788 questions): depth 50 → Recall@10 0.744, MAP@10 0.589; 100 → 0.748 / 0.592, at the same
/// query time (p50 55 ms in a debug build).
pub const DEFAULT_DEPTH: usize = 100;

/// Search settings.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub limit: usize,
    /// Candidates each channel returns before fusion (default [`DEFAULT_DEPTH`]).
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
            depth: DEFAULT_DEPTH,
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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub chunk_id: i64,
    pub score: f32,
    pub doc_id: i64,
    /// The document's title.
    pub document: String,
    /// The document's short label ("GEN").
    pub label: String,
    pub path: String,
    /// The breadcrumb: the chunk's section and its ancestors, each with its id.
    pub crumbs: Vec<Crumb>,
    /// "GEN 2.1.3, General Rulebook, p. 12".
    pub citation: String,
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

/// One step of a breadcrumb.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Crumb {
    pub section_id: String,
    pub heading: String,
}

/// Where a query's time went.
#[derive(Debug, Clone, Copy, Default, Serialize, schemars::JsonSchema)]
pub struct Timings {
    pub embed: f64,
    pub dense: f64,
    pub keyword: f64,
    pub exact: f64,
    pub total: f64,
}

/// A definition with its document.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// The library's write lock (`write.lock`, an OS file lock, released by the OS when this
    /// process ends, however it ends); `None` when another process holds it and this one reads only.
    write_lock: Option<std::fs::File>,
    /// Documents rolled back on open.
    repaired: Vec<String>,
    /// The catalog's data version when a read-only library last caught up (see `refresh`).
    seen_version: i64,
    /// The documents and their outlines, kept in memory (rebuilt with the exact index).
    docs: Vec<DocumentRow>,
    outlines: std::collections::HashMap<i64, Vec<SectionRow>>,
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
        Self::open_stores(dir, embedder, options).map_err(|e| match e {
            EngineError::Storage(e) if e.is_damage() => EngineError::Damaged(format!(
                "the library's catalog (catalog.sqlite) in {} is damaged ({e}); Repair library (or `folio repair`) rebuilds it from the chunk records",
                dir.display()
            )),
            e => e,
        })
    }

    fn open_stores(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
    ) -> Result<Library, EngineError> {
        std::fs::create_dir_all(dir).map_err(folio_index::IndexError::from)?;
        let write_lock = take_write_lock(dir)?;
        let catalog = Catalog::open(&dir.join("catalog.sqlite"))?;
        let damaged = |store: &str, e: folio_index::IndexError| {
            EngineError::Damaged(format!(
                "the library's {store} in {} is damaged ({e}); Repair library (or `folio repair`) rebuilds it from the catalog",
                dir.display()
            ))
        };
        let keyword = KeywordIndex::open(&dir.join("keyword")).map_err(|e| damaged("keyword index", e))?;
        let vectors: Box<dyn VectorStore + Sync> = if options.in_memory_vectors {
            Box::new(MemoryVectors::default())
        } else {
            Box::new(
                LanceVectors::open(&dir.join("vectors"), embedder.id(), embedder.dim())
                    .map_err(|e| damaged("vector store", e))?,
            )
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
            write_lock,
            repaired: Vec::new(),
            seen_version: 0,
            docs: Vec::new(),
            outlines: std::collections::HashMap::new(),
        };
        lib.seen_version = lib.catalog.data_version()?;
        if lib.is_writable() {
            lib.repaired = lib.reconcile()?;
        }
        lib.rebuild_exact()?;
        Ok(lib)
    }

    /// The library folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether this process may write the library (another one holds its write lock otherwise).
    pub fn is_writable(&self) -> bool {
        self.write_lock.is_some()
    }

    /// Whether a read-only library is behind: the writing process committed since it last caught
    /// up, or let go of the library. Cheap (one SQLite pragma and a lock probe); always `false` for
    /// the writer.
    pub fn is_stale(&self) -> bool {
        !self.is_writable()
            && (self.catalog.data_version().is_ok_and(|v| v != self.seen_version) || lock_is_free(&self.dir))
    }

    /// Catches a read-only library up with the writing process: the document list, outlines and
    /// exact index from the catalog first, then the keyword index and the vectors (so a document
    /// the list shows as indexed is whole in the stores read after it). Once the writer has let go,
    /// takes the write lock (rolling back what a crashed writer left half-written) and becomes
    /// writable. Returns whether anything changed.
    pub fn refresh(&mut self) -> Result<bool, EngineError> {
        if self.is_writable() {
            return Ok(false);
        }
        if let Some(lock) = take_write_lock(&self.dir)? {
            self.write_lock = Some(lock);
            self.seen_version = self.catalog.data_version()?;
            self.keyword.reload()?;
            self.vectors.reload()?;
            self.repaired = self.reconcile()?;
            self.rebuild_exact()?;
            return Ok(true);
        }
        let version = self.catalog.data_version()?;
        if version == self.seen_version {
            return Ok(false);
        }
        self.seen_version = version;
        self.rebuild_exact()?;
        self.keyword.reload()?;
        self.vectors.reload()?;
        Ok(true)
    }

    fn check_writable(&self) -> Result<(), EngineError> {
        if self.is_writable() {
            Ok(())
        } else {
            Err(EngineError::ReadOnly(format!(
                "another Folio process is writing the library in {}; it is open read-only here until that one closes",
                self.dir.display()
            )))
        }
    }

    fn rebuild_exact(&mut self) -> Result<(), EngineError> {
        let docs = self.catalog.documents()?;
        let mut sections = Vec::new();
        let mut outlines = std::collections::HashMap::new();
        for d in &docs {
            let s = self.catalog.sections(d.id)?;
            sections.extend(s.iter().cloned());
            outlines.insert(d.id, s);
        }
        let chunks = self.catalog.chunks(None)?;
        self.exact = ExactIndex::build(&docs, &sections, &chunks);
        self.docs = docs;
        self.outlines = outlines;
        Ok(())
    }

    /// The breadcrumb of a section: its ancestors below the document root, then itself.
    pub fn crumbs(&self, doc_id: i64, section_id: &str) -> Vec<Crumb> {
        let Some(sections) = self.outlines.get(&doc_id) else { return Vec::new() };
        let Some(s) = sections.iter().find(|s| s.section_id == section_id) else { return Vec::new() };
        let mut out = vec![Crumb { section_id: s.section_id.clone(), heading: s.heading.clone() }];
        let mut cur = s.parent_ord;
        while let Some(p) = cur.filter(|p| *p > 0) {
            let Some(ps) = sections.get(p as usize) else { break };
            out.push(Crumb { section_id: ps.section_id.clone(), heading: ps.heading.clone() });
            cur = ps.parent_ord;
        }
        out.reverse();
        out
    }

    /// A citation of a chunk: "GEN 2.1.3, General Rulebook, p. 12".
    fn citation(
        &self,
        doc: Option<&DocumentRow>,
        section_id: &str,
        pages: Option<folio_core::model::PageRange>,
    ) -> String {
        let Some(d) = doc else { return String::new() };
        let section = self.outlines.get(&d.id).and_then(|v| v.iter().find(|s| s.section_id == section_id));
        let mut out = match section {
            Some(s) if s.number.is_some() => format!("{} {}", d.label, s.number.as_deref().unwrap_or("")),
            Some(s) if s.parent_ord.is_some() => format!("{}, {}", d.label, s.heading),
            _ => d.label.clone(),
        };
        if !d.title.is_empty() && d.title != d.label {
            out.push_str(&format!(", {}", d.title));
        }
        match pages {
            Some(p) if p.end > p.start => out.push_str(&format!(", pp. {}–{}", p.start, p.end)),
            Some(p) => out.push_str(&format!(", p. {}", p.start)),
            None => {}
        }
        out
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
            .filter_map(|f| convert_file_guarded(f, &self.options.convert, &AtomicBool::new(false)).ok())
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
        let mut pages = |done: u32, total: u32| progress(Stage::Converting, done as usize, total as usize);
        let doc =
            convert_file_guarded_reporting(&abs, &self.options.convert, cancel, &mut pages).map_err(|e| {
                match e.kind {
                    folio_convert::ErrorKind::Cancelled => ("cancelled".to_string(), "cancelled".to_string()),
                    // The failure names the file already: the message is the reason alone.
                    _ => (e.kind.code().to_string(), e.kind.to_string()),
                }
            })?;
        let mode = self.options.context.tag();
        let old = self.catalog.document_by_path(&path).map_err(|e| internal(e.into()))?;
        if let Some(old) = &old {
            if old.content_hash == doc.meta.content_hash {
                let same_mode = self.catalog.context_mode(old.id).map_err(|e| internal(e.into()))? == mode;
                // Chunks whose LLM request failed last time are asked again.
                let retry = self.options.context.is_llm()
                    && self.catalog.fallback_chunks(old.id).map_err(|e| internal(e.into()))? > 0;
                if same_mode && !retry {
                    // Touched or copied over with the same text: remember the new time and size,
                    // so folder syncs need not read it again.
                    if let Some((mtime, size)) = file_stamp(&abs).filter(|s| *s != (old.mtime, old.size)) {
                        self.catalog.set_stamp(old.id, mtime, size).map_err(|e| internal(e.into()))?;
                    }
                    return Ok(None);
                }
            }
        }
        let size = std::fs::metadata(&abs).map(|m| m.len() as i64).unwrap_or(0);
        let analysis = analyze(doc, self.counter.as_ref(), &self.options.chunker);
        let label = document_label(&path);
        // What the previous version of the document already has, by chunk text: its contexts (when
        // written the same way) and vectors are kept for the chunks whose text did not change.
        // A file new at this path may be a renamed or copied one: the document with its content
        // offers the same.
        let reuse = match &old {
            Some(old) => Some(old.clone()),
            None => self
                .catalog
                .document_by_hash(&analysis.document.meta.content_hash)
                .map_err(|e| internal(e.into()))?,
        };
        let previous = match &reuse {
            Some(d) => Previous::of(self, d.id, &mode).map_err(internal)?,
            None => Previous::default(),
        };
        progress(Stage::Contextualizing, 0, analysis.chunks.len());
        let (contexts, run) = contextualize(
            &self.catalog,
            &self.options.context,
            &crate::context::DocumentInput {
                analysis: &analysis,
                label: &label,
                path: &path,
                previous: &previous.contexts,
            },
            cancel,
            &mut |d, t| progress(Stage::Contextualizing, d, t),
        )
        .map_err(|e| match e {
            EngineError::Embedding(folio_ai::AiError::Cancelled) => {
                ("cancelled".to_string(), "cancelled".to_string())
            }
            e => internal(e),
        })?;
        let texts: Vec<String> = analysis
            .chunks
            .iter()
            .zip(&contexts)
            .map(|(c, x)| embedded_text(&x.text, &x.source, &c.text))
            .collect();
        let mut vectors: Vec<Option<Vec<f32>>> =
            texts.iter().map(|t| previous.vectors.get(t).cloned()).collect();
        let todo: Vec<usize> = (0..texts.len()).filter(|i| vectors[*i].is_none()).collect();
        let total = todo.len();
        for (n, batch) in todo.chunks(self.options.embed_batch.max(1)).enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return Err(("cancelled".into(), "cancelled".into()));
            }
            progress(Stage::Embedding, n * self.options.embed_batch.max(1), total);
            let refs: Vec<&str> = batch.iter().map(|i| texts[*i].as_str()).collect();
            let got = self.embedder.embed_documents(&refs).map_err(|e| internal(e.into()))?;
            for (i, v) in batch.iter().zip(got) {
                vectors[*i] = Some(v);
            }
        }
        let vectors = vectors.into_iter().map(Option::unwrap_or_default).collect();
        Ok(Some(Prepared {
            path,
            mtime,
            size,
            label,
            mode,
            analysis,
            contexts,
            run,
            vectors,
            reused: previous.reused,
        }))
    }

    /// The quick half: writes a prepared document to the catalog, the vectors and the keyword index.
    fn commit_file(&mut self, p: Prepared) -> Result<(usize, Option<ContextRun>), (String, String)> {
        let internal = |e: EngineError| (e.code().to_string(), e.to_string());
        let Prepared { path, mtime, size, label, mode, analysis, contexts, run, vectors, .. } = p;
        // The catalog first (the document marked `writing`, so nothing shows it yet), then the
        // vectors and the keyword index, then the mark `indexed`. A crash in between leaves a
        // `writing` document, which the next open rolls back (see `reconcile`).
        let old_id = self.catalog.document_by_path(&path).map_err(|e| internal(e.into()))?.map(|d| d.id);
        let (doc_id, rows) = self
            .catalog
            .put_document(&NewDocument {
                path: &path,
                label: &label,
                mtime,
                size,
                analysis: &analysis,
                contexts: &contexts,
                context_mode: &mode,
            })
            .map_err(|e| internal(e.into()))?;
        if let Some(run) = &run {
            self.catalog.record_context_run(run).map_err(|e| internal(e.into()))?;
        }
        let source = RecordSource {
            path: &path,
            mtime,
            size,
            format: analysis.document.meta.format.as_str(),
            title: &analysis.document.meta.title,
        };
        let records: Vec<VectorRecord> = rows
            .iter()
            .zip(&vectors)
            .map(|(r, v)| {
                let refs: Vec<&folio_core::crossref::CrossReference> = analysis
                    .references
                    .iter()
                    .filter(|x| x.span.start >= r.span.start && x.span.end <= r.span.end)
                    .collect();
                let def =
                    r.defined_terms.first().and_then(|k| analysis.definitions.iter().find(|d| &d.key == k));
                let refs_json = serde_json::to_string(&refs).unwrap_or_default();
                vector_record(r, v, &source, refs_json, def.map(|d| (d.term.as_str(), d.key.as_str())))
            })
            .collect();
        self.vectors.put_document(doc_id, &records).map_err(|e| internal(e.into()))?;
        put_keywords(&mut self.keyword, doc_id, &rows).map_err(|e| internal(e.into()))?;
        if let Some(old) = old_id.filter(|o| *o != doc_id) {
            self.vectors.remove_document(old).map_err(|e| internal(e.into()))?;
            self.keyword.remove_document(old as u64).map_err(|e| internal(e.into()))?;
        }
        self.keyword.commit().map_err(|e| internal(e.into()))?;
        self.catalog.mark_indexed(doc_id).map_err(|e| internal(e.into()))?;
        // Searchable from now on (the exact index catches up when the ingest finishes).
        self.docs = self.catalog.documents().map_err(|e| internal(e.into()))?;
        self.outlines.insert(doc_id, self.catalog.sections(doc_id).map_err(|e| internal(e.into()))?);
        Ok((rows.len(), run))
    }

    /// Rolls back documents a crash left half-written (status `writing`): their rows leave every
    /// store. Returns their paths, for telling the user.
    fn reconcile(&mut self) -> Result<Vec<String>, EngineError> {
        let mut repaired = Vec::new();
        for d in self.catalog.documents()? {
            if d.status != "indexed" {
                self.vectors.remove_document(d.id)?;
                self.keyword.remove_document(d.id as u64)?;
                self.keyword.commit()?;
                self.catalog.remove_document(d.id)?;
                repaired.push(d.path);
            }
        }
        Ok(repaired)
    }

    /// Repairs a damaged library. With a sound catalog, the derived indexes — the vectors and
    /// the keyword index — are thrown away and rebuilt from it (the chunk records with their stored
    /// contexts; no file is read and no LLM asked). With a damaged catalog, the catalog is moved
    /// aside and rebuilt from the chunk records in the vector store (see [`CatalogRebuild`]).
    pub fn repair(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
        progress: &mut dyn FnMut(&str, usize, usize),
    ) -> Result<RepairReport, EngineError> {
        std::fs::create_dir_all(dir).map_err(folio_index::IndexError::from)?;
        let probe = take_write_lock(dir)?.ok_or_else(|| {
            EngineError::ReadOnly(format!(
                "another Folio process is using {}; close it before repairing",
                dir.display()
            ))
        })?;
        // A rebuild of the catalog that was cut short left the records aside: it runs again.
        let catalog_damage = if dir.join(RECORDS_ASIDE).exists() {
            Some(folio_index::IndexError::Corrupt("an earlier repair did not finish".into()))
        } else {
            match Catalog::open(&dir.join("catalog.sqlite")).and_then(|c| c.check()) {
                Ok(()) => None,
                Err(e) if e.is_damage() => Some(e),
                Err(e) => return Err(e.into()),
            }
        };
        drop(probe);
        if let Some(damage) = catalog_damage {
            return Self::rebuild_catalog(dir, embedder, options, progress, damage);
        }
        // The keyword index is always rebuilt (it takes seconds). The vector store stays when the
        // library opens with it, and so does each document's vectors when it has one for every
        // chunk: a damaged keyword index costs no embedding. With the catalog sound and the keyword
        // index new, a library that reports damage on open has a damaged vector store.
        let remove = |derived: &str| {
            let p = dir.join(derived);
            if p.exists() {
                std::fs::remove_dir_all(&p).map_err(folio_index::IndexError::from)?;
            }
            Ok::<_, EngineError>(())
        };
        remove("keyword")?;
        let mut lib = match Library::open(dir, embedder.clone(), options.clone()) {
            Err(EngineError::Damaged(_)) => {
                remove("vectors")?;
                Library::open(dir, embedder, options)?
            }
            opened => opened?,
        };
        let mut report = RepairReport { rolled_back: lib.repaired.clone(), ..RepairReport::default() };
        let docs = lib.catalog.documents()?;
        let defs = lib.catalog.definitions(None)?;
        for (i, d) in docs.iter().enumerate() {
            progress(&d.path, i, docs.len());
            let rows = lib.catalog.chunks(Some(d.id))?;
            report.documents += 1;
            report.chunks += rows.len();
            let stored = lib.vectors.document_vectors(d.id)?;
            if stored.len() != rows.len() || !rows.iter().all(|r| stored.contains_key(&r.id)) {
                lib.embed_again(d, &rows, &defs)?;
                report.embedded += rows.len();
            }
            put_keywords(&mut lib.keyword, d.id, &rows)?;
            lib.keyword.commit()?;
        }
        lib.finish_ingest()?;
        Ok(report)
    }

    /// Embeds a document's stored chunks again (with their stored contexts) and replaces its
    /// vector records.
    fn embed_again(
        &mut self,
        d: &DocumentRow,
        rows: &[ChunkRow],
        defs: &[DefinitionRow],
    ) -> Result<(), EngineError> {
        let texts: Vec<String> = rows.iter().map(stored_embedded_text).collect();
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.options.embed_batch.max(1)) {
            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
            vectors.extend(self.embedder.embed_documents(&refs)?);
        }
        let refs = self.catalog.references_within(d.id, folio_core::model::Span::new(0, usize::MAX >> 1))?;
        let source =
            RecordSource { path: &d.path, mtime: d.mtime, size: d.size, format: &d.format, title: &d.title };
        let records: Vec<VectorRecord> = rows
            .iter()
            .zip(&vectors)
            .map(|(r, v)| {
                let in_chunk: Vec<&RefRow> = refs
                    .iter()
                    .filter(|x| x.span.start >= r.span.start && x.span.end <= r.span.end)
                    .collect();
                let def = r
                    .defined_terms
                    .first()
                    .and_then(|k| defs.iter().find(|x| x.doc_id == d.id && &x.key == k));
                let refs_json = serde_json::to_string(&in_chunk).unwrap_or_default();
                vector_record(r, v, &source, refs_json, def.map(|x| (x.term.as_str(), x.key.as_str())))
            })
            .collect();
        self.vectors.put_document(d.id, &records)?;
        Ok(())
    }

    /// Rebuilds a damaged catalog from the chunk records of the vector store: the damaged file is
    /// moved aside (and what still reads of it — the context cache, watched folders, failures,
    /// document labels and context modes — copied over), the records are moved aside while the
    /// documents are written again one by one, each with its recorded vectors and contexts, then
    /// the exact index and cross-document references are rebuilt.
    fn rebuild_catalog(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
        progress: &mut dyn FnMut(&str, usize, usize),
        damage: folio_index::IndexError,
    ) -> Result<RepairReport, EngineError> {
        use crate::recovery::{
            analysis_from_records, analysis_from_source, documents_of, recorded_contexts, with_sources,
            Origin,
        };
        let io = |e: std::io::Error| EngineError::from(folio_index::IndexError::from(e));
        let aside = dir.join(RECORDS_ASIDE);
        if !aside.exists() {
            let vectors = dir.join("vectors");
            if !vectors.exists() || options.in_memory_vectors {
                return Err(EngineError::Damaged(format!(
                    "the library's catalog in {} is damaged ({damage}) and there are no chunk records to rebuild it from: ingest the documents again into a new library",
                    dir.display()
                )));
            }
            std::fs::rename(&vectors, &aside).map_err(io)?;
        }
        // Records of another model's table cannot be used (nor would their vectors fit): the
        // store goes back untouched and the user is told which model to repair with.
        let table = folio_index::vectors::table_name(embedder.id(), embedder.dim());
        if !aside.join(format!("{table}.lance")).is_dir() {
            let present: Vec<String> = std::fs::read_dir(&aside)
                .map(|d| {
                    d.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".lance").map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            std::fs::rename(&aside, dir.join("vectors")).map_err(io)?;
            return Err(EngineError::Damaged(format!(
                "the library's catalog in {} is damaged ({damage}), and its vector store holds no records for {} (it holds: {}); run `folio repair` with the model the library was built with (`--model`)",
                dir.display(),
                embedder.id(),
                if present.is_empty() { "nothing".to_string() } else { present.join(", ") }
            )));
        }
        let records = LanceVectors::open(&aside, embedder.id(), embedder.dim())
            .and_then(|v| v.records())
            .map_err(|e| {
                EngineError::Damaged(format!(
                    "the library's catalog in {} is damaged ({damage}) and its vector store cannot be read either ({e}): ingest the documents again into a new library",
                    dir.display()
                ))
            })?;
        // The damaged catalog (with its journal) moves aside; the keyword index is derived.
        let stamp = folio_index::catalog::now();
        let damaged_copy = dir.join(format!("catalog.damaged-{stamp}.sqlite"));
        for suffix in ["", "-wal", "-shm"] {
            let from = dir.join(format!("catalog.sqlite{suffix}"));
            if from.exists() {
                std::fs::rename(&from, dir.join(format!("catalog.damaged-{stamp}.sqlite{suffix}")))
                    .map_err(io)?;
            }
        }
        if dir.join("keyword").exists() {
            std::fs::remove_dir_all(dir.join("keyword")).map_err(io)?;
        }
        let mut lib = Library::open(dir, embedder, options)?;
        let folio_index::catalog::Salvage { documents: known_documents, copied, lost } =
            lib.catalog.salvage_from(&damaged_copy);
        let mut rebuilt =
            CatalogRebuild { damaged_copy, salvaged: copied, lost, ..CatalogRebuild::default() };
        let docs = documents_of(records);
        let mut report = RepairReport::default();
        for (i, records) in docs.iter().enumerate() {
            let path = records[0].source_path.clone();
            progress(&path, i, docs.len());
            let (analysis, origin) = match analysis_from_source(
                records,
                &lib.options.convert,
                lib.counter.as_ref(),
                &lib.options.chunker,
            ) {
                Some(a) => (a, Origin::Source),
                None => (analysis_from_records(records, lib.counter.as_ref()), Origin::Records),
            };
            let known = known_documents.get(&path);
            let label = known.map(|d| d.label.clone()).unwrap_or_else(|| document_label(&path));
            let texts = recorded_contexts(records);
            let mode = match known {
                Some(d) => d.context_mode.clone(),
                None if texts.iter().all(String::is_empty) => "none".into(),
                None if origin == Origin::Source
                    && folio_core::context::structural_contexts(&analysis, &label) == texts =>
                {
                    "structural".into()
                }
                None => "recovered".into(),
            };
            let contexts = with_sources(texts, &mode);
            let prepared = Prepared {
                path: path.clone(),
                mtime: records[0].mtime,
                size: records[0].file_size_bytes,
                label,
                mode,
                analysis,
                contexts,
                run: None,
                vectors: records.iter().map(|r| r.embedding.clone()).collect(),
                reused: records.len(),
            };
            let (chunks, _) = lib.commit_file(prepared).map_err(|(code, message)| {
                EngineError::Damaged(format!("rebuilding {path} failed ({code}): {message}"))
            })?;
            match origin {
                Origin::Source => rebuilt.from_source += 1,
                Origin::Records => rebuilt.from_records.push(path),
            }
            report.documents += 1;
            report.chunks += chunks;
        }
        lib.finish_ingest()?;
        drop(lib);
        std::fs::remove_dir_all(&aside).map_err(io)?;
        report.catalog = Some(rebuilt);
        Ok(report)
    }

    fn note_failure(&self, file: &Path, failure: Option<(&str, &str)>) {
        let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        let path = abs.display().to_string();
        let _ = match failure {
            None => self.catalog.clear_failure(&path),
            Some((code, message)) => {
                let (mtime, size) = file_stamp(&abs).unwrap_or((0, 0));
                self.catalog.put_failure(&FailureRow {
                    path,
                    mtime,
                    size,
                    code: code.to_string(),
                    message: message.to_string(),
                    at: folio_index::catalog::now(),
                })
            }
        };
    }

    /// Files that could not be indexed, with why; each is tried again once it changes.
    pub fn failures(&self) -> Result<Vec<FailureRow>, EngineError> {
        Ok(self.catalog.failures()?)
    }

    /// The folders this library keeps in step with (see [`crate::FolderWatcher`]).
    pub fn watched_folders(&self) -> Result<Vec<PathBuf>, EngineError> {
        Ok(self.catalog.watched_folders()?.into_iter().map(PathBuf::from).collect())
    }

    /// Adds a folder to keep in step with; returns its canonical path and whether it is new.
    pub fn add_watched_folder(&mut self, folder: &Path) -> Result<(PathBuf, bool), EngineError> {
        self.check_writable()?;
        let abs =
            folder.canonicalize().map_err(|e| EngineError::NotFound(format!("{}: {e}", folder.display())))?;
        if !abs.is_dir() {
            return Err(EngineError::Invalid(format!("{} is not a folder", abs.display())));
        }
        if abs.starts_with(&self.dir) || self.dir.canonicalize().is_ok_and(|d| abs.starts_with(d)) {
            return Err(EngineError::Invalid("the library's own folder cannot be watched".into()));
        }
        let added = self.catalog.add_watched_folder(&abs.display().to_string())?;
        Ok((abs, added))
    }

    /// Stops keeping a folder in step (its documents stay); returns whether it was watched.
    pub fn remove_watched_folder(&mut self, folder: &Path) -> Result<bool, EngineError> {
        self.check_writable()?;
        let abs = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
        Ok(self.catalog.remove_watched_folder(&abs.display().to_string())?
            || self.catalog.remove_watched_folder(&folder.display().to_string())?)
    }

    /// What keeping `paths` (files or folders, existing or gone) in step takes: files to ingest
    /// (new, or changed in time or size since they were indexed or failed) and documents to remove
    /// (their file is gone). Cheap: no file is read.
    pub fn sync_plan(&self, paths: &[PathBuf]) -> Result<SyncPlan, EngineError> {
        let docs = self.catalog.documents()?;
        let failures = self.catalog.failures()?;
        let roots = self.watched_folders()?;
        let mut plan = SyncPlan::default();
        let library = self.dir.canonicalize().unwrap_or_else(|_| self.dir.clone());
        for p in paths {
            let abs = p.canonicalize().unwrap_or_else(|_| p.clone());
            if abs.starts_with(&library) {
                continue;
            }
            let mut files = Vec::new();
            if abs.exists() {
                collect_files(&abs, &mut files);
            }
            for f in files.into_iter().filter(|f| is_library_file(f)) {
                let key = f.display().to_string();
                let Some((mtime, size)) = file_stamp(&f) else { continue };
                let stamp_is = |m: i64, s: i64| m == mtime && s == size;
                let indexed =
                    docs.iter().any(|d| d.path == key && d.status == "indexed" && stamp_is(d.mtime, d.size));
                let failed = failures.iter().any(|x| x.path == key && stamp_is(x.mtime, x.size));
                if !indexed && !failed && !plan.ingest.contains(&f) {
                    plan.ingest.push(f);
                }
            }
            // Documents at or under the path whose file is gone, unless the watched folder holding
            // them is gone as a whole (an unplugged drive, an unmounted share): their documents
            // stay until it is back or the user removes them.
            for d in &docs {
                let dp = Path::new(&d.path);
                let root_gone = roots.iter().any(|r| dp.starts_with(r) && !r.is_dir());
                if dp.starts_with(&abs) && !dp.exists() && !root_gone && !plan.remove.contains(&d.path) {
                    plan.remove.push(d.path.clone());
                }
            }
            for x in &failures {
                if Path::new(&x.path).starts_with(&abs) && !Path::new(&x.path).exists() {
                    plan.forget.push(x.path.clone());
                }
            }
        }
        Ok(plan)
    }

    /// Forgets the failures of files that are gone.
    pub fn forget_failures(&self, paths: &[String]) -> Result<(), EngineError> {
        for p in paths {
            self.catalog.clear_failure(p)?;
        }
        Ok(())
    }

    /// Documents rolled back when the library opened (a crash had left them half-written).
    pub fn repaired(&self) -> &[String] {
        &self.repaired
    }

    /// Each document's chunk count in the catalog, the vectors and the keyword index; a document
    /// is consistent when the three agree.
    pub fn verify(&self) -> Result<Vec<(DocumentRow, [usize; 3])>, EngineError> {
        let mut out = Vec::new();
        for d in self.catalog.documents()? {
            let catalog = self.catalog.document_counts(d.id)?[1];
            let vectors = self.vectors.document_vectors(d.id)?.len();
            let keyword = self.keyword.document_count(d.id as u64)?;
            out.push((d, [catalog, vectors, keyword]));
        }
        Ok(out)
    }

    /// After the files: the exact index and cross-document references catch up.
    fn finish_ingest(&mut self) -> Result<(), EngineError> {
        self.rebuild_exact()?;
        self.resolve_external()
    }

    /// Removes a document (by id, label or path).
    pub fn remove(&mut self, doc: &str) -> Result<DocumentRow, EngineError> {
        self.check_writable()?;
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
        let doc_rows = &self.docs;
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
                // Only documents whole in every store are shown.
                let Some(doc) = doc_rows.iter().find(|d| d.id == row.doc_id && d.status == "indexed") else {
                    continue;
                };
                let doc = Some(doc);
                hits.push(Hit {
                    chunk_id: row.id,
                    score: f.score,
                    doc_id: row.doc_id,
                    document: doc.map(|d| d.title.clone()).unwrap_or_default(),
                    label: doc.map(|d| d.label.clone()).unwrap_or_default(),
                    path: doc.map(|d| d.path.clone()).unwrap_or_default(),
                    crumbs: self.crumbs(row.doc_id, &row.section_id),
                    citation: self.citation(doc, &row.section_id, row.pages),
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

    /// References written inside a section (its subsections included).
    pub fn section_references(&self, doc_id: i64, section: &SectionRow) -> Result<Vec<RefRow>, EngineError> {
        Ok(self.catalog.references_within(doc_id, section.span)?)
    }

    /// The tables inside a section's text.
    pub fn section_tables(&self, doc_id: i64, section: &SectionRow) -> Result<Vec<TableRow>, EngineError> {
        Ok(self.catalog.tables_within(doc_id, section.span)?)
    }

    /// One chunk by id.
    pub fn chunk(&self, id: i64) -> Result<Option<ChunkRow>, EngineError> {
        Ok(self.catalog.chunks_by_id(&[id])?.into_iter().next())
    }

    /// The converter settings (where pdfium is).
    pub fn convert_options(&self) -> &folio_convert::ConvertOptions {
        &self.options.convert
    }

    /// What a document holds.
    pub fn document_stats(&self, doc_id: i64) -> Result<crate::workspace::DocumentStats, EngineError> {
        let [sections, chunks, definitions, references] = self.catalog.document_counts(doc_id)?;
        Ok(crate::workspace::DocumentStats { sections, chunks, definitions, references })
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
    /// Chunks of the previous version whose vectors could be kept.
    #[allow(dead_code)]
    reused: usize,
}

/// What the previous version of a document offers a re-ingest.
#[derive(Default)]
struct Previous {
    /// Contexts by chunk content hash (only when written in the same mode, and not fallbacks).
    contexts: std::collections::HashMap<String, folio_index::catalog::ChunkContext>,
    /// Vectors by the exact text that was embedded.
    vectors: std::collections::HashMap<String, Vec<f32>>,
    reused: usize,
}

impl Previous {
    fn of(lib: &Library, doc_id: i64, mode: &str) -> Result<Previous, EngineError> {
        let same_mode = lib.catalog.context_mode(doc_id)? == mode;
        let chunks = lib.catalog.chunks(Some(doc_id))?;
        let stored = lib.vectors.document_vectors(doc_id)?;
        let mut p = Previous::default();
        for c in chunks {
            if same_mode && c.context_source != "fallback" {
                p.contexts.insert(
                    c.content_hash.clone(),
                    folio_index::catalog::ChunkContext {
                        text: c.context.clone(),
                        source: c.context_source.clone(),
                    },
                );
            }
            if let Some(v) = stored.get(&c.id) {
                p.vectors.insert(stored_embedded_text(&c), v.clone());
                p.reused += 1;
            }
        }
        Ok(p)
    }
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

    fn writable(&self) -> Result<(), EngineError> {
        match self {
            Access::Owned(l) => l.check_writable(),
            Access::Shared(l) => read(l).check_writable(),
        }
    }

    fn dir(&self) -> PathBuf {
        match self {
            Access::Owned(l) => l.dir.clone(),
            Access::Shared(l) => read(l).dir.clone(),
        }
    }

    /// Records a file's failure (or clears it, with `None`), so folder syncs try it again only
    /// once it changes. Bookkeeping: a failure to record is not the file's failure.
    fn note_failure(&self, file: &Path, failure: Option<(&str, &str)>) {
        let lib = match self {
            Access::Owned(l) => l,
            Access::Shared(l) => &*read(l),
        };
        lib.note_failure(file, failure);
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
    if let Err(e) = access.writable() {
        report.failed.push(IngestFailure {
            path: access.dir().display().to_string(),
            code: e.code().into(),
            message: e.to_string(),
        });
        return report;
    }
    for (i, file) in files.iter().enumerate() {
        progress(Progress {
            file: file.display().to_string(),
            file_index: i,
            files: n,
            stage: Stage::Queued,
            done: 0,
            total: 1,
            error: None,
        });
    }
    for (i, file) in files.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            report.cancelled = true;
            break;
        }
        let name = file.display().to_string();
        let ev = |stage, done, total| Progress {
            file: name.clone(),
            file_index: i,
            files: n,
            stage,
            done,
            total,
            error: None,
        };
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
                access.note_failure(file, None);
                report.chunks += chunks;
                report.contexts.extend(run);
                report.indexed.push(name.clone());
                progress(ev(Stage::Indexed, 1, 1));
            }
            Ok(None) => {
                access.note_failure(file, None);
                report.unchanged.push(name.clone());
                progress(ev(Stage::Unchanged, 1, 1));
            }
            Err((code, message)) => {
                if code == "cancelled" {
                    report.cancelled = true;
                    progress(ev(Stage::Cancelled, 0, 1));
                    break;
                }
                access.note_failure(file, Some((&code, &message)));
                let error =
                    Some(crate::workspace::BackendError { code: code.clone(), message: message.clone() });
                report.failed.push(IngestFailure { path: name.clone(), code, message });
                progress(Progress { error, ..ev(Stage::Failed, 1, 1) });
            }
        }
    }
    if let Err(e) = access.finish() {
        report.failed.push(IngestFailure {
            path: access.dir().display().to_string(),
            code: e.code().into(),
            message: e.to_string(),
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// Where a catalog rebuild keeps the vector store's records until every document is written
/// again (see [`Library::repair`]).
const RECORDS_ASIDE: &str = "vectors.repairing";

/// Takes the library's write lock, or `None` when another process holds it.
fn take_write_lock(dir: &Path) -> Result<Option<std::fs::File>, EngineError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("write.lock"))
        .map_err(folio_index::IndexError::from)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(folio_index::IndexError::from(e).into()),
    }
}

/// Whether no process holds the library's write lock (probed and let go at once).
fn lock_is_free(dir: &Path) -> bool {
    std::fs::OpenOptions::new().write(true).open(dir.join("write.lock")).is_ok_and(|f| f.try_lock().is_ok())
}

/// A file's modification time (Unix seconds) and size.
fn file_stamp(path: &Path) -> Option<(i64, i64)> {
    let m = std::fs::metadata(path).ok()?;
    let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    Some((mtime, m.len() as i64))
}

/// Whether a file in a watched folder belongs in the library: a format Folio reads, and not an
/// editor's or a download's temporary or lock file.
pub fn is_library_file(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { return false };
    let lower = name.to_ascii_lowercase();
    let temporary = name.starts_with('.')
        || name.starts_with("~$")
        || name.starts_with('#')
        || name.ends_with('~')
        || [".tmp", ".temp", ".part", ".partial", ".crdownload", ".download", ".swp", ".bak", ".lock"]
            .iter()
            .any(|e| lower.ends_with(e));
    !temporary && folio_convert::format_from_extension(&name).is_some() && !path.is_dir()
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

/// The document a vector record comes from.
struct RecordSource<'a> {
    path: &'a str,
    mtime: i64,
    size: i64,
    format: &'a str,
    title: &'a str,
}

/// A chunk's LanceDB record, with the JSON of the references written in it and the first term it
/// defines (term, key).
fn vector_record(
    r: &ChunkRow,
    v: &[f32],
    doc: &RecordSource<'_>,
    cross_references: String,
    defined: Option<(&str, &str)>,
) -> VectorRecord {
    VectorRecord {
        chunk_id: r.id,
        doc_id: r.doc_id,
        source_path: doc.path.to_string(),
        chunk_index: r.chunk_index,
        content: r.content.clone(),
        contextualized_content: r.contextualized(),
        embedding: v.to_vec(),
        mtime: doc.mtime,
        file_type: doc.format.to_string(),
        file_size_bytes: doc.size,
        parent_chain: serde_json::to_string(&r.parent_chain).unwrap_or_default(),
        section_id: r.section_id.clone(),
        heading_level: r.heading_level,
        chunk_type: r.chunk_type.clone(),
        cross_references,
        doc_summary: doc.title.to_string(),
        defined_term: defined.map(|(t, _)| t.to_string()),
        defined_term_normalized: defined.map(|(_, k)| k.to_string()),
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

// The desktop app shares one library between its ingest thread and its searches.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<Library>();
};

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
