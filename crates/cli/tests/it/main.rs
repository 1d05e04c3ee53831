//! The integration tests of `folio-cli`, in one test binary (each file a module), so that
//! the crate and its dependencies are linked once for all of them.
//!
//! Tests that need the native assets or the shared test data are `#[ignore = "needs …"]`: a plain
//! `cargo test` reports them as ignored; `scripts/test.sh` runs them with `--include-ignored`.

mod context_key;
mod corruption;
mod limits;
mod mcp;
mod open_race;
mod refused;
mod shared;
mod ui_samples;
