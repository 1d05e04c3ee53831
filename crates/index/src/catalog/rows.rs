//! The catalog's rows as the library reads them, and how each is read from SQLite.

use folio_core::analysis::Analysis;
use folio_core::chunker::Chunk;
use folio_core::model::{PageRange, Span};
use serde::Serialize;

/// Where a document is in being written: `writing` while the stores are being written (nothing
/// shows it; an interrupted ingest leaves it so, and the next open rolls it back), `indexed` once
/// every store has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    Writing,
    Indexed,
}

impl DocumentStatus {
    /// The status as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentStatus::Writing => "writing",
            DocumentStatus::Indexed => "indexed",
        }
    }

    /// A stored status; anything but `indexed` is a document not (yet) whole in every store.
    pub fn parse(stored: &str) -> DocumentStatus {
        if stored == "indexed" {
            DocumentStatus::Indexed
        } else {
            DocumentStatus::Writing
        }
    }
}

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
    pub status: DocumentStatus,
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

pub(super) fn pages_of(start: Option<i64>, end: Option<i64>) -> Option<PageRange> {
    match (start, end) {
        (Some(s), Some(e)) => Some(PageRange { start: s as u32, end: e as u32 }),
        _ => None,
    }
}

pub(super) const DOC_COLS: &str =
    "id, path, label, title, format, content_hash, mtime, size, page_count, status";

pub(super) const CHUNK_COLS: &str = "id, doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type, page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source";

pub(super) fn doc_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocumentRow> {
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
        status: DocumentStatus::parse(&r.get::<_, String>(9)?),
    })
}

pub(super) fn json_list(s: String) -> Vec<String> {
    serde_json::from_str(&s).unwrap_or_default()
}

pub(super) fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
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

pub(super) fn ref_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RefRow> {
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

pub(super) fn chunk_row_of(id: i64, doc_id: i64, c: &Chunk, context: ChunkContext) -> ChunkRow {
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
