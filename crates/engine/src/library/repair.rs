//! Repair: reconcile the stores with the catalog, rebuild the vectors and keyword index from it,
//! or a damaged catalog from the chunk records.

use super::*;

/// What `Library::repair` did.
#[derive(Debug, Default, Clone, Serialize, schemars::JsonSchema)]
pub struct RepairReport {
    /// Documents rebuilt in the vectors and the keyword index.
    pub documents: usize,
    /// Chunks written again.
    pub chunks: usize,
    /// Chunks embedded again (their vectors were missing or unreadable); a damaged keyword index
    /// or catalog costs none.
    pub embedded: usize,
    /// Half-written documents rolled back.
    pub rolled_back: Vec<String>,
    /// Set when the catalog itself was damaged and rebuilt from the chunk records.
    pub catalog: Option<CatalogRebuild>,
}

/// How a damaged catalog was rebuilt (see [`Library::repair`]).
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct CatalogRebuild {
    /// Where the damaged catalog was moved (kept for the user; nothing reads it again).
    pub damaged_copy: PathBuf,
    /// Documents whose source file analysed again to the recorded chunks: whole outline,
    /// definitions and references.
    pub from_source: usize,
    /// Documents rebuilt from their chunk records alone (the file is gone or changed since).
    pub from_records: Vec<String>,
    /// Tables of the damaged catalog copied over whole (context cache, watched folders, …).
    pub salvaged: Vec<String>,
    /// Tables of the damaged catalog that could not be read.
    pub lost: Vec<String>,
}

/// Where a catalog rebuild keeps the vector store's records until every document is written
/// again (see [`Library::repair`]).
pub(super) const RECORDS_ASIDE: &str = "vectors.repairing";

impl Library {
    /// Rolls back documents a crash left half-written (status `writing`): their rows leave every
    /// store. Returns their paths, for telling the user.
    pub(super) fn reconcile(&mut self) -> Result<Vec<String>, EngineError> {
        let mut repaired = Vec::new();
        for d in self.catalog.documents()? {
            // The catalog first: whether it is abandoned is the catalog's to say, at the moment of
            // removal (another client of a team library may be writing it). Its records in the
            // other stores go after; a crash between leaves only records nothing points to.
            if d.status != DocumentStatus::Indexed && self.catalog.remove_if_abandoned(d.id)? {
                self.vectors.remove_document(d.id)?;
                self.keyword.remove_document(d.id)?;
                self.keyword.commit()?;
                repaired.push(d.path);
            }
        }
        Ok(repaired)
    }

    /// Repairs a damaged library. With a sound catalog, the derived indexes — the vectors and
    /// the keyword index — are thrown away and rebuilt from it (the chunk records with their stored
    /// contexts; no file is read and no LLM asked). With a damaged catalog, the catalog is moved
    /// aside and rebuilt from the chunk records in the vector store (see [`CatalogRebuild`]).
    pub fn repair(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<RepairReport, EngineError> {
        std::fs::create_dir_all(dir).map_err(folio_index::IndexError::from)?;
        let probe = take_write_lock(dir)?.ok_or_else(|| {
            EngineError::ReadOnly(format!(
                "another Folio process is using {}; close it before repairing",
                dir.display()
            ))
        })?;
        // A rebuild of the catalog that was cut short left the records aside: it runs again.
        let catalog_damage = if dir.join(RECORDS_ASIDE).exists() {
            Some(folio_index::IndexError::Corrupt("an earlier repair did not finish".into()))
        } else {
            match SqliteCatalog::open(&dir.join("catalog.sqlite")).and_then(|c| c.check()) {
                Ok(()) => None,
                Err(e) if e.is_damage() => Some(e),
                Err(e) => return Err(e.into()),
            }
        };
        drop(probe);
        if let Some(damage) = catalog_damage {
            return Self::rebuild_catalog(dir, embedder, options, progress, damage);
        }
        // The keyword index is always rebuilt (it takes seconds). The vector store stays when the
        // library opens with it, and so does each document's vectors when it has one for every
        // chunk: a damaged keyword index costs no embedding. With the catalog sound and the keyword
        // index new, a library that reports damage on open has a damaged vector store.
        let remove = |derived: &str| {
            let p = dir.join(derived);
            if p.exists() {
                std::fs::remove_dir_all(&p).map_err(folio_index::IndexError::from)?;
            }
            Ok::<_, EngineError>(())
        };
        remove("keyword")?;
        let mut lib = match Library::open(dir, embedder.clone(), options.clone()) {
            Err(EngineError::Damaged(_)) => {
                remove("vectors")?;
                Library::open(dir, embedder, options)?
            }
            opened => opened?,
        };
        let mut report = RepairReport { rolled_back: lib.repaired.clone(), ..RepairReport::default() };
        let docs = lib.catalog.documents()?;
        let defs = lib.catalog.definitions(None)?;
        for (i, d) in docs.iter().enumerate() {
            progress(Progress::repairing(&d.path, i, docs.len()));
            let rows = lib.catalog.chunks(Some(d.id))?;
            report.documents += 1;
            report.chunks += rows.len();
            let stored = lib.vectors.document_vectors(d.id)?;
            if stored.len() != rows.len() || !rows.iter().all(|r| stored.contains_key(&r.id)) {
                lib.embed_again(d, &rows, &defs)?;
                report.embedded += rows.len();
            }
            put_keywords(&lib.keyword, d.id, &rows)?;
            lib.keyword.commit()?;
        }
        lib.finish_ingest()?;
        Ok(report)
    }

    /// Embeds a document's stored chunks again (with their stored contexts) and replaces its
    /// vector records.
    pub(super) fn embed_again(
        &mut self,
        d: &DocumentRow,
        rows: &[ChunkRow],
        defs: &[DefinitionRow],
    ) -> Result<(), EngineError> {
        let texts: Vec<String> = rows.iter().map(stored_embedded_text).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        // In parts as an ingest embeds (a repair is not cancelled, so every part goes on).
        let vectors = self
            .embedder
            .embed_documents_in_parts(&refs, self.options.embed_batch, &mut |_| true)?
            .expect("every part was let go on");
        let refs = self.catalog.references_within(d.id, folio_core::model::Span::new(0, usize::MAX >> 1))?;
        let source =
            RecordSource { path: &d.path, mtime: d.mtime, size: d.size, format: &d.format, title: &d.title };
        let records: Vec<VectorRecord> = rows
            .iter()
            .zip(&vectors)
            .map(|(r, v)| {
                let in_chunk: Vec<&RefRow> = refs
                    .iter()
                    .filter(|x| x.span.start >= r.span.start && x.span.end <= r.span.end)
                    .collect();
                let def = r
                    .defined_terms
                    .first()
                    .and_then(|k| defs.iter().find(|x| x.doc_id == d.id && &x.key == k));
                let refs_json = serde_json::to_string(&in_chunk).unwrap_or_default();
                vector_record(r, v, &source, refs_json, def.map(|x| (x.term.as_str(), x.key.as_str())))
            })
            .collect();
        self.vectors.put_document(d.id, &records)?;
        Ok(())
    }

    /// Rebuilds a damaged catalog from the chunk records of the vector store: the damaged file is
    /// moved aside (and what still reads of it — the context cache, watched folders, failures,
    /// document labels and context modes — copied over), the records are moved aside while the
    /// documents are written again one by one, each with its recorded vectors and contexts, then
    /// the exact index and cross-document references are rebuilt.
    pub(super) fn rebuild_catalog(
        dir: &Path,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
        progress: &mut dyn FnMut(Progress),
        damage: folio_index::IndexError,
    ) -> Result<RepairReport, EngineError> {
        use crate::recovery::{
            analysis_from_records, analysis_from_source, documents_of, recorded_contexts, with_sources,
            Origin,
        };
        let io = |e: std::io::Error| EngineError::from(folio_index::IndexError::from(e));
        let aside = dir.join(RECORDS_ASIDE);
        if !aside.exists() {
            let vectors = dir.join("vectors");
            if !vectors.exists() || options.in_memory_vectors {
                return Err(EngineError::Damaged(format!(
                    "the library's catalog in {} is damaged ({damage}) and there are no chunk records to rebuild it from: ingest the documents again into a new library",
                    dir.display()
                )));
            }
            std::fs::rename(&vectors, &aside).map_err(io)?;
        }
        // Records of another model's table cannot be used (nor would their vectors fit): the
        // store goes back untouched and the user is told which model to repair with.
        let table = folio_index::vectors::table_name(embedder.id(), embedder.dim());
        if !aside.join(format!("{table}.lance")).is_dir() {
            let present: Vec<String> = std::fs::read_dir(&aside)
                .map(|d| {
                    d.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".lance").map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            std::fs::rename(&aside, dir.join("vectors")).map_err(io)?;
            return Err(EngineError::Damaged(format!(
                "the library's catalog in {} is damaged ({damage}), and its vector store holds no records for {} (it holds: {}); run `folio repair` with the model the library was built with (`--model`)",
                dir.display(),
                embedder.id(),
                if present.is_empty() { "nothing".to_string() } else { present.join(", ") }
            )));
        }
        let records = LanceVectors::open(&aside, embedder.id(), embedder.dim())
            .and_then(|v| v.records())
            .map_err(|e| {
                EngineError::Damaged(format!(
                    "the library's catalog in {} is damaged ({damage}) and its vector store cannot be read either ({e}): ingest the documents again into a new library",
                    dir.display()
                ))
            })?;
        // The damaged catalog (with its journal) moves aside; the keyword index is derived.
        let stamp = folio_index::catalog::now();
        let damaged_copy = dir.join(format!("catalog.damaged-{stamp}.sqlite"));
        for suffix in ["", "-wal", "-shm"] {
            let from = dir.join(format!("catalog.sqlite{suffix}"));
            if from.exists() {
                std::fs::rename(&from, dir.join(format!("catalog.damaged-{stamp}.sqlite{suffix}")))
                    .map_err(io)?;
            }
        }
        if dir.join("keyword").exists() {
            std::fs::remove_dir_all(dir.join("keyword")).map_err(io)?;
        }
        // What can be read of the damaged catalog goes into the new one first (its own file, so
        // the salvage needs the SQLite catalog itself, not the library's view of a catalog).
        let folio_index::catalog::Salvage { documents: known_documents, copied, lost } =
            SqliteCatalog::open(&dir.join("catalog.sqlite"))?.salvage_from(&damaged_copy);
        let mut lib = Library::open(dir, embedder, options)?;
        let mut rebuilt =
            CatalogRebuild { damaged_copy, salvaged: copied, lost, ..CatalogRebuild::default() };
        let docs = documents_of(records);
        let mut report = RepairReport::default();
        for (i, records) in docs.iter().enumerate() {
            let path = records[0].source_path.clone();
            progress(Progress::repairing(&path, i, docs.len()));
            let (analysis, origin) = match analysis_from_source(
                records,
                &lib.options.convert,
                lib.counter.as_ref(),
                &lib.options.chunker,
            ) {
                Some(a) => (a, Origin::Source),
                None => (analysis_from_records(records, lib.counter.as_ref()), Origin::Records),
            };
            let known = known_documents.get(&path);
            let label = known.map(|d| d.label.clone()).unwrap_or_else(|| document_label(&path));
            let texts = recorded_contexts(records);
            let mode = match known {
                Some(d) => d.context_mode.clone(),
                None if texts.iter().all(String::is_empty) => "none".into(),
                None if origin == Origin::Source
                    && folio_core::context::structural_contexts(&analysis, &label) == texts =>
                {
                    "structural".into()
                }
                None => "recovered".into(),
            };
            let contexts = with_sources(texts, &mode);
            let prepared = Prepared {
                path: path.clone(),
                mtime: records[0].mtime,
                size: records[0].file_size_bytes,
                label,
                mode,
                analysis,
                contexts,
                run: None,
                vectors: records.iter().map(|r| r.embedding.clone()).collect(),
            };
            let committed = lib
                .commit_file(prepared, &mut folio_core::progress::ignore)
                .map_err(|e| EngineError::Damaged(format!("rebuilding {path} failed ({}): {e}", e.code())))?;
            let chunks = committed.chunks;
            lib.show_committed(committed.doc_id)?;
            match origin {
                Origin::Source => rebuilt.from_source += 1,
                Origin::Records => rebuilt.from_records.push(path),
            }
            report.documents += 1;
            report.chunks += chunks;
        }
        lib.finish_ingest()?;
        drop(lib);
        std::fs::remove_dir_all(&aside).map_err(io)?;
        report.catalog = Some(rebuilt);
        Ok(report)
    }

    /// Documents rolled back when the library opened (a crash had left them half-written).
    pub fn repaired(&self) -> &[String] {
        &self.repaired
    }

    /// Each document's chunk count in the catalog, the vectors and the keyword index; a document
    /// is consistent when the three agree.
    pub fn verify(&self) -> Result<Vec<(DocumentRow, [usize; 3])>, EngineError> {
        let mut out = Vec::new();
        for d in self.catalog.documents()? {
            let catalog = self.catalog.document_counts(d.id)?[1];
            let vectors = self.vectors.document_vectors(d.id)?.len();
            let keyword = self.keyword.document_count(d.id)?.unwrap_or(catalog);
            out.push((d, [catalog, vectors, keyword]));
        }
        Ok(out)
    }
}
