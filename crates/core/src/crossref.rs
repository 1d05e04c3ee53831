//! Cross-references: "Section 203(a)", "§ 4.2", "§§ 4.2–4.5", "Rule 2.1.3", "Rules 2.2.6, 2.2.7 and
//! 2.2.9", "Chapter 5", "paragraph (b)(2) of this section", "(2) and (3)" relative to the current rule,
//! "see Appendix B", and references to other documents ("GEN 3.3.31", "section 196 of the FSMR",
//! "33 U.S.C. 2201", "117 Stat. 2518", "Public Law 113-121").
//!
//! [`scan`] finds references in a text; [`find_references`] scans a document's blocks and resolves
//! same-document targets to section ids. References to other documents keep their document label for
//! resolution at library level.

use crate::model::{Document, Span};
use crate::numbering::{Container, Label};
use crate::outline::Outline;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A reference found in text, before resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawRef {
    /// Byte range in the scanned text of this one target (for lists, the number alone, the keyword
    /// included for the first).
    pub start: usize,
    pub end: usize,
    /// A normalised label: "Rule 2.2.7", "Section 203(a)", "Appendix B", "33 U.S.C. 2201".
    pub label: String,
    /// The container the reference names.
    pub container: Option<RefContainer>,
    /// Value tokens of the target's number (`["203", "a"]`).
    pub tokens: Vec<String>,
    /// The other document it points into ("GEN", "FSMR", "title 49, United States Code").
    pub document: Option<String>,
    /// Relative to the current section ("(2)", "paragraph (b) of this section").
    pub relative: bool,
}

/// Kinds of referenced containers, as in [`Container`] plus paragraph-level ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefContainer {
    Section,
    Part,
    Chapter,
    Article,
    Title,
    Schedule,
    Appendix,
    Annex,
    Paragraph,
    /// A citation to another corpus: U.S.C., Stat., CFR, Fed. Reg., a public law, a bill.
    Citation,
}

/// A resolved cross-reference in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossReference {
    /// The text as written.
    pub text: String,
    pub label: String,
    /// Where it lies in the document text.
    pub span: Span,
    /// The section it is written in.
    pub from_section: String,
    /// The target section in the same document, when found.
    pub target_section: Option<String>,
    /// The other document it points into, for library-level resolution.
    pub document: Option<String>,
    pub container: Option<RefContainer>,
}

const NUM: &str = r"(?:\d+[A-Za-z]{0,2}(?:[.\-–]\d+[A-Za-z]?)*\.?(?:\s?\([A-Za-z0-9]{1,5}\))*|\([A-Za-z0-9]{1,5}\)(?:\([A-Za-z0-9]{1,5}\))*)";

fn keyword_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let kw = r"(?P<kw>§§?|(?i:rules?|sections?|secs?\.|chapters?|parts?|articles?|paragraphs?|paras?\.|subsections?|subparagraphs?|clauses?|schedules?|appendix|appendices|annex(?:es)?|regulations?|regs?\.|titles?|subparts?))";
        let num_or_letter = format!(r"(?:{NUM}|[A-Z](?:\d+)?(?-u:\b)|[IVXLC]{{1,6}}(?-u:\b))");
        let list = format!(r"(?P<list>{num_or_letter}(?:\s*(?:,|;|(?-u:\b)and(?-u:\b)|(?-u:\b)or(?-u:\b)|(?-u:\b)to(?-u:\b)|(?-u:\b)through(?-u:\b)|–|—|-)\s*(?:{num_or_letter}))*)");
        let doc = r"(?:\s+of\s+(?P<of>(?:the\s+)?(?:this\s+(?:section|part|chapter|rule|article|schedule|act|title)|title\s+\d+(?:,\s+(?:United States Code|Code of Federal Regulations))?|[A-Z]{2,8}(?-u:\b)|(?:[A-Z][A-Za-z0-9_'’]*\s+){1,8}(?:Act|Regulations|Rules|Rulebook|Code|Law)(?:\s+(?:of\s+)?\d{4})?)))?";
        Regex::new(&format!(r"(?:^|[^A-Za-z0-9_§])(?P<whole>{kw}\s*{list}{doc})")).expect("valid reference regex")
    })
}

fn code_ref_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?-u:\b)(?P<doc>[A-Z]{2,6})\s+(?:(?:Rule|App(?:endix)?|Chapter|Section)\s+)?(?P<num>A?\d+(?:\.\d+)+(?:\.?\([A-Za-z0-9]{1,4}\))*|A\d+(?:\.\d+)*)")
            .expect("valid regex")
    })
}

fn citation_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?x)
            (?P<usc>(?-u:\b)\d+\s+U\.?\s?S\.?\s?C\.?\s+(?:§+\s*)?\d+[\w\-–]*(?:\([A-Za-z0-9]{1,5}\))*(?:\s+(?:note|et\s+seq\.?))?)
          | (?P<stat>(?-u:\b)\d+\s+Stat\.\s+\d+)
          | (?P<fr>(?-u:\b)\d+\s+(?:Fed\.\s?Reg\.|FR)\s+\d+)
          | (?P<cfr>(?-u:\b)\d+\s+C\.?F\.?R\.?\s+(?:(?:part|parts)\s+)?\d+(?:\.\d+)*)
          | (?P<pl>(?-u:\b)(?:Public\s+Law|Pub\.\s?L\.|P\.L\.)\s+\d+[\-–]\d+)
          | (?P<bill>(?-u:\b)(?:H\.\s?R\.|S\.|H\.\s?Res\.|S\.\s?Res\.)\s+\d+(?-u:\b))
          | (?P<title>(?-u:\b)title\s+\d+,\s+(?:United\s+States\s+Code|Code\s+of\s+Federal\s+Regulations))",
        )
        .expect("valid regex")
    })
}

fn relative_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?-u:\b)(?:subject\s+to|under|in|see|with|and|or|to|of|by|despite|notwithstanding|from)\s+(?P<list>\((?:\d{1,3}|[a-z]{1,4})\)(?:\((?:\d{1,3}|[a-z]{1,4})\))*(?:\s*(?:,|and|or|to)\s*\((?:\d{1,3}|[a-z]{1,4})\)(?:\((?:\d{1,3}|[a-z]{1,4})\))*)*)")
            .expect("valid regex")
    })
}

fn container_of(kw: &str) -> Option<RefContainer> {
    let k = kw.to_lowercase();
    let k = k.trim_end_matches('.');
    Some(match k {
        "paragraph" | "paragraphs" | "para" | "paras" | "subparagraph" | "subparagraphs" | "clause"
        | "clauses" => RefContainer::Paragraph,
        "subsection" | "subsections" => RefContainer::Section,
        _ => match Container::from_keyword(k)? {
            Container::Section | Container::Guidance => RefContainer::Section,
            Container::Part | Container::Subpart | Container::Division => RefContainer::Part,
            Container::Chapter => RefContainer::Chapter,
            Container::Article => RefContainer::Article,
            Container::Title => RefContainer::Title,
            Container::Schedule => RefContainer::Schedule,
            Container::Appendix => RefContainer::Appendix,
            Container::Annex => RefContainer::Annex,
        },
    })
}

fn singular(kw: &str) -> String {
    let k = kw.trim_end_matches('.');
    let s = match k.to_lowercase().as_str() {
        "§§" | "§" => return "§".into(),
        "appendices" => "Appendix".to_string(),
        "annexes" => "Annex".to_string(),
        "secs" | "sec" | "s" | "ss" => "Section".to_string(),
        "regs" | "reg" => "Regulation".to_string(),
        "paras" | "para" => "Paragraph".to_string(),
        l => {
            let base = l.strip_suffix('s').unwrap_or(l);
            let mut c = base.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        }
    };
    s
}

/// Splits a list like "2.2.6, 2.2.7 and 2.2.9" or "4.2–4.5" into (offset, number) pairs.
fn split_list(list: &str) -> Vec<(usize, &str)> {
    static SEP: OnceLock<Regex> = OnceLock::new();
    let sep = SEP.get_or_init(|| {
        Regex::new(r"\s*(?:,|;|(?-u:\b)and(?-u:\b)|(?-u:\b)or(?-u:\b)|(?-u:\b)to(?-u:\b)|(?-u:\b)through(?-u:\b)|–|—|\s-\s)\s*").expect("valid regex")
    });
    let mut out = Vec::new();
    let mut last = 0;
    for m in sep.find_iter(list) {
        // A dash inside a number ("1962d–5b") is no separator: only split when both sides are numbers.
        if m.start() > last {
            out.push((last, list[last..m.start()].trim()));
        }
        last = m.end();
    }
    if last < list.len() {
        out.push((last, list[last..].trim()));
    }
    out.into_iter().filter(|(_, s)| !s.is_empty()).collect()
}

fn is_year(tokens: &[String]) -> bool {
    tokens.len() == 1
        && tokens[0].len() == 4
        && tokens[0].parse::<u32>().is_ok_and(|y| (1800..=2100).contains(&y))
}

fn value_tokens(number: &str) -> Vec<String> {
    Label::parse(number).map(|l| l.tokens().iter().map(|t| t.to_string()).collect()).unwrap_or_default()
}

/// Finds references in a text.
///
/// ```
/// let refs = folio_core::crossref::scan("Subject to Rules 2.2.6, 2.2.7 and 2.2.9 and section 196 of the FSMR.");
/// let labels: Vec<_> = refs.iter().map(|r| r.label.as_str()).collect();
/// assert_eq!(labels, vec!["Rule 2.2.6", "Rule 2.2.7", "Rule 2.2.9", "Section 196"]);
/// assert_eq!(refs[3].document.as_deref(), Some("FSMR"));
/// ```
pub fn scan(text: &str) -> Vec<RawRef> {
    let mut out: Vec<RawRef> = Vec::new();
    for caps in fast_captures(keyword_re(), text) {
        let (Some(whole), Some(kw), Some(list)) = (caps.name("whole"), caps.name("kw"), caps.name("list"))
        else {
            continue;
        };
        let container = container_of(kw.as_str());
        let of = caps.name("of").map(|m| m.as_str().trim_start_matches("the ").trim().to_string());
        let (document, relative) = match of.as_deref() {
            Some(o) if o.to_lowercase().starts_with("this ") => (None, true),
            Some(o) => (Some(o.to_string()), false),
            None => (None, false),
        };
        let kw_name = singular(kw.as_str());
        let items = split_list(list.as_str());
        for (k, (off, number)) in items.iter().enumerate() {
            let number = number.trim_end_matches('.');
            let tokens = value_tokens(number);
            if tokens.is_empty() || is_year(&tokens) {
                // "Regulations 2015" names a document by its year; it is no reference.
                continue;
            }
            let start = if k == 0 { whole.start() } else { list.start() + off };
            let mut end = if k + 1 == items.len() { whole.end() } else { list.start() + off + number.len() };
            // A full stop after the number ends the sentence, not the reference.
            while end > start && text.as_bytes()[end - 1] == b'.' && !text[start..end].ends_with("seq.") {
                end -= 1;
            }
            out.push(RawRef {
                start,
                end,
                label: format!("{kw_name} {number}"),
                container,
                tokens,
                document: document.clone(),
                relative: relative || number.starts_with('('),
            });
        }
    }
    for caps in fast_captures(code_ref_re(), text) {
        let (Some(whole), Some(doc), Some(num)) = (caps.get(0), caps.name("doc"), caps.name("num")) else {
            continue;
        };
        if Container::from_keyword(doc.as_str()).is_some() || overlaps(&out, whole.start(), whole.end()) {
            continue;
        }
        out.push(RawRef {
            start: whole.start(),
            end: whole.end(),
            label: format!("{} {}", doc.as_str(), num.as_str()),
            container: Some(RefContainer::Section),
            tokens: value_tokens(num.as_str()),
            document: Some(doc.as_str().to_string()),
            relative: false,
        });
    }
    for m in citation_re().find_iter(text) {
        if overlaps(&out, m.start(), m.end()) {
            // "section 1506.8 of title 40, Code of Federal Regulations" is already one reference.
            continue;
        }
        let label = crate::model::collapse_whitespace(m.as_str());
        let document = citation_document(&label);
        out.push(RawRef {
            start: m.start(),
            end: m.end(),
            label,
            container: Some(RefContainer::Citation),
            tokens: Vec::new(),
            document: Some(document),
            relative: false,
        });
    }
    for caps in fast_captures(relative_re(), text) {
        let Some(list) = caps.name("list") else { continue };
        if overlaps(&out, list.start(), list.end()) {
            continue;
        }
        for (off, item) in split_list(list.as_str()) {
            let tokens = value_tokens(item);
            if tokens.is_empty() {
                continue;
            }
            out.push(RawRef {
                start: list.start() + off,
                end: list.start() + off + item.len(),
                label: item.to_string(),
                container: Some(RefContainer::Paragraph),
                tokens,
                document: None,
                relative: true,
            });
        }
    }
    out.sort_by_key(|r| (r.start, r.end));
    out
}

/// `captures_iter`, but found with the fast matcher first: capture groups are only resolved where a
/// match is known to start.
pub(crate) fn fast_captures<'r, 'h>(
    re: &'r Regex,
    text: &'h str,
) -> impl Iterator<Item = regex::Captures<'h>> + 'r
where
    'h: 'r,
{
    re.find_iter(text).filter_map(move |m| re.captures_at(text, m.start()))
}

fn overlaps(refs: &[RawRef], start: usize, end: usize) -> bool {
    refs.iter().any(|r| r.start < end && start < r.end)
}

fn citation_document(label: &str) -> String {
    let l = label.to_lowercase();
    if l.contains("u.s.c") || l.contains("usc") || l.contains("united states code") {
        let title = label.split_whitespace().next().unwrap_or("");
        let title = if l.starts_with("title") {
            label.split_whitespace().nth(1).unwrap_or("").trim_end_matches(',')
        } else {
            title
        };
        format!("{title} U.S.C.")
    } else if l.contains("stat.") {
        "Statutes at Large".into()
    } else if l.contains("reg") && l.contains("fed") || l.contains(" fr ") {
        "Federal Register".into()
    } else if l.contains("c.f.r") || l.contains("cfr") || l.contains("code of federal regulations") {
        "Code of Federal Regulations".into()
    } else if l.contains("law") || l.starts_with("p") {
        "Public Law".into()
    } else {
        "Congressional bill".into()
    }
}

/// Finds and resolves the references of a document.
pub fn find_references(doc: &Document, outline: &Outline) -> Vec<CrossReference> {
    let index = ResolveIndex::new(outline);
    let mut out = Vec::new();
    for (bi, block) in doc.blocks.iter().enumerate() {
        if block.kind.is_heading() {
            continue;
        }
        let text = doc.block_text(block);
        let section = outline.block_section.get(bi).copied().unwrap_or(0);
        for r in scan(text) {
            let target = if r.document.is_none() { index.resolve(&r, section) } else { None };
            if r.relative
                && r.container == Some(RefContainer::Paragraph)
                && target.is_none()
                && !r.label.contains(' ')
            {
                // A bare "(2)" that names nothing here is more likely an enumeration than a reference.
                continue;
            }
            out.push(CrossReference {
                text: text[r.start..r.end].trim().to_string(),
                label: r.label,
                span: Span::new(block.span.start + r.start, block.span.start + r.end),
                from_section: outline.sections[section].id.clone(),
                target_section: target.map(|t| outline.sections[t].id.clone()),
                document: r.document,
                container: r.container,
            });
        }
    }
    out
}

/// Lookup tables for resolving same-document targets.
struct ResolveIndex<'a> {
    outline: &'a Outline,
    /// Full value tokens → sections.
    full: HashMap<Vec<String>, Vec<usize>>,
    /// Tokens after the last container's own number ("Part 6.Chapter 3.61.(4)" → 61, 4) → sections.
    local: HashMap<Vec<String>, Vec<usize>>,
    /// (container, value) for Part/Chapter/Article/Schedule/Appendix/Annex/Title headings.
    containers: HashMap<(RefContainer, String), usize>,
}

impl<'a> ResolveIndex<'a> {
    fn new(outline: &'a Outline) -> Self {
        let mut full: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
        let mut local: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
        let mut containers = HashMap::new();
        for (i, s) in outline.sections.iter().enumerate() {
            let Some(label) = s.number.as_deref().and_then(Label::parse) else { continue };
            let toks: Vec<String> = label.tokens().iter().map(|t| t.to_string()).collect();
            full.entry(toks.clone()).or_default().push(i);
            // Local tokens: drop each explicit non-section segment's own first value.
            let mut loc = Vec::new();
            for seg in &label.segments {
                let skip = usize::from(
                    seg.explicit
                        && seg.container != Container::Section
                        && seg.container != Container::Guidance,
                );
                loc.extend(seg.tokens.iter().skip(skip).cloned());
            }
            if !loc.is_empty() && loc != toks {
                local.entry(loc).or_default().push(i);
            }
            if let Some(last) = label.segments.last() {
                if last.explicit && last.tokens.len() == 1 {
                    let kind = container_of(last.container.prefix()).or(match last.container {
                        Container::Chapter => Some(RefContainer::Chapter),
                        Container::Schedule => Some(RefContainer::Schedule),
                        Container::Appendix => Some(RefContainer::Appendix),
                        _ => None,
                    });
                    if let Some(kind) = kind {
                        containers.entry((kind, last.tokens[0].clone())).or_insert(i);
                    }
                }
            }
        }
        ResolveIndex { outline, full, local, containers }
    }

    fn nearest(&self, candidates: &[usize], from: usize) -> Option<usize> {
        // Prefer a candidate sharing the most ancestors with the referring section.
        let anc: Vec<usize> = std::iter::once(from).chain(self.outline.ancestors(from)).collect();
        candidates.iter().copied().max_by_key(|&c| {
            let cand_anc: Vec<usize> = self.outline.ancestors(c).collect();
            anc.iter().filter(|a| cand_anc.contains(a)).count()
        })
    }

    fn resolve(&self, r: &RawRef, from: usize) -> Option<usize> {
        match r.container {
            Some(
                c @ (RefContainer::Part
                | RefContainer::Chapter
                | RefContainer::Article
                | RefContainer::Title
                | RefContainer::Schedule
                | RefContainer::Appendix
                | RefContainer::Annex),
            ) if r.tokens.len() == 1 => {
                if let Some(&i) = self.containers.get(&(c, r.tokens[0].clone())) {
                    return Some(i);
                }
            }
            _ => {}
        }
        if r.relative || r.label.starts_with('(') {
            // Relative: replace the tail of the current section's number, from the innermost outwards.
            for sec in std::iter::once(from).chain(self.outline.ancestors(from)) {
                let Some(label) = self.outline.sections[sec].number.as_deref().and_then(Label::parse) else {
                    continue;
                };
                let toks: Vec<String> = label.tokens().iter().map(|t| t.to_string()).collect();
                for keep in (0..=toks.len()).rev() {
                    let mut want = toks[..keep].to_vec();
                    want.extend(r.tokens.iter().cloned());
                    if want == toks {
                        continue;
                    }
                    if let Some(c) = self.full.get(&want) {
                        return self.nearest(c, from);
                    }
                }
            }
            return None;
        }
        if let Some(c) = self.full.get(&r.tokens) {
            return self.nearest(c, from);
        }
        if let Some(c) = self.local.get(&r.tokens) {
            return self.nearest(c, from);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocumentBuilder, Format};
    use crate::plaintext;

    fn labels(text: &str) -> Vec<String> {
        scan(text).into_iter().map(|r| r.label).collect()
    }

    #[test]
    fn the_spec_examples() {
        assert_eq!(labels("see Section 203(a) now"), vec!["Section 203(a)"]);
        assert_eq!(labels("under § 4.2 and §§ 4.2–4.5"), vec!["§ 4.2", "§ 4.2", "§ 4.5"]);
        assert_eq!(labels("Rule 2.1.3 applies"), vec!["Rule 2.1.3"]);
        assert_eq!(labels("Rules 2.2.6, 2.2.7 and 2.2.9"), vec!["Rule 2.2.6", "Rule 2.2.7", "Rule 2.2.9"]);
        assert_eq!(labels("in Chapter 5."), vec!["Chapter 5"]);
        assert_eq!(labels("see Appendix B"), vec!["Appendix B"]);
        assert!(labels("the Mooring Rules 2026 and Regulations 2015").is_empty());
        assert_eq!(labels("GEN 3.3.31 says"), vec!["GEN 3.3.31"]);
        assert_eq!(
            labels("as in 33 U.S.C. 2201 and 42 U.S.C. 4321 et seq."),
            vec!["33 U.S.C. 2201", "42 U.S.C. 4321 et seq."]
        );
        let r = scan("section 196 of the FSMR");
        assert_eq!(r[0].document.as_deref(), Some("FSMR"));
        let r = scan("paragraph (b)(2) of this section");
        assert!(r[0].relative);
        assert_eq!(r[0].tokens, vec!["b", "2"]);
        let r = scan("Section 48103(a) of title 49, United States Code");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].document.as_deref(), Some("title 49, United States Code"));
        assert_eq!(
            labels("117 Stat. 2518 and Public Law 113-121"),
            vec!["117 Stat. 2518", "Public Law 113-121"]
        );
    }

    #[test]
    fn resolves_in_document() {
        let text =
            "1\tScope\n1.1\tGeneral\n1.1.1\t\n1.1.1.(1)\tSubject to (2), see Rule 1.2.1 and Chapter 2.\n\
                    1.1.1.(2)\tOther.\n1.2\tMore\n1.2.1\tThis Rule applies; see GEN 3.3.31.\n2\tTwo\n";
        let mut b = DocumentBuilder::new(Format::Text, "T", text.as_bytes());
        plaintext::parse_into(text, &mut b);
        let d = b.finish();
        let o = Outline::build(&d);
        let refs = find_references(&d, &o);
        let got: Vec<(String, Option<String>)> =
            refs.iter().map(|r| (r.label.clone(), r.target_section.clone())).collect();
        assert_eq!(
            got,
            vec![
                ("(2)".to_string(), Some("sec_1_1_1_2".to_string())),
                ("Rule 1.2.1".to_string(), Some("sec_1_2_1".to_string())),
                // Top-level numbered headings are the chapters of a rulebook.
                ("Chapter 2".to_string(), Some("sec_2".to_string())),
                ("GEN 3.3.31".to_string(), None),
            ]
        );
        assert_eq!(refs[3].document.as_deref(), Some("GEN"));
        assert_eq!(&d.text[refs[1].span.start..refs[1].span.end], "Rule 1.2.1");
    }
}
