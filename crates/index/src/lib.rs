//! Folio's library storage: the SQLite [`catalog`] (source of truth), the tantivy [`keyword`] index,
//! the in-memory [`exact`] index and the dense [`vectors`] (LanceDB, with an in-RAM twin for tests).
//!
//! ```
//! use folio_index::keyword::{KeywordDoc, KeywordFilter, KeywordIndex};
//! let mut k = KeywordIndex::in_memory().unwrap();
//! k.put_document(1, &[KeywordDoc { chunk_id: 7, doc_id: 1, chunk_type: "content", text: "Rule 2.1.3 applies.", headings: "GEN" }]).unwrap();
//! k.commit().unwrap();
//! assert_eq!(k.search("2.1.3", 5, &KeywordFilter::default()).unwrap()[0].0, 7);
//! ```

pub mod catalog;
pub mod exact;
pub mod keyword;
pub mod shared;
pub mod vectors;

mod creation;
mod error;

pub use error::{IndexError, ServerFailure};
