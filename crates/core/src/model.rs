//! The document model: what every converter produces.
//!
//! A [`Document`] is its extracted text plus an ordered list of [`Block`]s, each pointing into that
//! text with a byte [`Span`] and, where the format has pages, a [`PageRange`]. Build one with
//! [`DocumentBuilder`], which keeps text and spans consistent.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The source format a document was converted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// PDF, read with pdfium (scanned pages with Tesseract).
    Pdf,
    /// A Word document (Office Open XML, `.docx`).
    Docx,
    /// An HTML page.
    Html,
    /// An EPUB book.
    Epub,
    /// Markdown (CommonMark with tables).
    Markdown,
    /// Plain text, its headings recovered from numbering and layout.
    Text,
    /// Legislative XML (USLM: United States Legislative Markup).
    Xml,
}

impl Format {
    /// The lowercase name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Docx => "docx",
            Format::Html => "html",
            Format::Epub => "epub",
            Format::Markdown => "markdown",
            Format::Text => "text",
            Format::Xml => "xml",
        }
    }
}

/// A half-open byte range `[start, end)` into [`Document::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Span {
    /// The byte offset where the span starts.
    pub start: usize,
    /// The byte offset just past its end.
    pub end: usize,
}

impl Span {
    /// The span `[start, end)`; `start` must not be past `end`.
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end);
        Span { start, end }
    }
    /// The span's length, in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    /// Whether the span covers no text.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// An inclusive, 1-based page range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PageRange {
    /// The first page, from 1.
    pub start: u32,
    /// The last page (included).
    pub end: u32,
}

impl PageRange {
    /// The range of one page.
    pub fn single(page: u32) -> Self {
        PageRange { start: page, end: page }
    }
    /// The smallest range covering both.
    pub fn cover(self, other: PageRange) -> PageRange {
        PageRange { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    /// Covers two optional ranges.
    pub fn cover_opt(a: Option<PageRange>, b: Option<PageRange>) -> Option<PageRange> {
        match (a, b) {
            (Some(a), Some(b)) => Some(a.cover(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// What a block is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockKind {
    /// A heading. `level` starts at 1 (the top level below the document title); `number` is the printed
    /// numbering label when the heading has one ("2.1.3", "Section 203(a)", "ARTICLE IV").
    Heading {
        /// The heading's depth, from 1.
        level: u8,
        /// The printed numbering label; `None` for an unnumbered heading.
        number: Option<String>,
    },
    /// A paragraph of running text.
    Paragraph,
    /// A list item; `marker` is its printed bullet or number ("(a)", "1.", "•"), `depth` starts at 0.
    ListItem {
        /// The printed bullet or number; `None` when the source shows none.
        marker: Option<String>,
        /// The nesting depth, from 0 for a top-level item.
        depth: u8,
    },
    /// A table, its rows one per line and cells separated by tabs; its first `header_rows` rows
    /// head its columns (0 when the source does not say).
    Table {
        /// Rows at the top that head the columns (0 when the source does not say).
        #[serde(default, skip_serializing_if = "is_zero")]
        header_rows: u8,
    },
    /// Preformatted text (a code block), its lines kept.
    Code,
    /// A block quotation.
    Quote,
}

impl BlockKind {
    /// Whether the block is a heading.
    pub fn is_heading(&self) -> bool {
        matches!(self, BlockKind::Heading { .. })
    }
    /// The heading's level; `None` for a block that is not a heading.
    pub fn heading_level(&self) -> Option<u8> {
        match self {
            BlockKind::Heading { level, .. } => Some(*level),
            _ => None,
        }
    }
    /// A short name: `heading`, `paragraph`, `list_item`, `table`, `code`, `quote`.
    pub fn name(&self) -> &'static str {
        match self {
            BlockKind::Heading { .. } => "heading",
            BlockKind::Paragraph => "paragraph",
            BlockKind::ListItem { .. } => "list_item",
            BlockKind::Table { .. } => "table",
            BlockKind::Code => "code",
            BlockKind::Quote => "quote",
        }
    }
}

/// One block of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// What the block is.
    pub kind: BlockKind,
    /// Where the block's text lies in [`Document::text`].
    pub span: Span,
    /// The pages the block lies on, for paged formats.
    pub pages: Option<PageRange>,
}

/// Document-level facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The document's title: as the file declares it, else its first top heading, else the file name.
    pub title: String,
    /// The format it was converted from.
    pub format: Format,
    /// Pages in the source, for paged formats (PDF); `None` for the others.
    pub page_count: Option<u32>,
    /// SHA-256 (hex) of the source file's bytes.
    pub content_hash: String,
    /// The file the document came from, when it came from one.
    pub source_path: Option<String>,
    /// What the conversion could not do but worked around ("page 7: OCR failed …"); the document
    /// is whole otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Where the headings' levels came from, where the converter inferred them (PDF): each kind
    /// of evidence with how many headings it decided ("bookmarks 38, the page below them 120";
    /// "contents page 31, numbering 45, typography 20").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outline_evidence: Option<String>,
}

/// A converted document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Document-level facts: title, format, pages, hash, source.
    pub meta: Metadata,
    /// All block texts, each followed by a blank line.
    pub text: String,
    /// The blocks in reading order, their spans in ascending order.
    pub blocks: Vec<Block>,
}

impl Document {
    /// The text of one block.
    pub fn block_text(&self, block: &Block) -> &str {
        &self.text[block.span.start..block.span.end]
    }

    /// The text under a span.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start..span.end]
    }

    /// Iterates over the blocks with their texts.
    pub fn blocks_with_text(&self) -> impl Iterator<Item = (&Block, &str)> {
        self.blocks.iter().map(move |b| (b, self.block_text(b)))
    }
}

/// Hex SHA-256 of some bytes; the content hash used for files and chunks.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        use std::fmt::Write;
        // Writing to a String cannot fail.
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Builds a [`Document`], keeping text and spans consistent.
///
/// ```
/// use folio_core::model::{BlockKind, DocumentBuilder, Format};
/// let mut b = DocumentBuilder::new(Format::Text, "Rules", b"raw bytes");
/// b.push(BlockKind::Heading { level: 1, number: Some("1".into()) }, "1 Scope", None);
/// b.push(BlockKind::Paragraph, "These rules apply   to\n everyone.", None);
/// let doc = b.finish();
/// assert_eq!(doc.block_text(&doc.blocks[1]), "These rules apply to everyone.");
/// ```
#[derive(Debug)]
pub struct DocumentBuilder {
    meta: Metadata,
    text: String,
    blocks: Vec<Block>,
}

impl DocumentBuilder {
    /// Starts a document; `source_bytes` are hashed for the content hash.
    pub fn new(format: Format, title: impl Into<String>, source_bytes: &[u8]) -> Self {
        DocumentBuilder {
            meta: Metadata {
                title: title.into(),
                format,
                page_count: None,
                content_hash: content_hash(source_bytes),
                source_path: None,
                warnings: Vec::new(),
                outline_evidence: None,
            },
            text: String::new(),
            blocks: Vec::new(),
        }
    }

    /// Replaces the document's title.
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.meta.title = title.into();
    }
    /// The title so far (empty when none was given).
    pub fn title(&self) -> &str {
        &self.meta.title
    }
    /// Records the source's page count (paged formats).
    pub fn set_page_count(&mut self, pages: u32) {
        self.meta.page_count = Some(pages);
    }
    /// Records what the conversion worked around ([`Metadata::warnings`]).
    pub fn set_warnings(&mut self, warnings: Vec<String>) {
        self.meta.warnings = warnings;
    }
    /// Records where the headings' levels came from ([`Metadata::outline_evidence`]).
    pub fn set_outline_evidence(&mut self, evidence: impl Into<String>) {
        self.meta.outline_evidence = Some(evidence.into());
    }
    /// Records the file the document came from.
    pub fn set_source_path(&mut self, path: impl Into<String>) {
        self.meta.source_path = Some(path.into());
    }
    /// The blocks pushed so far.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Appends a block. Whitespace runs are collapsed to one space, except in code and tables where
    /// line structure is kept (only trailing spaces go). Empty blocks are dropped; returns whether the
    /// block was kept.
    pub fn push(&mut self, kind: BlockKind, text: &str, pages: Option<PageRange>) -> bool {
        let clean = match kind {
            BlockKind::Code | BlockKind::Table { .. } => keep_lines(text),
            _ => collapse_whitespace(text),
        };
        if clean.is_empty() {
            return false;
        }
        let start = self.text.len();
        self.text.push_str(&clean);
        let end = self.text.len();
        self.text.push_str("\n\n");
        self.blocks.push(Block { kind, span: Span::new(start, end), pages });
        true
    }

    /// Finishes the document. A document without a title takes its first heading's text.
    pub fn finish(mut self) -> Document {
        if self.meta.title.trim().is_empty() {
            if let Some(b) = self.blocks.iter().find(|b| b.kind.is_heading()) {
                self.meta.title = self.text[b.span.start..b.span.end].to_string();
            }
        }
        Document { meta: self.meta, text: self.text, blocks: self.blocks }
    }
}

/// Collapses every run of whitespace (including newlines) to one space and trims.
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for ch in text.chars() {
        if ch.is_whitespace() || ch == '\u{200e}' || ch == '\u{200f}' || ch == '\u{feff}' {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(ch);
        }
    }
    out
}

fn keep_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    match (first, last) {
        (Some(f), Some(l)) => lines[f..=l].join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_block_text() {
        let mut b = DocumentBuilder::new(Format::Markdown, "", b"x");
        assert!(b.push(BlockKind::Heading { level: 1, number: None }, "  Intro ", None));
        assert!(!b.push(BlockKind::Paragraph, " \n\t ", None));
        assert!(b.push(BlockKind::Code, "  let x = 1;\n  y  \n\n", Some(PageRange::single(2))));
        let d = b.finish();
        assert_eq!(d.meta.title, "Intro");
        assert_eq!(d.blocks.len(), 2);
        assert_eq!(d.block_text(&d.blocks[0]), "Intro");
        assert_eq!(d.block_text(&d.blocks[1]), "  let x = 1;\n  y");
        assert_eq!(d.meta.content_hash.len(), 64);
    }

    #[test]
    fn collapse_strips_direction_marks() {
        assert_eq!(collapse_whitespace("Rule \u{200e}1.3.3\n now"), "Rule 1.3.3 now");
    }
}
