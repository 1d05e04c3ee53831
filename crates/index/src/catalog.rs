//! The SQLite catalog: documents, outlines, chunks, definitions and cross-references, with schema
//! migrations. It is the library's source of truth; the keyword, exact and vector indexes are derived
//! from it (and can be rebuilt from it).

use crate::IndexError;
use folio_core::analysis::Analysis;
use folio_core::chunker::Chunk;
use folio_core::definitions::DefinitionScope;
use folio_core::model::{BlockKind, PageRange, Span};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// The current schema version.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const MIGRATIONS: [&str; 4] = [
    r#"
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    title TEXT NOT NULL,
    format TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    mtime INTEGER NOT NULL,
    size INTEGER NOT NULL,
    page_count INTEGER,
    status TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE sections (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    number TEXT,
    title TEXT NOT NULL,
    heading TEXT NOT NULL,
    level INTEGER NOT NULL,
    parent_ord INTEGER,
    page_start INTEGER, page_end INTEGER,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    PRIMARY KEY (doc_id, ord)
);
CREATE INDEX sections_by_id ON sections(doc_id, section_id);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    section_ids TEXT NOT NULL,
    parent_chain TEXT NOT NULL,
    heading_level INTEGER NOT NULL,
    chunk_type TEXT NOT NULL,
    page_start INTEGER, page_end INTEGER,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    content TEXT NOT NULL,
    context TEXT NOT NULL DEFAULT '',
    defined_terms TEXT NOT NULL
);
CREATE INDEX chunks_by_doc ON chunks(doc_id, chunk_index);
CREATE TABLE definitions (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    term TEXT NOT NULL,
    key TEXT NOT NULL,
    text TEXT NOT NULL,
    section_id TEXT NOT NULL,
    scope_section TEXT,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL
);
CREATE INDEX definitions_by_key ON definitions(key);
CREATE TABLE refs (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    label TEXT NOT NULL,
    from_section TEXT NOT NULL,
    target_section TEXT,
    document TEXT,
    container TEXT,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    target_doc_id INTEGER,
    target_doc_section TEXT
);
CREATE INDEX refs_by_from ON refs(doc_id, from_section);
CREATE INDEX refs_by_target ON refs(target_doc_id, target_doc_section);
"#,
    r#"
ALTER TABLE chunks ADD COLUMN context_source TEXT NOT NULL DEFAULT 'none';
ALTER TABLE documents ADD COLUMN context_mode TEXT NOT NULL DEFAULT 'none';
CREATE TABLE context_cache (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    text TEXT NOT NULL,
    excerpt INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE context_runs (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    path TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    requests INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    misses INTEGER NOT NULL,
    fallbacks INTEGER NOT NULL,
    excerpted INTEGER NOT NULL,
    cost REAL NOT NULL
);
"#,
    r#"
CREATE TABLE watched_folders (
    path TEXT PRIMARY KEY,
    added INTEGER NOT NULL
);
CREATE TABLE failures (
    path TEXT PRIMARY KEY,
    mtime INTEGER NOT NULL,
    size INTEGER NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    at INTEGER NOT NULL
);
"#,
    r#"
CREATE TABLE tables (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    header_rows INTEGER NOT NULL
);
CREATE INDEX tables_by_doc ON tables(doc_id, span_start);
"#,
];

/// A document's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DocumentRow {
    pub id: i64,
    pub path: String,
    /// The short label other documents cite it by ("GEN", "FSMR"), from its file name and title.
    pub label: String,
    pub title: String,
    pub format: String,
    pub content_hash: String,
    pub mtime: i64,
    pub size: i64,
    pub page_count: Option<i64>,
    pub status: String,
}

/// A file that could not be indexed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FailureRow {
    pub path: String,
    /// The file's modification time (Unix seconds) and size when it failed.
    pub mtime: i64,
    pub size: i64,
    pub code: String,
    pub message: String,
    /// When it failed (Unix seconds).
    pub at: i64,
}

/// A table block as stored: its place in the document text (rows separated by `\n`, cells by
/// `\t`) and how many of its first rows are column headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TableRow {
    pub span: Span,
    pub header_rows: u32,
}

/// A chunk as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChunkRow {
    pub id: i64,
    pub doc_id: i64,
    pub chunk_index: i64,
    pub section_id: String,
    pub section_ids: Vec<String>,
    pub parent_chain: Vec<String>,
    pub heading_level: i64,
    pub chunk_type: String,
    pub pages: Option<PageRange>,
    pub span: Span,
    pub content_hash: String,
    pub content: String,
    pub context: String,
    /// Where the context came from: `none`, `structural`, `llm`, `llm-excerpt` (the LLM saw an
    /// excerpt of a long document) or `fallback` (the LLM failed; structural, retried next ingest).
    pub context_source: String,
    pub defined_terms: Vec<String>,
}

impl ChunkRow {
    /// The text that is embedded and keyword-indexed: the context, then the chunk.
    pub fn contextualized(&self) -> String {
        if self.context.is_empty() {
            self.content.clone()
        } else {
            format!("{}\n\n{}", self.context, self.content)
        }
    }
}

/// A section as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SectionRow {
    pub doc_id: i64,
    pub ord: i64,
    pub section_id: String,
    pub number: Option<String>,
    pub title: String,
    pub heading: String,
    pub level: i64,
    pub parent_ord: Option<i64>,
    pub pages: Option<PageRange>,
    pub span: Span,
}

/// A definition as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DefinitionRow {
    pub doc_id: i64,
    pub term: String,
    pub key: String,
    pub text: String,
    pub section_id: String,
    /// `None` for the whole document.
    pub scope_section: Option<String>,
    pub span: Span,
}

/// A cross-reference as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RefRow {
    pub doc_id: i64,
    pub text: String,
    pub label: String,
    pub from_section: String,
    pub target_section: Option<String>,
    pub document: Option<String>,
    pub container: Option<String>,
    pub span: Span,
    /// Resolution at library level: the document and section it points to.
    pub target_doc_id: Option<i64>,
    pub target_doc_section: Option<String>,
}

/// The tables [`Catalog::salvage_from`] copies from a damaged catalog: what the chunk records in
/// the vector store do not hold.
const SALVAGED_TABLES: [&str; 4] = ["context_cache", "context_runs", "watched_folders", "failures"];

/// What [`Catalog::salvage_from`] could read of a damaged catalog.
#[derive(Debug, Clone, Default)]
pub struct Salvage {
    /// Indexed documents by path.
    pub documents: std::collections::HashMap<String, SalvagedDocument>,
    /// Tables copied whole.
    pub copied: Vec<String>,
    /// Tables that could not be read (nothing of them was copied).
    pub lost: Vec<String>,
}

/// A document's row as far as a damaged catalog still tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalvagedDocument {
    pub label: String,
    pub context_mode: String,
}

/// A chunk's context and where it came from (see [`ChunkRow::context_source`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkContext {
    pub text: String,
    pub source: String,
}

/// A document to store: where it is, its analysis and its chunks' contexts.
#[derive(Debug, Clone, Copy)]
pub struct NewDocument<'a> {
    pub path: &'a str,
    /// The short label other documents cite it by.
    pub label: &'a str,
    pub mtime: i64,
    pub size: i64,
    pub analysis: &'a Analysis,
    /// One per chunk, in order.
    pub contexts: &'a [ChunkContext],
    /// How the contexts were made (`none`, `structural`, `anthropic:MODEL`, …).
    pub context_mode: &'a str,
}

/// A context an LLM wrote, as cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedContext {
    pub provider: String,
    pub model: String,
    pub prompt_version: String,
    pub text: String,
    /// The LLM saw an excerpt of the document, not all of it.
    pub excerpt: bool,
    /// Tokens: input, output, cache write, cache read.
    pub tokens: [u64; 4],
}

/// One document's contextualizing, as recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextRun {
    pub path: String,
    pub provider: String,
    pub model: String,
    pub requests: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_write_tokens: u64,
    pub cache_read_tokens: u64,
    /// Chunks answered from the cache, and asked of the LLM.
    pub hits: u64,
    pub misses: u64,
    /// Chunks whose request failed (they carry the structural context).
    pub fallbacks: u64,
    /// Chunks sent with an excerpt of a long document.
    pub excerpted: u64,
    /// US dollars, at the prices of the run.
    pub cost: f64,
}

/// The catalog.
pub struct Catalog {
    /// Behind a mutex so that the catalog can be shared between threads (searches run while an
    /// ingest prepares its next document); each call holds it briefly.
    conn: Mutex<Connection>,
}

fn pages_of(start: Option<i64>, end: Option<i64>) -> Option<PageRange> {
    match (start, end) {
        (Some(s), Some(e)) => Some(PageRange { start: s as u32, end: e as u32 }),
        _ => None,
    }
}

impl Catalog {
    /// The connection. A panic while it was held leaves nothing half-done (statements are
    /// atomic, transactions roll back on drop), so a poisoned lock is taken over.
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens (creating and migrating as needed) the catalog at `path`.
    pub fn open(path: &Path) -> Result<Catalog, IndexError> {
        Self::setup(Connection::open(path)?)
    }

    /// An in-memory catalog, for tests.
    pub fn in_memory() -> Result<Catalog, IndexError> {
        Self::setup(Connection::open_in_memory()?)
    }

    fn setup(conn: Connection) -> Result<Catalog, IndexError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(IndexError::Corrupt(format!(
                "the library's catalog has schema version {version}; this Folio knows {SCHEMA_VERSION}"
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = conn.unchecked_transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
        }
        Ok(Catalog { conn: Mutex::new(conn) })
    }

    /// The document stored for a path.
    pub fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>, IndexError> {
        Ok(self
            .conn()
            .query_row(&format!("SELECT {DOC_COLS} FROM documents WHERE path = ?1"), [path], doc_row)
            .optional()?)
    }

    /// All documents, by id.
    pub fn documents(&self) -> Result<Vec<DocumentRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(&format!("SELECT {DOC_COLS} FROM documents ORDER BY id"))?;
        let rows = st.query_map([], doc_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    pub fn document(&self, id: i64) -> Result<Option<DocumentRow>, IndexError> {
        Ok(self
            .conn()
            .query_row(&format!("SELECT {DOC_COLS} FROM documents WHERE id = ?1"), [id], doc_row)
            .optional()?)
    }

    /// The extracted text of a document.
    pub fn document_text(&self, id: i64) -> Result<String, IndexError> {
        Ok(self.conn().query_row("SELECT text FROM documents WHERE id = ?1", [id], |r| r.get(0))?)
    }

    /// Replaces a document (same path) with a new analysis in one transaction; returns its id and
    /// the stored chunks (with their new ids).
    pub fn put_document(&mut self, doc: &NewDocument<'_>) -> Result<(i64, Vec<ChunkRow>), IndexError> {
        let NewDocument { path, label, mtime, size, analysis: a, contexts, context_mode } = *doc;
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM documents WHERE path = ?1", [path])?;
        let m = &a.document.meta;
        tx.execute(
            "INSERT INTO documents (path, label, title, format, content_hash, mtime, size, page_count, status, text, context_mode)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'writing', ?9, ?10)",
            params![path, label, m.title, m.format.as_str(), m.content_hash, mtime, size, m.page_count, a.document.text, context_mode],
        )?;
        let doc_id = tx.last_insert_rowid();
        {
            let mut st = tx.prepare(
                "INSERT INTO sections (doc_id, ord, section_id, number, title, heading, level, parent_ord, page_start, page_end, span_start, span_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            for (i, s) in a.outline.sections.iter().enumerate() {
                st.execute(params![
                    doc_id,
                    i as i64,
                    s.id,
                    s.number,
                    s.title,
                    s.heading,
                    s.level,
                    s.parent.map(|p| p as i64),
                    s.pages.map(|p| p.start),
                    s.pages.map(|p| p.end),
                    s.span.start as i64,
                    s.span.end as i64
                ])?;
            }
            let mut st = tx.prepare(
                "INSERT INTO definitions (doc_id, term, key, text, section_id, scope_section, span_start, span_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for d in &a.definitions {
                let scope = match &d.scope {
                    DefinitionScope::Document => None,
                    DefinitionScope::Section { section_id } => Some(section_id.clone()),
                };
                st.execute(params![
                    doc_id,
                    d.term,
                    d.key,
                    d.text,
                    d.section_id,
                    scope,
                    d.span.start as i64,
                    d.span.end as i64
                ])?;
            }
            let mut st = tx.prepare(
                "INSERT INTO refs (doc_id, text, label, from_section, target_section, document, container, span_start, span_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?;
            for r in &a.references {
                let container = r
                    .container
                    .map(|c| serde_json::to_value(c).ok().and_then(|v| v.as_str().map(String::from)));
                st.execute(params![
                    doc_id,
                    r.text,
                    r.label,
                    r.from_section,
                    r.target_section,
                    r.document,
                    container.flatten(),
                    r.span.start as i64,
                    r.span.end as i64
                ])?;
            }
        }
        {
            let mut st = tx.prepare(
                "INSERT INTO tables (doc_id, span_start, span_end, header_rows) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for b in &a.document.blocks {
                if let BlockKind::Table { header_rows } = b.kind {
                    st.execute(params![doc_id, b.span.start as i64, b.span.end as i64, header_rows as i64])?;
                }
            }
        }
        let mut stored = Vec::with_capacity(a.chunks.len());
        {
            let mut st = tx.prepare(
                "INSERT INTO chunks (doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type,
                   page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            )?;
            for (i, c) in a.chunks.iter().enumerate() {
                let context = contexts.get(i).cloned().unwrap_or_default();
                st.execute(params![
                    doc_id,
                    c.chunk_index as i64,
                    c.section_id,
                    serde_json::to_string(&c.section_ids)?,
                    serde_json::to_string(&c.parent_chain)?,
                    c.heading_level,
                    c.chunk_type.as_str(),
                    c.pages.map(|p| p.start),
                    c.pages.map(|p| p.end),
                    c.span.start as i64,
                    c.span.end as i64,
                    c.content_hash,
                    c.text,
                    context.text,
                    serde_json::to_string(&c.defined_terms)?,
                    context.source
                ])?;
                stored.push(chunk_row_of(tx.last_insert_rowid(), doc_id, c, context));
            }
        }
        tx.commit()?;
        Ok((doc_id, stored))
    }

    /// A number that changes whenever another connection (another process) commits a change
    /// to the catalog; a reader compares it to know when to catch up.
    pub fn data_version(&self) -> Result<i64, IndexError> {
        Ok(self.conn().pragma_query_value(None, "data_version", |r| r.get(0))?)
    }

    /// The folders the library keeps in step with, in the order they were added.
    pub fn watched_folders(&self) -> Result<Vec<String>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare("SELECT path FROM watched_folders ORDER BY added, path")?;
        let rows = st.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(rows)
    }

    /// Adds a watched folder; `false` when it was already watched.
    pub fn add_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        let n = self.conn().execute(
            "INSERT OR IGNORE INTO watched_folders (path, added) VALUES (?1, ?2)",
            rusqlite::params![path, now()],
        )?;
        Ok(n > 0)
    }

    /// Stops watching a folder; `false` when it was not watched.
    pub fn remove_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        Ok(self.conn().execute("DELETE FROM watched_folders WHERE path = ?1", [path])? > 0)
    }

    /// Records why a file failed, with the size and time it had (it is tried again when they change).
    pub fn put_failure(&self, f: &FailureRow) -> Result<(), IndexError> {
        self.conn().execute(
            "INSERT OR REPLACE INTO failures (path, mtime, size, code, message, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![f.path, f.mtime, f.size, f.code, f.message, f.at],
        )?;
        Ok(())
    }

    /// Forgets a file's failure (it was indexed, or is gone).
    pub fn clear_failure(&self, path: &str) -> Result<(), IndexError> {
        self.conn().execute("DELETE FROM failures WHERE path = ?1", [path])?;
        Ok(())
    }

    /// Files that failed, by path.
    pub fn failures(&self) -> Result<Vec<FailureRow>, IndexError> {
        let conn = self.conn();
        let mut st =
            conn.prepare("SELECT path, mtime, size, code, message, at FROM failures ORDER BY path")?;
        let rows = st
            .query_map([], |r| {
                Ok(FailureRow {
                    path: r.get(0)?,
                    mtime: r.get(1)?,
                    size: r.get(2)?,
                    code: r.get(3)?,
                    message: r.get(4)?,
                    at: r.get(5)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Records a document's file time and size again (its content did not change).
    pub fn set_stamp(&self, id: i64, mtime: i64, size: i64) -> Result<(), IndexError> {
        self.conn().execute(
            "UPDATE documents SET mtime = ?2, size = ?3 WHERE id = ?1",
            rusqlite::params![id, mtime, size],
        )?;
        Ok(())
    }

    /// An indexed document with this content, any path (a renamed or copied file).
    pub fn document_by_hash(&self, content_hash: &str) -> Result<Option<DocumentRow>, IndexError> {
        Ok(self
            .conn()
            .query_row(
                &format!(
                    "SELECT {DOC_COLS} FROM documents WHERE content_hash = ?1 AND status = 'indexed' ORDER BY id LIMIT 1"
                ),
                [content_hash],
                doc_row,
            )
            .optional()?)
    }

    /// SQLite's own check of the file (pages, indexes); a damaged catalog is reported with what
    /// SQLite says, and the advice to restore it.
    pub fn check(&self) -> Result<(), IndexError> {
        let result: String = self.conn().query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if result == "ok" {
            Ok(())
        } else {
            Err(IndexError::Corrupt(format!(
                "the library's catalog (catalog.sqlite) is damaged ({result}); Repair library (or `folio repair`) rebuilds it from the chunk records"
            )))
        }
    }

    /// Copies what still reads from a damaged catalog file into this new one — the context cache,
    /// the record of context runs, watched folders and failures, each table whole or not at all —
    /// and returns what it could read of the documents (label and context mode by path). The
    /// damaged file is opened read-only and left as it is.
    pub fn salvage_from(&self, damaged: &Path) -> Salvage {
        let mut out = Salvage::default();
        let old = match Connection::open_with_flags(damaged, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) {
            Ok(c) => c,
            Err(_) => {
                out.lost = SALVAGED_TABLES.iter().map(|t| t.to_string()).collect();
                return out;
            }
        };
        let documents = (|| -> rusqlite::Result<Vec<(String, SalvagedDocument)>> {
            let mut st =
                old.prepare("SELECT path, label, context_mode FROM documents WHERE status = 'indexed'")?;
            let rows = st.query_map([], |r| {
                Ok((r.get(0)?, SalvagedDocument { label: r.get(1)?, context_mode: r.get(2)? }))
            })?;
            rows.collect()
        })();
        match documents {
            Ok(d) => out.documents = d.into_iter().collect(),
            Err(_) => out.lost.push("documents".into()),
        }
        drop(old);
        let conn = self.conn();
        let attached = conn.execute("ATTACH DATABASE ?1 AS damaged", [damaged.to_string_lossy()]).is_ok();
        for table in SALVAGED_TABLES {
            let copied = attached
                && (|| -> rusqlite::Result<()> {
                    let cols: Vec<String> = conn
                        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
                        .query_map([], |r| r.get(0))?
                        .collect::<rusqlite::Result<_>>()?;
                    let cols = cols.join(", ");
                    let tx = conn.unchecked_transaction()?;
                    tx.execute(
                        &format!(
                            "INSERT OR IGNORE INTO main.{table} ({cols}) SELECT {cols} FROM damaged.{table}"
                        ),
                        [],
                    )?;
                    tx.commit()
                })()
                .is_ok();
            if copied {
                out.copied.push(table.to_string());
            } else {
                out.lost.push(table.to_string());
            }
        }
        if attached {
            let _ = conn.execute("DETACH DATABASE damaged", []);
        }
        out
    }

    /// Marks a document written to every store: from now on it is visible to search.
    pub fn mark_indexed(&self, doc_id: i64) -> Result<(), IndexError> {
        self.conn().execute("UPDATE documents SET status = 'indexed' WHERE id = ?1", [doc_id])?;
        Ok(())
    }

    /// The context mode a document was indexed with (`none`, `structural`, `anthropic:MODEL`, …).
    pub fn context_mode(&self, doc_id: i64) -> Result<String, IndexError> {
        Ok(self
            .conn()
            .query_row("SELECT context_mode FROM documents WHERE id = ?1", [doc_id], |r| r.get(0))?)
    }

    /// Chunks of a document whose LLM request failed (to be retried).
    pub fn fallback_chunks(&self, doc_id: i64) -> Result<usize, IndexError> {
        let n: i64 = self.conn().query_row(
            "SELECT COUNT(*) FROM chunks WHERE doc_id = ?1 AND context_source = 'fallback'",
            [doc_id],
            |r| r.get(0),
        )?;
        Ok(n as usize)
    }

    /// A cached context.
    pub fn cached_context(&self, key: &str) -> Result<Option<CachedContext>, IndexError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT provider, model, prompt_version, text, excerpt, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens
                 FROM context_cache WHERE key = ?1",
                [key],
                |r| {
                    Ok(CachedContext {
                        provider: r.get(0)?,
                        model: r.get(1)?,
                        prompt_version: r.get(2)?,
                        text: r.get(3)?,
                        excerpt: r.get::<_, i64>(4)? != 0,
                        tokens: [
                            r.get::<_, i64>(5)? as u64,
                            r.get::<_, i64>(6)? as u64,
                            r.get::<_, i64>(7)? as u64,
                            r.get::<_, i64>(8)? as u64,
                        ],
                    })
                },
            )
            .optional()?)
    }

    /// Caches contexts (one transaction).
    pub fn put_cached_contexts(&self, items: &[(String, CachedContext)]) -> Result<(), IndexError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut st = tx.prepare(
                "INSERT OR REPLACE INTO context_cache (key, provider, model, prompt_version, text, excerpt,
                   input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, strftime('%s','now'))",
            )?;
            for (key, c) in items {
                st.execute(params![
                    key,
                    c.provider,
                    c.model,
                    c.prompt_version,
                    c.text,
                    c.excerpt as i64,
                    c.tokens[0] as i64,
                    c.tokens[1] as i64,
                    c.tokens[2] as i64,
                    c.tokens[3] as i64
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Cached contexts, in all.
    pub fn cached_context_count(&self) -> Result<usize, IndexError> {
        let n: i64 = self.conn().query_row("SELECT COUNT(*) FROM context_cache", [], |r| r.get(0))?;
        Ok(n as usize)
    }

    /// Records one document's contextualizing.
    pub fn record_context_run(&self, run: &ContextRun) -> Result<(), IndexError> {
        self.conn().execute(
            "INSERT INTO context_runs (at, path, provider, model, requests, input_tokens, output_tokens,
               cache_write_tokens, cache_read_tokens, hits, misses, fallbacks, excerpted, cost)
             VALUES (strftime('%s','now'), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                run.path,
                run.provider,
                run.model,
                run.requests as i64,
                run.input_tokens as i64,
                run.output_tokens as i64,
                run.cache_write_tokens as i64,
                run.cache_read_tokens as i64,
                run.hits as i64,
                run.misses as i64,
                run.fallbacks as i64,
                run.excerpted as i64,
                run.cost
            ],
        )?;
        Ok(())
    }

    /// Every recorded run, oldest first.
    pub fn context_runs(&self) -> Result<Vec<ContextRun>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT path, provider, model, requests, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens,
                    hits, misses, fallbacks, excerpted, cost FROM context_runs ORDER BY id",
        )?;
        let rows = st
            .query_map([], |r| {
                Ok(ContextRun {
                    path: r.get(0)?,
                    provider: r.get(1)?,
                    model: r.get(2)?,
                    requests: r.get::<_, i64>(3)? as u64,
                    input_tokens: r.get::<_, i64>(4)? as u64,
                    output_tokens: r.get::<_, i64>(5)? as u64,
                    cache_write_tokens: r.get::<_, i64>(6)? as u64,
                    cache_read_tokens: r.get::<_, i64>(7)? as u64,
                    hits: r.get::<_, i64>(8)? as u64,
                    misses: r.get::<_, i64>(9)? as u64,
                    fallbacks: r.get::<_, i64>(10)? as u64,
                    excerpted: r.get::<_, i64>(11)? as u64,
                    cost: r.get(12)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Removes a document and everything derived from it.
    pub fn remove_document(&mut self, id: i64) -> Result<bool, IndexError> {
        Ok(self.conn().execute("DELETE FROM documents WHERE id = ?1", [id])? > 0)
    }

    /// Chunks of one document (or all, with `None`), in order.
    pub fn chunks(&self, doc_id: Option<i64>) -> Result<Vec<ChunkRow>, IndexError> {
        let sql = format!(
            "SELECT {CHUNK_COLS} FROM chunks {} ORDER BY doc_id, chunk_index",
            if doc_id.is_some() { "WHERE doc_id = ?1" } else { "" }
        );
        let conn = self.conn();
        let mut st = conn.prepare(&sql)?;
        let rows = match doc_id {
            Some(d) => st.query_map([d], chunk_row)?.collect::<Result<Vec<_>, _>>()?,
            None => st.query_map([], chunk_row)?.collect::<Result<Vec<_>, _>>()?,
        };
        Ok(rows)
    }

    /// Chunks by id, in the order asked (missing ids skipped).
    pub fn chunks_by_id(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare_cached(&format!("SELECT {CHUNK_COLS} FROM chunks WHERE id = ?1"))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(c) = st.query_row([id], chunk_row).optional()? {
                out.push(c);
            }
        }
        Ok(out)
    }

    pub fn sections(&self, doc_id: i64) -> Result<Vec<SectionRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, ord, section_id, number, title, heading, level, parent_ord, page_start, page_end, span_start, span_end
             FROM sections WHERE doc_id = ?1 ORDER BY ord",
        )?;
        let rows = st
            .query_map([doc_id], |r| {
                Ok(SectionRow {
                    doc_id: r.get(0)?,
                    ord: r.get(1)?,
                    section_id: r.get(2)?,
                    number: r.get(3)?,
                    title: r.get(4)?,
                    heading: r.get(5)?,
                    level: r.get(6)?,
                    parent_ord: r.get(7)?,
                    pages: pages_of(r.get(8)?, r.get(9)?),
                    span: Span::new(r.get::<_, i64>(10)? as usize, r.get::<_, i64>(11)? as usize),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Definitions, all or of one key.
    pub fn definitions(&self, key: Option<&str>) -> Result<Vec<DefinitionRow>, IndexError> {
        let sql = format!(
            "SELECT doc_id, term, key, text, section_id, scope_section, span_start, span_end FROM definitions {} ORDER BY doc_id, span_start",
            if key.is_some() { "WHERE key = ?1" } else { "" }
        );
        let conn = self.conn();
        let mut st = conn.prepare(&sql)?;
        let map = |r: &rusqlite::Row<'_>| {
            Ok(DefinitionRow {
                doc_id: r.get(0)?,
                term: r.get(1)?,
                key: r.get(2)?,
                text: r.get(3)?,
                section_id: r.get(4)?,
                scope_section: r.get(5)?,
                span: Span::new(r.get::<_, i64>(6)? as usize, r.get::<_, i64>(7)? as usize),
            })
        };
        let rows = match key {
            Some(k) => st.query_map([k], map)?.collect::<Result<Vec<_>, _>>()?,
            None => st.query_map([], map)?.collect::<Result<Vec<_>, _>>()?,
        };
        Ok(rows)
    }

    /// Cross-references written in a section (`outgoing`) or pointing at it (backlinks).
    pub fn references(
        &self,
        doc_id: i64,
        section_id: &str,
        outgoing: bool,
    ) -> Result<Vec<RefRow>, IndexError> {
        let sql = if outgoing {
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE doc_id = ?1 AND from_section = ?2 ORDER BY span_start"
        } else {
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE (doc_id = ?1 AND target_section = ?2) OR (target_doc_id = ?1 AND target_doc_section = ?2) ORDER BY doc_id, span_start"
        };
        let conn = self.conn();
        let mut st = conn.prepare(sql)?;
        let rows = st.query_map(params![doc_id, section_id], ref_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// References written inside a span of a document (a section and its subsections).
    pub fn references_within(&self, doc_id: i64, span: Span) -> Result<Vec<RefRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE doc_id = ?1 AND span_start >= ?2 AND span_end <= ?3 ORDER BY span_start",
        )?;
        let rows = st
            .query_map(params![doc_id, span.start as i64, span.end as i64], ref_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Tables inside a span of a document (a section and its subsections), in text order.
    pub fn tables_within(&self, doc_id: i64, span: Span) -> Result<Vec<TableRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT span_start, span_end, header_rows FROM tables
             WHERE doc_id = ?1 AND span_start >= ?2 AND span_end <= ?3 ORDER BY span_start",
        )?;
        let rows = st
            .query_map(params![doc_id, span.start as i64, span.end as i64], |r| {
                Ok(TableRow {
                    span: Span::new(r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize),
                    header_rows: r.get::<_, i64>(2)? as u32,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Sections, chunks, definitions and references of a document.
    pub fn document_counts(&self, doc_id: i64) -> Result<[usize; 4], IndexError> {
        let conn = self.conn();
        let mut out = [0usize; 4];
        for (i, table) in ["sections", "chunks", "definitions", "refs"].iter().enumerate() {
            let n: i64 =
                conn.query_row(&format!("SELECT COUNT(*) FROM {table} WHERE doc_id = ?1"), [doc_id], |r| {
                    r.get(0)
                })?;
            out[i] = n as usize;
        }
        Ok(out)
    }

    /// All references to other documents, for library-level resolution.
    pub fn external_references(&self) -> Result<Vec<(i64, RefRow)>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT rowid, doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE document IS NOT NULL",
        )?;
        let rows = st
            .query_map([], |r| {
                let rowid: i64 = r.get(0)?;
                Ok((
                    rowid,
                    RefRow {
                        doc_id: r.get(1)?,
                        text: r.get(2)?,
                        label: r.get(3)?,
                        from_section: r.get(4)?,
                        target_section: r.get(5)?,
                        document: r.get(6)?,
                        container: r.get(7)?,
                        span: Span::new(r.get::<_, i64>(8)? as usize, r.get::<_, i64>(9)? as usize),
                        target_doc_id: r.get(10)?,
                        target_doc_section: r.get(11)?,
                    },
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Documents the library cites but does not hold: each reference to another document that
    /// resolved to none, as (citing document, the name as written).
    pub fn unresolved_documents(&self) -> Result<Vec<(i64, String)>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, document FROM refs WHERE document IS NOT NULL AND target_doc_id IS NULL",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Records the library-level resolution of external references (rowid → target).
    pub fn set_resolutions(
        &mut self,
        resolved: &[(i64, Option<i64>, Option<String>)],
    ) -> Result<(), IndexError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut st =
                tx.prepare("UPDATE refs SET target_doc_id = ?2, target_doc_section = ?3 WHERE rowid = ?1")?;
            for (rowid, doc, sec) in resolved {
                st.execute(params![rowid, doc, sec])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

const DOC_COLS: &str = "id, path, label, title, format, content_hash, mtime, size, page_count, status";
const CHUNK_COLS: &str = "id, doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type, page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source";

fn doc_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocumentRow> {
    Ok(DocumentRow {
        id: r.get(0)?,
        path: r.get(1)?,
        label: r.get(2)?,
        title: r.get(3)?,
        format: r.get(4)?,
        content_hash: r.get(5)?,
        mtime: r.get(6)?,
        size: r.get(7)?,
        page_count: r.get(8)?,
        status: r.get(9)?,
    })
}

/// Now, in Unix seconds.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn json_list(s: String) -> Vec<String> {
    serde_json::from_str(&s).unwrap_or_default()
}

fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    Ok(ChunkRow {
        id: r.get(0)?,
        doc_id: r.get(1)?,
        chunk_index: r.get(2)?,
        section_id: r.get(3)?,
        section_ids: json_list(r.get(4)?),
        parent_chain: json_list(r.get(5)?),
        heading_level: r.get(6)?,
        chunk_type: r.get(7)?,
        pages: pages_of(r.get(8)?, r.get(9)?),
        span: Span::new(r.get::<_, i64>(10)? as usize, r.get::<_, i64>(11)? as usize),
        content_hash: r.get(12)?,
        content: r.get(13)?,
        context: r.get(14)?,
        defined_terms: json_list(r.get(15)?),
        context_source: r.get(16)?,
    })
}

fn ref_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RefRow> {
    Ok(RefRow {
        doc_id: r.get(0)?,
        text: r.get(1)?,
        label: r.get(2)?,
        from_section: r.get(3)?,
        target_section: r.get(4)?,
        document: r.get(5)?,
        container: r.get(6)?,
        span: Span::new(r.get::<_, i64>(7)? as usize, r.get::<_, i64>(8)? as usize),
        target_doc_id: r.get(9)?,
        target_doc_section: r.get(10)?,
    })
}

fn chunk_row_of(id: i64, doc_id: i64, c: &Chunk, context: ChunkContext) -> ChunkRow {
    ChunkRow {
        id,
        doc_id,
        chunk_index: c.chunk_index as i64,
        section_id: c.section_id.clone(),
        section_ids: c.section_ids.clone(),
        parent_chain: c.parent_chain.clone(),
        heading_level: c.heading_level as i64,
        chunk_type: c.chunk_type.as_str().to_string(),
        pages: c.pages,
        span: c.span,
        content_hash: c.content_hash.clone(),
        content: c.text.clone(),
        context: context.text,
        context_source: context.source,
        defined_terms: c.defined_terms.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_core::analysis::analyze;
    use folio_core::chunker::ChunkerConfig;
    use folio_core::model::{DocumentBuilder, Format};
    use folio_core::tokens::WordCounter;

    #[test]
    fn tables_are_kept_with_their_header_rows_and_go_with_their_document() {
        let mut b = DocumentBuilder::new(Format::Markdown, "Report", b"r");
        b.push(BlockKind::Heading { level: 1, number: None }, "Balance sheet", None);
        b.push(BlockKind::Paragraph, "Figures in millions.", None);
        b.push(BlockKind::Table { header_rows: 1 }, "\t2022\t2021\nTotal assets\t352\t351", None);
        b.push(BlockKind::Table { header_rows: 0 }, "a\tb", None);
        let a = analyze(b.finish(), &WordCounter, &ChunkerConfig::default());
        let mut cat = Catalog::in_memory().unwrap();
        let new = |path| NewDocument {
            path,
            label: "R",
            mtime: 0,
            size: 1,
            analysis: &a,
            contexts: &[],
            context_mode: "none",
        };
        let (id, _) = cat.put_document(&new("/r.md")).unwrap();
        let all = Span::new(0, a.document.text.len());
        let tables = cat.tables_within(id, all).unwrap();
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].header_rows, 1);
        assert_eq!(
            &a.document.text[tables[0].span.start..tables[0].span.end],
            "\t2022\t2021\nTotal assets\t352\t351"
        );
        assert_eq!(tables[1].header_rows, 0);
        // Only the tables inside the span asked for.
        assert_eq!(cat.tables_within(id, Span::new(0, tables[0].span.end)).unwrap().len(), 1);
        // Replacing the document replaces its tables; removing it removes them.
        // (SQLite may give the new row the old id: the count tells the old tables are gone.)
        let (id2, _) = cat.put_document(&new("/r.md")).unwrap();
        assert_eq!(cat.tables_within(id2, all).unwrap().len(), 2);
        assert!(id2 == id || cat.tables_within(id, all).unwrap().is_empty());
        assert!(cat.remove_document(id2).unwrap());
        assert!(cat.tables_within(id2, all).unwrap().is_empty());
    }
}
