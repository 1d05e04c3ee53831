//! Dense vectors: the [`VectorStore`] trait, LanceDB on local disk ([`LanceVectors`]) and an in-RAM twin
//! for tests ([`MemoryVectors`]). One record per chunk with its metadata; the table name carries the
//! embedding model and dimension, so switching models never mixes vectors.

use crate::IndexError;
use arrow_array::types::Float32Type;
use arrow_array::{Array, FixedSizeListArray, Float32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures::TryStreamExt;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::DistanceType;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

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
pub trait VectorStore: Send {
    /// Replaces all records of a document.
    fn put_document(&mut self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError>;
    /// Removes every record of a document.
    fn remove_document(&mut self, doc_id: i64) -> Result<(), IndexError>;
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

/// Exact search in RAM: the twin of [`LanceVectors`] for tests, and the mirror through which
/// [`LanceVectors`] answers exactly while the table is below [`ANN_THRESHOLD`] rows.
#[derive(Debug)]
pub struct MemoryVectors {
    by_doc: HashMap<i64, DocVectors>,
    /// The twin keeps each record's metadata (without its vector, which is in `by_doc`) as LanceDB
    /// does; the mirror, which only answers searches, does not.
    metadata: Option<HashMap<i64, Vec<VectorRecord>>>,
}

impl Default for MemoryVectors {
    /// The twin of [`LanceVectors`]: records keep their metadata.
    fn default() -> Self {
        MemoryVectors { by_doc: HashMap::new(), metadata: Some(HashMap::new()) }
    }
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

fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent sums let the compiler vectorise.
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

impl MemoryVectors {
    /// Vectors alone, for searching (LanceDB holds the metadata).
    fn mirror() -> Self {
        MemoryVectors { by_doc: HashMap::new(), metadata: None }
    }

    fn insert(&mut self, doc_id: i64, id: i64, v: &[f32]) {
        self.by_doc.entry(doc_id).or_default().push(id, v);
    }
}

impl VectorStore for MemoryVectors {
    fn put_document(&mut self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError> {
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
        Ok(())
    }
    fn remove_document(&mut self, doc_id: i64) -> Result<(), IndexError> {
        self.by_doc.remove(&doc_id);
        if let Some(m) = &mut self.metadata {
            m.remove(&doc_id);
        }
        Ok(())
    }
    fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Result<Vec<(i64, f32)>, IndexError> {
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
        Ok(all)
    }
    fn len(&self) -> Result<usize, IndexError> {
        Ok(self.by_doc.values().map(|d| d.ids.len()).sum())
    }

    fn document_vectors(&self, doc_id: i64) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        let Some(d) = self.by_doc.get(&doc_id) else { return Ok(HashMap::new()) };
        let dim = if d.ids.is_empty() { 0 } else { d.flat.len() / d.ids.len() };
        Ok(d.ids.iter().enumerate().map(|(k, id)| (*id, d.flat[k * dim..(k + 1) * dim].to_vec())).collect())
    }

    fn records(&self) -> Result<Vec<VectorRecord>, IndexError> {
        let Some(metadata) = &self.metadata else {
            return Err(IndexError::Invalid("a search mirror keeps no record metadata".into()));
        };
        let mut out = Vec::new();
        for (doc, rows) in metadata {
            let mut vectors = self.document_vectors(*doc)?;
            out.extend(rows.iter().map(|r| VectorRecord {
                embedding: vectors.remove(&r.chunk_id).unwrap_or_default(),
                ..r.clone()
            }));
        }
        Ok(out)
    }
}

/// Rows from which LanceDB's ANN index (IVF-PQ, built by `Index::Auto`) answers instead of exact
/// search over the RAM mirror. Measured (`cargo run -p folio-index --example ann_bench`, 384
/// dimensions, 2 cores, dev profile with this crate optimised): exact search takes p50 0.6 ms at
/// 10k rows, 3.0 ms at 50k, 6.8 ms at 100k, 9.9 ms at 120k (about 0.08 µs a row), while LanceDB's
/// indexed search took 255 ms p50 at 120k rows in the same build (its index build: 4 minutes).
/// At this size exact search costs about 20 ms of a query and the mirror holds ~380 MB of vectors;
/// above it, the mirror's memory rather than its speed is what the index saves.
pub const ANN_THRESHOLD: usize = 250_000;

/// LanceDB on local disk.
pub struct LanceVectors {
    runtime: tokio::runtime::Runtime,
    table: lancedb::Table,
    dim: usize,
    /// Every vector, while the table is below [`ANN_THRESHOLD`] rows.
    mirror: Option<MemoryVectors>,
    rows: usize,
}

fn schema(dim: usize) -> SchemaRef {
    let s = |n: &str| Field::new(n, DataType::Utf8, false);
    let so = |n: &str| Field::new(n, DataType::Utf8, true);
    let i = |n: &str| Field::new(n, DataType::Int64, false);
    let io = |n: &str| Field::new(n, DataType::Int64, true);
    Arc::new(Schema::new(vec![
        i("id"),
        i("doc_id"),
        s("source_path"),
        i("chunk_index"),
        s("content"),
        s("contextualized_content"),
        Field::new(
            "embedding",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), dim as i32),
            false,
        ),
        i("mtime"),
        s("file_type"),
        i("file_size_bytes"),
        s("parent_chain"),
        s("section_id"),
        i("heading_level"),
        s("chunk_type"),
        s("cross_references"),
        s("doc_summary"),
        so("defined_term"),
        so("defined_term_normalized"),
        io("page_start"),
        io("page_end"),
        i("char_start"),
        i("char_end"),
        s("content_hash"),
    ]))
}

fn batch(dim: usize, rows: &[VectorRecord]) -> Result<RecordBatch, IndexError> {
    let strs = |f: fn(&VectorRecord) -> &str| {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f))) as Arc<dyn Array>
    };
    let ints = |f: fn(&VectorRecord) -> i64| {
        Arc::new(Int64Array::from_iter_values(rows.iter().map(f))) as Arc<dyn Array>
    };
    let opt_s = |f: fn(&VectorRecord) -> Option<String>| {
        Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>())) as Arc<dyn Array>
    };
    let opt_i = |f: fn(&VectorRecord) -> Option<i64>| {
        Arc::new(Int64Array::from(rows.iter().map(f).collect::<Vec<_>>())) as Arc<dyn Array>
    };
    let vectors = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        rows.iter().map(|r| Some(r.embedding.iter().map(|x| Some(*x)).collect::<Vec<_>>())),
        dim as i32,
    );
    Ok(RecordBatch::try_new(
        schema(dim),
        vec![
            ints(|r| r.chunk_id),
            ints(|r| r.doc_id),
            strs(|r| &r.source_path),
            ints(|r| r.chunk_index),
            strs(|r| &r.content),
            strs(|r| &r.contextualized_content),
            Arc::new(vectors),
            ints(|r| r.mtime),
            strs(|r| &r.file_type),
            ints(|r| r.file_size_bytes),
            strs(|r| &r.parent_chain),
            strs(|r| &r.section_id),
            ints(|r| r.heading_level),
            strs(|r| &r.chunk_type),
            strs(|r| &r.cross_references),
            strs(|r| &r.doc_summary),
            opt_s(|r| r.defined_term.clone()),
            opt_s(|r| r.defined_term_normalized.clone()),
            opt_i(|r| r.page_start),
            opt_i(|r| r.page_end),
            ints(|r| r.char_start),
            ints(|r| r.char_end),
            strs(|r| &r.content_hash),
        ],
    )?)
}

impl LanceVectors {
    /// Opens (or creates) the table for a model in a LanceDB folder.
    pub fn open(dir: &Path, model: &str, dim: usize) -> Result<LanceVectors, IndexError> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let uri = dir.to_string_lossy().into_owned();
        let name = table_name(model, dim);
        let table = crate::creation::one_at_a_time(dir, || {
            Ok(runtime.block_on(async {
                let db = lancedb::connect(&uri).execute().await?;
                let names = db.table_names().execute().await?;
                if names.contains(&name) {
                    db.open_table(&name).execute().await
                } else {
                    db.create_empty_table(&name, schema(dim)).execute().await
                }
            })?)
        })?;
        let rows = runtime.block_on(table.count_rows(None))?;
        let mut store = LanceVectors { runtime, table, dim, mirror: None, rows };
        if rows < ANN_THRESHOLD {
            store.mirror = Some(store.load_mirror()?);
        } else {
            store.ensure_ann_index()?;
        }
        Ok(store)
    }

    /// Reads every (id, doc_id, embedding) into RAM.
    fn load_mirror(&self) -> Result<MemoryVectors, IndexError> {
        self.load_rows(None)
    }

    /// Rows (all, or one document's) into RAM.
    fn load_rows(&self, doc_id: Option<i64>) -> Result<MemoryVectors, IndexError> {
        let batches: Vec<RecordBatch> = self.runtime.block_on(async {
            let mut q = self.table.query().select(Select::Columns(vec![
                "id".into(),
                "doc_id".into(),
                "embedding".into(),
            ]));
            if let Some(d) = doc_id {
                q = q.only_if(format!("doc_id = {d}"));
            }
            q.execute().await?.try_collect::<Vec<_>>().await
        })?;
        let mut mem = MemoryVectors::mirror();
        for b in &batches {
            let ids = b.column_by_name("id").and_then(|c| c.as_any().downcast_ref::<Int64Array>());
            let docs = b.column_by_name("doc_id").and_then(|c| c.as_any().downcast_ref::<Int64Array>());
            let emb =
                b.column_by_name("embedding").and_then(|c| c.as_any().downcast_ref::<FixedSizeListArray>());
            let (Some(ids), Some(docs), Some(emb)) = (ids, docs, emb) else {
                return Err(IndexError::Invalid("the vector table lacks id, doc_id or embedding".into()));
            };
            let values = emb
                .values()
                .as_any()
                .downcast_ref::<Float32Array>()
                .ok_or_else(|| IndexError::Invalid("embeddings are not float32".into()))?;
            let values = values.values();
            for k in 0..b.num_rows() {
                let off = emb.value_offset(k) as usize;
                mem.insert(docs.value(k), ids.value(k), &values[off..off + self.dim]);
            }
        }
        Ok(mem)
    }

    /// Builds the ANN index once the table has grown past [`ANN_THRESHOLD`] rows.
    fn ensure_ann_index(&mut self) -> Result<(), IndexError> {
        self.runtime.block_on(async {
            let indices = self.table.list_indices().await?;
            if !indices.iter().any(|i| i.columns.iter().any(|c| c == "embedding")) {
                self.table.create_index(&["embedding"], lancedb::index::Index::Auto).execute().await?;
            }
            Ok::<_, lancedb::Error>(())
        })?;
        Ok(())
    }

    /// Builds the ANN index now and answers from it from then on, whatever the table's size
    /// (measurements; a library does so by itself past [`ANN_THRESHOLD`] rows).
    pub fn use_ann_index(&mut self) -> Result<(), IndexError> {
        self.ensure_ann_index()?;
        self.mirror = None;
        Ok(())
    }

    /// Whether queries are answered by exact search over the RAM mirror.
    pub fn is_exact(&self) -> bool {
        self.mirror.is_some()
    }

    fn after_write(&mut self) -> Result<(), IndexError> {
        self.rows = self.runtime.block_on(self.table.count_rows(None))?;
        if self.rows >= ANN_THRESHOLD {
            if self.mirror.take().is_some() {
                self.ensure_ann_index()?;
            }
        } else if self.mirror.is_none() {
            self.mirror = Some(self.load_mirror()?);
        }
        Ok(())
    }
}

impl VectorStore for LanceVectors {
    fn put_document(&mut self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError> {
        if let Some(bad) = records.iter().find(|r| r.embedding.len() != self.dim) {
            return Err(IndexError::Invalid(format!(
                "an embedding of {} dimensions for a {}-dimension table (chunk {})",
                bad.embedding.len(),
                self.dim,
                bad.chunk_id
            )));
        }
        let data = batch(self.dim, records)?;
        self.runtime.block_on(async {
            self.table.delete(format!("doc_id = {doc_id}").as_str()).await?;
            if data.num_rows() > 0 {
                self.table.add(data).execute().await?;
            }
            Ok::<_, lancedb::Error>(())
        })?;
        if let Some(m) = &mut self.mirror {
            m.put_document(doc_id, records)?;
        }
        self.after_write()
    }

    fn remove_document(&mut self, doc_id: i64) -> Result<(), IndexError> {
        self.runtime.block_on(self.table.delete(format!("doc_id = {doc_id}").as_str()))?;
        if let Some(m) = &mut self.mirror {
            m.remove_document(doc_id)?;
        }
        self.after_write()
    }

    fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Result<Vec<(i64, f32)>, IndexError> {
        if let Some(m) = &self.mirror {
            return m.search(query, limit, docs);
        }
        let batches: Vec<RecordBatch> = self.runtime.block_on(async {
            let mut q = self
                .table
                .query()
                .nearest_to(query)?
                .distance_type(DistanceType::Cosine)
                .limit(limit)
                .select(Select::Columns(vec!["id".into()]));
            if !docs.is_empty() {
                let list: Vec<String> = docs.iter().map(|d| d.to_string()).collect();
                q = q.only_if(format!("doc_id IN ({})", list.join(",")));
            }
            q.execute().await?.try_collect::<Vec<_>>().await
        })?;
        let mut out = Vec::new();
        for b in &batches {
            let ids = b.column_by_name("id").and_then(|c| c.as_any().downcast_ref::<Int64Array>());
            let dist = b.column_by_name("_distance").and_then(|c| c.as_any().downcast_ref::<Float32Array>());
            if let (Some(ids), Some(dist)) = (ids, dist) {
                for k in 0..b.num_rows() {
                    out.push((ids.value(k), 1.0 - dist.value(k)));
                }
            }
        }
        out.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
        Ok(out)
    }

    fn len(&self) -> Result<usize, IndexError> {
        Ok(self.rows)
    }

    fn reload(&mut self) -> Result<(), IndexError> {
        self.runtime.block_on(self.table.checkout_latest())?;
        self.rows = self.runtime.block_on(self.table.count_rows(None))?;
        if self.rows < ANN_THRESHOLD {
            self.mirror = Some(self.load_mirror()?);
        } else {
            self.mirror = None;
        }
        Ok(())
    }

    fn document_vectors(&self, doc_id: i64) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        match &self.mirror {
            Some(m) => m.document_vectors(doc_id),
            None => self.load_rows(Some(doc_id))?.document_vectors(doc_id),
        }
    }

    fn records(&self) -> Result<Vec<VectorRecord>, IndexError> {
        let batches: Vec<RecordBatch> = self
            .runtime
            .block_on(async { self.table.query().execute().await?.try_collect::<Vec<_>>().await })?;
        let mut out = Vec::with_capacity(self.rows);
        for b in &batches {
            out.extend(records_of(b, self.dim)?);
        }
        Ok(out)
    }
}

/// The records of a batch read back with every column (the inverse of [`batch`]).
fn records_of(b: &RecordBatch, dim: usize) -> Result<Vec<VectorRecord>, IndexError> {
    let missing = |n: &str| IndexError::Invalid(format!("the vector table lacks a readable {n} column"));
    let strs = |n: &str| {
        b.column_by_name(n).and_then(|c| c.as_any().downcast_ref::<StringArray>()).ok_or_else(|| missing(n))
    };
    let ints = |n: &str| {
        b.column_by_name(n).and_then(|c| c.as_any().downcast_ref::<Int64Array>()).ok_or_else(|| missing(n))
    };
    let emb = b
        .column_by_name("embedding")
        .and_then(|c| c.as_any().downcast_ref::<FixedSizeListArray>())
        .ok_or_else(|| missing("embedding"))?;
    let values = emb
        .values()
        .as_any()
        .downcast_ref::<Float32Array>()
        .ok_or_else(|| IndexError::Invalid("embeddings are not float32".into()))?
        .values();
    let (id, doc, path, index) = (ints("id")?, ints("doc_id")?, strs("source_path")?, ints("chunk_index")?);
    let (content, ctx, mtime, ftype) =
        (strs("content")?, strs("contextualized_content")?, ints("mtime")?, strs("file_type")?);
    let (size, chain, section, level) =
        (ints("file_size_bytes")?, strs("parent_chain")?, strs("section_id")?, ints("heading_level")?);
    let (ctype, refs, summary, term) =
        (strs("chunk_type")?, strs("cross_references")?, strs("doc_summary")?, strs("defined_term")?);
    let (key, p0, p1) = (strs("defined_term_normalized")?, ints("page_start")?, ints("page_end")?);
    let (c0, c1, hash) = (ints("char_start")?, ints("char_end")?, strs("content_hash")?);
    let opt_s = |a: &StringArray, k: usize| (!a.is_null(k)).then(|| a.value(k).to_string());
    let opt_i = |a: &Int64Array, k: usize| (!a.is_null(k)).then(|| a.value(k));
    Ok((0..b.num_rows())
        .map(|k| {
            let off = emb.value_offset(k) as usize;
            VectorRecord {
                chunk_id: id.value(k),
                doc_id: doc.value(k),
                source_path: path.value(k).to_string(),
                chunk_index: index.value(k),
                content: content.value(k).to_string(),
                contextualized_content: ctx.value(k).to_string(),
                embedding: values[off..off + dim].to_vec(),
                mtime: mtime.value(k),
                file_type: ftype.value(k).to_string(),
                file_size_bytes: size.value(k),
                parent_chain: chain.value(k).to_string(),
                section_id: section.value(k).to_string(),
                heading_level: level.value(k),
                chunk_type: ctype.value(k).to_string(),
                cross_references: refs.value(k).to_string(),
                doc_summary: summary.value(k).to_string(),
                defined_term: opt_s(term, k),
                defined_term_normalized: opt_s(key, k),
                page_start: opt_i(p0, k),
                page_end: opt_i(p1, k),
                char_start: c0.value(k),
                char_end: c1.value(k),
                content_hash: hash.value(k).to_string(),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(chunk_id: i64, doc_id: i64, v: Vec<f32>) -> VectorRecord {
        VectorRecord {
            chunk_id,
            doc_id,
            source_path: format!("/docs/{doc_id}.txt"),
            chunk_index: chunk_id,
            content: format!("chunk {chunk_id}"),
            contextualized_content: format!("chunk {chunk_id}"),
            embedding: v,
            mtime: 0,
            file_type: "text".into(),
            file_size_bytes: 10,
            parent_chain: "[]".into(),
            section_id: "sec_1".into(),
            heading_level: 1,
            chunk_type: "content".into(),
            cross_references: "[]".into(),
            doc_summary: String::new(),
            defined_term: None,
            defined_term_normalized: None,
            page_start: Some(1),
            page_end: None,
            char_start: 0,
            char_end: 7,
            content_hash: "h".into(),
        }
    }

    fn exercise(store: &mut dyn VectorStore) {
        store
            .put_document(1, &[record(1, 1, vec![1.0, 0.0, 0.0]), record(2, 1, vec![0.0, 1.0, 0.0])])
            .unwrap();
        store.put_document(2, &[record(3, 2, vec![0.7, 0.7, 0.0])]).unwrap();
        assert_eq!(store.len().unwrap(), 3);
        let hits = store.search(&[1.0, 0.1, 0.0], 2, &[]).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 3]);
        assert!((hits[0].1 - 0.995).abs() < 0.01);
        let hits = store.search(&[1.0, 0.1, 0.0], 5, &[2]).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![3]);
        store.put_document(1, &[record(4, 1, vec![0.0, 0.0, 1.0])]).unwrap();
        assert_eq!(store.len().unwrap(), 2, "re-putting a document replaces its records");
        let mut all = store.records().unwrap();
        all.sort_by_key(|r| r.chunk_id);
        let mut three = record(3, 2, vec![0.7, 0.7, 0.0]);
        three.defined_term = Some("Client".into());
        three.page_end = Some(2);
        store.put_document(2, std::slice::from_ref(&three)).unwrap();
        let mut back = store.records().unwrap();
        back.sort_by_key(|r| r.chunk_id);
        assert_eq!(back, vec![three, record(4, 1, vec![0.0, 0.0, 1.0])], "records read back whole");
        assert_eq!(all.len(), 2);
        store.remove_document(2).unwrap();
        assert_eq!(
            store.search(&[0.0, 0.0, 1.0], 5, &[]).unwrap().iter().map(|h| h.0).collect::<Vec<_>>(),
            vec![4]
        );
        assert_eq!(store.records().unwrap().len(), 1);
    }

    #[test]
    fn memory_store() {
        exercise(&mut MemoryVectors::default());
    }

    #[test]
    fn lance_store_matches_its_twin_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut lance = LanceVectors::open(dir.path(), "test-model", 3).unwrap();
            exercise(&mut lance);
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
        assert_eq!(table_name("all-MiniLM-L6-v2", 384), "chunks_all_minilm_l6_v2_384");
    }
}
