//! The MCP tools' argument checks on arbitrary input: JSON arguments for every tool are parsed
//! and checked without a panic, and what passes keeps the limits (a query of at most 8 KiB, 1–50
//! hits, known passage types); a section's address decodes to a non-empty document and section or
//! is refused; a long text's parts and a list's pages join up whole.
#![no_main]

use folio_mcp::args::{
    list_page, section_of_uri, text_page, DefineArgs, OutlineArgs, SectionArgs,
    SearchArgs, MAX_QUERY_BYTES,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    match selector % 4 {
        0 => {
            if let Ok(args) = serde_json::from_slice::<SearchArgs>(rest) {
                if let Ok(search) = args.checked() {
                    assert!(search.query.len() <= MAX_QUERY_BYTES);
                    assert!((1..=50).contains(&search.limit));
                }
            }
        }
        1 => {
            let _ = serde_json::from_slice::<DefineArgs>(rest);
            let _ = serde_json::from_slice::<SectionArgs>(rest);
            if let Ok(outline) = serde_json::from_slice::<OutlineArgs>(rest) {
                assert!(outline.depth() >= 1);
            }
        }
        2 => {
            let uri = String::from_utf8_lossy(rest);
            if let Ok((document, section)) = section_of_uri(&uri) {
                assert!(!document.is_empty() && !section.is_empty());
            }
        }
        _ => {
            let Some((&limit, text)) = rest.split_first() else { return };
            let text = String::from_utf8_lossy(text);
            let (mut joined, mut offset) = (String::new(), 0);
            loop {
                let (start, part, next) = text_page(&text, offset, limit as usize);
                assert_eq!(start, offset);
                joined.push_str(part);
                match next {
                    Some(n) => {
                        assert!(n > offset, "paging moves on");
                        offset = n;
                    }
                    None => break,
                }
            }
            assert_eq!(joined, text);
            let (range, next) = list_page(text.len(), limit as usize, 7);
            assert!(range.end <= text.len() && range.len() <= 7);
            assert_eq!(next.is_some(), range.end < text.len());
        }
    }
});
