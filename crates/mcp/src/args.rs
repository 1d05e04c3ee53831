//! What the tools take, and how their arguments are checked before the library sees them: the
//! arguments' types (their JSON schemas are the tools' input schemas), the limits, the paging of
//! long answers and the section address of a resource. Nothing here touches the library, so the
//! fuzz target `mcp_args` runs it on arbitrary input without one.

use folio_core::chunker::ChunkType;
use schemars::JsonSchema;
use serde::Deserialize;

/// The longest query `search` takes (a pasted page is refused with a message, not searched).
pub const MAX_QUERY_BYTES: usize = 8 * 1024;
/// The most text one `read_section` answer carries (bytes); the rest comes with `next_offset`.
pub const SECTION_PAGE_BYTES: usize = 20_000;
/// The most entries of a list (an outline's headings, a section's references) one answer carries.
pub const LIST_PAGE: usize = 200;
/// The URI template of a section.
pub const SECTION_URI: &str = "folio://doc/{document}/{section}";

/// An argument the caller has to change, and how (the tools answer it as an invalid-params
/// error with `data.code = "invalid"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError(pub String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to look for: a question, words, a section number ("GEN 5.5.1") or a defined term.
    pub query: String,
    /// How many hits (1–50, default 10).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only these documents (their labels, as `list_documents` gives them); all when empty.
    #[serde(default)]
    pub documents: Vec<String>,
    /// Only passages of these types (`definition`, `requirement`, `guidance`, `note`, `table`, `content`); all
    /// when empty.
    #[serde(default)]
    pub chunk_types: Vec<String>,
}

/// A search the library can run.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedSearch {
    /// The query, at most [`MAX_QUERY_BYTES`].
    pub query: String,
    /// 1–50.
    pub limit: usize,
    /// Document labels.
    pub documents: Vec<String>,
    /// Passage types.
    pub chunk_types: Vec<ChunkType>,
}

impl SearchArgs {
    /// The search, or what is wrong with the arguments.
    pub fn checked(self) -> Result<CheckedSearch, ArgError> {
        if self.query.len() > MAX_QUERY_BYTES {
            return Err(ArgError(format!(
                "the query is {} bytes long; at most {MAX_QUERY_BYTES}: ask with the words, section numbers or terms that matter",
                self.query.len()
            )));
        }
        let chunk_types = self
            .chunk_types
            .iter()
            .map(|t| {
                ChunkType::parse(t).ok_or_else(|| {
                    ArgError(format!(
                        "no passage type \"{t}\": definition, requirement, guidance, note, table or content"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CheckedSearch {
            query: self.query,
            limit: self.limit.unwrap_or(10).clamp(1, 50),
            documents: self.documents,
            chunk_types,
        })
    }
}

/// The arguments of `add_documents` (only where the server was started to allow writes).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddDocumentsArgs {
    /// Files or folders on this computer to add to the library (PDF, Word, HTML, EPUB, Markdown,
    /// text); a folder adds the readable files under it.
    pub paths: Vec<String>,
}

/// The arguments of `define`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DefineArgs {
    /// The defined term ("Authorised Person").
    pub term: String,
}

/// The arguments of `read_section` and `references`: a section, and where a long answer goes on.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SectionArgs {
    /// The document's label ("GEN"), or empty when the section number is unique in the library.
    #[serde(default)]
    pub document: Option<String>,
    /// The section's number as printed ("5.5.1", "Item 7", "203(a)").
    pub section: String,
    /// Where to go on from (a `next_offset` an earlier answer gave: in the text, or in each list of
    /// references); the start when absent.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// The arguments of `outline`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineArgs {
    /// The document's label ("GEN").
    pub document: String,
    /// The deepest heading level listed (1 = the top headings; default 3).
    #[serde(default)]
    pub depth: Option<i64>,
    /// Where to go on from (a `next_offset` an earlier answer gave); the start when absent.
    #[serde(default)]
    pub offset: Option<usize>,
}

impl OutlineArgs {
    /// The depth asked, at least 1.
    pub fn depth(&self) -> i64 {
        self.depth.unwrap_or(3).max(1)
    }
}

/// A document label as given: empty means none.
pub fn document_filter(document: &Option<String>) -> Option<&str> {
    document.as_deref().filter(|d| !d.is_empty())
}

/// The part of `text` from `offset` (moved back to a character boundary) of at most `limit`
/// bytes (or its first character, where that is longer), ending at a paragraph break where one
/// lies in its last tenth: where it starts, the part,
/// and where the next part starts, if any.
pub fn text_page(text: &str, offset: usize, limit: usize) -> (usize, &str, Option<usize>) {
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let rest = &text[start..];
    if rest.len() <= limit {
        return (start, rest, None);
    }
    let mut end = limit;
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    if end == 0 {
        // A limit smaller than the first character: the character alone, so that paging moves on.
        end = rest.char_indices().nth(1).map(|(i, _)| i).unwrap_or(rest.len());
    }
    if let Some(p) = rest[..end].rfind("\n\n").filter(|p| *p >= end - end / 10) {
        end = p + 2;
    }
    (start, &rest[..end], Some(start + end))
}

/// One page of a list: the range of its entries from `offset`, at most `limit` of them, and where
/// the next page starts, if any.
pub fn list_page(len: usize, offset: usize, limit: usize) -> (std::ops::Range<usize>, Option<usize>) {
    let start = offset.min(len);
    let end = start.saturating_add(limit.max(1)).min(len);
    (start..end, (end < len).then_some(end))
}

/// The document label and section number of `folio://doc/{document}/{section}` (each part
/// percent-decoded; the section may hold slashes).
pub fn section_of_uri(uri: &str) -> Result<(String, String), ArgError> {
    let bad = || {
        ArgError(format!(
            "not a section's address: {uri} (folio://doc/{{document}}/{{section}}, e.g. folio://doc/GEN/5.5.1)"
        ))
    };
    let rest = uri.strip_prefix("folio://doc/").ok_or_else(bad)?;
    let (document, section) = rest.split_once('/').ok_or_else(bad)?;
    let decode = |s: &str| percent_decode(s).ok_or_else(bad);
    let (document, section) = (decode(document)?, decode(section)?);
    if document.is_empty() || section.is_empty() {
        return Err(bad());
    }
    Ok((document, section))
}

/// `%XX` escapes decoded (UTF-8); `None` for a broken escape or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_long_text_comes_in_parts_that_join_up_whole() {
        let text = format!("{}\n\n{}é{}", "a".repeat(95), "b".repeat(50), "c".repeat(60));
        let mut joined = String::new();
        let mut offset = 0;
        let mut parts = 0;
        loop {
            let (start, part, next) = text_page(&text, offset, 100);
            assert_eq!(start, offset);
            assert!(part.len() <= 100);
            joined.push_str(part);
            parts += 1;
            match next {
                Some(n) => offset = n,
                None => break,
            }
        }
        assert_eq!(joined, text);
        assert_eq!(parts, 3);
        assert!(text_page(&text, 0, 100).1.ends_with("\n\n"), "cut at the paragraph break");
        assert_eq!(text_page(&text, 10_000, 100), (text.len(), "", None), "past the end: nothing");
        let (start, part, _) = text_page(&text, 148, 100);
        assert_eq!((start, part.chars().next()), (147, Some('é')), "back to a character boundary");
    }

    #[test]
    fn a_section_address_names_a_document_and_a_section() {
        assert_eq!(section_of_uri("folio://doc/GEN/5.5.1").unwrap(), ("GEN".into(), "5.5.1".into()));
        assert_eq!(
            section_of_uri("folio://doc/APPLE_10K/Item%207").unwrap(),
            ("APPLE_10K".into(), "Item 7".into())
        );
        for bad in [
            "folio://doc/GEN",
            "folio://doc//1",
            "http://x/GEN/1",
            "folio://doc/GEN/%zz",
            "folio://doc/GEN/%ff",
            "folio://doc/GEN/%+1",
        ] {
            assert!(section_of_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn search_arguments_are_checked() {
        let args = |json: serde_json::Value| serde_json::from_value::<SearchArgs>(json).unwrap().checked();
        let ok =
            args(serde_json::json!({"query": "GEN 5.5.1", "limit": 500, "chunk_types": ["table"]})).unwrap();
        assert_eq!((ok.limit, ok.chunk_types), (50, vec![ChunkType::Table]));
        assert!(args(serde_json::json!({"query": "x", "chunk_types": ["poem"]}))
            .unwrap_err()
            .0
            .contains("poem"));
        let long = "a".repeat(MAX_QUERY_BYTES + 1);
        assert!(args(serde_json::json!({ "query": long })).unwrap_err().0.contains("bytes long"));
    }

    #[test]
    fn lists_come_in_pages() {
        assert_eq!(list_page(450, 0, 200), (0..200, Some(200)));
        assert_eq!(list_page(450, 400, 200), (400..450, None));
        assert_eq!(list_page(450, 9_999, 200), (450..450, None));
        assert_eq!(list_page(0, 0, 200), (0..0, None));
    }

    proptest! {
        #[test]
        fn text_pages_join_up_whole(text in "(\\PC|\n){0,400}", limit in 1usize..120) {
            let mut joined = String::new();
            let mut offset = 0;
            loop {
                let (start, part, next) = text_page(&text, offset, limit);
                prop_assert_eq!(start, offset);
                joined.push_str(part);
                match next {
                    Some(n) => { prop_assert!(n > offset); offset = n }
                    None => break,
                }
            }
            prop_assert_eq!(joined, text);
        }
    }
}
