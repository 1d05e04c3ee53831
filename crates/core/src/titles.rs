//! A document's title as a reader would cite it: from the cover page a filing prints (issuer, form,
//! period: "Apple Inc. — Form 10-K, fiscal 2022"), a title the text declares for itself ("These
//! Rules may be cited as the Fund Passporting Rules"), a title line set at its head, or metadata
//! that is a title rather than a typesetter's job name ("10Q Doc & Exhibits-2022-05-03-15-15").
//!
//! ```
//! use folio_core::titles::cover_title;
//! let lines = ["FORM 10-K", "For the fiscal year ended September 24, 2022", "Apple Inc.",
//!              "(Exact name of Registrant as specified in its charter)"];
//! assert_eq!(cover_title(&lines).as_deref(), Some("Apple Inc. — Form 10-K, fiscal 2022"));
//! ```

use regex::Regex;
use std::sync::OnceLock;

/// An SEC filing's cover page: who files, which form, for what period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cover {
    /// The registrant, in the case a reader writes it ("Intel Corporation").
    pub issuer: String,
    /// The form ("10-K", "10-Q").
    pub form: String,
    /// The period ("fiscal 2022", "quarter ended June 30, 2023"), when the cover gives one.
    pub period: Option<String>,
    /// The line of `lines` that says "(Exact name of registrant …)".
    pub line: usize,
}

impl Cover {
    /// "Apple Inc. — Form 10-K, fiscal 2022".
    pub fn title(&self) -> String {
        match &self.period {
            Some(p) => format!("{} — Form {}, {p}", self.issuer, self.form),
            None => format!("{} — Form {}", self.issuer, self.form),
        }
    }
}

/// The cover page of an SEC filing among `lines` (a document's opening pages, in reading order):
/// the registrant named above "(Exact name of registrant as specified in its charter)", the form,
/// and its period. `None` where no such cover is printed.
pub fn find_cover(lines: &[&str]) -> Option<Cover> {
    let exact = lines.iter().position(|l| l.to_ascii_lowercase().contains("exact name of registrant"))?;
    let registrant = lines[..exact]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.chars().all(|c| c == '_' || c == '-' || c.is_whitespace()))?;
    // The registrant may share its line with the commission file number or other cells.
    let registrant = registrant.split("  ").map(str::trim).find(|s| !s.is_empty()).unwrap_or(registrant);
    let form = lines[..exact].iter().rev().find_map(|l| form_of(l))?;
    let period = lines[..exact].iter().find_map(|l| period_of(l, &form));
    Some(Cover { issuer: name_case(registrant), form, period, line: exact })
}

/// The title of an SEC filing's cover page among `lines` (see [`find_cover`]).
pub fn cover_title(lines: &[&str]) -> Option<String> {
    find_cover(lines).map(|c| c.title())
}

/// The form a cover line names: "FORM 10-K" → "10-K".
fn form_of(line: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^\s*form\s+(10-K|10-Q|20-F|40-F|8-K|6-K|10-KT|10-QT|S-1|F-1)(?:/A)?\b")
            .expect("valid regex")
    });
    re.captures(line).map(|c| c[1].to_ascii_uppercase())
}

/// The period a cover line gives for a form: "For the fiscal year ended May 31, 2023" → "fiscal
/// 2023"; "For the quarterly period ended June 30, 2023" → "quarter ended June 30, 2023".
fn period_of(line: &str, form: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)for\s+the\s+(fiscal\s+year|year|quarterly\s+period|quarter)\s+ended\s+([a-z]+\s+\d{1,2},?\s+(\d{4}))",
        )
        .expect("valid regex")
    });
    let c = re.captures(line)?;
    let kind = c[1].to_ascii_lowercase();
    if kind.contains("quarter") || form.starts_with("10-Q") {
        Some(format!("quarter ended {}", name_case(c[2].trim_end_matches('.'))))
    } else {
        Some(format!("fiscal {}", &c[3]))
    }
}

/// A name printed in capitals in the case a reader writes it ("INTEL CORPORATION" → "Intel
/// Corporation"); a name already in mixed case ("eBay Inc.", "NIKE, Inc.") stays as printed.
pub fn name_case(name: &str) -> String {
    let letters: Vec<char> = name.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() || letters.iter().any(|c| c.is_lowercase()) {
        return name.trim().to_string();
    }
    title_case(name, "")
}

/// Small words a title keeps in lower case (but for its first word).
const SMALL: [&str; 14] =
    ["a", "an", "and", "as", "at", "for", "in", "of", "on", "or", "the", "to", "under", "with"];

/// Capitals to title case, each word as `body` writes it where it does in mixed case
/// ("McDONALD'S REPORTS …" with "McDonald's Corporation" in the body → "McDonald's Reports …"),
/// else capitalised; small words lower case; abbreviations of up to three letters ("AML", "ESG")
/// and words with digits kept.
pub fn title_case(caps: &str, body: &str) -> String {
    let words: Vec<&str> = caps.split_whitespace().collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let bare: String = w.chars().filter(|c| c.is_alphanumeric() || *c == '\'' || *c == '’').collect();
        let as_in_body = (bare.len() > 1)
            .then(|| {
                body.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')).find(|b| {
                    b.eq_ignore_ascii_case(&bare)
                        && *b != bare
                        && b.chars().any(|c| c.is_lowercase())
                        && *b != bare.to_lowercase()
                })
            })
            .flatten();
        let lower = w.to_lowercase();
        let word = if let Some(form) = as_in_body {
            w.replacen(&bare, form, 1)
        } else if i > 0 && SMALL.contains(&lower.trim_matches(|c: char| !c.is_alphanumeric())) {
            lower
        } else if w.chars().any(|c| c.is_ascii_digit())
            || (bare.len() <= 3 && i > 0 && bare.chars().all(|c| c.is_uppercase()))
        {
            w.to_string()
        } else {
            capitalise(&lower)
        };
        out.push(word);
    }
    out.join(" ")
}

/// The first letter (after any punctuation) upper case, and the first after a hyphen.
fn capitalise(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut up = true;
    for c in word.chars() {
        if up && c.is_alphabetic() {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
        if c == '-' || c == '(' || c == '/' {
            up = true;
        }
    }
    out
}

/// Whether a metadata title is a typesetter's or a file's name rather than the document's title:
/// a date or time stamp, a file extension, underscores, a draft or final marker, an exhibit
/// number, a bare form code ("10K"), or no word of three letters at all.
pub fn is_job_name(title: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?ix)
            \d{1,4}[./-]\d{1,2}[./-]\d{2,4}      # a date stamp: 2022-05-03, 3.31.23, 12.26.2020
            | \d{1,2}-\d{1,2}$                   # a time stamp at the end: -15-15
            | _ | \.(?:docx?|pdf|indd|qxd|tex)$
            | \b(?:final|draft|doc|proxy)\b
            | \bexhibit\s+\d
            | \b(?:10K|10Q|8K)\b
            | ^\s*(?:untitled|document|microsoft\ word)",
        )
        .expect("valid regex")
    });
    let words =
        title.split_whitespace().filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3).count();
    words == 0 || re.is_match(title)
}

/// A title a text declares for itself in its opening: "These Rules may be cited as the Fund
/// Passporting Rules", "This document is called the Guidance and Policies Manual (“GPM”)", "The
/// purpose of the Code of Market Conduct ("CMC") is …" — with its abbreviation where it gives one.
pub fn declared_title(opening: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r#"(?:may\s+be\s+cited\s+as|is\s+called|purpose\s+of)\s+(?:the\s+)?(?P<name>[A-Z][\w’'&-]*(?:\s+(?:of|and|for|the|on|in|&|[A-Z][\w’'&-]*)){0,10})(?:\s*\((?:the\s+)?["“]?(?P<abbr>[A-Z]{2,8})["”]?\))?(?:[.,;:\s]|$)"#,
        )
        .expect("valid regex")
    });
    let c = re.captures(opening)?;
    let name = c.name("name")?.as_str().trim().trim_end_matches([',', '.']);
    if name.split_whitespace().count() < 2 {
        return None;
    }
    Some(match c.name("abbr") {
        Some(a) => format!("{name} ({})", a.as_str()),
        None => name.to_string(),
    })
}

/// The title line set at a text's head: its first non-empty line when it reads as a title (a few
/// words, most of them capitalised, no sentence, no section number), in title case where it is
/// printed in capitals; a version or date in brackets at its end is dropped ("Fund Rules (FUNDS)
/// (VER08.040723)" → "Fund Rules (FUNDS)").
pub fn head_title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = strip_version(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first()?;
    let numbered = first.chars().next().is_some_and(|c| c.is_ascii_digit())
        || first.trim_end_matches(['.', ')']).chars().all(|c| c.is_ascii_uppercase())
            && first.len() <= 2
            && first.ends_with(['.', ')']);
    let capitalised = words.iter().filter(|w| w.starts_with(|c: char| c.is_uppercase())).count();
    let title_like = (2..=16).contains(&words.len())
        && !numbered
        && !line.ends_with(['.', ':', ';', ','])
        && capitalised * 2 > words.len()
        && !matches!(
            first.to_ascii_uppercase().as_str(),
            "INTRODUCTION" | "DEFINITIONS" | "BACKGROUND" | "CONTENTS"
        );
    title_like.then(|| {
        if line.chars().any(|c| c.is_lowercase()) {
            line.to_string()
        } else {
            title_case(&line, text)
        }
    })
}

/// A name without the versions and dates a file name carries at its end ("_VER01.280922",
/// " v6", "(Consolidated_October 2023)", "17 June 2020 (002)"), underscores read as spaces.
pub fn strip_version(name: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?ix)(?:[\s_]*(?:
                \(?\s*VER\s*\d[\w.]*\s*\)?      # _VER08.181223, (VER02.181223), VER03.120623
                | v\d+                            # v6
                | \([^()]*\d{4}[^()]*\)           # (December 2018), (Consolidated_October 2023)
                | \(\d{1,4}\)                      # (002)
                | \d{1,2}\s+[a-z]+\s+\d{4}         # 17 June 2020
                | \d{6,8}                          # 240224
            ))+\s*$",
        )
        .expect("valid regex")
    });
    re.replace(name.trim(), "").trim_end_matches(['_', '-', ' ']).replace('_', " ").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sec_cover_pages_give_issuer_form_and_period() {
        let intel = [
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "FORM 10-K",
            "For the fiscal year ended December 26, 2020.",
            "Commission File Number 000-06217",
            "INTEL CORPORATION",
            "(Exact name of registrant as specified in its charter)",
        ];
        assert_eq!(cover_title(&intel).as_deref(), Some("Intel Corporation — Form 10-K, fiscal 2020"));
        let ebay = [
            "FORM 10-Q",
            "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            "For the quarterly period ended June 30, 2023",
            "eBay Inc.",
            "(Exact name of registrant as specified in its charter)",
        ];
        assert_eq!(cover_title(&ebay).as_deref(), Some("eBay Inc. — Form 10-Q, quarter ended June 30, 2023"));
        let nike = [
            "FORM 10-K",
            "FOR THE FISCAL YEAR ENDED MAY 31, 2023",
            "NIKE, Inc.",
            "(Exact name of Registrant as specified in its charter)",
        ];
        assert_eq!(cover_title(&nike).as_deref(), Some("NIKE, Inc. — Form 10-K, fiscal 2023"));
        assert_eq!(cover_title(&["Annual Report 2023", "Dear shareholders"]), None);
    }

    #[test]
    fn capitals_become_a_title_with_the_body_s_own_spelling() {
        // The body holds the headline as printed too: the spelling taken is another one.
        let body =
            "McDONALD'S REPORTS FIRST QUARTER 2023 RESULTS CHICAGO - McDonald's Corporation today announced.";
        assert_eq!(
            title_case("McDONALD'S REPORTS FIRST QUARTER 2023 RESULTS", body),
            "McDonald's Reports First Quarter 2023 Results"
        );
        assert_eq!(
            title_case("FINANCIAL SERVICES AND MARKETS REGULATIONS 2015", ""),
            "Financial Services and Markets Regulations 2015"
        );
        assert_eq!(name_case("LOCKHEED MARTIN CORPORATION"), "Lockheed Martin Corporation");
        assert_eq!(name_case("eBay Inc."), "eBay Inc.");
    }

    #[test]
    fn job_names_are_told_from_titles() {
        for job in [
            "10Q Doc & Exhibits-2022-05-03-15-15",
            "ADBE 10K FY16 - FINAL",
            "12.26.2020 (Q4) - 10K Document",
            "LMT Q4 2022 10K",
            "Nike 2023 Proxy",
            "Exhibit 99.1 - 3.31.23 - Q1",
            "Q1 2023 8-K - Exhibit 99.1",
            "GEN_VER08.181223",
        ] {
            assert!(is_job_name(job), "{job}");
        }
        for title in ["Apple Inc.", "Oracle Corporation", "Debian Policy Manual", "2023 Annual Report"] {
            assert!(!is_job_name(title), "{title}");
        }
    }

    #[test]
    fn titles_a_text_declares_or_sets_at_its_head() {
        assert_eq!(
            declared_title("1.1.1 These Rules may be cited as the Fund Passporting Rules. 1.2 Application")
                .as_deref(),
            Some("Fund Passporting Rules")
        );
        assert_eq!(
            declared_title("This document is called the Guidance and Policies Manual (“GPM”). The GPM is")
                .as_deref(),
            Some("Guidance and Policies Manual (GPM)")
        );
        assert_eq!(
            declared_title("The purpose of the Code of Market Conduct (\"CMC\") is to supplement").as_deref(),
            Some("Code of Market Conduct (CMC)")
        );
        assert_eq!(
            head_title("FINANCIAL SERVICES AND MARKETS REGULATIONS 2015\n\nRegulations to make provision")
                .as_deref(),
            Some("Financial Services and Markets Regulations 2015")
        );
        assert_eq!(
            head_title("Fund Rules (FUNDS) (VER08.040723)\n\nPART 1.").as_deref(),
            Some("Fund Rules (FUNDS)")
        );
        assert_eq!(head_title("1. INTRODUCTION\n1.1 Application"), None);
        assert_eq!(head_title("1) INTRODUCTION This Guidance is issued"), None);
        assert_eq!(
            strip_version("Guidance - Continuous Disclosure_VER01.280922"),
            "Guidance - Continuous Disclosure"
        );
        assert_eq!(strip_version("BRR Regulations (December 2018)"), "BRR Regulations");
        assert_eq!(
            strip_version("CRS Regulations 2017 (Consolidated_October 2023) v6"),
            "CRS Regulations 2017"
        );
        assert_eq!(strip_version("UAE_CRS_Guidance_Notes_17 June 2020 (002)"), "UAE CRS Guidance Notes");
        assert_eq!(strip_version("GPM VER03.120623"), "GPM");
    }
}
