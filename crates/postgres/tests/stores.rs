//! The team library's stores against a real PostgreSQL with pgvector (`scripts/postgres.sh start`;
//! `FOLIO_TEST_POSTGRES` names it): the vector store passes the checks every vector store passes,
//! the catalog keeps documents as the SQLite one does, and the schema is made once when several
//! clients open a new library at the same moment.

use folio_index::catalog::Catalog;
use folio_index::vectors::{conformance, VectorStore};
use folio_postgres::testing::TestDatabase;
use folio_postgres::{PgCatalog, PgVectors};

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
