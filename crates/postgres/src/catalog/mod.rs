//! The team library's catalog in PostgreSQL: the [`Catalog`] the engine asks of every library,
//! with the same rows as the SQLite catalog. Reads go to any live host, writes to the primary, each
//! in one transaction. Watched folders and failed files are kept per computer (their paths are
//! that computer's).

mod documents;
mod rows;

use crate::server::Server;
use folio_core::model::Span;
use folio_index::catalog::{
    CachedContext, Catalog, ChunkRow, ContextRun, DefinitionRow, DocumentRow, FailureRow, NewDocument,
    RefRow, SectionRow, TableRow,
};
use folio_index::IndexError;
use rows::{CHUNK_COLS, DEFINITION_COLS, DOC_COLS, REF_COLS, SECTION_COLS};
use std::sync::Arc;

/// The team library's catalog (see the module note).
pub struct PgCatalog {
    server: Arc<Server>,
    /// This computer's name, under which its watched folders and failures are kept.
    computer: String,
}

impl PgCatalog {
    /// The catalog of the library on `server` (its schema brought up to date first), as seen from
    /// the computer named `computer`.
    pub fn open(server: Arc<Server>, computer: &str) -> Result<PgCatalog, IndexError> {
        crate::schema::migrate(&server)?;
        Ok(PgCatalog { server, computer: computer.to_string() })
    }

    /// The server the catalog is on.
    pub fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// The last change in the change sequence (0 for none): a client's keyword cache that has
    /// seen up to it is current.
    pub fn last_change(&self) -> Result<i64, IndexError> {
        self.server.read(|c| Ok(c.query_one("SELECT COALESCE(MAX(seq), 0) FROM changes", &[])?.get(0)))
    }

    /// The changes after `seq`, oldest first, as (sequence, document, removed); a document put
    /// again after a removal shows both.
    pub fn changes_since(&self, seq: i64) -> Result<Vec<(i64, i64, bool)>, IndexError> {
        self.server.read(|c| {
            Ok(c.query("SELECT seq, doc_id, removed FROM changes WHERE seq > $1 ORDER BY seq", &[&seq])?
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect())
        })
    }

    fn documents_where(
        &self,
        condition: &str,
        value: &(dyn postgres::types::ToSql + Sync),
    ) -> Result<Option<DocumentRow>, IndexError> {
        self.server.read(|c| documents::one(c, condition, value))
    }

    fn references_where(
        &self,
        condition: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<RefRow>, IndexError> {
        let sql = format!("SELECT {REF_COLS} FROM refs WHERE {condition}");
        self.server.read(|c| Ok(c.query(&sql, params)?.iter().map(|r| rows::reference(r, 0)).collect()))
    }
}

impl Catalog for PgCatalog {
    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>, IndexError> {
        self.documents_where("path = $1", &path)
    }

    fn documents(&self) -> Result<Vec<DocumentRow>, IndexError> {
        let sql = format!("SELECT {DOC_COLS} FROM documents ORDER BY id");
        self.server.read(|c| Ok(c.query(&sql, &[])?.iter().map(rows::document).collect()))
    }

    fn document(&self, id: i64) -> Result<Option<DocumentRow>, IndexError> {
        self.documents_where("id = $1", &id)
    }

    fn rename_document(&self, id: i64, title: Option<&str>) -> Result<(), IndexError> {
        let changed = self
            .server
            .write(|tx| tx.execute("UPDATE documents SET user_title = $2 WHERE id = $1", &[&id, &title]))?;
        if changed == 0 {
            return Err(IndexError::Invalid(format!("no document {id}")));
        }
        Ok(())
    }

    fn document_text(&self, id: i64) -> Result<String, IndexError> {
        self.server.read(|c| Ok(c.query_one("SELECT text FROM documents WHERE id = $1", &[&id])?.get(0)))
    }

    fn put_document(&self, doc: &NewDocument<'_>) -> Result<(i64, Vec<ChunkRow>), IndexError> {
        self.server.write(|tx| documents::put(tx, doc))
    }

    fn set_stamp(&self, id: i64, mtime: i64, size: i64) -> Result<(), IndexError> {
        self.server.write(|tx| {
            tx.execute("UPDATE documents SET mtime = $2, size = $3 WHERE id = $1", &[&id, &mtime, &size])
        })?;
        Ok(())
    }

    fn document_by_hash(&self, content_hash: &str) -> Result<Option<DocumentRow>, IndexError> {
        self.documents_where("content_hash = $1 AND status = 'indexed'", &content_hash)
    }

    fn mark_indexed(&self, doc_id: i64) -> Result<(), IndexError> {
        self.server.write(|tx| documents::mark_indexed(tx, doc_id))
    }

    fn remove_document(&self, id: i64) -> Result<bool, IndexError> {
        self.server.write(|tx| documents::remove(tx, id))
    }

    fn document_counts(&self, doc_id: i64) -> Result<[usize; 4], IndexError> {
        self.server.read(|c| {
            let r = c.query_one(
                "SELECT (SELECT COUNT(*) FROM sections WHERE doc_id = $1), (SELECT COUNT(*) FROM chunks WHERE doc_id = $1),
                        (SELECT COUNT(*) FROM definitions WHERE doc_id = $1), (SELECT COUNT(*) FROM refs WHERE doc_id = $1)",
                &[&doc_id],
            )?;
            Ok([0, 1, 2, 3].map(|i| r.get::<_, i64>(i) as usize))
        })
    }

    fn chunks(&self, doc_id: Option<i64>) -> Result<Vec<ChunkRow>, IndexError> {
        self.server.read(|c| {
            let rows = match doc_id {
                Some(d) => c.query(
                    &format!("SELECT {CHUNK_COLS} FROM chunks WHERE doc_id = $1 ORDER BY chunk_index"),
                    &[&d],
                )?,
                None => {
                    c.query(&format!("SELECT {CHUNK_COLS} FROM chunks ORDER BY doc_id, chunk_index"), &[])?
                }
            };
            Ok(rows.iter().map(rows::chunk).collect())
        })
    }

    fn chunks_by_id(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, IndexError> {
        let found: Vec<ChunkRow> = self.server.read(|c| {
            Ok(c.query(&format!("SELECT {CHUNK_COLS} FROM chunks WHERE id = ANY($1)"), &[&ids])?
                .iter()
                .map(rows::chunk)
                .collect())
        })?;
        // In the order asked, missing ids skipped.
        let mut by_id: std::collections::HashMap<i64, ChunkRow> =
            found.into_iter().map(|c| (c.id, c)).collect();
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }

    fn sections(&self, doc_id: i64) -> Result<Vec<SectionRow>, IndexError> {
        let sql = format!("SELECT {SECTION_COLS} FROM sections WHERE doc_id = $1 ORDER BY ord");
        self.server.read(|c| Ok(c.query(&sql, &[&doc_id])?.iter().map(rows::section).collect()))
    }

    fn definitions(&self, key: Option<&str>) -> Result<Vec<DefinitionRow>, IndexError> {
        self.server.read(|c| {
            let rows = match key {
                Some(k) => c.query(&format!("SELECT {DEFINITION_COLS} FROM definitions WHERE key = $1 ORDER BY doc_id, span_start"), &[&k])?,
                None => c.query(&format!("SELECT {DEFINITION_COLS} FROM definitions ORDER BY doc_id, span_start"), &[])?,
            };
            Ok(rows.iter().map(rows::definition).collect())
        })
    }

    fn tables_within(&self, doc_id: i64, span: Span) -> Result<Vec<TableRow>, IndexError> {
        let (start, end) = (span.start as i64, span.end as i64);
        self.server.read(|c| {
            Ok(c.query(
                "SELECT span_start, span_end, header_rows FROM tables WHERE doc_id = $1 AND span_start >= $2 AND span_end <= $3 ORDER BY span_start",
                &[&doc_id, &start, &end],
            )?
            .iter()
            .map(|r| TableRow {
                span: Span::new(r.get::<_, i64>(0) as usize, r.get::<_, i64>(1) as usize),
                header_rows: r.get::<_, i64>(2) as u32,
            })
            .collect())
        })
    }

    fn references(&self, doc_id: i64, section_id: &str, outgoing: bool) -> Result<Vec<RefRow>, IndexError> {
        if outgoing {
            self.references_where(
                "doc_id = $1 AND from_section = $2 ORDER BY span_start",
                &[&doc_id, &section_id],
            )
        } else {
            self.references_where(
                "(doc_id = $1 AND target_section = $2) OR (target_doc_id = $1 AND target_doc_section = $2) ORDER BY doc_id, span_start",
                &[&doc_id, &section_id],
            )
        }
    }

    fn resolved_references(&self) -> Result<Vec<RefRow>, IndexError> {
        self.references_where("target_section IS NOT NULL OR target_doc_section IS NOT NULL ORDER BY id", &[])
    }

    fn resolved_references_of(&self, doc_ids: &[i64]) -> Result<Vec<RefRow>, IndexError> {
        self.references_where(
            "doc_id = ANY($1) AND (target_section IS NOT NULL OR target_doc_section IS NOT NULL) ORDER BY id",
            &[&doc_ids],
        )
    }

    fn references_within(&self, doc_id: i64, span: Span) -> Result<Vec<RefRow>, IndexError> {
        let (start, end) = (span.start as i64, span.end as i64);
        self.references_where(
            "doc_id = $1 AND span_start >= $2 AND span_end <= $3 ORDER BY span_start",
            &[&doc_id, &start, &end],
        )
    }

    fn external_references(&self) -> Result<Vec<(i64, RefRow)>, IndexError> {
        let sql = format!("SELECT id, {REF_COLS} FROM refs WHERE document IS NOT NULL ORDER BY id");
        self.server
            .read(|c| Ok(c.query(&sql, &[])?.iter().map(|r| (r.get(0), rows::reference(r, 1))).collect()))
    }

    fn unresolved_documents(&self) -> Result<Vec<(i64, String, String)>, IndexError> {
        self.server.read(|c| {
            Ok(c.query("SELECT doc_id, document, text FROM refs WHERE document IS NOT NULL AND target_doc_id IS NULL ORDER BY id", &[])?
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect())
        })
    }

    fn set_resolutions(&self, resolved: &[(i64, Option<i64>, Option<String>)]) -> Result<(), IndexError> {
        let ids: Vec<i64> = resolved.iter().map(|r| r.0).collect();
        let docs: Vec<Option<i64>> = resolved.iter().map(|r| r.1).collect();
        let sections: Vec<Option<String>> = resolved.iter().map(|r| r.2.clone()).collect();
        // One statement for all of them (a library's external references number in the tens of
        // thousands).
        self.server.write(|tx| {
            tx.execute(
                "UPDATE refs SET target_doc_id = u.doc, target_doc_section = u.section
                 FROM UNNEST($1::bigint[], $2::bigint[], $3::text[]) AS u(id, doc, section)
                 WHERE refs.id = u.id AND (refs.target_doc_id IS DISTINCT FROM u.doc OR refs.target_doc_section IS DISTINCT FROM u.section)",
                &[&ids, &docs, &sections],
            )
        })?;
        Ok(())
    }

    fn context_mode(&self, doc_id: i64) -> Result<String, IndexError> {
        self.server
            .read(|c| Ok(c.query_one("SELECT context_mode FROM documents WHERE id = $1", &[&doc_id])?.get(0)))
    }

    fn fallback_chunks(&self, doc_id: i64) -> Result<usize, IndexError> {
        self.server.read(|c| {
            Ok(c.query_one(
                "SELECT COUNT(*) FROM chunks WHERE doc_id = $1 AND context_source = 'fallback'",
                &[&doc_id],
            )?
            .get::<_, i64>(0) as usize)
        })
    }

    fn cached_context(&self, key: &str) -> Result<Option<CachedContext>, IndexError> {
        self.server.read(|c| {
            Ok(c.query_opt(
                "SELECT provider, model, prompt_version, text, excerpt, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens
                 FROM context_cache WHERE key = $1",
                &[&key],
            )?
            .map(|r| CachedContext {
                provider: r.get(0),
                model: r.get(1),
                prompt_version: r.get(2),
                text: r.get(3),
                excerpt: r.get(4),
                tokens: [5, 6, 7, 8].map(|i| r.get::<_, i64>(i) as u64),
            }))
        })
    }

    fn put_cached_contexts(&self, items: &[(String, CachedContext)]) -> Result<(), IndexError> {
        self.server.write(|tx| {
            let st = tx.prepare(
                "INSERT INTO context_cache (key, provider, model, prompt_version, text, excerpt, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (key) DO UPDATE SET provider = EXCLUDED.provider, model = EXCLUDED.model, prompt_version = EXCLUDED.prompt_version,
                   text = EXCLUDED.text, excerpt = EXCLUDED.excerpt, input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
                   cache_write_tokens = EXCLUDED.cache_write_tokens, cache_read_tokens = EXCLUDED.cache_read_tokens, created = now()",
            )?;
            for (key, c) in items {
                let t = c.tokens.map(|n| n as i64);
                tx.execute(&st, &[key, &c.provider, &c.model, &c.prompt_version, &c.text, &c.excerpt, &t[0], &t[1], &t[2], &t[3]])?;
            }
            Ok(())
        })
    }

    fn record_context_run(&self, run: &ContextRun) -> Result<(), IndexError> {
        let n = [
            run.requests,
            run.input_tokens,
            run.output_tokens,
            run.cache_write_tokens,
            run.cache_read_tokens,
            run.hits,
            run.misses,
            run.fallbacks,
            run.excerpted,
        ]
        .map(|v| v as i64);
        self.server.write(|tx| {
            tx.execute(
                "INSERT INTO context_runs (path, provider, model, requests, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens,
                   hits, misses, fallbacks, excerpted, cost) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                &[&run.path, &run.provider, &run.model, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8], &run.cost],
            )
        })?;
        Ok(())
    }

    fn context_runs(&self) -> Result<Vec<ContextRun>, IndexError> {
        self.server.read(|c| {
            Ok(c.query(
                "SELECT path, provider, model, requests, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens,
                        hits, misses, fallbacks, excerpted, cost FROM context_runs ORDER BY id",
                &[],
            )?
            .iter()
            .map(|r| {
                let n = |i: usize| r.get::<_, i64>(i) as u64;
                ContextRun {
                    path: r.get(0),
                    provider: r.get(1),
                    model: r.get(2),
                    requests: n(3),
                    input_tokens: n(4),
                    output_tokens: n(5),
                    cache_write_tokens: n(6),
                    cache_read_tokens: n(7),
                    hits: n(8),
                    misses: n(9),
                    fallbacks: n(10),
                    excerpted: n(11),
                    cost: r.get(12),
                }
            })
            .collect())
        })
    }

    fn watched_folders(&self) -> Result<Vec<String>, IndexError> {
        self.server.read(|c| {
            Ok(c.query(
                "SELECT path FROM watched_folders WHERE computer = $1 ORDER BY added, path",
                &[&self.computer],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
        })
    }

    fn add_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        self.server.write(|tx| {
            Ok(tx.execute(
                "INSERT INTO watched_folders (computer, path) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&self.computer, &path],
            )? > 0)
        })
    }

    fn remove_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        self.server.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM watched_folders WHERE computer = $1 AND path = $2",
                &[&self.computer, &path],
            )? > 0)
        })
    }

    fn put_failure(&self, f: &FailureRow) -> Result<(), IndexError> {
        self.server.write(|tx| {
            tx.execute(
                "INSERT INTO failures (computer, path, mtime, size, code, message, at) VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (computer, path) DO UPDATE SET mtime = EXCLUDED.mtime, size = EXCLUDED.size, code = EXCLUDED.code,
                   message = EXCLUDED.message, at = EXCLUDED.at",
                &[&self.computer, &f.path, &f.mtime, &f.size, &f.code, &f.message, &f.at],
            )
        })?;
        Ok(())
    }

    fn clear_failure(&self, path: &str) -> Result<(), IndexError> {
        self.server.write(|tx| {
            tx.execute("DELETE FROM failures WHERE computer = $1 AND path = $2", &[&self.computer, &path])
        })?;
        Ok(())
    }

    fn failures(&self) -> Result<Vec<FailureRow>, IndexError> {
        self.server.read(|c| {
            Ok(c.query(
                "SELECT path, mtime, size, code, message, at FROM failures WHERE computer = $1 ORDER BY path",
                &[&self.computer],
            )?
            .iter()
            .map(|r| FailureRow {
                path: r.get(0),
                mtime: r.get(1),
                size: r.get(2),
                code: r.get(3),
                message: r.get(4),
                at: r.get(5),
            })
            .collect())
        })
    }

    fn one_document_per_content(&self) -> bool {
        true
    }

    fn may_write(&self) -> Result<bool, IndexError> {
        self.server.read(|c| {
            Ok(c.query_one(
                "SELECT has_table_privilege('documents', 'INSERT') AND has_table_privilege('documents', 'DELETE')
                        AND has_table_privilege('chunks', 'INSERT') AND has_table_privilege('changes', 'INSERT')",
                &[],
            )?
            .get(0))
        })
    }

    fn remove_if_abandoned(&self, doc_id: i64) -> Result<bool, IndexError> {
        self.server.write(|tx| documents::remove_if_abandoned(tx, doc_id))
    }

    fn checkpoint(&self) -> Result<(), IndexError> {
        // The server keeps its own write-ahead log durable: nothing to copy.
        Ok(())
    }

    fn data_version(&self) -> Result<i64, IndexError> {
        self.last_change()
    }

    fn check(&self) -> Result<(), IndexError> {
        // The server checks its own pages; what Folio can check is that it answers.
        self.server.read(|c| c.execute("SELECT 1", &[]).map(|_| ()))
    }
}

#[cfg(test)]
mod tests {
    use super::documents::{CLAIM, UNCLAIM};
    use super::*;
    use crate::testing::TestDatabase;
    use postgres::{Client, NoTls};

    /// A writer's document, `writing`, put and claimed on the writer's own session.
    fn writing(db: &TestDatabase, path: &str) -> (Client, i64) {
        let mut writer = Client::connect(db.url(), NoTls).unwrap();
        let id: i64 = writer
            .query_one(
                "INSERT INTO documents (path, label, title, format, content_hash, mtime, size, status, text)
                 VALUES ($1, 'P', 'P', 'text', $1, 0, 0, 'writing', '') RETURNING id",
                &[&path],
            )
            .unwrap()
            .get(0);
        writer.execute(CLAIM, &[&id]).unwrap();
        (writer, id)
    }

    #[test]
    #[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
    fn only_documents_nobody_writes_are_rolled_back() {
        let db = TestDatabase::create();
        let catalog = PgCatalog::open(db.server(), "checker").unwrap();
        let (writer, claimed) = writing(&db, "/claimed");
        let (gone, abandoned) = writing(&db, "/abandoned");
        drop(gone); // the writer's connection ends: its claim with it
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!catalog.remove_if_abandoned(claimed).unwrap(), "a claimed document stays");
        assert!(catalog.remove_if_abandoned(abandoned).unwrap(), "an abandoned one goes");
        assert_eq!(catalog.documents().unwrap().len(), 1);
        drop(writer);
    }

    #[test]
    #[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
    fn a_document_marked_indexed_meanwhile_is_not_rolled_back() {
        let db = TestDatabase::create();
        let catalog = PgCatalog::open(db.server(), "checker").unwrap();
        let (mut writer, id) = writing(&db, "/doc");
        // The writer marks it indexed: its claim goes at once, the mark only at the commit.
        let mut tx = writer.transaction().unwrap();
        tx.execute("UPDATE documents SET status = 'indexed' WHERE id = $1", &[&id]).unwrap();
        tx.execute(UNCLAIM, &[&id]).unwrap();
        // Another client opening the library meanwhile looks for abandoned documents.
        let other = std::thread::spawn(move || catalog.remove_if_abandoned(id).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(300));
        tx.commit().unwrap();
        assert!(!other.join().unwrap(), "the document the writer marked indexed is kept");
        let n: i64 =
            writer.query_one("SELECT COUNT(*) FROM documents WHERE status = 'indexed'", &[]).unwrap().get(0);
        assert_eq!(n, 1);
    }
}
