//! API keys in the OS keychain, with the provider's environment variable as a fallback.
//!
//! Keys live in the Secret Service (GNOME Keyring, KWallet) on Linux, with the kernel keyring as
//! its cache, in the Keychain on macOS and the Credential Manager on Windows, through the `keyring`
//! crate. Where Linux has no Secret Service (a headless session, no D-Bus), the kernel keyring alone
//! holds the key, and [`KeyStatus::keychain`] says that it lasts until the session ends. Keys are
//! never written to a file, a log or an error message by this module: errors carry the keychain's
//! message, which never contains the secret.

use serde::Serialize;

use crate::AiError;

/// The keychain service name Folio's entries are filed under.
pub const SERVICE: &str = "folio";

/// Where a key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// The key is in the OS keychain.
    Keychain,
    /// The key comes from the provider's environment variable ([`env_var`]).
    Environment,
    /// No key is set.
    None,
}

/// What is known about a provider's key, without the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct KeyStatus {
    /// The provider: `anthropic` or `openai`.
    pub provider: String,
    /// Whether a key is set, in the keychain or the environment.
    pub set: bool,
    /// Where the key comes from ([`KeySource::None`] when none is set).
    pub source: KeySource,
    /// Whether a keychain can store keys on this machine.
    pub keychain_available: bool,
    /// Which keychain, in words ("Secret Service", "Linux kernel keyring (until logout)", …), or
    /// why there is none.
    pub keychain: String,
}

/// The environment variable that holds a provider's key, as the official SDKs read it.
pub fn env_var(provider: &str) -> Option<&'static str> {
    match provider {
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        "openai" => Some("OPENAI_API_KEY"),
        // A team library's password, as libpq reads it.
        p if p.starts_with(TEAM_LIBRARY) => Some("PGPASSWORD"),
        _ => None,
    }
}

/// The prefix of a team library's entry: `postgres:` and the library's key
/// (`user@host:port/database`), whose secret is the role's password.
pub const TEAM_LIBRARY: &str = "postgres:";

/// Keys of the context and embedding providers.
#[derive(Debug, Clone)]
pub struct ApiKeys {
    service: String,
}

impl Default for ApiKeys {
    fn default() -> Self {
        ApiKeys::new(SERVICE)
    }
}

impl ApiKeys {
    /// Keys filed under `service` (tests use their own).
    pub fn new(service: &str) -> ApiKeys {
        ApiKeys { service: service.to_string() }
    }

    fn check(provider: &str) -> Result<(), AiError> {
        env_var(provider).map(|_| ()).ok_or_else(|| {
            AiError::Config(format!(
                "unknown provider '{provider}' (anthropic, openai or a team library's postgres:// address)"
            ))
        })
    }

    /// The key: from the keychain, else from the environment.
    pub fn get(&self, provider: &str) -> Option<(String, KeySource)> {
        if let Ok(Some(k)) = store::get(&self.service, provider) {
            return Some((k, KeySource::Keychain));
        }
        let var = env_var(provider)?;
        std::env::var(var).ok().filter(|k| !k.trim().is_empty()).map(|k| (k, KeySource::Environment))
    }

    /// Saves a key in the keychain.
    pub fn set(&self, provider: &str, key: &str) -> Result<KeyStatus, AiError> {
        Self::check(provider)?;
        let key = key.trim();
        if key.is_empty() {
            return Err(AiError::Config("the key is empty".into()));
        }
        store::set(&self.service, provider, key).map_err(|e| AiError::Keychain(e.to_string()))?;
        Ok(self.status(provider))
    }

    /// Deletes the key from the keychain (the environment is left alone).
    pub fn remove(&self, provider: &str) -> Result<KeyStatus, AiError> {
        Self::check(provider)?;
        store::remove(&self.service, provider).map_err(|e| AiError::Keychain(e.to_string()))?;
        Ok(self.status(provider))
    }

    /// Where the key would come from, and which keychain there is.
    pub fn status(&self, provider: &str) -> KeyStatus {
        let (keychain_available, keychain) = store::describe();
        let (set, source) = match self.get(provider) {
            Some((_, s)) => (true, s),
            None => (false, KeySource::None),
        };
        KeyStatus { provider: provider.to_string(), set, source, keychain_available, keychain }
    }
}

#[cfg(target_os = "linux")]
mod store {
    //! Secret Service with the kernel keyring as cache; the kernel keyring alone without D-Bus.
    use keyring::keyutils::KeyutilsCredential;
    use keyring::{Entry, Error};

    fn persistent(service: &str, user: &str) -> Result<Entry, Error> {
        Entry::new(service, user)
    }

    fn kernel(service: &str, user: &str) -> Result<Entry, Error> {
        KeyutilsCredential::new_with_target(None, service, user)
            .map(|c| Entry::new_with_credential(Box::new(c)))
    }

    fn secret_service_reachable() -> bool {
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
            || std::env::var_os("XDG_RUNTIME_DIR")
                .is_some_and(|d| std::path::Path::new(&d).join("bus").exists())
    }

    pub fn get(service: &str, user: &str) -> Result<Option<String>, Error> {
        // The kernel keyring caches what the Secret Service holds; ask it first (no D-Bus round trip).
        match kernel(service, user)?.get_password() {
            Ok(k) => return Ok(Some(k)),
            Err(Error::NoEntry) => {}
            Err(e) if !secret_service_reachable() => return Err(e),
            Err(_) => {}
        }
        if !secret_service_reachable() {
            return Ok(None);
        }
        match persistent(service, user)?.get_password() {
            Ok(k) => Ok(Some(k)),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn set(service: &str, user: &str, key: &str) -> Result<(), Error> {
        if secret_service_reachable() {
            match persistent(service, user)?.set_password(key) {
                Ok(()) => return Ok(()),
                Err(Error::NoStorageAccess(_)) | Err(Error::PlatformFailure(_)) => {}
                Err(e) => return Err(e),
            }
        }
        kernel(service, user)?.set_password(key)
    }

    pub fn remove(service: &str, user: &str) -> Result<(), Error> {
        let k = match kernel(service, user)?.delete_credential() {
            Ok(()) | Err(Error::NoEntry) => Ok(()),
            Err(e) => Err(e),
        };
        if secret_service_reachable() {
            match persistent(service, user)?.delete_credential() {
                Ok(())
                | Err(Error::NoEntry)
                | Err(Error::NoStorageAccess(_))
                | Err(Error::PlatformFailure(_)) => {}
                Err(e) => return Err(e),
            }
        }
        k
    }

    pub fn describe() -> (bool, String) {
        if secret_service_reachable() {
            (true, "Secret Service (GNOME Keyring / KWallet)".into())
        } else {
            match kernel("folio-probe", "probe").and_then(|e| match e.get_password() {
                Ok(_) | Err(Error::NoEntry) => Ok(()),
                Err(e) => Err(e),
            }) {
                Ok(()) => (
                    true,
                    "Linux kernel keyring (no Secret Service running: the key lasts until logout)".into(),
                ),
                Err(e) => (false, format!("no keychain available ({e}); using the environment variable")),
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod store {
    //! The platform's keychain (Keychain, Credential Manager).
    use keyring::{Entry, Error};

    pub fn get(service: &str, user: &str) -> Result<Option<String>, Error> {
        match Entry::new(service, user)?.get_password() {
            Ok(k) => Ok(Some(k)),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn set(service: &str, user: &str, key: &str) -> Result<(), Error> {
        Entry::new(service, user)?.set_password(key)
    }

    pub fn remove(service: &str, user: &str) -> Result<(), Error> {
        match Entry::new(service, user)?.delete_credential() {
            Ok(()) | Err(Error::NoEntry) => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub fn describe() -> (bool, String) {
        (
            true,
            if cfg!(target_os = "macos") {
                "macOS Keychain".into()
            } else {
                "Windows Credential Manager".into()
            },
        )
    }
}
