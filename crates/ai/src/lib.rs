//! Folio's embedding models, behind one synchronous [`Embedder`] trait:
//!
//! - [`MiniLm`]: all-MiniLM-L6-v2 (384 dimensions, 256-token window) run locally on the CPU, from
//!   the `model.safetensors`, `config.json` and `vocab.txt` that `scripts/setup-assets.sh` puts in
//!   `.assets/minilm/`: texts unpadded, batches on every core, f32 products from the `gemm` crate
//!   (or 8-bit ones, [`Precision::Int8`]); candle's BERT is kept as the checked reference;
//! - [`OpenAiEmbedder`]: a client for any OpenAI-compatible `/v1/embeddings` endpoint (Ollama,
//!   LM Studio, vLLM, OpenAI), with batching, timeouts and retries;
//! - [`StaticEmbedder`]: model2vec static embeddings (potion-base-2M, 64 dimensions, from
//!   `.assets/potion-base-2M/`): a table lookup and a mean, thousands of chunks a second, for tests
//!   and the "fast" setting.
//!
//! [`WordPieceTokenizer`] is the model's BERT uncased tokenizer with ids, the one that
//! `folio-core`'s chunker also counts with (re-exported from [`folio_core::tokens`]).
//!
//! ```no_run
//! use std::path::Path;
//! use folio_ai::{Embedder, MiniLm};
//!
//! let model = MiniLm::load(Path::new(".assets/minilm"))?;
//! let docs = model.embed_documents(&[
//!     "The licensee must keep records for six years.",
//!     "Fees are payable within thirty days of the invoice.",
//! ])?;
//! let query = model.embed_query("how long must records be kept?")?;
//! // Vectors are L2-normalised: the dot product is the cosine.
//! let scores: Vec<f32> =
//!     docs.iter().map(|d| d.iter().zip(&query).map(|(a, b)| a * b).sum()).collect();
//! assert!(scores[0] > scores[1]);
//! # Ok::<(), folio_ai::AiError>(())
//! ```

use std::path::{Path, PathBuf};

mod background;
pub mod context;
mod encoder;
pub mod http;
pub mod keys;
mod minilm;
mod openai;
mod static_model;

pub use background::BackgroundEmbedder;
pub use encoder::{kernel as int8_kernel, kernels as int8_kernels, peak, BertConfig, Kernel as Int8Kernel};
pub use folio_core::tokens::{Encoding, WordPieceTokenizer};
pub use minilm::{
    mean_of_windows, MiniLm, Precision, RunOptions, WindowVector, DEFAULT_BATCH, MINILM_MAX_TOKENS,
};
pub use openai::{OpenAiConfig, OpenAiEmbedder};
pub use static_model::{StaticEmbedder, STATIC_MAX_TOKENS};

/// Turns texts into vectors. Documents and queries may be embedded differently (some models want
/// an instruction prefix on one side); for MiniLM both are plain.
pub trait Embedder: Send + Sync {
    /// A stable identifier of the model, stored with the vectors it made.
    fn id(&self) -> &str;
    /// Dimensions of a vector (0 while unknown, for a remote model not yet called).
    fn dim(&self) -> usize;
    /// The longest input, in the model's tokens, that the model sees whole.
    fn max_tokens(&self) -> usize;
    /// One vector per text, in order.
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError>;
    /// [`Self::embed_documents`] of a long list, in parts, each part asked for: `next(done)` is
    /// called with the texts embedded so far before each part (at least every `part` texts) and
    /// once more when all are done, and no part starts once it has answered `false` (then
    /// `Ok(None)`). The default embeds `part` texts a call; Folio's own encoder takes the whole
    /// list as one call and asks before each of its own batches, so that its threads do not wait
    /// for one another at the end of every part.
    fn embed_documents_in_parts(
        &self,
        texts: &[&str],
        part: usize,
        next: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Vec<Vec<f32>>>, AiError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(part.max(1)) {
            if !next(out.len()) {
                return Ok(None);
            }
            out.extend(self.embed_documents(chunk)?);
        }
        next(out.len());
        Ok(Some(out))
    }
    /// The vector of a search query.
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError>;
    /// How the model runs here, for diagnostics and benchmarks: its id, and for a local model the
    /// precision and CPU kernel ("all-minilm-l6-v2 · int8 (AMX)").
    fn describe(&self) -> String {
        self.id().to_string()
    }
}

/// Errors of the embedding models.
#[derive(Debug, thiserror::Error)]
pub enum AiError {
    /// A model file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file: weights, configuration or vocabulary.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
    /// Model files are malformed or inconsistent.
    #[error("model assets: {0}")]
    Assets(String),
    /// The tensor computation failed.
    #[error("model: {0}")]
    Model(String),
    /// The server could not be reached, or did not answer in time (after the retries).
    #[error("embedding request failed: {0}")]
    Transport(String),
    /// The server answered with an error status (after the retries, where it was retryable).
    #[error("embedding server answered {status}: {message}")]
    Http {
        /// The HTTP status (429, 5xx, 401, …).
        status: u16,
        /// The start of the answer's body (up to 300 characters), the key removed.
        message: String,
    },
    /// The server's answer is not a well-formed embeddings response.
    #[error("malformed embedding response: {0}")]
    Response(String),
    /// A setting is invalid (an empty model name, an unparseable base URL, …).
    #[error("configuration: {0}")]
    Config(String),
    /// The OS keychain refused (its message; never the key).
    #[error("keychain: {0}")]
    Keychain(String),
    /// The caller cancelled the work.
    #[error("cancelled")]
    Cancelled,
}

impl From<folio_core::tokens::VocabularyError> for AiError {
    fn from(e: folio_core::tokens::VocabularyError) -> AiError {
        match e {
            folio_core::tokens::VocabularyError::Invalid(m) => AiError::Assets(m),
        }
    }
}

/// Reads a WordPiece vocabulary (`vocab.txt`): the tokenizer of MiniLM, and the counter that sizes
/// chunks in its pieces. A file that cannot be read, or is not a vocabulary, is an error, never a
/// silent fallback to another counter (chunk sizes would change with it).
pub fn load_vocabulary(path: &Path) -> Result<folio_core::tokens::WordPieceTokenizer, AiError> {
    let text = std::fs::read_to_string(path).map_err(|e| AiError::io(path, e))?;
    folio_core::tokens::WordPieceTokenizer::from_vocab_txt(&text)
        .map_err(|e| AiError::Assets(format!("{} is not a usable vocabulary: {e}", path.display())))
}

impl AiError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> AiError {
        AiError::Io { path: path.to_path_buf(), source }
    }
}

impl From<candle_core::Error> for AiError {
    fn from(e: candle_core::Error) -> AiError {
        AiError::Model(e.to_string())
    }
}

/// Scales a vector to unit length; a (near-)zero vector stays as it is.
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 1e-12 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity of two vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        dot += x as f64 * y as f64;
        na += x as f64 * x as f64;
        nb += y as f64 * y as f64;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na.sqrt() * nb.sqrt())) as f32
    }
}
