//! Heading titles and labels: normalised keys titles are matched by, number words and chapter
//! labels ("CHAPTER" / "TWENTYONE" / "TITLE TEXT"), sentence case for titles set in capitals.

use folio_core::numbering::{split_heading_number, Container, Label};
use regex::Regex;
use std::sync::OnceLock;

pub(super) fn clean_number(label: &str) -> String {
    let t = label.trim().trim_end_matches([':', '.']).trim();
    t.to_string()
}

/// Numbering depth: "1.2.3" → 3; keyword labels count their value tokens.
pub(super) fn label_depth(parsed: &Label, _label: &str) -> usize {
    parsed.depth().max(1)
}

/// Lower-case alphanumerics only, digits kept: "Exhibit 21.1" and "Exhibit 23.1" differ.
pub fn alphanumerics(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Lower-case alphanumerics only, digits dropped: the key titles are matched by.
pub fn normalise_title(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric() && !c.is_numeric()).flat_map(|c| c.to_lowercase()).collect()
}

/// A line's text without its leading numbering label, normalised.
pub(super) fn normalised_heading_text(s: &str) -> String {
    let t = unglue_number(s.trim());
    match split_heading_number(&t) {
        Some(h) if !h.title.is_empty() => normalise_title(h.title),
        _ => normalise_title(&t),
    }
}

/// "12.2URL REFERENCES" → "12.2 URL REFERENCES", "ARTICLE VII.NEGATIVE COVENANTS" → "ARTICLE
/// VII. NEGATIVE COVENANTS": a multi-level number, or a keyword's roman numeral and its stop,
/// glued to the title (the PDF's text lost the space).
pub(super) fn unglue_number(text: &str) -> std::borrow::Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(\d{1,3}(?:\.\d{1,3})+|\p{L}{3,}\s+[IVXLCDM]{1,7}\.)(\p{Lu})").expect("valid regex")
    });
    re.replace(text, "$1 $2")
}

/// The value of a chapter number token: digits, number words or roman numerals.
pub(super) fn label_value(token: &str) -> Option<String> {
    let t = token.trim().trim_end_matches(['.', ':']);
    if !t.is_empty() && t.len() <= 4 && t.chars().all(|c| c.is_ascii_digit()) {
        return Some(t.trim_start_matches('0').to_string()).filter(|s| !s.is_empty());
    }
    if let Some(n) = folio_core::numbering::number_word_value(t) {
        return Some(n.to_string());
    }
    if t.len() <= 7 {
        if let Some(n) = folio_core::numbering::roman_value(&t.to_ascii_lowercase()) {
            return Some(n.to_string());
        }
    }
    if t.len() == 1 && t.chars().all(|c| c.is_ascii_uppercase()) {
        return Some(t.to_string());
    }
    None
}

/// A contents page's own title ("Contents", "TABLE OF CONTENTS").
pub(super) fn is_contents_word(s: &str) -> bool {
    if s.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let t: String = s.chars().filter(|c| c.is_alphabetic() || *c == ' ').collect::<String>().to_lowercase();
    let t = t.trim();
    t == "contents" || t == "table of contents" || t == "content"
}

/// A container keyword and its value, nothing else ("PART II", "Chapter 3", "ARTICLE IV.").
pub(super) fn is_lone_label(text: &str) -> bool {
    let mut words = text.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(k), Some(v), None) => container_keyword(k).is_some() && label_value(v).is_some(),
        _ => false,
    }
}

pub(super) fn container_keyword(word: &str) -> Option<Container> {
    let w = word.trim().trim_end_matches(['.', ':']);
    match w.to_ascii_lowercase().as_str() {
        "chapter" => Some(Container::Chapter),
        "part" => Some(Container::Part),
        "appendix" => Some(Container::Appendix),
        "article" => Some(Container::Article),
        "book" | "title" => Some(Container::Title),
        "annex" => Some(Container::Annex),
        "schedule" => Some(Container::Schedule),
        "section" => Some(Container::Section),
        _ => None,
    }
}

/// Sentence case for a title set in capitals: "ABOUT THIS MANUAL" → "About this manual".
pub(super) fn sentence_case(s: &str) -> String {
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() || letters.iter().any(|c| c.is_lowercase()) {
        return s.to_string();
    }
    let lower = s.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let mut first = true;
    for c in lower.chars() {
        if first && c.is_alphabetic() {
            out.extend(c.to_uppercase());
            first = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_container_labels() {
        assert!(is_lone_label("PART II "));
        assert!(is_lone_label("Chapter 3"));
        assert!(!is_lone_label("PART II ITEM 5. MARKET"));
        assert!(!is_lone_label("Section 13(a) of the Act"));
        assert!(!is_lone_label("Parts and"));
    }

    #[test]
    fn number_words() {
        assert_eq!(folio_core::numbering::number_word_value("ONE"), Some(1));
        assert_eq!(folio_core::numbering::number_word_value("TWENTYONE"), Some(21));
        assert_eq!(folio_core::numbering::number_word_value("twenty-three"), Some(23));
        assert_eq!(folio_core::numbering::number_word_value("thirteen"), Some(13));
        assert_eq!(folio_core::numbering::number_word_value("manual"), None);
        assert_eq!(label_value("IV"), Some("4".into()));
        assert_eq!(label_value("12"), Some("12".into()));
    }

    #[test]
    fn numbers_glued_to_titles() {
        assert_eq!(unglue_number("12.2URL REFERENCES"), "12.2 URL REFERENCES");
        assert_eq!(unglue_number("ARTICLE VII.NEGATIVE COVENANTS"), "ARTICLE VII. NEGATIVE COVENANTS");
        assert_eq!(unglue_number("ARTICLE VIII. EVENTS OF DEFAULT"), "ARTICLE VIII. EVENTS OF DEFAULT");
        assert_eq!(unglue_number("U.S. Operations"), "U.S. Operations");
    }

    #[test]
    fn titles() {
        assert_eq!(sentence_case("ABOUT THIS MANUAL"), "About this manual");
        assert_eq!(normalise_title("1.1 Scope of Work"), "scopeofwork");
        assert_eq!(normalised_heading_text("1.2.3 Element Text vs. Attributes"), "elementtextvsattributes");
    }
}
