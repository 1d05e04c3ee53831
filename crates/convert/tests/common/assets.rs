//! What a test does when something it needs is missing: fails saying what and how to get it, or,
//! with `FOLIO_ALLOW_MISSING_ASSETS=1` (machines known to lack it), prints `SKIP: …` and lets the
//! test return.

/// `Some(())` when nothing is missing; `None` after printing `SKIP` when `missing` says what is and
/// skipping is allowed; panics otherwise.
pub fn require(missing: Option<String>) -> Option<()> {
    match missing {
        None => Some(()),
        Some(why) if std::env::var_os("FOLIO_ALLOW_MISSING_ASSETS").is_some() => {
            eprintln!("SKIP: {why}");
            None
        }
        Some(why) => panic!("{why}; set FOLIO_ALLOW_MISSING_ASSETS=1 to skip"),
    }
}
