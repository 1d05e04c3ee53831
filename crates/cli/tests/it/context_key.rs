//! `folio ingest --context anthropic` end to end against a local Messages API server, with the key
//! in ANTHROPIC_API_KEY and HOME pointed at a scratch folder: the run prints its estimate and usage,
//! a second run asks nothing, and afterwards the key is in no file under HOME (library, config,
//! caches) and in nothing the command printed. Skips when `.assets/potion-base-2M` is absent.

use folio_testkit::files::files_containing;
use folio_testkit::http::{anthropic_answer, Reply, Server};
use std::path::{Path, PathBuf};
use std::process::Command;

const KEY: &str = "sk-ant-cli-test-b6e1d0c4-NEVER-ON-DISK";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
#[ignore = "needs .assets (scripts/setup-assets.sh); scripts/test.sh runs it"]
fn the_key_is_nowhere_on_disk_or_in_output() {
    for a in ["potion-base-2M/model.safetensors", "minilm/vocab.txt"] {
        folio_testkit::paths::require_asset(a);
    }
    let server = Server::start(|_, _| Reply::ok(anthropic_answer("A context from the test server.", 0, 0)));
    let home = tempfile::tempdir().unwrap();
    let docs = home.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::copy(root().join("tests/fixtures/rulebook.txt"), docs.join("HAR_rules.txt")).unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_folio"))
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path().join(".local/share"))
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("XDG_CACHE_HOME", home.path().join(".cache"))
            .env("ANTHROPIC_API_KEY", KEY)
            .env("FOLIO_ASSETS_DIR", folio_testkit::paths::assets_dir())
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .args(["--model", "fast", "ingest", "--context", "anthropic", "--context-url", &server.url])
            .arg(&docs)
            .output()
            .unwrap()
    };
    let first = run();
    let out = String::from_utf8_lossy(&first.stdout).to_string() + &String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{out}");
    assert!(out.contains("context estimate:"), "{out}");
    assert!(out.contains("context usage"), "{out}");
    let asked = server.requests().len();
    assert!(asked > 0);
    let second = run();
    assert!(second.status.success());
    assert_eq!(server.requests().len(), asked, "the second run asks the LLM nothing");
    let out2 = String::from_utf8_lossy(&second.stdout).to_string() + &String::from_utf8_lossy(&second.stderr);
    for text in [&out, &out2] {
        assert!(!text.contains(KEY), "the key was printed: {text}");
    }
    let leaked = files_containing(home.path(), KEY.as_bytes());
    assert!(leaked.is_empty(), "the key is on disk: {leaked:?}");
    assert!(
        home.path().join(".local/share/folio/library/catalog.sqlite").is_file(),
        "the library is where the grep looked"
    );
}
