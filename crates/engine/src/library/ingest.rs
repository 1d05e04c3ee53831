//! Ingest: convert and analyse the next file ahead (see [`super::ahead`]) while contextualizing
//! and embedding the current one (prepare), write it to every store (commit), and show it (under
//! the write lock, a moment), file by file; searches go on throughout but for that moment. After
//! the files, the lookup tables are computed again the same way (see [`super::lookups`]).

use super::ahead::{analyse, Ahead, Converted, ReadFile, Reader};
use super::*;
use folio_core::cancel::Cancel;
use folio_core::progress::Step;

/// The text embedded for a chunk: the chunk alone, or "{context}\n\n{chunk}" when an LLM wrote
/// its context (`source` `llm` or `llm-excerpt`: contextual retrieval). The structural context
/// (document and heading chain) is left out of the vector, where it cost a quarter of the word
/// pieces embedded and lowered retrieval; the keyword index keeps it. Measured on ObliQA dev, f32
/// MiniLM, all three channels: with the structural prefix Recall@10 0.767, MAP@10 0.612 (dense
/// alone 0.622 / 0.445), without it 0.777 / 0.635 (dense alone 0.667 / 0.500), ingest 423 → 326 s;
/// cookbook Pass@5/10/20 88.4 / 92.9 / 95.5 → 88.8 / 92.9 / 95.5; identifier queries 50/50 both.
/// Ingest, re-ingest (which keeps vectors by this exact text) and repair all use it.
pub(super) fn embedded_text(context: &str, source: &str, content: &str) -> String {
    if source.starts_with("llm") && !context.is_empty() {
        format!("{context}\n\n{content}")
    } else {
        content.to_string()
    }
}

/// The embedded text of a stored chunk.
pub(super) fn stored_embedded_text(c: &ChunkRow) -> String {
    embedded_text(&c.context, &c.context_source, &c.content)
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

pub(super) fn mtime_of(path: &Path) -> i64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64)
}

/// A document written to the stores, not yet shown (see [`Library::show_committed`]).
pub(super) struct Committed {
    pub(super) doc_id: i64,
    pub(super) chunks: usize,
    run: Option<ContextRun>,
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

/// What the previous version of a document offers a re-ingest.
#[derive(Default)]
pub(super) struct Previous {
    /// Contexts by chunk content hash (only when written in the same mode, and not fallbacks).
    contexts: std::collections::HashMap<String, folio_index::catalog::ChunkContext>,
    /// Vectors by the exact text that was embedded.
    vectors: std::collections::HashMap<String, Vec<f32>>,
}

impl Previous {
    pub(super) fn of(lib: &Library, doc_id: i64, mode: &str) -> Result<Previous, EngineError> {
        let same_mode = lib.catalog.context_mode(doc_id)? == mode;
        let chunks = lib.catalog.chunks(Some(doc_id))?;
        let stored = lib.vectors.document_vectors(doc_id)?;
        let mut p = Previous::default();
        for c in chunks {
            if same_mode && c.context_source != "fallback" {
                p.contexts.insert(
                    c.content_hash.clone(),
                    folio_index::catalog::ChunkContext {
                        text: c.context.clone(),
                        source: c.context_source.clone(),
                    },
                );
            }
            if let Some(v) = stored.get(&c.id) {
                p.vectors.insert(stored_embedded_text(&c), v.clone());
            }
        }
        Ok(p)
    }
}

/// How an ingest reaches the library: owned outright (the CLI), or behind a lock that it takes for
/// reading while a document is prepared and written and for writing only while the written
/// document is put in the lists kept in memory, so that searches answer during a long ingest (the
/// desktop app). One ingest at a time writes a library (the shells see to it: the desktop app's
/// ingests queue, and another process finds the library's write lock taken).
pub(super) enum Access<'a> {
    Owned(&'a mut Library),
    Shared(&'a RwLock<Library>),
}

impl Access<'_> {
    pub(super) fn prepare(
        &self,
        file: ReadFile,
        steps: &mut dyn FnMut(Step),
        cancel: &Cancel,
    ) -> Result<Option<Prepared>, EngineError> {
        match self {
            Access::Owned(l) => l.prepare_file(file, steps, cancel),
            Access::Shared(l) => read(l).prepare_file(file, steps, cancel),
        }
    }

    /// What reading files ahead needs of the library.
    pub(super) fn reader(&self) -> Reader {
        match self {
            Access::Owned(l) => Reader::of(l),
            Access::Shared(l) => Reader::of(&read(l)),
        }
    }

    pub(super) fn commit(
        &mut self,
        p: Prepared,
        steps: &mut dyn FnMut(Step),
    ) -> Result<(usize, Option<ContextRun>), EngineError> {
        let committed = match self {
            Access::Owned(l) => l.commit_file(p, steps)?,
            Access::Shared(l) => read(l).commit_file(p, steps)?,
        };
        match self {
            Access::Owned(l) => l.show_committed(committed.doc_id)?,
            Access::Shared(l) => write(l).show_committed(committed.doc_id)?,
        }
        Ok((committed.chunks, committed.run))
    }

    /// After the files: the lookup tables catch up. Shared, they are computed while searches go
    /// on, and computed again with the library to itself only when it changed meanwhile.
    pub(super) fn finish(&mut self) -> Result<(), EngineError> {
        match self {
            Access::Owned(l) => l.checkpoint_vectors(),
            Access::Shared(l) => read(l).checkpoint_vectors(),
        }
        match self {
            Access::Owned(l) => l.finish_ingest(),
            Access::Shared(l) => {
                let lookups = read(l).caught_up()?;
                let mut lib = write(l);
                if !lib.install(lookups) {
                    lib.finish_ingest()?;
                }
                Ok(())
            }
        }
    }

    pub(super) fn writable(&self) -> Result<(), EngineError> {
        match self {
            Access::Owned(l) => l.check_writable(),
            Access::Shared(l) => read(l).check_writable(),
        }
    }

    /// Where the library is, as the user names it (a folder, a team library's address).
    pub(super) fn location(&self) -> String {
        match self {
            Access::Owned(l) => l.location(),
            Access::Shared(l) => read(l).location(),
        }
    }

    /// Records a file's failure (or clears it, with `None`), so folder syncs try it again only
    /// once it changes. Bookkeeping: a failure to record is not the file's failure.
    pub(super) fn note_failure(&self, file: &Path, failure: Option<&EngineError>) {
        let lib = match self {
            Access::Owned(l) => l,
            Access::Shared(l) => &*read(l),
        };
        lib.note_failure(file, failure);
    }
}

/// Ingests into a library shared between threads: searches (which take the lock for reading) go
/// on while documents are converted, contextualized and embedded; the lock is taken for writing
/// only while each document is written.
pub fn ingest_shared(
    library: &RwLock<Library>,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
    cancel: &Cancel,
) -> IngestReport {
    ingest_with(&mut Access::Shared(library), paths, progress, cancel)
}

pub(super) fn ingest_with(
    access: &mut Access<'_>,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
    cancel: &Cancel,
) -> IngestReport {
    let start = Instant::now();
    let mut files = Vec::new();
    for p in paths {
        collect_files(p, &mut files);
    }
    let n = files.len();
    let mut report = IngestReport::default();
    if let Err(e) = access.writable() {
        report.failed.push(IngestFailure { path: access.location(), code: e.code(), message: e.to_string() });
        return report;
    }
    for (i, file) in files.iter().enumerate() {
        progress(Progress {
            file: file.display().to_string(),
            file_index: i,
            files: n,
            stage: Stage::Queued,
            done: 0,
            total: 1,
            error: None,
            remaining_s: None,
        });
    }
    let reader = access.reader();
    std::thread::scope(|scope| {
        let ahead = Ahead::start(scope, &reader, &files, cancel);
        ingest_files(access, &files, &ahead, &mut report, progress, cancel);
    });
    // Where every file was unchanged nothing was written, and the lookup tables (recomputed from
    // the whole library) stand as they are: a folder sync of a large library costs its reads.
    let wrote = !report.indexed.is_empty() || !report.failed.is_empty();
    if let Err(e) = if wrote { access.finish() } else { Ok(()) } {
        report.failed.push(IngestFailure { path: access.location(), code: e.code(), message: e.to_string() });
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// The ingest's own loop: takes each file from the reader, then contextualizes, embeds and
/// writes it.
fn ingest_files(
    access: &mut Access<'_>,
    files: &[PathBuf],
    ahead: &Ahead,
    report: &mut IngestReport,
    progress: &mut dyn FnMut(Progress),
    cancel: &Cancel,
) {
    let n = files.len();
    let sizes: Vec<u64> = files.iter().map(|f| std::fs::metadata(f).map_or(0, |m| m.len())).collect();
    let eta = Eta { start: Instant::now(), total: sizes.iter().sum::<u64>().max(1) as f64 };
    let mut before = 0u64;
    for (i, file) in files.iter().enumerate() {
        if cancel.is_cancelled() {
            report.cancelled = true;
            break;
        }
        let name = file.display().to_string();
        let (size, done_before) = (sizes[i], before);
        before += size;
        let ev = |stage, done, total| Progress {
            file: name.clone(),
            file_index: i,
            files: n,
            stage,
            done,
            total,
            error: None,
            remaining_s: eta.remaining(done_before as f64 + size as f64 * file_share(stage, done, total)),
        };
        progress(ev(Stage::Converting, 0, 1));
        let Some(read) = ahead.next(&mut |s| progress(ev(s.stage, s.done, s.total))) else {
            // The reader stops early only when the ingest is cancelled.
            report.cancelled = true;
            progress(ev(Stage::Cancelled, 0, 1));
            break;
        };
        let outcome = match access.prepare(read, &mut |s| progress(ev(s.stage, s.done, s.total)), cancel) {
            Ok(Some(p)) => {
                progress(ev(Stage::Indexing, 0, 4));
                access.commit(p, &mut |s| progress(ev(s.stage, s.done, s.total))).map(Some)
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        match outcome {
            Ok(Some((chunks, run))) => {
                access.note_failure(file, None);
                report.chunks += chunks;
                report.contexts.extend(run);
                report.indexed.push(name.clone());
                progress(ev(Stage::Indexed, 1, 1));
            }
            Ok(None) => {
                access.note_failure(file, None);
                report.unchanged.push(name.clone());
                progress(ev(Stage::Unchanged, 1, 1));
            }
            Err(EngineError::Cancelled) => {
                report.cancelled = true;
                progress(ev(Stage::Cancelled, 0, 1));
                break;
            }
            Err(e) => {
                access.note_failure(file, Some(&e));
                // The failure names the file already: the message is the reason alone.
                let failure = IngestFailure { path: name.clone(), code: e.code(), message: e.reason() };
                let error = Some(crate::BackendError::new(failure.code, failure.message.clone()));
                report.failed.push(failure);
                progress(Progress { error, ..ev(Stage::Failed, 1, 1) });
            }
        }
    }
}

/// The time an ingest has left, from the bytes of its files read so far.
struct Eta {
    start: Instant,
    /// Bytes of all the files.
    total: f64,
}

impl Eta {
    /// Seconds left when `done` bytes are read; none in the first two seconds or before any byte.
    fn remaining(&self, done: f64) -> Option<f64> {
        let elapsed = self.start.elapsed().as_secs_f64();
        (elapsed >= 2.0 && done > 0.0).then(|| elapsed * (self.total - done).max(0.0) / done)
    }
}

/// How much of a file's work a stage's progress stands for: reading it a fifth, embedding its
/// chunks most of the rest.
fn file_share(stage: Stage, done: usize, total: usize) -> f64 {
    let f = if total == 0 { 0.0 } else { done as f64 / total as f64 };
    match stage {
        Stage::Converting => 0.15 * f,
        Stage::Analysing => 0.15 + 0.05 * f,
        Stage::Contextualizing => 0.2,
        Stage::Embedding => 0.2 + 0.75 * f,
        Stage::Indexing => 0.95 + 0.05 * f,
        Stage::Indexed | Stage::Unchanged | Stage::Failed => 1.0,
        _ => 0.0,
    }
}

/// A file's modification time (Unix seconds) and size.
pub(super) fn file_stamp(path: &Path) -> Option<(i64, i64)> {
    let m = std::fs::metadata(path).ok()?;
    let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    Some((mtime, m.len() as i64))
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
    /// Ingests files and folders (recursively). Unchanged files are skipped; a file that fails is
    /// reported and the others go on; `cancel` stops between files and between embedding batches.
    pub fn ingest(
        &mut self,
        paths: &[PathBuf],
        progress: &mut dyn FnMut(Progress),
        cancel: &Cancel,
    ) -> IngestReport {
        ingest_with(&mut Access::Owned(self), paths, progress, cancel)
    }

    /// Sets how chunks get their context in later ingests.
    pub fn set_context(&mut self, mode: ContextMode) {
        self.options.context = mode;
    }

    /// What contextualizing `paths` with the configured LLM would cost, counting only chunks not in
    /// the cache; `None` when the context mode is not an LLM. Converts the files (nothing is stored).
    pub fn estimate_context(&self, paths: &[PathBuf]) -> Result<Option<(Estimate, usize)>, EngineError> {
        let ContextMode::Llm { writer, prices, .. } = &self.options.context else { return Ok(None) };
        let mut files = Vec::new();
        for p in paths {
            collect_files(p, &mut files);
        }
        let docs: Vec<_> = files
            .iter()
            .filter_map(|f| convert_file_guarded(f, &self.options.convert, &Cancel::new()).ok())
            .map(|d| analyze(d, self.counter.as_ref(), &self.options.chunker))
            .collect();
        Ok(Some(plan(self.catalog.as_ref(), writer.as_ref(), prices, &docs)?))
    }

    /// Every recorded LLM contextualizing run, oldest first.
    pub fn context_runs(&self) -> Result<Vec<ContextRun>, EngineError> {
        Ok(self.catalog.context_runs()?)
    }

    /// The slow half of ingesting one file, which only reads the library (searches go on meanwhile):
    /// convert, analyse, contextualize and embed. `Ok(None)` when the file is unchanged.
    pub(super) fn prepare_file(
        &self,
        file: ReadFile,
        steps: &mut dyn FnMut(Step),
        cancel: &Cancel,
    ) -> Result<Option<Prepared>, EngineError> {
        let ReadFile { abs, converted } = file;
        let converted = converted?;
        let path = abs.display().to_string();
        let mtime = mtime_of(&abs);
        let mode = self.options.context.tag();
        let old = self.catalog.document_by_path(&path)?;
        if let Some(old) = &old {
            if old.content_hash == converted.content_hash() {
                let same_mode = self.catalog.context_mode(old.id)? == mode;
                // Chunks whose LLM request failed last time are asked again.
                let retry = self.options.context.is_llm() && self.catalog.fallback_chunks(old.id)? > 0;
                if same_mode && !retry {
                    // Touched or copied over with the same text: remember the new time and size,
                    // so folder syncs need not read it again.
                    if let Some((mtime, size)) = file_stamp(&abs).filter(|s| *s != (old.mtime, old.size)) {
                        self.catalog.set_stamp(old.id, mtime, size)?;
                    }
                    return Ok(None);
                }
            }
        }
        // A team library holds one document per content: the same file added on another computer
        // (at another path) is there already.
        if old.is_none()
            && self.catalog.one_document_per_content()
            && self.catalog.document_by_hash(converted.content_hash())?.is_some()
        {
            return Ok(None);
        }
        let size = std::fs::metadata(&abs).map(|m| m.len() as i64).unwrap_or(0);
        let analysis = match converted {
            Converted::Analysed(a) => a,
            Converted::Known(doc) => analyse(doc, self.counter.as_ref(), &self.options.chunker, steps),
        };
        let label = document_label(&path);
        // What the previous version of the document already has, by chunk text: its contexts (when
        // written the same way) and vectors are kept for the chunks whose text did not change.
        // A file new at this path may be a renamed or copied one: the document with its content
        // offers the same.
        let reuse = match &old {
            Some(old) => Some(old.clone()),
            None => self.catalog.document_by_hash(&analysis.document.meta.content_hash)?,
        };
        let previous = match &reuse {
            Some(d) => Previous::of(self, d.id, &mode)?,
            None => Previous::default(),
        };
        steps(Step::new(Stage::Contextualizing, 0, analysis.chunks.len()));
        let (contexts, run) = contextualize(
            self.catalog.as_ref(),
            &self.options.context,
            &crate::context::DocumentInput {
                analysis: &analysis,
                label: &label,
                path: &path,
                previous: &previous.contexts,
            },
            cancel,
            steps,
        )?;
        let texts: Vec<String> = analysis
            .chunks
            .iter()
            .zip(&contexts)
            .map(|(c, x)| embedded_text(&x.text, &x.source, &c.text))
            .collect();
        let mut vectors: Vec<Option<Vec<f32>>> =
            texts.iter().map(|t| previous.vectors.get(t).cloned()).collect();
        let todo: Vec<usize> = (0..texts.len()).filter(|i| vectors[*i].is_none()).collect();
        let total = todo.len();
        let refs: Vec<&str> = todo.iter().map(|i| texts[*i].as_str()).collect();
        // A step before each part and when all are done, so the last part is seen done.
        let got = self
            .embedder
            .embed_documents_in_parts(&refs, self.options.embed_batch, &mut |done| {
                steps(Step::new(Stage::Embedding, done, total));
                !cancel.is_cancelled()
            })?
            .ok_or(EngineError::Cancelled)?;
        for (i, v) in todo.iter().zip(got) {
            vectors[*i] = Some(v);
        }
        let vectors = vectors.into_iter().map(Option::unwrap_or_default).collect();
        Ok(Some(Prepared { path, mtime, size, label, mode, analysis, contexts, run, vectors }))
    }

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
        self.docs = self.documents()?;
        self.outlines.insert(doc_id, std::sync::Arc::new(self.catalog.sections(doc_id)?));
        self.changed();
        Ok(())
    }

    /// The lookup tables as they are once an ingest's files are written, and the catalog
    /// checkpointed (see [`Access::finish`]).
    pub(super) fn caught_up(&self) -> Result<super::lookups::Lookups, EngineError> {
        let lookups = self.lookups_after_ingest()?;
        self.catalog.checkpoint()?;
        Ok(lookups)
    }

    /// After the files, with the library to itself: the lookup tables and cross-document
    /// references catch up.
    pub(super) fn finish_ingest(&mut self) -> Result<(), EngineError> {
        let lookups = self.lookups_after_ingest()?;
        let installed = self.install(lookups);
        debug_assert!(installed, "nothing changes a library held exclusively");
        Ok(self.catalog.checkpoint()?)
    }
}
