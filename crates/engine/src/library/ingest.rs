//! Ingest: convert and analyse the next file ahead (see [`super::ahead`]) while the current one is
//! planned (what the library already has of it, its contexts) and embedded (no lock held), and
//! the one before it is written to every store and shown (under the write lock, a moment: see
//! [`super::write`]); searches go on throughout but for that moment. After the files, the lookup
//! tables are computed again the same way (see [`super::lookups`]).

use super::ahead::{analyse, Ahead, Converted, ReadFile, Reader};
use super::progress::{Eta, FileEvents};
use super::write::{Shown, Writing};
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

pub(super) fn mtime_of(path: &Path) -> i64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64)
}

/// A document planned: what contextualizing and embedding it need, apart from the library (no
/// lock is held while they run: an LLM's contexts or a long document's vectors take minutes).
pub(super) struct Planned {
    path: String,
    mtime: i64,
    size: i64,
    label: String,
    mode: String,
    analysis: folio_core::analysis::Analysis,
    /// What the previous version of the document offers.
    previous: Previous,
    /// The catalog, for the LLM contexts it caches.
    catalog: Arc<dyn Catalog>,
    context: ContextMode,
    embedder: Arc<dyn Embedder>,
    /// Texts a part of the embedding (see [`Embedder::embed_documents_in_parts`]).
    part: usize,
}

impl Planned {
    /// Contextualizes the document, then embeds the chunks whose text the previous version has no
    /// vector for, an [`Stage::Embedding`] step before each part and when all are done (so the last
    /// part is seen done); stops between parts once `cancel` is.
    pub(super) fn prepare(
        self,
        steps: &mut dyn FnMut(Step),
        cancel: &Cancel,
    ) -> Result<Prepared, EngineError> {
        let Planned { path, mtime, size, label, mode, analysis, previous, catalog, context, embedder, part } =
            self;
        steps(Step::new(Stage::Contextualizing, 0, analysis.chunks.len()));
        let (contexts, run) = contextualize(
            catalog.as_ref(),
            &context,
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
        let got = embedder
            .embed_documents_in_parts(&refs, part, &mut |done| {
                steps(Step::new(Stage::Embedding, done, total));
                !cancel.is_cancelled()
            })?
            .ok_or(EngineError::Cancelled)?;
        for (i, v) in todo.iter().zip(got) {
            vectors[*i] = Some(v);
        }
        let vectors = vectors.into_iter().map(Option::unwrap_or_default).collect();
        Ok(Prepared { path, mtime, size, label, mode, analysis, contexts, run, vectors })
    }
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
/// reading while a document is planned and written (not while it is embedded) and for writing only
/// while the written document is put in the lists kept in memory, so that searches answer during a
/// long ingest (the desktop app). One ingest at a time writes a library (the shells see to it: the desktop app's
/// ingests queue, and another process finds the library's write lock taken).
pub(super) enum Access<'a> {
    Owned(&'a mut Library),
    Shared(&'a RwLock<Library>),
}

impl Access<'_> {
    /// [`Library::plan_file`], under the read lock (a moment: the catalog's answers).
    pub(super) fn plan_file(
        &self,
        file: ReadFile,
        writing: Option<(&str, &str)>,
        steps: &mut dyn FnMut(Step),
    ) -> Result<Option<Planned>, EngineError> {
        match self {
            Access::Owned(l) => l.plan_file(file, writing, steps),
            Access::Shared(l) => read(l).plan_file(file, writing, steps),
        }
    }

    /// What reading files ahead needs of the library.
    pub(super) fn reader(&self) -> Reader {
        match self {
            Access::Owned(l) => Reader::of(l),
            Access::Shared(l) => Reader::of(&read(l)),
        }
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

    /// Writes `file` (when there is one) on a thread of its own, telling `writing` its steps and
    /// outcome, while `meanwhile` runs on this one. The file is shown once written: in a shared
    /// library by the writing thread at once (the write lock a moment: `meanwhile` must not hold
    /// the read lock long); in an owned one (no one else reads it meanwhile) the writing thread
    /// reads what showing it needs and this one shows it once `meanwhile` is done.
    pub(super) fn write_while<T>(
        &mut self,
        file: Option<Prepared>,
        writing: &Writing,
        meanwhile: impl FnOnce(&Access<'_>) -> T,
    ) -> T {
        let this = &*self;
        let (shown, out) = std::thread::scope(|scope| {
            let writer = file.map(|p| scope.spawn(move || this.write(p, writing)));
            let out = meanwhile(this);
            // A panic while writing is the ingest's, as it was before writes had a thread.
            let shown =
                writer.and_then(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            (shown, out)
        });
        if let (Some(shown), Access::Owned(l)) = (shown, &mut *self) {
            l.put_shown(shown);
        }
        out
    }

    /// Writes one file, telling `writing` its steps and outcome (and the catalog's list of failed
    /// files); shows it in a shared library, and returns what showing it takes in an owned one.
    fn write(&self, file: Prepared, writing: &Writing) -> Option<Shown> {
        let path = PathBuf::from(&file.path);
        let mut step = |s| writing.step(s);
        let (outcome, shown) = match self {
            Access::Owned(l) => {
                match l.commit_file(file, &mut step).and_then(|c| Ok((l.showing(c.doc_id)?, c))) {
                    Ok((shown, c)) => (Ok(c), Some(shown)),
                    Err(e) => (Err(e), None),
                }
            }
            Access::Shared(l) => {
                let written = read(l).commit_file(file, &mut step);
                (written.and_then(|c| write(l).show_committed(c.doc_id).map(|()| c)), None)
            }
        };
        // Noted here, where no lock is held (the ingest's thread may hold the read lock when it
        // learns the outcome).
        self.note_failure(&path, outcome.as_ref().err());
        writing.done(outcome);
        shown
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

/// The ingest's own loop: takes each file from the reader, then contextualizes and embeds it, and
/// writes it on a thread of its own while the next file is embedded (see [`Access::write_while`]):
/// the writes use one core, so the encoder has the others meanwhile. Events still come file by
/// file ([`InOrder`]).
fn ingest_files(
    access: &mut Access<'_>,
    files: &[PathBuf],
    ahead: &Ahead,
    report: &mut IngestReport,
    progress: &mut dyn FnMut(Progress),
    cancel: &Cancel,
) {
    let sizes: Vec<u64> = files.iter().map(|f| std::fs::metadata(f).map_or(0, |m| m.len())).collect();
    let eta = Eta { start: Instant::now(), total: sizes.iter().sum::<u64>().max(1) as f64 };
    let mut before = 0u64;
    // The file embedded last, written while the next one is read and embedded.
    let mut prepared: Option<(FileEvents<'_>, Prepared)> = None;
    let writing = Writing::default();
    for (i, file) in files.iter().enumerate() {
        if cancel.is_cancelled() {
            report.cancelled = true;
            break;
        }
        let this = FileEvents { file, index: i, files: files.len(), size: sizes[i], before, eta: &eta };
        before += sizes[i];
        let (written, file_written) = prepared.take().unzip();
        let same =
            file_written.as_ref().map(|p| (p.path.clone(), p.analysis.document.meta.content_hash.clone()));
        let mut events = InOrder { written, writing: &writing, held: Vec::new() };
        let next = access.write_while(file_written, &writing, |access| {
            let mut emit = |e: Progress| events.pass(e, report, progress);
            emit(this.ev(Stage::Converting, 0, 1));
            let mut steps = |s: Step| emit(this.ev(s.stage, s.done, s.total));
            let read = ahead.next(&mut steps)?;
            let writing = same.as_ref().map(|(p, h)| (p.as_str(), h.as_str()));
            let planned = access.plan_file(read, writing, &mut steps);
            Some(planned.and_then(|planned| planned.map(|p| p.prepare(&mut steps, cancel)).transpose()))
        });
        // The written file's end, then this one's events held meanwhile.
        events.catch_up(report, progress);
        match next {
            // The reader stops early only when the ingest is cancelled.
            None | Some(Err(EngineError::Cancelled)) => {
                report.cancelled = true;
                progress(this.ev(Stage::Cancelled, 0, 1));
                break;
            }
            Some(Ok(Some(p))) => {
                progress(this.ev(Stage::Indexing, 0, 4));
                prepared = Some((this, p));
            }
            Some(Ok(None)) => {
                access.note_failure(file, None);
                report.unchanged.push(this.name());
                progress(this.ev(Stage::Unchanged, 1, 1));
            }
            Some(Err(e)) => report_failure(access, &this, e, report, progress),
        }
    }
    // The last file embedded (or the one before a cancellation) is written all the same.
    if let Some((w, p)) = prepared {
        access.write_while(Some(p), &writing, |_| ());
        InOrder { written: Some(w), writing: &writing, held: Vec::new() }.catch_up(report, progress);
    }
}

/// The events of a file being written and of the file after it, in file order: the next file's
/// events wait until the written one has ended (its write takes a moment, the next file's
/// embedding much longer), so that each file's events come whole.
struct InOrder<'a> {
    /// The file being written, until its end is reported.
    written: Option<FileEvents<'a>>,
    /// How its write goes.
    writing: &'a Writing,
    /// The next file's events meanwhile.
    held: Vec<Progress>,
}

impl InOrder<'_> {
    /// Passes on an event of the next file, after what the write has to report. Takes no lock:
    /// it is called while the library's read lock may be held.
    fn pass(&mut self, e: Progress, report: &mut IngestReport, progress: &mut dyn FnMut(Progress)) {
        self.catch_up(report, progress);
        match self.written {
            Some(_) => self.held.push(e),
            None => progress(e),
        }
    }

    /// Reports the write's steps so far and, once it is done, its end (indexed or failed: the
    /// writing thread noted which in the catalog) and the events held meanwhile.
    fn catch_up(&mut self, report: &mut IngestReport, progress: &mut dyn FnMut(Progress)) {
        let Some(w) = &self.written else { return };
        let (steps, outcome) = self.writing.news();
        for s in steps {
            progress(w.ev_aside(s.stage, s.done, s.total));
        }
        let Some(outcome) = outcome else { return };
        match outcome {
            Ok(c) => {
                report.chunks += c.chunks;
                report.contexts.extend(c.run);
                report.indexed.push(w.name());
                progress(w.ev_aside(Stage::Indexed, 1, 1));
            }
            Err(e) => report_failed(w, e, report, progress),
        }
        self.written = None;
        self.held.drain(..).for_each(progress);
    }
}

/// Records and reports a file's failure.
fn report_failure(
    access: &Access<'_>,
    w: &FileEvents<'_>,
    e: EngineError,
    report: &mut IngestReport,
    progress: &mut dyn FnMut(Progress),
) {
    access.note_failure(w.file, Some(&e));
    report_failed(w, e, report, progress);
}

/// Reports a file's failure (in the ingest's report and its events).
fn report_failed(
    w: &FileEvents<'_>,
    e: EngineError,
    report: &mut IngestReport,
    progress: &mut dyn FnMut(Progress),
) {
    // The failure names the file already: the message is the reason alone.
    let failure = IngestFailure { path: w.name(), code: e.code(), message: e.reason() };
    let error = Some(crate::BackendError::new(failure.code, failure.message.clone()));
    report.failed.push(failure);
    progress(Progress { error, ..w.ev_aside(Stage::Failed, 1, 1) });
}

/// A file's modification time (Unix seconds) and size.
pub(super) fn file_stamp(path: &Path) -> Option<(i64, i64)> {
    let m = std::fs::metadata(path).ok()?;
    let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    Some((mtime, m.len() as i64))
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

    /// What ingesting one file asks of the library (which it only reads: searches go on
    /// meanwhile): whether it changed, analysed when the reader did not, and what its previous
    /// version offers. `Ok(None)` when the file is unchanged, or is the file being written
    /// (`writing`: its path and content hash) again.
    pub(super) fn plan_file(
        &self,
        file: ReadFile,
        writing: Option<(&str, &str)>,
        steps: &mut dyn FnMut(Step),
    ) -> Result<Option<Planned>, EngineError> {
        let ReadFile { abs, converted } = file;
        let converted = converted?;
        let path = abs.display().to_string();
        // The file written meanwhile is not in the catalog yet: the same file named twice, or (in a
        // team library, one document per content) a copy of it, is already done.
        if let Some((written, hash)) = writing {
            if hash == converted.content_hash()
                && (written == path || self.catalog.one_document_per_content())
            {
                return Ok(None);
            }
        }
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
        Ok(Some(Planned {
            path,
            mtime,
            size,
            label,
            mode,
            analysis,
            previous,
            catalog: self.catalog.clone(),
            context: self.options.context.clone(),
            embedder: self.embedder.clone(),
            part: self.options.embed_batch,
        }))
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
