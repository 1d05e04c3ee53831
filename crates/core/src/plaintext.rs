//! Structure inference for plain text: headings from numbering and layout.
//!
//! Recognised heading signals, strongest first:
//! - a numbering label that opens the line and ends at a tab, as in the ADGM rulebooks
//!   (`2.1.3.(1)<TAB>text`, `Part 6.Chapter 3.61.(4)<TAB>text`, `1.2.1.Guidance.1.<TAB>text`);
//! - a line underlined (or over- and underlined) with `=`, `-`, `*`, `~`, `^`, `#` (setext / reST);
//! - a numbered line (`1.1. Scope`, `SEC. 101. SHORT TITLE.`, `PART 2`) standing alone, whose number
//!   continues the document's numbering (so "see Section 4.9" opening a wrapped line never counts);
//! - a short all-caps line standing alone.
//!
//! Levels come from nesting: a numbered heading sits under the nearest open heading whose label is a
//! prefix of its own (`2.1.3.(1)` under `2.1.3` under `2.1` under `2`) or whose container ranks above
//! it (Part over Chapter over Section); unnumbered styled headings nest by style order.

use crate::model::{BlockKind, DocumentBuilder};
use crate::numbering::{split_heading_number, Container, Label};

/// Parses plain text into blocks appended to `builder`.
///
/// ```
/// use folio_core::model::{DocumentBuilder, Format, BlockKind};
/// let text = "1.\tINTRODUCTION\n1.1\tScope\n1.1.1\tThese Rules apply to every Person.\n";
/// let mut b = DocumentBuilder::new(Format::Text, "GEN", text.as_bytes());
/// folio_core::plaintext::parse_into(text, &mut b);
/// let doc = b.finish();
/// let levels: Vec<_> = doc.blocks.iter().filter_map(|b| b.kind.heading_level()).collect();
/// assert_eq!(levels, vec![1, 2, 3]);
/// ```
pub fn parse_into(text: &str, builder: &mut DocumentBuilder) {
    let lines: Vec<&str> = text.lines().collect();
    let layout = Layout::measure(&lines);
    let mut parser = Parser { lines: &lines, layout, out: Vec::new(), nest: Nesting::default() };
    parser.run();
    let mut items = parser.out;
    if let Some(title) = take_title(&mut items) {
        if builder.title().is_empty() {
            builder.set_title(title);
        }
    }
    for item in items {
        builder.push(item.kind, &item.text, None);
    }
}

/// The document title, when the first heading is one: unnumbered, at the top level, before any
/// numbered heading, with numbered headings after it. It becomes a paragraph (its text stays in the document) and, where
/// every later heading sat under it, the others move up a level.
fn take_title(items: &mut [Item]) -> Option<String> {
    let first = items.iter().position(|i| i.kind.is_heading())?;
    let BlockKind::Heading { level: 1, number: None } = items[first].kind else { return None };
    let numbered_later =
        items[first + 1..].iter().any(|i| matches!(&i.kind, BlockKind::Heading { number: Some(_), .. }));
    if !numbered_later {
        return None;
    }
    let title = items[first].text.clone();
    items[first].kind = BlockKind::Paragraph;
    let all_under = items[first + 1..].iter().all(|i| i.kind.heading_level().is_none_or(|l| l >= 2));
    if all_under {
        for item in items[first + 1..].iter_mut() {
            if let BlockKind::Heading { level, .. } = &mut item.kind {
                *level -= 1;
            }
        }
    }
    Some(title)
}

#[derive(Debug)]
struct Item {
    kind: BlockKind,
    text: String,
}

/// Document-wide layout facts.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Typical wrap width of hard-wrapped text; `None` when each line is a paragraph.
    wrap: Option<usize>,
    /// Whether lines are `LABEL<TAB>text` records (ADGM style).
    tab_labels: bool,
    /// Whether the document marks its headings by underlining; then numbered lines that are not
    /// underlined are list items, not headings.
    underlined: bool,
}

impl Layout {
    fn measure(lines: &[&str]) -> Layout {
        let mut lens: Vec<usize> =
            lines.iter().map(|l| l.trim_end().chars().count()).filter(|&n| n > 0).collect();
        lens.sort_unstable();
        let p90 = lens.get(lens.len() * 9 / 10).copied().unwrap_or(0);
        let wrap = (p90 > 0 && p90 <= 160).then_some(p90);
        let labelled = lines.iter().take(5000).filter(|l| tab_label(l).is_some()).count();
        let nonblank = lines.iter().take(5000).filter(|l| !l.trim().is_empty()).count();
        let underlined = lines
            .windows(2)
            .filter(|w| {
                !w[0].trim().is_empty()
                    && underline_char(w[0].trim()).is_none()
                    && underline_char(w[1].trim()).is_some()
            })
            .count()
            >= 3;
        Layout { wrap, tab_labels: labelled >= 3 && labelled * 20 >= nonblank, underlined }
    }
}

/// What a heading carries for nesting.
#[derive(Debug, Clone)]
struct Open {
    label: Option<Label>,
    /// Style rank for unnumbered or underlined headings: smaller is higher.
    style: Option<u8>,
}

#[derive(Debug, Default)]
struct Nesting {
    stack: Vec<Open>,
    /// Underline characters in order of first appearance (reST convention).
    underline_order: Vec<(char, bool)>,
    /// Labels already used as headings, as id strings.
    seen: std::collections::HashSet<String>,
    /// Whether any numbered heading was accepted yet.
    numbered_started: bool,
    /// Container kinds of the explicit labels accepted so far.
    kinds_seen: std::collections::HashSet<Container>,
    /// The last numbered heading placed at the top level: the running numbering of the document's
    /// divisions ("1.", "2.", "3." or "Part 1", "Part 2").
    last_top: Option<Label>,
    /// The value of the last numbered record taken for a list item ("1." in a rule's list), so the
    /// rest of its list ("2.", "3.") follows it even where a value happens to continue the top level.
    stray_last: Option<String>,
}

impl Nesting {
    fn style_for_underline(&mut self, ch: char, overline: bool) -> u8 {
        let key = (ch, overline);
        let pos = match self.underline_order.iter().position(|k| *k == key) {
            Some(p) => p,
            None => {
                self.underline_order.push(key);
                self.underline_order.len() - 1
            }
        };
        pos as u8
    }

    /// Places a heading and returns its level (1-based).
    fn place(&mut self, head: Open) -> u8 {
        let misplaced_note = head.label.as_ref().is_some_and(|l| self.is_misplaced_note(l));
        while let Some(top) = self.stack.last() {
            let is_note = top.label.as_ref().is_some_and(is_note);
            if misplaced_note && !is_note || !misplaced_note && is_ancestor(top, &head) {
                break;
            }
            self.stack.pop();
        }
        if let (true, Some(l)) = (self.stack.is_empty(), &head.label) {
            self.last_top = Some(l.clone());
        }
        self.stray_last = None;
        if let Some(l) = &head.label {
            self.seen.insert(l.section_id());
            if l.segments.iter().any(|s| s.explicit) {
                self.kinds_seen.insert(l.container());
            }
            self.numbered_started = true;
        }
        self.stack.push(head);
        self.stack.len().min(u8::MAX as usize) as u8
    }

    /// A guidance note whose rule was closed before it ("8.4.1.Guidance" printed again after the
    /// heading of 8.5): it belongs to the rule it follows, not back under 8.4.1.
    fn is_misplaced_note(&self, label: &Label) -> bool {
        let Some(at) = label.segments.iter().position(|s| s.container == Container::Guidance) else {
            return false;
        };
        let base: Vec<&str> =
            label.segments[..at].iter().flat_map(|s| s.tokens.iter().map(String::as_str)).collect();
        if base.is_empty() {
            return false;
        }
        let open = self.stack.iter().any(|o| o.label.as_ref().is_some_and(|l| l.tokens() == base));
        let base_id = Label::parse(&base.join(".")).map(|l| l.section_id());
        !open && base_id.is_some_and(|id| self.seen.contains(&id))
    }

    /// Whether a numbered heading would find no open heading to sit under.
    fn would_be_top(&self, label: &Label) -> bool {
        let head = Open { label: Some(label.clone()), style: None };
        !self.stack.iter().any(|open| is_ancestor(open, &head))
    }

    /// Whether a label continues the running numbering of the top level: the first division, the
    /// next one ("4." after "3.", "Part 3" after "Part 2"), or the first of a new kind of division
    /// ("Part 1" or "APP 1" after the chapters).
    fn continues_top(&self, label: &Label) -> bool {
        let Some(last) = &self.last_top else { return true };
        let (first, prev) = (&label.segments[0], &last.segments[0]);
        if first.explicit
            && first.container != Container::Guidance
            && (!prev.explicit || first.container != prev.container)
        {
            return true;
        }
        match (first.tokens.first(), prev.tokens.first()) {
            (Some(v), Some(p)) => first.container == prev.container && is_successor(p, v),
            _ => false,
        }
    }

    /// A numbered record that breaks the document's numbering: it would sit at the top level without
    /// continuing the divisions there ("1." in a list inside Rule 3.3.41 while the chapters run 1, 2,
    /// 3; "7.2.1" of another rulebook quoted in a guidance numbered "11)", "12)"), or it goes on a
    /// list of such records. It is a numbered paragraph, not a section.
    fn is_stray(&self, label: &Label) -> bool {
        if !self.numbered_started || !self.would_be_top(label) {
            return false;
        }
        let toks = label.tokens();
        if toks.len() == 1 && self.stray_last.as_deref().is_some_and(|p| is_successor(p, toks[0])) {
            return true;
        }
        !self.continues_top(label) && self.implied_division(label).is_none()
    }

    /// Notes a record taken for a list item.
    fn stray(&mut self, label: &Label) {
        self.stray_last = label.tokens().last().map(|t| t.to_string());
    }

    /// The division a numbered heading implies when the document never printed it: "3.2" arriving
    /// at the top level after chapter 2 implies a chapter "3" (its value only).
    fn implied_division(&self, label: &Label) -> Option<String> {
        if !self.numbered_started || label.segments.iter().any(|s| s.explicit) || label.tokens().len() < 2 {
            return None;
        }
        let first = label.tokens()[0].to_string();
        let parent = Label::parse(&first)?;
        (self.would_be_top(label) && !self.seen.contains(&parent.section_id()) && self.continues_top(&parent))
            .then_some(first)
    }

    /// Whether a numbered candidate continues the numbering: it was not used before and it is a
    /// first child or the successor of an open heading (or of one of its ancestors).
    fn plausible(&self, label: &Label) -> bool {
        if self.seen.contains(&label.section_id()) {
            return false;
        }
        if !self.numbered_started {
            return true;
        }
        let toks = label.tokens();
        let Some(last) = toks.last() else { return false };
        let explicit = label.segments.iter().any(|s| s.explicit);
        // First child of an open heading, or the first of a new container kind.
        if is_first_value(last) || explicit && !self.kinds_seen.contains(&label.container()) {
            return true;
        }
        for open in self.stack.iter().rev() {
            let Some(ol) = &open.label else { continue };
            let otoks = ol.tokens();
            if otoks.len() == toks.len()
                && otoks[..otoks.len() - 1] == toks[..toks.len() - 1]
                && is_successor(otoks[otoks.len() - 1], last)
            {
                return true;
            }
            if explicit && ol.container() == label.container() && otoks.len() == toks.len() {
                return is_successor(otoks[otoks.len() - 1], last);
            }
        }
        false
    }
}

/// A guidance note or one of its paragraphs ("8.4.1.Guidance", "3.3.41.(3).Guidance.2.").
fn is_note(label: &Label) -> bool {
    label.segments.iter().any(|s| s.container == Container::Guidance)
}

fn is_first_value(v: &str) -> bool {
    matches!(v, "1" | "a" | "i" | "0")
}

fn is_successor(prev: &str, next: &str) -> bool {
    match (prev.parse::<u32>(), next.parse::<u32>()) {
        (Ok(p), Ok(n)) => n > p && n <= p + 3,
        _ => {
            let (p, n) = (prev.as_bytes(), next.as_bytes());
            if p.len() == 1 && n.len() == 1 {
                n[0] > p[0] && n[0] <= p[0] + 3
            } else {
                // "203" then "203a": a suffixed successor.
                next.starts_with(prev) && next.len() == prev.len() + 1
            }
        }
    }
}

/// Whether `a` (an open heading) may contain `h`.
fn is_ancestor(a: &Open, h: &Open) -> bool {
    match (&a.label, &h.label) {
        (Some(al), Some(hl)) => {
            if is_prefix(al, hl) {
                return true;
            }
            let (ar, hr) = (container_rank(al), container_rank(hl));
            if ar < hr {
                return true;
            }
            match (a.style, h.style) {
                (Some(x), Some(y)) if ar == hr => x < y && !same_numbering_family(al, hl),
                _ => false,
            }
        }
        (None, Some(_)) => a.style == Some(0) || matches!((a.style, h.style), (Some(x), Some(y)) if x < y),
        (Some(_), None) => match h.style {
            // An underlined unnumbered heading in a numbered document nests by style when it can.
            Some(y) => a.style.is_none_or(|x| x < y),
            None => true,
        },
        (None, None) => matches!((a.style, h.style), (Some(x), Some(y)) if x < y),
    }
}

fn same_numbering_family(a: &Label, b: &Label) -> bool {
    a.segments.first().map(|s| s.container) == b.segments.first().map(|s| s.container)
}

fn is_prefix(a: &Label, h: &Label) -> bool {
    let (at, ht) = (a.tokens(), h.tokens());
    at.len() < ht.len() && ht[..at.len()] == at[..] && container_rank(a) <= container_rank(h)
        || same_path_prefix(a, h)
}

/// "Part 6" is a prefix of "Part 6.50.(1)": compare segments keyword by keyword.
fn same_path_prefix(a: &Label, h: &Label) -> bool {
    if a.segments.len() > h.segments.len() {
        return false;
    }
    let n = a.segments.len();
    for (i, (sa, sh)) in a.segments.iter().zip(&h.segments).enumerate() {
        if sa.container != sh.container {
            return false;
        }
        let last = i + 1 == n;
        if last {
            if !(sa.tokens.len() <= sh.tokens.len() && sh.tokens[..sa.tokens.len()] == sa.tokens[..]) {
                return false;
            }
            return sa.tokens.len() < sh.tokens.len() || h.segments.len() > n;
        } else if sa.tokens != sh.tokens {
            return false;
        }
    }
    false
}

/// The rank of a label's outermost container: smaller contains larger.
fn container_rank(l: &Label) -> u8 {
    match l.segments.first().map(|s| s.container) {
        Some(Container::Title) => 0,
        Some(Container::Schedule | Container::Appendix | Container::Annex) => 1,
        Some(Container::Part) => 2,
        Some(Container::Subpart) => 3,
        Some(Container::Division) => 4,
        Some(Container::Chapter) => 5,
        Some(Container::Article) => 6,
        _ => 7,
    }
}

/// `LABEL<TAB>rest` with a label that is wholly a numbering label.
fn tab_label(line: &str) -> Option<(&str, &str)> {
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
fn compound_label(line: &str) -> Option<(&str, &str)> {
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

fn is_list_marker_label(label: &str) -> bool {
    let l = label.trim();
    let letters_paren =
        l.ends_with(')') && l.len() <= 5 && l[..l.len() - 1].chars().all(|c| c.is_ascii_lowercase());
    letters_paren
        || (l.starts_with('(') && l.ends_with(')') && l.len() <= 8)
        || (l.len() <= 4 && l.ends_with('.') && l[..l.len() - 1].chars().all(|c| c.is_ascii_lowercase()))
}

/// "/Table Start", "\\Table End": the table markers of the ADGM texts.
fn is_table_marker(line: &str, which: &str) -> bool {
    line.trim_start_matches(['/', '\\']).trim().eq_ignore_ascii_case(which) && line.starts_with(['/', '\\'])
}

/// A line of one repeated punctuation character, length ≥ 3.
fn underline_char(line: &str) -> Option<char> {
    let t = line.trim_end();
    let mut chars = t.chars();
    let c = chars.next()?;
    if !matches!(c, '=' | '-' | '*' | '~' | '^' | '#' | '+' | '"' | '_') || t.chars().count() < 3 {
        return None;
    }
    chars.all(|x| x == c).then_some(c)
}

fn bullet(line: &str) -> Option<(&str, &str)> {
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

fn is_caps_title(line: &str) -> bool {
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
fn is_title_like(rest: &str) -> bool {
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
fn run_in_title(rest: &str) -> Option<(&str, &str)> {
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

struct Parser<'a> {
    lines: &'a [&'a str],
    layout: Layout,
    out: Vec<Item>,
    nest: Nesting,
}

impl Parser<'_> {
    fn blank(&self, i: usize) -> bool {
        self.lines.get(i).is_none_or(|l| l.trim().is_empty())
    }

    fn heading(&mut self, label: Option<Label>, label_text: Option<&str>, title: &str, style: Option<u8>) {
        let number = label_text.map(|s| s.trim().to_string());
        let level = self.nest.place(Open { label, style });
        let text = match (&number, title.trim()) {
            (Some(n), "") => n.clone(),
            (Some(n), t) => format!("{n} {t}"),
            (None, t) => t.to_string(),
        };
        self.out.push(Item { kind: BlockKind::Heading { level, number }, text });
    }

    fn para(&mut self, kind: BlockKind, text: String) {
        if !text.trim().is_empty() {
            self.out.push(Item { kind, text });
        }
    }

    fn run(&mut self) {
        let n = self.lines.len();
        let mut i = 0;
        while i < n {
            let line = self.lines[i];
            let t = line.trim();
            if t.is_empty() {
                i += 1;
                continue;
            }
            // Tables marked as in the ADGM texts.
            if is_table_marker(t, "table start") {
                let mut j = i + 1;
                let mut rows = Vec::new();
                while j < n && !is_table_marker(self.lines[j].trim(), "table end") {
                    if !self.lines[j].trim().is_empty() {
                        rows.push(self.lines[j].trim_end());
                    }
                    j += 1;
                }
                self.para(BlockKind::Table { header_rows: 0 }, rows.join("\n"));
                i = j + 1;
                continue;
            }
            // Over- and underlined title: "****\nTitle\n****".
            if let Some(c) = underline_char(t) {
                if i + 2 < n && underline_char(self.lines[i + 2].trim()) == Some(c) && !self.blank(i + 1) {
                    let title = self.lines[i + 1].trim();
                    let style = self.nest.style_for_underline(c, true);
                    self.numbered_or_plain(title, Some(style));
                    i += 3;
                    continue;
                }
                if c == '-' || c == '*' || c == '_' {
                    // A horizontal rule.
                    i += 1;
                    continue;
                }
            }
            // Underlined title.
            if i + 1 < n && !self.layout.tab_labels {
                if let Some(c) = underline_char(self.lines[i + 1].trim()) {
                    let ulen = self.lines[i + 1].trim().chars().count();
                    let tlen = t.chars().count();
                    if ulen + 2 >= tlen && ulen <= tlen + 4 && bullet(line).is_none_or(|_| ulen >= tlen) {
                        let style = self.nest.style_for_underline(c, false);
                        self.numbered_or_plain(t, Some(style));
                        i += 2;
                        continue;
                    }
                }
            }
            // ADGM record lines.
            if let Some((label, rest)) =
                tab_label(line).or_else(|| if self.layout.tab_labels { compound_label(line) } else { None })
            {
                if is_list_marker_label(label) {
                    self.para(
                        BlockKind::ListItem { marker: Some(label.to_string()), depth: 0 },
                        format!("{label} {rest}"),
                    );
                } else if let Some(parsed) = Label::parse_full(label) {
                    self.labelled(parsed, label, rest);
                } else {
                    self.para(BlockKind::Paragraph, t.into());
                }
                i += 1;
                continue;
            }
            // Numbered heading standing alone.
            if let Some(h) = split_heading_number(t) {
                let alone_before = i == 0 || self.blank(i - 1) || self.is_heading_line(i - 1);
                let alone_after = self.blank(i + 1) || self.layout.wrap.is_none();
                if alone_before
                    && alone_after
                    && !self.layout.underlined
                    && is_title_like(h.title)
                    && !h.title.is_empty()
                    && self.nest.plausible(&h.parsed)
                {
                    let title = h.title.to_string();
                    let label = h.label.to_string();
                    self.heading(Some(h.parsed), Some(&label), &title, None);
                    i += 1;
                    continue;
                }
            }
            // All-caps title standing alone.
            if is_caps_title(t)
                && (i == 0 || self.blank(i - 1))
                && (self.blank(i + 1) || self.layout.wrap.is_none())
                && bullet(line).is_none()
            {
                self.heading(None, None, t, Some(CAPS_STYLE));
                i += 1;
                continue;
            }
            // List items and paragraphs.
            if let Some((marker, rest)) = bullet(line) {
                let depth = (line.len() - line.trim_start().len()).min(16) / 2;
                let (text, next) = self.gather(i, rest);
                let text = format!("{marker} {text}");
                self.para(BlockKind::ListItem { marker: Some(marker.to_string()), depth: depth as u8 }, text);
                i = next;
                continue;
            }
            let (text, next) = self.gather(i, t);
            self.para(BlockKind::Paragraph, text);
            i = next;
        }
    }

    fn is_heading_line(&self, i: usize) -> bool {
        underline_char(self.lines[i].trim()).is_some()
    }

    /// Joins hard-wrapped continuation lines of the paragraph starting at line `i`.
    fn gather(&self, i: usize, first: &str) -> (String, usize) {
        let mut text = first.trim().to_string();
        let Some(wrap) = self.layout.wrap else { return (text, i + 1) };
        let mut prev_len = self.lines[i].trim_end().chars().count();
        let mut j = i + 1;
        while j < self.lines.len() {
            let l = self.lines[j];
            let t = l.trim();
            if t.is_empty() || prev_len * 10 < wrap * 6 {
                break;
            }
            if bullet(l).is_some() || tab_label(l).is_some() || underline_char(t).is_some() {
                break;
            }
            if j + 1 < self.lines.len() && underline_char(self.lines[j + 1].trim()).is_some() {
                break;
            }
            join_wrapped(&mut text, t);
            prev_len = l.trim_end().chars().count();
            j += 1;
        }
        (text, j)
    }

    fn numbered_or_plain(&mut self, title: &str, style: Option<u8>) {
        match split_heading_number(title) {
            Some(h) if !h.title.is_empty() || h.parsed.segments.iter().any(|s| s.explicit) => {
                let (label, rest) = (h.label.to_string(), h.title.to_string());
                self.heading(Some(h.parsed), Some(&label), &rest, style);
            }
            _ => self.heading(None, None, title, style),
        }
    }

    /// An ADGM record: a heading for the label, and the rest as its title or its first paragraph.
    fn labelled(&mut self, parsed: Label, label: &str, rest: &str) {
        if self.nest.is_stray(&parsed) {
            self.nest.stray(&parsed);
            let text = if rest.is_empty() { label.to_string() } else { format!("{label} {rest}") };
            self.para(BlockKind::ListItem { marker: Some(label.to_string()), depth: 0 }, text);
            return;
        }
        if let Some(value) = self.nest.implied_division(&parsed) {
            let implied = Label::parse(&value);
            self.heading(implied, Some(&value), "", None);
        }
        if rest.is_empty() || is_title_like(rest) && !looks_like_rule_text(rest) {
            self.heading(Some(parsed), Some(label), rest, None);
        } else if let Some((title, body)) = run_in_title(rest) {
            self.heading(Some(parsed), Some(label), &format!("{title}."), None);
            self.para(BlockKind::Paragraph, body.to_string());
        } else {
            self.heading(Some(parsed), Some(label), "", None);
            self.para(BlockKind::Paragraph, rest.to_string());
        }
    }
}

/// Short rule text ("Nothing in this Rule applies.") that is still a sentence, not a title.
fn looks_like_rule_text(rest: &str) -> bool {
    let t = rest.trim();
    t.ends_with(['.', ':', ';']) && t.split_whitespace().skip(1).any(|w| w.starts_with(char::is_lowercase))
        || t.split_whitespace().any(|w| matches!(w, "must" | "shall" | "may" | "is" | "are" | "means"))
}

const CAPS_STYLE: u8 = 50;

/// Appends a wrapped line, joining a hyphenated word end.
fn join_wrapped(text: &mut String, next: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Document, Format};

    fn parse(text: &str) -> Document {
        let mut b = DocumentBuilder::new(Format::Text, "t", text.as_bytes());
        parse_into(text, &mut b);
        b.finish()
    }

    fn headings(d: &Document) -> Vec<(u8, String)> {
        d.blocks
            .iter()
            .filter_map(|b| b.kind.heading_level().map(|l| (l, d.block_text(b).to_string())))
            .collect()
    }

    #[test]
    fn adgm_records_nest_by_label() {
        let text = "1.\tINTRODUCTION\n1.1\tJurisdiction\n1.1.1\t\n1.1.1.(1)\tThe AML Rulebook is made.\n\
                    (a)\tevery person; and\n1.1.1.(2)\tNothing applies.\n1.1.1.Guidance\t\n\
                    1.1.1.Guidance.1.\tChapters 7 to 9 deal with customers.\n2.\tOVERVIEW\n";
        let d = parse(text);
        let h = headings(&d);
        assert_eq!(
            h,
            vec![
                (1, "1. INTRODUCTION".into()),
                (2, "1.1 Jurisdiction".into()),
                (3, "1.1.1".into()),
                (4, "1.1.1.(1)".into()),
                (4, "1.1.1.(2)".into()),
                (4, "1.1.1.Guidance".into()),
                (5, "1.1.1.Guidance.1.".into()),
                (1, "2. OVERVIEW".into()),
            ]
        );
        assert!(d
            .blocks
            .iter()
            .any(|b| matches!(&b.kind, BlockKind::ListItem { marker: Some(m), .. } if m == "(a)")));
    }

    #[test]
    fn records_that_break_the_numbering_are_list_items() {
        // A lone "1." inside a guidance note, letters inside a rule's list, a list 1–4 whose "3."
        // happens to follow chapter "2.", and an address line: none is a section.
        let text = "1.\tINTRODUCTION\n1.1\tScope\n2.\tRULES\n2.1\tGeneral\n2.1.1\tA firm must:\n\
                    (a)\tact; or\nA.\ta portfolio trade; or\nB.\ta weighted trade.\n\
                    2.1.1.Guidance.1\tScope of governance\n1.\tGovernance is a framework which:\n\
                    2.\tpromotes sound management;\n3.\tprotects Customers; and\n4.\tplaces responsibility.\n\
                    2.1.1.Guidance.2.\tMany requirements apply.\n2.1.2\tThe address is:\nP.O. Box 111999\n\
                    2.1.3\tTimely notification.\n";
        let d = parse(text);
        let h = headings(&d);
        let got: Vec<(u8, &str)> = h.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, "1. INTRODUCTION"),
                (2, "1.1 Scope"),
                (1, "2. RULES"),
                (2, "2.1 General"),
                (3, "2.1.1"),
                (4, "2.1.1.Guidance.1 Scope of governance"),
                (4, "2.1.1.Guidance.2."),
                (3, "2.1.2"),
                (3, "2.1.3"),
            ]
        );
    }

    #[test]
    fn a_division_the_text_never_printed_is_implied() {
        // Chapter 3's own heading is missing from the text: "3.2" still nests under a "3".
        let text = "1.\tINTRODUCTION\n1.1\tScope\n2.\tCLIENTS\n2.1\tGeneral\n\
                    3.2\tCommunication of Information\n3.2.1\tA firm must be clear.\n3.3\tKey Information\n";
        let h = headings(&parse(text));
        let got: Vec<(u8, &str)> = h.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            got[4..],
            [(1, "3"), (2, "3.2 Communication of Information"), (3, "3.2.1"), (2, "3.3 Key Information")]
        );
    }

    #[test]
    fn a_note_printed_after_the_next_heading_stays_with_the_rule_it_follows() {
        let text = "8.\tPERMISSIONS\n8.4\tWithdrawal\n8.4.1\tA firm must apply.\n\
                    8.4.1.Guidance\tWhen considering a withdrawal, the Regulator will look.\n\
                    8.5\tChanges to an Approved Person status\n\
                    8.4.1.Guidance\tThis Rule addresses requests regarding Approved Persons.\n\
                    8.5.1\tAn application must be made.\n";
        let h = headings(&parse(text));
        let got: Vec<(u8, &str)> = h.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, "8. PERMISSIONS"),
                (2, "8.4 Withdrawal"),
                (3, "8.4.1"),
                (4, "8.4.1.Guidance"),
                (2, "8.5 Changes to an Approved Person status"),
                (3, "8.4.1.Guidance"),
                (3, "8.5.1"),
            ]
        );
    }

    #[test]
    fn parts_and_chapters() {
        let text = "Part 1\tThe Regulator\nPart 1.Chapter 1\tPowers\nPart 1.Chapter 1.1.\tPowers of the Regulator\n\
                    Part 1.Chapter 1.1.(1)\tThe Regulator has functions.\nPart 2\tGeneral\nPart 2.5.\tTitle\n";
        let h = headings(&parse(text));
        let levels: Vec<u8> = h.iter().map(|x| x.0).collect();
        assert_eq!(levels, vec![1, 2, 3, 4, 1, 2]);
    }

    #[test]
    fn setext_numbered_text() {
        let text = "Debian Policy Manual\n********************\n\nIntro text here.\n\n\
                    1. About this manual\n********************\n\n\n1.1. Scope\n==========\n\nThis manual describes\nthe policy.\n\n\
                    1. Russ Allbery\n\n2. Sean Whitton\n\n1.2. New versions\n==================\n\nText.\n\n\
                    2. The Debian Archive\n*********************\n\nMore.\n";
        let h = headings(&parse(text));
        assert_eq!(
            h,
            vec![
                (1, "1. About this manual".into()),
                (2, "1.1. Scope".into()),
                (2, "1.2. New versions".into()),
                (1, "2. The Debian Archive".into()),
            ]
        );
        assert_eq!(parse(text).meta.title, "t", "a title given by the converter is kept");
        let mut b = DocumentBuilder::new(Format::Text, "", text.as_bytes());
        parse_into(text, &mut b);
        assert_eq!(b.finish().meta.title, "Debian Policy Manual");
    }

    #[test]
    fn cross_reference_opening_a_line_is_no_heading() {
        let text = "1 Scope\n\nThis applies as set out in\nSection 4.9 of the rules and also in\nthe schedules.\n\n2 Terms\n\nText.\n";
        let h = headings(&parse(text));
        assert_eq!(h.len(), 2, "{h:?}");
    }

    #[test]
    fn sec_headings_and_caps() {
        let text =
            "TITLE I—GENERAL PROVISIONS\n\nSEC. 101. SHORT TITLE.\n\nThis Act may be cited as the Act.\n\n\
                    SEC. 102. DEFINITIONS.\n\nIn this Act:\n";
        let h = headings(&parse(text));
        assert_eq!(h.len(), 3, "{h:?}");
        assert_eq!(h[1].0, 2);
    }

    #[test]
    fn hyphenated_wrap_joins() {
        let text = "This is a long line of text that wraps at about sixty or so charac-\nters and goes on for a while longer than that\nend.\n";
        let d = parse(text);
        assert!(d.text.contains("characters"), "{}", d.text);
    }
}
