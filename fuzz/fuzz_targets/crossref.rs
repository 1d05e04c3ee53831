//! The cross-reference scanner on arbitrary text: spans inside the text, on character boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for r in folio_core::crossref::scan(&text) {
        assert!(
            r.start <= r.end && r.end <= text.len(),
            "reference span out of bounds: {}..{}",
            r.start,
            r.end
        );
        assert!(
            text.is_char_boundary(r.start) && text.is_char_boundary(r.end),
            "reference span not on character boundaries: {}..{}",
            r.start,
            r.end
        );
    }
});
