//! Creating a store once when several processes open a new library at the same moment (the
//! desktop app and a CLI ingest, two CLI ingests): the check "is it there?" and the creation run
//! under an OS file lock in the store's folder, so the second process waits for the first and
//! then opens what it made, instead of creating it again ("already exists") or opening it half
//! made ("not found").

use crate::IndexError;
use std::path::Path;

/// The lock file's name inside a store's folder.
const LOCK_FILE: &str = ".folio-create.lock";

/// Runs `open_or_create` holding the folder's creation lock (created with the folder as needed).
/// The OS releases the lock when the process ends, however it ends. A folder this process may
/// only read cannot be created into, and the lock is then not needed: `open_or_create` runs
/// without it.
pub(crate) fn one_at_a_time<T>(
    dir: &Path,
    open_or_create: impl FnOnce() -> Result<T, IndexError>,
) -> Result<T, IndexError> {
    std::fs::create_dir_all(dir)?;
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))
    {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            return open_or_create();
        }
        Err(e) => return Err(e.into()),
    };
    file.lock()?;
    let out = open_or_create();
    // Closing the file lets go of the lock.
    drop(file);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn creations_in_one_folder_never_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let inside = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (dir, inside) = (dir.path().to_path_buf(), inside.clone());
                std::thread::spawn(move || {
                    one_at_a_time(&dir, || {
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two creations at once");
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        inside.fetch_sub(1, Ordering::SeqCst);
                        Ok(())
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap().unwrap();
        }
    }
}
