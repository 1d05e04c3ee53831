//! What contextualizing costs: an estimate before a run, the price of what a run used after it.

use serde::{Deserialize, Serialize};

use super::Usage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// The price of input tokens billed at the normal rate.
    pub input: f64,
    /// The price of output tokens (the contexts written).
    pub output: f64,
    /// The price of input tokens written to the prompt cache.
    pub cache_write: f64,
    /// The price of input tokens read from the prompt cache.
    pub cache_read: f64,
}

impl Prices {
    /// The list prices Folio assumes for a provider's model (override them with `--prices`):
    /// Claude Haiku 4.5 for Anthropic; nothing for a local OpenAI-compatible server.
    pub fn default_for(provider: &str) -> Prices {
        match provider {
            "anthropic" => Prices { input: 1.0, output: 5.0, cache_write: 1.25, cache_read: 0.10 },
            _ => Prices { input: 0.0, output: 0.0, cache_write: 0.0, cache_read: 0.0 },
        }
    }

    /// Parses `input,output,cache_write,cache_read`.
    pub fn parse(s: &str) -> Result<Prices, String> {
        let v: Vec<f64> = s
            .split(',')
            .map(|p| p.trim().parse::<f64>().map_err(|e| format!("price {p:?}: {e}")))
            .collect::<Result<_, _>>()?;
        match v[..] {
            [input, output, cache_write, cache_read] if v.iter().all(|x| *x >= 0.0 && x.is_finite()) => {
                Ok(Prices { input, output, cache_write, cache_read })
            }
            _ => Err("prices are four non-negative numbers: input,output,cache_write,cache_read (USD per million tokens)".into()),
        }
    }

    /// The price of what was used.
    pub fn cost(&self, u: &Usage) -> f64 {
        (u.input_tokens as f64 * self.input
            + u.output_tokens as f64 * self.output
            + u.cache_write_tokens as f64 * self.cache_write
            + u.cache_read_tokens as f64 * self.cache_read)
            / 1e6
    }
}

/// One document's requests to come: its (sent) document tokens and each new chunk's tokens.
#[derive(Debug, Clone)]
pub struct PlannedDocument {
    /// Tokens of the document text sent with each request: the whole document, or its excerpt when
    /// `excerpted`.
    pub document_tokens: usize,
    /// Tokens of each chunk that has no cached context yet, one request each.
    pub chunk_tokens: Vec<usize>,
    /// Whether each chunk gets its own excerpt (the document is too long to send whole), so there
    /// is no shared prefix to cache.
    pub excerpted: bool,
}

/// What a run will cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// Requests to send: one per chunk without a cached context.
    pub requests: u64,
    /// Tokens with the document sent as a cached prefix.
    pub cached: Usage,
    /// Tokens were every request to send the document afresh.
    pub uncached: Usage,
    /// The price of `cached`, in US dollars.
    pub cost_cached: f64,
    /// The price of `uncached`, in US dollars.
    pub cost_uncached: f64,
}

/// Tokens the instruction around the document and the chunk take.
const PROMPT_TOKENS: usize = 60;
/// Tokens a context is expected to take.
pub const OUTPUT_TOKENS: usize = 100;

/// Estimates a run: per document, the first request writes the document to the cache and the others
/// read it (unless excerpted).
pub fn estimate(docs: &[PlannedDocument], prices: &Prices) -> Estimate {
    let mut e = Estimate::default();
    for d in docs {
        let n = d.chunk_tokens.len() as u64;
        if n == 0 {
            continue;
        }
        let chunks: u64 = d.chunk_tokens.iter().map(|t| (*t + PROMPT_TOKENS) as u64).sum();
        let doc = d.document_tokens as u64;
        e.requests += n;
        e.uncached.input_tokens += chunks + n * doc;
        e.uncached.output_tokens += n * OUTPUT_TOKENS as u64;
        e.cached.output_tokens += n * OUTPUT_TOKENS as u64;
        if d.excerpted {
            e.cached.input_tokens += chunks + n * doc;
        } else {
            e.cached.input_tokens += chunks;
            e.cached.cache_write_tokens += doc;
            e.cached.cache_read_tokens += (n - 1) * doc;
        }
    }
    e.uncached.requests = e.requests;
    e.cached.requests = e.requests;
    e.cost_cached = prices.cost(&e.cached);
    e.cost_uncached = prices.cost(&e.uncached);
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caching_the_document_saves() {
        let p = Prices::default_for("anthropic");
        let e = estimate(
            &[PlannedDocument { document_tokens: 50_000, chunk_tokens: vec![250; 200], excerpted: false }],
            &p,
        );
        assert_eq!(e.requests, 200);
        assert_eq!(e.cached.cache_write_tokens, 50_000);
        assert_eq!(e.cached.cache_read_tokens, 199 * 50_000);
        // 200 × 50k × $1/M = $10 uncached against 50k×1.25 + 199×50k×0.1 ≈ $1.06 cached.
        assert!(e.cost_uncached > 10.0 && e.cost_uncached < 10.2, "{}", e.cost_uncached);
        assert!(e.cost_cached > 1.0 && e.cost_cached < 1.25, "{}", e.cost_cached);
    }

    #[test]
    fn prices_parse() {
        assert_eq!(Prices::parse("1,5,1.25,0.1").unwrap(), Prices::default_for("anthropic"));
        assert!(Prices::parse("1,2,3").is_err());
        assert!(Prices::parse("1,2,3,-1").is_err());
    }
}
