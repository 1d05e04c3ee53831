//! Static word-piece embeddings (model2vec, e.g. potion-base-2M): a text's vector is the mean of
//! its pieces' rows in one embedding table, L2-normalised. No transformer runs, so a chunk embeds
//! in microseconds; retrieval quality is well below MiniLM's (MTEB retrieval 24.1 against 42.0),
//! which makes it the model for tests and the "fast" setting.
//!
//! As model2vec runs it: the `tokenizer.json` WordPiece tokenizer without special tokens, unknown
//! pieces dropped, at most [`STATIC_MAX_TOKENS`] pieces, optional per-piece `weights`, mean, then
//! normalisation when `config.json` says `normalize`.

use std::path::Path;

use candle_core::{DType, Device};

use crate::WordPieceTokenizer;
use crate::{AiError, Embedder};

/// model2vec's default `max_length`: pieces beyond it are ignored.
pub const STATIC_MAX_TOKENS: usize = 512;

/// A model2vec static embedding model loaded from `model.safetensors`, `tokenizer.json` and
/// `config.json`.
pub struct StaticEmbedder {
    id: String,
    tokenizer: WordPieceTokenizer,
    /// Row-major `vocab × dim`.
    table: Vec<f32>,
    /// Per-piece weights, when the model has them.
    weights: Option<Vec<f32>>,
    dim: usize,
    normalize: bool,
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder").field("id", &self.id).field("dim", &self.dim).finish()
    }
}

impl StaticEmbedder {
    /// Loads a model2vec model folder; its name (e.g. `potion-base-2M`) becomes the model id.
    pub fn load(dir: &Path) -> Result<StaticEmbedder, AiError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| AiError::io(&path, e))
        };
        let config: serde_json::Value = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| AiError::Assets(format!("config.json: {e}")))?;
        let normalize = config["normalize"].as_bool().unwrap_or(true);
        let tok_json = String::from_utf8(read("tokenizer.json")?)
            .map_err(|_| AiError::Assets("tokenizer.json is not UTF-8".into()))?;
        let tokenizer = WordPieceTokenizer::from_tokenizer_json(&tok_json)?;
        let tensors = candle_core::safetensors::load_buffer(&read("model.safetensors")?, &Device::Cpu)?;
        let emb = tensors
            .get("embeddings")
            .ok_or_else(|| AiError::Assets("model.safetensors has no `embeddings` tensor".into()))?
            .to_dtype(DType::F32)?;
        let (rows, dim) = emb.dims2()?;
        if rows != tokenizer.vocab_size() {
            return Err(AiError::Assets(format!(
                "embeddings have {rows} rows, the tokenizer {} pieces",
                tokenizer.vocab_size()
            )));
        }
        let table = emb.flatten_all()?.to_vec1::<f32>()?;
        let weights = match tensors.get("weights") {
            Some(w) => {
                let w = w.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()?;
                if w.len() != rows {
                    return Err(AiError::Assets(format!("weights have {} entries, not {rows}", w.len())));
                }
                Some(w)
            }
            None => None,
        };
        let id = dir
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.is_empty())
            .unwrap_or("model2vec")
            .to_string();
        Ok(StaticEmbedder { id, tokenizer, table, weights, dim, normalize })
    }

    /// Sets the identifier reported by [`Embedder::id`].
    pub fn with_id(mut self, id: impl Into<String>) -> StaticEmbedder {
        self.id = id.into();
        self
    }

    /// The model's tokenizer.
    pub fn tokenizer(&self) -> &WordPieceTokenizer {
        &self.tokenizer
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut out = vec![0f32; self.dim];
        let unk = self.tokenizer.unk_id();
        let mut n = 0usize;
        for id in self.tokenizer.tokenize_ids(text).into_iter().take(STATIC_MAX_TOKENS) {
            if id == unk {
                continue;
            }
            let row = &self.table[id as usize * self.dim..(id as usize + 1) * self.dim];
            let w = self.weights.as_ref().map_or(1.0, |w| w[id as usize]);
            for (o, &x) in out.iter_mut().zip(row) {
                *o += w * x;
            }
            n += 1;
        }
        if n > 0 {
            let inv = 1.0 / n as f32;
            out.iter_mut().for_each(|x| *x *= inv);
        }
        if self.normalize {
            crate::normalize(&mut out);
        }
        out
    }
}

impl Embedder for StaticEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn describe(&self) -> String {
        format!("{} · static word vectors", self.id)
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn max_tokens(&self) -> usize {
        STATIC_MAX_TOKENS
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        Ok(self.embed(text))
    }
}
