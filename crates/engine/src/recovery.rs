//! Recovery of a library whose catalog is damaged: each document is rebuilt from its chunk
//! records in the vector store (text, heading chain, section, type, pages, span, context, vector,
//! defined term, references), with its full outline, definitions and references when its source
//! file is still there and analyses to the same chunks. No chunk is embedded again and no LLM is
//! asked.

use folio_convert::{convert_file_guarded, ConvertOptions};
use folio_core::analysis::{analyze, Analysis};
use folio_core::cancel::Cancel;
use folio_core::chunker::{Chunk, ChunkType, ChunkerConfig};
use folio_core::crossref::CrossReference;
use folio_core::definitions::{Definition, DefinitionScope};
use folio_core::model::{Document, Format, Metadata, PageRange, Span};
use folio_core::outline::{Outline, RecoveredHeading};
use folio_core::tokens::TokenCounter;
use folio_index::catalog::ChunkContext;
use folio_index::vectors::VectorRecord;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The contexts written before the chunks' texts in their records (`"{context}\n\n{chunk}"`), ""
/// where there is none.
pub(crate) fn recorded_contexts(records: &[VectorRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            r.contextualized_content
                .strip_suffix(r.content.as_str())
                .and_then(|c| c.strip_suffix("\n\n"))
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// The records grouped by document, each in chunk order. Should two documents claim one path
/// (a stale leftover beside the current one), the newer (higher id) wins.
pub(crate) fn documents_of(records: Vec<VectorRecord>) -> Vec<Vec<VectorRecord>> {
    let mut by_doc: HashMap<i64, Vec<VectorRecord>> = HashMap::new();
    for r in records {
        by_doc.entry(r.doc_id).or_default().push(r);
    }
    let mut newest: HashMap<String, i64> = HashMap::new();
    for (id, rs) in &by_doc {
        let e = newest.entry(rs[0].source_path.clone()).or_insert(*id);
        *e = (*e).max(*id);
    }
    let mut docs: Vec<(i64, Vec<VectorRecord>)> =
        by_doc.into_iter().filter(|(id, rs)| newest.get(&rs[0].source_path) == Some(id)).collect();
    docs.sort_by_key(|(id, _)| *id);
    docs.into_iter()
        .map(|(_, mut rs)| {
            rs.sort_by_key(|r| r.chunk_index);
            rs
        })
        .collect()
}

/// How a document came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Its source file analysed again to the same chunks: outline, definitions and references
    /// are whole.
    Source,
    /// From the records alone (the file is gone or has changed since): the text the chunks hold,
    /// an outline of the headings they name, the first term each chunk defines, their references.
    Records,
}

/// The analysis of a document's source file, when the file is there and analyses to exactly the
/// chunks recorded (same texts, same order).
pub(crate) fn analysis_from_source(
    records: &[VectorRecord],
    convert: &ConvertOptions,
    counter: &dyn TokenCounter,
    chunker: &ChunkerConfig,
) -> Option<Analysis> {
    let path = Path::new(&records.first()?.source_path);
    if !path.is_file() {
        return None;
    }
    let doc = convert_file_guarded(path, convert, &Cancel::new()).ok()?;
    let a = analyze(doc, counter, chunker);
    let same = a.chunks.len() == records.len()
        && a.chunks
            .iter()
            .zip(records)
            .all(|(c, r)| c.content_hash == r.content_hash && c.span.start as i64 == r.char_start);
    same.then_some(a)
}

/// A document's analysis from its chunk records alone.
pub(crate) fn analysis_from_records(records: &[VectorRecord], counter: &dyn TokenCounter) -> Analysis {
    let title = records.first().map(|r| r.doc_summary.clone()).unwrap_or_default();
    let text = text_of(records);
    let chains: Vec<Vec<String>> =
        records.iter().map(|r| serde_json::from_str(&r.parent_chain).unwrap_or_default()).collect();
    let outline =
        Outline::from_headings(&title, Span::new(0, text.trim_end().len()), &headings(records, &chains));
    let chunks: Vec<Chunk> = records
        .iter()
        .zip(&chains)
        .enumerate()
        .map(|(i, (r, chain))| Chunk {
            chunk_index: i,
            text: r.content.clone(),
            section_id: r.section_id.clone(),
            section_ids: vec![r.section_id.clone()],
            parent_chain: chain.clone(),
            heading_level: r.heading_level.clamp(0, u8::MAX as i64) as u8,
            chunk_type: serde_json::from_value(serde_json::Value::String(r.chunk_type.clone()))
                .unwrap_or(ChunkType::Content),
            pages: pages(r),
            span: span(r),
            content_hash: r.content_hash.clone(),
            token_count: counter.count(&r.content),
            defined_terms: r.defined_term_normalized.iter().cloned().collect(),
        })
        .collect();
    let definitions: Vec<Definition> = records
        .iter()
        .filter_map(|r| {
            Some(Definition {
                term: r.defined_term.clone()?,
                key: r.defined_term_normalized.clone()?,
                text: r.content.clone(),
                section_id: r.section_id.clone(),
                scope: DefinitionScope::Document,
                span: span(r),
            })
        })
        .collect();
    let references: Vec<CrossReference> = records
        .iter()
        .flat_map(|r| serde_json::from_str::<Vec<CrossReference>>(&r.cross_references).unwrap_or_default())
        .collect();
    let format = serde_json::from_value(serde_json::Value::String(
        records.first().map(|r| r.file_type.clone()).unwrap_or_default(),
    ))
    .unwrap_or(Format::Text);
    let page_count = records.iter().filter_map(|r| r.page_end.or(r.page_start)).max().map(|p| p as u32);
    Analysis {
        document: Document {
            meta: Metadata {
                title,
                format,
                page_count,
                // Unknown: the next ingest of the file (if it comes back) reads it again, keeping
                // the vectors of the chunks that did not change.
                content_hash: String::new(),
                source_path: records.first().map(|r| r.source_path.clone()),
                warnings: Vec::new(),
                outline_evidence: None,
            },
            text,
            blocks: Vec::new(),
        },
        outline,
        definitions,
        references,
        chunks,
    }
}

/// A record's char span.
fn span(r: &VectorRecord) -> Span {
    Span::new(r.char_start.max(0) as usize, r.char_end.max(r.char_start).max(0) as usize)
}

/// A record's pages.
fn pages(r: &VectorRecord) -> Option<PageRange> {
    r.page_start.map(|s| PageRange { start: s as u32, end: r.page_end.unwrap_or(s) as u32 })
}

/// The document text as far as the chunks cover it, each at its offset; the gaps (blank lines
/// between blocks) become newlines.
fn text_of(records: &[VectorRecord]) -> String {
    let mut order: Vec<&VectorRecord> = records.iter().collect();
    order.sort_by_key(|r| r.char_start);
    let mut text = String::new();
    for r in order {
        let start = r.char_start.max(0) as usize;
        if start >= text.len() {
            text.extend(std::iter::repeat_n('\n', start - text.len()));
            text.push_str(&r.content);
        } else if let Some(rest) = r.content.get(text.len() - start..) {
            // Overlapping chunks: only what lies past the text so far.
            text.push_str(rest);
        }
    }
    text
}

/// The headings the records name, in document order: each new step of a chunk's heading chain
/// (below the document title) opens a section at that depth, with the chunk's section id for the
/// innermost one; a section's span runs from its first chunk to the last chunk under it.
fn headings(records: &[VectorRecord], chains: &[Vec<String>]) -> Vec<RecoveredHeading> {
    let mut out: Vec<RecoveredHeading> = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new(); // (heading, index in out) by depth
    let mut known: HashSet<String> = HashSet::new(); // section ids given out
    for (r, chain) in records.iter().zip(chains) {
        let steps = chain.get(1..).unwrap_or_default();
        let Span { start, end } = span(r);
        let chunk_pages = pages(r);
        let same = open.iter().zip(steps).take_while(|((h, _), s)| h == *s).count();
        open.truncate(same);
        for (depth, step) in steps.iter().enumerate().skip(same) {
            let innermost = depth + 1 == steps.len();
            let id = innermost.then(|| r.section_id.clone()).filter(|id| id != "doc" && !known.contains(id));
            if let Some(id) = &id {
                known.insert(id.clone());
            }
            open.push((step.clone(), out.len()));
            out.push(RecoveredHeading {
                heading: step.clone(),
                level: (depth + 1).min(u8::MAX as usize) as u8,
                id,
                span: Span::new(start, end),
                pages: chunk_pages,
            });
        }
        for (_, i) in &open {
            let h = &mut out[*i];
            h.span = Span::new(h.span.start.min(start), h.span.end.max(end));
            h.pages = PageRange::cover_opt(h.pages, chunk_pages);
        }
    }
    out
}

/// Chunk contexts with where they came from, known from the document's context mode when the
/// damaged catalog still told it.
pub(crate) fn with_sources(texts: Vec<String>, mode: &str) -> Vec<ChunkContext> {
    texts
        .into_iter()
        .map(|text| {
            let source = if text.is_empty() {
                "none"
            } else if mode == "structural" {
                "structural"
            } else if mode.contains(':') {
                "llm"
            } else {
                "recovered"
            };
            ChunkContext { text, source: source.into() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_core::model::DocumentBuilder;
    use folio_core::tokens::WordCounter;

    /// Records as an ingest writes them, from a real analysis.
    fn records_of(a: &Analysis, path: &str) -> Vec<VectorRecord> {
        a.chunks
            .iter()
            .map(|c| {
                let def = c.defined_terms.first().and_then(|k| a.definitions.iter().find(|d| &d.key == k));
                let refs: Vec<&CrossReference> = a
                    .references
                    .iter()
                    .filter(|x| x.span.start >= c.span.start && x.span.end <= c.span.end)
                    .collect();
                VectorRecord {
                    chunk_id: c.chunk_index as i64 + 100,
                    doc_id: 7,
                    source_path: path.into(),
                    chunk_index: c.chunk_index as i64,
                    content: c.text.clone(),
                    contextualized_content: format!("From GEN.\n\n{}", c.text),
                    embedding: vec![1.0, 0.0],
                    mtime: 1,
                    file_type: "text".into(),
                    file_size_bytes: 10,
                    parent_chain: serde_json::to_string(&c.parent_chain).unwrap(),
                    section_id: c.section_id.clone(),
                    heading_level: c.heading_level as i64,
                    chunk_type: c.chunk_type.as_str().into(),
                    cross_references: serde_json::to_string(&refs).unwrap(),
                    doc_summary: a.document.meta.title.clone(),
                    defined_term: def.map(|d| d.term.clone()),
                    defined_term_normalized: def.map(|d| d.key.clone()),
                    page_start: None,
                    page_end: None,
                    char_start: c.span.start as i64,
                    char_end: c.span.end as i64,
                    content_hash: c.content_hash.clone(),
                }
            })
            .collect()
    }

    fn sample() -> Analysis {
        let text = "1\tInterpretation\n1.1\t\"Client\" means a Person served; see Rule 2.1.\n\n2\tConduct\n2.1\tA firm must act fairly towards every Client.\n2.2\tA firm must keep records.\n";
        let mut b = DocumentBuilder::new(Format::Text, "GEN", text.as_bytes());
        folio_core::plaintext::parse_into(text, &mut b);
        analyze(b.finish(), &WordCounter, &ChunkerConfig { merge_small: false, ..ChunkerConfig::default() })
    }

    #[test]
    fn a_document_comes_back_from_its_records() {
        let a = sample();
        let records = records_of(&a, "/gone/GEN.txt");
        let back = analysis_from_records(&records, &WordCounter);
        assert_eq!(back.chunks.len(), a.chunks.len());
        for (x, y) in back.chunks.iter().zip(&a.chunks) {
            assert_eq!(
                (&x.text, &x.section_id, &x.parent_chain, x.span),
                (&y.text, &y.section_id, &y.parent_chain, y.span)
            );
            assert_eq!(back.document.slice(x.span), x.text, "the text holds each chunk at its span");
        }
        // Every section a chunk names is in the outline, under the same chain.
        for c in &back.chunks {
            let i = back.outline.by_id(&c.section_id).unwrap_or_else(|| panic!("{} lost", c.section_id));
            assert_eq!(back.outline.parent_chain(i, &back.document.meta.title), c.parent_chain);
        }
        assert_eq!(back.definitions.iter().map(|d| d.key.as_str()).collect::<Vec<_>>(), vec!["client"]);
        assert_eq!(back.references.len(), a.references.len());
        assert!(!back.references.is_empty());
        assert_eq!(
            with_sources(recorded_contexts(&records), "structural")[0],
            ChunkContext { text: "From GEN.".into(), source: "structural".into() }
        );
    }

    #[test]
    fn a_present_source_that_still_analyses_the_same_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("GEN.txt");
        let text = "1\tInterpretation\n1.1\t\"Client\" means a Person served.\n\n2\tConduct\n2.1\tA firm must act fairly.\n";
        std::fs::write(&path, text).unwrap();
        let opts = ConvertOptions::default();
        let cfg = ChunkerConfig::default();
        let doc = folio_convert::convert_file(&path, &opts).unwrap();
        let a = analyze(doc, &WordCounter, &cfg);
        let records = records_of(&a, &path.display().to_string());
        let again = analysis_from_source(&records, &opts, &WordCounter, &cfg).expect("same chunks");
        assert_eq!(again.outline, a.outline);
        std::fs::write(&path, text.replace("fairly", "honestly and fairly")).unwrap();
        assert!(analysis_from_source(&records, &opts, &WordCounter, &cfg).is_none(), "changed since");
        std::fs::remove_file(&path).unwrap();
        assert!(analysis_from_source(&records, &opts, &WordCounter, &cfg).is_none(), "gone");
    }

    #[test]
    fn stale_records_of_a_path_give_way_to_the_newer_document() {
        let a = sample();
        let mut old = records_of(&a, "/x/GEN.txt");
        for r in &mut old {
            r.doc_id = 3;
        }
        let new = records_of(&a, "/x/GEN.txt");
        let mut all = new.clone();
        all.extend(old);
        all.reverse();
        let docs = documents_of(all);
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0], new);
    }
}
