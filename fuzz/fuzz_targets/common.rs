//! Shared by the converter targets: convert with small limits and check the document's invariants.

use folio_convert::{convert_bytes, ConvertOptions};
use folio_core::model::Document;

/// Limits small enough that one input cannot take a run's memory or time.
pub fn options() -> ConvertOptions {
    ConvertOptions {
        max_file_bytes: 1 << 20,
        max_uncompressed_bytes: 4 << 20,
        max_pages: 50,
        ..ConvertOptions::default()
    }
}

/// Converts `data` as a file called `name`; a successful conversion must give a consistent document.
pub fn convert_and_check(name: &str, data: &[u8]) {
    if let Ok(doc) = convert_bytes(name, data, &options()) {
        check_document(&doc);
    }
}

/// Blocks lie inside the text, on character boundaries, in order, without overlapping, and none is
/// empty or padded with whitespace.
pub fn check_document(doc: &Document) {
    let mut prev_end = 0;
    for b in &doc.blocks {
        assert!(
            b.span.start <= b.span.end && b.span.end <= doc.text.len(),
            "span out of bounds: {:?}",
            b.span
        );
        assert!(doc.text.is_char_boundary(b.span.start) && doc.text.is_char_boundary(b.span.end));
        assert!(b.span.start >= prev_end, "blocks overlap or are out of order");
        prev_end = b.span.end;
        let t = doc.block_text(b);
        assert!(!t.is_empty(), "empty block");
        assert_eq!(t.trim_end(), t, "trailing whitespace in a block");
    }
    assert_eq!(doc.meta.content_hash.len(), 64);
}
