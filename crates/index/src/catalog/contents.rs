//! What a document holds, as stored: its chunks, outline, definitions and tables.

use super::rows::*;
use super::SqliteCatalog;
use crate::IndexError;
use folio_core::model::Span;
use rusqlite::{params, OptionalExtension};

impl SqliteCatalog {
    /// Chunks of one document (or all, with `None`), in order.
    pub fn chunks(&self, doc_id: Option<i64>) -> Result<Vec<ChunkRow>, IndexError> {
        let sql = format!(
            "SELECT {CHUNK_COLS} FROM chunks {} ORDER BY doc_id, chunk_index",
            if doc_id.is_some() { "WHERE doc_id = ?1" } else { "" }
        );
        let conn = self.conn();
        let mut st = conn.prepare(&sql)?;
        let rows = match doc_id {
            Some(d) => st.query_map([d], chunk_row)?.collect::<Result<Vec<_>, _>>()?,
            None => st.query_map([], chunk_row)?.collect::<Result<Vec<_>, _>>()?,
        };
        Ok(rows)
    }

    /// Calls `f` with every chunk's facts in order, one row at a time (the catalog is held
    /// meanwhile: `f` must not use it).
    pub fn for_each_chunk_facts(&self, f: &mut dyn FnMut(ChunkFacts<'_>)) -> Result<(), IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(&format!("SELECT {FACT_COLS} FROM chunks ORDER BY doc_id, chunk_index"))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(chunk_facts(r)?);
        }
        Ok(())
    }

    /// Chunks by id, in the order asked (missing ids skipped).
    pub fn chunks_by_id(&self, ids: &[i64]) -> Result<Vec<ChunkRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare_cached(&format!("SELECT {CHUNK_COLS} FROM chunks WHERE id = ?1"))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(c) = st.query_row([id], chunk_row).optional()? {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// A document's sections in outline order (`ord`), the root (the document itself) first.
    pub fn sections(&self, doc_id: i64) -> Result<Vec<SectionRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT doc_id, ord, section_id, number, title, heading, level, parent_ord, page_start, page_end, span_start, span_end
             FROM sections WHERE doc_id = ?1 ORDER BY ord",
        )?;
        let rows = st
            .query_map([doc_id], |r| {
                Ok(SectionRow {
                    doc_id: r.get(0)?,
                    ord: r.get(1)?,
                    section_id: r.get(2)?,
                    number: r.get(3)?,
                    title: r.get(4)?,
                    heading: r.get(5)?,
                    level: r.get(6)?,
                    parent_ord: r.get(7)?,
                    pages: pages_of(r.get(8)?, r.get(9)?),
                    span: Span::new(r.get::<_, i64>(10)? as usize, r.get::<_, i64>(11)? as usize),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Definitions, all or of one key.
    pub fn definitions(&self, key: Option<&str>) -> Result<Vec<DefinitionRow>, IndexError> {
        let sql = format!(
            "SELECT doc_id, term, key, text, section_id, scope_section, span_start, span_end FROM definitions {} ORDER BY doc_id, span_start",
            if key.is_some() { "WHERE key = ?1" } else { "" }
        );
        let conn = self.conn();
        let mut st = conn.prepare(&sql)?;
        let map = |r: &rusqlite::Row<'_>| {
            Ok(DefinitionRow {
                doc_id: r.get(0)?,
                term: r.get(1)?,
                key: r.get(2)?,
                text: r.get(3)?,
                section_id: r.get(4)?,
                scope_section: r.get(5)?,
                span: Span::new(r.get::<_, i64>(6)? as usize, r.get::<_, i64>(7)? as usize),
            })
        };
        let rows = match key {
            Some(k) => st.query_map([k], map)?.collect::<Result<Vec<_>, _>>()?,
            None => st.query_map([], map)?.collect::<Result<Vec<_>, _>>()?,
        };
        Ok(rows)
    }

    /// Tables inside a span of a document (a section and its subsections), in text order.
    pub fn tables_within(&self, doc_id: i64, span: Span) -> Result<Vec<TableRow>, IndexError> {
        let conn = self.conn();
        let mut st = conn.prepare(
            "SELECT span_start, span_end, header_rows FROM tables
             WHERE doc_id = ?1 AND span_start >= ?2 AND span_end <= ?3 ORDER BY span_start",
        )?;
        let rows = st
            .query_map(params![doc_id, span.start as i64, span.end as i64], |r| {
                Ok(TableRow {
                    span: Span::new(r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize),
                    header_rows: r.get::<_, i64>(2)? as u32,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_core::analysis::analyze;
    use folio_core::chunker::ChunkerConfig;
    use folio_core::model::BlockKind;
    use folio_core::model::{DocumentBuilder, Format};
    use folio_core::tokens::WordCounter;

    #[test]
    fn tables_are_kept_with_their_header_rows_and_go_with_their_document() {
        let mut b = DocumentBuilder::new(Format::Markdown, "Report", b"r");
        b.push(BlockKind::Heading { level: 1, number: None }, "Balance sheet", None);
        b.push(BlockKind::Paragraph, "Figures in millions.", None);
        b.push(BlockKind::Table { header_rows: 1 }, "\t2022\t2021\nTotal assets\t352\t351", None);
        b.push(BlockKind::Table { header_rows: 0 }, "a\tb", None);
        let a = analyze(b.finish(), &WordCounter, &ChunkerConfig::default());
        let cat = SqliteCatalog::in_memory().unwrap();
        let new = |path| NewDocument {
            path,
            label: "R",
            mtime: 0,
            size: 1,
            analysis: &a,
            contexts: &[],
            context_mode: "none",
        };
        let (id, _) = cat.put_document(&new("/r.md")).unwrap();
        let all = Span::new(0, a.document.text.len());
        let tables = cat.tables_within(id, all).unwrap();
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].header_rows, 1);
        assert_eq!(
            &a.document.text[tables[0].span.start..tables[0].span.end],
            "\t2022\t2021\nTotal assets\t352\t351"
        );
        assert_eq!(tables[1].header_rows, 0);
        // Only the tables inside the span asked for.
        assert_eq!(cat.tables_within(id, Span::new(0, tables[0].span.end)).unwrap().len(), 1);
        // Replacing the document replaces its tables; removing it removes them.
        // (SQLite may give the new row the old id: the count tells the old tables are gone.)
        let (id2, _) = cat.put_document(&new("/r.md")).unwrap();
        assert_eq!(cat.tables_within(id2, all).unwrap().len(), 2);
        assert!(id2 == id || cat.tables_within(id, all).unwrap().is_empty());
        assert!(cat.remove_document(id2).unwrap());
        assert!(cat.tables_within(id2, all).unwrap().is_empty());
    }
}
