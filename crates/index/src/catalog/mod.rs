//! The catalog: documents, outlines, chunks, definitions and cross-references. It is the library's
//! source of truth; the keyword, exact and vector indexes are derived from it (and can be rebuilt
//! from it). [`Catalog`] is what the engine asks of one; [`SqliteCatalog`] keeps it in a SQLite file
//! in the library's folder, with schema migrations (a team library keeps it in PostgreSQL, in the
//! `folio-postgres` crate).
//!
//! The SQLite catalog has one file per concern: [`schema`] (migrations), `rows` (the row types), `documents`, `contents`
//! (chunks, outline, definitions, tables), `references`, `context` (modes, the LLM context cache,
//! run records), `folders` (watched folders and failures) and `salvage` (reading a damaged catalog).

mod contents;
mod context;
mod documents;
mod folders;
mod references;
mod rows;
mod salvage;
pub mod schema;
mod sqlite;

pub use context::{CachedContext, ContextRun};
pub use folders::FailureRow;
pub use rows::{
    ChunkContext, ChunkFacts, ChunkRow, DefinitionRow, DocumentRow, DocumentStatus, NewDocument, RefRow,
    SectionRow, TableRow,
};
pub use salvage::{Salvage, SalvagedDocument};
pub use schema::SCHEMA_VERSION;

use crate::IndexError;
use folio_core::model::Span;
use rusqlite::Connection;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// What the engine asks of a catalog, wherever it is kept. Every write is atomic: a document is
/// put, with its chunks, outline, definitions, references and tables, in one transaction, so a
/// reader sees all of it or none.
pub trait Catalog: Send + Sync {
    // Documents.
    /// The document stored for a path.
    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>, IndexError>;
    /// All documents, by id.
    fn documents(&self) -> Result<Vec<DocumentRow>, IndexError>;
    /// The document with this id, if any.
    fn document(&self, id: i64) -> Result<Option<DocumentRow>, IndexError>;
    /// Names a document as the user wants it cited (`None`: back to the title its file gives).
    fn rename_document(&self, id: i64, title: Option<&str>) -> Result<(), IndexError>;
    /// The extracted text of a document.
    fn document_text(&self, id: i64) -> Result<String, IndexError>;
    /// Replaces a document (same path) with a new analysis in one transaction; returns its id and
    /// the stored chunks (with their new ids).
    fn put_document(&self, doc: &NewDocument<'_>) -> Result<(i64, Vec<ChunkRow>), IndexError>;
    /// Records a document's file time and size again (its content did not change).
    fn set_stamp(&self, id: i64, mtime: i64, size: i64) -> Result<(), IndexError>;
    /// An indexed document with this content, any path (a renamed or copied file).
    fn document_by_hash(&self, content_hash: &str) -> Result<Option<DocumentRow>, IndexError>;
    /// Marks a document written to every store: from now on it is visible to search.
    fn mark_indexed(&self, doc_id: i64) -> Result<(), IndexError>;
    /// Removes a document and everything derived from it.
    fn remove_document(&self, id: i64) -> Result<bool, IndexError>;
    /// Sections, chunks, definitions and references of a document.
    fn document_counts(&self, doc_id: i64) -> Result<[usize; 4], IndexError>;

    // What documents hold: chunks, outlines, definitions, tables.
    /// Chunks of one document (or all, with `None`), in order.
    fn chunks(&self, doc_id: Option<i64>) -> Result<Vec<ChunkRow>, IndexError>;
    /// Calls `f` with the facts of every chunk of the library in order, reading them through
    /// rather than all at once (a large library's text is gigabytes).
    fn for_each_chunk_facts(&self, f: &mut dyn FnMut(ChunkFacts<'_>)) -> Result<(), IndexError> {
        self.chunks(None)?.iter().for_each(|c| f(c.facts()));
        Ok(())
    }
    /// Chunks by id, in the order asked (missing ids skipped).
    fn chunks_by_id(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, IndexError>;
    /// A document's sections in outline order (`ord`), the root (the document itself) first.
    fn sections(&self, doc_id: i64) -> Result<Vec<SectionRow>, IndexError>;
    /// Definitions, all or of one key.
    fn definitions(&self, key: Option<&str>) -> Result<Vec<DefinitionRow>, IndexError>;
    /// Tables inside a span of a document (a section and its subsections), in text order.
    fn tables_within(&self, doc_id: i64, span: Span) -> Result<Vec<TableRow>, IndexError>;

    // Cross-references.
    /// Cross-references written in a section (`outgoing`) or pointing at it (backlinks).
    fn references(&self, doc_id: i64, section_id: &str, outgoing: bool) -> Result<Vec<RefRow>, IndexError>;
    /// Every reference of the library that points somewhere: within its own document, or to
    /// another document of the library.
    fn resolved_references(&self) -> Result<Vec<RefRow>, IndexError>;
    /// The references of these documents that point somewhere, in the order they are stored in
    /// (as [`Catalog::resolved_references`] gives them).
    fn resolved_references_of(&self, doc_ids: &[i64]) -> Result<Vec<RefRow>, IndexError>;
    /// References written inside a span of a document (a section and its subsections).
    fn references_within(&self, doc_id: i64, span: Span) -> Result<Vec<RefRow>, IndexError>;
    /// All references to other documents, for library-level resolution.
    fn external_references(&self) -> Result<Vec<(i64, RefRow)>, IndexError>;
    /// Documents the library cites but does not hold: each reference to another document that
    /// resolved to none, as (citing document, the name as written, the reference as written).
    fn unresolved_documents(&self) -> Result<Vec<(i64, String, String)>, IndexError>;
    /// Records the library-level resolution of external references (rowid → target).
    fn set_resolutions(&self, resolved: &[(i64, Option<i64>, Option<String>)]) -> Result<(), IndexError>;

    // Contexts: modes, the LLM context cache, run records.
    /// The context mode a document was indexed with (`none`, `structural`, `anthropic:MODEL`, …).
    fn context_mode(&self, doc_id: i64) -> Result<String, IndexError>;
    /// Chunks of a document whose LLM request failed (to be retried).
    fn fallback_chunks(&self, doc_id: i64) -> Result<usize, IndexError>;
    /// A cached context.
    fn cached_context(&self, key: &str) -> Result<Option<CachedContext>, IndexError>;
    /// Caches contexts (one transaction).
    fn put_cached_contexts(&self, items: &[(String, CachedContext)]) -> Result<(), IndexError>;
    /// Records one document's contextualizing.
    fn record_context_run(&self, run: &ContextRun) -> Result<(), IndexError>;
    /// Every recorded run, oldest first.
    fn context_runs(&self) -> Result<Vec<ContextRun>, IndexError>;

    // Watched folders and failed files.
    /// The folders the library keeps in step with, in the order they were added.
    fn watched_folders(&self) -> Result<Vec<String>, IndexError>;
    /// Adds a watched folder; `false` when it was already watched.
    fn add_watched_folder(&self, path: &str) -> Result<bool, IndexError>;
    /// Stops watching a folder; `false` when it was not watched.
    fn remove_watched_folder(&self, path: &str) -> Result<bool, IndexError>;
    /// Records why a file failed, with the size and time it had (it is tried again when they change).
    fn put_failure(&self, f: &FailureRow) -> Result<(), IndexError>;
    /// Forgets a file's failure (it was indexed, or is gone).
    fn clear_failure(&self, path: &str) -> Result<(), IndexError>;
    /// Files that failed, by path.
    fn failures(&self) -> Result<Vec<FailureRow>, IndexError>;

    // How the catalog is shared.

    /// Whether the same content at two paths is one document (a team library, where two computers
    /// add the same file): an ingest then takes a file whose content the library holds as
    /// unchanged. A folder library keeps one document per path.
    fn one_document_per_content(&self) -> bool {
        false
    }

    /// Whether this client may add and remove documents (a team library's role may only read).
    fn may_write(&self) -> Result<bool, IndexError> {
        Ok(true)
    }

    /// Removes a document left `writing` when it was abandoned (its writer is gone), so that
    /// opening the library rolls it back; returns whether it did. A folder library has one writer,
    /// and the one opening it for writing finds every such document abandoned. A team library asks
    /// whether a writer still claims it, and removes it only while it is still `writing`, in one
    /// transaction: a writer that marks it indexed meanwhile keeps it.
    fn remove_if_abandoned(&self, doc_id: i64) -> Result<bool, IndexError> {
        self.remove_document(doc_id)
    }

    // The store itself.
    /// Copies the write-ahead log into the database file, so the file holds the committed changes
    /// on its own (a copied library or a lost `-wal` file loses nothing written before). Passive:
    /// it never waits for readers (what a reader still needs stays in the log for the next one).
    /// Called after each ingest.
    fn checkpoint(&self) -> Result<(), IndexError>;
    /// A number that changes whenever another connection (another process) commits a change
    /// to the catalog; a reader compares it to know when to catch up.
    fn data_version(&self) -> Result<i64, IndexError>;
    /// A number that changes with every change to the documents, their sections, chunks,
    /// definitions and references (drawn at random each time, never reused in practice), for
    /// knowing whether tables computed from the catalog and saved are still its own; `None` where
    /// the catalog keeps none (then nothing computed from it is saved).
    fn change_stamp(&self) -> Result<Option<i64>, IndexError> {
        Ok(None)
    }
    /// SQLite's own check of the file (pages, indexes); a damaged catalog is reported with what
    /// SQLite says, and the advice to restore it.
    fn check(&self) -> Result<(), IndexError>;
}

/// The catalog in a SQLite file (see the module note).
pub struct SqliteCatalog {
    /// Behind a mutex so that the catalog can be shared between threads (searches run while an
    /// ingest prepares its next document); each call holds it briefly.
    conn: Mutex<Connection>,
}

impl SqliteCatalog {
    /// The connection. A panic while it was held leaves nothing half-done (statements are
    /// atomic, transactions roll back on drop), so a poisoned lock is taken over.
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens (creating and migrating as needed) the catalog at `path`.
    pub fn open(path: &Path) -> Result<SqliteCatalog, IndexError> {
        Self::setup(Connection::open(path)?)
    }

    /// An in-memory catalog, for tests.
    pub fn in_memory() -> Result<SqliteCatalog, IndexError> {
        Self::setup(Connection::open_in_memory()?)
    }

    fn setup(conn: Connection) -> Result<SqliteCatalog, IndexError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        Self::use_write_ahead_log(&conn)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Self::migrate(&conn)?;
        Ok(SqliteCatalog { conn: Mutex::new(conn) })
    }

    /// Puts the catalog in write-ahead-log mode (readers never wait for the writer). The mode is
    /// kept in the file, so only a new catalog changes it; that change needs the file to itself,
    /// and SQLite answers "database is locked" at once, without waiting, while another process
    /// opens the same new file: it is tried again for up to five seconds.
    fn use_write_ahead_log(conn: &Connection) -> Result<(), IndexError> {
        let mode = |c: &Connection| c.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0));
        if mode(conn)?.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Ok(()) => return Ok(()),
                Err(e)
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Brings the schema to [`SCHEMA_VERSION`]. Several processes may open a new or older library
    /// at the same moment (the desktop app and a CLI ingest): the version is read, and the
    /// migrations run, inside one transaction that holds the write lock from its start (`BEGIN
    /// IMMEDIATE`), so the second process waits for the first and then finds nothing left to do.
    /// Read outside it, two processes would both see version 0 and both create the tables.
    fn migrate(conn: &Connection) -> Result<(), IndexError> {
        let version = |c: &Connection| c.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0));
        // Most opens find the schema current: a plain read settles it without taking the lock.
        if version(conn)? == SCHEMA_VERSION {
            return Ok(());
        }
        let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
        let current = version(&tx)?;
        if current > SCHEMA_VERSION {
            return Err(IndexError::Newer(format!(
                "the library's catalog has schema version {current}, written by a later Folio; this Folio knows versions up to {SCHEMA_VERSION}: update Folio to open it"
            )));
        }
        for sql in schema::MIGRATIONS.iter().skip(current as usize) {
            tx.execute_batch(sql)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.commit()?;
        Ok(())
    }

    /// Copies the write-ahead log into the database file, so the file holds the committed changes
    /// on its own (a copied library or a lost `-wal` file loses nothing written before). Passive:
    /// it never waits for readers (what a reader still needs stays in the log for the next one).
    /// Called after each ingest.
    pub fn checkpoint(&self) -> Result<(), IndexError> {
        self.conn().query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// A number that changes whenever another connection (another process) commits a change
    /// to the catalog; a reader compares it to know when to catch up.
    pub fn data_version(&self) -> Result<i64, IndexError> {
        Ok(self.conn().pragma_query_value(None, "data_version", |r| r.get(0))?)
    }

    /// The catalog's change stamp (see [`Catalog::change_stamp`]): triggers draw it again on
    /// every change to the documents, sections, chunks, definitions and references.
    pub fn change_stamp(&self) -> Result<i64, IndexError> {
        Ok(self.conn().query_row("SELECT stamp FROM changes", [], |r| r.get(0))?)
    }

    /// SQLite's own check of the file (pages, indexes); a damaged catalog is reported with what
    /// SQLite says, and the advice to restore it.
    pub fn check(&self) -> Result<(), IndexError> {
        let result: String = self.conn().query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if result == "ok" {
            Ok(())
        } else {
            Err(IndexError::Corrupt(format!(
                "the library's catalog (catalog.sqlite) is damaged ({result}); Repair library (or `folio repair`) rebuilds it from the chunk records"
            )))
        }
    }
}

/// Now, in Unix seconds.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// What the catalog's unit tests share: a small analysed document and the row to store it with.
#[cfg(test)]
pub(crate) mod testing {
    use super::NewDocument;
    use folio_core::analysis::{analyze, Analysis};
    use folio_core::chunker::ChunkerConfig;
    use folio_core::model::{BlockKind, DocumentBuilder, Format};
    use folio_core::tokens::WordCounter;

    /// A rulebook of two rules, one defining a term and citing the other.
    pub(crate) fn rulebook(seed: &str) -> Analysis {
        let mut b = DocumentBuilder::new(Format::Markdown, "Rulebook", seed.as_bytes());
        b.push(BlockKind::Heading { level: 1, number: Some("1".into()) }, "1 General", None);
        b.push(
            BlockKind::Paragraph,
            &format!("In these Rules, \"Authorised Person\" means a person licensed under Rule 2. {seed}"),
            None,
        );
        b.push(BlockKind::Heading { level: 1, number: Some("2".into()) }, "2 Licences", None);
        b.push(BlockKind::Paragraph, "An Authorised Person must hold a licence. See Rule 1.", None);
        analyze(b.finish(), &WordCounter, &ChunkerConfig::default())
    }

    pub(crate) fn new_document<'a>(path: &'a str, analysis: &'a Analysis, mode: &'a str) -> NewDocument<'a> {
        NewDocument { path, label: "RB", mtime: 100, size: 2048, analysis, contexts: &[], context_mode: mode }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_catalog_is_at_the_current_schema_version_and_reopens_without_migrating_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.sqlite");
        let cat = SqliteCatalog::open(&path).unwrap();
        cat.add_watched_folder("/docs").unwrap();
        drop(cat);
        let version: i64 =
            Connection::open(&path).unwrap().pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let cat = SqliteCatalog::open(&path).unwrap();
        assert_eq!(cat.watched_folders().unwrap(), vec!["/docs".to_string()]);
        cat.check().unwrap();
    }

    #[test]
    fn a_catalog_from_a_later_version_is_refused_not_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.sqlite");
        drop(SqliteCatalog::open(&path).unwrap());
        Connection::open(&path).unwrap().pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        match SqliteCatalog::open(&path) {
            Err(e @ IndexError::Newer(_)) => {
                assert!(e.to_string().contains("schema version"), "{e}");
                assert!(!e.is_damage(), "a later version is not damage: {e}");
            }
            Err(e) => panic!("unexpected error {e}"),
            Ok(_) => panic!("a newer catalog opened"),
        }
    }

    #[test]
    fn a_checkpoint_leaves_every_change_in_the_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.sqlite");
        let cat = SqliteCatalog::open(&path).unwrap();
        cat.add_watched_folder("/kept").unwrap();
        cat.checkpoint().unwrap();
        // A copy of the database file alone, without its log, has the change.
        let copy = dir.path().join("copy.sqlite");
        std::fs::copy(&path, &copy).unwrap();
        assert_eq!(SqliteCatalog::open(&copy).unwrap().watched_folders().unwrap(), vec!["/kept".to_string()]);
    }

    #[test]
    fn another_connection_s_commit_changes_the_data_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.sqlite");
        let reader = SqliteCatalog::open(&path).unwrap();
        let writer = SqliteCatalog::open(&path).unwrap();
        let before = reader.data_version().unwrap();
        writer.add_watched_folder("/x").unwrap();
        assert_ne!(reader.data_version().unwrap(), before);
    }
}
