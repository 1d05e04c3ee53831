//! The team library's schema in PostgreSQL: one migration per version, run in one transaction that
//! first takes an advisory lock, so that two clients opening a new library at once do not both run
//! them (the second waits, then finds the version current). The tables mirror the SQLite catalog's,
//! with what sharing needs: a change sequence (which documents were put or removed since a
//! client's keyword cache last looked), and watched folders and failures kept per computer.

use crate::server::Server;
use folio_index::{IndexError, ServerFailure};

/// The advisory lock key of the migrations ("FOLIOSCH").
const MIGRATION_LOCK: i64 = 0x464F_4C49_4F53_4348;

/// The schema version this Folio writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const MIGRATIONS: [&str; 2] = [
    r#"
CREATE TABLE documents (
    id BIGSERIAL PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    title TEXT NOT NULL,
    format TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    mtime BIGINT NOT NULL,
    size BIGINT NOT NULL,
    page_count BIGINT,
    status TEXT NOT NULL,
    text TEXT NOT NULL,
    context_mode TEXT NOT NULL DEFAULT 'none',
    user_title TEXT
);
CREATE INDEX documents_by_hash ON documents(content_hash);
CREATE TABLE sections (
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord BIGINT NOT NULL,
    section_id TEXT NOT NULL,
    number TEXT,
    title TEXT NOT NULL,
    heading TEXT NOT NULL,
    level BIGINT NOT NULL,
    parent_ord BIGINT,
    page_start BIGINT, page_end BIGINT,
    span_start BIGINT NOT NULL, span_end BIGINT NOT NULL,
    PRIMARY KEY (doc_id, ord)
);
CREATE INDEX sections_by_id ON sections(doc_id, section_id);
CREATE TABLE chunks (
    id BIGSERIAL PRIMARY KEY,
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index BIGINT NOT NULL,
    section_id TEXT NOT NULL,
    section_ids TEXT NOT NULL,
    parent_chain TEXT NOT NULL,
    heading_level BIGINT NOT NULL,
    chunk_type TEXT NOT NULL,
    page_start BIGINT, page_end BIGINT,
    span_start BIGINT NOT NULL, span_end BIGINT NOT NULL,
    content_hash TEXT NOT NULL,
    content TEXT NOT NULL,
    context TEXT NOT NULL DEFAULT '',
    defined_terms TEXT NOT NULL,
    context_source TEXT NOT NULL DEFAULT 'none'
);
CREATE INDEX chunks_by_doc ON chunks(doc_id, chunk_index);
CREATE TABLE definitions (
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    term TEXT NOT NULL,
    key TEXT NOT NULL,
    text TEXT NOT NULL,
    section_id TEXT NOT NULL,
    scope_section TEXT,
    span_start BIGINT NOT NULL, span_end BIGINT NOT NULL
);
CREATE INDEX definitions_by_key ON definitions(key);
CREATE INDEX definitions_by_doc ON definitions(doc_id, span_start);
CREATE TABLE refs (
    id BIGSERIAL PRIMARY KEY,
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    label TEXT NOT NULL,
    from_section TEXT NOT NULL,
    target_section TEXT,
    document TEXT,
    container TEXT,
    span_start BIGINT NOT NULL, span_end BIGINT NOT NULL,
    target_doc_id BIGINT,
    target_doc_section TEXT
);
CREATE INDEX refs_by_from ON refs(doc_id, from_section);
CREATE INDEX refs_by_target ON refs(target_doc_id, target_doc_section);
CREATE INDEX refs_external ON refs(id) WHERE document IS NOT NULL;
CREATE TABLE tables (
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    span_start BIGINT NOT NULL, span_end BIGINT NOT NULL,
    header_rows BIGINT NOT NULL
);
CREATE INDEX tables_by_doc ON tables(doc_id, span_start);
CREATE TABLE context_cache (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    text TEXT NOT NULL,
    excerpt BOOLEAN NOT NULL,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cache_write_tokens BIGINT NOT NULL,
    cache_read_tokens BIGINT NOT NULL,
    created TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE context_runs (
    id BIGSERIAL PRIMARY KEY,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    path TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    requests BIGINT NOT NULL,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cache_write_tokens BIGINT NOT NULL,
    cache_read_tokens BIGINT NOT NULL,
    hits BIGINT NOT NULL,
    misses BIGINT NOT NULL,
    fallbacks BIGINT NOT NULL,
    excerpted BIGINT NOT NULL,
    cost DOUBLE PRECISION NOT NULL
);
CREATE TABLE watched_folders (
    computer TEXT NOT NULL,
    path TEXT NOT NULL,
    added TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (computer, path)
);
CREATE TABLE failures (
    computer TEXT NOT NULL,
    path TEXT NOT NULL,
    mtime BIGINT NOT NULL,
    size BIGINT NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (computer, path)
);
CREATE TABLE changes (
    seq BIGSERIAL PRIMARY KEY,
    doc_id BIGINT NOT NULL,
    removed BOOLEAN NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);
"#,
    r#"
-- The words of each chunk for the server's full-text ranking (crate::fulltext): the heading chain,
-- the context and the text, kept in step by PostgreSQL itself.
ALTER TABLE chunks ADD COLUMN words tsvector GENERATED ALWAYS AS (
    to_tsvector('english'::regconfig, parent_chain || ' ' || context || ' ' || content)
) STORED;
CREATE INDEX chunks_words ON chunks USING gin (words);
"#,
];

/// Brings the schema to [`SCHEMA_VERSION`] (see the module note); the database needs pgvector.
pub(crate) fn migrate(server: &Server) -> Result<(), IndexError> {
    let current = |c: &mut postgres::Client| -> Result<Option<i64>, postgres::Error> {
        let exists: bool = c.query_one("SELECT to_regclass('folio_schema') IS NOT NULL", &[])?.get(0);
        if !exists {
            return Ok(None);
        }
        Ok(c.query_opt("SELECT version FROM folio_schema", &[])?.map(|r| r.get(0)))
    };
    // Most opens find the schema current: a read settles it (a read-only role can open too).
    if let Some(v) = server.read(current)? {
        return check_version(v, server);
    }
    ensure_pgvector(server)?;
    let newer = server.write(|tx| {
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS folio_schema (version BIGINT NOT NULL)")?;
        let version: Option<i64> = tx.query_opt("SELECT version FROM folio_schema", &[])?.map(|r| r.get(0));
        let version = version.unwrap_or(0);
        if version > SCHEMA_VERSION {
            return Ok(Some(version));
        }
        for sql in MIGRATIONS.iter().skip(version as usize) {
            tx.batch_execute(sql)?;
        }
        tx.execute("DELETE FROM folio_schema", &[])?;
        tx.execute("INSERT INTO folio_schema (version) VALUES ($1)", &[&SCHEMA_VERSION])?;
        Ok(None)
    })?;
    match newer {
        Some(v) => check_version(v, server),
        None => Ok(()),
    }
}

/// pgvector in the database: there already (an administrator ran `CREATE EXTENSION vector`), or
/// made now where this role may; else the database is not ready, and the error says what to run.
fn ensure_pgvector(server: &Server) -> Result<(), IndexError> {
    let present: bool = server.read(|c| {
        Ok(c.query_one("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')", &[])?.get(0))
    })?;
    if present {
        return Ok(());
    }
    server.write(|tx| tx.batch_execute("CREATE EXTENSION IF NOT EXISTS vector")).map_err(|e| IndexError::Server {
        failure: ServerFailure::Unprepared,
        message: format!(
            "the team library's database {} has no pgvector, and this role cannot add it ({e}): an administrator runs `CREATE EXTENSION vector;` in it once",
            server.address().shown()
        ),
    })
}

fn check_version(version: i64, server: &Server) -> Result<(), IndexError> {
    if version > SCHEMA_VERSION {
        return Err(IndexError::Newer(format!(
            "the team library {} has schema version {version}, written by a later Folio; this Folio knows versions up to {SCHEMA_VERSION}: update Folio to open it",
            server.address().shown()
        )));
    }
    if version < SCHEMA_VERSION {
        // A read-only role cannot bring an older schema up to date: someone who may write must
        // open the library once with this Folio.
        return migrate_as_writer(server);
    }
    Ok(())
}

fn migrate_as_writer(server: &Server) -> Result<(), IndexError> {
    server
        .write(|tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
            let version: i64 = tx.query_one("SELECT version FROM folio_schema", &[])?.get(0);
            for sql in MIGRATIONS.iter().skip(version.max(0) as usize) {
                tx.batch_execute(sql)?;
            }
            tx.execute("UPDATE folio_schema SET version = $1", &[&SCHEMA_VERSION])?;
            Ok(())
        })
        .map_err(|e| match e.server_failure() {
            Some(ServerFailure::ReadOnly) => IndexError::Server {
                failure: ServerFailure::Unprepared,
                message: format!(
                    "the team library {} has an older schema, which a role that may only read cannot update: someone who may write must open it once with this Folio",
                    server.address().shown()
                ),
            },
            _ => e,
        })
}
