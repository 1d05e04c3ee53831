//! What a single line is: a tab-ended or compound numbering label, an underline, a bullet, a table marker, an all-caps or run-in title.

use super::*;

/// `LABEL<TAB>rest` with a label that is wholly a numbering label.
pub(super) fn tab_label(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start_matches([' ', '\u{feff}']);
    let (head, rest) = trimmed.split_once('\t')?;
    let head = head.trim().trim_end_matches(':');
    if head.is_empty() || head.len() > 120 {
        return None;
    }
    Label::parse_full(head)?;
    Some((head, rest.trim()))
}

/// A first token like `PART 3.6.1.4.Rejection_of_an_application.Guidance.1` followed by a space.
pub(super) fn compound_label(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start();
    // Allow a leading keyword and its number: "PART 3.6.1.4.x y" → first two words.
    let mut end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    if Container::from_keyword(&trimmed[..end]).is_some() {
        let rest = &trimmed[end..];
        let next = rest.trim_start();
        let skip = rest.len() - next.len();
        end += skip + next.find(char::is_whitespace).unwrap_or(next.len());
    }
    let mut head = &trimmed[..end];
    // A record label carries a number ("P.O. Box" is an address) and opens with it ("(VER08.040723)"
    // is a version note).
    if !head.contains('.')
        || head.len() < 3
        || !head.contains(|c: char| c.is_ascii_digit())
        || head.starts_with('(')
    {
        return None;
    }
    // "PART 1.INTRODUCTION": a caps title glued to its label.
    if let Some((label, last)) = head.rsplit_once('.') {
        if last.len() >= 3
            && last.chars().all(|c| c.is_uppercase() || c == '_')
            && Label::parse_full(label).is_some()
        {
            head = label;
            end = label.len();
        }
    }
    let label = Label::parse_full(head)?;
    let rest = trimmed[end..].trim_start_matches('.').trim();
    // "Rule 7.2.1 supports the operation of …", "Rules 12.8, 12.10 and 12.12 require …": a sentence
    // that opens with a reference. A record label's keyword is printed in capitals ("PART 2.3").
    let keyword = &trimmed[..trimmed.find(char::is_whitespace).unwrap_or(0)];
    let sentence_case = keyword.chars().skip(1).any(char::is_lowercase);
    if sentence_case && (head.ends_with(',') || rest.starts_with(|c: char| c.is_lowercase())) {
        return None;
    }
    (label.depth() >= 2 || rest.chars().all(|c| !c.is_lowercase())).then_some((head, rest))
}

pub(super) fn is_list_marker_label(label: &str) -> bool {
    let l = label.trim();
    let letters_paren =
        l.ends_with(')') && l.len() <= 5 && l[..l.len() - 1].chars().all(|c| c.is_ascii_lowercase());
    letters_paren
        || (l.starts_with('(') && l.ends_with(')') && l.len() <= 8)
        || (l.len() <= 4 && l.ends_with('.') && l[..l.len() - 1].chars().all(|c| c.is_ascii_lowercase()))
}

/// "/Table Start", "\\Table End": the table markers of the ADGM texts.
pub(super) fn is_table_marker(line: &str, which: &str) -> bool {
    line.trim_start_matches(['/', '\\']).trim().eq_ignore_ascii_case(which) && line.starts_with(['/', '\\'])
}

/// A line of one repeated punctuation character, length ≥ 3.
pub(super) fn underline_char(line: &str) -> Option<char> {
    let t = line.trim_end();
    let mut chars = t.chars();
    let c = chars.next()?;
    if !matches!(c, '=' | '-' | '*' | '~' | '^' | '#' | '+' | '"' | '_') || t.chars().count() < 3 {
        return None;
    }
    chars.all(|x| x == c).then_some(c)
}

pub(super) fn bullet(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    for m in ["• ", "* ", "- ", "◦ ", "▪ ", "•\t", "·\t", "o\t", "\u{f0b7}\t"] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some((m.trim(), rest));
        }
    }
    // "(a) text", "(iv)\ttext", "a. text", "1) text", "12. text"
    let end = t.find([' ', '\t'])?;
    let head = &t[..end];
    let inner = head.trim_start_matches('(').trim_end_matches([')', '.']);
    let shaped = (head.starts_with('(') && head.ends_with(')'))
        || head.ends_with(')')
        || (head.ends_with('.') && inner.len() <= 3);
    if shaped && !inner.is_empty() && inner.len() <= 5 && inner.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Some((head, t[end..].trim_start()));
    }
    None
}

pub(super) fn is_caps_title(line: &str) -> bool {
    let t = line.trim();
    let n = t.chars().count();
    if !(3..=90).contains(&n) || t.ends_with([',', ';']) {
        return false;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let upper = t.chars().filter(|c| c.is_uppercase()).count();
    letters >= 3 && upper * 10 >= letters * 9 && t.split_whitespace().count() <= 12
}

/// Whether the rest of a numbered line reads as a title rather than a sentence.
pub(super) fn is_title_like(rest: &str) -> bool {
    let t = rest.trim();
    if t.is_empty() {
        return true;
    }
    if is_caps_title(t) {
        return true;
    }
    let words = t.split_whitespace().count();
    if words > 14 || t.chars().count() > 110 {
        return false;
    }
    if t.ends_with([',', ';']) {
        return false;
    }
    // Sentences end with a full stop and have lower-case words; titles rarely do both.
    let first_upper = t.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    let ends_sentence = t.ends_with('.') && words > 6;
    first_upper && !ends_sentence
}

/// Splits "Title. Sentence one ..." (ADGM rules with a run-in title): a short capitalised run before
/// the first full stop.
pub(super) fn run_in_title(rest: &str) -> Option<(&str, &str)> {
    let dot = rest.find(". ")?;
    let head = &rest[..dot];
    let words = head.split_whitespace().count();
    if (1..=8).contains(&words)
        && head.chars().next().is_some_and(char::is_uppercase)
        && !head.contains([',', ';', ':'])
        && rest[dot + 2..].chars().next().is_some_and(|c| c.is_uppercase() || c == '(' || c == '"')
    {
        Some((head, rest[dot + 2..].trim()))
    } else {
        None
    }
}

/// Short rule text ("Nothing in this Rule applies.") that is still a sentence, not a title.
pub(super) fn looks_like_rule_text(rest: &str) -> bool {
    let t = rest.trim();
    t.ends_with(['.', ':', ';']) && t.split_whitespace().skip(1).any(|w| w.starts_with(char::is_lowercase))
        || t.split_whitespace().any(|w| matches!(w, "must" | "shall" | "may" | "is" | "are" | "means"))
}

pub(super) const CAPS_STYLE: u8 = 50;

/// Appends a wrapped line, joining a hyphenated word end.
pub(super) fn join_wrapped(text: &mut String, next: &str) {
    let ends_hyphen = text.ends_with('-')
        && text[..text.len() - 1].chars().last().is_some_and(char::is_alphabetic)
        && next.chars().next().is_some_and(char::is_lowercase);
    if ends_hyphen {
        text.pop();
    } else {
        text.push(' ');
    }
    text.push_str(next);
}
