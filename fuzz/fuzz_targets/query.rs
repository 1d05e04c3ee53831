//! Query parsing on arbitrary text: `parse_query` and `Query::is_lookup` never panic; every named
//! section's label is a piece of the query and has number tokens; a defined-term key is non-empty.
#![no_main]

use folio_core::query::parse_query;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let q = parse_query(&text);
    for s in &q.sections {
        assert!(text.contains(s.label.as_str()), "label {:?} is not in the query", s.label);
        assert!(!s.tokens.is_empty());
    }
    if let Some(k) = &q.term {
        assert!(!k.is_empty());
    }
    let _ = q.is_lookup();
});
