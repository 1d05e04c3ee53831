//! Folio's core: the document model and everything derived from it, pure and synchronous.
pub mod analysis;
pub mod chunker;
pub mod context;
pub mod crossref;
pub mod definitions;
pub mod fusion;
pub mod model;
pub mod numbering;
pub mod outline;
pub mod plaintext;
pub mod query;
pub mod tokens;
