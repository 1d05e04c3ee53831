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
    let key = key.strip_prefix("condensed").unwrap_or(&key);
    [AUDITOR_REPORT, "consolidatedbalancesheet", "consolidatedstatementof", "consolidatedstatementsof"]
        .iter()
        .any(|p| key.starts_with(p))
        .then_some(StatementPart::Statement)
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
    }
}
