//! What a disk store answers vector searches from: every vector in RAM, in f32 while the table
//! is small enough to scan exactly, as 8-bit codes in inverted lists past [`ANN_THRESHOLD`] rows.

use super::compact::CompactIndex;
use super::memory::VectorTable;
use super::VectorRecord;
use std::collections::HashMap;

/// Rows from which a store's vectors are kept as 8-bit codes in inverted lists
/// ([`CompactIndex`]) rather than scanned exactly in f32. Measured with
/// `cargo run -p folio-index --example ann_bench` (384 dimensions, 2 cores, dev profile with this
/// crate optimised): exact f32 search takes about 0.08 µs a row (p50 9.9 ms at 120k rows) and its
/// mirror 1.5 KB a row; past this size the compact lists answer in a fraction of that from a
/// quarter of the memory, with recall@10 against exact search printed by the benchmark. (LanceDB's
/// own IVF-PQ index took 255 ms p50 at 120k rows in the same build.)
pub const ANN_THRESHOLD: usize = 250_000;

/// The vectors a store searches.
#[derive(Debug)]
pub(super) enum Mirror {
    /// f32, scanned exactly.
    Exact(VectorTable),
    /// 8-bit codes in inverted lists.
    Compact(CompactIndex),
}

impl Mirror {
    /// An empty mirror of the kind a table of `rows` rows gets, 8-bit lists from `threshold`
    /// rows (normally [`ANN_THRESHOLD`]).
    pub(super) fn for_rows(rows: usize, dim: usize, threshold: usize) -> Mirror {
        if rows < threshold {
            Mirror::Exact(VectorTable::mirror())
        } else {
            Mirror::Compact(CompactIndex::new(dim))
        }
    }

    /// Adds one row (loading; `finish` when done).
    pub(super) fn insert(&mut self, doc_id: i64, id: i64, v: &[f32]) {
        match self {
            Mirror::Exact(t) => t.insert(doc_id, id, v),
            Mirror::Compact(c) => c.insert(doc_id, id, v),
        }
    }

    /// After loading: the lists trained when the rows call for them.
    pub(super) fn finish(&mut self) {
        if let Mirror::Compact(c) = self {
            c.train_if_due();
        }
    }

    pub(super) fn put_document(&mut self, doc_id: i64, records: &[VectorRecord]) {
        match self {
            Mirror::Exact(t) => t.put_document(doc_id, records),
            Mirror::Compact(c) => {
                let rows: Vec<(i64, &[f32])> =
                    records.iter().map(|r| (r.chunk_id, r.embedding.as_slice())).collect();
                c.put_document(doc_id, &rows)
            }
        }
    }

    pub(super) fn remove_document(&mut self, doc_id: i64) {
        match self {
            Mirror::Exact(t) => t.remove_document(doc_id),
            Mirror::Compact(c) => c.remove_document(doc_id),
        }
    }

    pub(super) fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Vec<(i64, f32)> {
        match self {
            Mirror::Exact(t) => t.search(query, limit, docs),
            Mirror::Compact(c) => c.search(query, limit, docs),
        }
    }

    /// A document's f32 vectors, where the mirror keeps them (the compact one does not).
    pub(super) fn document_vectors(&self, doc_id: i64) -> Option<HashMap<i64, Vec<f32>>> {
        match self {
            Mirror::Exact(t) => Some(t.document_vectors(doc_id)),
            Mirror::Compact(_) => None,
        }
    }

    /// The 8-bit lists, where the mirror is them.
    pub(super) fn compact(&self) -> Option<&CompactIndex> {
        match self {
            Mirror::Exact(_) => None,
            Mirror::Compact(c) => Some(c),
        }
    }

    pub(super) fn is_exact(&self) -> bool {
        matches!(self, Mirror::Exact(_))
    }

    /// The same vectors as 8-bit codes in inverted lists (from an exact mirror; a compact one is
    /// returned as it is).
    pub(super) fn into_compact(self, dim: usize) -> Mirror {
        match self {
            Mirror::Exact(t) => {
                let mut c = CompactIndex::new(dim);
                t.for_each_row(|doc, id, v| c.insert(doc, id, v));
                c.train_if_due();
                Mirror::Compact(c)
            }
            compact => compact,
        }
    }
}
