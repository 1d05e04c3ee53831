//! Several processes opening one new library at the same moment (the desktop app and a CLI ingest
//! started together, two ingests): each must open it, none may meet another's half-made catalog,
//! keyword index or vector table ("table documents already exists", "Table … was not found"), and
//! nothing may be reported as damaged. Before the catalog's migration took its write lock first
//! and the stores' creation was serialised, three processes failed in 12 to 15 of 20 tries.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Processes per try, and tries (each on a new library).
const PROCESSES: usize = 4;
const TRIES: usize = 12;

fn start(lib: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .arg("docs")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("folio starts")
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn processes_opening_one_new_library_at_once_all_open_it() {
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for t in 0..TRIES {
        let lib = tmp.path().join(format!("library-{t}"));
        // Started back to back; each opens the library within milliseconds of the others.
        let children: Vec<Child> = (0..PROCESSES).map(|_| start(&lib)).collect();
        for (p, child) in children.into_iter().enumerate() {
            let out = child.wait_with_output().unwrap();
            if !out.status.success() {
                failures
                    .push(format!("try {t}, process {p}: {}", String::from_utf8_lossy(&out.stderr).trim()));
            }
        }
        // The library they made together is whole: it opens and lists no documents.
        let out = start(&lib).wait_with_output().unwrap();
        assert!(out.status.success(), "reopening try {t}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(
        failures.is_empty(),
        "{} of {} opens failed:\n{}",
        failures.len(),
        PROCESSES * TRIES,
        failures.join("\n")
    );
}
