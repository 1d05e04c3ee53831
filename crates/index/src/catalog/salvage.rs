//! What a damaged catalog still gives: the tables the chunk records do not hold, copied into a
//! new catalog, and the documents' labels and context modes.

use super::SqliteCatalog;
use rusqlite::Connection;
use std::path::Path;

/// The tables [`SqliteCatalog::salvage_from`] copies from a damaged catalog: what the chunk records in
/// the vector store do not hold.
const SALVAGED_TABLES: [&str; 4] = ["context_cache", "context_runs", "watched_folders", "failures"];

/// What [`SqliteCatalog::salvage_from`] could read of a damaged catalog.
#[derive(Debug, Clone, Default)]
pub struct Salvage {
    /// Indexed documents by path.
    pub documents: std::collections::HashMap<String, SalvagedDocument>,
    /// Tables copied whole.
    pub copied: Vec<String>,
    /// Tables that could not be read (nothing of them was copied).
    pub lost: Vec<String>,
}

/// A document's row as far as a damaged catalog still tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalvagedDocument {
    /// The short label other documents cite it by ("GEN", "FSMR").
    pub label: String,
    /// How its contexts were made (`none`, `structural`, `anthropic:MODEL`, …).
    pub context_mode: String,
}

impl SqliteCatalog {
    /// Copies what still reads from a damaged catalog file into this new one — the context cache,
    /// the record of context runs, watched folders and failures, each table whole or not at all —
    /// and returns what it could read of the documents (label and context mode by path). The
    /// damaged file is opened read-only and left as it is.
    pub fn salvage_from(&self, damaged: &Path) -> Salvage {
        let mut out = Salvage::default();
        let old = match Connection::open_with_flags(damaged, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) {
            Ok(c) => c,
            Err(_) => {
                out.lost = SALVAGED_TABLES.iter().map(|t| t.to_string()).collect();
                return out;
            }
        };
        let documents = (|| -> rusqlite::Result<Vec<(String, SalvagedDocument)>> {
            let mut st =
                old.prepare("SELECT path, label, context_mode FROM documents WHERE status = 'indexed'")?;
            let rows = st.query_map([], |r| {
                Ok((r.get(0)?, SalvagedDocument { label: r.get(1)?, context_mode: r.get(2)? }))
            })?;
            rows.collect()
        })();
        match documents {
            Ok(d) => out.documents = d.into_iter().collect(),
            Err(_) => out.lost.push("documents".into()),
        }
        drop(old);
        let conn = self.conn();
        let attached = conn.execute("ATTACH DATABASE ?1 AS damaged", [damaged.to_string_lossy()]).is_ok();
        for table in SALVAGED_TABLES {
            let copied = attached
                && (|| -> rusqlite::Result<()> {
                    let cols: Vec<String> = conn
                        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
                        .query_map([], |r| r.get(0))?
                        .collect::<rusqlite::Result<_>>()?;
                    let cols = cols.join(", ");
                    let tx = conn.unchecked_transaction()?;
                    tx.execute(
                        &format!(
                            "INSERT OR IGNORE INTO main.{table} ({cols}) SELECT {cols} FROM damaged.{table}"
                        ),
                        [],
                    )?;
                    tx.commit()
                })()
                .is_ok();
            if copied {
                out.copied.push(table.to_string());
            } else {
                out.lost.push(table.to_string());
            }
        }
        if attached {
            // The connection is dropped right after, which detaches it all the same.
            let _ = conn.execute("DETACH DATABASE damaged", []);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{new_document, rulebook};
    use super::super::FailureRow;
    use super::*;

    #[test]
    fn what_a_damaged_catalog_still_holds_is_copied_table_by_table() {
        let dir = tempfile::tempdir().unwrap();
        let old_path = dir.path().join("catalog.sqlite");
        {
            let old = SqliteCatalog::open(&old_path).unwrap();
            old.add_watched_folder("/rules").unwrap();
            old.put_failure(&FailureRow {
                path: "/rules/x.pdf".into(),
                mtime: 1,
                size: 2,
                code: "encrypted".into(),
                message: "m".into(),
                at: 3,
            })
            .unwrap();
            let a = rulebook("salvage");
            let (id, _) = old.put_document(&new_document("/rules/rb.md", &a, "structural")).unwrap();
            old.mark_indexed(id).unwrap();
        }
        let new = SqliteCatalog::in_memory().unwrap();
        let got = new.salvage_from(&old_path);
        assert!(got.lost.is_empty(), "{:?}", got.lost);
        assert_eq!(got.copied.len(), SALVAGED_TABLES.len());
        let doc = &got.documents["/rules/rb.md"];
        assert_eq!((doc.label.as_str(), doc.context_mode.as_str()), ("RB", "structural"));
        assert_eq!(new.watched_folders().unwrap(), vec!["/rules".to_string()]);
        assert_eq!(new.failures().unwrap()[0].code, "encrypted");
        // The documents themselves are not copied: they come back from their chunk records.
        assert!(new.documents().unwrap().is_empty());
    }

    #[test]
    fn an_unreadable_file_loses_every_table_and_nothing_else_fails() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("catalog.sqlite");
        std::fs::write(&garbage, b"this is not a database").unwrap();
        let new = SqliteCatalog::in_memory().unwrap();
        let got = new.salvage_from(&garbage);
        assert!(got.copied.is_empty());
        assert!(got.documents.is_empty());
        for t in SALVAGED_TABLES {
            assert!(got.lost.contains(&t.to_string()), "{t} not reported lost: {:?}", got.lost);
        }
        new.check().unwrap();
    }
}
