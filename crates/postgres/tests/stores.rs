//! The team library's stores against a real PostgreSQL with pgvector (`scripts/postgres.sh start`;
//! `FOLIO_TEST_POSTGRES` names it): the vector store passes the checks every vector store passes,
//! the catalog keeps documents as the SQLite one does, and the schema is made once when several
//! clients open a new library at the same moment.

use folio_index::catalog::Catalog;
use folio_index::vectors::{conformance, VectorStore};
use folio_postgres::testing::TestDatabase;
use folio_postgres::{PgCatalog, PgFullText, PgVectors};

#[test]
#[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn pgvector_store_passes_the_vector_store_checks() {
    let db = TestDatabase::create();
    let server = db.server();
    PgCatalog::open(server.clone(), "test").unwrap();
    let store = PgVectors::open(server.clone(), "test-model", 3).unwrap();
    conformance::exercise(&store);
    let again = PgVectors::open(server, "test-model", 3).unwrap();
    assert_eq!(again.len().unwrap(), 1, "the table is found again, not made anew");
}

#[test]
#[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn clients_opening_a_new_library_at_once_make_its_schema_once() {
    let db = TestDatabase::create();
    let url = db.url().to_string();
    let opened: Vec<Result<(), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..6)
            .map(|i| {
                let url = url.clone();
                s.spawn(move || {
                    let server = std::sync::Arc::new(
                        folio_postgres::Server::connect(folio_postgres::TeamAddress::parse(&url).unwrap())
                            .map_err(|e| e.to_string())?,
                    );
                    let catalog =
                        PgCatalog::open(server.clone(), &format!("client{i}")).map_err(|e| e.to_string())?;
                    PgVectors::open(server, "m", 8).map_err(|e| e.to_string())?;
                    catalog.documents().map(|_| ()).map_err(|e| e.to_string())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(opened.iter().all(Result::is_ok), "{opened:?}");
}

/// A document with the given chunks (type, text), straight into the tables; its id.
fn put_chunks(server: &folio_postgres::Server, label: &str, chunks: &[(&str, &str)]) -> i64 {
    server
        .write(|tx| {
            let doc: i64 = tx
                .query_one(
                    "INSERT INTO documents (path, label, title, format, content_hash, mtime, size, status, text)
                     VALUES ($1, $2, $2, 'text', $1, 0, 0, 'indexed', '') RETURNING id",
                    &[&format!("/{label}.txt"), &label],
                )?
                .get(0);
            for (i, (kind, text)) in chunks.iter().enumerate() {
                tx.execute(
                    "INSERT INTO chunks (doc_id, chunk_index, section_id, section_ids, parent_chain, heading_level,
                         chunk_type, span_start, span_end, content_hash, content, defined_terms)
                     VALUES ($1, $2, 's1', '[]', '[\"Part 1\"]', 1, $3, 0, 1, 'h', $4, '[]')",
                    &[&doc, &(i as i64), kind, text],
                )?;
            }
            Ok(doc)
        })
        .unwrap()
}

#[test]
#[ignore = "needs PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn the_servers_full_text_search_ranks_and_filters_chunks() {
    use folio_index::keyword::{KeywordFilter, KeywordRanker};
    let db = TestDatabase::create();
    let server = db.server();
    PgCatalog::open(server.clone(), "test").unwrap();
    let port = put_chunks(
        &server,
        "PORT",
        &[
            ("requirement", "A vessel must pay the mooring fee before it leaves the port."),
            ("definition", "Mooring means making a vessel fast to a quay."),
            ("paragraph", "The harbour master keeps the register of pilots."),
        ],
    );
    let other = put_chunks(&server, "FEES", &[("requirement", "Fees are paid to the Authority each year.")]);
    let text = PgFullText::new(server);
    let all = KeywordFilter::default();
    let ranked = |q: &str, f: &KeywordFilter| text.rank(q, 10, f).unwrap();

    // Both query words, stemmed ("fees" finds "fee"), rank first; a chunk with one of them follows.
    let hits = ranked("What mooring fees apply?", &all);
    assert!(hits.len() >= 3, "{hits:?}");
    assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1), "best first: {hits:?}");
    let ids: Vec<u64> = hits.iter().map(|h| h.0).collect();
    let first = db_chunk(&db, ids[0]);
    assert!(first.contains("mooring fee"), "{first}");
    assert!(!hits.iter().any(|h| db_chunk(&db, h.0).contains("harbour master")), "no query word there");

    // Filters: documents and chunk types.
    let only_other = KeywordFilter { docs: vec![other as u64], chunk_types: vec![] };
    assert_eq!(ranked("fees", &only_other).len(), 1);
    let definitions = KeywordFilter { docs: vec![port as u64], chunk_types: vec!["definition".into()] };
    let hits = ranked("mooring fees", &definitions);
    assert_eq!(hits.len(), 1);
    assert!(db_chunk(&db, hits[0].0).starts_with("Mooring means"));

    // The query never speaks tsquery's syntax; stop words alone or no words find nothing, calmly.
    assert!(!ranked("mooring & !fee | (vessel:* <-> 'quay')", &all).is_empty());
    assert!(ranked("the of and", &all).is_empty());
    assert!(ranked("?! ()", &all).is_empty());
    assert!(!ranked(&"mooring ".repeat(20_000), &all).is_empty(), "a pasted page is cut, not refused");
}

fn db_chunk(db: &TestDatabase, id: u64) -> String {
    db.server()
        .read(|c| {
            Ok(c.query_one("SELECT content FROM chunks WHERE id = $1", &[&(id as i64)])?.get::<_, String>(0))
        })
        .unwrap()
}
