//! Titles the library's documents give one another. A rulebook printed without its title ("GEN",
//! from its file name) is named as the library's glossary names its label ("GEN: Means the General
//! module of the Rulebook" → "General Rulebook (GEN)"); a title the document gives itself, or the
//! user gave it, stays.

use super::{DefinitionRow, DocumentRow};
use std::collections::HashMap;

/// For each document whose own title is only its label, the title the library's definitions give
/// that label, by document id.
pub(super) fn library_titles(docs: &[DocumentRow], defs: &[DefinitionRow]) -> HashMap<i64, String> {
    let mut out = HashMap::new();
    // The definitions by each term they define ("GEN or General Rulebook": both), in order: one
    // pass over them, whatever the number of documents.
    let mut by_term: HashMap<&str, Vec<&DefinitionRow>> = HashMap::new();
    for def in defs {
        for t in def.term.split(" or ") {
            let list = by_term.entry(t.trim()).or_default();
            if list.last().is_none_or(|last| !std::ptr::eq(*last, def)) {
                list.push(def);
            }
        }
    }
    for d in docs.iter().filter(|d| !d.renamed && is_only_label(&d.title, &d.label)) {
        let named =
            by_term.get(d.label.as_str()).and_then(|list| list.iter().find_map(|def| name_in(&def.text)));
        if let Some(name) = named {
            out.insert(d.id, format!("{name} ({})", d.label));
        }
    }
    out
}

/// Whether a title says no more than the label ("GEN", "gen").
fn is_only_label(title: &str, label: &str) -> bool {
    let key =
        |s: &str| s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    key(title) == key(label)
}

/// The name a definition gives ("Means the Conduct of Business module of the Rulebook." →
/// "Conduct of Business Rulebook"): what follows "means" (and "the"), to the end of its first
/// clause, when it reads as a title.
fn name_in(text: &str) -> Option<String> {
    // The text may repeat the term before "Means" ("GEN\tMeans the General module …").
    let t = text.trim();
    let at =
        t.char_indices().take(80).map(|(i, _)| i).find(|&i| t[i..].to_lowercase().starts_with("means "))?;
    let rest = t[at + "means ".len()..].trim_start();
    let rest = rest.strip_prefix("the ").unwrap_or(rest);
    let clause = rest.split(['.', ';', ',', ':', '(']).next()?.trim();
    let name = match clause.strip_suffix("module of the Rulebook") {
        Some(head) => format!("{} Rulebook", head.trim()),
        None => clause.to_string(),
    };
    let words = name.split_whitespace().count();
    let title_like = name.starts_with(|c: char| c.is_uppercase()) && (1..=12).contains(&words);
    title_like.then_some(name)
}

/// Words that make a name an instrument's: "… Regulations", "… Act", "… Rulebook".
const INSTRUMENT_WORDS: [&str; 21] = [
    "act",
    "acts",
    "regulation",
    "regulations",
    "rule",
    "rules",
    "rulebook",
    "law",
    "laws",
    "legislation",
    "code",
    "guidelines",
    "guidance",
    "manual",
    "standard",
    "standards",
    "decree",
    "decision",
    "directive",
    "ordinance",
    "statute",
];

fn names_an_instrument(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric()).any(|w| INSTRUMENT_WORDS.contains(&w.to_lowercase().as_str()))
}

/// The abbreviations the library uses as instruments': those its definitions give instruments
/// ("FSMR: Means the Financial Services and Markets Regulations", "AML or AML Rulebook: Means the
/// Anti-Money Laundering … Rules and Guidance"), and those a reference cites a division of ("Rule
/// 5.5.1 of GEN", "GEN Rule 5.5.1"), given as (the name, the reference as written). A bare number
/// after capitals ("NA 1.5" in a table) makes none.
pub(super) fn instrument_abbreviations<'a>(
    defs: &[DefinitionRow],
    citations: impl Iterator<Item = (&'a String, &'a String)>,
) -> std::collections::HashSet<String> {
    const DIVISIONS: [&str; 10] = [
        "rule",
        "section",
        "chapter",
        "part",
        "article",
        "schedule",
        "appendix",
        "paragraph",
        "regulation",
        "annex",
    ];
    let mut out: std::collections::HashSet<String> = citations
        .filter(|(_, text)| {
            text.split(|c: char| !c.is_alphanumeric())
                .any(|w| DIVISIONS.contains(&w.to_lowercase().trim_end_matches('s')))
        })
        .map(|(name, _)| name.clone())
        .collect();
    for d in defs.iter().filter(|d| names_an_instrument(&d.text)) {
        for t in d.term.split(" or ").map(str::trim) {
            let abbreviation =
                (2..=8).contains(&t.len()) && t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
            if abbreviation {
                out.insert(t.to_string());
            }
        }
    }
    out
}

/// Whether a name a document cites is an instrument's: a title of two words or more with an
/// instrument's word ("Insolvency Regulations 2015", "Companies Act"), or an abbreviation the
/// library's definitions give an instrument. "Act", "Regulation", "LLC" or "NA" alone are none.
pub(super) fn is_instrument(name: &str, abbreviations: &std::collections::HashSet<String>) -> bool {
    let words: Vec<&str> = name.split_whitespace().filter(|w| !w.eq_ignore_ascii_case("the")).collect();
    match words.as_slice() {
        [] => false,
        [one] => abbreviations.contains(one.trim_matches(|c: char| !c.is_alphanumeric())),
        many => {
            let titled = many.iter().filter(|w| w.starts_with(|c: char| c.is_uppercase())).count() >= 2;
            titled && names_an_instrument(name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_index::catalog::DocumentStatus;

    fn doc(id: i64, label: &str, title: &str) -> DocumentRow {
        DocumentRow {
            id,
            path: format!("/d/{label}.txt"),
            label: label.into(),
            title: title.into(),
            format: "text".into(),
            content_hash: String::new(),
            mtime: 0,
            size: 0,
            page_count: None,
            status: DocumentStatus::Indexed,
            renamed: false,
        }
    }

    fn def(term: &str, text: &str) -> DefinitionRow {
        DefinitionRow {
            doc_id: 9,
            term: term.into(),
            key: term.to_lowercase(),
            text: text.into(),
            section_id: "s".into(),
            scope_section: None,
            span: folio_core::model::Span::new(0, 0),
        }
    }

    #[test]
    fn a_rulebook_known_by_its_label_takes_the_glossary_s_name_for_it() {
        let docs = [
            doc(1, "GEN", "GEN"),
            doc(2, "AML", "AML"),
            doc(3, "FSMR", "Financial Services and Markets Regulations 2015"),
            doc(4, "PRU", "PRU"),
        ];
        let defs = [
            def("GEN", "GEN\tMeans the General module of the Rulebook."),
            def("AML or AML Rulebook", "Means the Anti-Money Laundering and Sanctions Rules and Guidance."),
            def("FSMR", "Means the Financial Services and Markets Regulations."),
            def("PRU Return", "Means the return required under PRU."),
        ];
        let t = library_titles(&docs, &defs);
        assert_eq!(t.get(&1).map(String::as_str), Some("General Rulebook (GEN)"));
        assert_eq!(
            t.get(&2).map(String::as_str),
            Some("Anti-Money Laundering and Sanctions Rules and Guidance (AML)")
        );
        assert_eq!(t.get(&3), None, "a document's own title stays");
        assert_eq!(t.get(&4), None, "no definition names PRU itself");
        let mut renamed = doc(5, "GEN", "GEN");
        renamed.renamed = true;
        assert!(library_titles(&[renamed], &defs).is_empty(), "the user's title stays");
    }

    #[test]
    fn only_instruments_are_documents_to_add() {
        let defs = [
            def("FSMR", "Means the Financial Services and Markets Regulations."),
            def("CDD", "Means customer due diligence."),
        ];
        let cited =
            [("GEN".to_string(), "Rule 5.5.1 of GEN".to_string()), ("NA".to_string(), "NA 1.5".to_string())];
        let abbreviations = instrument_abbreviations(&defs, cited.iter().map(|(a, b)| (a, b)));
        assert!(abbreviations.contains("FSMR") && !abbreviations.contains("CDD"));
        assert!(abbreviations.contains("GEN") && !abbreviations.contains("NA"));
        for name in ["Insolvency Regulations 2015", "the Companies Act", "FSMR", "Federal AML Law"] {
            assert!(is_instrument(name, &abbreviations), "{name}");
        }
        for name in ["Act", "Regulation", "NA", "LLC", "CDD", "the Regulations"] {
            assert!(!is_instrument(name, &abbreviations), "{name}");
        }
    }
}
