//! What Folio's tests share, so that no test file copies it:
//!
//! - [`paths`]: the repository, its native assets (`.assets`, made by `scripts/setup-assets.sh`)
//!   and the shared test data (`../shared`). A test that needs them is marked
//!   `#[ignore = "needs …"]`, so that a plain `cargo test` counts it as ignored, never as passed;
//!   `scripts/test.sh` runs it with `--include-ignored` after the set-up, and there a missing file
//!   fails it, saying what is missing and how to get it.
//! - [`http`]: a loopback HTTP/1.1 server for the LLM and embedding clients' tests.
//! - [`pdf`]: PDF files written from their objects, for converter and limit tests.
//! - [`files`]: files under a folder, and those containing some bytes (a key must be in none).
//! - [`embedder`]: a deterministic, model-free embedder (the hashing trick), and [`library`]: a
//!   temporary library embedded with it — the engine end to end without `.assets`.
//!
//! ```
//! let root = folio_testkit::paths::repo_root();
//! assert!(root.join("Cargo.toml").is_file());
//! let pdf = folio_testkit::pdf::pdf_from_objects(&["<< /Type /Catalog >>".into()], "");
//! assert!(pdf.starts_with(b"%PDF-"));
//! ```

pub mod embedder;
pub mod files;
pub mod generated;
pub mod http;
pub mod library;
pub mod paths;
pub mod pdf;
