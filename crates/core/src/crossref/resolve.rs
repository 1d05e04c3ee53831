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
    pub container: Option<RefContainer>,
    /// Value tokens of the number ("4.3.1(13)" → 4, 3, 1, 13).
    pub tokens: Vec<String>,
    /// Containers the target lies in, outermost first ("of Schedule 1").
    pub within: Vec<(RefContainer, String)>,
    /// Relative to the citing section.
    pub relative: bool,
}

impl Target {
    pub fn of(r: &RawRef) -> Target {
        Target {
            container: r.container,
            tokens: r.tokens.clone(),
            within: r.within.clone(),
            relative: r.relative || r.label.starts_with('('),
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
        let number = last.rsplit(' ').next().unwrap_or("");
        Target { container, tokens: value_tokens(number), within, relative: last.starts_with('(') }
    }
}

/// The numbered sections of one document, indexed for resolving references into it.
#[derive(Debug, Clone, Default)]
pub struct SectionIndex {
    labels: Vec<Option<Label>>,
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
            ix.labels.push(label);
        }
        ix
    }

    /// Sections in the index.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

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
                for map in [&self.full, &self.local] {
                    let Some(cands) = map.get(want) else { continue };
                    let cands: Vec<usize> = cands
                        .iter()
                        .copied()
                        .filter(|&c| fits(c) && (annexed_too || !t.within.is_empty() || !self.is_annexed(c)))
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
