//! Watched folders and the files that could not be added from them (tried again once changed).

use super::{now, SqliteCatalog};
use crate::IndexError;
use serde::Serialize;

/// A file that could not be indexed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FailureRow {
    /// The file's absolute path.
    pub path: String,
    /// The file's modification time (Unix seconds) and size when it failed.
    pub mtime: i64,
    /// The file's size in bytes when it failed.
    pub size: i64,
    /// The error's stable code (`corrupt`, `encrypted`, `too_large`, …).
    pub code: String,
    /// What went wrong, in words.
    pub message: String,
    /// When it failed (Unix seconds).
    pub at: i64,
}

impl SqliteCatalog {
    /// The folders the library keeps in step with, in the order they were added.
    pub fn watched_folders(&self) -> Result<Vec<String>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare("SELECT path FROM watched_folders ORDER BY added, path")?;
        let rows = st.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(rows)
    }

    /// Adds a watched folder; `false` when it was already watched.
    pub fn add_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        let n = self.conn().execute(
            "INSERT OR IGNORE INTO watched_folders (path, added) VALUES (?1, ?2)",
            rusqlite::params![path, now()],
        )?;
        Ok(n > 0)
    }

    /// Stops watching a folder; `false` when it was not watched.
    pub fn remove_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        Ok(self.conn().execute("DELETE FROM watched_folders WHERE path = ?1", [path])? > 0)
    }

    /// Records why a file failed, with the size and time it had (it is tried again when they change).
    pub fn put_failure(&self, f: &FailureRow) -> Result<(), IndexError> {
        self.conn().execute(
            "INSERT OR REPLACE INTO failures (path, mtime, size, code, message, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![f.path, f.mtime, f.size, f.code, f.message, f.at],
        )?;
        Ok(())
    }

    /// Forgets a file's failure (it was indexed, or is gone).
    pub fn clear_failure(&self, path: &str) -> Result<(), IndexError> {
        self.conn().execute("DELETE FROM failures WHERE path = ?1", [path])?;
        Ok(())
    }

    /// Files that failed, by path.
    pub fn failures(&self) -> Result<Vec<FailureRow>, IndexError> {
        let conn = self.conn();
        let mut st =
            conn.prepare("SELECT path, mtime, size, code, message, at FROM failures ORDER BY path")?;
        let rows = st
            .query_map([], |r| {
                Ok(FailureRow {
                    path: r.get(0)?,
                    mtime: r.get(1)?,
                    size: r.get(2)?,
                    code: r.get(3)?,
                    message: r.get(4)?,
                    at: r.get(5)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watched_folders_are_added_once_and_listed_in_order() {
        let cat = SqliteCatalog::in_memory().unwrap();
        assert!(cat.add_watched_folder("/b").unwrap());
        assert!(cat.add_watched_folder("/a").unwrap());
        assert!(!cat.add_watched_folder("/b").unwrap());
        let listed = cat.watched_folders().unwrap();
        assert_eq!(listed.len(), 2);
        assert!(listed.contains(&"/a".to_string()) && listed.contains(&"/b".to_string()));
        assert!(cat.remove_watched_folder("/b").unwrap());
        assert!(!cat.remove_watched_folder("/b").unwrap());
        assert_eq!(cat.watched_folders().unwrap(), vec!["/a".to_string()]);
    }

    #[test]
    fn a_file_s_failure_is_replaced_by_its_latest_and_cleared() {
        let cat = SqliteCatalog::in_memory().unwrap();
        let failure = |path: &str, code: &str| FailureRow {
            path: path.into(),
            mtime: 1,
            size: 2,
            code: code.into(),
            message: format!("{code} happened"),
            at: 3,
        };
        cat.put_failure(&failure("/z.pdf", "encrypted")).unwrap();
        cat.put_failure(&failure("/a.pdf", "corrupt")).unwrap();
        cat.put_failure(&failure("/z.pdf", "too_large")).unwrap();
        let all = cat.failures().unwrap();
        assert_eq!(all, vec![failure("/a.pdf", "corrupt"), failure("/z.pdf", "too_large")]);
        cat.clear_failure("/a.pdf").unwrap();
        cat.clear_failure("/never-failed.pdf").unwrap();
        assert_eq!(cat.failures().unwrap(), vec![failure("/z.pdf", "too_large")]);
    }
}
