//! Folio's core: the document model and everything derived from it, pure and synchronous.
pub mod model;
pub mod numbering;
pub mod plaintext;
