//! API keys and the team library's password, in the keychain: through an open workspace, or under
//! the settings saved at a path when no library could be opened (its password may be what is
//! missing).

use super::Workspace;
use crate::settings::saved_settings;
use crate::EngineError;
use folio_ai::keys::{ApiKeys, KeyStatus};
use std::path::Path;

impl Workspace {
    /// The keychain entry of `provider`: `postgres` stands for the team library the settings name
    /// (its password), filed under its address.
    fn entry(&self, provider: &str) -> Result<String, EngineError> {
        crate::settings::key_entry(&self.settings(), provider)
    }

    /// Where a provider's key comes from (never the key).
    pub fn key_status(&self, provider: &str) -> KeyStatus {
        match self.entry(provider) {
            Ok(entry) => self.keys.status(&entry),
            Err(_) => self.keys.status(provider),
        }
    }

    /// Saves a key in the keychain; the team library's password (`postgres`) opens it again with
    /// the password.
    pub fn set_key(&self, provider: &str, key: &str) -> Result<KeyStatus, EngineError> {
        let status = self.keys.set(&self.entry(provider)?, key)?;
        if provider == "postgres" {
            self.reopen()?;
        }
        Ok(status)
    }

    /// Deletes a key from the keychain.
    pub fn remove_key(&self, provider: &str) -> Result<KeyStatus, EngineError> {
        Ok(self.keys.remove(&self.entry(provider)?)?)
    }
}

/// Where a provider's key comes from, under the settings saved at `settings_path` (no library
/// open: the one the settings name could not be opened, and its password may be what is missing).
pub fn key_status_at(settings_path: &Path, provider: &str) -> Result<KeyStatus, EngineError> {
    let entry = crate::settings::key_entry(&saved_settings(settings_path), provider)?;
    Ok(ApiKeys::default().status(&entry))
}

/// Saves a key under the settings saved at `settings_path` (see [`key_status_at`]).
pub fn set_key_at(settings_path: &Path, provider: &str, key: &str) -> Result<KeyStatus, EngineError> {
    let entry = crate::settings::key_entry(&saved_settings(settings_path), provider)?;
    Ok(ApiKeys::default().set(&entry, key)?)
}

/// Deletes a key under the settings saved at `settings_path` (see [`key_status_at`]).
pub fn remove_key_at(settings_path: &Path, provider: &str) -> Result<KeyStatus, EngineError> {
    let entry = crate::settings::key_entry(&saved_settings(settings_path), provider)?;
    Ok(ApiKeys::default().remove(&entry)?)
}
