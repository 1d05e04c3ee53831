//! The UI's TypeScript types (`ui/src/backend/bindings.ts`) are generated from the Rust types; this
//! fails when they drift. `FOLIO_BLESS=1 cargo test -p folio-engine --test it bindings` rewrites the file.

use std::path::Path;

#[test]
fn typescript_bindings_are_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/backend/bindings.ts");
    let want = folio_engine::bindings::typescript();
    folio_testkit::generated::check_or_bless(
        &path,
        want.as_bytes(),
        "the Rust types",
        "FOLIO_BLESS=1 cargo test -p folio-engine --test it bindings",
    );
}

#[test]
fn every_type_the_ui_names_is_generated() {
    let ts = folio_engine::bindings::typescript();
    for name in [
        "Hit",
        "Crumb",
        "ChannelRank",
        "Span",
        "PageRange",
        "SearchRequest",
        "SectionView",
        "TermMark",
        "LinkMark",
        "SectionRow",
        "Outline",
        "DocumentRow",
        "Backlinks",
        "RefRow",
        "DefinitionHit",
        "Progress",
        "Stage",
        "IngestReport",
        "IngestFailure",
        "DocumentSummary",
        "DocumentStats",
        "Settings",
        "Weights",
        "SettingsChange",
        "BackendError",
        "KeyStatus",
        "PageImage",
    ] {
        assert!(ts.contains(&format!("export type {name} = ")), "{name} missing:\n{ts}");
    }
    assert!(!ts.contains("unknown"), "a type the generator does not understand:\n{ts}");
}
