//! A library's documents and what is in them: listing, finding, renaming and removing documents;
//! a section's text, breadcrumb, references and tables; the definitions of terms.

use super::{
    lookups, nearest, titles, Backlinks, Crumb, DefinitionHit, Library, MissingDocument, SectionText,
};
use crate::EngineError;
use folio_index::catalog::{ChunkRow, DocumentRow, RefRow, SectionRow, TableRow};
use folio_index::exact::number_keys;
use std::path::Path;

impl Library {
    /// A section's row, from the outlines kept in memory.
    pub(crate) fn section_row(&self, doc_id: i64, section_id: &str) -> Option<&SectionRow> {
        self.outlines.get(&doc_id)?.iter().find(|s| s.section_id == section_id)
    }

    /// The breadcrumb of a section: its ancestors below the document root, then itself.
    pub fn crumbs(&self, doc_id: i64, section_id: &str) -> Vec<Crumb> {
        let Some(sections) = self.outlines.get(&doc_id) else { return Vec::new() };
        let Some(s) = sections.iter().find(|s| s.section_id == section_id) else { return Vec::new() };
        let mut out = vec![Crumb { section_id: s.section_id.clone(), heading: s.heading.clone() }];
        let mut cur = s.parent_ord;
        while let Some(p) = cur.filter(|p| *p > 0) {
            let Some(ps) = sections.get(p as usize) else { break };
            out.push(Crumb { section_id: ps.section_id.clone(), heading: ps.heading.clone() });
            cur = ps.parent_ord;
        }
        out.reverse();
        out
    }

    /// A citation of a chunk: "GEN 2.1.3, General Rulebook, p. 12".
    pub(super) fn citation(
        &self,
        doc: Option<&DocumentRow>,
        section_id: &str,
        pages: Option<folio_core::model::PageRange>,
    ) -> String {
        let Some(d) = doc else { return String::new() };
        let section = self.outlines.get(&d.id).and_then(|v| v.iter().find(|s| s.section_id == section_id));
        let mut out = match section {
            Some(s) if s.number.is_some() => format!("{} {}", d.label, s.number.as_deref().unwrap_or("")),
            Some(s) if s.parent_ord.is_some() => format!("{}, {}", d.label, s.heading),
            _ => d.label.clone(),
        };
        if !d.title.is_empty() && d.title != d.label {
            out.push_str(&format!(", {}", d.title));
        }
        match pages {
            Some(p) if p.end > p.start => out.push_str(&format!(", pp. {}–{}", p.start, p.end)),
            Some(p) => out.push_str(&format!(", p. {}", p.start)),
            None => {}
        }
        out
    }

    /// The documents the library cites most but does not hold, most cited first: what to add so
    /// its references lead somewhere. Names written differently ("the Insolvency Regulations",
    /// "Insolvency Regulations 2015") count as one, shown as most often written.
    pub fn missing_documents(&self, limit: usize) -> Result<Vec<MissingDocument>, EngineError> {
        let mut by_key: std::collections::HashMap<
            String,
            (std::collections::HashMap<String, usize>, std::collections::HashSet<i64>),
        > = std::collections::HashMap::new();
        let unresolved = self.catalog.unresolved_documents()?;
        let abbreviations = titles::instrument_abbreviations(
            &self.catalog.definitions(None)?,
            unresolved.iter().map(|u| (&u.1, &u.2)),
        );
        for (doc, name, _) in unresolved {
            // Only instruments: "Act", "LLC" or "NA" name no document to add.
            if !titles::is_instrument(&name, &abbreviations) {
                continue;
            }
            let key = folio_core::crossref::name_key(&name);
            if key.is_empty() {
                continue;
            }
            let entry = by_key.entry(key).or_default();
            *entry.0.entry(name).or_default() += 1;
            entry.1.insert(doc);
        }
        let mut out: Vec<MissingDocument> = by_key
            .into_values()
            .map(|(names, docs)| {
                let citations = names.values().sum();
                let name = names
                    .into_iter()
                    .max_by(|a, b| a.1.cmp(&b.1).then(b.0.len().cmp(&a.0.len())))
                    .map(|(n, _)| n)
                    .unwrap_or_default();
                MissingDocument { name, citations, citing_documents: docs.len() }
            })
            .collect();
        out.sort_by(|a, b| b.citations.cmp(&a.citations).then(a.name.cmp(&b.name)));
        out.truncate(limit);
        Ok(out)
    }

    /// Removes a document (by id, label or path).
    pub fn remove(&mut self, doc: &str) -> Result<DocumentRow, EngineError> {
        self.check_writable()?;
        let d = self.find_document(doc)?;
        self.vectors.remove_document(d.id)?;
        self.keyword.remove_document(d.id)?;
        self.keyword.commit()?;
        self.catalog.remove_document(d.id)?;
        self.checkpoint_vectors();
        self.rebuild_lookups(true)?;
        Ok(d)
    }

    /// All documents.
    pub fn documents(&self) -> Result<Vec<DocumentRow>, EngineError> {
        let mut docs = self.catalog.documents()?;
        self.titled(&mut docs);
        Ok(docs)
    }

    /// Documents with the titles the library gives those known only by their label.
    fn titled(&self, docs: &mut [DocumentRow]) {
        lookups::titled(&self.library_titles, docs);
    }

    /// Names a document as the user wants it cited, or (`None`, or an empty title) gives it back
    /// the title its file gives; the name stays when the document is indexed again.
    pub fn rename(&mut self, doc: &str, title: Option<&str>) -> Result<DocumentRow, EngineError> {
        self.check_writable()?;
        let d = self.find_document(doc)?;
        let title = title.map(str::trim).filter(|t| !t.is_empty());
        self.catalog.rename_document(d.id, title)?;
        self.rebuild_lookups(false)?;
        self.find_document(&d.id.to_string())
    }

    /// A document by id, label, path or file name.
    pub fn find_document(&self, key: &str) -> Result<DocumentRow, EngineError> {
        let docs = self.documents()?;
        let found = docs
            .iter()
            .find(|d| d.id.to_string() == key || d.path == key)
            .or_else(|| docs.iter().find(|d| d.label.eq_ignore_ascii_case(key)))
            .or_else(|| {
                docs.iter()
                    .find(|d| Path::new(&d.path).file_name().is_some_and(|n| n.to_string_lossy() == key))
            })
            .or_else(|| docs.iter().find(|d| d.title.eq_ignore_ascii_case(key)));
        found.cloned().ok_or_else(|| EngineError::NotFound(format!("no document '{key}' in the library")))
    }

    /// Definitions of a term (by its normalised key), each with its document.
    pub fn define(&self, term: &str) -> Result<Vec<DefinitionHit>, EngineError> {
        let key = folio_core::definitions::normalise_term(term.trim_matches(|c: char| "\"'“”‘’".contains(c)));
        self.definition_hits(Some(&key))
    }

    /// Every definition in the library (a glossary), in document order.
    pub fn definitions(&self) -> Result<Vec<DefinitionHit>, EngineError> {
        self.definition_hits(None)
    }

    /// Definitions of one key, or all, each with its document's label.
    pub(super) fn definition_hits(&self, key: Option<&str>) -> Result<Vec<DefinitionHit>, EngineError> {
        let docs = self.catalog.documents()?;
        Ok(self
            .catalog
            .definitions(key)?
            .into_iter()
            .map(|d| DefinitionHit {
                document: docs.iter().find(|x| x.id == d.doc_id).map(|x| x.label.clone()).unwrap_or_default(),
                doc_id: d.doc_id,
                definition: d,
            })
            .collect())
    }

    /// A document's outline.
    pub fn outline(&self, doc: &str) -> Result<(DocumentRow, Vec<SectionRow>), EngineError> {
        let d = self.find_document(doc)?;
        let s = self.catalog.sections(d.id)?;
        Ok((d, s))
    }

    /// A section's text (doc may be omitted when the section id is unique in the library).
    pub fn show(&self, doc: Option<&str>, section: &str) -> Result<SectionText, EngineError> {
        let candidates: Vec<DocumentRow> = match doc {
            Some(k) => vec![self.find_document(k)?],
            None => self.catalog.documents()?,
        };
        let named = doc.is_some().then(|| candidates[0].clone());
        for d in candidates {
            let sections = self.catalog.sections(d.id)?;
            let wanted = sections.iter().find(|s| s.section_id == section).or_else(|| {
                let keys = number_keys(section);
                sections.iter().find(|s| {
                    s.number.as_deref().is_some_and(|n| number_keys(n).iter().any(|k| keys.contains(k)))
                })
            });
            if let Some(s) = wanted {
                let text = self.catalog.document_text(d.id)?;
                let body = text.get(s.span.start..s.span.end).unwrap_or("").to_string();
                let mut chain = Vec::new();
                let mut cur = s.parent_ord;
                while let Some(p) = cur {
                    let ps = &sections[p as usize];
                    chain.push(if p == 0 { d.title.clone() } else { ps.heading.clone() });
                    cur = ps.parent_ord;
                }
                chain.reverse();
                chain.push(s.heading.clone());
                return Ok(SectionText {
                    doc_id: d.id,
                    document: d.label.clone(),
                    section: s.clone(),
                    parent_chain: chain,
                    text: body,
                });
            }
        }
        Err(EngineError::NotFound(match named {
            Some(d) => {
                let sections = self.catalog.sections(d.id)?;
                let near = nearest::nearest(section, sections.iter().filter_map(|s| s.number.as_deref()), 3);
                if near.is_empty() {
                    format!("no section '{section}' in {}", d.label)
                } else {
                    format!("no section '{section}' in {}; nearest: {}", d.label, near.join(", "))
                }
            }
            None => format!("no section '{section}' in the library"),
        }))
    }

    /// References out of a section and backlinks into it.
    pub fn references(&self, doc: Option<&str>, section: &str) -> Result<Backlinks, EngineError> {
        let s = self.show(doc, section)?;
        Ok(Backlinks {
            // Everything the Reader shows with the section refers from it: its subsections and
            // guidance too, each reference saying which part it is written in (`from_section`).
            outgoing: self.catalog.references_within(s.doc_id, s.section.span)?,
            incoming: self.catalog.references(s.doc_id, &s.section.section_id, false)?,
        })
    }

    /// References written inside a section (its subsections included).
    pub fn section_references(&self, doc_id: i64, section: &SectionRow) -> Result<Vec<RefRow>, EngineError> {
        Ok(self.catalog.references_within(doc_id, section.span)?)
    }

    /// The tables inside a section's text.
    pub fn section_tables(&self, doc_id: i64, section: &SectionRow) -> Result<Vec<TableRow>, EngineError> {
        Ok(self.catalog.tables_within(doc_id, section.span)?)
    }

    /// One chunk by id.
    pub fn chunk(&self, id: i64) -> Result<Option<ChunkRow>, EngineError> {
        Ok(self.catalog.chunks_by_id(&[id])?.into_iter().next())
    }
}
