//! An ingest's progress events: each file's place in the ingest, and the time left, from the
//! share of the files' bytes done.

use super::*;

/// One file's progress events: its place in the ingest, and its share of the bytes for the time
/// left.
pub(super) struct FileEvents<'a> {
    pub(super) file: &'a Path,
    pub(super) index: usize,
    pub(super) files: usize,
    pub(super) size: u64,
    /// Bytes of the files before it.
    pub(super) before: u64,
    pub(super) eta: &'a Eta,
}

impl FileEvents<'_> {
    pub(super) fn name(&self) -> String {
        self.file.display().to_string()
    }

    /// An event of the file the ingest is on, with the time left from its share of the bytes.
    pub(super) fn ev(&self, stage: Stage, done: usize, total: usize) -> Progress {
        let done_bytes = self.before as f64 + self.size as f64 * file_share(stage, done, total);
        Progress { remaining_s: self.eta.remaining(done_bytes), ..self.ev_aside(stage, done, total) }
    }

    /// An event of a file written while the ingest is on the next one: no time left (the next
    /// file's events tell it).
    pub(super) fn ev_aside(&self, stage: Stage, done: usize, total: usize) -> Progress {
        Progress {
            file: self.name(),
            file_index: self.index,
            files: self.files,
            stage,
            done,
            total,
            error: None,
            remaining_s: None,
        }
    }
}

/// The time an ingest has left, from the bytes of its files read so far.
pub(super) struct Eta {
    pub(super) start: Instant,
    /// Bytes of all the files.
    pub(super) total: f64,
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
