//! The outline: a document's headings as a tree of [`Section`]s with stable ids.
//!
//! Section 0 is the root (the document itself, level 0, id `doc`); every other section starts at a
//! heading block and runs to the next heading of the same or a higher level. Ids come from the
//! numbering (`2.1.3.(1)` → `sec_2_1_3_1`), else from the ordinal path (`s_2_3`), and are made unique
//! with a `__2`, `__3` … suffix.

use crate::model::{BlockKind, Document, PageRange, Span};
use crate::numbering::{split_heading_number, Label};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ops::Range;

/// One section of the outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Stable id, unique within the document.
    pub id: String,
    /// The printed number ("2.1.3", "Part 6.50.(1)"), when the heading has one.
    pub number: Option<String>,
    /// The heading text without its number ("Core Principles"); may be empty for bare rule numbers.
    pub title: String,
    /// The heading as printed ("2 Core Principles").
    pub heading: String,
    /// 0 for the root, then the heading's level.
    pub level: u8,
    /// The index of the enclosing section in [`Outline::sections`]; `None` for the root.
    pub parent: Option<usize>,
    /// The indexes of its direct subsections, in document order.
    pub children: Vec<usize>,
    /// The heading block, `None` for the root.
    pub heading_block: Option<usize>,
    /// All blocks of the section, its subsections included.
    pub blocks: Range<usize>,
    /// The section's own blocks: its heading and the text before its first subsection.
    pub own_blocks: Range<usize>,
    /// The text the whole section covers.
    pub span: Span,
    /// The pages the section covers; `None` for formats without pages.
    pub pages: Option<PageRange>,
}

impl Section {
    /// The label for breadcrumbs: the printed heading, or the title, or the id.
    pub fn display(&self) -> &str {
        if !self.heading.is_empty() {
            &self.heading
        } else {
            &self.id
        }
    }
}

/// A heading as [`Outline::from_headings`] takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveredHeading {
    /// The heading as printed ("2.1 Principles").
    pub heading: String,
    /// Its depth, 1 for the top.
    pub level: u8,
    /// Its section id, when known.
    pub id: Option<String>,
    /// The text the section covers.
    pub span: Span,
    /// The pages the section covers; `None` for formats without pages.
    pub pages: Option<PageRange>,
}

/// A document's section tree, in document order (preorder).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outline {
    /// The sections in document order (preorder), the root first.
    pub sections: Vec<Section>,
    /// For each block, the innermost section holding it.
    pub block_section: Vec<usize>,
}

impl Outline {
    /// Builds the outline of a document.
    ///
    /// ```
    /// use folio_core::model::{BlockKind, DocumentBuilder, Format};
    /// use folio_core::outline::Outline;
    /// let mut b = DocumentBuilder::new(Format::Text, "GEN", b"");
    /// b.push(BlockKind::Heading { level: 1, number: Some("2".into()) }, "2 Core Principles", None);
    /// b.push(BlockKind::Heading { level: 2, number: Some("2.1".into()) }, "2.1 Principles", None);
    /// b.push(BlockKind::Paragraph, "An Authorised Person must observe the principles.", None);
    /// let doc = b.finish();
    /// let outline = Outline::build(&doc);
    /// assert_eq!(outline.sections[2].id, "sec_2_1");
    /// assert_eq!(outline.parent_chain(2, &doc.meta.title), vec!["GEN", "2 Core Principles", "2.1 Principles"]);
    /// ```
    pub fn build(doc: &Document) -> Outline {
        let n = doc.blocks.len();
        let root_span = Span::new(0, doc.text.trim_end().len());
        let mut sections = vec![Section {
            id: "doc".to_string(),
            number: None,
            title: doc.meta.title.clone(),
            heading: doc.meta.title.clone(),
            level: 0,
            parent: None,
            children: Vec::new(),
            heading_block: None,
            blocks: 0..n,
            own_blocks: 0..n,
            span: root_span,
            pages: None,
        }];
        let mut block_section = vec![0usize; n];
        let mut stack: Vec<usize> = vec![0];
        for (bi, block) in doc.blocks.iter().enumerate() {
            if let BlockKind::Heading { level, number } = &block.kind {
                let level = (*level).max(1);
                while let Some(&top) = stack.last() {
                    if top != 0 && sections[top].level >= level {
                        close(&mut sections, top, bi);
                        stack.pop();
                    } else {
                        break;
                    }
                }
                let parent = *stack.last().unwrap_or(&0);
                let text = doc.block_text(block).to_string();
                let (number, title) = split_number(&text, number.as_deref());
                let idx = sections.len();
                if sections[parent].own_blocks.end > bi {
                    sections[parent].own_blocks.end = bi;
                }
                sections[parent].children.push(idx);
                sections.push(Section {
                    id: String::new(),
                    number,
                    title,
                    heading: text,
                    level,
                    parent: Some(parent),
                    children: Vec::new(),
                    heading_block: Some(bi),
                    blocks: bi..n,
                    own_blocks: bi..n,
                    span: block.span,
                    pages: block.pages,
                });
                stack.push(idx);
            }
            let cur = *stack.last().unwrap_or(&0);
            block_section[bi] = cur;
        }
        while let Some(top) = stack.pop() {
            if top != 0 {
                close(&mut sections, top, n);
            }
        }
        // Spans and pages cover the section's blocks.
        for s in sections.iter_mut().skip(1) {
            if let (Some(first), Some(last)) =
                (doc.blocks.get(s.blocks.start), doc.blocks.get(s.blocks.end - 1))
            {
                s.span = first.span.cover(last.span);
            }
            s.pages =
                doc.blocks[s.blocks.clone()].iter().fold(None, |acc, b| PageRange::cover_opt(acc, b.pages));
        }
        sections[0].pages = doc.blocks.iter().fold(None, |acc, b| PageRange::cover_opt(acc, b.pages));
        assign_ids(&mut sections);
        Outline { sections, block_section }
    }

    /// An outline rebuilt without the document's blocks, from its headings in document order
    /// (what a library's chunk records keep when the catalog is lost): parents from the levels,
    /// numbers split off the headings as [`Outline::build`] does, and ids as it gives them except
    /// where a heading brings its own. Sections hold no blocks.
    ///
    /// ```
    /// use folio_core::model::Span;
    /// use folio_core::outline::{Outline, RecoveredHeading};
    /// let h = |heading: &str, level, id: Option<&str>, span| RecoveredHeading {
    ///     heading: heading.into(), level, id: id.map(String::from), span, pages: None,
    /// };
    /// let o = Outline::from_headings("GEN", Span::new(0, 90), &[
    ///     h("2 Core Principles", 1, None, Span::new(0, 90)),
    ///     h("2.1 Principles", 2, Some("sec_2_1"), Span::new(20, 90)),
    /// ]);
    /// assert_eq!(o.sections[1].number.as_deref(), Some("2"));
    /// assert_eq!(o.sections[2].parent, Some(1));
    /// assert_eq!(o.parent_chain(2, "GEN"), vec!["GEN", "2 Core Principles", "2.1 Principles"]);
    /// ```
    pub fn from_headings(title: &str, span: Span, headings: &[RecoveredHeading]) -> Outline {
        let mut sections = vec![Section {
            id: "doc".to_string(),
            number: None,
            title: title.to_string(),
            heading: title.to_string(),
            level: 0,
            parent: None,
            children: Vec::new(),
            heading_block: None,
            blocks: 0..0,
            own_blocks: 0..0,
            span,
            pages: None,
        }];
        let mut stack: Vec<usize> = vec![0];
        for h in headings {
            let level = h.level.max(1);
            while stack.len() > 1 && stack.last().is_some_and(|&top| sections[top].level >= level) {
                stack.pop();
            }
            let parent = *stack.last().unwrap_or(&0);
            let (number, title) = split_number(&h.heading, None);
            let idx = sections.len();
            sections[parent].children.push(idx);
            sections.push(Section {
                id: String::new(),
                number,
                title,
                heading: h.heading.clone(),
                level,
                parent: Some(parent),
                children: Vec::new(),
                heading_block: None,
                blocks: 0..0,
                own_blocks: 0..0,
                span: h.span,
                pages: h.pages,
            });
            stack.push(idx);
        }
        sections[0].pages = sections.iter().skip(1).fold(None, |acc, s| PageRange::cover_opt(acc, s.pages));
        assign_ids(&mut sections);
        // Ids the records carry win; a generated id they also use moves aside.
        let given: std::collections::HashSet<&str> =
            headings.iter().filter_map(|h| h.id.as_deref()).collect();
        for (i, h) in headings.iter().enumerate() {
            let s = &mut sections[i + 1];
            match &h.id {
                Some(id) => s.id = id.clone(),
                None if given.contains(s.id.as_str()) => s.id = format!("{}__recovered{}", s.id, i + 1),
                None => {}
            }
        }
        Outline { sections, block_section: Vec::new() }
    }

    /// Heading texts from the document title down to the section.
    pub fn parent_chain(&self, section: usize, doc_title: &str) -> Vec<String> {
        let mut chain = Vec::new();
        let mut cur = Some(section);
        while let Some(i) = cur {
            let s = &self.sections[i];
            if i == 0 {
                chain.push(doc_title.to_string());
            } else {
                chain.push(s.display().to_string());
            }
            cur = s.parent;
        }
        chain.reverse();
        chain
    }

    /// The section with an id.
    pub fn by_id(&self, id: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.id == id)
    }

    /// Whether `inner` is `outer` or lies inside it.
    pub fn is_within(&self, inner: usize, outer: usize) -> bool {
        let mut cur = Some(inner);
        while let Some(i) = cur {
            if i == outer {
                return true;
            }
            cur = self.sections[i].parent;
        }
        false
    }

    /// The ancestors of a section, nearest first, the section itself excluded.
    pub fn ancestors(&self, section: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.sections[section].parent, move |&i| self.sections[i].parent)
    }

    /// Maps each numbered section's label tokens to its index, for resolving references.
    pub fn number_index(&self) -> HashMap<Vec<String>, Vec<usize>> {
        let mut map: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
        for (i, s) in self.sections.iter().enumerate() {
            if let Some(label) = s.number.as_deref().and_then(Label::parse) {
                map.entry(label.tokens().iter().map(|t| t.to_string()).collect()).or_default().push(i);
            }
        }
        map
    }
}

fn close(sections: &mut [Section], idx: usize, end: usize) {
    sections[idx].blocks.end = end;
    if sections[idx].own_blocks.end > end {
        sections[idx].own_blocks.end = end;
    }
}

/// Splits the printed number off a heading text.
fn split_number(text: &str, number: Option<&str>) -> (Option<String>, String) {
    if let Some(n) = number {
        let title = text.strip_prefix(n).unwrap_or(text).trim().trim_start_matches(['-', '—', '–', ':', '.']);
        return (Some(n.to_string()), title.trim().to_string());
    }
    match split_heading_number(text) {
        Some(h) if !h.title.is_empty() => (Some(h.label.to_string()), h.title.to_string()),
        _ => (None, text.to_string()),
    }
}

fn assign_ids(sections: &mut [Section]) {
    let mut used: HashMap<String, usize> = HashMap::new();
    used.insert("doc".into(), 1);
    for i in 1..sections.len() {
        let base = match sections[i].number.as_deref().and_then(Label::parse) {
            Some(label) => label.section_id(),
            None => ordinal_id(sections, i),
        };
        let count = used.entry(base.clone()).or_insert(0);
        *count += 1;
        sections[i].id = if *count == 1 { base } else { format!("{base}__{count}") };
    }
}

/// `s_2_3`: the 1-based position among siblings, from the top.
fn ordinal_id(sections: &[Section], idx: usize) -> String {
    let mut path = Vec::new();
    let mut cur = idx;
    while let Some(p) = sections[cur].parent {
        let pos = sections[p].children.iter().position(|&c| c == cur).unwrap_or(0) + 1;
        path.push(pos.to_string());
        cur = p;
    }
    path.reverse();
    format!("s_{}", path.join("_"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocumentBuilder, Format};

    fn doc(heads: &[(u8, Option<&str>, &str)]) -> Document {
        let mut b = DocumentBuilder::new(Format::Text, "T", b"");
        b.push(BlockKind::Paragraph, "Preamble.", None);
        for (level, number, text) in heads {
            b.push(BlockKind::Heading { level: *level, number: number.map(String::from) }, text, None);
            b.push(BlockKind::Paragraph, &format!("Body of {text}."), None);
        }
        b.finish()
    }

    #[test]
    fn tree_ids_and_ranges() {
        let d = doc(&[
            (1, Some("1"), "1 Intro"),
            (2, None, "Background"),
            (2, Some("1.2"), "1.2 Scope"),
            (1, None, "Annex"),
            (1, None, "Annex"),
            (1, Some("1"), "1 Again"),
        ]);
        let o = Outline::build(&d);
        let ids: Vec<&str> = o.sections.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, vec!["doc", "sec_1", "s_1_1", "sec_1_2", "s_2", "s_3", "sec_1__2"]);
        assert_eq!(o.sections[1].children, vec![2, 3]);
        assert_eq!(o.sections[1].own_blocks, 1..3);
        assert_eq!(o.sections[1].blocks, 1..7);
        assert_eq!(o.sections[0].own_blocks, 0..1);
        assert_eq!(o.block_section[0], 0);
        assert_eq!(o.block_section[4], 2);
        assert_eq!(o.sections[3].title, "Scope");
        assert!(o.is_within(3, 1));
        assert!(!o.is_within(4, 1));
    }
}
