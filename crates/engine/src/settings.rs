//! The user's settings: a JSON file in the config folder that never holds a key, read with
//! defaults for what it lacks.

use std::path::Path;
use std::sync::RwLock;

use folio_core::fusion::{FusionConfig, FusionMethod};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::assets::EmbeddingModel;
use crate::ContextProvider;

/// The user's settings. Saved as JSON in the config folder; keys are never part of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Settings {
    /// The library's folder.
    pub library_dir: String,
    /// The local embedding model.
    pub model: EmbeddingModel,
    /// Who writes each chunk's context.
    pub context_provider: ContextProvider,
    /// The Claude model for Anthropic contexts.
    pub anthropic_model: String,
    /// The OpenAI-compatible server's address (`…/v1`).
    pub openai_base_url: String,
    /// The model the OpenAI-compatible server is asked for.
    pub openai_model: String,
    /// How the channels' hits are combined: by their scores (the default) or by Reciprocal Rank
    /// Fusion. Settings saved before there was a choice used RRF ([`saved_settings`] moves them on
    /// when they kept its default weights).
    #[serde(default = "rrf")]
    pub fusion: FusionMethod,
    /// Reciprocal Rank Fusion's k (60 by default; RRF only).
    pub rrf_k: f32,
    /// The channels' weights in the fusion.
    pub weights: Weights,
    /// Whether PDF pages without a text layer (scans) are read with OCR when ingested.
    #[serde(default = "yes")]
    pub ocr: bool,
    /// A team library on PostgreSQL, when the user chose one over the folder (`None`: the folder
    /// [`Settings::library_dir`]). Its password is in the OS keychain, never here.
    #[serde(default)]
    pub team_library: Option<TeamLibrarySettings>,
    /// Whether AI assistants may read the library over the Model Context Protocol (the app
    /// started as `folio-desktop mcp` by an assistant). Off until the user turns it on.
    #[serde(default)]
    pub assistants: bool,
}

/// How an AI assistant starts Folio's MCP server: what to paste into its MCP configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AssistantSnippet {
    /// The program the assistant runs.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The whole entry as Claude Desktop's `claude_desktop_config.json` and most MCP clients take
    /// it (`{"mcpServers": {"folio": {...}}}`), pretty-printed.
    pub config: String,
}

impl AssistantSnippet {
    /// The snippet for `program` started with `args` (the desktop app with `["mcp"]`: it serves the
    /// library its settings name, so the snippet stays right when the user switches libraries).
    pub fn new(program: &Path, args: &[&str]) -> AssistantSnippet {
        let command = program.display().to_string();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let config = serde_json::json!({ "mcpServers": { "folio": { "command": command, "args": args } } });
        AssistantSnippet { command, args, config: serde_json::to_string_pretty(&config).unwrap_or_default() }
    }
}

/// Where a team library is, as the Settings ask it (see [`TeamLibrarySettings::address`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamLibrarySettings {
    /// The server's host name, or several `host:port`, comma-separated (a primary and its
    /// replicas).
    pub host: String,
    /// The port of a host given without one.
    pub port: u16,
    /// The database.
    pub database: String,
    /// The user (role) to log in as.
    pub user: String,
    /// TLS: `disable`, `prefer`, `require`, `verify-ca` or `verify-full`.
    pub tls: String,
    /// The certificate authority's file for `verify-ca` and `verify-full` (empty: the web's roots).
    #[serde(default)]
    pub root_cert: String,
    /// Where the keyword channel ranks: a BM25 cache on this computer, or the server's full-text
    /// search.
    #[serde(default)]
    pub keywords: crate::TeamKeywords,
}

impl TeamLibrarySettings {
    /// The library's address (`postgres://user@host:port/database?sslmode=…`), without a password.
    pub fn address(&self) -> String {
        let hosts: Vec<String> = self
            .host
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(|h| if h.contains(':') { h.to_string() } else { format!("{h}:{}", self.port) })
            .collect();
        let mut a = format!(
            "postgres://{}@{}/{}?sslmode={}",
            self.user.trim(),
            hosts.join(","),
            self.database.trim(),
            self.tls
        );
        if !self.root_cert.trim().is_empty() {
            a.push_str("&sslrootcert=");
            a.push_str(&self.root_cert.trim().replace('%', "%25").replace(' ', "%20").replace('&', "%26"));
        }
        a
    }
}

fn yes() -> bool {
    true
}

fn rrf() -> FusionMethod {
    FusionMethod::Rrf
}

/// The channels' weights in the fusion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Weights {
    /// The dense (vector) channel's weight.
    pub dense: f32,
    /// The keyword (BM25) channel's weight.
    pub keyword: f32,
    /// The exact channel's weight (section numbers, defined terms).
    pub exact: f32,
}

impl Default for Settings {
    fn default() -> Self {
        let f = FusionConfig::default();
        Settings {
            library_dir: crate::default_library_dir().display().to_string(),
            model: EmbeddingModel::Minilm,
            context_provider: ContextProvider::Structural,
            anthropic_model: folio_ai::context::DEFAULT_ANTHROPIC_MODEL.into(),
            openai_base_url: "http://localhost:11434/v1".into(),
            openai_model: String::new(),
            fusion: f.method,
            rrf_k: f.k,
            weights: Weights { dense: f.dense, keyword: f.keyword, exact: f.exact },
            ocr: true,
            team_library: None,
            assistants: false,
        }
    }
}

/// Saved settings, and whether the library must be re-indexed for them to apply.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SettingsChange {
    /// The settings as saved.
    pub settings: Settings,
    /// Whether documents must be indexed again for them to apply.
    pub needs_reindex: bool,
    /// Why, when they must.
    pub reason: Option<String>,
}

pub(crate) fn read_settings(s: &RwLock<Settings>) -> std::sync::RwLockReadGuard<'_, Settings> {
    s.read().unwrap_or_else(|e| e.into_inner())
}

/// The settings saved at a path (defaults when the file is absent or unreadable).
/// Writes settings to `path` (the folder made when missing).
pub fn write_settings(path: &Path, settings: &Settings) -> Result<(), crate::EngineError> {
    let json =
        serde_json::to_string_pretty(settings).map_err(|e| crate::EngineError::Internal(e.to_string()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(folio_index::IndexError::from)?;
    }
    std::fs::write(path, json).map_err(folio_index::IndexError::from)?;
    Ok(())
}

/// The keychain entry of `provider` under `settings`: `postgres` stands for the team library the
/// settings name (its password, filed under its address); the others are themselves.
pub fn key_entry(settings: &Settings, provider: &str) -> Result<String, crate::EngineError> {
    if provider != "postgres" {
        return Ok(provider.to_string());
    }
    let team = settings
        .team_library
        .as_ref()
        .ok_or_else(|| crate::EngineError::Invalid("no team library is set".into()))?;
    Ok(crate::TeamLocation::keychain_entry(&crate::TeamAddress::parse(&team.address())?))
}

/// The settings saved at a path (defaults when the file is absent or unreadable): what a shell
/// shows when no library could be opened, so that the user can change them.
pub fn settings_at(path: &Path) -> Settings {
    saved_settings(path)
}

pub(crate) fn saved_settings(path: &Path) -> Settings {
    std::fs::read_to_string(path).ok().and_then(|s| settings_from_json(&s)).unwrap_or_default()
}

/// Settings from their JSON. Settings saved before the fusion method could be chosen fused by RRF;
/// those that kept RRF's default weights move to the current default fusion, and those whose
/// weights were changed by hand keep RRF with them.
fn settings_from_json(text: &str) -> Option<Settings> {
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    let chosen = json.get("fusion").is_some();
    let mut s: Settings = serde_json::from_value(json).ok()?;
    let old = FusionConfig::rrf();
    let old_defaults = s.weights == Weights { dense: old.dense, keyword: old.keyword, exact: old.exact };
    if !chosen && old_defaults {
        let new = FusionConfig::default();
        s.fusion = new.method;
        s.weights = Weights { dense: new.dense, keyword: new.keyword, exact: new.exact };
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_assistant_snippet_is_the_entry_an_mcp_client_takes() {
        let snippet = AssistantSnippet::new(Path::new("/opt/Folio/folio-desktop"), &["mcp"]);
        let config: serde_json::Value = serde_json::from_str(&snippet.config).unwrap();
        assert_eq!(config["mcpServers"]["folio"]["command"], "/opt/Folio/folio-desktop");
        assert_eq!(config["mcpServers"]["folio"]["args"], serde_json::json!(["mcp"]));
        assert!(!Settings::default().assistants, "off until the user turns it on");
        // Settings saved before the switch existed read as off.
        let old = r#"{"library_dir": "/l", "model": "fast", "context_provider": "structural", "anthropic_model": "m",
            "openai_base_url": "u", "openai_model": "", "rrf_k": 60.0, "weights": {"dense": 1.0, "keyword": 1.0, "exact": 2.0}}"#;
        assert!(!settings_from_json(old).unwrap().assistants);
    }

    #[test]
    fn an_assistant_is_refused_until_the_settings_allow_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let settings =
            Settings { library_dir: dir.path().join("library").display().to_string(), ..Settings::default() };
        write_settings(&path, &settings).unwrap();
        let refused = crate::open_for_assistant(&path, &crate::Environment::default());
        assert!(matches!(refused, Err(crate::EngineError::Invalid(ref m)) if m.contains("Settings")));
    }
    #[test]
    fn a_team_library_is_an_address_without_a_password_and_its_keychain_entry() {
        let team = TeamLibrarySettings {
            host: "db1.example.org, db2.example.org:5433".into(),
            port: 5432,
            database: "folio".into(),
            user: "analyst".into(),
            tls: "verify-full".into(),
            root_cert: "/etc/folio/ca root.pem".into(),
            keywords: crate::TeamKeywords::Server,
        };
        assert_eq!(
            team.address(),
            "postgres://analyst@db1.example.org:5432,db2.example.org:5433/folio?sslmode=verify-full&sslrootcert=/etc/folio/ca%20root.pem"
        );
        let settings = Settings { team_library: Some(team), ..Settings::default() };
        assert_eq!(
            key_entry(&settings, "postgres").unwrap(),
            "postgres:analyst@db1.example.org:5432,db2.example.org:5433/folio"
        );
        assert_eq!(key_entry(&settings, "anthropic").unwrap(), "anthropic");
        assert!(key_entry(&Settings::default(), "postgres").is_err(), "no team library, no entry");
        // Saved and read back whole; a file without the field reads as the folder library.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        write_settings(&path, &settings).unwrap();
        assert_eq!(settings_at(&path), settings);
        assert!(!std::fs::read_to_string(&path).unwrap().contains("password"));
    }

    use super::*;

    #[test]
    fn settings_keep_their_other_fields_when_the_provider_is_unknown() {
        let mut json = serde_json::to_value(Settings::default()).unwrap();
        assert_eq!(json["context_provider"], "structural");
        json["context_provider"] = "anthropic".into();
        json["rrf_k"] = 42.0.into();
        let s: Settings = serde_json::from_value(json.clone()).unwrap();
        assert_eq!((s.context_provider, s.rrf_k), (ContextProvider::Anthropic, 42.0));
        // A provider of a later version: the default, and nothing else lost.
        json["context_provider"] = "bedrock".into();
        let s: Settings = serde_json::from_value(json).unwrap();
        assert_eq!((s.context_provider, s.rrf_k), (ContextProvider::Structural, 42.0));
    }

    #[test]
    fn settings_saved_before_the_fusion_choice_move_on_unless_tuned() {
        let mut json = serde_json::to_value(Settings::default()).unwrap();
        json.as_object_mut().unwrap().remove("fusion");
        json["weights"] = serde_json::json!({"dense": 0.25, "keyword": 1.0, "exact": 2.0});
        let s = settings_from_json(&json.to_string()).unwrap();
        assert_eq!(s.fusion, FusionMethod::Scores);
        assert_eq!(s.weights, Settings::default().weights);
        // Weights set by hand keep the fusion they were set for.
        json["weights"]["dense"] = 0.5.into();
        let s = settings_from_json(&json.to_string()).unwrap();
        assert_eq!((s.fusion, s.weights.dense), (FusionMethod::Rrf, 0.5));
        // A saved choice stands.
        json["fusion"] = "rrf".into();
        json["weights"]["dense"] = 0.25.into();
        assert_eq!(settings_from_json(&json.to_string()).unwrap().fusion, FusionMethod::Rrf);
    }
}
