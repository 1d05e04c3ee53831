//! Chunk contexts at ingest: none, structural, or written by an LLM with the answers cached in the
//! catalog, so that no chunk is ever sent twice for the same prompt, provider, model and document.

use folio_core::cancel::Cancel;
use folio_core::progress::Step;
use std::sync::Arc;

use folio_ai::context::cost::{estimate, Estimate, PlannedDocument, Prices};
use folio_ai::context::{
    cache_key, document_for_chunk, estimate_tokens, run_document, ContextJob, ContextWriter, Usage,
    PROMPT_VERSION,
};
use folio_ai::AiError;
use folio_core::analysis::Analysis;
use folio_core::context::{structural_contexts, table_rows, TABLE_ROWS_MARK};
use folio_index::catalog::{CachedContext, Catalog, ChunkContext, ContextRun};

use crate::EngineError;

/// Who writes each chunk's context, as the settings name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextProvider {
    /// No context: chunks are embedded as they are.
    None,
    /// The document's own structure (title, headings, rule number, defined terms), offline.
    #[default]
    Structural,
    /// Claude, through Anthropic's API (needs a key).
    Anthropic,
    /// Any OpenAI-compatible chat server (a local one needs no key).
    Openai,
}

impl ContextProvider {
    /// Every provider.
    pub const ALL: [ContextProvider; 4] = [
        ContextProvider::None,
        ContextProvider::Structural,
        ContextProvider::Anthropic,
        ContextProvider::Openai,
    ];

    /// The provider's name in settings and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextProvider::None => "none",
            ContextProvider::Structural => "structural",
            ContextProvider::Anthropic => "anthropic",
            ContextProvider::Openai => "openai",
        }
    }

    /// The provider a name stands for.
    pub fn parse(name: &str) -> Option<ContextProvider> {
        ContextProvider::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// A name this version does not know (a settings file from a later one) reads as the default, so
/// that the file's other settings are kept.
impl<'de> serde::Deserialize<'de> for ContextProvider {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ContextProvider, D::Error> {
        let name = String::deserialize(d)?;
        Ok(ContextProvider::parse(&name).unwrap_or_default())
    }
}

/// How chunks get their context.
#[derive(Clone, Default)]
pub enum ContextMode {
    /// No context: the heading chain is embedded with each chunk.
    None,
    /// A context built from the document's structure (title, headings, rule number, defined terms).
    #[default]
    Structural,
    /// A context written by an LLM; a chunk whose request fails gets the structural one.
    Llm {
        /// Who writes (Anthropic, an OpenAI-compatible server).
        writer: Arc<dyn ContextWriter>,
        /// Requests in flight at most.
        concurrency: usize,
        /// The model's prices, for the cost of each run.
        prices: Prices,
    },
}

impl std::fmt::Debug for ContextMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.tag())
    }
}

impl ContextMode {
    /// An LLM writer with the default concurrency (10) and its provider's list prices.
    pub fn llm(writer: Arc<dyn ContextWriter>) -> ContextMode {
        let prices = Prices::default_for(writer.provider());
        ContextMode::Llm { writer, concurrency: 10, prices }
    }

    /// What the catalog records for a document indexed this way (`none`, `structural`,
    /// `anthropic:claude-haiku-4-5`); a document indexed another way is re-indexed.
    pub fn tag(&self) -> String {
        match self {
            ContextMode::None => "none".into(),
            ContextMode::Structural => "structural".into(),
            ContextMode::Llm { writer, .. } => format!("{}:{}", writer.provider(), writer.model()),
        }
    }

    /// The mode for a provider name (`none`, `structural`, `anthropic`, `openai`), with an optional
    /// model, base URL and document budget; keys come from the keychain or the environment.
    pub fn from_provider(
        provider: &str,
        model: Option<&str>,
        url: Option<&str>,
        document_budget: Option<usize>,
        keys: &folio_ai::keys::ApiKeys,
    ) -> Result<ContextMode, EngineError> {
        use folio_ai::context::{AnthropicConfig, AnthropicWriter, OpenAiChatConfig, OpenAiChatWriter};
        let model = model.filter(|m| !m.trim().is_empty());
        let url = url.filter(|u| !u.trim().is_empty());
        let writer: Arc<dyn ContextWriter> = match provider {
            "none" => return Ok(ContextMode::None),
            "structural" => return Ok(ContextMode::Structural),
            "anthropic" => {
                let (key, _) = keys.get("anthropic").ok_or_else(|| {
                    EngineError::Invalid(
                        "no Anthropic API key: save one in Settings (or `folio auth set anthropic`), or set ANTHROPIC_API_KEY".into(),
                    )
                })?;
                let mut c = AnthropicConfig::new(key);
                if let Some(m) = model {
                    c.model = m.to_string();
                }
                if let Some(u) = url {
                    c.base_url = u.to_string();
                }
                if let Some(b) = document_budget {
                    c.document_budget = b;
                }
                Arc::new(AnthropicWriter::new(c)?)
            }
            "openai" => {
                let m = model.ok_or_else(|| {
                    EngineError::Invalid(
                        "the OpenAI-compatible provider needs a model name (e.g. llama3.2)".into(),
                    )
                })?;
                let mut c = OpenAiChatConfig::new(m);
                c.api_key = keys.get("openai").map(|(k, _)| k);
                if let Some(u) = url {
                    c.base_url = u.to_string();
                }
                if let Some(b) = document_budget {
                    c.document_budget = b;
                }
                Arc::new(OpenAiChatWriter::new(c)?)
            }
            other => {
                return Err(EngineError::Invalid(format!(
                    "unknown context provider '{other}' (none, structural, anthropic, openai)"
                )))
            }
        };
        Ok(ContextMode::llm(writer))
    }

    /// Whether an LLM writes the contexts (so ingest sends requests and records their cost).
    pub fn is_llm(&self) -> bool {
        matches!(self, ContextMode::Llm { .. })
    }
}

/// The outline as text, one heading a line, indented by level (sent with excerpts).
fn outline_text(a: &Analysis) -> String {
    a.outline
        .sections
        .iter()
        .filter(|s| s.level > 0)
        .map(|s| format!("{}{}\n", "  ".repeat(s.level.saturating_sub(1) as usize), s.heading))
        .collect()
}

/// A document to contextualize.
#[derive(Clone, Copy)]
pub(crate) struct DocumentInput<'a> {
    pub analysis: &'a Analysis,
    pub label: &'a str,
    pub path: &'a str,
    /// Contexts of the document's previous version, by chunk content hash (kept for unchanged
    /// chunks).
    pub previous: &'a std::collections::HashMap<String, ChunkContext>,
}

/// The contexts of a document's chunks, and (for an LLM) what getting them took. A cancelled run
/// keeps the answers it paid for in the cache and returns [`AiError::Cancelled`].
pub(crate) fn contextualize(
    catalog: &dyn Catalog,
    mode: &ContextMode,
    doc: &DocumentInput<'_>,
    cancel: &Cancel,
    steps: &mut dyn FnMut(Step),
) -> Result<(Vec<ChunkContext>, Option<ContextRun>), EngineError> {
    let (mut contexts, run) = contexts_of(catalog, mode, doc, cancel, steps)?;
    with_table_rows(doc.analysis, &mut contexts);
    Ok((contexts, run))
}

/// Adds to each chunk's context the rows of the tables it holds, each with its column headers
/// ([`table_rows`]), whatever the context mode: a value is found by its row and column. A context
/// kept from a document's previous version loses the rows it was given then first.
fn with_table_rows(a: &Analysis, contexts: &mut [ChunkContext]) {
    for (chunk, ctx) in a.chunks.iter().zip(contexts.iter_mut()) {
        if let Some(at) = ctx.text.find(TABLE_ROWS_MARK) {
            ctx.text.truncate(at);
            let kept = ctx.text.trim_end().len();
            ctx.text.truncate(kept);
        }
        if let Some(rows) = table_rows(&a.document, chunk.span) {
            ctx.text = if ctx.text.is_empty() { rows } else { format!("{}\n\n{rows}", ctx.text) };
        }
    }
}

fn contexts_of(
    catalog: &dyn Catalog,
    mode: &ContextMode,
    doc: &DocumentInput<'_>,
    cancel: &Cancel,
    steps: &mut dyn FnMut(Step),
) -> Result<(Vec<ChunkContext>, Option<ContextRun>), EngineError> {
    let DocumentInput { analysis: a, label, path, previous } = *doc;
    let n = a.chunks.len();
    let (writer, concurrency, prices) = match mode {
        ContextMode::None => {
            return Ok((vec![ChunkContext { text: String::new(), source: "none".into() }; n], None))
        }
        ContextMode::Structural => {
            let texts = structural_contexts(a, label);
            let out =
                texts.into_iter().map(|text| ChunkContext { text, source: "structural".into() }).collect();
            return Ok((out, None));
        }
        ContextMode::Llm { writer, concurrency, prices } => (writer, *concurrency, prices),
    };
    let structural = structural_contexts(a, label);
    let (provider, model) = (writer.provider().to_string(), writer.model().to_string());
    let mut run = ContextRun {
        path: path.into(),
        provider: provider.clone(),
        model: model.clone(),
        ..Default::default()
    };
    let doc_hash = &a.document.meta.content_hash;
    let text = &a.document.text;
    let fits = estimate_tokens(text) <= writer.document_budget();
    let whole: Arc<str> = if fits { Arc::from(text.as_str()) } else { Arc::from("") };
    let outline = if fits { String::new() } else { outline_text(a) };
    let mut out: Vec<Option<ChunkContext>> = vec![None; n];
    let mut keys: Vec<String> = Vec::with_capacity(n);
    let mut excerpted = vec![false; n];
    let mut jobs = Vec::new();
    for (i, c) in a.chunks.iter().enumerate() {
        let key = cache_key(&provider, &model, doc_hash, &c.content_hash);
        // The document changed but this chunk did not: its context stays.
        if let Some(prev) = previous.get(&c.content_hash).filter(|p| p.source.starts_with("llm")) {
            run.hits += 1;
            run.excerpted += (prev.source == "llm-excerpt") as u64;
            out[i] = Some(prev.clone());
            keys.push(key);
            continue;
        }
        if let Some(hit) = catalog.cached_context(&key)? {
            run.hits += 1;
            run.excerpted += hit.excerpt as u64;
            let source = if hit.excerpt { "llm-excerpt" } else { "llm" };
            out[i] = Some(ChunkContext { text: hit.text, source: source.into() });
        } else {
            run.misses += 1;
            let document = if fits {
                whole.clone()
            } else {
                excerpted[i] = true;
                let range = c.span.start..c.span.end;
                Arc::from(document_for_chunk(text, &outline, range, writer.document_budget()).0.as_str())
            };
            jobs.push(ContextJob { index: i, document, chunk: c.text.clone() });
        }
        keys.push(key);
    }
    let outcomes = run_document(writer.as_ref(), jobs, concurrency, cancel, steps);
    let mut usage = Usage::default();
    let mut cached = Vec::new();
    let mut cancelled = false;
    for o in outcomes {
        let i = o.index;
        match o.result {
            Ok(answer) => {
                usage += answer.usage;
                let u = answer.usage;
                cached.push((
                    keys[i].clone(),
                    CachedContext {
                        provider: provider.clone(),
                        model: model.clone(),
                        prompt_version: PROMPT_VERSION.into(),
                        text: answer.text.clone(),
                        excerpt: excerpted[i],
                        tokens: [u.input_tokens, u.output_tokens, u.cache_write_tokens, u.cache_read_tokens],
                    },
                ));
                run.excerpted += excerpted[i] as u64;
                let source = if excerpted[i] { "llm-excerpt" } else { "llm" };
                out[i] = Some(ChunkContext { text: answer.text, source: source.into() });
            }
            Err(AiError::Cancelled) => cancelled = true,
            Err(_) => {
                run.fallbacks += 1;
                out[i] = Some(ChunkContext { text: structural[i].clone(), source: "fallback".into() });
            }
        }
    }
    // What was paid for is kept, even when the ingest stops here.
    catalog.put_cached_contexts(&cached)?;
    if cancelled {
        return Err(AiError::Cancelled.into());
    }
    run.requests = usage.requests;
    run.input_tokens = usage.input_tokens;
    run.output_tokens = usage.output_tokens;
    run.cache_write_tokens = usage.cache_write_tokens;
    run.cache_read_tokens = usage.cache_read_tokens;
    run.cost = prices.cost(&usage);
    let out = out.into_iter().map(|c| c.unwrap_or_default()).collect();
    Ok((out, Some(run)))
}

/// What an LLM run over analysed documents would cost, counting only chunks not in the cache.
/// Returns the estimate and the number of cached chunks.
pub(crate) fn plan(
    catalog: &dyn Catalog,
    writer: &dyn ContextWriter,
    prices: &Prices,
    docs: &[Analysis],
) -> Result<(Estimate, usize), EngineError> {
    let mut planned = Vec::new();
    let mut hits = 0;
    for a in docs {
        let doc_tokens = estimate_tokens(&a.document.text);
        let excerpted = doc_tokens > writer.document_budget();
        let mut chunk_tokens = Vec::new();
        for c in &a.chunks {
            let key =
                cache_key(writer.provider(), writer.model(), &a.document.meta.content_hash, &c.content_hash);
            if catalog.cached_context(&key)?.is_some() {
                hits += 1;
            } else {
                chunk_tokens.push(estimate_tokens(&c.text));
            }
        }
        planned.push(PlannedDocument {
            document_tokens: if excerpted {
                writer.document_budget().min(folio_ai::context::EXCERPT_TOKENS)
            } else {
                doc_tokens
            },
            chunk_tokens,
            excerpted,
        });
    }
    Ok((estimate(&planned, prices), hits))
}
