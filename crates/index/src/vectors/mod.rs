//! Dense vectors: the [`VectorStore`] trait, LanceDB on local disk ([`LanceVectors`]) and an in-RAM twin
//! for tests ([`MemoryVectors`]). One record per chunk with its metadata; the table name carries the
//! embedding model and dimension, so switching models never mixes vectors.
//!
//! Writes take `&self`: a store is shared between the threads that search and the one ingest that
//! writes, and each store orders its own writes (a searcher never waits for a whole write, only for
//! the moment its in-memory part is swapped).

mod compact;
pub mod conformance;
mod int8;
mod lance;
mod memory;
mod mirror;

pub use compact::{CompactIndex, IVF_MIN_ROWS};
pub use lance::LanceVectors;
pub use memory::MemoryVectors;
pub use mirror::ANN_THRESHOLD;

use crate::IndexError;
use std::collections::HashMap;

/// One chunk's record in the vector store.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorRecord {
    /// The chunk's id in the catalog.
    pub chunk_id: i64,
    /// Its document's id.
    pub doc_id: i64,
    /// The file's absolute path.
    pub source_path: String,
    /// The chunk's position in its document, from 0.
    pub chunk_index: i64,
    /// The chunk's text.
    pub content: String,
    /// The chunk's context, then the chunk: the text the keyword index holds.
    pub contextualized_content: String,
    /// The chunk's vector: of the chunk alone, or of its LLM-written context and the chunk.
    pub embedding: Vec<f32>,
    /// The file's modification time (Unix seconds).
    pub mtime: i64,
    /// The document's format (`pdf`, `docx`, …).
    pub file_type: String,
    /// The file's size in bytes.
    pub file_size_bytes: i64,
    /// JSON list of heading texts.
    pub parent_chain: String,
    /// The innermost section holding the whole chunk.
    pub section_id: String,
    /// The level of `section_id` (0 for text before the first heading).
    pub heading_level: i64,
    /// What the chunk mostly is (`definition`, `requirement`, …).
    pub chunk_type: String,
    /// JSON list of the references written in the chunk.
    pub cross_references: String,
    /// The document's title.
    pub doc_summary: String,
    /// The first term defined in the chunk, if any.
    pub defined_term: Option<String>,
    /// The normalised key of `defined_term`.
    pub defined_term_normalized: Option<String>,
    /// The first page the chunk lies on; `None` for formats without pages.
    pub page_start: Option<i64>,
    /// The last page it lies on (included); `None` for formats without pages.
    pub page_end: Option<i64>,
    /// Where the chunk starts in the document text, in bytes.
    pub char_start: i64,
    /// Where it ends in the document text, in bytes (exclusive).
    pub char_end: i64,
    /// SHA-256 (hex) of `content`.
    pub content_hash: String,
}

/// Vector storage and nearest-neighbour search.
pub trait VectorStore: Send + Sync {
    /// Replaces all records of a document.
    fn put_document(&self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError>;
    /// Removes every record of a document.
    fn remove_document(&self, doc_id: i64) -> Result<(), IndexError>;
    /// Chunk ids with cosine similarity, best first; `docs` restricts to documents when not empty.
    fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Result<Vec<(i64, f32)>, IndexError>;
    /// How many records the store holds.
    fn len(&self) -> Result<usize, IndexError>;
    /// A document's vectors by chunk id (to keep those of unchanged chunks on re-ingest).
    fn document_vectors(&self, doc_id: i64) -> Result<HashMap<i64, Vec<f32>>, IndexError>;
    /// Every record, with its vector, in no particular order: what a damaged catalog is rebuilt
    /// from.
    fn records(&self) -> Result<Vec<VectorRecord>, IndexError>;
    /// Whether the store holds no record.
    fn is_empty(&self) -> Result<bool, IndexError> {
        Ok(self.len()? == 0)
    }
    /// Saves what makes the next open fast (a large table's 8-bit lists), after a batch of
    /// writes. Nothing is lost without it: the next open builds them from the table.
    fn checkpoint(&self) -> Result<(), IndexError> {
        Ok(())
    }
    /// Sees what another process wrote since this store was opened or last reloaded.
    fn reload(&mut self) -> Result<(), IndexError> {
        Ok(())
    }
}

/// The table name for a model and dimension: `chunks_all_minilm_l6_v2_384`.
pub fn table_name(model: &str, dim: usize) -> String {
    let clean: String =
        model.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    format!("chunks_{}_{dim}", clean.trim_matches('_'))
}

#[cfg(test)]
mod tests {
    use super::conformance::{exercise, exercise_records, record};
    use super::*;

    #[test]
    fn memory_store() {
        exercise(&MemoryVectors::default());
        exercise_records(&MemoryVectors::default());
    }

    #[test]
    fn lance_store_matches_its_twin_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        {
            let lance = LanceVectors::open(dir.path(), "test-model", 3).unwrap();
            exercise(&lance);
        }
        let reopened = LanceVectors::open(dir.path(), "test-model", 3).unwrap();
        assert_eq!(reopened.len().unwrap(), 1);
        assert!(reopened.is_exact());
        assert_eq!(
            reopened.search(&[0.0, 0.0, 1.0], 5, &[]).unwrap().iter().map(|h| h.0).collect::<Vec<_>>(),
            vec![4],
            "the RAM mirror is rebuilt from disk"
        );
        let other = LanceVectors::open(dir.path(), "other-model", 3).unwrap();
        assert_eq!(other.len().unwrap(), 0, "another model has its own table");
        exercise_records(&other);
        assert_eq!(table_name("all-MiniLM-L6-v2", 384), "chunks_all_minilm_l6_v2_384");
    }

    /// A table that grows past [`ANN_THRESHOLD`] rows changes its mirror to 8-bit lists and keeps
    /// answering; opened again it loads the lists; shrunk below, it is exact again.
    #[test]
    fn lance_store_crosses_the_threshold_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
        // Rows on the unit circle of the first two axes, a document per 50,000.
        let v = |i: usize| {
            let a = i as f32 * 0.000_01;
            vec![a.cos(), a.sin(), 0.0, 0.0]
        };
        let per = 50_000;
        for d in 0..ANN_THRESHOLD / per {
            let recs: Vec<VectorRecord> =
                (d * per..(d + 1) * per).map(|i| record(i as i64, d as i64, v(i))).collect();
            lance.put_document(d as i64, &recs).unwrap();
            assert_eq!(lance.is_exact(), (d + 1) * per < ANN_THRESHOLD);
        }
        let near = |store: &LanceVectors, i: usize| store.search(&v(i), 1, &[]).unwrap()[0].0;
        // In four dimensions 8 bits resolve about 1/127 of a radian: 800 rows of this arc.
        let close = |found: i64, i: usize| (found - i as i64).abs() < 2_000;
        assert!(close(near(&lance, 123_456), 123_456), "the lists find the row's neighbourhood");
        assert_eq!(lance.search(&v(10), 3, &[4]).unwrap().len(), 3, "a document filter scans its rows");
        drop(lance);
        let lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
        assert!(!lance.is_exact(), "reopened past the threshold: the lists");
        assert!(!lance.lists_were_saved(), "no checkpoint yet: built from the table");
        assert_eq!(lance.len().unwrap(), ANN_THRESHOLD);
        assert!(close(near(&lance, 200_000), 200_000));
        lance.checkpoint().unwrap();
        let answers =
            |store: &LanceVectors| [5, 123_456, 249_999].map(|i| store.search(&v(i), 10, &[]).unwrap());
        let before = answers(&lance);
        drop(lance);
        let mut lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
        assert!(lance.lists_were_saved(), "checkpointed: the saved lists");
        assert_eq!(answers(&lance), before, "the saved lists answer as the built ones");
        // Writes after that are appended to the lists' log at each checkpoint, the base left as
        // it is; the lists open from base and log.
        let file = dir.path().join(format!("{}.lists", table_name("test-model", 4)));
        let log = dir.path().join(format!("{}.lists.log", table_name("test-model", 4)));
        let base = std::fs::read(&file).unwrap();
        // A base saved with no log beside it (as before lists had logs) starts one.
        std::fs::remove_file(&log).unwrap();
        drop(lance);
        lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
        assert!(lance.lists_were_saved(), "the base alone mirrors the table");
        for (row, at) in [(1_000_001, 88), (1_000_002, 99)] {
            let log_before = std::fs::metadata(&log).map_or(0, |m| m.len());
            lance.put_document(98, &[record(row, 98, v(at))]).unwrap();
            lance.checkpoint().unwrap();
            assert_eq!(std::fs::read(&file).unwrap(), base, "the base is not written again");
            assert!(std::fs::metadata(&log).unwrap().len() > log_before, "the log grows");
            let after = answers(&lance);
            drop(lance);
            lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
            assert!(lance.lists_were_saved(), "base and log mirror the table");
            assert_eq!(answers(&lance), after);
            let found = lance.search(&v(at), 5, &[98]).unwrap();
            assert_eq!(found.iter().map(|h| h.0).collect::<Vec<_>>(), [row], "the document as last written");
        }
        // A write makes the saved lists stale; opened without a checkpoint, they are built again.
        lance.put_document(99, &[record(1_000_000, 99, v(77))]).unwrap();
        drop(lance);
        let lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
        assert!(!lance.lists_were_saved(), "stale lists are not used");
        assert_eq!(lance.search(&v(77), 3, &[99]).unwrap()[0].0, 1_000_000);
        lance.checkpoint().unwrap();
        // Damaged lists: built from the table.
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        drop(lance);
        let lance = LanceVectors::open(dir.path(), "test-model", 4).unwrap();
        assert!(!lance.lists_were_saved());
        assert_eq!(lance.search(&v(77), 3, &[99]).unwrap()[0].0, 1_000_000);
        lance.remove_document(99).unwrap();
        assert_eq!(lance.document_vectors(2).unwrap().len(), per, "vectors come back from disk");
        lance.remove_document(0).unwrap();
        assert!(lance.is_exact(), "below the threshold again: exact");
        assert!(close(near(&lance, 60_000), 60_000));
    }

    /// The 8-bit lists a large library's vectors are kept in answer as the exact mirror does
    /// (a document's vectors come back from disk, whole).
    #[test]
    fn lance_store_with_8_bit_lists_passes_the_same_checks() {
        let dir = tempfile::tempdir().unwrap();
        let mut lance = LanceVectors::open(dir.path(), "test-model", 3).unwrap();
        lance.use_compact_index();
        assert!(!lance.is_exact());
        exercise(&lance);
        assert!(!lance.is_exact(), "writes keep the lists");
        let mut other = LanceVectors::open(dir.path(), "other-model", 3).unwrap();
        other.use_compact_index();
        exercise_records(&other);
    }

    /// Every write adds a fragment; past the limit a write compacts them, and the rows, their
    /// vectors and a later replacement and removal are as before.
    #[test]
    fn lance_store_compacts_its_fragments() {
        let dir = tempfile::tempdir().unwrap();
        let lance = LanceVectors::open(dir.path(), "test-model", 3).unwrap();
        let v = |i: usize| {
            let a = i as f32 * 0.01;
            vec![a.cos(), a.sin(), 0.5]
        };
        let docs = lance::FRAGMENT_LIMIT * 2 + 5;
        for d in 0..docs {
            let recs: Vec<VectorRecord> =
                (d * 3..d * 3 + 3).map(|i| record(i as i64, d as i64, v(i))).collect();
            lance.put_document(d as i64, &recs).unwrap();
            assert!(lance.fragments().unwrap() <= lance::FRAGMENT_LIMIT + 1, "compacted as it grows");
        }
        // Replacing and removing documents after compaction.
        lance.put_document(7, &[record(10_000, 7, v(21))]).unwrap();
        lance.remove_document(8).unwrap();
        drop(lance);
        let lance = LanceVectors::open(dir.path(), "test-model", 3).unwrap();
        assert_eq!(lance.len().unwrap(), docs * 3 - 3 - 2);
        for i in [0, 100, docs * 3 - 1] {
            assert_eq!(lance.search(&v(i), 1, &[]).unwrap()[0].0, i as i64, "row {i} found after compaction");
        }
        assert_eq!(lance.document_vectors(7).unwrap().keys().copied().collect::<Vec<_>>(), vec![10_000]);
        assert!(lance.document_vectors(8).unwrap().is_empty());
        let records = lance.records().unwrap();
        assert_eq!(records.len(), docs * 3 - 5);
        assert!(records.iter().any(|r| r.chunk_id == 10_000 && r.embedding == v(21)));
    }
}
