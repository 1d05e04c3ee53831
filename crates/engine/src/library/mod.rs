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
use folio_core::tokens::{TokenCounter, WordCounter};
use folio_index::catalog::{
    Catalog, ChunkRow, ContextRun, DefinitionRow, DocumentRow, DocumentStatus, FailureRow, NewDocument,
    RefRow, SectionRow, SqliteCatalog,
};
use folio_index::exact::{document_label, ExactIndex};
use folio_index::keyword::{KeywordDoc, KeywordFilter};
use folio_index::vectors::{LanceVectors, VectorRecord, VectorStore};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

mod ahead;
mod documents;
mod folders;
mod glossary;
mod ingest;
mod keywords;
mod lock;
mod lookups;
mod nearest;
mod progress;
mod repair;
mod rerank;
mod search;
mod stores;
mod team;
mod titles;
mod write;

use folders::collect_files;
pub use folders::{is_library_file, library_files, SyncPlan};
pub use glossary::UsedTerm;
pub use ingest::ingest_shared;
use ingest::{file_stamp, stored_embedded_text};
use keywords::Keywords;
use lock::{lock_is_free, take_write_lock};
pub use repair::{CatalogRebuild, RepairReport};
#[cfg(test)]
use search::{highlight_terms, snippet};
pub use search::{Hit, SearchOptions, DEFAULT_DEPTH};
pub use team::{TeamKeywords, TeamLocation};
use write::{put_keywords, vector_record, Prepared, RecordSource};

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
    /// How documents are cut into chunks.
    pub chunker: ChunkerConfig,
    /// How files are converted (limits, PDFium, OCR, bookmarks).
    pub convert: ConvertOptions,
    /// Keep vectors in RAM instead of LanceDB (tests).
    pub in_memory_vectors: bool,
    /// The vocabulary for counting chunk tokens in the embedder's own units (`vocab.txt`).
    pub vocab: Option<PathBuf>,
    /// Texts embedded per call, during ingest and repair, by a model that embeds a call at a time
    /// (a remote one): each call is one progress step and one check for cancelling. Folio's own
    /// encoder takes a document's chunks as one call and steps and checks before each of its own
    /// batches of a few hundred pieces (see `Embedder::embed_documents_in_parts`): its threads,
    /// which wait for one another at the end of a call, waited 2-3% of an ingest at 64 texts a
    /// call.
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
            embed_batch: 64,
            context: ContextMode::default(),
        }
    }
}

/// What ingest is doing to a file (defined in core, where every layer's progress steps name it).
pub use folio_core::progress::Stage;

/// A progress event.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Progress {
    /// The file the event is about.
    pub file: String,
    /// Index of the file among those asked for, and their number.
    pub file_index: usize,
    /// How many files were asked for.
    pub files: usize,
    /// What is being done to the file.
    pub stage: Stage,
    /// Work done and total within the stage (chunks embedded, say).
    pub done: usize,
    /// The stage's total (0 while unknown).
    pub total: usize,
    /// Why the file failed (with `Stage::Failed`).
    pub error: Option<crate::outcome::BackendError>,
    /// Seconds the whole ingest has left, from the rate this machine has shown on it so far (bytes
    /// of the files read per second); absent until that rate is known.
    pub remaining_s: Option<f64>,
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
            remaining_s: None,
        }
    }
}

/// One failed file.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct IngestFailure {
    /// The file, as it was given.
    pub path: String,
    /// Why, as a code the UI can match.
    pub code: crate::ErrorCode,
    /// Why, in words (without the path).
    pub message: String,
}

/// The result of an ingest.
#[derive(Debug, Default, Clone, Serialize, schemars::JsonSchema)]
pub struct IngestReport {
    /// Files added or updated.
    pub indexed: Vec<String>,
    /// Files whose content (and context mode) had not changed: left as they were.
    pub unchanged: Vec<String>,
    /// Files that could not be added, each with why.
    pub failed: Vec<IngestFailure>,
    /// Whether the ingest was stopped before its end.
    pub cancelled: bool,
    /// Chunks written.
    pub chunks: usize,
    /// Wall time of the whole ingest.
    pub seconds: f64,
    /// Per document contextualized by an LLM: cache hits and misses, fallbacks, tokens and cost.
    pub contexts: Vec<ContextRun>,
}

/// One step of a breadcrumb.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Crumb {
    /// The section's id in its document.
    pub section_id: String,
    /// The heading as printed ("2.1 Scope").
    pub heading: String,
}

/// A definition with its document.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DefinitionHit {
    /// The document's label.
    pub document: String,
    /// The document's id.
    pub doc_id: i64,
    /// The definition: term, text, where and for what scope.
    #[serde(flatten)]
    pub definition: DefinitionRow,
}

/// A section's text.
#[derive(Debug, Clone, Serialize)]
pub struct SectionText {
    /// The document's id.
    pub doc_id: i64,
    /// The document's label.
    pub document: String,
    /// The section's row (number, heading, level, pages, span).
    pub section: SectionRow,
    /// The headings above it, outermost first.
    pub parent_chain: Vec<String>,
    /// The section's own text.
    pub text: String,
}

/// References out of a section and into it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Backlinks {
    /// References written in the section.
    pub outgoing: Vec<RefRow>,
    /// References to the section, from any document of the library.
    pub incoming: Vec<RefRow>,
}

/// A document the library cites but does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MissingDocument {
    /// Its name, as the citing documents most often write it ("FSMR", "Insolvency Regulations").
    pub name: String,
    /// References to it.
    pub citations: usize,
    /// Documents of the library that cite it.
    pub citing_documents: usize,
}

/// A library folder.
pub struct Library {
    dir: PathBuf,
    catalog: Arc<dyn Catalog>,
    keyword: Keywords,
    exact: ExactIndex,
    vectors: Box<dyn VectorStore>,
    embedder: Arc<dyn Embedder>,
    counter: Arc<dyn TokenCounter>,
    options: LibraryOptions,
    /// The library's write lock (`write.lock`, an OS file lock, released by the OS when this
    /// process ends, however it ends); `None` when another process holds it and this one reads only.
    write_lock: Option<std::fs::File>,
    /// A team library's own part (its catalog's change sequence, the keyword cache's place in it);
    /// `None` for a folder library.
    team: Option<team::Team>,
    /// Documents rolled back on open.
    repaired: Vec<String>,
    /// The catalog's data version when a read-only library last caught up (see `refresh`).
    seen_version: i64,
    /// The documents and their outlines, kept in memory (rebuilt with the exact index).
    docs: Vec<DocumentRow>,
    outlines: std::collections::HashMap<i64, lookups::Outline>,
    /// Whose definitions apply in each document (rebuilt with the exact index and after the
    /// library's references are resolved).
    adoptions: glossary::Adoptions,
    /// Titles the library's glossaries give documents known only by their label (see [`titles`]).
    library_titles: std::collections::HashMap<i64, String>,
    /// Counts the changes to the lookup tables above, so that tables computed while searches went
    /// on are put in place only when nothing changed meanwhile (see [`lookups`]).
    generation: u64,
    /// What the lookup tables above were computed from, for extending them after an ingest.
    lookup_base: Option<lookups::LookupBase>,
    /// How many times an ingest extended the lookup tables instead of computing them whole.
    lookups_extended: u64,
    /// How many times the lookup tables were read back as saved instead of computed.
    lookups_read_back: u64,
    /// The thread saving the lookup tables last computed, while it runs (see [`lookups`]).
    saving: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Drop for Library {
    /// Waits for the lookup tables being saved: a library closed is one the next open reads back.
    fn drop(&mut self) {
        let slot = self.saving.get_mut().unwrap_or_else(|p| p.into_inner());
        Library::saved_wait(slot);
    }
}

/// What a library is opened on: its stores, and where it is.
struct Stores {
    dir: PathBuf,
    catalog: Arc<dyn Catalog>,
    keyword: Keywords,
    vectors: Box<dyn VectorStore>,
    write_lock: Option<std::fs::File>,
    team: Option<team::Team>,
}

impl Library {
    /// A library on its stores, its lookup tables still empty (the caller reads the stores through).
    fn with_stores(
        stores: Stores,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
    ) -> Result<Library, EngineError> {
        // Chunks are sized in the embedder's own pieces when its vocabulary is given; one that
        // cannot be read is an error (another counter would cut different chunks).
        let counter: Arc<dyn TokenCounter> = match &options.vocab {
            Some(path) => Arc::new(folio_ai::load_vocabulary(path)?),
            None => Arc::new(WordCounter),
        };
        let Stores { dir, catalog, keyword, vectors, write_lock, team } = stores;
        Ok(Library {
            dir,
            catalog,
            keyword,
            exact: ExactIndex::default(),
            vectors,
            embedder,
            counter,
            options,
            write_lock,
            team,
            repaired: Vec::new(),
            seen_version: 0,
            docs: Vec::new(),
            outlines: std::collections::HashMap::new(),
            adoptions: glossary::Adoptions::default(),
            library_titles: std::collections::HashMap::new(),
            generation: 0,
            lookup_base: None,
            lookups_extended: 0,
            lookups_read_back: 0,
            saving: std::sync::Mutex::new(None),
        })
    }

    /// The library folder (for a team library, this computer's cache folder of it).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the library is, as the user names it: its folder, or a team library's address
    /// (without a password).
    pub fn location(&self) -> String {
        match &self.team {
            Some(_) => self.team_address(),
            None => self.dir.display().to_string(),
        }
    }

    /// Whether this process may write the library (another one holds its write lock otherwise).
    pub fn is_writable(&self) -> bool {
        // A team library takes writes from every client; its server refuses a role that may only
        // read (`ErrorCode::ReadOnly`).
        self.write_lock.is_some() || self.team.is_some()
    }

    /// Whether a read-only library is behind: the writing process committed since it last caught
    /// up, or let go of the library. Cheap (one SQLite pragma and a lock probe); always `false` for
    /// the writer.
    pub fn is_stale(&self) -> bool {
        if self.team.is_some() {
            return self.team_is_stale();
        }
        !self.is_writable()
            && (self.catalog.data_version().is_ok_and(|v| v != self.seen_version) || lock_is_free(&self.dir))
    }

    /// Catches a read-only library up with the writing process: the document list, outlines and
    /// exact index from the catalog first, then the keyword index and the vectors (so a document
    /// the list shows as indexed is whole in the stores read after it). Once the writer has let go,
    /// takes the write lock (rolling back what a crashed writer left half-written) and becomes
    /// writable. Returns whether anything changed.
    pub fn refresh(&mut self) -> Result<bool, EngineError> {
        if self.team.is_some() {
            return self.team_refresh();
        }
        if self.is_writable() {
            return Ok(false);
        }
        if let Some(lock) = take_write_lock(&self.dir)? {
            self.write_lock = Some(lock);
            self.seen_version = self.catalog.data_version()?;
            self.keyword.reload()?;
            self.vectors.reload()?;
            self.repaired = self.reconcile()?;
            self.rebuild_lookups(false)?;
            return Ok(true);
        }
        let version = self.catalog.data_version()?;
        if version == self.seen_version {
            return Ok(false);
        }
        self.seen_version = version;
        self.rebuild_lookups(false)?;
        self.keyword.reload()?;
        self.vectors.reload()?;
        Ok(true)
    }

    fn check_writable(&self) -> Result<(), EngineError> {
        if self.team.is_some() {
            // The server decides what a role may write: asked up front, so that a role that may
            // only read is told so once, before any work.
            return if self.catalog.may_write()? {
                Ok(())
            } else {
                Err(EngineError::ReadOnly(format!(
                    "the team library {} is read-only for you: you can search and read it, not add or remove documents",
                    self.location()
                )))
            };
        }
        if self.is_writable() {
            Ok(())
        } else {
            Err(EngineError::ReadOnly(format!(
                "another Folio process is writing the library in {}; it is open read-only here until that one closes",
                self.dir.display()
            )))
        }
    }

    /// The converter settings (where pdfium is).
    pub fn convert_options(&self) -> &folio_convert::ConvertOptions {
        &self.options.convert
    }

    /// What a document holds.
    pub fn document_stats(&self, doc_id: i64) -> Result<crate::outcome::DocumentStats, EngineError> {
        let [sections, chunks, definitions, references] = self.catalog.document_counts(doc_id)?;
        Ok(crate::outcome::DocumentStats { sections, chunks, definitions, references })
    }

    /// How the library's embedding model runs here ("all-minilm-l6-v2 · int8 (AMX)").
    pub fn embedder_description(&self) -> String {
        self.embedder.describe()
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

/// Reads a shared library; a writer that panicked left nothing half-written in the stores it
/// had finished, so the lock is taken over.
pub(crate) fn read(l: &RwLock<Library>) -> std::sync::RwLockReadGuard<'_, Library> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn write(l: &RwLock<Library>) -> std::sync::RwLockWriteGuard<'_, Library> {
    l.write().unwrap_or_else(|e| e.into_inner())
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
