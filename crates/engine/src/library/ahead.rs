//! Reading ahead: while one file is contextualized, embedded and written, the next one is
//! converted and analysed on a thread of its own, so the converter (and its worker process) and
//! the encoder keep both cores busy. The reader needs nothing of the library but copies of its
//! conversion and chunking settings and the token counter, so it takes no lock: searches and the
//! ingest's writes never wait for it.
//!
//! The reader runs at most one file ahead of the ingest (one converted document waits in memory),
//! and stops when the ingest stops (cancelled, or done).

use super::*;
use folio_core::analysis::Analysis;
use folio_core::cancel::Cancel;
use folio_core::model::Document;
use folio_core::progress::Step;
use std::collections::HashMap;
use std::sync::mpsc;

/// A file as the reader hands it over.
pub(super) enum Converted {
    /// Converted and analysed.
    Analysed(Analysis),
    /// Converted only: its text is what the library already holds at its path, so it is most
    /// likely unchanged (the ingest decides, and analyses it after all when it must).
    Known(Document),
}

impl Converted {
    /// The document's content hash.
    pub(super) fn content_hash(&self) -> &str {
        match self {
            Converted::Analysed(a) => &a.document.meta.content_hash,
            Converted::Known(d) => &d.meta.content_hash,
        }
    }
}

/// A file read: its canonical path and what became of it.
pub(super) struct ReadFile {
    pub(super) abs: PathBuf,
    pub(super) converted: Result<Converted, EngineError>,
}

/// What the reader needs of the library, copied before it starts.
pub(super) struct Reader {
    convert: ConvertOptions,
    chunker: ChunkerConfig,
    counter: Arc<dyn TokenCounter>,
    /// Content hash by path of the documents the library holds.
    known: HashMap<String, String>,
}

impl Reader {
    pub(super) fn of(lib: &Library) -> Reader {
        Reader {
            convert: lib.options.convert.clone(),
            chunker: lib.options.chunker,
            counter: lib.counter.clone(),
            known: lib.docs.iter().map(|d| (d.path.clone(), d.content_hash.clone())).collect(),
        }
    }

    /// Converts and (unless its text is known) analyses one file, its steps to `steps`.
    pub(super) fn read(&self, file: &Path, cancel: &Cancel, steps: &mut dyn FnMut(Step)) -> ReadFile {
        let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        let converted = convert_file_guarded_reporting(&abs, &self.convert, cancel, steps)
            .map_err(EngineError::from)
            .map(|doc| {
                if self.known.get(&abs.display().to_string()) == Some(&doc.meta.content_hash) {
                    Converted::Known(doc)
                } else {
                    Converted::Analysed(analyse(doc, self.counter.as_ref(), &self.chunker, steps))
                }
            });
        ReadFile { abs, converted }
    }
}

/// Analyses a document, an [`Stage::Analysing`] step before and after: on the reader's thread, or
/// in the ingest for a document the reader left unanalysed.
pub(super) fn analyse(
    doc: Document,
    counter: &dyn TokenCounter,
    chunker: &ChunkerConfig,
    steps: &mut dyn FnMut(Step),
) -> Analysis {
    steps(Step::new(Stage::Analysing, 0, 1));
    let a = analyze(doc, counter, chunker);
    steps(Step::new(Stage::Analysing, 1, 1));
    a
}

/// What the reader sends: the steps of the file it reads, then the file.
enum Message {
    Step(Step),
    Read(Box<ReadFile>),
}

/// The ingest's end of the reader: files come out in order, each after its steps.
pub(super) struct Ahead {
    messages: mpsc::Receiver<Message>,
    /// One token per file the reader may start.
    go: mpsc::SyncSender<()>,
}

impl Ahead {
    /// Starts reading `files` on a thread of `scope`: the first file at once, each next one when
    /// the ingest takes the one before.
    pub(super) fn start<'scope, 'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        reader: &'env Reader,
        files: &'env [PathBuf],
        cancel: &'env Cancel,
    ) -> Ahead {
        let (tx, messages) = mpsc::channel();
        let (go, may_start) = mpsc::sync_channel::<()>(files.len() + 1);
        // Room for one signal a file: the first is never refused while `may_start` is held here.
        let _ = go.send(());
        scope.spawn(move || {
            for file in files {
                // The ingest took the file before (or stopped: then the channel is closed).
                if may_start.recv().is_err() || cancel.is_cancelled() {
                    return;
                }
                let read = reader.read(file, cancel, &mut |s| {
                    // Unsent only once the ingest has stopped listening: the read ends below.
                    let _ = tx.send(Message::Step(s));
                });
                if tx.send(Message::Read(Box::new(read))).is_err() {
                    return;
                }
            }
        });
        Ahead { messages, go }
    }

    /// The next file, its reading steps passed to `steps` as they come (those sent while the
    /// ingest was busy with the file before come at once). `None` when the reader has stopped.
    pub(super) fn next(&self, steps: &mut dyn FnMut(Step)) -> Option<ReadFile> {
        loop {
            match self.messages.recv() {
                Ok(Message::Step(s)) => steps(s),
                Ok(Message::Read(read)) => {
                    // The reader may start the file after this one. Unsent only when the reader
                    // has ended (all files read, or cancelled): nothing is waiting for it.
                    let _ = self.go.send(());
                    return Some(*read);
                }
                Err(_) => return None,
            }
        }
    }
}
