//! The 8-bit lists saved beside the table (`<table>.lists`, then `<table>.lists.log`; see
//! [`CompactIndex`]'s saved form), so that a large table opens without quantizing and training
//! them again, and a checkpoint after adding a document appends its rows rather than writing
//! every row again.

use super::super::compact::{log_header, CompactIndex};
use super::LanceVectors;
use crate::IndexError;
use std::io::Write;
use std::path::Path;

/// A log longer than this share of its base is folded into a new base at the next checkpoint.
const LOG_SHARE: u64 = 4;

/// The saved lists as this store knows them, and the documents written since.
#[derive(Debug, Default)]
pub(super) struct LogState {
    /// The table version the saved lists mirror (`None`: none known).
    pub(super) stamp: Option<u64>,
    /// The documents written since the lists were saved (`None`: the lists in RAM are not the
    /// saved ones plus these documents, so the next checkpoint saves them whole).
    pub(super) docs: Option<Vec<i64>>,
    /// The rows the saved lists were trained at ([`CompactIndex::trained_at`]).
    trained_at: usize,
    /// The bytes of the base and of the log as saved.
    base_bytes: u64,
    log_bytes: u64,
}

/// Writes a file aside, then renames it over `path`: a reader sees the old file or the new.
fn write_aside(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let aside = path.with_extension(format!("part.{}", std::process::id()));
    let written = (|| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&aside)?);
        write(&mut w)?;
        w.flush()?;
        drop(w);
        std::fs::rename(&aside, path)
    })();
    if written.is_err() {
        // The partial file is useless; the error that matters is the write's.
        let _ = std::fs::remove_file(&aside);
    }
    written
}

impl LanceVectors {
    /// Saves the lists in RAM where they are 8-bit lists not saved at the table's version: their
    /// log extended by the documents written since, or whole. Called under the write guard.
    pub(super) fn save_lists(&self) -> Result<(), IndexError> {
        self.save(true)
    }

    /// Saves the lists whole at the table's version where they are 8-bit lists, whatever the log
    /// could take (measurements: what each checkpoint cost before the lists had a log).
    pub fn save_lists_whole(&self) -> Result<(), IndexError> {
        let _writing = self.writing();
        self.save(false)
    }

    fn save(&self, may_append: bool) -> Result<(), IndexError> {
        let version = self.runtime.block_on(self.table.version())?;
        let mirror = self.mirror();
        let Some(lists) = mirror.compact() else { return Ok(()) };
        let mut log = self.log_state();
        if may_append && log.stamp == Some(version) {
            return Ok(());
        }
        if !(may_append && self.append_to_log(lists, &mut log, version)?) {
            self.save_whole(lists, &mut log, version)?;
        }
        Ok(())
    }

    /// The saved 8-bit lists (the base, then its log), where they mirror the table's current
    /// version.
    pub(super) fn saved_lists(&self, rows: usize) -> Result<Option<CompactIndex>, IndexError> {
        let version = self.runtime.block_on(self.table.version())?;
        // Absent or unreadable: the lists are a cache of the table, which they are built from.
        let Ok(bytes) = std::fs::read(&self.lists_file) else { return Ok(None) };
        // Damaged (torn by a crash while being written) or of another width: built again from
        // the table, and saved again at the next checkpoint.
        let Ok(Some((stamp, mut lists))) = CompactIndex::read_base(&bytes, self.dim, None) else {
            return Ok(None);
        };
        // Absent or unreadable: the base alone (stale unless saved at this version).
        let (at, log_bytes) = match std::fs::read(&self.log_file) {
            Ok(log) => lists.replay(&log, stamp, version),
            Err(_) => (stamp, 0),
        };
        if at != version || lists.len() != rows {
            // Saved for another version of the table (a log that stops short of it, or a
            // writer that has gone on since): built again from the table.
            return Ok(None);
        }
        *self.log_state() = LogState {
            stamp: Some(version),
            docs: Some(Vec::new()),
            trained_at: lists.trained_at(),
            base_bytes: bytes.len() as u64,
            log_bytes,
        };
        Ok(Some(lists))
    }

    /// Appends the documents written since the last save to the log, as the record from the
    /// version saved to `version`, where the log is the one this store last read or wrote and
    /// still short of its base. `Ok(false)` where the lists must be saved whole instead.
    fn append_to_log(&self, lists: &CompactIndex, log: &mut LogState, version: u64) -> std::io::Result<bool> {
        let (Some(saved), Some(docs)) = (log.stamp, log.docs.as_ref()) else { return Ok(false) };
        let on_disk = std::fs::metadata(&self.log_file).map(|m| m.len()).ok();
        // A base read with no log beside it (saved before lists had logs) starts one; the base
        // is then at `saved`.
        let start = on_disk.is_none() && log.log_bytes == 0;
        if log.trained_at != lists.trained_at()
            || (on_disk != Some(log.log_bytes) && !start)
            || log.log_bytes > log.base_bytes / LOG_SHARE
        {
            return Ok(false);
        }
        let mut record = if start { log_header(saved) } else { Vec::new() };
        lists.write_changes(saved, version, docs, &mut record)?;
        let mut file = std::fs::OpenOptions::new().append(true).create(start).open(&self.log_file)?;
        if let Err(e) = file.write_all(&record).and_then(|()| file.flush()) {
            // A record cut short ends the log for readers; the next checkpoint saves whole.
            log.docs = None;
            return Err(e);
        }
        log.log_bytes += record.len() as u64;
        log.docs = Some(Vec::new());
        log.stamp = Some(version);
        Ok(true)
    }

    /// Saves the lists whole (a new base, then a new empty log after it), each written aside
    /// ([`write_aside`]). A log left from the old base extends no other, so a crash between the
    /// two renames costs only a rebuild.
    fn save_whole(&self, lists: &CompactIndex, log: &mut LogState, version: u64) -> std::io::Result<()> {
        log.docs = None;
        write_aside(&self.lists_file, |mut w| lists.write_to(version, &mut w))?;
        let header = log_header(version);
        write_aside(&self.log_file, |w| w.write_all(&header))?;
        *log = LogState {
            stamp: Some(version),
            docs: Some(Vec::new()),
            trained_at: lists.trained_at(),
            base_bytes: std::fs::metadata(&self.lists_file)?.len(),
            log_bytes: header.len() as u64,
        };
        Ok(())
    }
}
