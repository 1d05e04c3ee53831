//! Folio's team library: one library that a team shares, its catalog and vectors in PostgreSQL
//! with pgvector.
//!
//! A folder library keeps a SQLite catalog, LanceDB vectors and a tantivy keyword index on one
//! computer. A team library keeps the catalog ([`PgCatalog`], the same rows, the same
//! [`folio_index::catalog::Catalog`] trait) and the vectors ([`PgVectors`], a
//! [`folio_index::vectors::VectorStore`], HNSW-indexed) on a PostgreSQL server that every member's
//! Folio connects to. PostgreSQL ranks no hybrid search by itself the way Folio fuses it: the
//! keyword channel comes from a tantivy index that each client keeps as a cache, kept in step from
//! the catalog's change sequence ([`PgCatalog::changes_since`]), or, where a client chooses, from
//! the server's own full-text search ([`PgFullText`]); the exact channel is built from the catalog
//! as for a folder. The engine fuses them.
//!
//! A tour:
//! - [`TeamAddress`]: `postgres://user@host:port/db?sslmode=verify-full&sslrootcert=ca.pem`, with
//!   several hosts for a primary and its replicas; the password kept apart (keychain, `PGPASSWORD`).
//! - [`Server`]: reading connections to any live host, a writing one to the primary, made again
//!   when lost (a failover), TLS as libpq's `sslmode` means it.
//! - The schema ([`SCHEMA_VERSION`]) is migrated under an advisory lock, so two clients opening a
//!   new library at once do not both create it; a document is put in one transaction, and the same
//!   file put from two computers is one document.
//!
//! ```no_run
//! use folio_index::catalog::Catalog;
//! use folio_postgres::{PgCatalog, Server, TeamAddress};
//! use std::sync::Arc;
//!
//! let address = TeamAddress::parse("postgres://analyst@127.0.0.1:5432/folio")?;
//! let server = Arc::new(Server::connect(address)?);
//! let catalog = PgCatalog::open(server, "my-laptop")?;
//! for d in catalog.documents()? {
//!     println!("{} {}", d.label, d.title);
//! }
//! # Ok::<(), folio_index::IndexError>(())
//! ```

mod address;
mod catalog;
mod error;
mod fulltext;
mod schema;
mod server;
pub mod testing;
mod tls;
mod vectors;

pub use address::{TeamAddress, TlsMode};
pub use catalog::PgCatalog;
pub use fulltext::PgFullText;
pub use schema::SCHEMA_VERSION;
pub use server::Server;
pub use vectors::{ef_search_for, PgVectors, EF_SEARCH};
