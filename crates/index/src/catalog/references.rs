//! Cross-references as stored, and their resolution to other documents of the library.

use super::rows::*;
use super::SqliteCatalog;
use crate::IndexError;
use folio_core::model::Span;
use rusqlite::params;

impl SqliteCatalog {
    /// Cross-references written in a section (`outgoing`) or pointing at it (backlinks).
    pub fn references(
        &self,
        doc_id: i64,
        section_id: &str,
        outgoing: bool,
    ) -> Result<Vec<RefRow>, IndexError> {
        let sql = if outgoing {
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE doc_id = ?1 AND from_section = ?2 ORDER BY span_start"
        } else {
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE (doc_id = ?1 AND target_section = ?2) OR (target_doc_id = ?1 AND target_doc_section = ?2) ORDER BY doc_id, span_start"
        };
        let conn = self.conn();
        let mut st = conn.prepare(sql)?;
        let rows = st.query_map(params![doc_id, section_id], ref_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Every reference of the library that points somewhere: within its own document, or to
    /// another document of the library.
    pub fn resolved_references(&self) -> Result<Vec<RefRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE target_section IS NOT NULL OR target_doc_section IS NOT NULL ORDER BY rowid",
        )?;
        let rows = st.query_map([], ref_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The references of these documents that point somewhere, in the order they are stored in.
    pub fn resolved_references_of(&self, doc_ids: &[i64]) -> Result<Vec<RefRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT rowid, doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE doc_id = ?1 AND (target_section IS NOT NULL OR target_doc_section IS NOT NULL)",
        )?;
        let mut rows: Vec<(i64, RefRow)> = Vec::new();
        for id in doc_ids {
            let got = st.query_map(params![id], |r| Ok((r.get(0)?, ref_row_at(r, 1)?)))?;
            rows.extend(got.collect::<Result<Vec<_>, _>>()?);
        }
        rows.sort_by_key(|(rowid, _)| *rowid);
        Ok(rows.into_iter().map(|(_, r)| r).collect())
    }

    /// References written inside a span of a document (a section and its subsections).
    pub fn references_within(&self, doc_id: i64, span: Span) -> Result<Vec<RefRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE doc_id = ?1 AND span_start >= ?2 AND span_end <= ?3 ORDER BY span_start",
        )?;
        let rows = st
            .query_map(params![doc_id, span.start as i64, span.end as i64], ref_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// All references to other documents, for library-level resolution.
    pub fn external_references(&self) -> Result<Vec<(i64, RefRow)>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT rowid, doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section
             FROM refs WHERE document IS NOT NULL ORDER BY rowid",
        )?;
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
