//! Cross-references as stored, and their resolution to other documents of the library.

use super::rows::*;
use super::SqliteCatalog;
use crate::IndexError;
use folio_core::model::Span;
use rusqlite::params;

impl SqliteCatalog {
    /// The references meeting an SQL condition (with its ordering), as rows.
    fn references_where(
        &self,
        condition: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<RefRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(&format!("SELECT {REF_COLS} FROM refs WHERE {condition}"))?;
        let rows = st.query_map(params, ref_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Cross-references written in a section (`outgoing`) or pointing at it (backlinks).
    pub fn references(
        &self,
        doc_id: i64,
        section_id: &str,
        outgoing: bool,
    ) -> Result<Vec<RefRow>, IndexError> {
        let condition = if outgoing {
            "doc_id = ?1 AND from_section = ?2 ORDER BY span_start"
        } else {
            "(doc_id = ?1 AND target_section = ?2) OR (target_doc_id = ?1 AND target_doc_section = ?2) ORDER BY doc_id, span_start"
        };
        self.references_where(condition, params![doc_id, section_id])
    }

    /// Every reference of the library that points somewhere: within its own document, or to
    /// another document of the library.
    pub fn resolved_references(&self) -> Result<Vec<RefRow>, IndexError> {
        self.references_where(
            "target_section IS NOT NULL OR target_doc_section IS NOT NULL ORDER BY rowid",
            [],
        )
    }

    /// The references of these documents that point somewhere, in the order they are stored in.
    pub fn resolved_references_of(&self, doc_ids: &[i64]) -> Result<Vec<RefRow>, IndexError> {
        let marks = vec!["?"; doc_ids.len()].join(", ");
        self.references_where(
            &format!(
                "doc_id IN ({marks}) AND (target_section IS NOT NULL OR target_doc_section IS NOT NULL) ORDER BY rowid"
            ),
            rusqlite::params_from_iter(doc_ids),
        )
    }

    /// References written inside a span of a document (a section and its subsections).
    pub fn references_within(&self, doc_id: i64, span: Span) -> Result<Vec<RefRow>, IndexError> {
        self.references_where(
            "doc_id = ?1 AND span_start >= ?2 AND span_end <= ?3 ORDER BY span_start",
            params![doc_id, span.start as i64, span.end as i64],
        )
    }

    /// All references to other documents, for library-level resolution.
    pub fn external_references(&self) -> Result<Vec<(i64, RefRow)>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(&format!(
            "SELECT rowid, {REF_COLS} FROM refs WHERE document IS NOT NULL ORDER BY rowid"
        ))?;
        let rows =
            st.query_map([], |r| Ok((r.get(0)?, ref_row_at(r, 1)?)))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Documents the library cites but does not hold: each reference to another document that
    /// resolved to none, as (citing document, the name as written, the reference as written).
    pub fn unresolved_documents(&self) -> Result<Vec<(i64, String, String)>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, document, text FROM refs WHERE document IS NOT NULL AND target_doc_id IS NULL",
        )?;
        let rows =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Records the library-level resolution of external references (rowid → target).
    pub fn set_resolutions(&self, resolved: &[(i64, Option<i64>, Option<String>)]) -> Result<(), IndexError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut st =
                tx.prepare("UPDATE refs SET target_doc_id = ?2, target_doc_section = ?3 WHERE rowid = ?1")?;
            for (rowid, doc, sec) in resolved {
                st.execute(params![rowid, doc, sec])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
