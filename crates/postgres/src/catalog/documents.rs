//! Documents in the team library: put whole (outline, chunks, definitions, references, tables) in
//! one transaction, one document per path and per content, marked indexed, removed; each put and
//! removal recorded in the change sequence.

use super::rows::{self, CHUNK_COLS, DOC_COLS};
use folio_core::definitions::DefinitionScope;
use folio_core::model::BlockKind;
use folio_index::catalog::{ChunkRow, NewDocument};
use postgres::{GenericClient, Transaction};

/// Advisory lock keys of a path and of a content hash (two clients putting the same file wait for
/// each other, then the second finds the first's document).
const PATH_LOCK: &str = "SELECT pg_advisory_xact_lock(hashtextextended('path:' || $1, 0))";
const CONTENT_LOCK: &str = "SELECT pg_advisory_xact_lock(hashtextextended('content:' || $1, 0))";

/// Taken before a change is recorded and held to the commit, so that the change sequence's order
/// is the order of the commits: a client that has read up to a change never misses one committed
/// after it with a lower number.
const CHANGES_LOCK: &str = "SELECT pg_advisory_xact_lock(7008)";

/// A writer's claim on a document it is writing: a session lock (class 7007, the document's id),
/// held from the put to the mark `indexed`, and released by the server when the writer's
/// connection ends, however it ends. A `writing` document nobody claims was abandoned.
pub(super) const CLAIM: &str = "SELECT pg_advisory_lock(7007, ($1::bigint)::int)";
pub(super) const UNCLAIM: &str = "SELECT pg_advisory_unlock(7007, ($1::bigint)::int)";
pub(super) const TRY_CLAIM: &str = "SELECT pg_try_advisory_xact_lock(7007, ($1::bigint)::int)";

fn record_change(tx: &mut Transaction<'_>, doc_id: i64, removed: bool) -> Result<(), postgres::Error> {
    tx.execute(CHANGES_LOCK, &[])?;
    tx.execute("INSERT INTO changes (doc_id, removed) VALUES ($1, $2)", &[&doc_id, &removed])?;
    Ok(())
}

/// Puts a document in one transaction (see [`folio_index::catalog::Catalog::put_document`]).
/// Another path holding the same content is the same document: its id and chunks are given back
/// and nothing is written (the same file added from two computers is one document).
pub(super) fn put(
    tx: &mut Transaction<'_>,
    doc: &NewDocument<'_>,
) -> Result<(i64, Vec<ChunkRow>), postgres::Error> {
    let NewDocument { path, label, mtime, size, analysis: a, contexts, context_mode } = *doc;
    let m = &a.document.meta;
    tx.execute(PATH_LOCK, &[&path])?;
    tx.execute(CONTENT_LOCK, &[&m.content_hash])?;
    let same: Option<i64> = tx
        .query_opt(
            "SELECT id FROM documents WHERE content_hash = $1 AND path <> $2 AND context_mode = $3 ORDER BY id LIMIT 1",
            &[&m.content_hash, &path, &context_mode],
        )?
        .map(|r| r.get(0));
    if let Some(id) = same {
        let chunks = tx
            .query(
                &format!("SELECT {CHUNK_COLS} FROM chunks WHERE doc_id = $1 ORDER BY chunk_index"),
                &[&id],
            )?
            .iter()
            .map(rows::chunk)
            .collect();
        return Ok((id, chunks));
    }
    // A title the user gave the document outlives its new analysis.
    let user_title: Option<String> =
        tx.query_opt("SELECT user_title FROM documents WHERE path = $1", &[&path])?.and_then(|r| r.get(0));
    let old: Option<i64> =
        tx.query_opt("DELETE FROM documents WHERE path = $1 RETURNING id", &[&path])?.map(|r| r.get(0));
    if let Some(old) = old {
        record_change(tx, old, true)?;
    }
    let page_count = m.page_count.map(|p| p as i64);
    let doc_id: i64 = tx
        .query_one(
            "INSERT INTO documents (path, label, title, format, content_hash, mtime, size, page_count, status, text, context_mode, user_title)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'writing', $9, $10, $11) RETURNING id",
            &[&path, &label, &m.title, &m.format.as_str(), &m.content_hash, &mtime, &size, &page_count, &a.document.text, &context_mode, &user_title],
        )?
        .get(0);
    tx.execute(CLAIM, &[&doc_id])?;
    put_outline(tx, doc_id, a)?;
    put_definitions_and_references(tx, doc_id, a)?;
    let insert = tx.prepare(
        "INSERT INTO chunks (doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level, chunk_type,
           page_start, page_end, span_start, span_end, content_hash, content, context, defined_terms, context_source)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id",
    )?;
    let mut stored = Vec::with_capacity(a.chunks.len());
    for (i, c) in a.chunks.iter().enumerate() {
        let context = contexts.get(i).cloned().unwrap_or_default();
        let json = |v: &Vec<String>| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
        let id: i64 = tx
            .query_one(
                &insert,
                &[
                    &doc_id,
                    &(c.chunk_index as i64),
                    &c.section_id,
                    &json(&c.section_ids),
                    &json(&c.parent_chain),
                    &(c.heading_level as i64),
                    &c.chunk_type.as_str(),
                    &c.pages.map(|p| p.start as i64),
                    &c.pages.map(|p| p.end as i64),
                    &(c.span.start as i64),
                    &(c.span.end as i64),
                    &c.content_hash,
                    &c.text,
                    &context.text,
                    &json(&c.defined_terms),
                    &context.source,
                ],
            )?
            .get(0);
        stored.push(ChunkRow::stored(id, doc_id, c, context));
    }
    Ok((doc_id, stored))
}

fn put_outline(
    tx: &mut Transaction<'_>,
    doc_id: i64,
    a: &folio_core::analysis::Analysis,
) -> Result<(), postgres::Error> {
    let st = tx.prepare(
        "INSERT INTO sections (doc_id, ord, section_id, number, title, heading, level, parent_ord, page_start, page_end, span_start, span_end)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )?;
    for (i, s) in a.outline.sections.iter().enumerate() {
        tx.execute(
            &st,
            &[
                &doc_id,
                &(i as i64),
                &s.id,
                &s.number,
                &s.title,
                &s.heading,
                &(s.level as i64),
                &s.parent.map(|p| p as i64),
                &s.pages.map(|p| p.start as i64),
                &s.pages.map(|p| p.end as i64),
                &(s.span.start as i64),
                &(s.span.end as i64),
            ],
        )?;
    }
    let st =
        tx.prepare("INSERT INTO tables (doc_id, span_start, span_end, header_rows) VALUES ($1, $2, $3, $4)")?;
    for b in &a.document.blocks {
        if let BlockKind::Table { header_rows } = b.kind {
            tx.execute(&st, &[&doc_id, &(b.span.start as i64), &(b.span.end as i64), &(header_rows as i64)])?;
        }
    }
    Ok(())
}

fn put_definitions_and_references(
    tx: &mut Transaction<'_>,
    doc_id: i64,
    a: &folio_core::analysis::Analysis,
) -> Result<(), postgres::Error> {
    let st = tx.prepare(
        "INSERT INTO definitions (doc_id, term, key, text, section_id, scope_section, span_start, span_end)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )?;
    for d in &a.definitions {
        let scope = match &d.scope {
            DefinitionScope::Document => None,
            DefinitionScope::Section { section_id } => Some(section_id.clone()),
        };
        tx.execute(
            &st,
            &[
                &doc_id,
                &d.term,
                &d.key,
                &d.text,
                &d.section_id,
                &scope,
                &(d.span.start as i64),
                &(d.span.end as i64),
            ],
        )?;
    }
    let st = tx.prepare(
        "INSERT INTO refs (doc_id, text, label, from_section, target_section, document, container, span_start, span_end)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )?;
    for r in &a.references {
        let container: Option<String> =
            r.container.and_then(|c| serde_json::to_value(c).ok()).and_then(|v| v.as_str().map(String::from));
        tx.execute(
            &st,
            &[
                &doc_id,
                &r.text,
                &r.label,
                &r.from_section,
                &r.target_section,
                &r.document,
                &container,
                &(r.span.start as i64),
                &(r.span.end as i64),
            ],
        )?;
    }
    Ok(())
}

/// Marks a document indexed and records it in the change sequence.
pub(super) fn mark_indexed(tx: &mut Transaction<'_>, doc_id: i64) -> Result<(), postgres::Error> {
    let changed = tx.execute(
        "UPDATE documents SET status = 'indexed' WHERE id = $1 AND status <> 'indexed'",
        &[&doc_id],
    )?;
    if changed > 0 {
        record_change(tx, doc_id, false)?;
    }
    tx.execute(UNCLAIM, &[&doc_id])?;
    Ok(())
}

/// Removes a document (and, by cascade, all it holds), recorded in the change sequence.
pub(super) fn remove(tx: &mut Transaction<'_>, doc_id: i64) -> Result<bool, postgres::Error> {
    let removed = tx.execute("DELETE FROM documents WHERE id = $1", &[&doc_id])? > 0;
    if removed {
        record_change(tx, doc_id, true)?;
    }
    Ok(removed)
}

/// Removes a document left `writing` whose writer is gone: a transaction lock conflicts with the
/// writer's session claim, so taking it means nobody claims the document. The writer lets go of
/// its claim as it marks the document indexed, before that mark is committed: the removal is of a
/// document still `writing` only (a removal that meets the writer's uncommitted mark waits for
/// it, then finds the document indexed and leaves it).
pub(super) fn remove_if_abandoned(tx: &mut Transaction<'_>, doc_id: i64) -> Result<bool, postgres::Error> {
    let unclaimed: bool = tx.query_one(TRY_CLAIM, &[&doc_id])?.get(0);
    if !unclaimed {
        return Ok(false);
    }
    let removed = tx.execute("DELETE FROM documents WHERE id = $1 AND status <> 'indexed'", &[&doc_id])? > 0;
    if removed {
        record_change(tx, doc_id, true)?;
    }
    Ok(removed)
}

/// One document by a condition on `documents` (`$1` its value).
pub(super) fn one(
    c: &mut impl GenericClient,
    condition: &str,
    value: &(dyn postgres::types::ToSql + Sync),
) -> Result<Option<folio_index::catalog::DocumentRow>, postgres::Error> {
    Ok(c.query_opt(
        &format!("SELECT {DOC_COLS} FROM documents WHERE {condition} ORDER BY id LIMIT 1"),
        &[value],
    )?
    .map(|r| rows::document(&r)))
}
