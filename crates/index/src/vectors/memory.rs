//! Exact vector search in RAM: [`VectorTable`], the vectors themselves, and [`MemoryVectors`], a
//! store over one table behind a lock.

use super::{VectorRecord, VectorStore};
use crate::IndexError;
use std::collections::HashMap;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Every vector by document, searched exactly; with each record's metadata (without its vector)
/// when it is a store of its own, without when it mirrors LanceDB, which holds the metadata.
#[derive(Debug, Default)]
pub(super) struct VectorTable {
    by_doc: HashMap<i64, DocVectors>,
    metadata: Option<HashMap<i64, Vec<VectorRecord>>>,
}

/// A document's vectors, row-major, with their norms.
#[derive(Debug, Default)]
struct DocVectors {
    ids: Vec<i64>,
    flat: Vec<f32>,
    norms: Vec<f32>,
}

impl DocVectors {
    fn push(&mut self, id: i64, v: &[f32]) {
        self.ids.push(id);
        self.flat.extend_from_slice(v);
        self.norms.push(v.iter().map(|x| x * x).sum::<f32>().sqrt());
    }
}

/// `Σ a[i] · b[i]`, on AVX2 with FMA where the CPU has them (the exact scan of every query, and
/// the centroids of [`super::CompactIndex`]).
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        static FMA: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let fma = *FMA.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        });
        if fma {
            // SAFETY: the CPU has AVX2 and FMA (checked above).
            return unsafe { dot_fma(a, b) };
        }
    }
    dot_plain(a, b)
}

/// The reference: 32 independent sums, so that the compiler keeps them in vector registers.
#[inline(always)]
fn dot_plain(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 32];
    let (ca, cb) = (a.chunks_exact(32), b.chunks_exact(32));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..32 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// [`dot_plain`] compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_fma(a: &[f32], b: &[f32]) -> f32 {
    dot_plain(a, b)
}

impl VectorTable {
    /// Vectors alone, to search beside a store that keeps the metadata.
    pub(super) fn mirror() -> Self {
        VectorTable { by_doc: HashMap::new(), metadata: None }
    }

    fn with_metadata() -> Self {
        VectorTable { by_doc: HashMap::new(), metadata: Some(HashMap::new()) }
    }

    pub(super) fn insert(&mut self, doc_id: i64, id: i64, v: &[f32]) {
        self.by_doc.entry(doc_id).or_default().push(id, v);
    }

    /// Replaces a document's vectors (and metadata, when kept) with `records`.
    pub(super) fn put_document(&mut self, doc_id: i64, records: &[VectorRecord]) {
        let mut d = DocVectors::default();
        for r in records {
            d.push(r.chunk_id, &r.embedding);
        }
        self.by_doc.insert(doc_id, d);
        if let Some(m) = &mut self.metadata {
            m.insert(
                doc_id,
                records.iter().map(|r| VectorRecord { embedding: Vec::new(), ..r.clone() }).collect(),
            );
        }
    }

    pub(super) fn remove_document(&mut self, doc_id: i64) {
        self.by_doc.remove(&doc_id);
        if let Some(m) = &mut self.metadata {
            m.remove(&doc_id);
        }
    }

    /// The `limit` chunks most similar to `query` (cosine), best first; ties by chunk id.
    pub(super) fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Vec<(i64, f32)> {
        let dim = query.len().max(1);
        let qn = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut all: Vec<(i64, f32)> = Vec::new();
        for (doc, v) in &self.by_doc {
            if !docs.is_empty() && !docs.contains(doc) {
                continue;
            }
            for ((id, row), n) in v.ids.iter().zip(v.flat.chunks_exact(dim)).zip(&v.norms) {
                let score = if *n == 0.0 || qn == 0.0 { 0.0 } else { dot(query, row) / (n * qn) };
                all.push((*id, score));
            }
        }
        let order = |a: &(i64, f32), b: &(i64, f32)| {
            b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0))
        };
        if all.len() > limit && limit > 0 {
            all.select_nth_unstable_by(limit - 1, order);
        }
        all.truncate(limit);
        all.sort_by(order);
        all
    }

    pub(super) fn len(&self) -> usize {
        self.by_doc.values().map(|d| d.ids.len()).sum()
    }

    /// Calls `f(doc, chunk id, vector)` for every row.
    pub(super) fn for_each_row(&self, mut f: impl FnMut(i64, i64, &[f32])) {
        for (doc, d) in &self.by_doc {
            let dim = if d.ids.is_empty() { 0 } else { d.flat.len() / d.ids.len() };
            for (k, id) in d.ids.iter().enumerate() {
                f(*doc, *id, &d.flat[k * dim..(k + 1) * dim]);
            }
        }
    }

    pub(super) fn document_vectors(&self, doc_id: i64) -> HashMap<i64, Vec<f32>> {
        let Some(d) = self.by_doc.get(&doc_id) else { return HashMap::new() };
        let dim = if d.ids.is_empty() { 0 } else { d.flat.len() / d.ids.len() };
        d.ids.iter().enumerate().map(|(k, id)| (*id, d.flat[k * dim..(k + 1) * dim].to_vec())).collect()
    }

    fn records(&self) -> Result<Vec<VectorRecord>, IndexError> {
        let Some(metadata) = &self.metadata else {
            return Err(IndexError::Invalid("a search mirror keeps no record metadata".into()));
        };
        let mut out = Vec::new();
        for (doc, rows) in metadata {
            let mut vectors = self.document_vectors(*doc);
            out.extend(rows.iter().map(|r| VectorRecord {
                embedding: vectors.remove(&r.chunk_id).unwrap_or_default(),
                ..r.clone()
            }));
        }
        Ok(out)
    }
}

/// Exact search in RAM, with each record's metadata: the twin of [`super::LanceVectors`] for
/// tests and for libraries kept in memory.
#[derive(Debug)]
pub struct MemoryVectors {
    table: RwLock<VectorTable>,
}

impl Default for MemoryVectors {
    fn default() -> Self {
        MemoryVectors { table: RwLock::new(VectorTable::with_metadata()) }
    }
}

impl MemoryVectors {
    // A panic while the lock was held left the table whole (each write is one map insert or
    // removal), so a poisoned lock is taken over.
    fn read(&self) -> RwLockReadGuard<'_, VectorTable> {
        self.table.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, VectorTable> {
        self.table.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl VectorStore for MemoryVectors {
    fn put_document(&self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError> {
        self.write().put_document(doc_id, records);
        Ok(())
    }
    fn remove_document(&self, doc_id: i64) -> Result<(), IndexError> {
        self.write().remove_document(doc_id);
        Ok(())
    }
    fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Result<Vec<(i64, f32)>, IndexError> {
        Ok(self.read().search(query, limit, docs))
    }
    fn len(&self) -> Result<usize, IndexError> {
        Ok(self.read().len())
    }
    fn document_vectors(&self, doc_id: i64) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        Ok(self.read().document_vectors(doc_id))
    }
    fn records(&self) -> Result<Vec<VectorRecord>, IndexError> {
        self.read().records()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simd_product_is_the_plain_one_within_rounding() {
        for n in [0usize, 3, 31, 32, 33, 384, 1000] {
            let a: Vec<f32> = (0..n).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
            let b: Vec<f32> = (0..n).map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0).collect();
            let exact: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
            for got in [dot_plain(&a, &b), dot(&a, &b)] {
                assert!((got as f64 - exact).abs() < 1e-3, "{n}: {got} vs {exact}");
            }
        }
    }
}
