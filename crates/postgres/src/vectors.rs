//! The team library's vectors in pgvector: one table per embedding model and dimension (as the
//! folder library has one LanceDB table per model), keyed by chunk id, with an HNSW index for
//! cosine distance. A search sets `hnsw.ef_search` (see [`EF_SEARCH`]) and lets pgvector's
//! iterative scan go on past the first candidates when a filter (some documents) leaves too few.

use crate::server::Server;
use folio_index::vectors::{table_name, VectorRecord, VectorStore};
use folio_index::IndexError;
use pgvector::Vector;
use std::collections::HashMap;
use std::sync::Arc;

/// The HNSW candidate list a search keeps on a library of up to 100,000 chunks (pgvector's default
/// is 40); larger libraries keep a longer one (see [`ef_search_for`]).
pub const EF_SEARCH: i32 = 100;

/// The candidate list for a table of `rows` vectors: the shortest that gave recall@10 ≥ 0.95
/// against exact search on the scale benchmark (`crates/engine/examples/team_scale.rs`, MiniLM
/// vectors of the ObliQA rulebooks spread as far apart as real neighbours, HNSW m 16,
/// ef_construction 64): 100 at 100,000 rows (0.954), 800 at 1,000,000 (0.980; 400 gave 0.929).
/// Between the two it grows linearly; above, it stays at pgvector's most, 1,000.
pub fn ef_search_for(rows: i64) -> i32 {
    const SMALL: i64 = 100_000;
    const LARGE: i64 = 1_000_000;
    if rows <= SMALL {
        return EF_SEARCH;
    }
    let grown = EF_SEARCH as i64 + (800 - EF_SEARCH as i64).saturating_mul(rows - SMALL) / (LARGE - SMALL);
    grown.min(1000) as i32
}

/// The vectors of one model (see the module note).
pub struct PgVectors {
    server: Arc<Server>,
    table: String,
    dim: usize,
    ef_search: i32,
}

impl PgVectors {
    /// The table for `model` with `dim` dimensions, made (with its index) when missing.
    pub fn open(server: Arc<Server>, model: &str, dim: usize) -> Result<PgVectors, IndexError> {
        let table = table_name(model, dim);
        let exists: bool =
            server.read(|c| Ok(c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])?.get(0)))?;
        if !exists {
            // Two clients making the table at once: the advisory lock makes the second wait, and
            // IF NOT EXISTS lets it find the first's.
            let ddl = format!(
                "SELECT pg_advisory_xact_lock(hashtextextended('table:' || '{table}', 0));
                 CREATE TABLE IF NOT EXISTS {table} (
                     id BIGINT PRIMARY KEY,
                     doc_id BIGINT NOT NULL,
                     embedding vector({dim}) NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS {table}_doc ON {table}(doc_id);
                 CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops);"
            );
            server.write(|tx| tx.batch_execute(&ddl))?;
        }
        // The planner's row estimate (kept by ANALYZE and autovacuum; -1 before the first).
        let rows: i64 = server.read(|c| {
            Ok(c.query_one(
                "SELECT COALESCE((SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)), 0)",
                &[&table],
            )?
            .get(0))
        })?;
        Ok(PgVectors { server, table, dim, ef_search: ef_search_for(rows) })
    }

    /// The HNSW candidate list its searches keep.
    pub fn ef_search(&self) -> i32 {
        self.ef_search
    }

    /// The same store, searching with another HNSW candidate list (benchmarks measure recall
    /// against it; at least 10, at most pgvector's 1,000).
    pub fn with_ef_search(mut self, ef_search: i32) -> PgVectors {
        self.ef_search = ef_search.clamp(10, 1000);
        self
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    fn check(&self, records: &[VectorRecord]) -> Result<(), IndexError> {
        match records.iter().find(|r| r.embedding.len() != self.dim) {
            Some(bad) => Err(IndexError::Invalid(format!(
                "an embedding of {} dimensions for a {}-dimension table (chunk {})",
                bad.embedding.len(),
                self.dim,
                bad.chunk_id
            ))),
            None => Ok(()),
        }
    }

    /// Exact nearest neighbours (no index), to measure the index's recall against.
    pub fn search_exact(&self, query: &[f32], limit: usize) -> Result<Vec<(i64, f32)>, IndexError> {
        let sql = format!(
            "SELECT id, 1 - (embedding <=> $1) FROM {} ORDER BY embedding <=> $1, id LIMIT $2",
            self.table
        );
        let q = Vector::from(query.to_vec());
        let limit = limit as i64;
        self.server.read(|c| {
            let mut tx = c.transaction()?;
            tx.batch_execute("SET LOCAL enable_indexscan = off")?;
            let rows = tx.query(&sql, &[&q, &limit])?;
            Ok(rows.iter().map(|r| (r.get(0), r.get::<_, f64>(1) as f32)).collect())
        })
    }
}

impl VectorStore for PgVectors {
    fn put_document(&self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError> {
        self.check(records)?;
        let ids: Vec<i64> = records.iter().map(|r| r.chunk_id).collect();
        let vectors: Vec<Vector> = records.iter().map(|r| Vector::from(r.embedding.clone())).collect();
        let delete = format!("DELETE FROM {} WHERE doc_id = $1", self.table);
        let insert = format!(
            "INSERT INTO {} (id, doc_id, embedding) SELECT u.id, $1, u.v FROM UNNEST($2::bigint[], $3::vector[]) AS u(id, v)
             ON CONFLICT (id) DO UPDATE SET doc_id = EXCLUDED.doc_id, embedding = EXCLUDED.embedding",
            self.table
        );
        self.server.write(|tx| {
            tx.execute(&delete, &[&doc_id])?;
            if !ids.is_empty() {
                tx.execute(&insert, &[&doc_id, &ids, &vectors])?;
            }
            Ok(())
        })
    }

    fn remove_document(&self, doc_id: i64) -> Result<(), IndexError> {
        let delete = format!("DELETE FROM {} WHERE doc_id = $1", self.table);
        self.server.write(|tx| tx.execute(&delete, &[&doc_id]))?;
        Ok(())
    }

    fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Result<Vec<(i64, f32)>, IndexError> {
        let filter = if docs.is_empty() { "" } else { "WHERE doc_id = ANY($3)" };
        let sql = format!(
            "SELECT id, 1 - (embedding <=> $1) FROM {} {filter} ORDER BY embedding <=> $1 LIMIT $2",
            self.table
        );
        let q = Vector::from(query.to_vec());
        let limit = limit as i64;
        let mut out: Vec<(i64, f32)> = self.server.read(|c| {
            let mut tx = c.transaction()?;
            tx.batch_execute(&format!(
                "SET LOCAL hnsw.ef_search = {}; SET LOCAL hnsw.iterative_scan = relaxed_order",
                self.ef_search
            ))?;
            let rows = if docs.is_empty() {
                tx.query(&sql, &[&q, &limit])?
            } else {
                tx.query(&sql, &[&q, &limit, &docs])?
            };
            Ok(rows.iter().map(|r| (r.get(0), r.get::<_, f64>(1) as f32)).collect())
        })?;
        // Best first, ties by chunk id (relaxed order may return near-ties out of order).
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(out)
    }

    fn len(&self) -> Result<usize, IndexError> {
        let sql = format!("SELECT COUNT(*) FROM {}", self.table);
        self.server.read(|c| Ok(c.query_one(&sql, &[])?.get::<_, i64>(0) as usize))
    }

    fn document_vectors(&self, doc_id: i64) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        let sql = format!("SELECT id, embedding FROM {} WHERE doc_id = $1", self.table);
        self.server.read(|c| {
            Ok(c.query(&sql, &[&doc_id])?
                .iter()
                .map(|r| (r.get(0), r.get::<_, Vector>(1).to_vec()))
                .collect())
        })
    }

    fn records(&self) -> Result<Vec<VectorRecord>, IndexError> {
        // The catalog is in the same database, in the same transactions: it is never rebuilt from
        // the vectors, as a folder's damaged catalog is from LanceDB's records.
        Err(IndexError::Invalid(
            "a team library keeps its chunk records in its catalog; its vectors hold no copy to rebuild one from".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_candidate_list_grows_with_the_library_as_measured() {
        assert_eq!(ef_search_for(-1), EF_SEARCH);
        assert_eq!(ef_search_for(12_356), EF_SEARCH);
        assert_eq!(ef_search_for(100_000), EF_SEARCH);
        assert_eq!(ef_search_for(550_000), 450);
        assert_eq!(ef_search_for(1_000_000), 800);
        assert_eq!(ef_search_for(2_000_000), 1000);
        assert_eq!(ef_search_for(i64::MAX), 1000);
    }
}
