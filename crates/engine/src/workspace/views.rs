//! What the workspace hands the UI: document summaries, the library's status, outlines, search
//! requests, section views with their marks, and page images. Each is serialised as the UI's
//! generated types describe it.

use crate::assets::EmbeddingModel;
use crate::outcome::{BackendError, DocumentStats};
use crate::Crumb;
use folio_core::model::PageRange;
use folio_index::catalog::{DocumentRow, SectionRow};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A folder the library keeps in step with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WatchedFolder {
    /// The folder.
    pub path: String,
    /// Whether the folder is there now (an unplugged drive is not).
    pub exists: bool,
    /// Documents from files under it.
    pub documents: usize,
    /// Why the OS does not follow the folder now (it is gone, the system's limit on watches is
    /// reached, permission is denied); `None` while it is followed.
    pub error: Option<String>,
}

/// A document with its figures.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentSummary {
    /// The document's row.
    pub document: DocumentRow,
    /// What it holds.
    pub stats: DocumentStats,
    /// Why its figures could not be read, if they could not.
    pub error: Option<BackendError>,
}

/// The library as a whole: where it is, whether this process may write it, and what was repaired
/// when it opened.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LibraryStatus {
    /// The library's folder, or a team library's address (without a password).
    pub dir: String,
    /// The embedding model it is indexed with.
    pub model: EmbeddingModel,
    /// False when another Folio process holds the library's write lock: this window reads only.
    pub writable: bool,
    /// Documents an interrupted ingest had left half-written, rolled back on open.
    pub repaired: Vec<String>,
}

/// A document's outline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Outline {
    /// The document's row.
    pub document: DocumentRow,
    /// Its sections in document order, each with its parent.
    pub sections: Vec<SectionRow>,
}

/// A search as the UI asks it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchRequest {
    /// What the user typed.
    pub query: String,
    /// Hits to return.
    pub limit: usize,
    /// Restrict to these documents (ids or labels; all when empty).
    pub documents: Vec<String>,
    /// Restrict to these chunk types (all when empty).
    pub chunk_types: Vec<folio_core::chunker::ChunkType>,
    /// Restrict to a section and what lies under it.
    pub section: Option<SectionFilter>,
}

/// A section subtree to search within.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SectionFilter {
    /// The document (id or label).
    pub doc: String,
    /// The section's id.
    pub section_id: String,
}

/// A defined term used in a section's text (offsets in UTF-16 code units of `SectionView::text`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TermMark {
    /// Start (UTF-16 code units).
    pub start: usize,
    /// End (UTF-16 code units).
    pub end: usize,
    /// The term as defined.
    pub term: String,
    /// The term's key, for `define`.
    pub key: String,
    /// The document of the definition that applies here.
    pub definition_doc_id: i64,
    /// The section the applying definition is written in.
    pub definition_section_id: String,
}

/// A cross-reference in a section's text (offsets in UTF-16 code units); the target is unset when
/// the cited section is not in the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LinkMark {
    /// Start (UTF-16 code units).
    pub start: usize,
    /// End (UTF-16 code units).
    pub end: usize,
    /// The reference, normalised ("Rule 2.2.7").
    pub label: String,
    /// The cited document, when it is in the library.
    pub target_doc_id: Option<i64>,
    /// The cited section in it, when found.
    pub target_section: Option<String>,
    /// The other document the reference names, as written ("FSMR"); with no `target_doc_id` it is
    /// not in the library.
    pub document: Option<String>,
}

/// A table in a section's text (offsets in UTF-16 code units of `SectionView::text`): its rows are
/// the lines of `text[start..end]`, its cells separated by tabs, its first `header_rows` rows head
/// the columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TableMark {
    /// Start (UTF-16 code units).
    pub start: usize,
    /// End (UTF-16 code units).
    pub end: usize,
    /// How many first rows head the columns.
    pub header_rows: u32,
}

/// A section as the reader shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SectionView {
    /// The document's id.
    pub doc_id: i64,
    /// The document's title.
    pub document: String,
    /// The document's label ("GEN").
    pub label: String,
    /// The section's row.
    pub section: SectionRow,
    /// The breadcrumb: the section and its ancestors.
    pub crumbs: Vec<Crumb>,
    /// The section's own text.
    pub text: String,
    /// Defined terms used in the text.
    pub terms: Vec<TermMark>,
    /// Cross-references in the text.
    pub links: Vec<LinkMark>,
    /// Tables in the text.
    pub tables: Vec<TableMark>,
    /// The pages the section lies on (paged formats).
    pub pages: Option<PageRange>,
    /// The document's file.
    pub path: String,
    /// The document's format ("pdf", "docx" …).
    pub format: String,
}

/// A PDF page as an image, with the cited passage's place on it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PageImage {
    /// The page as a PNG, base64.
    pub png_base64: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Rectangles in image pixels, from the top left.
    pub highlights: Vec<Rect>,
}

/// A rectangle in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
}

/// The width pages are drawn at for the Reader, in pixels, unless asked otherwise (a quick
/// low-resolution draw first, say).
pub const PAGE_WIDTH: u32 = 1200;
