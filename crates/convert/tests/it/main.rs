//! The integration tests of `folio-convert`, in one test binary (each file a module), so that
//! the crate and its dependencies are linked once for all of them.
//!
//! Tests that need the native assets or the shared test data are `#[ignore = "needs …"]`: a plain
//! `cargo test` reports them as ignored; `scripts/test.sh` runs them with `--include-ignored`.

mod bad_files;
mod common;
mod formats;
mod ocr;
mod pdf_synthetic;
mod shared;
mod snapshots_fixtures;
mod uslm;
