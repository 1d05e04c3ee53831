//! A client for OpenAI-compatible embedding endpoints (`POST {base}/embeddings`): OpenAI, Ollama,
//! LM Studio, vLLM, llama.cpp's server, ….
//!
//! Texts go out in batches; each request has a timeout and is retried as [`crate::http`] says (429,
//! 5xx, connection failures, timeouts; backoff with jitter; `retry-after` honoured). The API key is
//! sent as a bearer token and appears in no log, `Debug` output or error message.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;

use crate::http::{JsonEndpoint, RetryPolicy};
use crate::{AiError, Embedder};

/// Settings of an [`OpenAiEmbedder`].
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The API root, `/v1` included: `http://localhost:11434/v1` (Ollama),
    /// `http://localhost:1234/v1` (LM Studio), `https://api.openai.com/v1`. `/embeddings` is
    /// appended.
    pub base_url: String,
    /// The model name the server knows (`nomic-embed-text`, `text-embedding-3-small`, …).
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
    /// Texts per request (default 64).
    pub batch_size: usize,
    /// Limit on each request, connection included (default 30 s).
    pub timeout: Duration,
    /// Retries after the first attempt on retryable failures (default 4).
    pub max_retries: u32,
    /// The first backoff; it doubles on each retry (default 500 ms), with jitter.
    pub initial_backoff: Duration,
    /// The longest backoff, and the longest `retry-after` honoured (default 60 s).
    pub max_backoff: Duration,
    /// What [`Embedder::max_tokens`] reports: the model's input window (default 512).
    pub max_tokens: usize,
    /// The dimension, if known in advance; otherwise learned from the first response.
    pub dimensions: Option<usize>,
    /// Put before each document (for models that want one, e.g. `"search_document: "`).
    pub document_prefix: String,
    /// Put before each query (e.g. `"search_query: "`).
    pub query_prefix: String,
}

impl OpenAiConfig {
    /// Defaults for an endpoint and a model.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> OpenAiConfig {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            batch_size: 64,
            timeout: Duration::from_secs(30),
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(60),
            max_tokens: 512,
            dimensions: None,
            document_prefix: String::new(),
            query_prefix: String::new(),
        }
    }

    /// Sets the API key.
    pub fn api_key(mut self, key: impl Into<String>) -> OpenAiConfig {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the texts per request.
    pub fn batch_size(mut self, n: usize) -> OpenAiConfig {
        self.batch_size = n;
        self
    }

    /// Sets the per-request timeout.
    pub fn timeout(mut self, t: Duration) -> OpenAiConfig {
        self.timeout = t;
        self
    }

    /// Sets the number of retries.
    pub fn max_retries(mut self, n: u32) -> OpenAiConfig {
        self.max_retries = n;
        self
    }

    /// Sets the first and the longest backoff.
    pub fn backoff(mut self, initial: Duration, max: Duration) -> OpenAiConfig {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// Sets the model's input window.
    pub fn max_tokens(mut self, n: usize) -> OpenAiConfig {
        self.max_tokens = n;
        self
    }

    /// Sets the document and query prefixes.
    pub fn prefixes(mut self, document: impl Into<String>, query: impl Into<String>) -> OpenAiConfig {
        self.document_prefix = document.into();
        self.query_prefix = query.into();
        self
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("batch_size", &self.batch_size)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("max_tokens", &self.max_tokens)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

/// An [`Embedder`] over an OpenAI-compatible HTTP endpoint. Blocking: call it from plain threads
/// (or `spawn_blocking`), not from inside an async runtime.
#[derive(Debug)]
pub struct OpenAiEmbedder {
    config: OpenAiConfig,
    endpoint: JsonEndpoint,
    dim: AtomicUsize,
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

impl OpenAiEmbedder {
    /// A client for the configured endpoint. Makes no request.
    pub fn new(config: OpenAiConfig) -> Result<OpenAiEmbedder, AiError> {
        if config.model.trim().is_empty() {
            return Err(AiError::Config("no model name".into()));
        }
        if config.batch_size == 0 {
            return Err(AiError::Config("batch size 0".into()));
        }
        let base = config.base_url.trim_end_matches('/');
        let headers = match &config.api_key {
            Some(k) => vec![("authorization", format!("Bearer {k}"))],
            None => Vec::new(),
        };
        let policy = RetryPolicy {
            max_retries: config.max_retries,
            initial_backoff: config.initial_backoff,
            max_backoff: config.max_backoff,
        };
        let endpoint = JsonEndpoint::new(
            format!("{base}/embeddings"),
            headers,
            config.api_key.clone(),
            config.timeout,
            policy,
        )?;
        let dim = AtomicUsize::new(config.dimensions.unwrap_or(0));
        Ok(OpenAiEmbedder { config, endpoint, dim })
    }

    /// The settings.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// Embeds `inputs` in requests of `batch_size`.
    fn embed_all(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.config.batch_size) {
            let inputs: Vec<String> = batch
                .iter()
                .map(|t| {
                    let s = format!("{prefix}{t}");
                    // OpenAI rejects empty strings; a space embeds as "nothing" everywhere.
                    if s.is_empty() {
                        " ".to_string()
                    } else {
                        s
                    }
                })
                .collect();
            out.extend(self.request(&inputs)?);
        }
        Ok(out)
    }

    /// One batch, with retries.
    fn request(&self, inputs: &[String]) -> Result<Vec<Vec<f32>>, AiError> {
        let body = serde_json::json!({
            "model": self.config.model,
            "input": inputs,
            "encoding_format": "float",
        });
        let bytes = self.endpoint.post(&body, None)?;
        self.parse(&bytes, inputs.len())
    }

    fn parse(&self, bytes: &[u8], expected: usize) -> Result<Vec<Vec<f32>>, AiError> {
        let resp: EmbeddingsResponse =
            serde_json::from_slice(bytes).map_err(|e| AiError::Response(format!("{e}")))?;
        let mut items = resp.data;
        if items.len() != expected {
            return Err(AiError::Response(format!("{} embeddings for {expected} inputs", items.len())));
        }
        if items.iter().all(|i| i.index.is_some()) {
            items.sort_by_key(|i| i.index);
            if items.iter().enumerate().any(|(n, i)| i.index != Some(n)) {
                return Err(AiError::Response("embedding indices are not 0..n".into()));
            }
        }
        let vectors: Vec<Vec<f32>> = items.into_iter().map(|i| i.embedding).collect();
        for v in &vectors {
            if v.is_empty() {
                return Err(AiError::Response("an empty embedding".into()));
            }
            let known = match self.dim.compare_exchange(0, v.len(), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => v.len(),
                Err(d) => d,
            };
            if v.len() != known {
                return Err(AiError::Response(format!(
                    "an embedding of {} dimensions, expected {known}",
                    v.len()
                )));
            }
        }
        Ok(vectors)
    }
}

impl Embedder for OpenAiEmbedder {
    fn id(&self) -> &str {
        &self.config.model
    }

    fn describe(&self) -> String {
        format!("{} · remote (OpenAI-compatible server)", self.config.model)
    }

    fn dim(&self) -> usize {
        self.dim.load(Ordering::Acquire)
    }

    fn max_tokens(&self) -> usize {
        self.config.max_tokens
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        self.embed_all(&self.config.document_prefix, texts)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        self.embed_all(&self.config.query_prefix, &[text])?
            .pop()
            .ok_or_else(|| AiError::Response("no embedding for the query".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_never_in_debug() {
        let c = OpenAiConfig::new("http://127.0.0.1:9/v1", "m").api_key("sk-secret-123");
        let e = OpenAiEmbedder::new(c).unwrap();
        assert!(!format!("{e:?}").contains("sk-secret-123"));
    }

    #[test]
    fn bad_config() {
        assert!(matches!(
            OpenAiEmbedder::new(OpenAiConfig::new("localhost:11434", "m")),
            Err(AiError::Config(_))
        ));
        assert!(matches!(
            OpenAiEmbedder::new(OpenAiConfig::new("http://x/v1", " ")),
            Err(AiError::Config(_))
        ));
    }
}
