//! Tesseract TSV output parsing on arbitrary text: words are non-empty pieces of one line of the
//! input, trimmed, with a confidence from 0 to 100.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let words = folio_convert::ocr::parse_tsv(&text);
    assert!(words.len() <= text.lines().count(), "more words than lines");
    for w in &words {
        assert!(!w.text.is_empty(), "empty word");
        assert_eq!(w.text.trim(), w.text, "untrimmed word {:?}", w.text);
        assert!(!w.text.contains(['\t', '\n']), "word spans fields or lines: {:?}", w.text);
        assert!(text.contains(w.text.as_str()), "word not from the input: {:?}", w.text);
        assert!((0.0..=100.0).contains(&w.conf), "confidence {} out of range", w.conf);
    }
});
