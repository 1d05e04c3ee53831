//! AI assistants: the library they may read over the Model Context Protocol, when the user allows
//! it (the desktop app started as `folio-desktop mcp`; see `folio-mcp`).

use crate::settings::saved_settings;
use crate::workspace::open_library;
use crate::{EngineError, Environment, Library};
use folio_ai::keys::ApiKeys;
use std::path::Path;

/// The library the settings at `settings_path` name, for an AI assistant (the app started as
/// `folio-desktop mcp`): refused unless the user allowed assistants in Settings. It opens as the
/// desktop's second processes do, beside a running app.
pub fn open_for_assistant(settings_path: &Path, env: &Environment) -> Result<Library, EngineError> {
    let s = saved_settings(settings_path);
    if !s.assistants {
        return Err(EngineError::Invalid(
            "AI assistants may not read this library: turn on \"Let AI assistants read the library\" in Folio's Settings".into(),
        ));
    }
    open_library(&s, env, &ApiKeys::default())
}
