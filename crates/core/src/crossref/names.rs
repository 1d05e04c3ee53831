//! The names documents go by: a library's labels and titles ("GEN", "Financial Services and Markets
//! Regulations 2015"), what its glossaries say a label means ("MKT: Means the Markets Rules"), and
//! short titles a document declares for itself ("… Regulations 2015 (the “Regulations”)").

use regex::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The key a document name is compared by: lower case, without "the", a year, punctuation, small
/// words, or a closing "Rules"/"Rulebook"/"module of the Rulebook", the last word singular. So "the
/// Markets Rules", "Markets Rules (MKT)" and "MKT Rulebook" meet, and "Fund Rules" meets "Funds
/// Rulebook".
///
/// ```
/// use folio_core::crossref::name_key;
/// assert_eq!(name_key("the Financial Services and Markets Regulations 2015"), "financial services markets regulations");
/// assert_eq!(name_key("Fund Rules"), name_key("Funds Rulebook"));
/// assert_eq!(name_key("General module of the Rulebook"), name_key("General Rulebook"));
/// assert_eq!(name_key("AML Rules"), "aml");
/// ```
pub fn name_key(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { ' ' })
        .collect::<String>()
        .replace("module of the rulebook", " ");
    let mut words: Vec<&str> =
        cleaned.split_whitespace().filter(|w| !matches!(*w, "the" | "and" | "of" | "adgm")).collect();
    while let Some(last) = words.last() {
        let year = last.len() == 4 && last.chars().all(|c| c.is_ascii_digit());
        if year || matches!(*last, "rules" | "rulebook" | "module") && words.len() > 1 {
            words.pop();
        } else {
            break;
        }
    }
    let mut key = words.join(" ");
    if key.len() > 4 && key.ends_with('s') && !key.ends_with("ss") && !key.ends_with("regulations") {
        key.pop();
    }
    key
}

/// Which library document each name means.
///
/// ```
/// use folio_core::crossref::DocumentNames;
/// let mut names = DocumentNames::default();
/// names.add("MKT", 7, 0);
/// names.add("Markets Rules", 7, 2);
/// assert_eq!(names.find("the Markets Rules"), Some(7));
/// assert_eq!(names.find("Insolvency Regulations"), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct DocumentNames {
    /// Key → (document, priority); `None` where two documents claim a name at the same priority.
    by_key: HashMap<String, (Option<i64>, u8)>,
}

impl DocumentNames {
    /// Records that `name` means document `doc`; a lower `priority` wins (labels 0, titles 1,
    /// names a glossary gives 2).
    pub fn add(&mut self, name: &str, doc: i64, priority: u8) {
        let key = name_key(name);
        if key.len() < 2 {
            return;
        }
        match self.by_key.get_mut(&key) {
            Some((d, p)) if *p == priority && *d != Some(doc) => *d = None,
            Some((d, p)) if *p > priority => {
                *d = Some(doc);
                *p = priority;
            }
            Some(_) => {}
            None => {
                self.by_key.insert(key, (Some(doc), priority));
            }
        }
    }

    /// The document a name means.
    pub fn find(&self, name: &str) -> Option<i64> {
        self.by_key.get(&name_key(name)).and_then(|(d, _)| *d)
    }

    /// Learns names from a glossary entry: "MKT" that "Means the Markets Rules." names the same
    /// document as the one it defines, whichever of the two is known.
    pub fn learn_definition(&mut self, term: &str, text: &str) {
        let Some(meaning) = meaning_of(text) else { return };
        match (self.find(term), self.find(&meaning)) {
            (Some(d), None) => self.add(&meaning, d, 2),
            (None, Some(d)) => self.add(term, d, 2),
            _ => {}
        }
    }
}

/// "Means the Markets Rules." → "Markets Rules".
fn meaning_of(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i:means|refers\s+to|is)\s+(?:the\s+)?(?P<name>[A-Z][^.,;:()]{1,80})")
            .expect("valid regex")
    });
    let name = re.captures(text)?.name("name")?.as_str().trim().to_string();
    let starts_like_a_title =
        name.split_whitespace().next().is_some_and(|w| w.starts_with(char::is_uppercase));
    (starts_like_a_title && name.split_whitespace().count() <= 10).then_some(name)
}

/// Short titles a text declares: `… Regulations 2015 (the “Regulations”)`, `Markets Rules (“MKT”)`,
/// `General Rulebook (GEN)`, as (short title, full name) pairs.
///
/// ```
/// let d = folio_core::crossref::declared_names("terms in the Financial Services Markets Regulations (2015) (the “FSMR”) apply");
/// assert_eq!(d, vec![("FSMR".to_string(), "Financial Services Markets Regulations (2015)".to_string())]);
/// ```
pub fn declared_names(text: &str) -> Vec<(String, String)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(&format!(
            r#"(?P<name>{})\s*\((?:the\s+)?["“']?(?P<short>[A-Z][\w’'\- ]{{1,40}}?)["”']?\)"#,
            super::scan::INSTRUMENT
        ))
        .expect("valid regex")
    });
    re.captures_iter(text)
        .filter_map(|c| {
            let name = c.name("name")?.as_str().trim();
            let name = name.strip_prefix("The ").or_else(|| name.strip_prefix("the ")).unwrap_or(name);
            let short = c.name("short")?.as_str().trim();
            (!name.is_empty() && name != short).then(|| (short.to_string(), name.to_string()))
        })
        .collect()
}
