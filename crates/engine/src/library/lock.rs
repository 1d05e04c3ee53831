//! The library's write lock: one writing process at a time.

use super::*;

/// Takes the library's write lock, or `None` when another process holds it.
pub(super) fn take_write_lock(dir: &Path) -> Result<Option<std::fs::File>, EngineError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("write.lock"))
        .map_err(folio_index::IndexError::from)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(folio_index::IndexError::from(e).into()),
    }
}

/// Whether no process holds the library's write lock (probed and let go at once).
pub(super) fn lock_is_free(dir: &Path) -> bool {
    std::fs::OpenOptions::new().write(true).open(dir.join("write.lock")).is_ok_and(|f| f.try_lock().is_ok())
}
