//! The keyword channel's store: this computer's BM25 index (a folder library's, or a team
//! library's cache of it), or, for a team library that ranks on its server, nothing to keep here:
//! PostgreSQL keeps the chunks' words in the same rows as the chunks, and ranks them itself.

use crate::EngineError;
use folio_index::keyword::{KeywordIndex, KeywordRanker};
use std::sync::Arc;

/// Where the keyword channel ranks (see the module note).
pub(super) enum Keywords {
    /// A tantivy BM25 index on this computer; ingest and catch-up write it.
    Local(Box<KeywordIndex>),
    /// A server's full-text search over the stored chunks; nothing is written here.
    Server(Arc<dyn KeywordRanker>),
}

impl Keywords {
    /// The index on this computer, if the channel ranks here.
    pub(super) fn local(&self) -> Option<&KeywordIndex> {
        match self {
            Keywords::Local(k) => Some(k.as_ref()),
            Keywords::Server(_) => None,
        }
    }

    /// What ranks the channel's searches.
    pub(super) fn ranker(&self) -> &dyn KeywordRanker {
        match self {
            Keywords::Local(k) => k.as_ref(),
            Keywords::Server(r) => r.as_ref(),
        }
    }

    /// Takes a document out of the index here (the server's words go with the chunk rows).
    pub(super) fn remove_document(&self, doc_id: i64) -> Result<(), EngineError> {
        if let Some(k) = self.local() {
            k.remove_document(doc_id as u64)?;
        }
        Ok(())
    }

    /// Makes what was written here searchable.
    pub(super) fn commit(&self) -> Result<(), EngineError> {
        if let Some(k) = self.local() {
            k.commit()?;
        }
        Ok(())
    }

    /// Sees what another process committed to the index here.
    pub(super) fn reload(&self) -> Result<(), EngineError> {
        if let Some(k) = self.local() {
            k.reload()?;
        }
        Ok(())
    }

    /// A document's chunks in the index here; `None` where the server keeps the words in the
    /// chunk rows themselves (as many as the catalog has, by construction).
    pub(super) fn document_count(&self, doc_id: i64) -> Result<Option<usize>, EngineError> {
        Ok(match self.local() {
            Some(k) => Some(k.document_count(doc_id as u64)?),
            None => None,
        })
    }
}
