//! Documents: stored whole (with their outline, chunks, definitions, references and tables) in one
//! transaction, looked up by path, id or content, marked indexed, removed.

use super::rows::*;
use super::SqliteCatalog;
use crate::IndexError;
use folio_core::definitions::DefinitionScope;
use folio_core::model::BlockKind;
use rusqlite::{params, OptionalExtension};

impl SqliteCatalog {
    /// The document stored for a path.
    pub fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>, IndexError> {
        Ok(self
            .conn()
            .query_row(&format!("SELECT {DOC_COLS} FROM documents WHERE path = ?1"), [path], doc_row)
            .optional()?)
    }

    /// All documents, by id.
    pub fn documents(&self) -> Result<Vec<DocumentRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(&format!("SELECT {DOC_COLS} FROM documents ORDER BY id"))?;
        let rows = st.query_map([], doc_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The document with this id, if any.
    pub fn document(&self, id: i64) -> Result<Option<DocumentRow>, IndexError> {
        Ok(self
            .conn()
            .query_row(&format!("SELECT {DOC_COLS} FROM documents WHERE id = ?1"), [id], doc_row)
            .optional()?)
    }

    /// Names a document as the user wants it cited (`None`: back to the title its file gives).
    pub fn rename_document(&self, id: i64, title: Option<&str>) -> Result<(), IndexError> {
        let changed =
            self.conn().execute("UPDATE documents SET user_title = ?2 WHERE id = ?1", params![id, title])?;
        if changed == 0 {
            return Err(IndexError::Invalid(format!("no document {id}")));
        }
        Ok(())
    }

    /// The extracted text of a document.
    pub fn document_text(&self, id: i64) -> Result<String, IndexError> {
        Ok(self.conn().query_row("SELECT text FROM documents WHERE id = ?1", [id], |r| r.get(0))?)
    }

    /// Replaces a document (same path) with a new analysis in one transaction; returns its id and
    /// the stored chunks (with their new ids).
    pub fn put_document(&self, doc: &NewDocument<'_>) -> Result<(i64, Vec<ChunkRow>), IndexError> {
        let NewDocument { path, label, mtime, size, analysis: a, contexts, context_mode } = *doc;
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        // A title the user gave the document outlives its new analysis.
        let user_title: Option<String> = tx
            .query_row("SELECT user_title FROM documents WHERE path = ?1", [path], |r| r.get(0))
            .optional()?
            .flatten();
        tx.execute("DELETE FROM documents WHERE path = ?1", [path])?;
        let m = &a.document.meta;
        tx.execute(
            "INSERT INTO documents (path, label, title, format, content_hash, mtime, size, page_count, status, text, context_mode, user_title)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'writing', ?9, ?10, ?11)",
            params![path, label, m.title, m.format.as_str(), m.content_hash, mtime, size, m.page_count, a.document.text, context_mode, user_title],
        )?;
        let doc_id = tx.last_insert_rowid();
        {
            let mut st = tx.prepare(
                "INSERT INTO sections (doc_id, ord, section_id, number, title, heading, level, parent_ord, page_start, page_end, span_start, span_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            for (i, s) in a.outline.sections.iter().enumerate() {
                st.execute(params![
                    doc_id,
                    i as i64,
                    s.id,
                    s.number,
                    s.title,
                    s.heading,
                    s.level,
                    s.parent.map(|p| p as i64),
                    s.pages.map(|p| p.start),
                    s.pages.map(|p| p.end),
                    s.span.start as i64,
                    s.span.end as i64
                ])?;
            }
            let mut st = tx.prepare(
                "INSERT INTO definitions (doc_id, term, key, text, section_id, scope_section, span_start, span_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for d in &a.definitions {
                let scope = match &d.scope {
                    DefinitionScope::Document => None,
                    DefinitionScope::Section { section_id } => Some(section_id.clone()),
                };
                st.execute(params![
                    doc_id,
                    d.term,
                    d.key,
                    d.text,
                    d.section_id,
                    scope,
                    d.span.start as i64,
                    d.span.end as i64
                ])?;
            }
            let mut st = tx.prepare(
                "INSERT INTO refs (doc_id, text, label, from_section, target_section, document, container, span_start, span_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?;
            for r in &a.references {
                let container = r
                    .container
                    .map(|c| serde_json::to_value(c).ok().and_then(|v| v.as_str().map(String::from)));
                st.execute(params![
                    doc_id,
                    r.text,
                    r.label,
                    r.from_section,
                    r.target_section,
                    r.document,
                    container.flatten(),
                    r.span.start as i64,
                    r.span.end as i64
                ])?;
            }
        }
        {
            let mut st = tx.prepare(
                "INSERT INTO tables (doc_id, span_start, span_end, header_rows) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for b in &a.document.blocks {
                if let BlockKind::Table { header_rows } = b.kind {
                    st.execute(params![doc_id, b.span.start as i64, b.span.end as i64, header_rows as i64])?;
                }
            }
        }
        let mut stored = Vec::with_capacity(a.chunks.len());
        {
            let mut st = tx.prepare(
                "INSERT INTO chunks (doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type,
                   page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            )?;
            for (i, c) in a.chunks.iter().enumerate() {
                let context = contexts.get(i).cloned().unwrap_or_default();
                st.execute(params![
                    doc_id,
                    c.chunk_index as i64,
                    c.section_id,
                    serde_json::to_string(&c.section_ids)?,
                    serde_json::to_string(&c.parent_chain)?,
                    c.heading_level,
                    c.chunk_type.as_str(),
                    c.pages.map(|p| p.start),
                    c.pages.map(|p| p.end),
                    c.span.start as i64,
                    c.span.end as i64,
                    c.content_hash,
                    c.text,
                    context.text,
                    serde_json::to_string(&c.defined_terms)?,
                    context.source
                ])?;
                stored.push(chunk_row_of(tx.last_insert_rowid(), doc_id, c, context));
            }
        }
        tx.commit()?;
        Ok((doc_id, stored))
    }

    /// Records a document's file time and size again (its content did not change).
    pub fn set_stamp(&self, id: i64, mtime: i64, size: i64) -> Result<(), IndexError> {
        self.conn().execute(
            "UPDATE documents SET mtime = ?2, size = ?3 WHERE id = ?1",
            rusqlite::params![id, mtime, size],
        )?;
        Ok(())
    }

    /// An indexed document with this content, any path (a renamed or copied file).
    pub fn document_by_hash(&self, content_hash: &str) -> Result<Option<DocumentRow>, IndexError> {
        Ok(self
            .conn()
            .query_row(
                &format!(
                    "SELECT {DOC_COLS} FROM documents WHERE content_hash = ?1 AND status = 'indexed' ORDER BY id LIMIT 1"
                ),
                [content_hash],
                doc_row,
            )
            .optional()?)
    }

    /// Marks a document written to every store: from now on it is visible to search.
    pub fn mark_indexed(&self, doc_id: i64) -> Result<(), IndexError> {
        self.conn().execute("UPDATE documents SET status = 'indexed' WHERE id = ?1", [doc_id])?;
        Ok(())
    }

    /// Removes a document and everything derived from it.
    pub fn remove_document(&self, id: i64) -> Result<bool, IndexError> {
        Ok(self.conn().execute("DELETE FROM documents WHERE id = ?1", [id])? > 0)
    }

    /// Sections, chunks, definitions and references of a document.
    pub fn document_counts(&self, doc_id: i64) -> Result<[usize; 4], IndexError> {
        let conn = self.conn();
        let mut out = [0usize; 4];
        for (i, table) in ["sections", "chunks", "definitions", "refs"].iter().enumerate() {
            let n: i64 =
                conn.query_row(&format!("SELECT COUNT(*) FROM {table} WHERE doc_id = ?1"), [doc_id], |r| {
                    r.get(0)
                })?;
            out[i] = n as usize;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{new_document, rulebook};
    use super::*;

    #[test]
    fn a_stored_document_is_found_by_path_id_and_content_once_indexed() {
        let a = rulebook("one");
        let cat = SqliteCatalog::in_memory().unwrap();
        let (id, chunks) = cat.put_document(&new_document("/rb.md", &a, "structural")).unwrap();
        assert_eq!(chunks.len(), a.chunks.len());
        let row = cat.document_by_path("/rb.md").unwrap().expect("stored");
        assert_eq!(row.id, id);
        assert_eq!((row.label.as_str(), row.mtime, row.size), ("RB", 100, 2048));
        assert_eq!(cat.document(id).unwrap().unwrap().path, "/rb.md");
        assert_eq!(cat.document_text(id).unwrap(), a.document.text);
        // Not visible by content until every store has it.
        assert!(cat.document_by_hash(&row.content_hash).unwrap().is_none());
        cat.mark_indexed(id).unwrap();
        assert_eq!(cat.document_by_hash(&row.content_hash).unwrap().unwrap().id, id);
        assert_eq!(cat.documents().unwrap().iter().map(|d| d.id).collect::<Vec<_>>(), vec![id]);
    }

    #[test]
    fn counts_stamps_and_removal() {
        let a = rulebook("two");
        let cat = SqliteCatalog::in_memory().unwrap();
        let (id, _) = cat.put_document(&new_document("/rb.md", &a, "none")).unwrap();
        let [sections, chunks, definitions, references] = cat.document_counts(id).unwrap();
        assert_eq!(sections, a.outline.sections.len());
        assert_eq!(chunks, a.chunks.len());
        assert_eq!(definitions, a.definitions.len());
        assert_eq!(references, a.references.len());
        assert!(definitions >= 1 && references >= 1, "{definitions} definitions, {references} references");
        cat.set_stamp(id, 555, 7).unwrap();
        let row = cat.document(id).unwrap().unwrap();
        assert_eq!((row.mtime, row.size), (555, 7));
        assert!(cat.remove_document(id).unwrap());
        assert!(!cat.remove_document(id).unwrap());
        assert!(cat.document(id).unwrap().is_none());
        assert_eq!(cat.document_counts(id).unwrap(), [0; 4]);
    }

    #[test]
    fn every_change_to_what_lookup_tables_read_draws_a_new_change_stamp() {
        let cat = SqliteCatalog::in_memory().unwrap();
        let mut seen = vec![cat.change_stamp().unwrap()];
        let mut changed = |cat: &SqliteCatalog, what: &str| {
            let now = cat.change_stamp().unwrap();
            assert!(!seen.contains(&now), "{what}: the stamp stayed {now}");
            seen.push(now);
        };
        let (id, _) = cat.put_document(&new_document("/rb.md", &rulebook("one"), "none")).unwrap();
        changed(&cat, "a document stored");
        cat.mark_indexed(id).unwrap();
        changed(&cat, "a document indexed");
        cat.rename_document(id, Some("Rules")).unwrap();
        changed(&cat, "a document renamed");
        // Each table the tables read, each kind of change, as any code path might make it.
        for table in ["documents", "sections", "chunks", "definitions", "refs"] {
            let sql = format!("CREATE TEMP TABLE copy AS SELECT * FROM {table} LIMIT 1");
            cat.conn().execute_batch(&sql).unwrap();
            let key = if table == "documents" { "id" } else { "doc_id" };
            let one = format!("rowid IN (SELECT rowid FROM {table} LIMIT 1)");
            cat.conn().execute(&format!("UPDATE {table} SET {key} = {key} WHERE {one}"), []).unwrap();
            changed(&cat, &format!("{table}: a row updated"));
            if table != "documents" {
                cat.conn().execute(&format!("DELETE FROM {table} WHERE {one}"), []).unwrap();
                changed(&cat, &format!("{table}: a row deleted"));
                cat.conn().execute(&format!("INSERT INTO {table} SELECT * FROM temp.copy"), []).unwrap();
                changed(&cat, &format!("{table}: a row inserted"));
            }
            cat.conn().execute_batch("DROP TABLE temp.copy").unwrap();
        }
        // What the tables do not read leaves it.
        let before = cat.change_stamp().unwrap();
        cat.add_watched_folder("/docs").unwrap();
        assert_eq!(cat.change_stamp().unwrap(), before);
        assert!(cat.remove_document(id).unwrap());
        changed(&cat, "a document removed");
    }

    #[test]
    fn storing_a_path_again_replaces_the_document() {
        let (a, b) = (rulebook("first"), rulebook("second"));
        let cat = SqliteCatalog::in_memory().unwrap();
        cat.put_document(&new_document("/rb.md", &a, "none")).unwrap();
        let (id, _) = cat.put_document(&new_document("/rb.md", &b, "none")).unwrap();
        assert_eq!(cat.documents().unwrap().len(), 1);
        assert!(cat.document_text(id).unwrap().contains("second"));
    }

    #[test]
    fn chunks_read_through_are_the_chunks_read_at_once() {
        let (a, b) = (rulebook("first"), rulebook("second"));
        let cat = SqliteCatalog::in_memory().unwrap();
        cat.put_document(&new_document("/b.md", &b, "none")).unwrap();
        cat.put_document(&new_document("/a.md", &a, "none")).unwrap();
        let mut streamed = Vec::new();
        let owned = |c: ChunkFacts<'_>| format!("{c:?}");
        super::super::Catalog::for_each_chunk_facts(&cat, &mut |c| streamed.push(owned(c))).unwrap();
        assert_eq!(streamed.len(), a.chunks.len() + b.chunks.len());
        let whole: Vec<String> = cat.chunks(None).unwrap().iter().map(|c| owned(c.facts())).collect();
        assert_eq!(streamed, whole, "the same chunks in the same order");
    }
}
