//! The Anthropic Messages API (`POST {base}/v1/messages`) as a [`ContextWriter`].
//!
//! The document block carries `cache_control: {type: "ephemeral"}`, so the first request of a
//! document writes it to the prompt cache and the following ones read it at a tenth of the price.
//! The base URL honours `ANTHROPIC_BASE_URL`, as the official SDKs do.

use folio_core::cancel::Cancel;
use std::time::Duration;

use serde::Deserialize;

use super::{render_parts, ContextAnswer, ContextWriter, Usage};
use crate::http::{JsonEndpoint, RetryPolicy};
use crate::AiError;

/// The current Claude Haiku.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-haiku-4-5";

/// Settings of an [`AnthropicWriter`].
#[derive(Clone)]
pub struct AnthropicConfig {
    /// The API root without `/v1` (default `https://api.anthropic.com`).
    pub base_url: String,
    /// The Claude model asked, as the API names it (default [`DEFAULT_ANTHROPIC_MODEL`]).
    pub model: String,
    /// The Anthropic API key, sent as `x-api-key` (`Debug` prints it redacted).
    pub api_key: String,
    /// The longest answer, in tokens.
    pub max_tokens: u32,
    /// How long one attempt may take, connecting included (default 60 s).
    pub timeout: Duration,
    /// How failed attempts are retried (rate limits, overload, 5xx answers, connection failures, timeouts).
    pub retry: RetryPolicy,
    /// The most document tokens sent whole (Claude Haiku reads 200k; leave room for the rest).
    pub document_budget: usize,
}

impl AnthropicConfig {
    /// Defaults: the public API, Claude Haiku.
    pub fn new(api_key: impl Into<String>) -> AnthropicConfig {
        AnthropicConfig {
            base_url: "https://api.anthropic.com".into(),
            model: DEFAULT_ANTHROPIC_MODEL.into(),
            api_key: api_key.into(),
            max_tokens: 256,
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            document_budget: 150_000,
        }
    }
}

impl std::fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// Contexts from Claude.
#[derive(Debug)]
pub struct AnthropicWriter {
    config: AnthropicConfig,
    endpoint: JsonEndpoint,
}

#[derive(Deserialize)]
struct MessagesResponse {
    content: Vec<ContentBlock>,
    #[serde(default)]
    usage: Option<MessagesUsage>,
}

#[derive(Deserialize)]
struct ContentBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: String,
}

#[derive(Deserialize, Default)]
struct MessagesUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl AnthropicWriter {
    /// A client for the configured endpoint. Makes no request.
    pub fn new(config: AnthropicConfig) -> Result<AnthropicWriter, AiError> {
        if config.model.trim().is_empty() {
            return Err(AiError::Config("no model name".into()));
        }
        if config.api_key.trim().is_empty() {
            return Err(AiError::Config(
                "no Anthropic API key (folio auth set anthropic, or ANTHROPIC_API_KEY)".into(),
            ));
        }
        let url = format!("{}/v1/messages", config.base_url.trim_end_matches('/'));
        let headers =
            vec![("x-api-key", config.api_key.clone()), ("anthropic-version", "2023-06-01".to_string())];
        let endpoint =
            JsonEndpoint::new(url, headers, Some(config.api_key.clone()), config.timeout, config.retry)?;
        Ok(AnthropicWriter { config, endpoint })
    }
}

impl ContextWriter for AnthropicWriter {
    fn provider(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn document_budget(&self) -> usize {
        self.config.document_budget
    }

    fn write(&self, document: &str, chunk: &str, cancel: &Cancel) -> Result<ContextAnswer, AiError> {
        let (head, tail) = render_parts(document, chunk);
        let body = serde_json::json!({
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "temperature": 0.0,
            "messages": [{
                "role": "user",
                "content": [
                    {"type": "text", "text": head, "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": tail},
                ],
            }],
        });
        let bytes = self.endpoint.post(&body, Some(cancel))?;
        let resp: MessagesResponse = serde_json::from_slice(&bytes)
            .map_err(|e| AiError::Response(self.endpoint.redact(&format!("Messages API: {e}"))))?;
        let text: String = resp
            .content
            .iter()
            .filter(|b| b.kind == "text")
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("");
        let text = text.trim().to_string();
        if text.is_empty() {
            return Err(AiError::Response("the model answered no text".into()));
        }
        let u = resp.usage.unwrap_or_default();
        Ok(ContextAnswer {
            text,
            usage: Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cache_write_tokens: u.cache_creation_input_tokens.unwrap_or(0),
                cache_read_tokens: u.cache_read_input_tokens.unwrap_or(0),
                requests: 1,
            },
        })
    }
}
