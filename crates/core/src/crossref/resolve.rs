//! Resolving a reference to a section of one document: by the full number, by the number after the
//! Part/Chapter prefixes ("section 196" → "Part 12.Chapter 1.196."), by a container ("Part 4",
//! "Chapter 3"), inside the containers it names ("Part 4 of Schedule 1"), relative to the citing rule
//! ("(2)"), and else to the most specific section that exists ("4.3.1(13)" → 4.3.1).

use super::scan::{container_of, value_tokens};
use super::{RawRef, RefContainer};
use crate::numbering::{Container, Label, Segment};
use crate::outline::Outline;
use std::collections::HashMap;

/// What a reference asks for, as [`RawRef`] carries it or as a stored label spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The kind of container the reference names, where known.
    pub container: Option<RefContainer>,
    /// Value tokens of the number ("4.3.1(13)" → 4, 3, 1, 13).
    pub tokens: Vec<String>,
    /// Containers the target lies in, outermost first ("of Schedule 1").
    pub within: Vec<(RefContainer, String)>,
    /// Relative to the citing section.
    pub relative: bool,
    /// Which tokens were printed in brackets ("23.4(3)" → false, false, true), where known.
    pub brackets: Option<Vec<bool>>,
}

impl Target {
    /// What a scanned reference asks for; a label that opens with a bracket ("(2)") is relative.
    pub fn of(r: &RawRef) -> Target {
        let last = r.label.rsplit(", ").next().unwrap_or("");
        Target {
            container: r.container,
            tokens: r.tokens.clone(),
            within: r.within.clone(),
            relative: r.relative || r.label.starts_with('('),
            brackets: bracket_flags(&number_of(last), r.tokens.len()),
        }
    }

    /// The target a stored label names: "Rule 5.5.1", "Schedule 1, Part 4", "GEN 3.3.31",
    /// "Section 196".
    ///
    /// ```
    /// use folio_core::crossref::{RefContainer, Target};
    /// let t = Target::from_label("Schedule 1, Part 4", Some(RefContainer::Part));
    /// assert_eq!(t.within, vec![(RefContainer::Schedule, "1".to_string())]);
    /// assert_eq!(t.tokens, vec!["4"]);
    /// // A bracketed part set apart from its number stays with it.
    /// assert_eq!(Target::from_label("Rule 4.3.1 (13)", None).tokens, vec!["4", "3", "1", "13"]);
    /// assert_eq!(Target::from_label("33 U.S.C. 2201", None).tokens, vec!["2201"]);
    /// ```
    pub fn from_label(label: &str, container: Option<RefContainer>) -> Target {
        let parts: Vec<&str> = label.split(", ").collect();
        let (last, outer) = parts.split_last().unwrap_or((&"", &[]));
        let within = outer
            .iter()
            .filter_map(|p| {
                let (kw, v) = p.split_once(' ')?;
                Some((container_of(kw)?, value_tokens(v).into_iter().next()?))
            })
            .collect();
        let number = number_of(last);
        let tokens = value_tokens(&number);
        let brackets = bracket_flags(&number, tokens.len());
        Target { container, tokens, within, relative: last.starts_with('('), brackets }
    }
}

/// The number in a reference's label: the last word, with the bracketed parts set apart after it.
/// "Rule 4.3.1 (13)" is 4.3.1(13); "33 U.S.C. 2201" is 2201, "Part IV" is IV.
fn number_of(label: &str) -> String {
    let words: Vec<&str> = label.split(' ').collect();
    let mut start = words.len();
    while start > 1 && words[start - 1].starts_with('(') {
        start -= 1;
    }
    words[start.saturating_sub(1)..].concat()
}

/// For each run of letters and digits in a printed number, whether it stands in brackets; `None`
/// unless there is one run per value token (a number with container words, "Part 6.Chapter 3.61",
/// is not compared).
fn bracket_flags(number: &str, tokens: usize) -> Option<Vec<bool>> {
    let mut flags = Vec::new();
    let mut prev = ' ';
    let mut in_run = false;
    for c in number.chars() {
        if c.is_alphanumeric() {
            if !in_run {
                flags.push(prev == '(');
            }
            in_run = true;
        } else {
            in_run = false;
        }
        if !c.is_whitespace() {
            prev = c;
        }
    }
    (flags.len() == tokens && tokens > 0).then_some(flags)
}

/// The numbered sections of one document, indexed for resolving references into it.
#[derive(Debug, Clone, Default)]
pub struct SectionIndex {
    labels: Vec<Option<Label>>,
    /// Which of each label's tokens are printed in brackets, where known ([`bracket_flags`]).
    brackets: Vec<Option<Vec<bool>>>,
    parents: Vec<Option<usize>>,
    /// Full value tokens → sections.
    full: HashMap<Vec<String>, Vec<usize>>,
    /// Tokens after each Part/Chapter/Schedule's own number ("Part 6.Chapter 3.61.(4)" → 61, 4).
    local: HashMap<Vec<String>, Vec<usize>>,
    /// (container, value) of Part/Chapter/Article/Schedule/Appendix/Annex/Title headings.
    containers: HashMap<(RefContainer, String), Vec<usize>>,
}

impl SectionIndex {
    /// From an outline.
    pub fn from_outline(outline: &Outline) -> SectionIndex {
        SectionIndex::new(outline.sections.iter().map(|s| (s.number.as_deref(), s.parent)))
    }

    /// From each section's printed number and parent, in document order (as a catalog keeps them).
    pub fn new<'a>(sections: impl IntoIterator<Item = (Option<&'a str>, Option<usize>)>) -> SectionIndex {
        let mut ix = SectionIndex::default();
        for (i, (number, parent)) in sections.into_iter().enumerate() {
            let label = number.and_then(Label::parse);
            ix.parents.push(parent);
            if let Some(label) = &label {
                let toks: Vec<String> = label.tokens().iter().map(|t| t.to_string()).collect();
                ix.full.entry(toks.clone()).or_default().push(i);
                let loc = local_tokens(label);
                if !loc.is_empty() && loc != toks {
                    ix.local.entry(loc).or_default().push(i);
                }
                if let Some(last) = label.segments.last() {
                    if last.explicit && last.tokens.len() == 1 {
                        if let Some(kind) = RefContainer::of_container(last.container) {
                            ix.containers.entry((kind, last.tokens[0].clone())).or_default().push(i);
                        }
                    }
                }
            }
            ix.brackets.push(label.as_ref().and_then(|l| bracket_flags(number?, l.tokens().len())));
            ix.labels.push(label);
        }
        ix
    }

    /// Sections in the index.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether the index holds no section.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    fn ancestors(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parents.get(s).copied().flatten(), move |&i| {
            self.parents.get(i).copied().flatten()
        })
    }

    /// Whether a section's label lies in every container the reference names.
    fn is_within(&self, s: usize, within: &[(RefContainer, String)]) -> bool {
        let Some(label) = &self.labels[s] else { return within.is_empty() };
        within.iter().all(|(c, v)| {
            label.segments.iter().any(|seg| {
                seg.explicit
                    && RefContainer::of_container(seg.container) == Some(*c)
                    && seg.tokens.first() == Some(v)
            })
        })
    }

    /// Whether a section lies in a schedule, appendix or annex.
    fn is_annexed(&self, s: usize) -> bool {
        self.labels[s].as_ref().is_some_and(|l| {
            l.segments.iter().any(|s| {
                s.explicit
                    && matches!(s.container, Container::Schedule | Container::Appendix | Container::Annex)
            })
        })
    }

    /// Of several candidates: the one sharing most ancestors with the citing section; from another
    /// document, the body before schedules and appendices, then the shallowest, then the first.
    fn best(
        &self,
        candidates: &[usize],
        from: Option<usize>,
        within: &[(RefContainer, String)],
    ) -> Option<usize> {
        let inside: Vec<usize> = candidates.iter().copied().filter(|&c| self.is_within(c, within)).collect();
        match from {
            Some(from) => {
                let anc: Vec<usize> = std::iter::once(from).chain(self.ancestors(from)).collect();
                inside.iter().copied().max_by_key(|&c| {
                    let cand: Vec<usize> = self.ancestors(c).collect();
                    (anc.iter().filter(|a| cand.contains(a)).count(), std::cmp::Reverse(c))
                })
            }
            None => inside.iter().copied().min_by_key(|&c| {
                let annexed = self.is_annexed(c) && within.is_empty();
                (annexed, self.ancestors(c).count(), c)
            }),
        }
    }

    /// Whether section `c`'s number brackets its tokens as the first `n` of the reference's do:
    /// "23.4(3)" is paragraph (3) of 23.4, not rule 23.4.3. True where either is not known.
    fn same_brackets(&self, c: usize, t: &Target, n: usize) -> bool {
        match (&self.brackets[c], &t.brackets) {
            (Some(have), Some(want)) if have.len() == n && want.len() >= n => have[..] == want[..n],
            _ => true,
        }
    }

    /// The section a reference names, `from` the citing section when it is in this document.
    pub fn resolve(&self, t: &Target, from: Option<usize>) -> Option<usize> {
        match t.container {
            Some(
                c @ (RefContainer::Part
                | RefContainer::Chapter
                | RefContainer::Article
                | RefContainer::Title
                | RefContainer::Schedule
                | RefContainer::Appendix
                | RefContainer::Annex),
            ) if t.tokens.len() == 1 => {
                if let Some(found) =
                    self.containers.get(&(c, t.tokens[0].clone())).and_then(|v| self.best(v, from, &t.within))
                {
                    return Some(found);
                }
            }
            _ => {}
        }
        if t.relative {
            let from = from?;
            // Replace the tail of the citing section's number, from the innermost outwards.
            for sec in std::iter::once(from).chain(self.ancestors(from)) {
                let Some(label) = &self.labels[sec] else { continue };
                let toks: Vec<String> = label.tokens().iter().map(|t| t.to_string()).collect();
                for keep in (0..=toks.len()).rev() {
                    let mut want = toks[..keep].to_vec();
                    want.extend(t.tokens.iter().cloned());
                    if want == toks {
                        continue;
                    }
                    if let Some(c) = self.full.get(&want) {
                        return self.best(c, Some(from), &[]);
                    }
                }
            }
            return None;
        }
        // A section, rule or paragraph is never a Part or a Chapter ("section 2 of the FSMR" is not
        // its Part 2); a "Part" is never a plain-numbered chapter; the body answers before an
        // appendix unless the reference names one.
        let fits = |c: usize| {
            let Some(label) = &self.labels[c] else { return false };
            let last = label.segments.last();
            // "Part 4" is a division; "Part 16.196." is section 196 inside one.
            let is_div = last.is_some_and(|seg| is_division(seg) && seg.tokens.len() == 1);
            match t.container {
                Some(RefContainer::Section | RefContainer::Paragraph) | None => !is_div,
                Some(RefContainer::Chapter) => true,
                Some(_) => is_div,
            }
        };
        // The most specific section that exists: "4.3.1(13)" is 4.3.1.(13), else 4.3.1 (a number of
        // three or more parts keeps two).
        let keep_at_least = if t.tokens.len() >= 3 { 2 } else { 1 };
        for annexed_too in [false, true] {
            for n in (keep_at_least..=t.tokens.len()).rev() {
                let want = &t.tokens[..n];
                for (map, full) in [(&self.full, true), (&self.local, false)] {
                    let Some(cands) = map.get(want) else { continue };
                    let cands: Vec<usize> = cands
                        .iter()
                        .copied()
                        .filter(|&c| fits(c) && (annexed_too || !t.within.is_empty() || !self.is_annexed(c)))
                        .filter(|&c| !full || self.same_brackets(c, t, n))
                        .collect();
                    if let Some(found) = self.best(&cands, from, &t.within) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }
}

/// Tokens after each explicit non-section segment's own value.
fn local_tokens(label: &Label) -> Vec<String> {
    let mut loc = Vec::new();
    for seg in &label.segments {
        let skip = usize::from(is_division(seg));
        loc.extend(seg.tokens.iter().skip(skip).cloned());
    }
    loc
}

fn is_division(seg: &Segment) -> bool {
    seg.explicit && seg.container != Container::Section && seg.container != Container::Guidance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> SectionIndex {
        // 23 › 23.4 › (23.4.3, 23.4.4), and 24 › 24.1 › 24.1.(3)
        SectionIndex::new([
            (None, None),
            (Some("23"), Some(0)),
            (Some("23.4"), Some(1)),
            (Some("23.4.3"), Some(2)),
            (Some("23.4.4"), Some(2)),
            (Some("24"), Some(0)),
            (Some("24.1"), Some(5)),
            (Some("24.1.(3)"), Some(6)),
        ])
    }

    #[test]
    fn a_bracketed_part_is_a_paragraph_not_a_rule() {
        let ix = index();
        // "Rule 23.4(3)": paragraph (3) of 23.4, which the outline lacks; 23.4.3 is another rule.
        assert_eq!(ix.resolve(&Target::from_label("Rule 23.4(3)", None), None), Some(2));
        // "Rule 24.1(3)" is 24.1.(3); "Rule 23.4.3" is the rule.
        assert_eq!(ix.resolve(&Target::from_label("Rule 24.1(3)", None), None), Some(7));
        assert_eq!(ix.resolve(&Target::from_label("Rule 24.1 (3)", None), None), Some(7));
        assert_eq!(ix.resolve(&Target::from_label("Rule 23.4.3", None), None), Some(3));
    }

    #[test]
    fn brackets_are_read_only_where_every_token_shows() {
        assert_eq!(bracket_flags("4.3.1(13)", 4), Some(vec![false, false, false, true]));
        assert_eq!(bracket_flags("24.1.(3)", 3), Some(vec![false, false, true]));
        assert_eq!(bracket_flags("Part 6.Chapter 3.61", 3), None);
        assert_eq!(number_of("Rule 4.3.1 (13) (a)"), "4.3.1(13)(a)");
    }
}
