//! API keys through the OS keychain on this machine (the Secret Service when a session bus runs,
//! else the Linux kernel keyring): store, read, delete, and the environment as the fallback.

use folio_ai::keys::{ApiKeys, KeySource};

#[test]
#[ignore = "needs an OS keychain (a Secret Service on a session bus, or the kernel keyring); scripts/test.sh runs it"]
fn store_read_and_delete_a_key() {
    let keys = ApiKeys::new(&format!("folio-test-{}", std::process::id()));
    let status = keys.status("anthropic");
    println!("keychain: {}", status.keychain);
    assert!(status.keychain_available, "this machine has no usable keychain: {}", status.keychain);
    let secret = "sk-ant-keychain-test-31415926";
    let set = keys.set("anthropic", secret).expect("the keychain stores the key");
    assert!(set.set);
    assert_eq!(set.source, KeySource::Keychain);
    assert_eq!(keys.get("anthropic"), Some((secret.to_string(), KeySource::Keychain)));
    let removed = keys.remove("anthropic").unwrap();
    assert_ne!(removed.source, KeySource::Keychain);
    assert!(keys.get("anthropic").is_none_or(|(_, s)| s == KeySource::Environment));
    // Removing what is not there is fine.
    keys.remove("anthropic").unwrap();
}

#[test]
fn unknown_providers_and_empty_keys_are_refused() {
    let keys = ApiKeys::new("folio-test-refusals");
    assert!(keys.set("acme", "k").is_err());
    assert!(keys.set("openai", "   ").is_err());
}

#[test]
fn the_environment_is_the_fallback() {
    let keys = ApiKeys::new(&format!("folio-test-env-{}", std::process::id()));
    // OPENAI_API_KEY is read only by this test in this binary.
    std::env::set_var("OPENAI_API_KEY", "sk-from-env");
    assert_eq!(keys.get("openai"), Some(("sk-from-env".to_string(), KeySource::Environment)));
    let s = keys.status("openai");
    assert!(s.set && s.source == KeySource::Environment);
    std::env::remove_var("OPENAI_API_KEY");
    assert_eq!(keys.get("openai"), None);
}
