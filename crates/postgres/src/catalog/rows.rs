//! The catalog's rows as read from PostgreSQL (the row types are the SQLite catalog's, from
//! `folio_index::catalog`).

use folio_core::model::{PageRange, Span};
use folio_index::catalog::{ChunkRow, DefinitionRow, DocumentRow, DocumentStatus, RefRow, SectionRow};
use postgres::Row;

pub(super) const DOC_COLS: &str = "id, path, label, COALESCE(user_title, title), format, content_hash, mtime, size, page_count, status, user_title IS NOT NULL";

pub(super) const CHUNK_COLS: &str = "id, doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type, page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source";

pub(super) const REF_COLS: &str = "doc_id, text, label, from_section, target_section, document, container, span_start, span_end, target_doc_id, target_doc_section";

pub(super) const SECTION_COLS: &str =
    "doc_id, ord, section_id, number, title, heading, level, parent_ord, page_start, page_end, span_start, span_end";

pub(super) const DEFINITION_COLS: &str =
    "doc_id, term, key, text, section_id, scope_section, span_start, span_end";

fn span(r: &Row, start: usize) -> Span {
    Span::new(r.get::<_, i64>(start) as usize, r.get::<_, i64>(start + 1) as usize)
}

fn pages(r: &Row, start: usize) -> Option<PageRange> {
    match (r.get::<_, Option<i64>>(start), r.get::<_, Option<i64>>(start + 1)) {
        (Some(s), Some(e)) => Some(PageRange { start: s as u32, end: e as u32 }),
        _ => None,
    }
}

fn json_list(s: String) -> Vec<String> {
    // Written by this crate from a list of strings: anything else is no list.
    serde_json::from_str(&s).unwrap_or_default()
}

pub(super) fn document(r: &Row) -> DocumentRow {
    DocumentRow {
        id: r.get(0),
        path: r.get(1),
        label: r.get(2),
        title: r.get(3),
        format: r.get(4),
        content_hash: r.get(5),
        mtime: r.get(6),
        size: r.get(7),
        page_count: r.get(8),
        status: DocumentStatus::parse(r.get::<_, &str>(9)),
        renamed: r.get(10),
    }
}

pub(super) fn chunk(r: &Row) -> ChunkRow {
    ChunkRow {
        id: r.get(0),
        doc_id: r.get(1),
        chunk_index: r.get(2),
        section_id: r.get(3),
        section_ids: json_list(r.get(4)),
        parent_chain: json_list(r.get(5)),
        heading_level: r.get(6),
        chunk_type: r.get(7),
        pages: pages(r, 8),
        span: span(r, 10),
        content_hash: r.get(12),
        content: r.get(13),
        context: r.get(14),
        defined_terms: json_list(r.get(15)),
        context_source: r.get(16),
    }
}

pub(super) fn reference(r: &Row, first: usize) -> RefRow {
    RefRow {
        doc_id: r.get(first),
        text: r.get(first + 1),
        label: r.get(first + 2),
        from_section: r.get(first + 3),
        target_section: r.get(first + 4),
        document: r.get(first + 5),
        container: r.get(first + 6),
        span: span(r, first + 7),
        target_doc_id: r.get(first + 9),
        target_doc_section: r.get(first + 10),
    }
}

pub(super) fn section(r: &Row) -> SectionRow {
    SectionRow {
        doc_id: r.get(0),
        ord: r.get(1),
        section_id: r.get(2),
        number: r.get(3),
        title: r.get(4),
        heading: r.get(5),
        level: r.get(6),
        parent_ord: r.get(7),
        pages: pages(r, 8),
        span: span(r, 10),
    }
}

pub(super) fn definition(r: &Row) -> DefinitionRow {
    DefinitionRow {
        doc_id: r.get(0),
        term: r.get(1),
        key: r.get(2),
        text: r.get(3),
        section_id: r.get(4),
        scope_section: r.get(5),
        span: span(r, 6),
    }
}
