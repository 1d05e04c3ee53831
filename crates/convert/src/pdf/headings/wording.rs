//! What a line's words say about it, whatever its type: a sentence or a fragment of one, an aside,
//! an address, an amount, a definition, a title carried on from a page before, a contents list's
//! column heads. Titles say none of these; [`super::candidates`] drops the lines that do.

use super::super::chars::is_currency_char;
use super::super::titles::container_keyword;

/// Whether the whole text is one parenthetical ("(Remainder of Page Intentionally Left Blank)",
/// "(Mark One)", "(in millions)"): an aside or a note on the text, which a title never is
/// (a lettered heading's "(a)" is followed by its title).
pub(super) fn is_an_aside(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else { return false };
    let mut depth = 0i32;
    for c in inner.chars() {
        depth += (c == '(') as i32 - (c == ')') as i32;
        if depth < 0 {
            // "(a) Title (continued)": the first parenthesis closes before the end.
            return false;
        }
    }
    true
}

/// Whether the text breaks off mid-word or mid-quotation: a hyphen at its end ("\"We are driving
/// game-") or a quotation it opens and does not close. A pull quote's first lines, set large; a
/// title ends where its words end and closes what it quotes.
pub(super) fn breaks_off(text: &str) -> bool {
    let t = text.trim_end();
    let hyphen = t.ends_with(['-', '\u{2010}']) && t.chars().rev().nth(1).is_some_and(char::is_alphabetic);
    let opens = t.chars().filter(|&c| c == '“').count() > t.chars().filter(|&c| c == '”').count();
    let straight = t.starts_with('"') && t.chars().filter(|&c| c == '"').count() % 2 == 1;
    hyphen || opens || straight
}

/// Whether the text is the column heads of a contents list: "Page", after a division's keyword
/// or not ("Section Page", "Article Page").
pub(super) fn heads_a_contents_column(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some((last, before)) = words.split_last() else { return false };
    let page = ["page", "pages"].contains(&last.trim_end_matches(['.', ':']).to_lowercase().as_str());
    page && before.len() <= 2
        && before.iter().all(|w| container_keyword(w).is_some() || w.eq_ignore_ascii_case("item"))
}

/// Kinds of street that close a postal address's street line.
pub(super) const STREET_KINDS: [&str; 22] = [
    "road",
    "rd",
    "street",
    "st",
    "avenue",
    "ave",
    "boulevard",
    "blvd",
    "drive",
    "dr",
    "lane",
    "ln",
    "parkway",
    "pkwy",
    "place",
    "plaza",
    "way",
    "court",
    "circle",
    "highway",
    "hwy",
    "square",
];

/// Whether the text is a street address: a house number, a few words, and the kind of street
/// ("942 South Shady Grove Road", "1 Microsoft Way"), a cover's or a letterhead's line.
pub(super) fn gives_a_street(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else { return false };
    let number = first.len() <= 6 && first.chars().all(|c| c.is_ascii_digit());
    let kind = last.trim_end_matches(['.', ',']).to_lowercase();
    number && (3..=7).contains(&words.len()) && STREET_KINDS.contains(&kind.as_str())
}

/// Whether the text gives an e-mail, web or street address ("Contacts: Investor Relations
/// investor@pepsico.com", "www.sec.gov", "942 South Shady Grove Road"): a contact line or a
/// reference, which no title holds.
pub(super) fn gives_an_address(text: &str) -> bool {
    gives_a_street(text)
        || text.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            let email = w.split_once('@').is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
            let lower = w.to_ascii_lowercase();
            email || lower.starts_with("http") && lower.contains("://") || lower.starts_with("www.")
        })
}

/// Whether the text opens with a quoted term that a lower-case word follows (“Term SOFR
/// Borrowing” means …, "Affiliate" shall have …): a definition in an agreement's or a rule's
/// definitions, a sentence however its term is set.
pub(super) fn defines_a_term(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(['“', '"']) else { return false };
    let Some(close) = rest.find(['”', '"']) else { return false };
    let after = rest[close..].chars().skip(1).collect::<String>();
    let after = after.trim_start_matches([',', ':']).trim_start();
    close > 0 && after.starts_with(|c: char| c.is_lowercase())
}

/// A line with this many figures in it is a table's or a chart's, not a title ("Item 7A",
/// "Note 12 – Leases", "For the fiscal year ended May 31, 2023" have fewer).
pub(super) const FIGURES_NOT_TITLE: usize = 3;

/// Whether a text states an amount of money ("$ 10,571", "€3.2"): with another figure beside
/// it ("(In Millions) $ 10,571 2020 Operating Income"), a chart's label, not a title.
pub(super) fn states_an_amount(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_currency_char(c) {
            while chars.peek() == Some(&' ') {
                chars.next();
            }
            if chars.peek().is_some_and(char::is_ascii_digit) {
                return true;
            }
        }
    }
    false
}

/// How many words of a text hold a digit.
pub(super) fn numbers_in(text: &str) -> usize {
    text.split_whitespace().filter(|w| w.chars().any(|c| c.is_ascii_digit())).count()
}

/// Whether a title says it carries on one printed before, and nothing more ("CONDENSED
/// CONSOLIDATED STATEMENT OF CASH FLOWS—(Continued)", "Statement of Cash Flows (continued) (in
/// millions)"): a statement's second page, not a section of its own. A title that goes on after
/// the word ("… (continued) Operating Profit by Division") heads a table of its own.
pub(super) fn continues_a_title(text: &str) -> bool {
    let mut rest = text.trim().to_lowercase();
    // The units after a statement's title ("(in millions, unaudited)").
    while rest.ends_with(')') && !rest.ends_with("(continued)") {
        match rest.rfind('(') {
            Some(open) => rest.truncate(open),
            None => break,
        }
        rest = rest.trim_end().to_string();
    }
    let rest = rest.trim_end_matches(['.', ')']);
    rest.strip_suffix("continued").is_some_and(|before| !before.ends_with(char::is_alphabetic))
}

/// Whether text set larger than the body is a sentence, not a title: it reads as one and is
/// closed as one ("Intel put the Silicon in Silicon Valley, and today our technology remains at
/// the core of …."). A long title without a stop stays one ("Reconciliation of adjusted earnings
/// before interest, tax, depreciation and amortization").
pub(super) fn large_sentence(text: &str) -> bool {
    reads_as_sentence(text) && text.ends_with(['.', ':'])
}

/// Whether a text opens with a word in lower case ("by", "and", "changing"), carrying on a
/// sentence; a name set in lower case with a capital inside ("eBay", "iPhone") opens one.
pub(super) fn continues_sentence(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    let word = first.trim_start_matches(|c: char| !c.is_alphanumeric());
    word.starts_with(|c: char| c.is_lowercase()) && !word.chars().any(char::is_uppercase)
}

/// Whether a line reads as a sentence rather than a title: many words, most of them in lower case
/// ("The Company provides guidance on a non-GAAP basis as we cannot predict …"), or a long lead-in
/// to a list ("Consistent with its previous guidance for 2023, the Company continues to expect:").
/// Titles capitalise their words, or are short.
pub(super) fn reads_as_sentence(text: &str) -> bool {
    let (words, lower_share) = words_in_lower_case(text);
    (words >= 10 && lower_share > 0.5) || (text.ends_with(':') && words >= 8)
}

/// Whether a text is a sentence, however short, closed by its period and in lower case ("See
/// notes to consolidated financial statements." under a statement): set no larger than the
/// document's body and in its weight, it is a note, not a title. (A sentence set larger, or bold,
/// may head a risk factor.)
pub(super) fn plain_sentence(text: &str) -> bool {
    let (words, lower_share) = words_in_lower_case(text);
    text.ends_with('.') && words >= 3 && lower_share > 0.5
}

/// The words of a text outside its parentheses, and the share of those opening with a letter
/// that open in lower case.
pub(super) fn words_in_lower_case(text: &str) -> (usize, f32) {
    // A title's parenthetical ("(in millions, except per share amounts)") is no sentence.
    let mut depth = 0i32;
    let outside: String = text
        .chars()
        .filter(|&c| {
            depth += (c == '(') as i32 - (c == ')') as i32;
            depth <= 0 && c != ')'
        })
        .collect();
    let words: Vec<&str> = outside.split_whitespace().collect();
    let lettered: Vec<&&str> = words.iter().filter(|w| w.starts_with(char::is_alphabetic)).collect();
    let capitalised = lettered.iter().filter(|w| w.starts_with(char::is_uppercase)).count();
    (words.len(), 1.0 - capitalised as f32 / lettered.len().max(1) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contents_list_s_column_heads() {
        assert!(heads_a_contents_column("Section Page"));
        assert!(heads_a_contents_column("ARTICLE PAGE"));
        assert!(heads_a_contents_column("Page"));
        assert!(!heads_a_contents_column("Title Page Design"));
        assert!(!heads_a_contents_column("Cover Page"));
    }

    #[test]
    fn a_short_sentence_closed_by_its_period_is_a_note() {
        assert!(plain_sentence("See notes to consolidated financial statements."));
        assert!(plain_sentence("See accompanying notes."));
        assert!(!plain_sentence("Consolidated Statements of Operations"));
        assert!(!plain_sentence("Notes to Financial Statements."));
        assert!(!plain_sentence("Item 1."));
    }

    #[test]
    fn asides_and_definitions_are_no_titles() {
        assert!(is_an_aside("(Remainder of Page Intentionally Left Blank)"));
        assert!(is_an_aside("(Mark One)"));
        assert!(!is_an_aside("(a) Comments Due Date (continued)"));
        assert!(!is_an_aside("(a) Comments Due Date"));
        assert!(!is_an_aside("Revenue (in millions)"));
        assert!(defines_a_term("“Term SOFR Borrowing” means a Borrowing comprised of Term SOFR Loans."));
        assert!(defines_a_term("\"Affiliate\", with respect to any Person, means"));
        assert!(!defines_a_term("“Safe Harbor” Statement"));
        assert!(!defines_a_term("Definitions"));
        assert!(gives_an_address("Contacts: Investor Relations investor@pepsico.com"));
        assert!(gives_an_address("Available Information at www.sec.gov."));
        assert!(gives_an_address("See https://investor.example.com/filings"));
        assert!(!gives_an_address("Investor Relations Contacts"));
        assert!(!gives_an_address("Revenue @ constant currency"));
        assert!(gives_an_address("942 South Shady Grove Road"));
        assert!(gives_an_address("1 Microsoft Way"));
        assert!(!gives_an_address("2 Summary of Significant Accounting Policies"));
        assert!(!gives_an_address("3 The Way Forward"));
        assert!(!gives_an_address("Road"));
        assert!(breaks_off("\"We are driving game-"));
        assert!(breaks_off("“The acceleration of data"));
        assert!(!breaks_off("“Safe Harbor” Statement"));
        assert!(!breaks_off("Non-GAAP Financial Measures"));
        assert!(!breaks_off("Item 1A. Risk Factors"));
    }

    #[test]
    fn figures_are_no_titles() {
        assert!(numbers_in("$77.9B $23.7B $25.3B $4.94 $5.30") >= FIGURES_NOT_TITLE);
        assert!(numbers_in("Years Ended Dec 26, 2020 Dec 28, 2019 Dec 29, 2018") >= FIGURES_NOT_TITLE);
        assert!(numbers_in("For the fiscal year ended May 31, 2023") < FIGURES_NOT_TITLE);
        assert!(numbers_in("Item 7A. Quantitative and Qualitative Disclosures") < FIGURES_NOT_TITLE);
        assert!(numbers_in("Note 12 – Leases") < FIGURES_NOT_TITLE);
        assert!(states_an_amount("(In Millions) $ 10,571 2020 Operating Income"));
        assert!(states_an_amount("€3.2 billion"));
        assert!(!states_an_amount("Fiscal 2024 Guidance"));
        assert!(!states_an_amount("Non-GAAP $ Measures"));
    }

    #[test]
    fn sentences_are_told_from_titles() {
        assert!(reads_as_sentence(
            "The Company provides guidance on a non-GAAP basis as we cannot predict certain elements"
        ));
        assert!(reads_as_sentence(
            "Consistent with its previous guidance for 2023, the Company continues to expect:"
        ));
        assert!(!reads_as_sentence(
            "Management's Discussion and Analysis of Financial Condition and Results of Operations"
        ));
        assert!(!reads_as_sentence("Prepared Management Remarks and Live Question and Answer Webcast"));
        assert!(!reads_as_sentence("June 2023 quarter:"));
        assert!(!reads_as_sentence(
            "Condensed Consolidated Statement of Income (in millions except per share amounts, unaudited)"
        ));
        assert!(!reads_as_sentence("Liquidity and capital resources"));
    }

    #[test]
    fn large_text_is_a_sentence_only_when_closed_as_one() {
        assert!(large_sentence("Changes in product demand can adversely affect our financial results."));
        assert!(large_sentence(
            "Consistent with its previous guidance for 2023, the Company continues to expect:"
        ));
        // A long title without a stop is still a title.
        assert!(!large_sentence(
            "Reconciliation of adjusted earnings before interest, tax, depreciation and amortization"
        ));
        assert!(!large_sentence("Results of Operations."));
    }

    #[test]
    fn a_continued_title_is_no_new_section() {
        assert!(continues_a_title("CONDENSED CONSOLIDATED STATEMENT OF CASH FLOWS\u{2014}(Continued)"));
        assert!(continues_a_title(
            "Condensed Consolidated Statement of Cash Flows (continued) (in millions)"
        ));
        assert!(!continues_a_title(
            "Reconciliation of GAAP and Non-GAAP Information (continued) Operating Profit"
        ));
        assert!(continues_a_title("Note 4 \u{2013} Leases, continued"));
        assert!(!continues_a_title("Continued Operations"));
        assert!(!continues_a_title("Discontinued Operations"));
        assert!(!continues_a_title("Operations Discontinued"));
    }

    #[test]
    fn a_lower_case_word_carries_a_sentence_on() {
        assert!(continues_sentence("by lower net interest income, partly offset by"));
        assert!(continues_sentence("\u{201c}changing innovation\u{201d} across the industry."));
        assert!(!continues_sentence("eBay Inc. is a global commerce leader"));
        assert!(!continues_sentence("iPhone is the Company's line of smartphones"));
        assert!(!continues_sentence("The Company reported"));
        assert!(!continues_sentence("2023 was a year of"));
    }
}
