//! The chunker alone on Markdown-built documents (headings, lists, tables from arbitrary text), with
//! a tiny limit and without merging: chunks in order, never overlapping, each inside one section,
//! their text equal to their span's text, and every structural context names the document.
#![no_main]

use folio_core::analysis::analyze;
use folio_core::chunker::ChunkerConfig;
use folio_core::context::structural_contexts;
use folio_core::model::{DocumentBuilder, Format};
use folio_core::tokens::WordCounter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut builder = DocumentBuilder::new(Format::Text, "FUZZ", data);
    folio_core::plaintext::parse_into(&text, &mut builder);
    let analysis = analyze(builder.finish(), &WordCounter, &ChunkerConfig { max_tokens: 8, merge_small: false, ..ChunkerConfig::default() });
    let doc = &analysis.document.text;
    let mut prev = 0;
    for c in &analysis.chunks {
        assert!(c.span.start >= prev && c.span.end <= doc.len());
        assert_eq!(c.text, doc[c.span.start..c.span.end]);
        let section = analysis.outline.sections.iter().find(|s| s.id == c.section_id).expect("its section exists");
        assert!(section.span.start <= c.span.start && c.span.end <= section.span.end, "chunk outside its section");
        prev = c.span.end;
    }
    let contexts = structural_contexts(&analysis, "FUZZ");
    assert_eq!(contexts.len(), analysis.chunks.len());
    assert!(contexts.iter().all(|c| c.contains("FUZZ")));
});
