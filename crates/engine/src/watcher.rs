//! Watched folders: the library follows files added, changed, renamed and deleted in them.
//!
//! A [`FolderWatcher`] owns one thread. On start it brings every watched folder in step (changes
//! made while Folio was closed: new and changed files by time and size, gone files removed), then
//! follows the OS's file events (inotify, FSEvents, ReadDirectoryChangesW through `notify`).
//! Events are gathered until the folder has been quiet for [`QUIET`] (at most [`MAX_DELAY`] after
//! the first), so that a burst (a copy, an editor's save-by-rename) costs one pass. Temporary and
//! lock files are ignored ([`crate::library::is_library_file`]). Each pass ingests what is new or
//! changed (searches go on meanwhile, see [`crate::ingest_shared`]), removes documents whose file
//! is gone, and reports a [`SyncReport`]. A file that failed is tried again when it changes.

use crate::library::{ingest_shared, read, write, IngestFailure, Library};
use crate::EngineError;
use folio_core::cancel::Cancel;
use notify::{RecursiveMode, Watcher};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// How long a folder must be quiet before a pass.
pub const QUIET: Duration = Duration::from_millis(300);
/// The longest a change waits for its pass while events keep coming.
pub const MAX_DELAY: Duration = Duration::from_millis(1500);
/// How often folders the OS refused to watch are tried again (a drive plugged back in, watches
/// freed by another program).
pub const RETRY: Duration = Duration::from_secs(10);

/// Why each folder the OS does not follow now is not followed, by folder; shared between the
/// watcher's thread, which fills it, and whoever lists the folders.
pub type WatchErrors = Arc<Mutex<BTreeMap<PathBuf, String>>>;

/// What one pass over changed files did.
#[derive(Debug, Default, Clone, Serialize, schemars::JsonSchema)]
pub struct SyncReport {
    /// Files indexed (new or changed).
    pub indexed: Vec<String>,
    /// Documents removed because their file is gone.
    pub removed: Vec<String>,
    /// Files that could not be added, each with why.
    pub failed: Vec<IngestFailure>,
    /// Whether the pass was the start-up rescan (or the first pass over a newly watched folder).
    pub rescan: bool,
    /// Wall time of the pass.
    pub seconds: f64,
}

impl SyncReport {
    /// Whether the library changed.
    pub fn changed(&self) -> bool {
        !self.indexed.is_empty() || !self.removed.is_empty()
    }
}

enum Message {
    Event(notify::Result<notify::Event>),
    /// Watch a folder (and bring it in step).
    Watch(PathBuf),
    Unwatch(PathBuf),
    Stop,
}

/// Keeps a library in step with its watched folders until dropped.
pub struct FolderWatcher {
    tx: Sender<Message>,
    thread: Option<std::thread::JoinHandle<()>>,
    stop: Cancel,
    errors: WatchErrors,
}

impl FolderWatcher {
    /// Starts watching the library's watched folders; first brings each in step. `ingesting` is
    /// the lock that keeps ingests one at a time (the watcher's passes take it too); `report` hears
    /// about every pass that changed something or failed.
    pub fn start(
        library: Arc<RwLock<Library>>,
        ingesting: Arc<Mutex<()>>,
        report: impl FnMut(SyncReport) + Send + 'static,
    ) -> Result<FolderWatcher, EngineError> {
        let (tx, rx) = channel();
        let events = tx.clone();
        let watcher = notify::recommended_watcher(move |e| {
            // Unsent only when the watcher's thread has ended (the watcher is being dropped).
            let _ = events.send(Message::Event(e));
        })
        .map_err(|e| EngineError::Invalid(format!("cannot watch folders on this system: {e}")))?;
        let stop = Cancel::new();
        let errors = WatchErrors::default();
        let run = Run { library, ingesting, watcher, stop: stop.clone(), errors: errors.clone() };
        let thread = std::thread::Builder::new()
            .name("folio-watch".into())
            .spawn(move || run.main(rx, report))
            .map_err(|e| EngineError::Invalid(format!("cannot start the folder watcher: {e}")))?;
        Ok(FolderWatcher { tx, thread: Some(thread), stop, errors })
    }

    /// Follows a folder from now on (add it to the library's watched folders first); its files
    /// are brought in step at once.
    pub fn watch(&self, folder: PathBuf) {
        self.send(Message::Watch(folder));
    }

    /// Stops following a folder.
    pub fn unwatch(&self, folder: PathBuf) {
        self.send(Message::Unwatch(folder));
    }

    /// Why the OS does not follow a folder now, if it does not.
    pub fn error(&self, folder: &Path) -> Option<String> {
        self.errors.lock().unwrap_or_else(|e| e.into_inner()).get(folder).cloned()
    }

    fn send(&self, message: Message) {
        if self.tx.send(message).is_err() {
            // The thread ended only by a panic (it runs until dropped); say so instead of
            // seeming to follow the folder.
            tracing::error!("the folder watcher has stopped; watched folders are not followed");
        }
    }
}

impl Drop for FolderWatcher {
    fn drop(&mut self) {
        self.stop.cancel();
        self.send(Message::Stop);
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                tracing::error!("the folder watcher's thread panicked");
            }
        }
    }
}

struct Run {
    library: Arc<RwLock<Library>>,
    ingesting: Arc<Mutex<()>>,
    watcher: notify::RecommendedWatcher,
    /// Set when the watcher is dropped: a pass in progress stops between files.
    stop: Cancel,
    /// Folders the OS refused to watch, with why.
    errors: WatchErrors,
}

impl Run {
    fn main(mut self, rx: Receiver<Message>, mut report: impl FnMut(SyncReport)) {
        let folders = match read(&self.library).watched_folders() {
            Ok(f) => f,
            Err(e) => {
                tracing::error!("the watched folders could not be read: {e}");
                Vec::new()
            }
        };
        for f in &folders {
            self.follow(f);
        }
        self.pass(&folders, true, &mut report);
        // Changed paths waiting for their pass, when the first and the last of them came.
        let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
        let (mut first, mut last) = (Instant::now(), Instant::now());
        loop {
            let retrying = !self.errors.lock().unwrap_or_else(|e| e.into_inner()).is_empty();
            let msg = if !pending.is_empty() {
                let wait =
                    QUIET.saturating_sub(last.elapsed()).min(MAX_DELAY.saturating_sub(first.elapsed()));
                rx.recv_timeout(wait)
            } else if retrying {
                rx.recv_timeout(RETRY)
            } else {
                rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
            };
            match msg {
                Ok(Message::Event(Ok(e))) => {
                    let library = read(&self.library).dir().to_path_buf();
                    let relevant: Vec<PathBuf> =
                        e.paths.into_iter().filter(|p| !p.starts_with(&library)).collect();
                    if !relevant.is_empty() {
                        if pending.is_empty() {
                            first = Instant::now();
                        }
                        last = Instant::now();
                        pending.extend(relevant);
                    }
                }
                // The OS dropped events (its queue overflowed): bring every folder in step.
                Ok(Message::Event(Err(_))) => {
                    if pending.is_empty() {
                        first = Instant::now();
                    }
                    last = Instant::now();
                    match read(&self.library).watched_folders() {
                        Ok(f) => pending.extend(f),
                        Err(e) => tracing::error!("the watched folders could not be read: {e}"),
                    }
                }
                Ok(Message::Watch(folder)) => {
                    self.follow(&folder);
                    self.pass(&[folder], true, &mut report);
                }
                Ok(Message::Unwatch(folder)) => {
                    self.errors.lock().unwrap_or_else(|e| e.into_inner()).remove(&folder);
                    // A folder the OS was not following (gone, or refused) has nothing to stop.
                    if let Err(e) = self.watcher.unwatch(&folder) {
                        tracing::debug!("unwatching a folder that was not followed: {e}");
                    }
                }
                Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) if retrying && pending.is_empty() => {
                    // Folders followed again are brought in step: they may have changed meanwhile.
                    let refused: Vec<PathBuf> =
                        self.errors.lock().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
                    let back: Vec<PathBuf> = refused.into_iter().filter(|f| self.follow(f)).collect();
                    self.pass(&back, true, &mut report);
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if !pending.is_empty() && (last.elapsed() >= QUIET || first.elapsed() >= MAX_DELAY) {
                let paths: Vec<PathBuf> = std::mem::take(&mut pending).into_iter().collect();
                self.pass(&paths, false, &mut report);
            }
        }
    }

    /// Asks the OS to follow a folder; records why when it refuses (the folder is gone, the
    /// system's limit on watches is reached, permission is denied), for the folder's row in the
    /// Library view, and clears that once it follows. Returns whether the folder is followed.
    fn follow(&mut self, folder: &Path) -> bool {
        let outcome = self.watcher.watch(folder, RecursiveMode::Recursive);
        let mut errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        match outcome {
            Ok(()) => {
                errors.remove(folder);
                true
            }
            Err(e) => {
                let why = watch_failure(&e);
                tracing::warn!("a watched folder is not followed: {why}");
                errors.insert(folder.to_path_buf(), why);
                false
            }
        }
    }

    /// Brings `paths` (changed files, or whole folders) in step: new and changed files are
    /// ingested first (a renamed file finds its old self by content and keeps its vectors), then
    /// the documents of gone files are removed.
    fn pass(&self, paths: &[PathBuf], rescan: bool, report: &mut impl FnMut(SyncReport)) {
        if paths.is_empty() {
            return;
        }
        let start = Instant::now();
        let _one = self.ingesting.lock().unwrap_or_else(|e| e.into_inner());
        // Another process writes the library: it keeps the library in step meanwhile.
        if !read(&self.library).is_writable() {
            return;
        }
        let mut out = SyncReport { rescan, ..SyncReport::default() };
        let plan = match read(&self.library).sync_plan(paths) {
            Ok(p) => p,
            Err(e) => {
                out.failed.push(IngestFailure {
                    path: paths[0].display().to_string(),
                    code: e.code(),
                    message: e.to_string(),
                });
                report(out);
                return;
            }
        };
        if plan.is_empty() {
            return;
        }
        if !plan.ingest.is_empty() {
            let r = ingest_shared(&self.library, &plan.ingest, &mut |_| {}, &self.stop);
            out.indexed = r.indexed;
            out.failed = r.failed;
        }
        for path in &plan.remove {
            match write(&self.library).remove(path) {
                Ok(_) => out.removed.push(path.clone()),
                Err(e) => out.failed.push(IngestFailure {
                    path: path.clone(),
                    code: e.code(),
                    message: e.to_string(),
                }),
            }
        }
        if let Err(e) = read(&self.library).forget_failures(&plan.forget) {
            // The failures stay listed until the next pass over those files; nothing is lost.
            tracing::warn!("failures of files that are now indexed could not be cleared: {e}");
        }
        out.seconds = start.elapsed().as_secs_f64();
        if out.changed() || !out.failed.is_empty() {
            report(out);
        }
    }
}

/// Why the OS refused to follow a folder, in words the Library view shows.
fn watch_failure(e: &notify::Error) -> String {
    match &e.kind {
        notify::ErrorKind::PathNotFound => "the folder is not there (moved, deleted, or on a drive that is not connected); it is followed again once it is back".into(),
        notify::ErrorKind::MaxFilesWatch => "the system's limit on watched folders is reached (on Linux, fs.inotify.max_user_watches); changes here are not followed until it is raised or other watches end".into(),
        notify::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            format!("permission to follow this folder is denied: {io}")
        }
        _ => format!("the system does not follow this folder: {e}"),
    }
}
