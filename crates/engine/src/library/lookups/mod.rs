//! The lookup tables a library keeps in memory (its documents and their outlines, the exact index,
//! whose definitions apply where, the titles its glossaries give): computed from the catalog while
//! searches go on ([`Library::lookups`], which reads), then put in place in a moment
//! ([`Library::install`], the only part that needs the library to itself).
//!
//! After an ingest that only added documents, the tables are extended instead
//! ([`Library::lookups_after_ingest`]): the exact index and the glossary-name scan take in the new
//! documents' chunks alone (the index shares the other documents' parts with the installed one);
//! references resolve again only where they may now lead elsewhere, and the new documents'
//! citations are added to the index's, unless an earlier document's reference changed; the parts
//! that are small beside the chunks (definitions, titles, adoptions) are computed again whole.
//! Anything else (a document removed, changed or renamed, a new glossary, whose name older
//! documents may hold) computes them all.
//!
//! Tables computed (whole or extended) are saved beside the catalog, and an open reads them back
//! while the catalog is unchanged since ([`saved`]).

mod saved;

use saved::Tables;

use super::{glossary, titles, Library};
use crate::EngineError;
use folio_core::crossref::{CrossIndex, SectionIndex};
use folio_index::catalog::{DefinitionRow, DocumentRow, RefRow, SectionRow};
use folio_index::exact::ExactIndex;
use std::collections::HashMap;
use std::sync::Arc;

/// A document's sections, in order, shared between the installed tables and the tables extended
/// from them.
pub(super) type Outline = Arc<Vec<SectionRow>>;

/// The lookup tables, as computed from the catalog at one moment (see the module note).
pub(super) struct Lookups {
    docs: Vec<DocumentRow>,
    outlines: HashMap<i64, Outline>,
    exact: ExactIndex,
    adoptions: glossary::Adoptions,
    library_titles: HashMap<i64, String>,
    /// What they were computed from, for extending them later.
    base: LookupBase,
    /// How they were made.
    made: Made,
    /// The library's generation they were computed at (see [`Library::install`]).
    generation: u64,
}

impl Lookups {
    /// Tables of these parts, made so at the library's `generation`; the documents they were
    /// computed from are those they list.
    fn of(tables: Tables, indexes: SectionIndexes, made: Made, generation: u64) -> Lookups {
        let Tables { docs, outlines, exact, adoptions, library_titles, scan } = tables;
        let rows = docs.iter().map(|d| (d.id, d.clone())).collect();
        let base = LookupBase { rows, scan, indexes };
        Lookups { docs, outlines, exact, adoptions, library_titles, base, made, generation }
    }
}

/// How lookup tables were made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Made {
    /// Computed whole from the catalog.
    Computed,
    /// The installed ones extended by the documents added since.
    Extended,
    /// Read back as saved (see [`saved`]).
    ReadBack,
}

/// What the installed lookup tables were computed from, so that an ingest that only adds
/// documents can extend them (see the module note).
#[derive(Clone)]
pub(super) struct LookupBase {
    /// Each document as the tables saw it (with the library's titles).
    rows: HashMap<i64, DocumentRow>,
    /// The glossary-name scan of every document's chunks.
    scan: glossary::NameScan,
    /// Each document's sections indexed by their numbers.
    indexes: SectionIndexes,
}

/// The library's documents with the titles its glossaries give them, its definitions, and those
/// titles (what every computation of the tables starts from).
struct TitledDocuments {
    docs: Vec<DocumentRow>,
    definitions: Vec<DefinitionRow>,
    library_titles: HashMap<i64, String>,
}

/// Whether a document is as the tables saw it, in everything they take from it.
fn unchanged(seen: &DocumentRow, now: &DocumentRow) -> bool {
    (&seen.path, &seen.label, &seen.title, &seen.content_hash, seen.status, seen.renamed)
        == (&now.path, &now.label, &now.title, &now.content_hash, now.status, now.renamed)
}

/// Gives the documents known only by their label the titles in `titles`.
pub(super) fn titled(titles: &HashMap<i64, String>, docs: &mut [DocumentRow]) {
    for d in docs {
        if let Some(t) = titles.get(&d.id) {
            d.title = t.clone();
        }
    }
}

/// Documents' sections indexed by their numbers, for resolving references to them: made for a
/// document the first time a reference names it (in a large library most documents are never
/// named, and indexing all their sections took most of the time of resolving), and kept while the
/// document is unchanged.
type SectionIndexes = HashMap<i64, Arc<SectionIndex>>;

/// A document's sections indexed by their numbers.
fn section_index(sections: &[SectionRow]) -> Arc<SectionIndex> {
    Arc::new(SectionIndex::new(
        sections.iter().map(|s| (s.number.as_deref(), s.parent_ord.map(|p| p as usize))),
    ))
}

/// The library's documents by the names they go by (labels, titles, what glossaries call them),
/// for finding the document a reference names (its sections are indexed apart, see
/// [`SectionIndexes`]).
fn cross_index_of(docs: &[DocumentRow], definitions: &[DefinitionRow]) -> CrossIndex {
    let mut x = CrossIndex::default();
    for d in docs {
        x.add_names(d.id, &d.label, &d.title);
    }
    for def in definitions {
        if def.term.split_whitespace().count() <= 8 {
            x.learn_definition(&def.term, &def.text);
        }
    }
    x
}

impl Library {
    /// What every computation of the tables starts from (see [`TitledDocuments`]).
    fn titled_documents(&self) -> Result<TitledDocuments, EngineError> {
        let mut docs = self.catalog.documents()?;
        let definitions = self.catalog.definitions(None)?;
        let library_titles = titles::library_titles(&docs, &definitions);
        titled(&library_titles, &mut docs);
        Ok(TitledDocuments { docs, definitions, library_titles })
    }

    /// Reads these documents' outlines into `outlines`, and returns their sections all together.
    fn read_outlines(
        &self,
        docs: &[DocumentRow],
        outlines: &mut HashMap<i64, Outline>,
    ) -> Result<Vec<SectionRow>, EngineError> {
        let mut sections = Vec::new();
        for d in docs {
            let s = self.catalog.sections(d.id)?;
            sections.extend(s.iter().cloned());
            outlines.insert(d.id, Arc::new(s));
        }
        Ok(sections)
    }

    /// Computes the lookup tables from the catalog; with `resolve`, first resolves the references
    /// to other documents against the documents now in the library (and records where they lead
    /// in the catalog). Reads only, but for those resolutions: searches go on meanwhile.
    pub(super) fn lookups(&self, resolve: bool) -> Result<Lookups, EngineError> {
        if !resolve {
            if let Some(l) = self.saved_lookups()? {
                return Ok(l);
            }
        }
        self.computed_lookups(resolve)
    }

    /// [`Library::lookups`] computed from the catalog (and saved), never read back.
    fn computed_lookups(&self, resolve: bool) -> Result<Lookups, EngineError> {
        let TitledDocuments { docs, definitions, library_titles } = self.titled_documents()?;
        let mut outlines = HashMap::new();
        let sections = self.read_outlines(&docs, &mut outlines)?;
        let mut indexes = SectionIndexes::new();
        let mut refs = self.catalog.external_references()?;
        if resolve {
            refs = self.resolve_references(&docs, &outlines, &mut indexes, &definitions, refs, None)?.0;
        }
        // What the tables are computed from from here on (the resolutions above write).
        let stamp = self.catalog.change_stamp()?;
        // One pass over the chunks (a large library's text is read through, never held).
        let mut scan = glossary::NameScan::new(&docs)?;
        let exact = ExactIndex::build(&docs, &sections, |exact| {
            self.catalog.for_each_chunk_facts(&mut |c| {
                scan.add(&c);
                exact.add_chunk(&c);
            })
        })?;
        let exact = exact.with_citations(&self.catalog.resolved_references()?);
        // Who cites whom decides whose definitions apply where.
        let adoptions = glossary::adoptions_of(&docs, &scan, &definitions, &refs);
        let tables = Tables { docs, outlines, exact, adoptions, library_titles, scan };
        let l = Lookups::of(tables, indexes, Made::Computed, self.generation);
        self.save_lookups(&l, stamp);
        Ok(l)
    }

    /// The tables saved beside the catalog at its current stamp, if any (see [`saved`]); a file
    /// there that cannot be used is logged and computed anew.
    fn saved_lookups(&self) -> Result<Option<Lookups>, EngineError> {
        let Some(stamp) = self.catalog.change_stamp()? else { return Ok(None) };
        let start = std::time::Instant::now();
        match saved::read(&self.dir, stamp, self.generation) {
            Ok(l) => {
                if l.is_some() {
                    tracing::info!(ms = start.elapsed().as_millis() as u64, "lookup tables read back");
                }
                Ok(l)
            }
            Err(e) => {
                tracing::warn!(
                    "the saved lookup tables ({}) are not used, they are computed again: {e}",
                    saved::FILE
                );
                Ok(None)
            }
        }
    }

    /// Saves tables computed from the catalog at `stamp` (see [`saved`]), where this process
    /// writes the library and the catalog has not changed since; a failure costs the next open
    /// the time to compute them, so it is logged, not returned.
    fn save_lookups(&self, l: &Lookups, stamp: Option<i64>) {
        // A catalog that keeps no stamp (a team library's) has nothing saved.
        let Some(stamp) = stamp.filter(|_| self.is_writable()) else { return };
        match self.catalog.change_stamp() {
            Ok(Some(now)) if now == stamp => {}
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(
                    "the lookup tables are not saved: the catalog's stamp could not be read ({e})"
                );
                return;
            }
        }
        // Written on a thread of their own (at a million chunks, seconds an ingest would wait),
        // one save at a time: each thread first waits for the one before it, so that nothing here
        // waits, with the library held (searches would queue behind an ingest's wait); the
        // library waits for the last when it closes.
        let (dir, tables) = (self.dir.clone(), Tables::of(l));
        let mut slot = self.saving.lock().unwrap_or_else(|p| p.into_inner());
        let mut before = slot.take();
        let saving = move || {
            Library::saved_wait(&mut before);
            let start = std::time::Instant::now();
            match saved::save(&dir, stamp, &tables) {
                Ok(()) => tracing::info!(ms = start.elapsed().as_millis() as u64, "lookup tables saved"),
                Err(e) => tracing::warn!("the lookup tables could not be saved in {} ({e})", saved::FILE),
            }
        };
        match std::thread::Builder::new().name("folio-save-tables".into()).spawn(saving) {
            Ok(t) => *slot = Some(t),
            Err(e) => tracing::warn!("the lookup tables are not saved: no thread to save them ({e})"),
        }
    }

    /// Waits for the lookup tables being saved, if any.
    pub(super) fn saved_wait(slot: &mut Option<std::thread::JoinHandle<()>>) {
        if let Some(t) = slot.take() {
            if t.join().is_err() {
                tracing::warn!("saving the lookup tables panicked; the next open computes them");
            }
        }
    }

    /// The lookup tables after an ingest, references resolved: the installed ones extended by the
    /// documents added since, where nothing else changed (see the module note); else computed
    /// again.
    pub(super) fn lookups_after_ingest(&self) -> Result<Lookups, EngineError> {
        let start = std::time::Instant::now();
        let extended = match &self.lookup_base {
            Some(base) => self.extended(base)?,
            None => None,
        };
        let l = match extended {
            Some(l) => l,
            None => self.lookups(true)?,
        };
        let ms = start.elapsed().as_millis() as u64;
        tracing::info!(made = ?l.made, documents = l.docs.len(), ms, "lookup tables after an ingest");
        Ok(l)
    }

    /// The installed tables, computed from `base`, extended by the documents added since; `None`
    /// where more changed than that.
    fn extended(&self, base: &LookupBase) -> Result<Option<Lookups>, EngineError> {
        let TitledDocuments { docs, definitions, library_titles } = self.titled_documents()?;
        // Every document seen is still here, unchanged; the new ones come after them.
        let last_seen = base.rows.keys().max().copied().unwrap_or(i64::MIN);
        let mut added = Vec::new();
        for d in &docs {
            match base.rows.get(&d.id) {
                Some(seen) if unchanged(seen, d) => {}
                None if d.id > last_seen => added.push(d.clone()),
                _ => return Ok(None),
            }
        }
        if docs.len() != base.rows.len() + added.len() {
            return Ok(None);
        }
        let mut outlines = HashMap::with_capacity(docs.len());
        for d in docs.iter().filter(|d| base.rows.contains_key(&d.id)) {
            match self.outlines.get(&d.id) {
                Some(s) => outlines.insert(d.id, s.clone()),
                None => return Ok(None),
            };
        }
        let sections = self.read_outlines(&added, &mut outlines)?;
        let mut indexes = base.indexes.clone();
        let mut exact = self.exact.extended(&added, &sections);
        let mut scan = base.scan.clone();
        for d in &added {
            for c in self.catalog.chunks(Some(d.id))? {
                let c = c.facts();
                scan.add(&c);
                exact.add_chunk(&c);
            }
            // A new glossary's name may be in the documents already scanned.
            if scan.is_glossary(d.id, &definitions) {
                return Ok(None);
            }
        }
        let refs = self.catalog.external_references()?;
        let (refs, settled_changed) =
            self.resolve_references(&docs, &outlines, &mut indexes, &definitions, refs, Some(&base.rows))?;
        // The resolutions above write: the stamp the tables are saved with is the one after them.
        let stamp = self.catalog.change_stamp()?;
        // The added documents' references are stored after every other: their citations extend
        // the tables' in order, unless an earlier document's reference now leads elsewhere.
        let exact = exact.finish();
        let exact = if settled_changed {
            exact.with_citations(&self.catalog.resolved_references()?)
        } else {
            let ids: Vec<i64> = added.iter().map(|d| d.id).collect();
            exact.add_citations(&self.catalog.resolved_references_of(&ids)?)
        };
        let adoptions = glossary::adoptions_of(&docs, &scan, &definitions, &refs);
        let tables = Tables { docs, outlines, exact, adoptions, library_titles, scan };
        let l = Lookups::of(tables, indexes, Made::Extended, self.generation);
        self.save_lookups(&l, stamp);
        Ok(Some(l))
    }

    /// Puts computed lookup tables in place, when the library has not changed since they were
    /// computed; returns whether it put them (a change made meanwhile, such as a removal or a
    /// rename, makes them stale: compute them again).
    pub(super) fn install(&mut self, l: Lookups) -> bool {
        if l.generation != self.generation {
            return false;
        }
        let Lookups { docs, outlines, exact, adoptions, library_titles, base, made, .. } = l;
        let replaced = (
            std::mem::replace(&mut self.docs, docs),
            std::mem::replace(&mut self.outlines, outlines),
            std::mem::replace(&mut self.exact, exact),
            std::mem::replace(&mut self.adoptions, adoptions),
            std::mem::replace(&mut self.library_titles, library_titles),
            self.lookup_base.replace(base),
        );
        // Freeing the replaced tables took 1.6 s at a million chunks (millions of small
        // allocations), with the library held: they are freed on a thread of their own.
        let freeing =
            std::thread::Builder::new().name("folio-free-tables".into()).spawn(move || drop(replaced));
        if let Err(e) = freeing {
            tracing::warn!("freeing the replaced lookup tables where they were replaced: no thread ({e})");
        }
        self.lookups_extended += u64::from(made == Made::Extended);
        self.lookups_read_back += u64::from(made == Made::ReadBack);
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

    /// Resolves `refs` (references to other documents) against `docs`, and records and returns
    /// the result, and whether a reference of one of `settled` now leads elsewhere. A reference
    /// that names the document it resolved to before, one of `settled` (documents unchanged
    /// since, their sections too), resolves as before and is left as it is; so is one that named
    /// no document and still names none.
    fn resolve_references(
        &self,
        docs: &[DocumentRow],
        outlines: &HashMap<i64, Outline>,
        indexes: &mut SectionIndexes,
        definitions: &[DefinitionRow],
        mut refs: Vec<(i64, RefRow)>,
        settled: Option<&HashMap<i64, DocumentRow>>,
    ) -> Result<(Vec<(i64, RefRow)>, bool), EngineError> {
        let x = cross_index_of(docs, definitions);
        let mut out = Vec::new();
        let mut settled_changed = false;
        for (rowid, r) in &mut refs {
            let named = r.document.as_deref().and_then(|name| x.document(name));
            let as_before = match named {
                Some(d) => r.target_doc_id == Some(d) && settled.is_some_and(|s| s.contains_key(&d)),
                None => r.target_doc_id.is_none() && r.target_doc_section.is_none(),
            };
            if as_before {
                continue;
            }
            let found = named.map(|d| {
                let container = r
                    .container
                    .as_deref()
                    .and_then(|c| serde_json::from_value(serde_json::Value::from(c)).ok());
                let index = indexes
                    .entry(d)
                    .or_insert_with(|| section_index(outlines.get(&d).map(|s| s.as_slice()).unwrap_or(&[])));
                (d, index.resolve_named(&r.label, container))
            });
            let target_doc = found.map(|(d, _)| d);
            let section = found.and_then(|(d, i)| {
                let i = i?;
                outlines.get(&d).and_then(|s| s.get(i)).map(|s| s.section_id.clone())
            });
            // Only the changed ones are written (most stay as they were at the last ingest).
            if (target_doc, &section) != (r.target_doc_id, &r.target_doc_section) {
                settled_changed |= settled.is_some_and(|s| s.contains_key(&r.doc_id));
                out.push((*rowid, target_doc, section.clone()));
                (r.target_doc_id, r.target_doc_section) = (target_doc, section);
            }
        }
        self.catalog.set_resolutions(&out)?;
        Ok((refs, settled_changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LibraryOptions;
    use folio_ai::{AiError, Embedder};
    use folio_core::cancel::Cancel;
    use std::path::Path;
    use std::sync::Arc;

    /// Vectors do not matter here: every text gets the same one.
    struct Flat;

    impl Embedder for Flat {
        fn id(&self) -> &str {
            "flat"
        }
        fn dim(&self) -> usize {
            4
        }
        fn max_tokens(&self) -> usize {
            512
        }
        fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
            Ok(texts.iter().map(|_| vec![0.5; 4]).collect())
        }
        fn embed_query(&self, _text: &str) -> Result<Vec<f32>, AiError> {
            Ok(vec![0.5; 4])
        }
    }

    type Tables =
        (Vec<DocumentRow>, HashMap<i64, Outline>, ExactIndex, glossary::Adoptions, HashMap<i64, String>);

    fn tables(l: Lookups) -> Tables {
        (l.docs, l.outlines, l.exact, l.adoptions, l.library_titles)
    }

    fn installed(lib: &Library) -> Tables {
        let exact = lib.exact.clone();
        (lib.docs.clone(), lib.outlines.clone(), exact, lib.adoptions.clone(), lib.library_titles.clone())
    }

    const AML: &str = "1.\tINTRODUCTION\n1.1\tApplication\n\
        1.1.1\tAuthorised Persons are reminded that under GEN Rule 5.5.1(2) the MLRO function is a \
        mandatory appointment, as the Glossary defines it, and Part 4 of the FSMR governs \
        authorisation.\n1.1.2\tA \"Relevant Person\" means a person the Rules apply to.\n";
    const GEN: &str = "5.\tAUTHORISATION\n5.5\tMandatory appointments\n\
        5.5.1\tAn Authorised Person must make these appointments: a Senior Executive Officer and a \
        Money Laundering Reporting Officer, under AML Rule 1.1.2.\n5.5.2\tThe appointments must be \
        held by Approved Persons.\n";
    const FSMR: &str = "PART 4\tAUTHORISATION\n4.1\tA person must be authorised under GEN 5.5.1.\n";
    const GLO: &str = "1\tGlossary\n\"Authorised Person\" means a person authorised by the Regulator.\n\n\
        \"MLRO\" means the Money Laundering Reporting Officer.\n\n\"Approved Person\" means a person \
        approved for a function.\n";

    fn ingest(lib: &mut Library, dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let report = lib.ingest(std::slice::from_ref(&path), &mut |_| {}, &Cancel::new());
        assert_eq!(report.indexed.len(), 1, "{name}: {:?}", report.failed);
    }

    /// Adds a file; returns whether the ingest extended the tables from those before it (checking
    /// that what it installed equals the tables computed whole).
    fn add(lib: &mut Library, dir: &Path, name: &str, text: &str) -> bool {
        let extensions = lib.lookups_extended;
        ingest(lib, dir, name, text);
        // Resolving every reference again from scratch changes none.
        let resolutions = |lib: &Library| {
            let refs = lib.catalog.external_references().unwrap();
            refs.into_iter().map(|(id, r)| (id, r.target_doc_id, r.target_doc_section)).collect::<Vec<_>>()
        };
        let resolved = resolutions(lib);
        assert!(resolved.iter().any(|r| r.1.is_some()) || name.starts_with("AML"), "{name}: {resolved:?}");
        let whole = tables(lib.lookups(true).unwrap());
        assert_eq!(resolutions(lib), resolved, "{name}: resolved whole, the references lead elsewhere");
        assert!(
            installed(lib) == whole,
            "{name}: the tables installed after the ingest differ from whole ones"
        );
        lib.lookups_extended > extensions
    }

    #[test]
    fn tables_extended_by_added_documents_equal_tables_computed_whole() {
        let files = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let options = LibraryOptions { in_memory_vectors: true, ..LibraryOptions::default() };
        let mut lib = Library::open(dir.path(), Arc::new(Flat), options).unwrap();
        assert!(add(&mut lib, files.path(), "AML_rules.txt", AML), "a first document extends empty tables");
        assert!(add(&mut lib, files.path(), "GEN_rules.txt", GEN), "a document that AML cites");
        assert!(lib.exact.document("GEN").is_some());
        // A glossary's name ("Glossary", its label) may be in the documents before it.
        assert!(!add(&mut lib, files.path(), "GLO_glossary.txt", GLO), "a glossary is computed whole");
        assert!(add(&mut lib, files.path(), "FSMR_rules.txt", FSMR), "after the glossary");
        // A changed document is computed whole; a removal computes them whole itself, and the
        // next ingest extends those.
        assert!(!add(&mut lib, files.path(), "GEN_rules.txt", &format!("{GEN}5.5.3\tMore.\n")));
        lib.remove("FSMR").unwrap();
        assert!(add(&mut lib, files.path(), "COBS_rules.txt", "1.\tCOBS\n1.1\tUnder GEN 5.5.2 firms act.\n"));
    }

    /// A library of the four rulebooks above (a glossary, citations across them), closed.
    fn four_rulebooks(dir: &Path) -> tempfile::TempDir {
        let files = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir, Arc::new(Flat), memory()).unwrap();
        for (name, text) in [("AML_rules.txt", AML), ("GEN_rules.txt", GEN), ("GLO_glossary.txt", GLO)] {
            ingest(&mut lib, files.path(), name, text);
        }
        ingest(&mut lib, files.path(), "FSMR_rules.txt", FSMR);
        files
    }

    fn memory() -> LibraryOptions {
        LibraryOptions { in_memory_vectors: true, ..LibraryOptions::default() }
    }

    /// Opens the library; returns it and whether its tables were read back, having checked that
    /// the tables it installed are the tables computed whole.
    fn reopen(dir: &Path) -> (Library, bool) {
        let lib = Library::open(dir, Arc::new(Flat), memory()).unwrap();
        assert!(installed(&lib) == tables(lib.computed_lookups(false).unwrap()), "the tables differ");
        let read_back = lib.lookups_read_back == 1;
        (lib, read_back)
    }

    #[test]
    fn tables_saved_are_read_back_while_the_catalog_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let _files = four_rulebooks(dir.path());
        assert!(reopen(dir.path()).1, "the tables saved after the last ingest are read back");
        let (lib, read_back) = reopen(dir.path());
        assert!(read_back && lib.exact.document("GEN").is_some() && lib.docs.len() == 4);
        // A change to the catalog behind the library's back: a document renamed by another hand.
        drop(lib);
        let catalog = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
        catalog
            .execute("UPDATE documents SET user_title = 'Rules on money' WHERE label = 'AML'", [])
            .unwrap();
        drop(catalog);
        let (lib, read_back) = reopen(dir.path());
        assert!(!read_back, "tables saved before the change are not read back");
        assert!(lib.docs.iter().any(|d| d.title == "Rules on money"));
        drop(lib);
        assert!(reopen(dir.path()).1, "the tables computed then were saved");
    }

    #[test]
    fn saved_tables_damaged_or_from_another_version_are_computed_again() {
        let dir = tempfile::tempdir().unwrap();
        let _files = four_rulebooks(dir.path());
        let file = dir.path().join(saved::FILE);
        let whole = std::fs::read(&file).unwrap();
        // A part file a stopped process left is removed by the next save.
        let left = dir.path().join(format!("{}.1.part", saved::FILE));
        std::fs::write(&left, &whole[..100]).unwrap();
        let mut damaged: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut flipped = whole.clone();
        let middle = whole.len() / 2;
        flipped[middle] ^= 0x55;
        damaged.push(("a byte changed", flipped));
        damaged.push(("cut short", whole[..whole.len() - 10].to_vec()));
        damaged.push(("the header alone", whole[..64].to_vec()));
        damaged.push(("empty", Vec::new()));
        let mut other = whole.clone();
        other[40] ^= 1;
        damaged.push(("another build", other));
        for (what, bytes) in damaged {
            std::fs::write(&file, &bytes).unwrap();
            let (lib, read_back) = reopen(dir.path());
            assert!(!read_back, "{what}: read back");
            drop(lib);
            assert!(reopen(dir.path()).1, "{what}: the tables computed instead were saved again");
            assert!(!left.exists(), "{what}: the part file left is removed");
        }
    }
}
