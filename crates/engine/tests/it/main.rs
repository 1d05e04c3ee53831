//! The integration tests of `folio-engine`, in one test binary (each file a module), so that
//! the crate and its dependencies are linked once for all of them.
//!
//! Tests that need the native assets or the shared test data are `#[ignore = "needs …"]`: a plain
//! `cargo test` reports them as ignored; `scripts/test.sh` runs them with `--include-ignored`.

mod ahead;
mod bindings;
mod concurrent;
mod context;
mod cross_documents;
mod library;
mod lock;
mod open;
mod shared;
mod team;
mod watch;
