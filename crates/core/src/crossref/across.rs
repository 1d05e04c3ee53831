//! Resolving references across a library: which document a reference names (by label, title, a
//! glossary's name for it) and which of its sections. Rebuilt whenever documents come and go.

use super::{DocumentNames, RefContainer, SectionIndex, Target};
use std::collections::HashMap;

/// The documents of a library, by the names they go by, with their sections.
///
/// ```
/// use folio_core::crossref::{CrossIndex, SectionIndex};
/// let mut x = CrossIndex::default();
/// let sections = SectionIndex::new([(None, None), (Some("5"), Some(0)), (Some("5.5"), Some(1)), (Some("5.5.1"), Some(2))]);
/// x.add_document(3, "GEN", "General Rulebook", sections);
/// x.learn_definition("GEN", "Means the General module of the Rulebook.");
/// assert_eq!(x.resolve("GEN", "Rule 5.5.1(2)", Some(folio_core::crossref::RefContainer::Section)), Some((3, Some(3))));
/// assert_eq!(x.resolve("the General Rulebook", "Chapter 5", None), Some((3, Some(1))));
/// assert_eq!(x.resolve("Insolvency Regulations", "Section 3", None), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct CrossIndex {
    names: DocumentNames,
    sections: HashMap<i64, SectionIndex>,
}

impl CrossIndex {
    /// Adds a document by its label and title.
    pub fn add_document(&mut self, id: i64, label: &str, title: &str, sections: SectionIndex) {
        self.add_names(id, label, title);
        self.sections.insert(id, sections);
    }

    /// Adds a document's label and title alone, for finding the document a name means
    /// ([`CrossIndex::document`]) where its sections are indexed elsewhere.
    pub fn add_names(&mut self, id: i64, label: &str, title: &str) {
        self.names.add(label, id, 0);
        if !title.is_empty() {
            self.names.add(title, id, 1);
        }
    }

    /// Learns another name from a definition ("MKT: Means the Markets Rules").
    pub fn learn_definition(&mut self, term: &str, text: &str) {
        self.names.learn_definition(term, text);
    }

    /// The document a name means.
    pub fn document(&self, name: &str) -> Option<i64> {
        self.names.find(name)
    }

    /// The document a reference names and, when found there, the index of its section (in the
    /// order the document's sections were given).
    pub fn resolve(
        &self,
        document: &str,
        label: &str,
        container: Option<RefContainer>,
    ) -> Option<(i64, Option<usize>)> {
        let doc = self.names.find(document)?;
        let section = self.sections.get(&doc).and_then(|s| s.resolve_named(label, container));
        Some((doc, section))
    }
}

impl SectionIndex {
    /// The section a reference to this document from another one means ("GEN Rule 5.5.1(2)": its
    /// label and container), as [`CrossIndex::resolve`] finds it.
    pub fn resolve_named(&self, label: &str, container: Option<RefContainer>) -> Option<usize> {
        let mut target = Target::from_label(label, container);
        // "GEN 3.3.31": a bare code reference is to a rule.
        target.relative = false;
        self.resolve(&target, None)
    }
}
