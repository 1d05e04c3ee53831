//! Context options of `folio ingest`, `folio auth` (API keys in the OS keychain) and `folio usage`.

use clap::{Args, Subcommand, ValueEnum};
use folio_ai::context::cost::{Estimate, Prices};
use folio_ai::keys::{ApiKeys, KeySource};
use folio_engine::{ContextMode, ContextRun};
use std::io::BufRead;

/// Where chunk contexts come from.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// No context (the heading chain is embedded with each chunk).
    None,
    /// Built from the document's structure: title, headings, rule number, defined terms used.
    Structural,
    /// Claude, through the Anthropic Messages API (key: `folio auth set anthropic` or ANTHROPIC_API_KEY).
    Anthropic,
    /// Any OpenAI-compatible chat server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI).
    Openai,
}

#[derive(Args, Debug, Clone)]
pub struct ContextArgs {
    /// Where chunk contexts come from.
    #[arg(long, env = "FOLIO_CONTEXT", default_value = "structural")]
    pub context: Provider,
    /// The LLM (default: claude-haiku-4-5 for anthropic; required for openai).
    #[arg(long)]
    pub context_model: Option<String>,
    /// The provider's base URL (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the public API).
    #[arg(long)]
    pub context_url: Option<String>,
    /// LLM requests in flight at most.
    #[arg(long, default_value_t = 10)]
    pub concurrency: usize,
    /// Prices in USD per million tokens: input,output,cache_write,cache_read (default: the
    /// provider's list prices; 0 for a local server).
    #[arg(long)]
    pub prices: Option<String>,
    /// The most document tokens sent whole; longer documents are sent as an excerpt around each
    /// chunk with the outline.
    #[arg(long)]
    pub document_budget: Option<usize>,
    /// Print the cost estimate and stop, asking the LLM nothing.
    #[arg(long)]
    pub estimate: bool,
}

impl ContextArgs {
    /// The context mode these arguments ask for, the environment's base URLs filling in a
    /// `--context-url` not given.
    pub fn mode(&self, env: &folio_engine::Environment) -> Result<ContextMode, String> {
        let provider = match self.context {
            Provider::None => "none",
            Provider::Structural => "structural",
            Provider::Anthropic => "anthropic",
            Provider::Openai => "openai",
        };
        let keys = ApiKeys::default();
        let env_url = match self.context {
            Provider::Anthropic => env.anthropic_base_url.as_deref(),
            Provider::Openai => env.openai_base_url.as_deref(),
            Provider::None | Provider::Structural => None,
        };
        let mode = ContextMode::from_provider(
            provider,
            self.context_model.as_deref(),
            self.context_url.as_deref().or(env_url),
            self.document_budget,
            &keys,
        )
        .map_err(|e| e.to_string())?;
        Ok(match mode {
            ContextMode::Llm { writer, prices, .. } => {
                let prices = match &self.prices {
                    Some(p) => Prices::parse(p)?,
                    None => prices,
                };
                ContextMode::Llm { writer, concurrency: self.concurrency.max(1), prices }
            }
            other => other,
        })
    }
}

/// Prints a cost estimate.
pub fn print_estimate(e: &Estimate, cached_chunks: usize) {
    println!(
        "context estimate: {} requests ({} chunks already cached); with the document as a cached prefix: \
         {} input + {} cache-write + {} cache-read + {} output tokens ≈ ${:.2}; without caching: {} input tokens ≈ ${:.2}",
        e.requests,
        cached_chunks,
        e.cached.input_tokens,
        e.cached.cache_write_tokens,
        e.cached.cache_read_tokens,
        e.cached.output_tokens,
        e.cost_cached,
        e.uncached.input_tokens,
        e.cost_uncached
    );
}

/// Prints what contextualizing used, per document and in total.
pub fn print_runs(runs: &[ContextRun]) {
    if runs.is_empty() {
        return;
    }
    let mut total = ContextRun { path: "total".into(), ..ContextRun::default() };
    println!(
        "context usage (cache hits / misses / fallbacks; tokens in / out / cache write / cache read; cost):"
    );
    for r in runs {
        println!(
            "  {}: {} / {} / {}; {} / {} / {} / {}; ${:.4} ({}:{})",
            std::path::Path::new(&r.path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            r.hits,
            r.misses,
            r.fallbacks,
            r.input_tokens,
            r.output_tokens,
            r.cache_write_tokens,
            r.cache_read_tokens,
            r.cost,
            r.provider,
            r.model
        );
        total.hits += r.hits;
        total.misses += r.misses;
        total.fallbacks += r.fallbacks;
        total.requests += r.requests;
        total.input_tokens += r.input_tokens;
        total.output_tokens += r.output_tokens;
        total.cache_write_tokens += r.cache_write_tokens;
        total.cache_read_tokens += r.cache_read_tokens;
        total.cost += r.cost;
    }
    println!(
        "  total: {} requests; {} / {} / {}; {} / {} / {} / {}; ${:.4}",
        total.requests,
        total.hits,
        total.misses,
        total.fallbacks,
        total.input_tokens,
        total.output_tokens,
        total.cache_write_tokens,
        total.cache_read_tokens,
        total.cost
    );
    if total.fallbacks > 0 {
        println!(
            "  {} chunks kept the structural context after the LLM failed; the next ingest asks again",
            total.fallbacks
        );
    }
}

#[derive(Subcommand, Debug, Clone)]
pub enum AuthAction {
    /// Save a provider's API key (anthropic, openai), or a team library's password (its
    /// postgres:// address), in the OS keychain (read from standard input).
    Set { provider: String },
    /// Whether a key is set, and where it comes from (never the key).
    Status { provider: String },
    /// Delete a provider's key from the keychain.
    Remove { provider: String },
}

/// `folio auth`.
pub fn auth(action: &AuthAction) -> Result<(), String> {
    let keys = ApiKeys::default();
    // A team library's password is filed under its address's key (user, hosts, database).
    let entry = |provider: &str| -> Result<String, String> {
        if folio_engine::TeamAddress::is_address(provider) {
            let a = folio_engine::TeamAddress::parse(provider).map_err(|e| e.to_string())?;
            Ok(folio_engine::TeamLocation::keychain_entry(&a))
        } else {
            Ok(provider.to_string())
        }
    };
    let action = match action {
        AuthAction::Set { provider } => AuthAction::Set { provider: entry(provider)? },
        AuthAction::Status { provider } => AuthAction::Status { provider: entry(provider)? },
        AuthAction::Remove { provider } => AuthAction::Remove { provider: entry(provider)? },
    };
    let action = &action;
    let status = match action {
        AuthAction::Set { provider } => {
            if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                eprintln!("Paste the {provider} key or password and press Enter (it is not echoed anywhere but your terminal):");
            }
            let mut key = String::new();
            std::io::stdin().lock().read_line(&mut key).map_err(|e| e.to_string())?;
            keys.set(provider, key.trim()).map_err(|e| e.to_string())?
        }
        AuthAction::Status { provider } => keys.status(provider),
        AuthAction::Remove { provider } => keys.remove(provider).map_err(|e| e.to_string())?,
    };
    let source = match status.source {
        KeySource::Keychain => "set, in the keychain",
        KeySource::Environment => "set, from the environment variable",
        KeySource::None => "not set",
    };
    println!("{}: {source}", status.provider);
    println!("keychain: {}", status.keychain);
    Ok(())
}
