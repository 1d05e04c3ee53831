//! The catalog's schema: one migration per version, applied in order when a catalog opens.

/// The current schema version.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

pub(super) const MIGRATIONS: [&str; 6] = [
    r#"
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    title TEXT NOT NULL,
    format TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    mtime INTEGER NOT NULL,
    size INTEGER NOT NULL,
    page_count INTEGER,
    status TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE sections (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    number TEXT,
    title TEXT NOT NULL,
    heading TEXT NOT NULL,
    level INTEGER NOT NULL,
    parent_ord INTEGER,
    page_start INTEGER, page_end INTEGER,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    PRIMARY KEY (doc_id, ord)
);
CREATE INDEX sections_by_id ON sections(doc_id, section_id);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    section_ids TEXT NOT NULL,
    parent_chain TEXT NOT NULL,
    heading_level INTEGER NOT NULL,
    chunk_type TEXT NOT NULL,
    page_start INTEGER, page_end INTEGER,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    content TEXT NOT NULL,
    context TEXT NOT NULL DEFAULT '',
    defined_terms TEXT NOT NULL
);
CREATE INDEX chunks_by_doc ON chunks(doc_id, chunk_index);
CREATE TABLE definitions (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    term TEXT NOT NULL,
    key TEXT NOT NULL,
    text TEXT NOT NULL,
    section_id TEXT NOT NULL,
    scope_section TEXT,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL
);
CREATE INDEX definitions_by_key ON definitions(key);
CREATE TABLE refs (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    label TEXT NOT NULL,
    from_section TEXT NOT NULL,
    target_section TEXT,
    document TEXT,
    container TEXT,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    target_doc_id INTEGER,
    target_doc_section TEXT
);
CREATE INDEX refs_by_from ON refs(doc_id, from_section);
CREATE INDEX refs_by_target ON refs(target_doc_id, target_doc_section);
"#,
    r#"
ALTER TABLE chunks ADD COLUMN context_source TEXT NOT NULL DEFAULT 'none';
ALTER TABLE documents ADD COLUMN context_mode TEXT NOT NULL DEFAULT 'none';
CREATE TABLE context_cache (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    text TEXT NOT NULL,
    excerpt INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE context_runs (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    path TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    requests INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    misses INTEGER NOT NULL,
    fallbacks INTEGER NOT NULL,
    excerpted INTEGER NOT NULL,
    cost REAL NOT NULL
);
"#,
    r#"
CREATE TABLE watched_folders (
    path TEXT PRIMARY KEY,
    added INTEGER NOT NULL
);
CREATE TABLE failures (
    path TEXT PRIMARY KEY,
    mtime INTEGER NOT NULL,
    size INTEGER NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    at INTEGER NOT NULL
);
"#,
    r#"
CREATE TABLE tables (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    header_rows INTEGER NOT NULL
);
CREATE INDEX tables_by_doc ON tables(doc_id, span_start);
"#,
    r#"
ALTER TABLE documents ADD COLUMN user_title TEXT;
"#,
    // The change stamp: a random number drawn again by every change to what the engine's lookup tables
    // are computed from, so that tables saved with one stamp are known to be the catalog's as long
    // as it holds that stamp (a catalog restored from a copy and changed since draws new ones).
    r#"
CREATE TABLE changes (stamp INTEGER NOT NULL);
INSERT INTO changes VALUES (random());
CREATE TRIGGER changes_documents_insert AFTER INSERT ON documents BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_documents_update AFTER UPDATE ON documents BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_documents_delete AFTER DELETE ON documents BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_sections_insert AFTER INSERT ON sections BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_sections_update AFTER UPDATE ON sections BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_sections_delete AFTER DELETE ON sections BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_chunks_insert AFTER INSERT ON chunks BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_chunks_update AFTER UPDATE ON chunks BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_chunks_delete AFTER DELETE ON chunks BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_definitions_insert AFTER INSERT ON definitions BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_definitions_update AFTER UPDATE ON definitions BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_definitions_delete AFTER DELETE ON definitions BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_refs_insert AFTER INSERT ON refs BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_refs_update AFTER UPDATE ON refs BEGIN UPDATE changes SET stamp = random(); END;
CREATE TRIGGER changes_refs_delete AFTER DELETE ON refs BEGIN UPDATE changes SET stamp = random(); END;
"#,
];
