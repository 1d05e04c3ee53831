//! Nesting: where a numbered heading sits among the open ones (label prefixes, container ranks, successors), and when a number is a paragraph's, not a heading's.

use super::*;

/// What a heading carries for nesting.
#[derive(Debug, Clone)]
pub(super) struct Open {
    pub(super) label: Option<Label>,
    /// Style rank for unnumbered or underlined headings: smaller is higher.
    pub(super) style: Option<u8>,
}

#[derive(Debug, Default)]
pub(super) struct Nesting {
    pub(super) stack: Vec<Open>,
    /// Underline characters in order of first appearance (reST convention).
    pub(super) underline_order: Vec<(char, bool)>,
    /// Labels already used as headings, as id strings.
    pub(super) seen: std::collections::HashSet<String>,
    /// Whether any numbered heading was accepted yet.
    pub(super) numbered_started: bool,
    /// Container kinds of the explicit labels accepted so far.
    pub(super) kinds_seen: std::collections::HashSet<Container>,
    /// The last numbered heading placed at the top level: the running numbering of the document's
    /// divisions ("1.", "2.", "3." or "Part 1", "Part 2").
    pub(super) last_top: Option<Label>,
    /// The value of the last numbered record taken for a list item ("1." in a rule's list), so the
    /// rest of its list ("2.", "3.") follows it even where a value happens to continue the top level.
    pub(super) stray_last: Option<String>,
}

impl Nesting {
    pub(super) fn style_for_underline(&mut self, ch: char, overline: bool) -> u8 {
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
    pub(super) fn place(&mut self, head: Open) -> u8 {
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
    pub(super) fn is_misplaced_note(&self, label: &Label) -> bool {
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
    pub(super) fn would_be_top(&self, label: &Label) -> bool {
        let head = Open { label: Some(label.clone()), style: None };
        !self.stack.iter().any(|open| is_ancestor(open, &head))
    }

    /// Whether a label continues the running numbering of the top level: the first division, the
    /// next one ("4." after "3.", "Part 3" after "Part 2"), or the first of a new kind of division
    /// ("Part 1" or "APP 1" after the chapters).
    pub(super) fn continues_top(&self, label: &Label) -> bool {
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
    pub(super) fn is_stray(&self, label: &Label) -> bool {
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
    pub(super) fn stray(&mut self, label: &Label) {
        self.stray_last = label.tokens().last().map(|t| t.to_string());
    }

    /// The division a numbered heading implies when the document never printed it: "3.2" arriving
    /// at the top level after chapter 2 implies a chapter "3" (its value only).
    pub(super) fn implied_division(&self, label: &Label) -> Option<String> {
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
    pub(super) fn plausible(&self, label: &Label) -> bool {
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
pub(super) fn is_note(label: &Label) -> bool {
    label.segments.iter().any(|s| s.container == Container::Guidance)
}

pub(super) fn is_first_value(v: &str) -> bool {
    matches!(v, "1" | "a" | "i" | "0")
}

pub(super) fn is_successor(prev: &str, next: &str) -> bool {
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
pub(super) fn is_ancestor(a: &Open, h: &Open) -> bool {
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

pub(super) fn same_numbering_family(a: &Label, b: &Label) -> bool {
    a.segments.first().map(|s| s.container) == b.segments.first().map(|s| s.container)
}

pub(super) fn is_prefix(a: &Label, h: &Label) -> bool {
    let (at, ht) = (a.tokens(), h.tokens());
    at.len() < ht.len() && ht[..at.len()] == at[..] && container_rank(a) <= container_rank(h)
        || same_path_prefix(a, h)
}

/// "Part 6" is a prefix of "Part 6.50.(1)": compare segments keyword by keyword.
pub(super) fn same_path_prefix(a: &Label, h: &Label) -> bool {
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
pub(super) fn container_rank(l: &Label) -> u8 {
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
