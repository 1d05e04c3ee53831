//! Everything derived from one converted document: outline, definitions, cross-references and chunks.

use crate::chunker::{chunk_document, Chunk, ChunkerConfig};
use crate::crossref::{find_references, CrossReference};
use crate::definitions::{find_definitions, Definition};
use crate::model::Document;
use crate::outline::Outline;
use crate::tokens::TokenCounter;
use serde::Serialize;

/// A document with its structure recovered.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The converted document.
    pub document: Document,
    /// Its section tree.
    pub outline: Outline,
    /// The terms it defines, in document order.
    pub definitions: Vec<Definition>,
    /// The cross-references written in it, same-document targets resolved to section ids.
    pub references: Vec<CrossReference>,
    /// Its chunks, in document order.
    pub chunks: Vec<Chunk>,
}

/// Builds the outline, finds definitions and references, and chunks the document.
///
/// ```
/// use folio_core::{analysis::analyze, chunker::ChunkerConfig, model::{DocumentBuilder, Format}, plaintext, tokens::WordCounter};
/// let text = "1\tInterpretation\n1.1\t\"Client\" means a Person served; see Rule 1.2.\n1.2\tA firm must act fairly.\n";
/// let mut b = DocumentBuilder::new(Format::Text, "COBS", text.as_bytes());
/// plaintext::parse_into(text, &mut b);
/// let a = analyze(b.finish(), &WordCounter, &ChunkerConfig::default());
/// assert_eq!(a.definitions[0].key, "client");
/// assert_eq!(a.references[0].target_section.as_deref(), Some("sec_1_2"));
/// assert_eq!(a.chunks[0].chunk_type.as_str(), "definition");
/// ```
pub fn analyze(document: Document, counter: &dyn TokenCounter, config: &ChunkerConfig) -> Analysis {
    let outline = Outline::build(&document);
    let definitions = find_definitions(&document, &outline);
    let references = find_references(&document, &outline);
    let chunks = chunk_document(&document, &outline, &definitions, counter, config);
    Analysis { document, outline, definitions, references, chunks }
}
