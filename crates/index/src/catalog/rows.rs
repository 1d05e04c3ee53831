//! The catalog's rows as the library reads them, and how each is read from SQLite.

use folio_core::analysis::Analysis;
use folio_core::chunker::Chunk;
use folio_core::model::{PageRange, Span};
use serde::{Deserialize, Serialize};

/// Where a document is in being written: `writing` while the stores are being written (nothing
/// shows it; an interrupted ingest leaves it so, and the next open rolls it back), `indexed` once
/// every store has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    /// Being written to the stores: searches do not see it.
    Writing,
    /// Whole in every store.
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DocumentRow {
    /// The document's id in the catalog.
    pub id: i64,
    /// The file's absolute path; one document per path.
    pub path: String,
    /// The short label other documents cite it by ("GEN", "FSMR"), from its file name and title.
    pub label: String,
    /// The document's title: the user's, where they named it; else as the file declares it (a
    /// filing's cover, a title line), else its first top heading, else the file name.
    pub title: String,
    /// The format it was converted from: `pdf`, `docx`, `html`, `epub`, `markdown`, `text` or `xml`.
    pub format: String,
    /// SHA-256 (hex) of the file's bytes.
    pub content_hash: String,
    /// The file's modification time (Unix seconds), as last seen.
    pub mtime: i64,
    /// The file's size in bytes, as last seen.
    pub size: i64,
    /// Pages in the source, for paged formats (PDF); `None` for the others.
    pub page_count: Option<i64>,
    /// Whether the document is whole in every store yet.
    pub status: DocumentStatus,
    /// Whether the title is the user's (they renamed the document); it then stays as they wrote
    /// it, also when the document is indexed again.
    pub renamed: bool,
}

/// A table block as stored: its place in the document text (rows separated by `\n`, cells by
/// `\t`) and how many of its first rows are column headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TableRow {
    /// Where the table lies in the document text.
    pub span: Span,
    /// How many of its first rows head its columns (0 when the source does not say).
    pub header_rows: u32,
}

/// A chunk as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChunkRow {
    /// The chunk's id, which the keyword index and the vector store share.
    pub id: i64,
    /// Its document's id ([`DocumentRow::id`]).
    pub doc_id: i64,
    /// The chunk's position in its document, from 0.
    pub chunk_index: i64,
    /// The innermost section holding the whole chunk.
    pub section_id: String,
    /// The sections whose own text the chunk holds, in order (more than one when small ones merged).
    pub section_ids: Vec<String>,
    /// Heading texts from the document title down to `section_id`.
    pub parent_chain: Vec<String>,
    /// The level of `section_id` (0 for text before the first heading).
    pub heading_level: i64,
    /// What the chunk mostly is: `definition`, `requirement`, `guidance`, `note`, `table` or `content`.
    pub chunk_type: String,
    /// The pages the chunk lies on; `None` for formats without pages.
    pub pages: Option<PageRange>,
    /// Where the chunk lies in the document text.
    pub span: Span,
    /// SHA-256 (hex) of `content`.
    pub content_hash: String,
    /// The chunk's text.
    pub content: String,
    /// The chunk's context, empty when it has none; it precedes the chunk in the keyword index, and in
    /// the vector when an LLM wrote it.
    pub context: String,
    /// Where the context came from: `none`, `structural`, `llm`, `llm-excerpt` (the LLM saw an
    /// excerpt of a long document) or `fallback` (the LLM failed; structural, retried next ingest).
    pub context_source: String,
    /// Normalised keys of the terms defined inside the chunk.
    pub defined_terms: Vec<String>,
}

impl ChunkRow {
    /// The context, then the chunk: the text the keyword index holds (the vector embeds the context
    /// only where an LLM wrote it; see the engine's ingest).
    pub fn contextualized(&self) -> String {
        if self.context.is_empty() {
            self.content.clone()
        } else {
            format!("{}\n\n{}", self.context, self.content)
        }
    }
}

/// A section as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SectionRow {
    /// Its document's id.
    pub doc_id: i64,
    /// The section's place in its document's outline, from 0 (the root: the document itself).
    pub ord: i64,
    /// Stable id, unique within the document (`sec_2_1_3`; `doc` for the root).
    pub section_id: String,
    /// The printed number ("2.1.3", "Part 6.50.(1)"), when the heading has one.
    pub number: Option<String>,
    /// The heading text without its number; may be empty for bare rule numbers.
    pub title: String,
    /// The heading as printed ("2 Core Principles"); the document's title for the root.
    pub heading: String,
    /// 0 for the root, then the heading's level.
    pub level: i64,
    /// The `ord` of the enclosing section; `None` for the root.
    pub parent_ord: Option<i64>,
    /// The pages the section covers; `None` for formats without pages.
    pub pages: Option<PageRange>,
    /// The text the whole section covers, its subsections included.
    pub span: Span,
}

/// A definition as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DefinitionRow {
    /// The document the term is defined in.
    pub doc_id: i64,
    /// The term as written ("Authorised Person").
    pub term: String,
    /// Its normalised key (`authorised_person`).
    pub key: String,
    /// The defining text, from the term to the end of its paragraph or table row.
    pub text: String,
    /// The section the definition is written in.
    pub section_id: String,
    /// `None` for the whole document.
    pub scope_section: Option<String>,
    /// Where the defining text lies in the document text.
    pub span: Span,
}

/// A cross-reference as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RefRow {
    /// The document the reference is written in.
    pub doc_id: i64,
    /// The reference as written.
    pub text: String,
    /// Its normalised label ("Rule 2.2.7", "Section 203(a)", "33 U.S.C. 2201").
    pub label: String,
    /// The section it is written in.
    pub from_section: String,
    /// The section it points to in the same document, when found.
    pub target_section: Option<String>,
    /// The other document it names ("GEN", "FSMR"), resolved at library level.
    pub document: Option<String>,
    /// The kind of container it names: `section`, `part`, `chapter`, `paragraph`, `citation`, …
    pub container: Option<String>,
    /// Where it lies in the document text.
    pub span: Span,
    /// Resolution at library level: the document and section it points to.
    pub target_doc_id: Option<i64>,
    /// The id of the section it points to in `target_doc_id`, when found.
    pub target_doc_section: Option<String>,
}

/// A chunk's context and where it came from (see [`ChunkRow::context_source`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkContext {
    /// The context (empty for none).
    pub text: String,
    /// Where it came from: `none`, `structural`, `llm`, `llm-excerpt` or `fallback`.
    pub source: String,
}

/// A document to store: where it is, its analysis and its chunks' contexts.
#[derive(Debug, Clone, Copy)]
pub struct NewDocument<'a> {
    /// The file's absolute path; a document stored at this path is replaced.
    pub path: &'a str,
    /// The short label other documents cite it by.
    pub label: &'a str,
    /// The file's modification time (Unix seconds).
    pub mtime: i64,
    /// The file's size in bytes.
    pub size: i64,
    /// The document and everything derived from it.
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

pub(super) const DOC_COLS: &str = "id, path, label, COALESCE(user_title, title), format, content_hash, mtime, size, page_count, status, user_title IS NOT NULL";

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
        renamed: r.get(10)?,
    })
}

/// What the lookup tables take from a chunk (its place and sections, the terms it defines, its
/// text), borrowed where it can be: a pass over a million chunks reads only these columns, the
/// text where SQLite holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkFacts<'a> {
    /// [`ChunkRow::id`].
    pub id: i64,
    /// [`ChunkRow::doc_id`].
    pub doc_id: i64,
    /// [`ChunkRow::section_id`].
    pub section_id: &'a str,
    /// [`ChunkRow::section_ids`].
    pub section_ids: Vec<String>,
    /// [`ChunkRow::span`].
    pub span: Span,
    /// [`ChunkRow::defined_terms`].
    pub defined_terms: Vec<String>,
    /// [`ChunkRow::content`].
    pub content: &'a str,
}

impl ChunkRow {
    /// The chunk's facts (see [`ChunkFacts`]).
    pub fn facts(&self) -> ChunkFacts<'_> {
        ChunkFacts {
            id: self.id,
            doc_id: self.doc_id,
            section_id: &self.section_id,
            section_ids: self.section_ids.clone(),
            span: self.span,
            defined_terms: self.defined_terms.clone(),
            content: &self.content,
        }
    }
}

/// The columns of [`ChunkFacts`], in the order [`chunk_facts`] reads them.
pub(super) const FACT_COLS: &str =
    "id, doc_id, section_id, section_ids, span_start, span_end, defined_terms, content";

/// A chunk's facts, borrowed from its row (see [`ChunkFacts`]).
pub(super) fn chunk_facts<'r>(r: &'r rusqlite::Row<'_>) -> rusqlite::Result<ChunkFacts<'r>> {
    let text = |i: usize| -> rusqlite::Result<&'r str> { Ok(r.get_ref(i)?.as_str()?) };
    Ok(ChunkFacts {
        id: r.get(0)?,
        doc_id: r.get(1)?,
        section_id: text(2)?,
        section_ids: json_list(text(3)?),
        span: Span::new(r.get::<_, i64>(4)? as usize, r.get::<_, i64>(5)? as usize),
        defined_terms: json_list(text(6)?),
        content: text(7)?,
    })
}

pub(super) fn json_list(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_default()
}

pub(super) fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    Ok(ChunkRow {
        id: r.get(0)?,
        doc_id: r.get(1)?,
        chunk_index: r.get(2)?,
        section_id: r.get(3)?,
        section_ids: json_list(r.get_ref(4)?.as_str()?),
        parent_chain: json_list(r.get_ref(5)?.as_str()?),
        heading_level: r.get(6)?,
        chunk_type: r.get(7)?,
        pages: pages_of(r.get(8)?, r.get(9)?),
        span: Span::new(r.get::<_, i64>(10)? as usize, r.get::<_, i64>(11)? as usize),
        content_hash: r.get(12)?,
        content: r.get(13)?,
        context: r.get(14)?,
        defined_terms: json_list(r.get_ref(15)?.as_str()?),
        context_source: r.get(16)?,
    })
}

/// A reference's columns, in the order [`ref_row_at`] reads them.
pub(super) const REF_COLS: &str = "doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section";

pub(super) fn ref_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RefRow> {
    ref_row_at(r, 0)
}

/// A reference's row whose columns begin at column `at` (after a rowid, say).
pub(super) fn ref_row_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<RefRow> {
    Ok(RefRow {
        doc_id: r.get(at)?,
        text: r.get(at + 1)?,
        label: r.get(at + 2)?,
        from_section: r.get(at + 3)?,
        target_section: r.get(at + 4)?,
        document: r.get(at + 5)?,
        container: r.get(at + 6)?,
        span: Span::new(r.get::<_, i64>(at + 7)? as usize, r.get::<_, i64>(at + 8)? as usize),
        target_doc_id: r.get(at + 9)?,
        target_doc_section: r.get(at + 10)?,
    })
}

pub(super) fn chunk_row_of(id: i64, doc_id: i64, c: &Chunk, context: ChunkContext) -> ChunkRow {
    ChunkRow::stored(id, doc_id, c, context)
}

impl ChunkRow {
    /// The row of a chunk stored with id `id` in document `doc_id`, with its context (what a
    /// catalog's `put_document` gives back).
    pub fn stored(id: i64, doc_id: i64, c: &Chunk, context: ChunkContext) -> ChunkRow {
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
}
