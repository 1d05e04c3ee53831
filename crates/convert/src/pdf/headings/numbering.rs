//! What a heading's number says: its label ("Item 7A", "Note 3", "2.1.3", "Part IV"), the rank of
//! its keyword, its decimal depth, and whether one number continues another.

use super::super::titles::{container_keyword, label_value, unglue_number};
use folio_core::numbering::{split_heading_number, Container};
use regex::Regex;
use std::sync::OnceLock;

/// The numbering of company filings and financial reports, which legal numbering does not know:
/// "Item 1A.", "Note 12 –", "Exhibit 21.1".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FilingLabel {
    Item,
    Note,
    Exhibit,
}

impl FilingLabel {
    fn word(self) -> &'static str {
        match self {
            FilingLabel::Item => "Item",
            FilingLabel::Note => "Note",
            FilingLabel::Exhibit => "Exhibit",
        }
    }
    /// Items sit in Parts, as chapters do; notes to financial statements below sections;
    /// exhibits beside the Parts they follow.
    fn rank(self) -> u8 {
        match self {
            FilingLabel::Item => container_rank(Container::Chapter),
            FilingLabel::Note => container_rank(Container::Guidance),
            FilingLabel::Exhibit => container_rank(Container::Part),
        }
    }
}

/// Whether a heading's number, as [`num_info`] labels it ("Note 12"), is a Note's.
pub(super) fn is_note_number(number: &str) -> bool {
    number.strip_prefix(FilingLabel::Note.word()).is_some_and(|rest| rest.starts_with(' '))
}

/// "Item 7A. Quantitative…" → (Item, "7A", "Quantitative…"); "Note 3 – Leases"; "Exhibit 4.1"
/// alone. A label needs its number, and Items and Notes a title.
fn filing_label(text: &str) -> Option<(FilingLabel, &str, &str)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?i:(item|note|exhibit))\s+(\d{1,3}[A-Z]?(?:\.\d{1,2}|\([a-z]\))?)(?:\s*[.:—–-]\s*|\s+|$)(.*)$")
            .expect("valid filing label regex")
    });
    let c = re.captures(text.trim())?;
    let kind = match c[1].to_ascii_lowercase().as_str() {
        "item" => FilingLabel::Item,
        "note" => FilingLabel::Note,
        _ => FilingLabel::Exhibit,
    };
    let value = c.get(2)?.as_str().trim_end_matches('.');
    let title = c.get(3)?.as_str().trim();
    let letters = title.chars().filter(|c| c.is_alphabetic()).count();
    if kind != FilingLabel::Exhibit && (letters < 2 || title.starts_with(|c: char| c.is_lowercase())) {
        return None;
    }
    if kind == FilingLabel::Exhibit && letters > 0 && title.chars().count() > 120 {
        return None;
    }
    Some((kind, value, title))
}

/// Rank of a keyword container: lower is higher in the hierarchy.
pub(super) fn container_rank(c: Container) -> u8 {
    match c {
        Container::Title => 1,
        Container::Division => 2,
        Container::Part => 3,
        Container::Subpart => 4,
        Container::Chapter | Container::Appendix | Container::Annex | Container::Schedule => 5,
        Container::Article => 6,
        Container::Section => 7,
        Container::Guidance => 8,
    }
}

/// The rank of a heading that is a container's label alone, "PART I" or "Part II.": a division
/// above the numbered headings it holds (the Items of a filing), though its line names no title.
/// Only the containers that hold others (Title, Division, Part, Subpart) count: a lone "Section 5"
/// or "Chapter 2" line is as often a wrapped reference.
pub(super) fn lone_container_rank(text: &str) -> Option<u8> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [kw, value] = words[..] else { return None };
    let c = container_keyword(kw)?;
    label_value(value)?;
    matches!(c, Container::Title | Container::Division | Container::Part | Container::Subpart)
        .then(|| container_rank(c))
}

/// Facts about a heading candidate's numbering.
#[derive(Debug, Clone)]
pub(super) struct NumInfo {
    pub label: String,
    /// Rank of the explicit keyword of the first segment ("Part", "Item", "Note"), lower
    /// ranking higher ([`container_rank`], [`FilingLabel::rank`]).
    pub rank: Option<u8>,
    /// Decimal depth for plain numbers ("1.2.3" → 3).
    pub depth: usize,
    pub tokens: Vec<String>,
    pub plain_decimal: bool,
    pub trailing_dot: bool,
}

/// The numbering of a heading's text, with the title after it.
pub(super) fn num_info(text: &str) -> Option<(NumInfo, String)> {
    if let Some((kind, value, title)) = filing_label(text) {
        return Some((
            NumInfo {
                label: format!("{} {value}", kind.word()),
                rank: Some(kind.rank()),
                depth: 1,
                tokens: vec![value.to_ascii_lowercase()],
                plain_decimal: false,
                trailing_dot: false,
            },
            title.to_string(),
        ));
    }
    let text = unglue_number(text);
    let h = split_heading_number(&text)?;
    if h.title.chars().filter(|c| c.is_alphabetic()).count() < 2 {
        return None;
    }
    let first = h.parsed.segments.first()?;
    let keyword = first.explicit.then_some(first.container);
    let rank = keyword.map(container_rank);
    let plain_decimal = keyword.is_none()
        && h.label
            .trim_end_matches('.')
            .split('.')
            .all(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
    let tokens: Vec<String> = h.parsed.tokens().iter().map(|s| s.to_string()).collect();
    Some((
        NumInfo {
            label: h.label.to_string(),
            rank,
            depth: h.parsed.depth(),
            tokens,
            plain_decimal,
            trailing_dot: h.label.ends_with('.'),
        },
        h.title.to_string(),
    ))
}

/// Whether `next` continues the numbering sequence after `prev` ("1.2" → "1.3", "1.2.1", "2").
pub(super) fn in_sequence(prev: &[String], next: &[String]) -> bool {
    let num = |s: &String| s.parse::<u32>().ok();
    if next.is_empty() {
        return false;
    }
    // First child.
    if next.len() == prev.len() + 1 && next[..prev.len()] == prev[..] && next.last().and_then(num) == Some(1)
    {
        return true;
    }
    // Next sibling of prev or of an ancestor.
    if next.len() <= prev.len() {
        let k = next.len() - 1;
        if next[..k] == prev[..k] {
            if let (Some(a), Some(b)) = (num(&prev[k]), num(&next[k])) {
                return b == a + 1;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences() {
        let v = |s: &str| s.split('.').map(String::from).collect::<Vec<_>>();
        assert!(in_sequence(&v("1.2"), &v("1.3")));
        assert!(in_sequence(&v("1.2"), &v("1.2.1")));
        assert!(in_sequence(&v("1.2.4"), &v("1.3")));
        assert!(in_sequence(&v("1.2.4"), &v("2")));
        assert!(!in_sequence(&v("1.2"), &v("4.9")));
        assert!(!in_sequence(&v("1.2"), &v("1.2.3")));
    }

    #[test]
    fn note_numbers() {
        let (info, _) = num_info("NOTE 12: LEASES").unwrap();
        assert!(is_note_number(&info.label));
        assert!(!is_note_number(&num_info("Item 7. Management's Discussion").unwrap().0.label));
        assert!(!is_note_number("Notes"));
    }

    #[test]
    fn lone_part_labels_rank_above_items() {
        let part = lone_container_rank("PART II").unwrap();
        assert_eq!(lone_container_rank("Part I."), Some(part));
        assert!(part < num_info("Item 7. Management's Discussion").unwrap().0.rank.unwrap());
        assert_eq!(lone_container_rank("Section 5"), None);
        assert_eq!(lone_container_rank("PART I Financial Information"), None);
        assert_eq!(lone_container_rank("Part of"), None);
    }
}
