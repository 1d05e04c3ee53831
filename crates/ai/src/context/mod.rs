//! Contextual retrieval: an LLM writes a short context situating each chunk in its document.
//!
//! One trait, [`ContextWriter`], with two HTTP implementations: [`AnthropicWriter`] (the Messages
//! API, the document sent as a cached prefix) and [`OpenAiChatWriter`] (any OpenAI-compatible
//! chat-completions server: Ollama, LM Studio, llama.cpp, vLLM). The rule-based alternative, the
//! *structural* context, needs no model and lives in `folio_core::context`.
//!
//! [`run_document`] contextualizes one document's chunks with bounded concurrency: the first
//! request goes alone, so that the document is written to the provider's prompt cache once, and
//! the rest follow with at most `concurrency` requests in flight. Failures are returned per chunk
//! (the caller falls back to the structural context); nothing here stops because the LLM did.
//!
//! The cache of answers (SQLite, keyed by [`cache_key`]) and the cost bookkeeping live with the
//! caller; [`cost`] estimates a run before it starts.

mod anthropic;
pub mod cost;
mod openai_chat;

pub use anthropic::{AnthropicConfig, AnthropicWriter, DEFAULT_ANTHROPIC_MODEL};
pub use openai_chat::{OpenAiChatConfig, OpenAiChatWriter};

use folio_core::cancel::Cancel;
use folio_core::progress::{Stage, Step};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::AiError;

/// The version of [`PROMPT`]; part of every cache key, so a changed prompt asks again.
pub const PROMPT_VERSION: &str = "contextual-retrieval-v1";

/// The prompt, as Anthropic's contextual-retrieval guide writes it.
pub const PROMPT: &str = "<document>
{document}
</document>
Here is the chunk we want to situate within the whole document
<chunk>
{chunk}
</chunk>
Please give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk. Answer only with the succinct context and nothing else.";

/// The prompt filled in, as one text.
pub fn render(document: &str, chunk: &str) -> String {
    let (head, tail) = render_parts(document, chunk);
    format!("{head}\n{tail}")
}

/// The prompt filled in, in two parts joined by a newline: the document block (the cacheable
/// prefix) and the chunk with the instruction.
pub fn render_parts(document: &str, chunk: &str) -> (String, String) {
    let split = PROMPT.find("\nHere is the chunk").unwrap_or(PROMPT.len());
    let head = PROMPT[..split].replace("{document}", document);
    let tail = PROMPT[split + 1..].replace("{chunk}", chunk);
    (head, tail)
}

/// Tokens a request used, as the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens billed at the normal rate (not read from or written to the cache).
    pub input_tokens: u64,
    /// Tokens of the answer (the context written).
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Requests answered.
    pub requests: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_write_tokens += o.cache_write_tokens;
        self.cache_read_tokens += o.cache_read_tokens;
        self.requests += o.requests;
    }
}

/// A context and what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextAnswer {
    /// The context, trimmed; never empty.
    pub text: String,
    /// The tokens the request used, as the provider reports them.
    pub usage: Usage,
}

/// Writes the context of a chunk within its document.
pub trait ContextWriter: Send + Sync {
    /// "anthropic" or "openai".
    fn provider(&self) -> &str;
    /// The model asked.
    fn model(&self) -> &str;
    /// The most document tokens sent with one request; longer documents are excerpted (see
    /// [`document_for_chunk`]).
    fn document_budget(&self) -> usize;
    /// One request (with retries). `cancel` is honoured between attempts.
    fn write(&self, document: &str, chunk: &str, cancel: &Cancel) -> Result<ContextAnswer, AiError>;
}

/// The cache key of a context: the prompt version, the provider, the model, the document's and the
/// chunk's content hashes.
pub fn cache_key(provider: &str, model: &str, document_hash: &str, chunk_hash: &str) -> String {
    let mut h = Sha256::new();
    for part in [PROMPT_VERSION, provider, model, document_hash, chunk_hash] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Tokens in a text, estimated at four characters a token (what providers bill is close enough to
/// this for budgets and estimates).
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Tokens of the excerpt sent instead of a document longer than the budget (at most the budget):
/// each chunk of such a document gets its own excerpt, so there is no shared prefix to cache, and
/// a budget-sized excerpt per chunk would cost as much as the whole document each time.
pub const EXCERPT_TOKENS: usize = 16_000;

/// The document text sent with a chunk: the whole document when it fits `budget` tokens; else the
/// outline (up to a quarter of the excerpt) and the part of the document around the chunk,
/// [`EXCERPT_TOKENS`] in all, marked as an excerpt. Returns the text and whether it is an excerpt.
pub fn document_for_chunk(
    text: &str,
    outline: &str,
    chunk: std::ops::Range<usize>,
    budget: usize,
) -> (String, bool) {
    if text.len() <= budget.saturating_mul(4) {
        return (text.to_string(), false);
    }
    let budget_bytes = budget.min(EXCERPT_TOKENS).saturating_mul(4);
    let outline_bytes = (budget_bytes / 4).min(outline.len());
    let outline_part = &outline[..floor_char(outline, outline_bytes)];
    let window = budget_bytes.saturating_sub(outline_part.len() + 200);
    let mid = (chunk.start + chunk.end.min(text.len())) / 2;
    let mut start = mid.saturating_sub(window / 2);
    let mut end = (start + window).min(text.len());
    start = start.min(end.saturating_sub(window));
    start = floor_char(text, start);
    end = floor_char(text, end);
    let excerpt = format!(
        "[Outline of the document]\n{outline_part}\n\n[Excerpt of the document around the chunk; the whole document is longer]\n{}",
        &text[start..end]
    );
    (excerpt, true)
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One chunk to contextualize.
#[derive(Debug, Clone)]
pub struct ContextJob {
    /// The caller's index for the chunk.
    pub index: usize,
    /// The document text to send (see [`document_for_chunk`]).
    pub document: std::sync::Arc<str>,
    /// The chunk's text.
    pub chunk: String,
}

/// The answer for one job.
#[derive(Debug)]
pub struct ContextOutcome {
    /// The index of the job this answers ([`ContextJob::index`]).
    pub index: usize,
    /// The context, or why there is none (the caller then uses the structural context);
    /// [`AiError::Cancelled`] for a job not started before the cancel.
    pub result: Result<ContextAnswer, AiError>,
}

/// Contextualizes one document's chunks: the first job alone (it writes the document to the
/// provider's prompt cache), then the others with at most `concurrency` requests in flight.
/// `steps` gets a [`Stage::Contextualizing`] step (answers of jobs) on the calling thread after
/// each answer. Jobs not started when
/// `cancel` is set come back as [`AiError::Cancelled`].
pub fn run_document(
    writer: &dyn ContextWriter,
    jobs: Vec<ContextJob>,
    concurrency: usize,
    cancel: &Cancel,
    steps: &mut dyn FnMut(Step),
) -> Vec<ContextOutcome> {
    let total = jobs.len();
    let mut out = Vec::with_capacity(total);
    let mut rest = jobs.into_iter();
    let Some(first) = rest.next() else { return out };
    let run = |job: &ContextJob| {
        if cancel.is_cancelled() {
            return Err(AiError::Cancelled);
        }
        writer.write(&job.document, &job.chunk, cancel)
    };
    out.push(ContextOutcome { index: first.index, result: run(&first) });
    steps(Step::new(Stage::Contextualizing, 1, total));
    let rest: Vec<ContextJob> = rest.collect();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<ContextOutcome>();
    std::thread::scope(|s| {
        for _ in 0..concurrency.max(1).min(rest.len()) {
            let tx = tx.clone();
            let (rest, next, run) = (&rest, &next, &run);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = rest.get(i) else { break };
                if tx.send(ContextOutcome { index: job.index, result: run(job) }).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for outcome in rx {
            out.push(outcome);
            steps(Step::new(Stage::Contextualizing, out.len(), total));
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_join_to_the_prompt() {
        let (head, tail) = render_parts("DOC", "CHUNK");
        assert_eq!(head, "<document>\nDOC\n</document>");
        assert!(tail.starts_with(
            "Here is the chunk we want to situate within the whole document\n<chunk>\nCHUNK\n</chunk>\n"
        ));
        assert_eq!(render("DOC", "CHUNK"), PROMPT.replace("{document}", "DOC").replace("{chunk}", "CHUNK"));
    }

    #[test]
    fn cache_key_depends_on_every_part() {
        let k = cache_key("anthropic", "m", "d", "c");
        assert_ne!(k, cache_key("openai", "m", "d", "c"));
        assert_ne!(k, cache_key("anthropic", "m2", "d", "c"));
        assert_ne!(k, cache_key("anthropic", "m", "d2", "c"));
        assert_ne!(k, cache_key("anthropic", "m", "d", "c2"));
        assert_eq!(k, cache_key("anthropic", "m", "d", "c"));
    }

    #[test]
    fn long_documents_are_excerpted_around_the_chunk() {
        let text: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let at = text.find("line 7000\n").unwrap();
        let (whole, ex) = document_for_chunk(&text, "1 A\n2 B", at..at + 10, 1_000_000);
        assert!(!ex && whole == text);
        let (part, ex) = document_for_chunk(&text, "1 A\n2 B", at..at + 10, 1_000);
        assert!(ex);
        assert!(part.contains("line 7000\n") && part.contains("1 A\n2 B"));
        assert!(part.len() <= 4_000 + 200, "{}", part.len());
    }

    /// A writer that records how many calls are in flight.
    struct Counting {
        now: AtomicUsize,
        max: AtomicUsize,
    }

    impl ContextWriter for Counting {
        fn provider(&self) -> &str {
            "test"
        }
        fn model(&self) -> &str {
            "test"
        }
        fn document_budget(&self) -> usize {
            1000
        }
        fn write(&self, _: &str, chunk: &str, _: &Cancel) -> Result<ContextAnswer, AiError> {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.max.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(20));
            self.now.fetch_sub(1, Ordering::SeqCst);
            if chunk == "bad" {
                return Err(AiError::Response("bad".into()));
            }
            Ok(ContextAnswer {
                text: format!("ctx {chunk}"),
                usage: Usage { requests: 1, ..Usage::default() },
            })
        }
    }

    #[test]
    fn concurrency_is_bounded_and_failures_are_per_chunk() {
        let w = Counting { now: AtomicUsize::new(0), max: AtomicUsize::new(0) };
        let doc: std::sync::Arc<str> = "doc".into();
        let jobs: Vec<ContextJob> = (0..30)
            .map(|i| ContextJob {
                index: i,
                document: doc.clone(),
                chunk: if i == 7 { "bad".into() } else { format!("c{i}") },
            })
            .collect();
        let mut calls = 0;
        let out = run_document(&w, jobs, 4, &Cancel::new(), &mut |_| calls += 1);
        assert_eq!(out.len(), 30);
        assert_eq!(calls, 30);
        assert!(w.max.load(Ordering::SeqCst) <= 4);
        assert_eq!(w.max.load(Ordering::SeqCst), 4);
        assert!(out.iter().find(|o| o.index == 7).unwrap().result.is_err());
        assert_eq!(out.iter().filter(|o| o.result.is_ok()).count(), 29);
    }

    #[test]
    fn cancelled_jobs_are_not_sent() {
        let w = Counting { now: AtomicUsize::new(0), max: AtomicUsize::new(0) };
        let doc: std::sync::Arc<str> = "doc".into();
        let jobs: Vec<ContextJob> =
            (0..5).map(|i| ContextJob { index: i, document: doc.clone(), chunk: format!("c{i}") }).collect();
        let out = run_document(&w, jobs, 2, &Cancel::cancelled(), &mut folio_core::progress::ignore);
        assert!(out.iter().all(|o| matches!(o.result, Err(AiError::Cancelled))));
        assert_eq!(w.max.load(Ordering::SeqCst), 0);
    }
}
