//! Plain-text structure inference and the whole analysis (outline, definitions, references, chunks)
//! on arbitrary text, with chunk invariants: spans inside the text and not overlapping, and each chunk
//! within the token limit unless it is one indivisible piece (a "word" with no space to cut at).
#![no_main]

use folio_core::analysis::analyze;
use folio_core::chunker::ChunkerConfig;
use folio_core::model::{DocumentBuilder, Format};
use folio_core::tokens::WordCounter;
use libfuzzer_sys::fuzz_target;

const MAX_TOKENS: usize = 32;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut builder = DocumentBuilder::new(Format::Text, "", data);
    folio_core::plaintext::parse_into(&text, &mut builder);
    let doc = builder.finish();
    let config = ChunkerConfig { max_tokens: MAX_TOKENS, ..ChunkerConfig::default() };
    let analysis = analyze(doc, &WordCounter, &config);
    let text = &analysis.document.text;
    let mut prev_end = 0;
    for c in &analysis.chunks {
        assert!(
            c.span.start <= c.span.end && c.span.end <= text.len(),
            "chunk span out of bounds: {:?}",
            c.span
        );
        assert!(text.is_char_boundary(c.span.start) && text.is_char_boundary(c.span.end));
        assert!(c.span.start >= prev_end, "chunks overlap: {:?} starts before {prev_end}", c.span);
        prev_end = c.span.end;
        assert_eq!(c.text, text[c.span.start..c.span.end]);
        assert!(
            c.token_count <= MAX_TOKENS || !c.text.contains(char::is_whitespace),
            "chunk of {} tokens (limit {MAX_TOKENS}) that could have been cut: {:?}",
            c.token_count,
            c.text
        );
    }
    for b in &analysis.document.blocks {
        assert!(
            b.span.end <= text.len()
                && text.is_char_boundary(b.span.start)
                && text.is_char_boundary(b.span.end)
        );
    }
});
