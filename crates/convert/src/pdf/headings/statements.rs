//! Which part of a filing's financial statements a heading names: the auditor's report, a
//! statement or balance sheet, or the Notes' title, whose titles Regulation S-X fixes. The levels
//! set those parts beside one another, and numbered runs never nest under a statement.

use super::super::titles::normalise_title;

/// The auditor's report's title, as [`normalise_title`] gives it.
const AUDITOR_REPORT: &str = "reportofindependentregisteredpublicaccountingfirm";

/// A part of a filing's financial statements, whose titles Regulation S-X fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StatementPart {
    /// The auditor's report.
    AuditorReport,
    /// A consolidated statement or balance sheet.
    Statement,
    /// The title of the Notes to them.
    NotesTitle,
}

/// Which part of a filing's financial statements a heading names, if any.
pub(super) fn statement_part(text: &str) -> Option<StatementPart> {
    if text.trim_end().ends_with('.') {
        // "See notes to consolidated financial statements."
        return None;
    }
    let key = normalise_title(text);
    if is_notes_title(&key)
        || after_words(text, "notes").is_some_and(|rest| is_notes_title(&normalise_title(rest)))
    {
        return Some(StatementPart::NotesTitle);
    }
    if key.starts_with(AUDITOR_REPORT) {
        return Some(StatementPart::AuditorReport);
    }
    let statement = |key: &str| {
        let key = key.strip_prefix("condensed").unwrap_or(key);
        // IFRS titles too: "Consolidated Income Statement", "Consolidated Cash Flow Statement".
        [
            AUDITOR_REPORT,
            "consolidatedbalancesheet",
            "consolidatedstatementof",
            "consolidatedstatementsof",
            "consolidatedincomestatement",
            "consolidatedcashflowstatement",
        ]
        .iter()
        .any(|p| key.starts_with(p))
    };
    let after_issuer = || without_issuer(text).is_some_and(|rest| statement(&normalise_title(rest)));
    (statement(&key) || after_issuer()).then_some(StatementPart::Statement)
}

/// Months, as a title names the date its Notes speak at ("… Financial Statements May 31, 2023").
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Whether a normalised title is the Notes' title: "Notes to (the) (Condensed) (Consolidated)
/// Financial Statements", and after it nothing, "(Unaudited)" or the date they speak at (a 10-Q's
/// "Notes to Condensed Consolidated Financial Statements (Unaudited)").
fn is_notes_title(key: &str) -> bool {
    let Some(rest) = key.strip_prefix("notesto") else { return false };
    let rest = rest.strip_prefix("the").unwrap_or(rest);
    let rest = rest.strip_prefix("condensed").unwrap_or(rest);
    let rest = rest.strip_prefix("consolidated").unwrap_or(rest);
    let Some(rest) = rest.strip_prefix("financialstatements") else { return false };
    rest.is_empty() || rest == "unaudited" || MONTHS.iter().any(|m| rest.starts_with(m))
}

/// Words a statement's title may carry before "Condensed" or "Consolidated": who issued it or on
/// what basis ("McDONALD'S CORPORATION", "U.S. GAAP"), at most this many.
const ISSUER_WORDS: usize = 4;

/// The title after a short name set before its "Condensed" or "Consolidated" ("U.S. GAAP Condensed
/// Consolidated Statements of Income"), each of its words capitalised: a sentence about the
/// statements ("The consolidated statements of income include …") has none.
fn without_issuer(text: &str) -> Option<&str> {
    ["condensed", "consolidated"].iter().find_map(|w| after_words(text, w))
}

/// The text from the word `first` on, where at most [`ISSUER_WORDS`] capitalised words come before
/// it (who issued the statements: "ORACLE CORPORATION NOTES TO …"), and at least one.
fn after_words<'a>(text: &'a str, first: &str) -> Option<&'a str> {
    let mut words = text.split_whitespace();
    for n in 0..=ISSUER_WORDS {
        let word = words.next()?;
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        if bare.eq_ignore_ascii_case(first) {
            // `word` is a slice of `text`: its offset is the distance between their starts.
            return (n > 0).then(|| &text[word.as_ptr() as usize - text.as_ptr() as usize..]);
        }
        let capitalised = bare.chars().next().is_some_and(|c| c.is_uppercase() || c.is_numeric());
        if !capitalised || ["the", "see", "notes", "to"].iter().any(|w| bare.eq_ignore_ascii_case(w)) {
            return None;
        }
    }
    None
}

/// Whether a heading names a part of a filing's financial statements (see [`StatementPart`]).
pub(super) fn is_statement_part(text: &str) -> bool {
    statement_part(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::is_statement_part;

    #[test]
    fn parts_of_financial_statements() {
        assert!(is_statement_part("Report of Independent Registered Public Accounting Firm"));
        assert!(is_statement_part("CONSOLIDATED BALANCE SHEETS (IN MILLIONS)"));
        assert!(is_statement_part("Condensed Consolidated Statements of Cash Flows"));
        assert!(is_statement_part("Notes to Consolidated Financial Statements"));
        assert!(!is_statement_part("See notes to consolidated financial statements."));
        assert!(!is_statement_part("Note 11 – Segment Information and Geographic Data"));
        assert!(!is_statement_part("Critical Audit Matter"));
        // Who issued it, or on what basis, before the title.
        assert!(is_statement_part(
            "McDONALD'S CORPORATION CONDENSED CONSOLIDATED STATEMENT OF INCOME (UNAUDITED)"
        ));
        assert!(is_statement_part("U.S. GAAP Condensed Consolidated Statements of Income (Unaudited)"));
        assert!(is_statement_part("Consolidated Income Statement"));
        assert!(is_statement_part("Consolidated Cash Flow Statement"));
        assert!(is_statement_part("Consolidated Statement of Financial Position"));
        assert!(!is_statement_part("The Consolidated Statements of Income include"));
        assert!(!is_statement_part("Notes to the Consolidated Statements of Income"));
        assert!(!is_statement_part(
            "Reconciliation of Non-GAAP Measures to Consolidated Statement of Income"
        ));
    }

    #[test]
    fn the_notes_title_with_its_basis_date_or_issuer() {
        use super::{statement_part, StatementPart::NotesTitle};
        for title in [
            "Notes to Consolidated Financial Statements",
            "NOTES TO CONDENSED CONSOLIDATED FINANCIAL STATEMENTS",
            "Notes to Condensed Consolidated Financial Statements (Unaudited)",
            "Notes to consolidated financial statements (unaudited)",
            "Notes to the Consolidated Financial Statements",
            "Notes to Financial Statements",
            "ORACLE CORPORATION NOTES TO CONSOLIDATED FINANCIAL STATEMENTS May 31, 2023",
        ] {
            assert_eq!(statement_part(title), Some(NotesTitle), "{title}");
        }
        for title in [
            "See notes to condensed consolidated financial statements (unaudited)",
            "Notes to Consolidated Financial Statements, continued from the previous page",
            "Notes to Consolidated Financial Statements.",
            "Refer to the Notes to Consolidated Financial Statements",
        ] {
            assert_ne!(statement_part(title), Some(NotesTitle), "{title}");
        }
    }
}
