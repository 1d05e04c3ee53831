//! The SQLite catalog as a [`Catalog`]: each method is the [`SqliteCatalog`] method of the same
//! name (one file per concern beside this one).

use super::{
    CachedContext, Catalog, ChunkFacts, ChunkRow, ContextRun, DefinitionRow, DocumentRow, FailureRow,
    NewDocument, RefRow, SectionRow, SqliteCatalog, TableRow,
};
use crate::IndexError;
use folio_core::model::Span;

impl Catalog for SqliteCatalog {
    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>, IndexError> {
        SqliteCatalog::document_by_path(self, path)
    }

    fn documents(&self) -> Result<Vec<DocumentRow>, IndexError> {
        SqliteCatalog::documents(self)
    }

    fn document(&self, id: i64) -> Result<Option<DocumentRow>, IndexError> {
        SqliteCatalog::document(self, id)
    }

    fn rename_document(&self, id: i64, title: Option<&str>) -> Result<(), IndexError> {
        SqliteCatalog::rename_document(self, id, title)
    }

    fn document_text(&self, id: i64) -> Result<String, IndexError> {
        SqliteCatalog::document_text(self, id)
    }

    fn put_document(&self, doc: &NewDocument<'_>) -> Result<(i64, Vec<ChunkRow>), IndexError> {
        SqliteCatalog::put_document(self, doc)
    }

    fn set_stamp(&self, id: i64, mtime: i64, size: i64) -> Result<(), IndexError> {
        SqliteCatalog::set_stamp(self, id, mtime, size)
    }

    fn document_by_hash(&self, content_hash: &str) -> Result<Option<DocumentRow>, IndexError> {
        SqliteCatalog::document_by_hash(self, content_hash)
    }

    fn mark_indexed(&self, doc_id: i64) -> Result<(), IndexError> {
        SqliteCatalog::mark_indexed(self, doc_id)
    }

    fn remove_document(&self, id: i64) -> Result<bool, IndexError> {
        SqliteCatalog::remove_document(self, id)
    }

    fn document_counts(&self, doc_id: i64) -> Result<[usize; 4], IndexError> {
        SqliteCatalog::document_counts(self, doc_id)
    }

    fn chunks(&self, doc_id: Option<i64>) -> Result<Vec<ChunkRow>, IndexError> {
        SqliteCatalog::chunks(self, doc_id)
    }

    fn for_each_chunk_facts(&self, f: &mut dyn FnMut(ChunkFacts<'_>)) -> Result<(), IndexError> {
        SqliteCatalog::for_each_chunk_facts(self, f)
    }

    fn chunks_by_id(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, IndexError> {
        SqliteCatalog::chunks_by_id(self, ids)
    }

    fn sections(&self, doc_id: i64) -> Result<Vec<SectionRow>, IndexError> {
        SqliteCatalog::sections(self, doc_id)
    }

    fn definitions(&self, key: Option<&str>) -> Result<Vec<DefinitionRow>, IndexError> {
        SqliteCatalog::definitions(self, key)
    }

    fn tables_within(&self, doc_id: i64, span: Span) -> Result<Vec<TableRow>, IndexError> {
        SqliteCatalog::tables_within(self, doc_id, span)
    }

    fn references(&self, doc_id: i64, section_id: &str, outgoing: bool) -> Result<Vec<RefRow>, IndexError> {
        SqliteCatalog::references(self, doc_id, section_id, outgoing)
    }

    fn resolved_references(&self) -> Result<Vec<RefRow>, IndexError> {
        SqliteCatalog::resolved_references(self)
    }

    fn resolved_references_of(&self, doc_ids: &[i64]) -> Result<Vec<RefRow>, IndexError> {
        SqliteCatalog::resolved_references_of(self, doc_ids)
    }

    fn references_within(&self, doc_id: i64, span: Span) -> Result<Vec<RefRow>, IndexError> {
        SqliteCatalog::references_within(self, doc_id, span)
    }

    fn external_references(&self) -> Result<Vec<(i64, RefRow)>, IndexError> {
        SqliteCatalog::external_references(self)
    }

    fn unresolved_documents(&self) -> Result<Vec<(i64, String, String)>, IndexError> {
        SqliteCatalog::unresolved_documents(self)
    }

    fn set_resolutions(&self, resolved: &[(i64, Option<i64>, Option<String>)]) -> Result<(), IndexError> {
        SqliteCatalog::set_resolutions(self, resolved)
    }

    fn context_mode(&self, doc_id: i64) -> Result<String, IndexError> {
        SqliteCatalog::context_mode(self, doc_id)
    }

    fn fallback_chunks(&self, doc_id: i64) -> Result<usize, IndexError> {
        SqliteCatalog::fallback_chunks(self, doc_id)
    }

    fn cached_context(&self, key: &str) -> Result<Option<CachedContext>, IndexError> {
        SqliteCatalog::cached_context(self, key)
    }

    fn put_cached_contexts(&self, items: &[(String, CachedContext)]) -> Result<(), IndexError> {
        SqliteCatalog::put_cached_contexts(self, items)
    }

    fn record_context_run(&self, run: &ContextRun) -> Result<(), IndexError> {
        SqliteCatalog::record_context_run(self, run)
    }

    fn context_runs(&self) -> Result<Vec<ContextRun>, IndexError> {
        SqliteCatalog::context_runs(self)
    }

    fn watched_folders(&self) -> Result<Vec<String>, IndexError> {
        SqliteCatalog::watched_folders(self)
    }

    fn add_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        SqliteCatalog::add_watched_folder(self, path)
    }

    fn remove_watched_folder(&self, path: &str) -> Result<bool, IndexError> {
        SqliteCatalog::remove_watched_folder(self, path)
    }

    fn put_failure(&self, f: &FailureRow) -> Result<(), IndexError> {
        SqliteCatalog::put_failure(self, f)
    }

    fn clear_failure(&self, path: &str) -> Result<(), IndexError> {
        SqliteCatalog::clear_failure(self, path)
    }

    fn failures(&self) -> Result<Vec<FailureRow>, IndexError> {
        SqliteCatalog::failures(self)
    }

    fn checkpoint(&self) -> Result<(), IndexError> {
        SqliteCatalog::checkpoint(self)
    }

    fn data_version(&self) -> Result<i64, IndexError> {
        SqliteCatalog::data_version(self)
    }

    fn change_stamp(&self) -> Result<Option<i64>, IndexError> {
        SqliteCatalog::change_stamp(self).map(Some)
    }

    fn check(&self) -> Result<(), IndexError> {
        SqliteCatalog::check(self)
    }
}
