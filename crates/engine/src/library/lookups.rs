//! The lookup tables a library keeps in memory (its documents and their outlines, the exact index,
//! whose definitions apply where, the titles its glossaries give): computed from the catalog while
//! searches go on ([`Library::lookups`], which reads), then put in place in a moment
//! ([`Library::install`], the only part that needs the library to itself).

use super::{glossary, titles, Library};
use crate::EngineError;
use folio_core::crossref::{CrossIndex, SectionIndex};
use folio_index::catalog::{DefinitionRow, DocumentRow, SectionRow};
use folio_index::exact::ExactIndex;
use std::collections::HashMap;

/// The lookup tables, as computed from the catalog at one moment (see the module note).
pub(super) struct Lookups {
    docs: Vec<DocumentRow>,
    outlines: HashMap<i64, Vec<SectionRow>>,
    exact: ExactIndex,
    adoptions: glossary::Adoptions,
    library_titles: HashMap<i64, String>,
    /// The library's generation they were computed at (see [`Library::install`]).
    generation: u64,
}

/// Gives the documents known only by their label the titles in `titles`.
pub(super) fn titled(titles: &HashMap<i64, String>, docs: &mut [DocumentRow]) {
    for d in docs {
        if let Some(t) = titles.get(&d.id) {
            d.title = t.clone();
        }
    }
}

/// The library's documents by the names they go by (labels, titles, what glossaries call them),
/// with their sections, for resolving references across documents.
fn cross_index_of(
    docs: &[DocumentRow],
    outlines: &HashMap<i64, Vec<SectionRow>>,
    definitions: &[DefinitionRow],
) -> CrossIndex {
    let mut x = CrossIndex::default();
    for d in docs {
        let sections = outlines.get(&d.id).map(Vec::as_slice).unwrap_or(&[]);
        let index = SectionIndex::new(
            sections.iter().map(|s| (s.number.as_deref(), s.parent_ord.map(|p| p as usize))),
        );
        x.add_document(d.id, &d.label, &d.title, index);
    }
    for def in definitions {
        if def.term.split_whitespace().count() <= 8 {
            x.learn_definition(&def.term, &def.text);
        }
    }
    x
}

impl Library {
    /// Computes the lookup tables from the catalog; with `resolve`, first resolves the references
    /// to other documents against the documents now in the library (and records where they lead
    /// in the catalog). Reads only, but for those resolutions: searches go on meanwhile.
    pub(super) fn lookups(&self, resolve: bool) -> Result<Lookups, EngineError> {
        let mut docs = self.catalog.documents()?;
        let definitions = self.catalog.definitions(None)?;
        let library_titles = titles::library_titles(&docs, &definitions);
        titled(&library_titles, &mut docs);
        let mut sections = Vec::new();
        let mut outlines = HashMap::new();
        for d in &docs {
            let s = self.catalog.sections(d.id)?;
            sections.extend(s.iter().cloned());
            outlines.insert(d.id, s);
        }
        if resolve {
            self.resolve_references(&docs, &outlines, &definitions)?;
        }
        // One pass over the chunks (a large library's text is read through, never held).
        let mut exact = ExactIndex::builder(&docs, &sections);
        let mut names = glossary::NameScan::new(&docs)?;
        self.catalog.for_each_chunk(&mut |c| {
            names.add(&c);
            exact.add_chunk(&c);
        })?;
        let exact = exact.finish().with_citations(&self.catalog.resolved_references()?);
        // Who cites whom decides whose definitions apply where.
        let adoptions = self.adoptions_of(&docs, &names, &definitions)?;
        Ok(Lookups { docs, outlines, exact, adoptions, library_titles, generation: self.generation })
    }

    /// Puts computed lookup tables in place, when the library has not changed since they were
    /// computed; returns whether it put them (a change made meanwhile, such as a removal or a
    /// rename, makes them stale: compute them again).
    pub(super) fn install(&mut self, l: Lookups) -> bool {
        if l.generation != self.generation {
            return false;
        }
        let Lookups { docs, outlines, exact, adoptions, library_titles, .. } = l;
        (self.docs, self.outlines, self.exact, self.adoptions, self.library_titles) =
            (docs, outlines, exact, adoptions, library_titles);
        self.generation += 1;
        true
    }

    /// Recomputes the lookup tables in place (with the library to itself).
    pub(super) fn rebuild_lookups(&mut self, resolve: bool) -> Result<(), EngineError> {
        let l = self.lookups(resolve)?;
        let installed = self.install(l);
        debug_assert!(installed, "nothing changes a library held exclusively");
        Ok(())
    }

    /// Marks the library changed, so that lookup tables computed before are not put in place.
    pub(super) fn changed(&mut self) {
        self.generation += 1;
    }

    /// Resolves references to other documents against `docs` and records the result.
    fn resolve_references(
        &self,
        docs: &[DocumentRow],
        outlines: &HashMap<i64, Vec<SectionRow>>,
        definitions: &[DefinitionRow],
    ) -> Result<(), EngineError> {
        let refs = self.catalog.external_references()?;
        let x = cross_index_of(docs, outlines, definitions);
        let mut out = Vec::with_capacity(refs.len());
        for (rowid, r) in refs {
            let container =
                r.container.as_deref().and_then(|c| serde_json::from_value(serde_json::Value::from(c)).ok());
            let found = r.document.as_deref().and_then(|name| x.resolve(name, &r.label, container));
            let target_doc = found.map(|(d, _)| d);
            let section = found.and_then(|(d, i)| {
                let i = i?;
                outlines.get(&d).and_then(|s| s.get(i)).map(|s| s.section_id.clone())
            });
            // Only the changed ones are written (most stay as they were at the last ingest).
            if (target_doc, &section) != (r.target_doc_id, &r.target_doc_section) {
                out.push((rowid, target_doc, section));
            }
        }
        Ok(self.catalog.set_resolutions(&out)?)
    }
}
