//! Defined terms: where a document says what a term means, and for what scope.
//!
//! Found from inline patterns anywhere (`"X" means …`, `"X" refers to …`, `'X' has the meaning …`,
//! `"X" includes …`, `the term 'X' means …`, `X means …` opening a paragraph), from entries in
//! sections whose heading names definitions (definitions, glossary, interpretation, terms,
//! terminology, key terms, meaning of terms: `X: …`, `X — …`, `X<TAB>…`), and from glossary tables
//! (a table whose header names terms, or any two-column table in such a section).
//!
//! Scope: a definition applies to the document unless its text or the text leading into it says
//! "for the purposes of this Part/Chapter/section …" or "In this section …", in which case it applies to
//! that enclosing section.

use crate::model::{BlockKind, Document, Span};
use crate::numbering::{Container, Label};
use crate::outline::Outline;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Where a definition applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DefinitionScope {
    /// The whole document.
    Document,
    /// The section (and its subsections) with this id.
    Section {
        /// The id of the section its text limits it to ("for the purposes of this Part …").
        section_id: String,
    },
}

/// One defined term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    /// The term as written ("Authorised Person").
    pub term: String,
    /// Its normalised key (`authorised_person`).
    pub key: String,
    /// The defining text, from the term to the end of its paragraph or table row.
    pub text: String,
    /// The section the definition is written in.
    pub section_id: String,
    /// Where the definition applies: the whole document, or the section its text names.
    pub scope: DefinitionScope,
    /// Where the defining text lies in the document.
    pub span: Span,
}

/// The normalised key of a term: lower-case words joined by `_` ("Force Majeure" → `force_majeure`).
pub fn normalise_term(term: &str) -> String {
    let mut out = String::with_capacity(term.len());
    for c in term.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() && !matches!(c, '\'' | '’') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

fn quoted_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#"(?x)
            (?:[Tt]he\s+(?:term|terms|expression|expressions|word|words|phrase)\s+)?
            (?:"|“|‘|'|«|``)
            (?P<term>[^"“”‘’'«»\n]{1,100}?)
            (?:"|”|’|'|»|'')
            \s*,?\s*(?:\([^)]{1,40}\)\s*)?
            (?P<verb>means|mean|shall\s+mean|refers\s+to|refer\s+to|has\s+the\s+meaning|have\s+the\s+meaning|shall\s+have\s+the\s+meaning|includes|include|shall\s+include|is\s+defined\s+as|are\s+defined\s+as|denotes|has\s+the\s+same\s+meaning)(?-u:\b)"#,
        )
        .expect("valid regex")
    })
}

fn bare_means_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?P<term>[A-Z][\w’'\-/&]*(?:\s+[A-Za-z][\w’'\-/&]*){0,7}?)\s*(?::\s*)?(?P<verb>means|is defined as|refers to)(?-u:\b)")
            .expect("valid regex")
    })
}

fn entry_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?P<term>[\p{L}\p{N}][^:\t—–]{0,80}?)\s*(?::|\t|\s—\s?|—|\s–\s|\s-\s)\s*(?P<rest>\S.*)$",
        )
        .expect("valid regex")
    })
}

fn scope_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?-u:\b)(?:for\s+the\s+purposes?\s+of|in|under|throughout)\s+this\s+(?P<kind>part|chapter|section|subsection|rule|schedule|article|title|division|subpart|paragraph|appendix|annex|act|regulations?|rulebook|document|guidance|code|manual)(?-u:\b)")
            .expect("valid regex")
    })
}

/// A lead naming its scope by number: "In Chapter 2, “Fund” means …", "For the purposes of Part 4:".
/// Only at the start of the text, before the term, and closed by a comma, colon or dash, so that a
/// definition that merely cites a section ("… referred to in section 4") is not scoped to it.
fn named_scope_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:for\s+the\s+purposes?\s+of|in|under|throughout)\s+(?P<kind>part|chapter|section|rule|schedule|article|title|division|subpart|appendix|annex)\s+(?P<num>[0-9A-Z][0-9A-Za-z.()]*?)\.?\s*[,:\u{2014}\u{2013}-]")
            .expect("valid regex")
    })
}

/// The section a lead names by number ("Chapter 2"), when the outline has it.
fn named_scope(outline: &Outline, text: &str) -> Option<usize> {
    let caps = named_scope_re().captures(text)?;
    let kind = caps.name("kind")?.as_str();
    let num = caps.name("num")?.as_str();
    let want = Label::parse(&format!("{kind} {num}"))?;
    let (container, tokens) = (want.container(), want.tokens());
    outline.sections.iter().position(|sec| {
        sec.number.as_deref().and_then(Label::parse).is_some_and(|l| {
            // "Section 4" may be printed "4"; so may a rulebook's chapters ("2."), at the top.
            let plain = l.segments.iter().all(|s| !s.explicit);
            let same_kind = l.container() == container
                || (plain && container == Container::Section)
                || (plain
                    && matches!(container, Container::Chapter | Container::Part)
                    && sec.parent == Some(0));
            same_kind && l.tokens() == tokens
        })
    })
}

const DEFINITION_HEADINGS: [&str; 9] = [
    "definitions",
    "definition",
    "glossary",
    "interpretation",
    "terminology",
    "key terms",
    "meaning of terms",
    "defined terms",
    "terms",
];

/// Whether a heading names a definitions section.
pub fn is_definitions_heading(title: &str) -> bool {
    let t = title.trim().trim_end_matches(['.', ':']).to_lowercase();
    let t = t.trim();
    DEFINITION_HEADINGS
        .iter()
        .any(|h| t == *h || t.ends_with(&format!(" {h}")) || t.starts_with(&format!("{h} ")))
        && t.split_whitespace().count() <= 6
}

/// Finds the definitions of a document.
///
/// ```
/// use folio_core::{definitions::find_definitions, outline::Outline, plaintext};
/// use folio_core::model::{DocumentBuilder, Format};
/// let text = "1\tInterpretation\n1.1\tIn these Rules, \"Authorised Person\" means a Person holding a licence.\n";
/// let mut b = DocumentBuilder::new(Format::Text, "GEN", text.as_bytes());
/// plaintext::parse_into(text, &mut b);
/// let doc = b.finish();
/// let defs = find_definitions(&doc, &Outline::build(&doc));
/// assert_eq!(defs[0].key, "authorised_person");
/// assert!(defs[0].text.starts_with("\"Authorised Person\" means"));
/// ```
pub fn find_definitions(doc: &Document, outline: &Outline) -> Vec<Definition> {
    let mut out: Vec<Definition> = Vec::new();
    for (bi, block) in doc.blocks.iter().enumerate() {
        if block.kind.is_heading() {
            continue;
        }
        let section = outline.block_section.get(bi).copied().unwrap_or(0);
        let in_defs_section = std::iter::once(section).chain(outline.ancestors(section)).take(3).any(|s| {
            let sec = &outline.sections[s];
            s != 0 && is_definitions_heading(&sec.title)
        });
        let text = doc.block_text(block);
        let before = out.len();
        match block.kind {
            BlockKind::Table { .. } => {
                table_definitions(doc, outline, bi, section, in_defs_section, &mut out)
            }
            _ => {
                for caps in crate::crossref::fast_captures(quoted_re(), text) {
                    let (Some(whole), Some(term)) = (caps.get(0), caps.name("term")) else { continue };
                    let term_text = term.as_str().trim().trim_end_matches([',', '.']);
                    if !plausible_term(term_text) {
                        continue;
                    }
                    let start = block.span.start + whole.start();
                    let end = definition_end(text, whole.start()) + block.span.start;
                    push(&mut out, doc, outline, section, bi, term_text, Span::new(start, end));
                }
                if out.len() == before {
                    if let Some(caps) = bare_means_re().captures(text) {
                        let term = caps.name("term").map_or("", |m| m.as_str());
                        if plausible_term(term) && !term.contains(' ') || in_defs_section || title_case(term)
                        {
                            let end = definition_end(text, 0) + block.span.start;
                            push(&mut out, doc, outline, section, bi, term, Span::new(block.span.start, end));
                        }
                    }
                }
                if out.len() == before && in_defs_section {
                    if let Some(caps) = entry_re().captures(text) {
                        let term = caps.name("term").map_or("", |m| m.as_str()).trim();
                        if plausible_term(term)
                            && term.split_whitespace().count() <= 8
                            && !term.ends_with('.')
                        {
                            let end = block.span.end;
                            push(&mut out, doc, outline, section, bi, term, Span::new(block.span.start, end));
                        }
                    }
                }
            }
        }
    }
    out
}

fn title_case(term: &str) -> bool {
    term.split_whitespace().all(|w| w.chars().next().is_some_and(|c| c.is_uppercase()))
}

fn plausible_term(term: &str) -> bool {
    let t = term.trim();
    !t.is_empty()
        && t.chars().count() <= 100
        && t.chars().any(|c| c.is_alphanumeric())
        && t.split_whitespace().count() <= 12
        && !matches!(
            t.to_lowercase().as_str(),
            "it" | "this" | "that" | "which" | "there" | "he" | "she" | "they"
        )
}

/// The defining text ends at the end of the block, or at the next "; (x)" item when several
/// definitions share one paragraph.
fn definition_end(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    let mut best = rest.len();
    if let Some(m) = quoted_re().find_at(rest, 1) {
        // Another definition follows in the same block: stop at the separator before it.
        let head = &rest[..m.start()];
        if let Some(p) = head.rfind(['.', ';']) {
            best = p + 1;
        }
    }
    from + best
}

fn push(
    out: &mut Vec<Definition>,
    doc: &Document,
    outline: &Outline,
    section: usize,
    block: usize,
    term: &str,
    span: Span,
) {
    let key = normalise_term(term);
    if key.is_empty() {
        return;
    }
    let scope = scope_of(doc, outline, section, block, span);
    if out.iter().any(|d| d.key == key && d.span == span) {
        return;
    }
    out.push(Definition {
        term: term.trim().to_string(),
        key,
        text: doc.slice(span).trim().to_string(),
        section_id: outline.sections[section].id.clone(),
        scope,
        span,
    });
}

/// Decides the scope from the defining text, the paragraph leading into it, and the heading.
fn scope_of(doc: &Document, outline: &Outline, section: usize, block: usize, span: Span) -> DefinitionScope {
    let s = &outline.sections[section];
    let mut probes: Vec<&str> = vec![doc.slice(span)];
    // The lead-in ("In this section:") is the first body block of the section or its parent.
    for sec in std::iter::once(section).chain(outline.ancestors(section)).take(2) {
        let own = &outline.sections[sec].own_blocks;
        if let Some(b) = doc.blocks[own.clone()].iter().find(|b| !b.kind.is_heading()) {
            probes.push(doc.block_text(b));
        }
    }
    if block > 0 && !doc.blocks[block - 1].kind.is_heading() {
        probes.push(doc.block_text(&doc.blocks[block - 1]));
    }
    for p in &probes {
        if let Some(i) = named_scope(outline, p).filter(|&i| i != 0) {
            return DefinitionScope::Section { section_id: outline.sections[i].id.clone() };
        }
    }
    for p in probes {
        let mut cut = p.len().min(400);
        while !p.is_char_boundary(cut) {
            cut -= 1;
        }
        let Some(caps) = scope_re().captures(&p[..cut]) else { continue };
        let kind = caps.name("kind").map_or("", |m| m.as_str()).to_lowercase();
        let wanted = match kind.as_str() {
            "part" => Some(Container::Part),
            "chapter" => Some(Container::Chapter),
            "section" | "subsection" | "rule" | "paragraph" => Some(Container::Section),
            "schedule" => Some(Container::Schedule),
            "article" => Some(Container::Article),
            "title" => Some(Container::Title),
            "division" => Some(Container::Division),
            "subpart" => Some(Container::Subpart),
            "appendix" => Some(Container::Appendix),
            "annex" => Some(Container::Annex),
            _ => None, // this Act, these Regulations, this Rulebook: the whole document
        };
        let Some(wanted) = wanted else { return DefinitionScope::Document };
        let candidates = std::iter::once(section).chain(outline.ancestors(section)).filter(|&i| i != 0);
        for i in candidates {
            let sec = &outline.sections[i];
            let container = sec.number.as_deref().and_then(Label::parse).map(|l| l.container());
            if container == Some(wanted) {
                return DefinitionScope::Section { section_id: sec.id.clone() };
            }
        }
        // No labelled match. A Part or Chapter (or larger) without labels of its own: the top-level
        // section holding the definition (rulebooks number their chapters "2."); else the section
        // holding the definition list.
        let large = !matches!(wanted, Container::Section);
        let top = std::iter::once(section).chain(outline.ancestors(section)).filter(|&i| i != 0).last();
        let holder = match top {
            Some(t) if large => t,
            _ if is_definitions_heading(&s.title) => s.parent.unwrap_or(section),
            _ => section,
        };
        return if holder == 0 {
            DefinitionScope::Document
        } else {
            DefinitionScope::Section { section_id: outline.sections[holder].id.clone() }
        };
    }
    DefinitionScope::Document
}

fn table_definitions(
    doc: &Document,
    outline: &Outline,
    bi: usize,
    section: usize,
    in_defs_section: bool,
    out: &mut Vec<Definition>,
) {
    let block = &doc.blocks[bi];
    let text = doc.block_text(block);
    let mut lines = text.split('\n');
    let Some(header) = lines.next() else { return };
    let head_cells: Vec<&str> = header.split('\t').map(str::trim).collect();
    let header_names_terms = head_cells.first().is_some_and(|c| {
        let c = c.to_lowercase();
        [
            "term",
            "terms",
            "defined term",
            "defined terms",
            "word",
            "expression",
            "abbreviation",
            "acronym",
            "glossary",
        ]
        .contains(&c.as_str())
    });
    if !header_names_terms && !in_defs_section {
        return;
    }
    let mut offset = block.span.start;
    let mut rows: Vec<(String, usize, usize)> = Vec::new(); // term, start, end
    let first_is_data = !header_names_terms;
    for (li, line) in text.split('\n').enumerate() {
        let line_start = offset;
        offset += line.len() + 1;
        if li == 0 && !first_is_data {
            continue;
        }
        let mut cells = line.splitn(2, '\t');
        let term = cells.next().unwrap_or("").trim();
        let rest = cells.next().unwrap_or("").trim();
        let marker = term.starts_with('(') && term.ends_with(')');
        if !term.is_empty() && !rest.is_empty() && plausible_term(term) && !marker {
            rows.push((term.to_string(), line_start, line_start + line.len()));
        } else if let Some(last) = rows.last_mut() {
            // A continuation line of the previous definition.
            if !line.trim().is_empty() {
                last.2 = line_start + line.len();
            }
        }
    }
    for (term, start, end) in rows {
        push(out, doc, outline, section, bi, &term, Span::new(start, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocumentBuilder, Format};
    use crate::plaintext;

    fn defs(text: &str) -> Vec<Definition> {
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        find_definitions(&d, &Outline::build(&d))
    }

    #[test]
    fn inline_patterns() {
        let d = defs("Rules\n\n\"Force Majeure\" means an event beyond control.\n\nThe term ‘test range’ means a range.\n\n\
                      'Client' has the meaning given in COBS.\n\n“Asset” includes property.\n\nThe dog is brown.\n");
        let keys: Vec<&str> = d.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, vec!["force_majeure", "test_range", "client", "asset"]);
        assert!(d.iter().all(|x| x.scope == DefinitionScope::Document));
    }

    #[test]
    fn scope_from_this_part() {
        let text = "Part 1\tGeneral\nPart 1.1.\tInterpretation\nPart 1.1.(1)\tFor the purposes of this Part, \"Fund\" means a collective scheme.\nPart 2\tOther\n";
        let d = defs(text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].scope, DefinitionScope::Section { section_id: "part_1".into() });
    }

    #[test]
    fn scope_named_by_number() {
        let text =
            "1\tGeneral\n1.1\tText.\n2\tFunds\n2.1\tIn Chapter 2, \"Fund\" means a collective scheme.\n\
                    2.2\t\"Unit\" means a share referred to in Chapter 1, and more.\n3\tOther\n";
        let d = defs(text);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].scope, DefinitionScope::Section { section_id: "sec_2".into() });
        // Citing a chapter inside the definition does not scope it there.
        assert_eq!(d[1].scope, DefinitionScope::Document);
        // A numbered scope the outline lacks leaves the other rules to decide.
        let d = defs("1\tGeneral\n1.1\tIn Chapter 9, \"Fund\" means a scheme.\n");
        assert_eq!(d[0].scope, DefinitionScope::Document);
    }

    #[test]
    fn glossary_table_rows() {
        let text = "1\tGlossary\n/Table Start\nDefined Terms\tDefinitions\n1P\tMeans the low estimate.\nAAOIFI\tMeans the organisation.\n(a)\tcontinued\n/Table End\n";
        let d = defs(text);
        let keys: Vec<&str> = d.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, vec!["1p", "aaoifi"]);
        assert!(d[1].text.contains("continued"));
    }

    #[test]
    fn definitions_section_entries() {
        let text = "Definitions\n===========\n\nArchive: the place packages live.\n\nMaintainer — the person responsible.\n\nOther text\n==========\n\nPlain: not a definition.\n";
        let d = defs(text);
        let keys: Vec<&str> = d.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, vec!["archive", "maintainer"]);
    }

    #[test]
    fn long_lead_in_with_multibyte_characters() {
        let text = format!("Definitions\n===========\n\n{}—“Term” means a thing.\n", "x".repeat(398));
        let d = defs(&text);
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn normalised_keys() {
        assert_eq!(normalise_term("Force  Majeure"), "force_majeure");
        assert_eq!(normalise_term("Client's Money"), "clients_money");
        assert_eq!(normalise_term("Non-Federal interest"), "non_federal_interest");
    }
}
