//! Checked-in files generated from the code (the UI's TypeScript bindings, its sample library): a
//! test compares the file with what the code makes now and fails on drift, naming the command
//! that rewrites it; with `FOLIO_BLESS` set it writes the file instead.

use std::path::Path;

/// Fails when `path` does not hold `want` (saying `why` it is out of date and that `command`
/// rewrites it), or writes `want` there when `FOLIO_BLESS` is set.
pub fn check_or_bless(path: &Path, want: &[u8], why: &str, command: &str) {
    if std::env::var_os("FOLIO_BLESS").is_some() {
        std::fs::write(path, want).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let have = std::fs::read(path).unwrap_or_default();
    assert!(have == want, "{} is out of date with {why}: run {command}", path.display());
}
