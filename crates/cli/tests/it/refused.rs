//! A store the operating system refuses to read is not "damaged": permission denied on the vector
//! folder says so, names the store and the folder, and does not send the user to `folio repair`
//! (which would mend nothing). Run as root, the CLI is started as `nobody` (root reads any folder),
//! from a copy of its binary that `nobody` may run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether this process runs as root (whose reads no permission bit refuses).
fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `folio --model fast --library LIB ARGS`, as `nobody` when this process is root.
fn folio(bin: &Path, lib: &Path, args: &[&str], as_nobody: bool) -> Output {
    let mut cmd = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
        .args(["--model", "fast", "--library"])
        .arg(lib)
        .args(args)
        .output()
        .expect("folio runs")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// Makes every file and folder under `dir` (and `dir`) belong to `nobody`.
fn give_to_nobody(dir: &Path) {
    let status = Command::new("chown").args(["-R", "65534:65534"]).arg(dir).status().unwrap();
    assert!(status.success(), "chown {}", dir.display());
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn permission_denied_on_the_vector_folder_is_not_damage() {
    folio_testkit::paths::require_asset("potion-base-2M/model.safetensors");
    let as_nobody = is_root();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // A copy of the binary that `nobody` may run (the build folder may be private to root).
    let bin = tmp.path().join("folio");
    std::fs::copy(env!("CARGO_BIN_EXE_folio"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let lib = tmp.path().join("library");
    let docs = tmp.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::copy(root().join("tests/fixtures/rulebook.txt"), docs.join("rulebook.txt")).unwrap();
    if as_nobody {
        give_to_nobody(tmp.path());
    }
    let o = folio(&bin, &lib, &["ingest", docs.to_str().unwrap()], as_nobody);
    assert!(o.status.success(), "ingest: {}", text(&o));

    let vectors = lib.join("vectors");
    std::fs::set_permissions(&vectors, std::fs::Permissions::from_mode(0o000)).unwrap();
    let o = folio(&bin, &lib, &["search", "Mooring Fee"], as_nobody);
    std::fs::set_permissions(&vectors, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "a vector store that cannot be read is not used silently: {t}");
    // Damage reads "… is damaged (…); Repair library (or `folio repair`) …".
    assert!(
        !t.to_lowercase().contains("repair") && !t.contains("is damaged ("),
        "a refusal is not damage: {t}"
    );
    assert!(
        t.contains("vector store") && t.contains(&lib.display().to_string()),
        "names the store and the library: {t}"
    );
    assert!(
        t.contains("permission is denied") && t.contains("nothing is damaged"),
        "says what was refused: {t}"
    );
    println!("permission denied on the vector folder → {}", t.lines().last().unwrap_or(""));

    // Once readable again, the library answers as before: nothing was damaged.
    let o = folio(&bin, &lib, &["search", "Mooring Fee"], as_nobody);
    assert!(o.status.success() && text(&o).contains("Mooring"), "{}", text(&o));
}
