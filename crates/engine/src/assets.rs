//! Finding the pinned native assets (`.assets/` from `scripts/setup-assets.sh`).

use std::path::{Path, PathBuf};

/// Looks for `relative` under `$FOLIO_ASSETS_DIR`, then under `.assets/` in the working directory and
/// its ancestors, then beside the executable and its ancestors.
pub fn find(relative: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FOLIO_ASSETS_DIR").filter(|v| !v.is_empty()) {
        let p = Path::new(&dir).join(relative);
        if p.is_file() {
            return Some(p);
        }
    }
    let starts = [
        std::env::current_dir().ok(),
        std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)),
    ];
    for start in starts.into_iter().flatten() {
        for dir in start.ancestors() {
            let p = dir.join(".assets").join(relative);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}
