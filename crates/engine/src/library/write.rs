//! Writing: a document prepared by the ingest (or rebuilt by a repair) goes to every store, then
//! into the lists kept in memory; the ingest writes each file on a thread of its own while it
//! embeds the next, told how the write goes through [`Writing`].

use super::*;
use folio_core::progress::Step;
use std::sync::Mutex;

/// A document written to the stores, not yet shown (see [`Library::show_committed`]).
pub(super) struct Committed {
    pub(super) doc_id: i64,
    pub(super) chunks: usize,
    pub(super) run: Option<ContextRun>,
}

/// A document converted, analysed, contextualized and embedded, not yet written.
pub(super) struct Prepared {
    pub(super) path: String,
    pub(super) mtime: i64,
    pub(super) size: i64,
    pub(super) label: String,
    pub(super) mode: String,
    pub(super) analysis: folio_core::analysis::Analysis,
    pub(super) contexts: Vec<folio_index::catalog::ChunkContext>,
    pub(super) run: Option<ContextRun>,
    pub(super) vectors: Vec<Vec<f32>>,
}

/// Replaces a document's chunks in the keyword index here: the contextualized text beside the
/// heading chain (uncommitted). Nothing where the server ranks (it has the words in the rows).
pub(super) fn put_keywords(
    keyword: &Keywords,
    doc_id: i64,
    rows: &[ChunkRow],
) -> Result<(), folio_index::IndexError> {
    let Some(keyword) = keyword.local() else { return Ok(()) };
    let chains: Vec<String> = rows.iter().map(|r| r.parent_chain.join(" › ")).collect();
    let bodies: Vec<String> = rows.iter().map(ChunkRow::contextualized).collect();
    let kdocs: Vec<KeywordDoc<'_>> = rows
        .iter()
        .zip(&chains)
        .zip(&bodies)
        .map(|((r, chain), body)| KeywordDoc {
            chunk_id: r.id as u64,
            doc_id: doc_id as u64,
            chunk_type: &r.chunk_type,
            text: body,
            headings: chain,
        })
        .collect();
    keyword.put_document(doc_id as u64, &kdocs)
}

/// The document a vector record comes from.
pub(super) struct RecordSource<'a> {
    pub(super) path: &'a str,
    pub(super) mtime: i64,
    pub(super) size: i64,
    pub(super) format: &'a str,
    pub(super) title: &'a str,
}

/// A chunk's LanceDB record, with the JSON of the references written in it and the first term it
/// defines (term, key).
pub(super) fn vector_record(
    r: &ChunkRow,
    v: &[f32],
    doc: &RecordSource<'_>,
    cross_references: String,
    defined: Option<(&str, &str)>,
) -> VectorRecord {
    VectorRecord {
        chunk_id: r.id,
        doc_id: r.doc_id,
        source_path: doc.path.to_string(),
        chunk_index: r.chunk_index,
        content: r.content.clone(),
        contextualized_content: r.contextualized(),
        embedding: v.to_vec(),
        mtime: doc.mtime,
        file_type: doc.format.to_string(),
        file_size_bytes: doc.size,
        parent_chain: serde_json::to_string(&r.parent_chain).unwrap_or_default(),
        section_id: r.section_id.clone(),
        heading_level: r.heading_level,
        chunk_type: r.chunk_type.clone(),
        cross_references,
        doc_summary: doc.title.to_string(),
        defined_term: defined.map(|(t, _)| t.to_string()),
        defined_term_normalized: defined.map(|(_, k)| k.to_string()),
        page_start: r.pages.map(|p| p.start as i64),
        page_end: r.pages.map(|p| p.end as i64),
        char_start: r.span.start as i64,
        char_end: r.span.end as i64,
        content_hash: r.content_hash.clone(),
    }
}

impl Library {
    /// Writes a prepared document to the catalog, the vectors and the keyword index, an
    /// [`Stage::Indexing`] step after each of the four writes. Searches do not show it until
    /// [`Library::show_committed`] puts it in the document list.
    pub(super) fn commit_file(
        &self,
        p: Prepared,
        steps: &mut dyn FnMut(Step),
    ) -> Result<Committed, EngineError> {
        let mut indexing = |done| steps(Step::new(Stage::Indexing, done, 4));
        let Prepared { path, mtime, size, label, mode, analysis, contexts, run, vectors, .. } = p;
        // The catalog first (the document marked `writing`, so nothing shows it yet), then the
        // vectors and the keyword index, then the mark `indexed`. A crash in between leaves a
        // `writing` document, which the next open rolls back (see `reconcile`).
        let old_id = self.catalog.document_by_path(&path)?.map(|d| d.id);
        let (doc_id, rows) = self.catalog.put_document(&NewDocument {
            path: &path,
            label: &label,
            mtime,
            size,
            analysis: &analysis,
            contexts: &contexts,
            context_mode: &mode,
        })?;
        if let Some(run) = &run {
            self.catalog.record_context_run(run)?;
        }
        let source = RecordSource {
            path: &path,
            mtime,
            size,
            format: analysis.document.meta.format.as_str(),
            title: &analysis.document.meta.title,
        };
        let records: Vec<VectorRecord> = rows
            .iter()
            .zip(&vectors)
            .map(|(r, v)| {
                let refs: Vec<&folio_core::crossref::CrossReference> = analysis
                    .references
                    .iter()
                    .filter(|x| x.span.start >= r.span.start && x.span.end <= r.span.end)
                    .collect();
                let def =
                    r.defined_terms.first().and_then(|k| analysis.definitions.iter().find(|d| &d.key == k));
                let refs_json = serde_json::to_string(&refs).unwrap_or_default();
                vector_record(r, v, &source, refs_json, def.map(|d| (d.term.as_str(), d.key.as_str())))
            })
            .collect();
        indexing(1);
        self.vectors.put_document(doc_id, &records)?;
        indexing(2);
        if let Some(old) = old_id.filter(|o| *o != doc_id) {
            self.vectors.remove_document(old)?;
        }
        if self.is_team() {
            // A team library's keyword index is this computer's cache of the catalog: it follows
            // the change the mark below records, as it follows other clients' changes.
            indexing(3);
            self.catalog.mark_indexed(doc_id)?;
            self.sync_keywords()?;
        } else {
            put_keywords(&self.keyword, doc_id, &rows)?;
            if let Some(old) = old_id.filter(|o| *o != doc_id) {
                self.keyword.remove_document(old)?;
            }
            self.keyword.commit()?;
            indexing(3);
            self.catalog.mark_indexed(doc_id)?;
        }
        indexing(4);
        Ok(Committed { doc_id, chunks: rows.len(), run })
    }

    /// Shows a written document: searchable from now on (the exact index catches up when the
    /// ingest finishes).
    pub(super) fn show_committed(&mut self, doc_id: i64) -> Result<(), EngineError> {
        let shown = self.showing(doc_id)?;
        self.put_shown(shown);
        Ok(())
    }

    /// What showing a written document reads from the catalog.
    pub(super) fn showing(&self, doc_id: i64) -> Result<Shown, EngineError> {
        Ok(Shown {
            docs: self.documents()?,
            doc_id,
            outline: std::sync::Arc::new(self.catalog.sections(doc_id)?),
        })
    }

    /// Puts what [`Self::showing`] read in the lists kept in memory.
    pub(super) fn put_shown(&mut self, shown: Shown) {
        self.docs = shown.docs;
        self.outlines.insert(shown.doc_id, shown.outline);
        self.changed();
    }
}

/// What showing a written document puts in the lists kept in memory.
pub(super) struct Shown {
    docs: Vec<DocumentRow>,
    doc_id: i64,
    outline: super::lookups::Outline,
}

/// A file being written on a thread of its own: its steps as they come, then its outcome.
#[derive(Default)]
pub(super) struct Writing {
    state: Mutex<WriteState>,
}

#[derive(Default)]
struct WriteState {
    steps: Vec<Step>,
    outcome: Option<Result<Committed, EngineError>>,
}

impl Writing {
    /// The steps the write took since last asked, and its outcome once it is done (given once).
    pub(super) fn news(&self) -> (Vec<Step>, Option<Result<Committed, EngineError>>) {
        let mut state = self.state();
        (std::mem::take(&mut state.steps), state.outcome.take())
    }

    pub(super) fn step(&self, s: Step) {
        self.state().steps.push(s);
    }

    pub(super) fn done(&self, outcome: Result<Committed, EngineError>) {
        self.state().outcome = Some(outcome);
    }

    /// The state, taken over from a thread that panicked holding it (the panic itself reaches the
    /// ingest when the writing thread is joined).
    fn state(&self) -> std::sync::MutexGuard<'_, WriteState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
