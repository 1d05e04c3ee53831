//! Where the repository, its assets and the shared test data are. The `require_*` functions
//! return a path that exists or fail the test, naming what is missing and how to get it: tests
//! that call them are `#[ignore = "needs …"]`, run by `scripts/test.sh` with `--include-ignored`.

use std::path::{Path, PathBuf};

/// The repository's root (where `Cargo.toml` of the workspace is).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository exists")
}

/// The native assets: `$FOLIO_ASSETS_DIR`, else the repository's `.assets`.
pub fn assets_dir() -> PathBuf {
    match std::env::var_os("FOLIO_ASSETS_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => repo_root().join(".assets"),
    }
}

/// The shared test data folder: `$FOLIO_SHARED_DIR`, else `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("FOLIO_SHARED_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => repo_root().join("../shared"),
    }
}

/// `rel` under the assets, or the test fails saying how to get it.
pub fn require_asset(rel: &str) -> PathBuf {
    let path = assets_dir().join(rel);
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup-assets.sh (scripts/test.sh does), or set FOLIO_ASSETS_DIR",
        path.display()
    );
    path
}

/// `rel` under the shared test data, or the test fails saying so.
pub fn require_shared(rel: &str) -> PathBuf {
    let path = shared_dir().join(rel);
    assert!(
        path.exists(),
        "{} is missing: this test needs the shared test data (../shared beside the repository, or \
         FOLIO_SHARED_DIR); scripts/test.sh leaves such tests out when it is absent",
        path.display()
    );
    path
}

/// PDFium: `$FOLIO_PDFIUM`, else the one in the assets; the test fails when neither exists.
pub fn require_pdfium() -> PathBuf {
    match std::env::var_os("FOLIO_PDFIUM").filter(|v| !v.is_empty()) {
        Some(p) => {
            let p = PathBuf::from(p);
            assert!(p.is_file(), "FOLIO_PDFIUM names {}, which does not exist", p.display());
            p
        }
        None => require_asset("pdfium/libpdfium.so"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_root_holds_the_workspace() {
        let root = repo_root();
        assert!(std::fs::read_to_string(root.join("Cargo.toml")).unwrap().contains("[workspace]"));
    }

    #[test]
    #[should_panic(expected = "run scripts/setup-assets.sh")]
    fn a_missing_asset_fails_the_test_saying_how_to_get_it() {
        require_asset("no-such-asset/at-all.bin");
    }

    #[test]
    #[should_panic(expected = "needs the shared test data")]
    fn missing_shared_data_fails_the_test_saying_so() {
        require_shared("data/no-such-folder-anywhere");
    }
}
