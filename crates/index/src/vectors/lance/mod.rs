//! LanceDB on local disk, answering searches from a RAM mirror of its vectors ([`Mirror`]: exact
//! f32 while the table is small, 8-bit inverted lists past [`super::ANN_THRESHOLD`] rows).

mod saved_lists;

use super::mirror::Mirror;
use super::{table_name, VectorRecord, VectorStore};
use crate::IndexError;
use arrow_array::types::Float32Type;
use arrow_array::{Array, FixedSizeListArray, Float32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures::TryStreamExt;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use saved_lists::LogState;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Fragments written since the last compaction past which a write compacts the table (so the
/// cost of compacting stays in proportion to what was written): every write adds a fragment (a file) and a
/// version, each version's manifest lists every fragment, so without compaction a library of a
/// few thousand documents reads thousands of files and keeps manifests that grow with the square
/// of its documents.
pub(super) const FRAGMENT_LIMIT: usize = 64;

/// Rows a compacted fragment holds at most. Small enough that a growing table rewrites each row
/// only a few times; large enough that a million rows are a few dozen files.
const FRAGMENT_ROWS: usize = 1 << 16;

/// How long a replaced version stays readable: another process (a read-only window) reading
/// the table as of a version keeps its files that long.
const KEEP_VERSIONS_MINUTES: i64 = 10;

/// LanceDB on local disk.
pub struct LanceVectors {
    runtime: tokio::runtime::Runtime,
    table: lancedb::Table,
    dim: usize,
    /// Every vector (see [`Mirror`]). Locked for writing only while a written document's vectors
    /// are swapped in, never during LanceDB's own write.
    mirror: RwLock<Mirror>,
    /// Rows from which the mirror is 8-bit lists ([`super::ANN_THRESHOLD`], or 0 once
    /// [`Self::use_compact_index`] asked for them).
    threshold: usize,
    rows: AtomicUsize,
    /// Where the 8-bit lists are saved ([`VectorStore::checkpoint`]), so that a large table
    /// opens without quantizing and training them again: `<table>.lists` beside the table.
    lists_file: std::path::PathBuf,
    /// The log of the documents written since the lists were saved whole: `<table>.lists.log`.
    log_file: std::path::PathBuf,
    /// The saved lists as this store knows them (the table version they mirror) and what the
    /// next checkpoint may append to their log rather than save whole.
    log: Mutex<LogState>,
    /// Held through each write (delete and add, then the mirror), so that two writes through one
    /// store never interleave.
    writing: Mutex<()>,
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
        let store = LanceVectors {
            runtime,
            table,
            dim,
            mirror: RwLock::new(Mirror::for_rows(0, dim, super::ANN_THRESHOLD)),
            threshold: super::ANN_THRESHOLD,
            rows: AtomicUsize::new(rows),
            lists_file: dir.join(format!("{name}.lists")),
            log_file: dir.join(format!("{name}.lists.log")),
            log: Mutex::new(LogState::default()),
            writing: Mutex::new(()),
        };
        *store.mirror_mut() = store.load_mirror(rows)?;
        Ok(store)
    }

    /// Reads every (id, doc_id, embedding) into the mirror a table of `rows` rows gets (8-bit
    /// lists from the saved ones where they mirror this version of the table).
    fn load_mirror(&self, rows: usize) -> Result<Mirror, IndexError> {
        if rows >= self.threshold {
            if let Some(lists) = self.saved_lists(rows)? {
                return Ok(Mirror::Compact(lists));
            }
        }
        self.log_state().docs = None;
        let mut mirror = Mirror::for_rows(rows, self.dim, self.threshold);
        self.scan_rows(None, |doc, id, v| mirror.insert(doc, id, v))?;
        mirror.finish();
        Ok(mirror)
    }

    /// Calls `f(doc, chunk id, vector)` for each row (all, or one document's), batch by batch as
    /// LanceDB reads them (a million rows are never all in f32 at once).
    fn scan_rows(&self, doc_id: Option<i64>, mut f: impl FnMut(i64, i64, &[f32])) -> Result<(), IndexError> {
        self.runtime.block_on(async {
            let mut q = self.table.query().select(Select::Columns(vec![
                "id".into(),
                "doc_id".into(),
                "embedding".into(),
            ]));
            if let Some(d) = doc_id {
                q = q.only_if(format!("doc_id = {d}"));
            }
            let mut stream = q.execute().await?;
            while let Some(b) = stream.try_next().await? {
                let ids = b.column_by_name("id").and_then(|c| c.as_any().downcast_ref::<Int64Array>());
                let docs = b.column_by_name("doc_id").and_then(|c| c.as_any().downcast_ref::<Int64Array>());
                let emb = b
                    .column_by_name("embedding")
                    .and_then(|c| c.as_any().downcast_ref::<FixedSizeListArray>());
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
                    f(docs.value(k), ids.value(k), &values[off..off + self.dim]);
                }
            }
            Ok(())
        })
    }

    /// Keeps the vectors as 8-bit inverted lists from now on, whatever the table's size
    /// (measurements and tests; a library does so by itself past [`super::ANN_THRESHOLD`] rows).
    pub fn use_compact_index(&mut self) {
        self.threshold = 0;
        self.log_state().docs = None;
        let dim = self.dim;
        let m = self.mirror.get_mut().unwrap_or_else(|e| e.into_inner());
        let exact = std::mem::replace(m, Mirror::for_rows(0, dim, 0));
        *m = exact.into_compact(dim);
    }

    /// The exact f32 top `limit` of each query over every row on disk, in one pass over the table
    /// (the reference the mirror's 8-bit lists are measured against; it reads the whole table).
    pub fn search_exact(
        &self,
        queries: &[Vec<f32>],
        limit: usize,
    ) -> Result<Vec<Vec<(i64, f32)>>, IndexError> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        #[derive(PartialEq)]
        struct Scored(f32, i64);
        impl Eq for Scored {}
        impl PartialOrd for Scored {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for Scored {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
            }
        }
        let mut best: Vec<BinaryHeap<Reverse<Scored>>> = queries.iter().map(|_| BinaryHeap::new()).collect();
        self.scan_rows(None, |_, id, v| {
            for (q, heap) in queries.iter().zip(&mut best) {
                let s = super::memory::dot(q, v);
                if heap.len() < limit {
                    heap.push(Reverse(Scored(s, id)));
                } else if heap.peek().is_some_and(|w| s > w.0 .0) {
                    heap.pop();
                    heap.push(Reverse(Scored(s, id)));
                }
            }
        })?;
        Ok(best
            .into_iter()
            .map(|h| h.into_sorted_vec().into_iter().map(|Reverse(Scored(s, id))| (id, s)).collect())
            .collect())
    }

    /// Whether the 8-bit lists in RAM are the saved ones (read at open or reload, or written by
    /// the last checkpoint) rather than built from the table.
    pub fn lists_were_saved(&self) -> bool {
        self.log_state().stamp.is_some()
    }

    /// Whether queries are answered by exact search over the RAM mirror.
    pub fn is_exact(&self) -> bool {
        self.mirror().is_exact()
    }

    // The mirror's lock is taken over when poisoned: each change under it is one assignment or
    // one document's insert or removal, which a panic cannot leave half done.
    fn mirror(&self) -> RwLockReadGuard<'_, Mirror> {
        self.mirror.read().unwrap_or_else(|e| e.into_inner())
    }

    fn mirror_mut(&self) -> RwLockWriteGuard<'_, Mirror> {
        self.mirror.write().unwrap_or_else(|e| e.into_inner())
    }

    // Nothing is held across a panic: the guard only orders writes.
    fn writing(&self) -> MutexGuard<'_, ()> {
        self.writing.lock().unwrap_or_else(|e| e.into_inner())
    }

    // Each change under it is one assignment or one push.
    fn log_state(&self) -> MutexGuard<'_, LogState> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes a document about to be written, for the next checkpoint's log record. Noted before
    /// the write, so that the record holds what the lists in RAM hold for it whether or not the
    /// write goes through.
    fn note_written(&self, doc_id: i64) {
        if let Some(docs) = self.log_state().docs.as_mut() {
            docs.push(doc_id);
        }
    }

    /// After a write: the row count, `change` applied to the mirror, and the mirror's kind
    /// changed when the table crossed [`super::ANN_THRESHOLD`] (to 8-bit lists from the f32
    /// vectors in RAM; back to f32 from disk).
    fn after_write(&self, change: impl FnOnce(&mut Mirror)) -> Result<(), IndexError> {
        self.maintain()?;
        let rows = self.runtime.block_on(self.table.count_rows(None))?;
        self.rows.store(rows, Ordering::Release);
        let exact = self.mirror().is_exact();
        if rows < self.threshold && !exact {
            let loaded = self.load_mirror(rows)?;
            *self.mirror_mut() = loaded;
            return Ok(());
        }
        let mut m = self.mirror_mut();
        change(&mut m);
        if rows >= self.threshold && exact {
            let full = std::mem::replace(&mut *m, Mirror::for_rows(0, self.dim, self.threshold));
            *m = full.into_compact(self.dim);
            self.log_state().docs = None;
        }
        Ok(())
    }
}

impl LanceVectors {
    /// Once the table has more than [`FRAGMENT_LIMIT`] fragments: merges the small ones (into
    /// fragments of up to [`FRAGMENT_ROWS`] rows) and removes the versions replaced more than
    /// [`KEEP_VERSIONS_MINUTES`] ago, with the files only they used. Called under the write guard.
    fn maintain(&self) -> Result<(), IndexError> {
        use lancedb::table::{CompactionOptions, Duration, OptimizeAction};
        // Compaction leaves full fragments of FRAGMENT_ROWS rows and one partly filled: the
        // others came from writes since.
        let full = self.rows.load(Ordering::Acquire) / FRAGMENT_ROWS;
        if self.fragments()?.saturating_sub(full) <= FRAGMENT_LIMIT {
            return Ok(());
        }
        let options = CompactionOptions { target_rows_per_fragment: FRAGMENT_ROWS, ..Default::default() };
        self.runtime.block_on(async {
            self.table.optimize(OptimizeAction::Compact { options, remap_options: None }).await?;
            self.table
                .optimize(OptimizeAction::Prune {
                    older_than: Duration::try_minutes(KEEP_VERSIONS_MINUTES),
                    // Files no version lists may belong to another process's write in progress.
                    delete_unverified: Some(false),
                    error_if_tagged_old_versions: Some(false),
                })
                .await
        })?;
        Ok(())
    }

    /// The table's fragments (files of rows).
    pub fn fragments(&self) -> Result<usize, IndexError> {
        match self.table.as_native() {
            Some(native) => Ok(self.runtime.block_on(native.count_fragments())?),
            // Only a remote table (LanceDB Cloud) is not native; this store opens local folders.
            None => Ok(0),
        }
    }

    /// The table's versions kept on disk.
    pub fn versions(&self) -> Result<usize, IndexError> {
        Ok(self.runtime.block_on(self.table.list_versions())?.len())
    }
}

impl VectorStore for LanceVectors {
    fn put_document(&self, doc_id: i64, records: &[VectorRecord]) -> Result<(), IndexError> {
        if let Some(bad) = records.iter().find(|r| r.embedding.len() != self.dim) {
            return Err(IndexError::Invalid(format!(
                "an embedding of {} dimensions for a {}-dimension table (chunk {})",
                bad.embedding.len(),
                self.dim,
                bad.chunk_id
            )));
        }
        let data = batch(self.dim, records)?;
        let _writing = self.writing();
        self.note_written(doc_id);
        self.runtime.block_on(async {
            self.table.delete(format!("doc_id = {doc_id}").as_str()).await?;
            if data.num_rows() > 0 {
                self.table.add(data).execute().await?;
            }
            Ok::<_, lancedb::Error>(())
        })?;
        self.after_write(|m| m.put_document(doc_id, records))
    }

    fn remove_document(&self, doc_id: i64) -> Result<(), IndexError> {
        let _writing = self.writing();
        self.note_written(doc_id);
        self.runtime.block_on(self.table.delete(format!("doc_id = {doc_id}").as_str()))?;
        self.after_write(|m| m.remove_document(doc_id))
    }

    fn search(&self, query: &[f32], limit: usize, docs: &[i64]) -> Result<Vec<(i64, f32)>, IndexError> {
        Ok(self.mirror().search(query, limit, docs))
    }

    fn len(&self) -> Result<usize, IndexError> {
        Ok(self.rows.load(Ordering::Acquire))
    }

    fn checkpoint(&self) -> Result<(), IndexError> {
        let _writing = self.writing();
        self.save_lists()
    }

    fn reload(&mut self) -> Result<(), IndexError> {
        self.runtime.block_on(self.table.checkout_latest())?;
        let rows = self.runtime.block_on(self.table.count_rows(None))?;
        self.rows.store(rows, Ordering::Release);
        let mirror = self.load_mirror(rows)?;
        *self.mirror_mut() = mirror;
        Ok(())
    }

    fn document_vectors(&self, doc_id: i64) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        if let Some(v) = self.mirror().document_vectors(doc_id) {
            return Ok(v);
        }
        let mut out = HashMap::new();
        self.scan_rows(Some(doc_id), |_, id, v| {
            out.insert(id, v.to_vec());
        })?;
        Ok(out)
    }

    fn records(&self) -> Result<Vec<VectorRecord>, IndexError> {
        let batches: Vec<RecordBatch> = self
            .runtime
            .block_on(async { self.table.query().execute().await?.try_collect::<Vec<_>>().await })?;
        let mut out = Vec::with_capacity(self.rows.load(Ordering::Acquire));
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
