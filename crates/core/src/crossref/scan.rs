//! Finding references in text: the keyword forms ("Rule 2.1.3", "§§ 4.2–4.5", "Part 4 of Schedule 1
//! of FSMR", "GEN Rule 5.5.1"), bare document codes ("GEN 3.3.31"), citations to other corpora
//! ("33 U.S.C. 2201") and paragraph references relative to the current rule ("(2) and (3)").

use super::{RawRef, RefContainer};
use crate::numbering::{Container, Label};
use regex::Regex;
use std::sync::OnceLock;

const NUM: &str = r"(?:\d+[A-Za-z]{0,2}(?:[.\-–]\d+[A-Za-z]?)*\.?(?:\s?\([A-Za-z0-9]{1,5}\))*|\([A-Za-z0-9]{1,5}\)(?:\([A-Za-z0-9]{1,5}\))*)";

/// The name of an instrument as the texts write it after "of": "the Insolvency Regulations",
/// "Financial Services and Markets Regulations 2015", "UAE Penal Code", "Regulation (EU) 2016/679".
pub(crate) const INSTRUMENT: &str = r"(?:[A-Z][\w'’\-]*[ \t]+(?:(?:and|of|the|for|on|in|&)[ \t]+)?){0,8}(?:Act|Regulations?|Rules|Rulebook|Code|Law|Guidelines|Manual|Standards?|Decree|Decision|Directive|Ordinance|Statute)(?-u:\b)(?:[ \t]+(?:\(EU\)[ \t]+)?(?:No\.?[ \t]+)?\d+/\d+(?:/E[CU])?)?(?:[ \t]+No\.?[ \t]*\(?\d+\)?)?(?:[ \t]+(?:of[ \t]+)?\(?\d{4}\)?)?";

fn keyword_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let kw = r"(?P<kw>§§?|(?i:rules?|sections?|secs?\.|chapters?|parts?|articles?|paragraphs?|paras?\.|subsections?|subparagraphs?|clauses?|schedules?|appendix|appendices|annex(?:es)?|regulations?|regs?\.|titles?|subparts?))";
        let num_or_letter = format!(r"(?:{NUM}|[A-Z](?:\d+)?(?-u:\b)|[IVXLC]{{1,6}}(?-u:\b))");
        let list = format!(r"(?P<list>{num_or_letter}(?:\s*(?:,|;|(?-u:\b)and(?-u:\b)|(?-u:\b)or(?-u:\b)|(?-u:\b)to(?-u:\b)|(?-u:\b)through(?-u:\b)|–|—|-)\s*(?:{num_or_letter}))*)");
        // "of Schedule 1", "in Part 2": the containers the target lies in, innermost first.
        let chain = r"(?P<chain>(?:\s+(?:of|in)\s+(?:the\s+)?(?i:schedule|part|chapter|appendix|annex|article)\s+[0-9A-Z]{1,4}(?-u:\b))*)";
        let doc = format!(
            r"(?:\s+of\s+(?P<of>(?:the\s+)?(?:(?P<this>this\s+(?:section|part|chapter|rule|article|schedule|paragraph|subsection))|(?P<own>these\s+(?:Regulations|Rules)|this\s+(?:Rulebook|Guidance|Code|Act|Law|Manual|Policy|document))|title\s+\d+(?:,\s+(?:United States Code|Code of Federal Regulations))?|{INSTRUMENT}|[A-Z][A-Z0-9]{{1,7}}(?-u:\b))))?"
        );
        let pre = r"(?:(?P<pre>[A-Z][A-Z0-9]{1,7})\s+)?";
        Regex::new(&format!(r"(?:^|[^A-Za-z0-9_§])(?P<whole>{pre}{kw}\s*{list}{chain}{doc})"))
            .expect("valid reference regex")
    })
}

fn filing_ref_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?-u:\b)(?P<kw>(?i:notes?|items?))\s+(?P<list>\d{1,3}[A-Z]?(?:(?:\s*(?:,|and|or|to|through|–|-)\s*)\d{1,3}[A-Z]?)*)(?-u:\b)")
            .expect("valid regex")
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

/// Capitalised words that open a sentence or a heading, never a document's label.
const NOT_LABELS: &[&str] = &[
    "A", "AN", "AND", "ANY", "AS", "AT", "BY", "FOR", "FROM", "IF", "IN", "INTO", "IS", "NO", "NOT", "OF",
    "ON", "OR", "SEE", "SUCH", "THAT", "THE", "THIS", "TO", "UNDER", "WITH", "NEW", "ALL", "EACH", "SAME",
];

pub(crate) fn container_of(kw: &str) -> Option<RefContainer> {
    let k = kw.to_lowercase();
    let k = k.trim_end_matches('.');
    Some(match k {
        "paragraph" | "paragraphs" | "para" | "paras" | "subparagraph" | "subparagraphs" | "clause"
        | "clauses" => RefContainer::Paragraph,
        "subsection" | "subsections" => RefContainer::Section,
        // A section, rule or guidance note is a section; the divisions map one to one.
        _ => Container::from_keyword(k)
            .map(|c| RefContainer::of_container(c).unwrap_or(RefContainer::Section))?,
    })
}

fn singular(kw: &str) -> String {
    let k = kw.trim_end_matches('.');
    match k.to_lowercase().as_str() {
        "§§" | "§" => "§".into(),
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
    }
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

pub(crate) fn value_tokens(number: &str) -> Vec<String> {
    Label::parse(number).map(|l| l.tokens().iter().map(|t| t.to_string()).collect()).unwrap_or_default()
}

/// "of Schedule 1 in Part 2" → [(Schedule, "1"), (Part, "2")], outermost first.
fn parse_chain(chain: &str) -> Vec<(RefContainer, String)> {
    let words: Vec<&str> = chain.split_whitespace().filter(|w| !matches!(*w, "of" | "in" | "the")).collect();
    let mut out: Vec<(RefContainer, String)> = words
        .chunks(2)
        .filter_map(|p| match p {
            [kw, v] => Some((container_of(kw)?, value_tokens(v).into_iter().next()?)),
            _ => None,
        })
        .collect();
    out.reverse();
    out
}

/// Finds references in a text.
///
/// ```
/// let refs = folio_core::crossref::scan("Subject to Rules 2.2.6, 2.2.7 and 2.2.9 and section 196 of the FSMR.");
/// let labels: Vec<_> = refs.iter().map(|r| r.label.as_str()).collect();
/// assert_eq!(labels, vec!["Rule 2.2.6", "Rule 2.2.7", "Rule 2.2.9", "Section 196"]);
/// assert_eq!(refs[3].document.as_deref(), Some("FSMR"));
/// let gen = folio_core::crossref::scan("under GEN Rule 5.5.1 and Part 4 of Schedule 1 of FSMR");
/// assert_eq!(gen[0].document.as_deref(), Some("GEN"));
/// assert_eq!(gen[1].label, "Schedule 1, Part 4");
/// ```
pub fn scan(text: &str) -> Vec<RawRef> {
    // Direction marks and byte-order marks sit between words and numbers in some texts ("Rule
    // \u{200e}1.1.2", "of \u{200e}Schedule 1"): read them as spaces of the same width, so every
    // offset still points into `text`.
    let invisible = ['\u{200e}', '\u{200f}', '\u{feff}'];
    let cleaned;
    let text = if text.contains(invisible) {
        cleaned = text.replace(invisible, "   ");
        cleaned.as_str()
    } else {
        text
    };
    let mut out: Vec<RawRef> = Vec::new();
    for caps in fast_captures(keyword_re(), text) {
        let (Some(whole), Some(kw), Some(list)) = (caps.name("whole"), caps.name("kw"), caps.name("list"))
        else {
            continue;
        };
        let pre = caps
            .name("pre")
            .filter(|p| !NOT_LABELS.contains(&p.as_str()) && Container::from_keyword(p.as_str()).is_none());
        let container = container_of(kw.as_str());
        let within = caps.name("chain").map(|c| parse_chain(c.as_str())).unwrap_or_default();
        let relative_to_this = caps.name("this").is_some();
        let own = caps.name("own").is_some();
        let of = caps
            .name("of")
            .filter(|_| !relative_to_this && !own)
            .map(|m| m.as_str().trim_start_matches("the ").trim().to_string());
        let document = of.or_else(|| pre.map(|p| p.as_str().to_string()));
        let kw_name = singular(kw.as_str());
        let items = split_list(list.as_str());
        let first_start = pre.map_or(kw.start(), |p| p.start());
        for (k, (off, number)) in items.iter().enumerate() {
            let number = number.trim_end_matches('.');
            let tokens = value_tokens(number);
            if tokens.is_empty() || is_year(&tokens) {
                // "Regulations 2015" names a document by its year; it is no reference.
                continue;
            }
            let start = if k == 0 { first_start } else { list.start() + off };
            let mut end = if k + 1 == items.len() { whole.end() } else { list.start() + off + number.len() };
            // A full stop after the number ends the sentence, not the reference.
            while end > start && text.as_bytes()[end - 1] == b'.' && !text[start..end].ends_with("seq.") {
                end -= 1;
            }
            let mut label = format!("{kw_name} {number}");
            for (c, v) in within.iter().rev() {
                label = format!("{} {v}, {label}", container_name(*c));
            }
            out.push(RawRef {
                start,
                end,
                label,
                container,
                tokens,
                within: within.clone(),
                document: document.clone(),
                relative: relative_to_this || number.starts_with('('),
            });
        }
    }
    // A filing's notes and items: "See Note 3 to the consolidated financial statements", "Items
    // 7 and 7A", "Notes 9-16". Numbers alone (a roman numeral in brackets after "Notes" is a
    // rulebook's paragraph, read above).
    for caps in fast_captures(filing_ref_re(), text) {
        let (Some(kw), Some(list)) = (caps.name("kw"), caps.name("list")) else { continue };
        let word = if kw.as_str().to_ascii_lowercase().starts_with("note") { "Note" } else { "Item" };
        let mut at = list.start();
        for (k, part) in list.as_str().split_inclusive(|c: char| !c.is_ascii_alphanumeric()).enumerate() {
            let number = part.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            let (start, end) = (if k == 0 { kw.start() } else { at }, at + number.len());
            at += part.len();
            let numeric = number.chars().next().is_some_and(|c| c.is_ascii_digit());
            if !numeric || overlaps(&out, start, end) {
                continue;
            }
            out.push(RawRef {
                start,
                end,
                label: format!("{word} {number}"),
                container: Some(RefContainer::Section),
                tokens: value_tokens(number),
                within: Vec::new(),
                document: None,
                relative: false,
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
            within: Vec::new(),
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
            within: Vec::new(),
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
                within: Vec::new(),
                document: None,
                relative: true,
            });
        }
    }
    out.sort_by_key(|r| (r.start, r.end));
    out
}

/// The word a label uses for a container.
pub(crate) fn container_name(c: RefContainer) -> &'static str {
    match c {
        RefContainer::Section => "Section",
        RefContainer::Part => "Part",
        RefContainer::Chapter => "Chapter",
        RefContainer::Article => "Article",
        RefContainer::Title => "Title",
        RefContainer::Schedule => "Schedule",
        RefContainer::Appendix => "Appendix",
        RefContainer::Annex => "Annex",
        RefContainer::Paragraph => "Paragraph",
        RefContainer::Citation => "",
    }
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
