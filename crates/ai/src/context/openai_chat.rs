//! OpenAI-compatible chat completions (`POST {base}/chat/completions`) as a [`ContextWriter`]:
//! OpenAI, Ollama, LM Studio, llama.cpp's server, vLLM. The base URL honours `OPENAI_BASE_URL`, as
//! the official SDKs do; the key is optional (local servers need none).

use folio_core::cancel::Cancel;
use std::time::Duration;

use serde::Deserialize;

use super::{render, ContextAnswer, ContextWriter, Usage};
use crate::http::{JsonEndpoint, RetryPolicy};
use crate::AiError;

/// Settings of an [`OpenAiChatWriter`].
#[derive(Clone)]
pub struct OpenAiChatConfig {
    /// The API root, `/v1` included (default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`).
    pub base_url: String,
    /// The model asked, as the server names it (`gpt-4o-mini`, or `llama3.2` on Ollama).
    pub model: String,
    /// The key, sent as a bearer token; `None` sends no `authorization` header (local servers need none).
    pub api_key: Option<String>,
    /// The longest answer, in tokens.
    pub max_tokens: u32,
    /// How long one attempt may take, connecting included (default 120 s).
    pub timeout: Duration,
    /// How failed attempts are retried (rate limits, 5xx answers, connection failures, timeouts).
    pub retry: RetryPolicy,
    /// The most document tokens sent whole (set it to the local model's context window).
    pub document_budget: usize,
}

impl OpenAiChatConfig {
    /// Defaults for a model, on OpenAI's public API.
    pub fn new(model: impl Into<String>) -> OpenAiChatConfig {
        OpenAiChatConfig {
            base_url: "https://api.openai.com/v1".into(),
            model: model.into(),
            api_key: None,
            max_tokens: 256,
            timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            document_budget: 24_000,
        }
    }
}

impl std::fmt::Debug for OpenAiChatConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiChatConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Contexts from an OpenAI-compatible chat model.
#[derive(Debug)]
pub struct OpenAiChatWriter {
    config: OpenAiChatConfig,
    endpoint: JsonEndpoint,
}

#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize, Default)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize, Default)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

impl OpenAiChatWriter {
    /// A client for the configured endpoint. Makes no request.
    pub fn new(config: OpenAiChatConfig) -> Result<OpenAiChatWriter, AiError> {
        if config.model.trim().is_empty() {
            return Err(AiError::Config("no model name".into()));
        }
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        let headers = match &config.api_key {
            Some(k) => vec![("authorization", format!("Bearer {k}"))],
            None => Vec::new(),
        };
        let endpoint = JsonEndpoint::new(url, headers, config.api_key.clone(), config.timeout, config.retry)?;
        Ok(OpenAiChatWriter { config, endpoint })
    }
}

impl ContextWriter for OpenAiChatWriter {
    fn provider(&self) -> &str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn document_budget(&self) -> usize {
        self.config.document_budget
    }

    fn write(&self, document: &str, chunk: &str, cancel: &Cancel) -> Result<ContextAnswer, AiError> {
        let body = serde_json::json!({
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "temperature": 0.0,
            "messages": [{"role": "user", "content": render(document, chunk)}],
        });
        let bytes = self.endpoint.post(&body, Some(cancel))?;
        let resp: ChatResponse = serde_json::from_slice(&bytes)
            .map_err(|e| AiError::Response(self.endpoint.redact(&format!("chat completions: {e}"))))?;
        let text = resp
            .choices
            .into_iter()
            .next()
            .and_then(|c| c.message.content)
            .map(|t| t.trim().to_string())
            .unwrap_or_default();
        if text.is_empty() {
            return Err(AiError::Response("the model answered no text".into()));
        }
        let u = resp.usage.unwrap_or_default();
        let cached = u.prompt_tokens_details.map_or(0, |d| d.cached_tokens);
        Ok(ContextAnswer {
            text,
            usage: Usage {
                input_tokens: u.prompt_tokens.saturating_sub(cached),
                output_tokens: u.completion_tokens,
                cache_write_tokens: 0,
                cache_read_tokens: cached,
                requests: 1,
            },
        })
    }
}
