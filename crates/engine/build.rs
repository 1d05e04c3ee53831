//! Sets `FOLIO_SOURCE_ID`: a hash of the sources that compute the engine's lookup tables (the
//! engine's, the index's and the core's) and of the dependency versions. Tables saved by one build
//! are read back only by a build of the same sources (`library::lookups::saved`), whichever of
//! Folio's programs (the app, the CLI, the MCP server) saved them.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

const SOURCES: [&str; 3] = ["src", "../index/src", "../core/src"];
const LOCK: &str = "../../Cargo.lock";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut files = Vec::new();
    for dir in SOURCES {
        rust_files(&root.join(dir), &mut files);
        println!("cargo:rerun-if-changed={dir}");
    }
    files.sort();
    files.push(root.join(LOCK));
    println!("cargo:rerun-if-changed={LOCK}");
    let mut hash = DefaultHasher::new();
    for f in &files {
        f.strip_prefix(&root).unwrap_or(f).hash(&mut hash);
        // A file that cannot be read counts as empty: the id still changes with every other.
        std::fs::read(f).unwrap_or_default().hash(&mut hash);
    }
    println!("cargo:rustc-env=FOLIO_SOURCE_ID={:016x}", hash.finish());
}
