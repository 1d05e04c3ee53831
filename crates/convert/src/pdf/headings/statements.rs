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
    if ["notestoconsolidatedfinancialstatements", "notestocondensedconsolidatedfinancialstatements"]
        .contains(&key.as_str())
    {
        return Some(StatementPart::NotesTitle);
    }
    if key.starts_with(AUDITOR_REPORT) {
        return Some(StatementPart::AuditorReport);
    }
    let statement = |key: &str| {
        let key = key.strip_prefix("condensed").unwrap_or(key);
        [AUDITOR_REPORT, "consolidatedbalancesheet", "consolidatedstatementof", "consolidatedstatementsof"]
            .iter()
            .any(|p| key.starts_with(p))
    };
    let after_issuer = || without_issuer(text).is_some_and(|rest| statement(&normalise_title(rest)));
    (statement(&key) || after_issuer()).then_some(StatementPart::Statement)
}

/// Words a statement's title may carry before "Condensed" or "Consolidated": who issued it or on
/// what basis ("McDONALD'S CORPORATION", "U.S. GAAP"), at most this many.
const ISSUER_WORDS: usize = 4;

/// The title after a short name set before its "Condensed" or "Consolidated" ("U.S. GAAP Condensed
/// Consolidated Statements of Income"), each of its words capitalised: a sentence about the
/// statements ("The consolidated statements of income include …") has none.
fn without_issuer(text: &str) -> Option<&str> {
    let mut words = text.split_whitespace();
    for n in 0..=ISSUER_WORDS {
        let word = words.next()?;
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        if ["condensed", "consolidated"].iter().any(|w| bare.eq_ignore_ascii_case(w)) {
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
        assert!(!is_statement_part("The Consolidated Statements of Income include"));
        assert!(!is_statement_part("Notes to the Consolidated Statements of Income"));
        assert!(!is_statement_part(
            "Reconciliation of Non-GAAP Measures to Consolidated Statement of Income"
        ));
    }
}
