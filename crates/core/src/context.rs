//! Chunk contexts without an LLM, and where defined terms are used.
//!
//! The *structural* context situates a chunk by what the document's structure already says: the
//! document's title and label, the chain of headings above the chunk, the number of the rule it
//! belongs to, and the defined terms the chunk uses. It is the rule-based alternative to an
//! LLM-written context (see `folio_ai::context`), and what a chunk falls back to when the LLM fails.

use crate::analysis::Analysis;
use crate::chunker::Chunk;
use crate::model::Span;
use regex::Regex;

/// At most this many defined terms are named in a structural context.
const MAX_TERMS: usize = 8;

/// Finds uses of defined terms in texts: whole words, as written (defined terms are usually
/// capitalised), with a plural `s`; the longest term wins where terms overlap.
#[derive(Debug, Clone)]
pub struct TermFinder {
    regex: Option<Regex>,
    /// The key of each term, in the regex's alternation order.
    keys: Vec<(String, String)>,
}

/// One use of a defined term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermUse {
    /// Where the use lies in the searched text, in bytes (a plural ending included).
    pub span: Span,
    /// The defined term as the finder was given it ("Authorised Person"), whatever plural the text uses.
    pub term: String,
    /// The term's normalised key (`authorised_person`).
    pub key: String,
}

impl TermFinder {
    /// A finder for `(term, key)` pairs.
    pub fn new<'a>(terms: impl IntoIterator<Item = (&'a str, &'a str)>) -> TermFinder {
        let mut keys: Vec<(String, String)> = terms
            .into_iter()
            .filter(|(t, _)| t.trim().chars().count() >= 2)
            .map(|(t, k)| (t.trim().to_string(), k.to_string()))
            .collect();
        // Longest first, so that "Authorised Person" wins over "Person".
        keys.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        keys.dedup_by(|a, b| a.0 == b.0);
        if keys.is_empty() {
            return TermFinder { regex: None, keys };
        }
        let alternation: Vec<String> = keys.iter().map(|(t, _)| regex::escape(t)).collect();
        let pattern = format!(r"\b(?:{})(?:s|es)?\b", alternation.join("|"));
        let regex = Regex::new(&pattern).ok();
        TermFinder { regex, keys }
    }

    /// Uses of the terms in `text`, in order, with byte spans into `text`.
    pub fn find(&self, text: &str) -> Vec<TermUse> {
        let Some(re) = &self.regex else { return Vec::new() };
        re.find_iter(text)
            .filter_map(|m| {
                let s = m.as_str();
                let (term, key) = self.keys.iter().find(|(t, _)| {
                    s == t || s.strip_prefix(t.as_str()).is_some_and(|r| r == "s" || r == "es")
                })?;
                Some(TermUse {
                    span: Span { start: m.start(), end: m.end() },
                    term: term.clone(),
                    key: key.clone(),
                })
            })
            .collect()
    }
}

/// Where a chunk's table rows start in its context.
pub const TABLE_ROWS_MARK: &str = "Table rows:";

/// The rows of the tables with header rows that a chunk holds, each row with its column headers:
/// "Total assets — September 24, 2022: $352,755; September 25, 2021: $351,002". A table split
/// over several chunks has its headers in each, so that every row as indexed and embedded says
/// which column each value is in. `None` when the chunk holds no such row.
///
/// ```
/// use folio_core::{context::table_rows, model::{BlockKind, DocumentBuilder, Format, Span}};
/// let mut b = DocumentBuilder::new(Format::Pdf, "Report", b"");
/// b.push(BlockKind::Table { header_rows: 1 }, "\t2022\t2021\nTotal assets\t$352\t$351", None);
/// let doc = b.finish();
/// let rows = table_rows(&doc, Span::new(0, doc.text.len())).unwrap();
/// assert!(rows.ends_with("Total assets — 2022: $352; 2021: $351"));
/// ```
pub fn table_rows(doc: &crate::model::Document, span: Span) -> Option<String> {
    use crate::model::BlockKind;
    let first = doc.blocks.partition_point(|b| b.span.end <= span.start);
    let mut out: Vec<String> = Vec::new();
    for b in doc.blocks[first..].iter().take_while(|b| b.span.start < span.end) {
        let BlockKind::Table { header_rows } = b.kind else { continue };
        if header_rows == 0 {
            continue;
        }
        let text = doc.block_text(b);
        let mut header: Vec<String> = Vec::new();
        let mut at = b.span.start;
        for (i, line) in text.split('\n').enumerate() {
            let line_span = Span::new(at, at + line.len());
            at += line.len() + 1;
            let cells: Vec<&str> = line.split('\t').map(str::trim).collect();
            if i < header_rows as usize {
                for (c, cell) in cells.iter().enumerate() {
                    if header.len() <= c {
                        header.push(String::new());
                    }
                    if !cell.is_empty() {
                        if !header[c].is_empty() {
                            header[c].push(' ');
                        }
                        header[c].push_str(cell);
                    }
                }
                continue;
            }
            if line_span.start < span.start || line_span.end > span.end {
                continue;
            }
            let values: Vec<String> = cells
                .iter()
                .enumerate()
                .skip(1)
                .filter(|(_, v)| !v.is_empty())
                .map(|(c, v)| match header.get(c).filter(|h| !h.is_empty()) {
                    Some(h) => format!("{h}: {v}"),
                    None => v.to_string(),
                })
                .collect();
            let label = cells.first().copied().unwrap_or("");
            match (label.is_empty(), values.is_empty()) {
                (_, true) => {}
                (true, false) => out.push(values.join("; ")),
                (false, false) => out.push(format!("{label} — {}", values.join("; "))),
            }
        }
    }
    (!out.is_empty()).then(|| format!("{TABLE_ROWS_MARK}\n{}", out.join("\n")))
}

/// The structural context of each chunk of an analysed document, in chunk order.
///
/// ```
/// use folio_core::{analysis::analyze, chunker::ChunkerConfig, context::structural_contexts,
///     model::{DocumentBuilder, Format}, plaintext, tokens::WordCounter};
/// let text = "1\tInterpretation\n1.1\t\"Client\" means a Person served.\n2\tConduct\n2.1\tA firm must treat each Client fairly.\n";
/// let mut b = DocumentBuilder::new(Format::Text, "Conduct of Business", text.as_bytes());
/// plaintext::parse_into(text, &mut b);
/// let a = analyze(b.finish(), &WordCounter, &ChunkerConfig { max_tokens: 12, ..ChunkerConfig::default() });
/// let contexts = structural_contexts(&a, "COBS");
/// let last = contexts.last().unwrap();
/// assert!(last.contains("COBS"), "{last}");
/// assert!(last.contains("2.1"), "{last}");
/// assert!(last.contains("Client"), "{last}");
/// ```
pub fn structural_contexts(analysis: &Analysis, label: &str) -> Vec<String> {
    let finder = TermFinder::new(analysis.definitions.iter().map(|d| (d.term.as_str(), d.key.as_str())));
    analysis.chunks.iter().map(|c| structural_context(analysis, label, c, &finder)).collect()
}

fn structural_context(analysis: &Analysis, label: &str, chunk: &Chunk, finder: &TermFinder) -> String {
    let title = analysis.document.meta.title.trim();
    let mut out = String::new();
    if title.is_empty() || title.eq_ignore_ascii_case(label) {
        out.push_str(&format!("From {label}"));
    } else {
        out.push_str(&format!("From {title} ({label})"));
    }
    // The chain without the document title, which was just named.
    let chain: Vec<&str> = chunk
        .parent_chain
        .iter()
        .map(String::as_str)
        .filter(|h| !h.trim().is_empty() && h.trim() != title)
        .collect();
    if !chain.is_empty() {
        out.push_str(", ");
        out.push_str(&chain.join(" › "));
    }
    out.push('.');
    let section = analysis.outline.sections.iter().find(|s| s.id == chunk.section_id);
    if let Some(number) = section.and_then(|s| s.number.as_deref()) {
        let last = chain.last().copied().unwrap_or("");
        if !last.starts_with(number) {
            out.push_str(&format!(" {label} {number}."));
        }
    }
    out.push_str(&format!(" A {} passage.", chunk.chunk_type.as_str()));
    let mut terms: Vec<String> = Vec::new();
    for u in finder.find(&chunk.text) {
        if !terms.contains(&u.term) {
            terms.push(u.term);
        }
        if terms.len() == MAX_TERMS {
            break;
        }
    }
    if !terms.is_empty() {
        out.push_str(&format!(" Defined terms used: {}.", terms.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_term_wins_and_plurals_count() {
        let f = TermFinder::new([
            ("Person", "person"),
            ("Authorised Person", "authorised_person"),
            ("Client", "client"),
        ]);
        let uses = f.find("An Authorised Person serves Clients; a Person is not a Clientele.");
        let got: Vec<(&str, &str)> = uses
            .iter()
            .map(|u| {
                (
                    u.term.as_str(),
                    &"An Authorised Person serves Clients; a Person is not a Clientele."
                        [u.span.start..u.span.end],
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![("Authorised Person", "Authorised Person"), ("Client", "Clients"), ("Person", "Person")]
        );
    }

    #[test]
    fn no_terms_no_matches() {
        assert!(TermFinder::new([]).find("anything").is_empty());
    }
}
