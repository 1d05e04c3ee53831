//! Numbering labels on arbitrary strings: parsing, ids and heading splits never panic, and agree.
#![no_main]

use folio_core::numbering::{split_heading_number, Label};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let parsed = Label::parse(&s);
    if let Some(label) = &parsed {
        let _ = label.section_id();
        let _ = label.tokens();
        let _ = label.container();
        let _ = label.depth();
    }
    if let Some(full) = Label::parse_full(&s) {
        assert!(parsed.is_some(), "parse_full accepted what parse refused: {s:?}");
        let _ = full.section_id();
    }
    if let Some(h) = split_heading_number(&s) {
        // The label and the title are pieces of the line.
        let range = s.as_bytes().as_ptr_range();
        for piece in [h.label, h.title] {
            let p = piece.as_bytes().as_ptr_range();
            assert!(
                piece.is_empty() || (range.start <= p.start && p.end <= range.end),
                "piece outside the line"
            );
        }
        let _ = h.parsed.section_id();
    }
});
