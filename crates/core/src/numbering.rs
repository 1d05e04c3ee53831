//! Printed numbering labels: "2.1.3.(1)", "Section 203(a)", "ARTICLE IV", "§ 4.2", "Part 6.Chapter 3.61.(4)".
//!
//! [`Label::parse`] turns a label into typed segments; [`Label::section_id`] derives the stable id
//! (`2.1.3.(1)` → `sec_2_1_3_1`, `Section 203(a)` → `sec_203_a`, `ARTICLE IV` → `art_4`);
//! [`split_heading_number`] finds a label at the start of a heading line.

use regex::Regex;
use std::sync::OnceLock;

/// The kind of a labelled container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Container {
    /// Section, Sec., §, Rule, Regulation, or a bare number.
    Section,
    /// Part, Pt.
    Part,
    /// Subpart, a division below a Part.
    Subpart,
    /// Chapter, Chap., Ch. ("CHAPTER ONE" too).
    Chapter,
    /// Article, Art. ("ARTICLE IV").
    Article,
    /// Title, as in "Title 49" of a code.
    Title,
    /// Division, Div.
    Division,
    /// Schedule, Sch. ("SCH2").
    Schedule,
    /// Appendix, App. ("APP4").
    Appendix,
    /// Annex, Annexes.
    Annex,
    /// A "Guidance" note (ADGM rulebooks).
    Guidance,
}

impl Container {
    /// The id prefix of this kind.
    pub fn prefix(self) -> &'static str {
        match self {
            Container::Section => "sec",
            Container::Part => "part",
            Container::Subpart => "subpart",
            Container::Chapter => "ch",
            Container::Article => "art",
            Container::Title => "title",
            Container::Division => "div",
            Container::Schedule => "sch",
            Container::Appendix => "app",
            Container::Annex => "annex",
            Container::Guidance => "guidance",
        }
    }

    /// Recognises a container keyword (any case, with or without a trailing dot).
    pub fn from_keyword(word: &str) -> Option<Container> {
        let w = word.trim_end_matches('.').to_ascii_lowercase();
        Some(match w.as_str() {
            "section" | "sections" | "sec" | "secs" | "§" | "§§" | "s" | "ss" | "rule" | "rules"
            | "regulation" | "regulations" | "reg" | "regs" => Container::Section,
            "part" | "parts" | "pt" => Container::Part,
            "subpart" => Container::Subpart,
            "chapter" | "chapters" | "chap" | "ch" => Container::Chapter,
            "article" | "articles" | "art" => Container::Article,
            "title" => Container::Title,
            "division" | "div" => Container::Division,
            "schedule" | "schedules" | "sch" => Container::Schedule,
            "appendix" | "appendices" | "app" => Container::Appendix,
            "annex" | "annexes" => Container::Annex,
            "guidance" => Container::Guidance,
            _ => return None,
        })
    }
}

/// One segment of a label: an optional container keyword and its value tokens.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Segment {
    /// The kind of container the segment numbers ([`Container::Section`] when the label implies none).
    pub container: Container,
    /// Normalised value tokens, lower-case: `["2", "1", "3", "1"]` for `2.1.3.(1)`.
    pub tokens: Vec<String>,
    /// Whether the label spelled the keyword out ("Part 6") rather than implying it ("6.").
    pub explicit: bool,
}

/// A parsed numbering label.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Label {
    /// The segments, outermost first ("Part 6.Chapter 3.61.(4)": Part 6, Chapter 3, 61.(4)).
    pub segments: Vec<Segment>,
}

impl Label {
    /// Parses a label such as `2.1.3.(1)`, `Section 203(a)`, `ARTICLE IV`, `§ 4.2`, `SEC. 101.`,
    /// `Part 6.Chapter 3.61.(4)`, `1.2.1.Guidance.3.`, `APP4.A4.9.10`, `CHAPTER ONE`.
    /// Returns `None` when the text holds no numbering.
    pub fn parse(label: &str) -> Option<Label> {
        Self::parse_counted(label).map(|(l, _)| l)
    }

    /// Parses a text that must be wholly a label (every word a keyword or a value, with at least one
    /// digit, keyword or punctuated letter): `"1.2.1.Guidance.3."` yes, `"Relevant Person"` no.
    pub fn parse_full(label: &str) -> Option<Label> {
        let t = label.trim();
        if t.is_empty() || t.len() > 120 {
            return None;
        }
        if t.contains(['\t', '\n', ':', ';', '"', '“', '”']) {
            return None;
        }
        let (parsed, all) = Self::parse_counted(t)?;
        let numeric = t.chars().any(|c| c.is_ascii_digit());
        let explicit = parsed.segments.iter().any(|s| s.explicit);
        let punctuated = t.ends_with(['.', ')']) && t.len() <= 6;
        (all && (numeric || explicit || punctuated)).then_some(parsed)
    }

    fn parse_counted(label: &str) -> Option<(Label, bool)> {
        let mut all = true;
        let mut segments: Vec<Segment> = Vec::new();
        let mut current: Option<Segment> = None;
        'components: for (ci, component) in label.split('.').enumerate() {
            let raws = tokenize(component);
            if raws.is_empty() {
                continue;
            }
            if ci > 0 && is_name_component(&raws) {
                // A named part of a path label: "2.4.4.Individuals.(a)", "8.Introduction.Guidance.1",
                // "7.1.3.Guidance on high-risk customers .1", "PART 3.6.1.4.Rejection_of_an_application".
                let name = sanitize(&component.trim().to_lowercase());
                let seg = current.get_or_insert_with(|| Segment {
                    container: Container::Section,
                    tokens: Vec::new(),
                    explicit: false,
                });
                seg.tokens.push(name);
                continue;
            }
            for raw in raws {
                if let Some(kw) = keyword_with_value(&raw) {
                    // "APP4", "SCH2": a keyword glued to its number.
                    if let Some(seg) = current.take() {
                        segments.push(seg);
                    }
                    current = Some(Segment { container: kw.0, tokens: vec![kw.1], explicit: true });
                    continue;
                }
                if let Some(kind) = Container::from_keyword(&raw) {
                    if let Some(seg) = current.take() {
                        segments.push(seg);
                    }
                    let tokens =
                        if kind == Container::Guidance { vec!["guidance".to_string()] } else { Vec::new() };
                    current = Some(Segment { container: kind, tokens, explicit: true });
                    continue;
                }
                let Some(value) = normalise_value(&raw, current.as_ref()) else {
                    all = false;
                    break 'components;
                };
                match current.as_mut() {
                    Some(seg) => seg.tokens.push(value),
                    None => {
                        current = Some(Segment {
                            container: Container::Section,
                            tokens: vec![value],
                            explicit: false,
                        })
                    }
                }
            }
        }
        if let Some(seg) = current.take() {
            segments.push(seg);
        }
        let before = segments.len();
        segments.retain(|s| !s.tokens.is_empty());
        if segments.len() != before {
            all = false;
        }
        if segments.is_empty() {
            None
        } else {
            Some((Label { segments }, all))
        }
    }

    /// The stable section id of this label.
    pub fn section_id(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (i, seg) in self.segments.iter().enumerate() {
            if seg.container == Container::Guidance {
                parts.extend(seg.tokens.iter().cloned());
                continue;
            }
            if seg.explicit || i == 0 {
                parts.push(seg.container.prefix().to_string());
            }
            parts.extend(seg.tokens.iter().map(|t| sanitize(t)));
        }
        parts.join("_")
    }

    /// All value tokens, without keywords: `["6", "3", "61", "4"]` for `Part 6.Chapter 3.61.(4)`.
    pub fn tokens(&self) -> Vec<&str> {
        self.segments.iter().flat_map(|s| s.tokens.iter().map(String::as_str)).collect()
    }

    /// The kind of the labelled thing: the last segment's container, except that values after a
    /// container's own number are numbered sections inside it ("Part 6.50.(1)" is a section).
    pub fn container(&self) -> Container {
        match self.segments.last() {
            Some(s) if s.container == Container::Guidance => Container::Guidance,
            Some(s) if s.tokens.len() <= 1 => s.container,
            _ => Container::Section,
        }
    }

    /// The numbering depth: how many value tokens the label holds.
    pub fn depth(&self) -> usize {
        self.segments.iter().map(|s| s.tokens.len()).sum()
    }
}

fn sanitize(token: &str) -> String {
    token
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect::<String>()
        .trim_matches('_')
        .to_string()
}

/// Whether a dot-separated component of a label is a name rather than numbering: it opens with a
/// word that is no value, or is a keyword followed by more words than one value.
fn is_name_component(raws: &[String]) -> bool {
    let first = &raws[0];
    if first.chars().any(|c| c.is_ascii_digit()) || keyword_with_value(first).is_some() {
        return false;
    }
    if Container::from_keyword(first).is_some() {
        return raws.len() > 2
            || raws.get(1).is_some_and(|r| {
                normalise_value(r, None).is_none()
                    && roman_value(&r.to_lowercase()).is_none()
                    && number_word_value(r).is_none()
            });
    }
    normalise_value(first, None).is_none() || raws.len() > 1 && first.len() > 1
}

/// Splits a label into raw tokens at dots, spaces, parentheses and dashes, keeping "§".
fn tokenize(label: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in label.chars() {
        match ch {
            '§' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push("§".to_string());
            }
            c if c.is_alphanumeric() || c == '_' => cur.push(c),
            _ => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// "APP4" → (Appendix, "4"); "A4" stays a value.
fn keyword_with_value(raw: &str) -> Option<(Container, String)> {
    let lower = raw.to_ascii_lowercase();
    for (kw, kind) in [("app", Container::Appendix), ("sch", Container::Schedule)] {
        if let Some(rest) = lower.strip_prefix(kw) {
            if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
                return Some((kind, rest.to_string()));
            }
        }
    }
    None
}

/// The value of a spelled-out number up to ninety-nine ("ONE", "twenty-three", "TWENTYONE").
pub fn number_word_value(word: &str) -> Option<u32> {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 10] =
        ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
    let w: String = word.chars().filter(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_lowercase();
    if w.is_empty() {
        return None;
    }
    if let Some(i) = UNITS.iter().position(|u| *u == w) {
        return Some(i as u32);
    }
    for (t, name) in TENS.iter().enumerate().skip(2) {
        if let Some(rest) = w.strip_prefix(name) {
            if rest.is_empty() {
                return Some(t as u32 * 10);
            }
            if let Some(u) = UNITS[1..10].iter().position(|u| *u == rest) {
                return Some(t as u32 * 10 + u as u32 + 1);
            }
        }
    }
    None
}

/// Normalises one value token, or says it is no number.
fn normalise_value(raw: &str, current: Option<&Segment>) -> Option<String> {
    let lower = raw.to_ascii_lowercase();
    if lower.chars().all(|c| c.is_ascii_digit()) {
        return Some(lower.trim_start_matches('0').to_string()).map(|s| {
            if s.is_empty() {
                "0".to_string()
            } else {
                s
            }
        });
    }
    // Keyword-led segments take number words and roman numerals ("CHAPTER ONE", "ARTICLE IV").
    let after_keyword = current.is_some_and(|s| s.explicit && s.tokens.is_empty());
    if after_keyword {
        if let Some(n) = number_word_value(&lower).filter(|&n| n > 0) {
            return Some(n.to_string());
        }
        if let Some(n) = roman_value(&lower) {
            return Some(n.to_string());
        }
    }
    // Short alphanumerics: "a", "iv", "A4", "203a", "1a".
    if lower.len() <= 5
        && lower.chars().all(|c| c.is_ascii_alphanumeric())
        && (lower.chars().any(|c| c.is_ascii_digit()) || lower.len() <= 4 && is_letter_value(&lower))
    {
        return Some(lower);
    }
    None
}

fn is_letter_value(s: &str) -> bool {
    s.len() == 1 || s.chars().all(|c| c == s.chars().next().unwrap_or('a')) || roman_value(s).is_some()
}

/// The value of a lower-case roman numeral up to 4000.
pub fn roman_value(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 12 {
        return None;
    }
    let val = |c| match c {
        'i' => Some(1),
        'v' => Some(5),
        'x' => Some(10),
        'l' => Some(50),
        'c' => Some(100),
        'd' => Some(500),
        'm' => Some(1000),
        _ => None,
    };
    let digits: Option<Vec<u32>> = s.chars().map(val).collect();
    let digits = digits?;
    let mut total = 0;
    for (i, d) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|n| n > d) {
            total -= *d as i64;
        } else {
            total += *d as i64;
        }
    }
    let total = u32::try_from(total).ok().filter(|t| *t > 0)?;
    // Reject non-canonical spellings such as "iiii" or "vx".
    (to_roman(total) == s).then_some(total)
}

fn to_roman(mut n: u32) -> String {
    const TABLE: [(u32, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut s = String::new();
    for (v, r) in TABLE {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

/// A heading line split into its numbering label and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadingNumber<'a> {
    /// The label as printed, trimmed ("2.1.3", "SEC. 101.", "ARTICLE IV").
    pub label: &'a str,
    /// The label, parsed ([`Label::parse`]).
    pub parsed: Label,
    /// The rest of the line after the label, trimmed of separators.
    pub title: &'a str,
}

fn heading_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?x)^\s*(
                (?:(?i:part|chapter|article|section|sec\.|subpart|division|title|schedule|appendix|annex|rule|regulation)
                   \s+(?:\d+[A-Za-z]?(?:[.\-]\d+[A-Za-z]?)*|[IVXLCDM]+|[ivxlcdm]+|[A-Z]|(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty))
                   (?:\(\w{1,4}\))*\.?:?)
              | (?:§{1,2}\s*\d+[A-Za-z]?(?:[.\-]\d+[A-Za-z]?)*(?:\(\w{1,4}\))*\.?)
              | (?:\d{1,3}(?:\.\d{1,3})*(?:\.?\(\w{1,4}\))*\.?)
              | (?:[A-Z]\.(?:\d{1,3}\.?)*)
              | (?:[IVXLC]{1,6}\.)
            )(?:\s+|$|[—–:]\s*)",
        )
        .expect("valid heading regex")
    })
}

/// Finds a numbering label at the start of a heading line: `"2.1 Principles"` → label `2.1`,
/// title `Principles`. Returns `None` when the line does not start with one.
pub fn split_heading_number(line: &str) -> Option<HeadingNumber<'_>> {
    let caps = heading_re().captures(line)?;
    let m = caps.get(1)?;
    let label = m.as_str().trim();
    let parsed = Label::parse(label)?;
    let title = line[caps.get(0)?.end()..].trim().trim_start_matches(['-', '—', '–', ':']).trim();
    Some(HeadingNumber { label, parsed, title })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> String {
        Label::parse(s).unwrap().section_id()
    }

    #[test]
    fn ids_from_the_spec() {
        assert_eq!(id("2.1.3.(1)"), "sec_2_1_3_1");
        assert_eq!(id("Section 203(a)"), "sec_203_a");
        assert_eq!(id("ARTICLE IV"), "art_4");
        assert_eq!(id("§ 4.2"), "sec_4_2");
        assert_eq!(id("SEC. 101."), "sec_101");
        assert_eq!(id("CHAPTER ONE"), "ch_1");
        assert_eq!(id("Part 6.Chapter 3.61.(4)"), "part_6_ch_3_61_4");
        assert_eq!(id("1.2.1.Guidance.3."), "sec_1_2_1_guidance_3");
        assert_eq!(id("2.Guidance"), "sec_2_guidance");
        assert_eq!(id("APP4.A4.9.10"), "app_4_a4_9_10");
        assert_eq!(id("Schedule 1.Part 3 .96.(1)"), "sch_1_part_3_96_1");
        assert_eq!(id("2.4.4.Individuals.(a)"), "sec_2_4_4_individuals_a");
        assert_eq!(
            id("7.1.3.Guidance on high-risk customers .1"),
            "sec_7_1_3_guidance_on_high_risk_customers_1"
        );
        assert_eq!(
            id("PART 3.6.1.4.Rejection_of_an_application.Guidance.1"),
            "part_3_6_1_4_rejection_of_an_application_guidance_1"
        );
        assert_eq!(id("8.Introduction.Guidance"), "sec_8_introduction_guidance");
        assert!(Label::parse_full("Chapter 1: Application and Client Classification").is_none());
        assert!(Label::parse_full("Relevant Person").is_none());
    }

    #[test]
    fn roman_numerals() {
        assert_eq!(roman_value("iv"), Some(4));
        assert_eq!(roman_value("xlii"), Some(42));
        assert_eq!(roman_value("iiii"), None);
        assert_eq!(roman_value("abc"), None);
    }

    #[test]
    fn heading_lines() {
        let h = split_heading_number("2.1 Principles for Authorised Persons").unwrap();
        assert_eq!(h.label, "2.1");
        assert_eq!(h.title, "Principles for Authorised Persons");
        let h = split_heading_number("SEC. 101. SHORT TITLE.").unwrap();
        assert_eq!(h.parsed.section_id(), "sec_101");
        assert_eq!(h.title, "SHORT TITLE.");
        let h = split_heading_number("PART 2 — Definitions").unwrap();
        assert_eq!(h.parsed.section_id(), "part_2");
        assert_eq!(h.title, "Definitions");
        assert!(split_heading_number("The rules apply").is_none());
        assert!(split_heading_number("2023 was a year").is_none());
    }
}
