//! A line's cells as the table builder reads them: currency signs, brackets and the words of a
//! change kept with their values, values set close together told apart.

use crate::pdf::chars::{is_currency_char, WordGap};
use crate::pdf::layout::{Cell, Line};
use regex::Regex;
use std::sync::OnceLock;

fn value_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?i:(?:up|down)\s+)?[($€£¥]?\s*[($€£¥]?\s*[-–—+]?\s*\d(?:[\d,]*\d)?(?:\.\d+)?\s*[%x)]?\s*\)?%?$|^[$€£¥]?\s*[—–-]+$|^(?i:n/?a|n\.a\.?|nm|flat)$",
        )
        .expect("valid value regex")
    })
}

/// A currency sign standing alone, before its amount.
pub(super) fn is_currency_sign(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(is_currency_char) && cs.next().is_none()
}

/// The word a change is printed with ("up 2%", "down (11)%").
fn is_change_word(s: &str) -> bool {
    s.eq_ignore_ascii_case("up") || s.eq_ignore_ascii_case("down")
}

/// Where the character at byte `at` of a cell's text lies, the text spread evenly over the cell.
fn x_at(c: &Cell, at: usize) -> f32 {
    let total = c.text.chars().count().max(1) as f32;
    c.x0 + (c.x1 - c.x0) * c.text[..at].chars().count() as f32 / total
}

/// Whether a cell's text is a value: a number, an amount, a percentage (also "up 2%", "down
/// (11)%", "flat" as changes are printed), a dash for none ("—", "$ —"), or a range of numbers
/// ("0.03% – 4.78%", "2022 – 2061").
pub(in crate::pdf) fn is_value(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.len() <= 32 && (value_re().is_match(t) || is_range(t))
}

/// Two numbers with an en dash between them, or a hyphen set apart ("0.0% - 55.0%").
fn is_range(t: &str) -> bool {
    let number = |s: &str| {
        let s = s.trim();
        s.chars().any(|c| c.is_ascii_digit()) && value_re().is_match(s)
    };
    t.split_once('–').or_else(|| t.split_once(" - ")).is_some_and(|(a, b)| number(a) && number(b))
}

/// The line's cells, with lone currency signs and brackets joined to their numbers.
pub(super) fn cells(l: &Line) -> Vec<Cell> {
    let raw: Vec<Cell> = if l.cells.is_empty() {
        vec![Cell { x0: l.x0, x1: l.x1, text: l.text.trim().to_string(), loose: l.loose.clone() }]
    } else {
        l.cells.clone()
    };
    let mut out: Vec<Cell> = Vec::with_capacity(raw.len());
    let mut pending: Option<Cell> = None;
    for c in raw {
        let t = c.text.trim().to_string();
        let t = t.as_str();
        if is_currency_sign(t) || matches!(t, "(" | "$(" | "($") {
            // Two signs in a row are two columns' (their amounts set on another baseline).
            if is_currency_sign(t) {
                out.extend(pending.take_if(|p| is_currency_sign(p.text.trim())));
            }
            pending = Some(match pending.take() {
                Some(mut p) => {
                    p.text.push_str(t);
                    p
                }
                None => c,
            });
            continue;
        }
        let mut c = c;
        if let Some(p) = pending.take() {
            if is_currency_sign(p.text.trim()) && t.starts_with(is_currency_char) {
                // A sign before a value that has its own is another column's.
                out.push(p);
            } else {
                // The sign stands apart at the column's left; the value's own extent places it.
                prefix(&mut c, p.text.trim());
            }
        }
        if matches!(t, ")" | "%" | ")%") {
            // A closing bracket or percent sign closes the value before it; over a column of
            // percentages a lone "%" is that column's header.
            if let Some(last) = out.last_mut().filter(|l| is_value(&format!("{}{t}", l.text.trim()))) {
                last.text.push_str(t);
                last.x1 = c.x1;
                continue;
            }
        }
        out.push(c);
    }
    if let Some(p) = pending {
        out.push(p);
    }
    // "3,587.5 3,262.8": values set closer than a fragment break are cells of their own, placed
    // by their share of the characters.
    let mut split: Vec<Cell> = Vec::with_capacity(out.len());
    // A currency sign ending one fragment ("down (11)% $") belongs to the value that opens the
    // next ("(1,316) down (6)%").
    // So does one ending a row label ("Short-term investments $") where a value without a sign
    // follows; where none does, its value is on another baseline, and the sign a cell of its own.
    let mut carry: Option<String> = None;
    let mut out = out.into_iter().peekable();
    while let Some(mut c) = out.next() {
        if let Some(sign) = carry.take() {
            prefix(&mut c, &sign);
        }
        if let Some((label, values)) = label_then_values(&c) {
            split.push(label);
            c = values;
        }
        let words: Vec<&str> = c.text.split_whitespace().collect();
        let mut glued: Vec<String> = join_ranges(&c, glue_values(&words));
        let mut own_sign: Option<Cell> = None;
        if glued.len() >= 2 && glued.last().is_some_and(|w| is_currency_sign(w)) {
            let sign = glued.pop().unwrap_or_default();
            let values_before = glued.iter().all(|w| is_value(w));
            let value_next = out
                .peek()
                .is_some_and(|n| is_value(&n.text) && !n.text.trim_start().starts_with(is_currency_char));
            let cut = c.text.trim_end().len() - sign.len();
            // The value ends at its last character, not at the space before the sign.
            let kept = c.text.get(..cut).map_or(0, |t| t.trim_end().len());
            if value_next || values_before {
                carry = Some(sign);
            } else {
                own_sign = Some(Cell::new(x_at(&c, cut), c.x1, &sign));
            }
            c.x1 = x_at(&c, kept);
            c.text = c.text[..kept].to_string();
            c.loose.retain(|g| g.at < cut);
        }
        if glued.len() >= 2 && glued.iter().all(|w| is_value(w)) {
            let mut at = 0usize;
            for w in glued {
                let (start, end) = word_span(&c.text, at, &w);
                // A loose gap either side places the value's edge; else its share of the characters.
                let x0 = c.loose.iter().find(|g| g.at == start).map_or_else(|| x_at(&c, start), |g| g.x1);
                let x1 = c
                    .loose
                    .iter()
                    .find(|g| g.at >= end && c.text.get(end..g.at).is_some_and(|t| t.trim().is_empty()))
                    .map_or_else(
                        || {
                            x0 + (c.x1 - c.x0) * w.chars().count() as f32
                                / c.text.chars().count().max(1) as f32
                        },
                        |g| g.x0,
                    );
                at = end;
                split.push(Cell::new(x0, x1, w));
            }
        } else {
            split.push(c);
        }
        split.extend(own_sign);
    }
    for c in &mut split {
        if is_value(&c.text) {
            c.text = compact_value(&c.text);
            c.loose.clear();
        }
    }
    split
}

/// A row label and the values after it, set closer than a fragment break but a loose gap apart
/// ("Earnings (Loss) Before Interest and Taxes   $   (4,841)"): parted at the first loose gap
/// after which every word is a value, one an amount at least, where the label before it ends in
/// a word.
fn label_then_values(c: &Cell) -> Option<(Cell, Cell)> {
    let g = c.loose.iter().find(|g| {
        let (before, after) = (c.text.get(..g.at).unwrap_or("").trim_end(), c.text.get(g.at..).unwrap_or(""));
        let words: Vec<&str> = after.split_whitespace().collect();
        let last = before.split_whitespace().last().unwrap_or("");
        let values = glue_values(&words);
        // An amount, not a bare number (a contents line's "1.01  1", a listing's "-m 644").
        let amount = values.iter().any(|w| w.contains(['$', '€', '£', '¥', '(', ',', '%']));
        last.chars().any(char::is_alphabetic)
            && !is_value(last)
            && amount
            && values.iter().all(|w| is_value(w))
    })?;
    let (head, tail) = (c.text.get(..g.at)?, c.text.get(g.at..)?);
    let label = Cell {
        x0: c.x0,
        x1: g.x0,
        text: head.trim_end().to_string(),
        loose: c.loose.iter().filter(|h| h.at < g.at).copied().collect(),
    };
    let values = Cell {
        x0: g.x1,
        x1: c.x1,
        text: tail.to_string(),
        loose: c.loose.iter().filter(|h| h.at > g.at).map(|h| WordGap { at: h.at - g.at, ..*h }).collect(),
    };
    Some((label, values))
}

/// Values of a cell with a dash between them set a word space apart ("0.03% – 4.78%") are one
/// range; a dash a loose gap from either is a column's of its own (none).
fn join_ranges(c: &Cell, glued: Vec<String>) -> Vec<String> {
    let mut at = 0;
    let spans: Vec<(usize, usize)> = glued
        .iter()
        .map(|w| {
            let span = word_span(&c.text, at, w);
            at = span.1;
            span
        })
        .collect();
    let loose_at = |b: usize| c.loose.iter().any(|g| g.at == b);
    let number = |w: &str| w.chars().any(|ch| ch.is_ascii_digit()) && is_value(w);
    let mut out: Vec<String> = Vec::with_capacity(glued.len());
    let mut i = 0;
    while i < glued.len() {
        let range = i + 2 < glued.len()
            && matches!(glued[i + 1].as_str(), "–" | "-")
            && number(&glued[i])
            && number(&glued[i + 2])
            && !loose_at(spans[i + 1].0)
            && !loose_at(spans[i + 2].0);
        if range {
            out.push(format!("{} {} {}", glued[i], glued[i + 1], glued[i + 2]));
            i += 3;
        } else {
            out.push(glued[i].clone());
            i += 1;
        }
    }
    out
}

/// Where `word` (a value glued from words, its spaces dropped: "$ —" → "$—") lies in `text`
/// from byte `from` on: the byte range from its first character to its last.
fn word_span(text: &str, from: usize, word: &str) -> (usize, usize) {
    let rest = text.get(from..).unwrap_or("");
    let Some(first) = word.chars().next() else { return (from, from) };
    let start = rest.find(first).map_or(from, |i| from + i);
    let mut want = word.chars().filter(|c| !c.is_whitespace()).peekable();
    let mut end = start;
    for (i, ch) in text.get(start..).unwrap_or("").char_indices() {
        match want.peek() {
            None => break,
            Some(&w) if w == ch => {
                want.next();
                end = start + i + ch.len_utf8();
            }
            Some(_) if ch.is_whitespace() => {}
            Some(_) => break,
        }
    }
    (start, end)
}

/// Puts `before` in front of a cell's text, its loose gaps moved along.
fn prefix(c: &mut Cell, before: &str) {
    let text = c.text.trim();
    let shift = before.len() as isize - (c.text.len() - c.text.trim_start().len()) as isize;
    c.text = format!("{before}{text}");
    for g in &mut c.loose {
        g.at = g.at.saturating_add_signed(shift);
    }
}

/// A value without inner spaces ("$ 2.45" → "$2.45"), but for the word of a change ("down
/// (11)%") and either side of a range's dash ("0.03% – 4.78%").
fn compact_value(text: &str) -> String {
    let t = text.trim();
    if is_range(t) {
        let (dash, (a, b)) =
            t.split_once('–').map_or_else(|| ("-", t.split_once(" - ").unwrap_or((t, ""))), |p| ("–", p));
        return format!("{} {dash} {}", compact_value(a), compact_value(b));
    }
    match t.split_once(' ') {
        Some((word, rest)) if is_change_word(word) => {
            format!("{word} {}", rest.split_whitespace().collect::<String>())
        }
        _ => t.split_whitespace().collect(),
    }
}

/// Words of a cell as values: a currency sign, a bracket or the word of a change alone joins the
/// next word, a closing bracket or percent sign the previous ("$ 2.45" → "$2.45", "12.6 %" →
/// "12.6%", "down (11)%").
fn glue_values(words: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for w in words {
        if is_currency_sign(w) || matches!(*w, "(" | "$(") {
            pending.push_str(w);
        } else if pending.is_empty() && is_change_word(w) {
            // The word of a change ("down (11)%").
            pending = format!("{w} ");
        } else if matches!(*w, ")" | "%" | ")%") && pending.is_empty() && !out.is_empty() {
            if let Some(last) = out.last_mut() {
                last.push_str(w);
            }
        } else {
            out.push(format!("{pending}{w}"));
            pending.clear();
        }
    }
    if !pending.is_empty() {
        out.push(pending);
    }
    out
}

/// A year as a column header prints it: "2023", "2022 (1)", "Fiscal 2021".
pub(super) fn is_year(text: &str) -> bool {
    let t = text.trim();
    let digits: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
    digits.len() == 4
        && (digits.starts_with("19") || digits.starts_with("20"))
        && !t.contains(',')
        && !t.contains('$')
}
