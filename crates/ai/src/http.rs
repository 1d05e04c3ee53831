//! JSON over HTTP with retries, shared by the embeddings client and the context writers.
//!
//! Each request has a timeout; 429, 529 and other 5xx answers, connection failures, timeouts and
//! connections dropped mid-answer are retried with exponential backoff and "equal jitter",
//! honouring a `retry-after` header (capped at the longest backoff). Other 4xx answers and
//! malformed bodies are not retried. A secret (the API key) is removed from every message.

use folio_core::cancel::Cancel;
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, Response};
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::AiError;

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff; it doubles on each retry.
    pub initial_backoff: Duration,
    /// The longest backoff, and the longest `retry-after` honoured.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// `initial * 2^retry`, capped, with equal jitter (half fixed, half random).
    pub fn backoff(&self, retry: u32) -> Duration {
        let base = self
            .initial_backoff
            .saturating_mul(1u32.checked_shl(retry).unwrap_or(u32::MAX))
            .min(self.max_backoff);
        let half = base / 2;
        half + half.mul_f64(random_unit())
    }
}

/// A JSON endpoint: one URL, fixed headers, a secret to keep out of messages.
pub(crate) struct JsonEndpoint {
    client: Client,
    url: String,
    headers: Vec<(&'static str, String)>,
    secret: Option<String>,
    policy: RetryPolicy,
}

impl std::fmt::Debug for JsonEndpoint {
    /// The URL and policy only: headers carry the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonEndpoint")
            .field("url", &self.url)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// What one attempt came to.
enum Attempt {
    Done(Vec<u8>),
    /// Retryable, after at least this long if the server said so.
    Retry(AiError, Option<Duration>),
    Fail(AiError),
}

impl JsonEndpoint {
    /// Checks the URL (http or https) and builds the client. Makes no request.
    pub fn new(
        url: String,
        headers: Vec<(&'static str, String)>,
        secret: Option<String>,
        timeout: Duration,
        policy: RetryPolicy,
    ) -> Result<JsonEndpoint, AiError> {
        let parsed = reqwest::Url::parse(&url)
            .map_err(|e| AiError::Config(format!("URL {:?}: {e}", redact(&url, secret.as_deref()))))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(AiError::Config(format!("URL scheme {:?} is not http(s)", parsed.scheme())));
        }
        let client = Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .map_err(|e| AiError::Config(format!("HTTP client: {}", describe(&e, secret.as_deref()))))?;
        Ok(JsonEndpoint { client, url, headers, secret, policy })
    }

    /// Removes the secret from a text.
    pub fn redact(&self, text: &str) -> String {
        redact(text, self.secret.as_deref())
    }

    /// POSTs `body` and returns the answer's bytes, retrying as the policy says. `cancel` is checked
    /// before each attempt and during backoff.
    pub fn post(&self, body: &serde_json::Value, cancel: Option<&Cancel>) -> Result<Vec<u8>, AiError> {
        let mut retry = 0u32;
        loop {
            if cancel.is_some_and(Cancel::is_cancelled) {
                return Err(AiError::Cancelled);
            }
            let (err, wait) = match self.attempt(body) {
                Attempt::Done(v) => return Ok(v),
                Attempt::Fail(e) => return Err(e),
                Attempt::Retry(e, wait) => (e, wait),
            };
            if retry >= self.policy.max_retries {
                return Err(err);
            }
            let wait = match wait {
                Some(w) => w.min(self.policy.max_backoff),
                None => self.policy.backoff(retry),
            };
            sleep_unless_cancelled(wait, cancel)?;
            retry += 1;
        }
    }

    fn attempt(&self, body: &serde_json::Value) -> Attempt {
        let mut req = self.client.post(&self.url).json(body);
        for (k, v) in &self.headers {
            req = req.header(*k, v);
        }
        let resp: Response = match req.send() {
            Ok(r) => r,
            Err(e) => {
                let err = AiError::Transport(describe(&e, self.secret.as_deref()));
                return if e.is_connect() || e.is_timeout() || e.is_request() || e.is_body() {
                    Attempt::Retry(err, None)
                } else {
                    Attempt::Fail(err)
                };
            }
        };
        let status = resp.status();
        if !status.is_success() {
            let wait = retry_after(resp.headers());
            let text = resp.text().unwrap_or_default();
            let message: String = text.trim().chars().take(300).collect();
            let err = AiError::Http { status: status.as_u16(), message: self.redact(&message) };
            // 529 is Anthropic's "overloaded"; it is a 5xx.
            return if status.as_u16() == 429 || status.is_server_error() {
                Attempt::Retry(err, wait)
            } else {
                Attempt::Fail(err)
            };
        }
        match resp.bytes() {
            Ok(b) => Attempt::Done(b.to_vec()),
            // The connection broke mid-answer, or the body timed out.
            Err(e) => Attempt::Retry(AiError::Transport(describe(&e, self.secret.as_deref())), None),
        }
    }
}

/// Sleeps `d`, waking every 50 ms to check `cancel`.
fn sleep_unless_cancelled(d: Duration, cancel: Option<&Cancel>) -> Result<(), AiError> {
    let end = Instant::now() + d;
    loop {
        if cancel.is_some_and(Cancel::is_cancelled) {
            return Err(AiError::Cancelled);
        }
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// `retry-after` in seconds (integer or decimal). HTTP dates are not honoured (the backoff applies).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let secs: f64 = v.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// A reqwest error with its causes, without the URL, the secret removed.
fn describe(e: &reqwest::Error, secret: Option<&str>) -> String {
    let mut s = String::new();
    let mut cur: Option<&dyn std::error::Error> = Some(e);
    let mut first = true;
    while let Some(err) = cur {
        let text = if first {
            // reqwest's own message names the URL; the caller knows it.
            match e.status() {
                Some(st) => format!("status {st}"),
                None if e.is_timeout() => "timed out".to_string(),
                None if e.is_connect() => "could not connect".to_string(),
                None => "request failed".to_string(),
            }
        } else {
            err.to_string()
        };
        if !s.contains(&text) {
            if !s.is_empty() {
                s.push_str(": ");
            }
            s.push_str(&text);
        }
        first = false;
        cur = err.source();
    }
    redact(&s, secret)
}

pub(crate) fn redact(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(k) if !k.is_empty() => text.replace(k, "[redacted]"),
        _ => text.to_string(),
    }
}

/// A number in [0, 1) from the standard library's per-process random hash keys and the clock.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    h.write_u128(nanos);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            max_retries: 8,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
        };
        for retry in 0..8 {
            let b = p.backoff(retry);
            let full = Duration::from_millis(100 * (1 << retry)).min(Duration::from_secs(1));
            assert!(b >= full / 2 && b <= full, "{retry}: {b:?}");
        }
    }

    #[test]
    fn secrets_are_redacted() {
        assert_eq!(redact("bad key sk-123 here", Some("sk-123")), "bad key [redacted] here");
        assert_eq!(redact("nothing", None), "nothing");
    }

    #[test]
    fn cancel_stops_a_backoff() {
        let c = Cancel::cancelled();
        assert!(matches!(sleep_unless_cancelled(Duration::from_secs(10), Some(&c)), Err(AiError::Cancelled)));
    }
}
