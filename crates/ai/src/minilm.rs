//! all-MiniLM-L6-v2 on the CPU: a 6-layer, 384-wide BERT encoder, mean-pooled over the attention
//! mask and L2-normalised, as sentence-transformers runs it. Folio's own encoder runs it
//! ([`crate::encoder`]: unpadded batches on every core, 8-bit linear layers where the CPU has a
//! fast integer kernel, f32 products elsewhere); the candle model below is kept as the checked
//! reference ([`Precision::Reference`]) the encoder is tested against.

use std::path::Path;

use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, LayerNormConfig, Linear, VarBuilder};

use crate::encoder::BertConfig;
use crate::WordPieceTokenizer;
use crate::{AiError, Embedder};

/// The sequence length the model was trained with (sentence-transformers' `max_seq_length`),
/// `[CLS]` and `[SEP]` included. The shipped `tokenizer.json` says 128; the model card and
/// sentence-transformers use 256.
pub const MINILM_MAX_TOKENS: usize = 256;
/// The id MiniLM's vectors are stored under.
const MINILM_ID: &str = "all-MiniLM-L6-v2";

/// Texts embedded together in one forward pass by [`MiniLm::embed_documents`].
pub const DEFAULT_BATCH: usize = 32;

struct Embeddings {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Embeddings> {
        Ok(Embeddings {
            word: embedding(cfg.vocab_size, cfg.hidden_size, vb.pp("word_embeddings"))?,
            position: embedding(cfg.max_position_embeddings, cfg.hidden_size, vb.pp("position_embeddings"))?,
            token_type: embedding(cfg.type_vocab_size, cfg.hidden_size, vb.pp("token_type_embeddings"))?,
            norm: layer_norm(cfg.hidden_size, ln_config(cfg), vb.pp("LayerNorm"))?,
        })
    }

    /// `ids`: (batch, seq) u32. Token types are all 0.
    fn forward(&self, ids: &Tensor) -> candle_core::Result<Tensor> {
        let (batch, seq) = ids.dims2()?;
        let words = self.word.forward(ids)?;
        let positions = Tensor::arange(0u32, seq as u32, ids.device())?;
        let positions = self.position.forward(&positions)?.unsqueeze(0)?;
        let types = Tensor::zeros((batch, seq), DType::U32, ids.device())?;
        let types = self.token_type.forward(&types)?;
        let x = words.broadcast_add(&positions)?.add(&types)?;
        self.norm.forward(&x)
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    out_norm: LayerNorm,
    heads: usize,
    head_dim: usize,
}

impl Layer {
    fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Layer> {
        let h = cfg.hidden_size;
        let attn = vb.pp("attention");
        let own = attn.pp("self");
        Ok(Layer {
            query: linear(h, h, own.pp("query"))?,
            key: linear(h, h, own.pp("key"))?,
            value: linear(h, h, own.pp("value"))?,
            attn_out: linear(h, h, attn.pp("output").pp("dense"))?,
            attn_norm: layer_norm(h, ln_config(cfg), attn.pp("output").pp("LayerNorm"))?,
            intermediate: linear(h, cfg.intermediate_size, vb.pp("intermediate").pp("dense"))?,
            output: linear(cfg.intermediate_size, h, vb.pp("output").pp("dense"))?,
            out_norm: layer_norm(h, ln_config(cfg), vb.pp("output").pp("LayerNorm"))?,
            heads: cfg.num_attention_heads,
            head_dim: h / cfg.num_attention_heads,
        })
    }

    /// `x`: (batch, seq, hidden); `mask_bias`: (batch, 1, 1, seq), 0 for tokens and a large
    /// negative number for padding.
    fn forward(&self, x: &Tensor, mask_bias: &Tensor) -> candle_core::Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((b, s, self.heads, self.head_dim))?.transpose(1, 2)?.contiguous()
        };
        let q = split(self.query.forward(x)?)?;
        let k = split(self.key.forward(x)?)?;
        let v = split(self.value.forward(x)?)?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(mask_bias)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let ctx = probs.matmul(&v)?.transpose(1, 2)?.reshape((b, s, self.heads * self.head_dim))?;
        let attended = self.attn_norm.forward(&(self.attn_out.forward(&ctx)? + x)?)?;
        let inner = self.intermediate.forward(&attended)?.gelu_erf()?;
        self.out_norm.forward(&(self.output.forward(&inner)? + attended)?)
    }
}

fn ln_config(cfg: &BertConfig) -> LayerNormConfig {
    LayerNormConfig { eps: cfg.layer_norm_eps, ..Default::default() }
}

/// The BERT encoder: embeddings and layers; no pooler.
struct Bert {
    embeddings: Embeddings,
    layers: Vec<Layer>,
}

impl Bert {
    fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Bert> {
        // Checkpoints name their tensors with or without a "bert." prefix.
        let vb =
            if vb.contains_tensor("bert.embeddings.word_embeddings.weight") { vb.pp("bert") } else { vb };
        let embeddings = Embeddings::load(cfg, vb.pp("embeddings"))?;
        let layers = (0..cfg.num_hidden_layers)
            .map(|i| Layer::load(cfg, vb.pp(format!("encoder.layer.{i}"))))
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Bert { embeddings, layers })
    }

    /// Last hidden states, (batch, seq, hidden).
    fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (b, s) = mask.dims2()?;
        // (1 - mask) * -10000 as in BERT; broadcast over heads and query positions.
        let bias = ((mask.ones_like()? - mask)? * -10_000.0)?.reshape((b, 1, 1, s))?;
        let mut x = self.embeddings.forward(ids)?;
        for layer in &self.layers {
            x = layer.forward(&x, &bias)?;
        }
        Ok(x)
    }
}

/// How the model runs: its precision, and the CPU kernel (`None`: the fastest this CPU has).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// The precision of the linear layers.
    pub precision: Precision,
    /// The kernel, to measure a lesser one than the CPU's best.
    pub kernel: Option<crate::encoder::Kernel>,
}

/// How the encoder computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// [`Precision::Int8`] wherever the CPU has a SIMD 8-bit kernel (AMX, AVX-512 VNNI, AVX-VNNI,
    /// AVX2: every x86-64 from 2013 on), else [`Precision::F32`]. Every kernel computes the same
    /// integers, so the vectors do not depend on which ran; on ObliQA dev the 8-bit library scores
    /// as the f32 one (Recall@10 0.781 and MAP@10 0.639 both; cookbook Pass@5/10/20
    /// 88.8/92.9/95.1 against 88.8/92.9/95.5). Measured faster than f32 on each kernel: see
    /// `examples/embed_bench`.
    #[default]
    Auto,
    /// 8-bit linear layers (vectors within about 0.005 in cosine of f32).
    Int8,
    /// f32 throughout, texts unpadded, batches on every core.
    F32,
    /// candle's f32 BERT, padded batches: the implementation checked against the float64
    /// reference, kept to check the others.
    Reference,
}

/// The encoder that runs.
enum Encoder {
    Reference(Bert),
    Fast(crate::encoder::FastBert),
}

/// One window of a text: the word pieces it holds and its vector (see [`MiniLm::embed_windows`]).
pub type WindowVector = (usize, Vec<f32>);

/// A text's vector from its windows': their mean weighted by the pieces each holds (an empty
/// window counts as one piece), L2-normalised.
pub fn mean_of_windows(windows: &[WindowVector], dim: usize) -> Vec<f32> {
    let mut sum = vec![0f32; dim];
    for (pieces, v) in windows {
        let w = (*pieces).max(1) as f32;
        for (s, x) in sum.iter_mut().zip(v) {
            *s += w * x;
        }
    }
    crate::normalize(&mut sum);
    sum
}

/// all-MiniLM-L6-v2 (or another BERT sentence encoder with mean pooling), run locally.
pub struct MiniLm {
    id: String,
    encoder: Encoder,
    threads: usize,
    tokenizer: WordPieceTokenizer,
    hidden: usize,
    max_tokens: usize,
    batch: usize,
    device: Device,
}

impl std::fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLm")
            .field("id", &self.id)
            .field("dim", &self.hidden)
            .field("max_tokens", &self.max_tokens)
            .field("batch", &self.batch)
            .field("precision", &self.precision_name())
            .field("threads", &self.threads)
            .finish()
    }
}

impl MiniLm {
    /// Loads `model.safetensors`, `config.json` and `vocab.txt` from `dir`, on the CPU, in the
    /// fastest precision this CPU runs well ([`Precision::Auto`]).
    pub fn load(dir: &Path) -> Result<MiniLm, AiError> {
        Self::load_with(dir, Precision::Auto)
    }

    /// The model in `dir` as a library sees it before its weights are read: its id, dimensions
    /// and window, from `config.json` (checked as [`MiniLm::load`] checks it).
    pub fn identity(dir: &Path) -> Result<(String, usize, usize), AiError> {
        let cfg = Self::config(dir)?;
        Ok((MINILM_ID.to_string(), cfg.hidden_size, MINILM_MAX_TOKENS.min(cfg.max_position_embeddings)))
    }

    /// [`MiniLm::load`] on a background thread: the returned embedder answers its
    /// [`Embedder::id`], `dim` and `max_tokens` at once, and its first text waits for the weights.
    /// A missing or malformed `config.json` is an error here; other load errors come with the first
    /// text to embed.
    pub fn load_in_background(dir: &Path, how: RunOptions) -> Result<crate::BackgroundEmbedder, AiError> {
        let (id, dim, max_tokens) = Self::identity(dir)?;
        let dir = dir.to_path_buf();
        Ok(crate::BackgroundEmbedder::spawn(id, dim, max_tokens, move || {
            MiniLm::load_run(&dir, how).map(|m| Box::new(m) as Box<dyn Embedder>)
        }))
    }

    fn config(dir: &Path) -> Result<BertConfig, AiError> {
        let path = dir.join("config.json");
        let bytes = std::fs::read(&path).map_err(|e| AiError::io(&path, e))?;
        let cfg: BertConfig =
            serde_json::from_slice(&bytes).map_err(|e| AiError::Assets(format!("config.json: {e}")))?;
        if cfg.hidden_act != "gelu" {
            return Err(AiError::Assets(format!("config.json: unsupported hidden_act {:?}", cfg.hidden_act)));
        }
        if cfg.hidden_size.checked_rem(cfg.num_attention_heads) != Some(0) {
            return Err(AiError::Assets(
                "config.json: hidden_size not divisible by num_attention_heads".into(),
            ));
        }
        Ok(cfg)
    }

    /// [`MiniLm::load`] in a chosen precision.
    pub fn load_with(dir: &Path, precision: Precision) -> Result<MiniLm, AiError> {
        Self::load_run(dir, RunOptions { precision, kernel: None })
    }

    /// [`MiniLm::load`] in a chosen precision on a chosen kernel (`None`: the fastest this CPU
    /// has), as a shell's options say (`FOLIO_PRECISION`, `FOLIO_INT8_KERNEL`, read at its start).
    pub fn load_run(dir: &Path, how: RunOptions) -> Result<MiniLm, AiError> {
        let precision = how.precision;
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| AiError::io(&path, e))
        };
        let cfg = Self::config(dir)?;
        let tokenizer = crate::load_vocabulary(&dir.join("vocab.txt"))?;
        if tokenizer.vocab_size() != cfg.vocab_size {
            return Err(AiError::Assets(format!(
                "vocab.txt has {} pieces, config.json says {}",
                tokenizer.vocab_size(),
                cfg.vocab_size
            )));
        }
        let device = Device::Cpu;
        let weights = read("model.safetensors")?;
        use crate::encoder::{kernel, Kernel};
        let kernel = how.kernel.unwrap_or_else(kernel);
        let int8 = match precision {
            Precision::Auto => Some(kernel != Kernel::Scalar),
            Precision::Int8 => Some(true),
            Precision::F32 => Some(false),
            Precision::Reference => None,
        };
        let encoder = match int8 {
            Some(int8) => {
                let tensors = crate::encoder::read_safetensors(&weights)?;
                drop(weights);
                Encoder::Fast(crate::encoder::FastBert::new(&cfg, tensors, int8, kernel)?)
            }
            None => {
                let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)?;
                Encoder::Reference(Bert::load(&cfg, vb)?)
            }
        };
        let max_tokens = MINILM_MAX_TOKENS.min(cfg.max_position_embeddings);
        Ok(MiniLm {
            id: MINILM_ID.into(),
            encoder,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            tokenizer,
            hidden: cfg.hidden_size,
            max_tokens,
            batch: DEFAULT_BATCH,
            device,
        })
    }

    /// Sets the number of texts per forward pass (at least 1).
    pub fn with_batch_size(mut self, batch: usize) -> MiniLm {
        self.batch = batch.max(1);
        self
    }

    /// Sets the number of threads the encoder runs batches on (at least 1; the reference encoder
    /// uses candle's own threads).
    pub fn with_threads(mut self, threads: usize) -> MiniLm {
        self.threads = threads.max(1);
        self
    }

    /// "int8", "f32" or "f32 (reference)": how the encoder runs.
    pub fn precision_name(&self) -> &'static str {
        match &self.encoder {
            Encoder::Reference(_) => "f32 (reference)",
            Encoder::Fast(b) if b.is_int8() => match b.kernel() {
                crate::encoder::Kernel::Amx => "int8 (AMX)",
                crate::encoder::Kernel::Vnni => "int8 (AVX-512 VNNI)",
                crate::encoder::Kernel::AvxVnni => "int8 (AVX-VNNI)",
                crate::encoder::Kernel::Avx2 => "int8 (AVX2)",
                crate::encoder::Kernel::Scalar => "int8 (scalar)",
            },
            Encoder::Fast(_) => "f32",
        }
    }

    /// Sets the identifier reported by [`Embedder::id`] (e.g. when loading another BERT encoder).
    pub fn with_id(mut self, id: impl Into<String>) -> MiniLm {
        self.id = id.into();
        self
    }

    /// The model's tokenizer.
    pub fn tokenizer(&self) -> &WordPieceTokenizer {
        &self.tokenizer
    }

    /// The windows a text is embedded in: `[CLS] pieces [SEP]` of at most the model's length each.
    /// A text that fits is one window; a longer one is cut into consecutive windows, so that no
    /// piece of it is dropped and no forward pass exceeds the window.
    fn windows(&self, text: &str, pieces: usize) -> Vec<Vec<u32>> {
        let inner = pieces.min(self.max_tokens.saturating_sub(2)).max(1);
        let pieces = self.tokenizer.tokenize_ids(text);
        if pieces.is_empty() {
            return vec![vec![self.tokenizer.cls_id(), self.tokenizer.sep_id()]];
        }
        pieces
            .chunks(inner)
            .map(|c| {
                let mut ids = Vec::with_capacity(c.len() + 2);
                ids.push(self.tokenizer.cls_id());
                ids.extend_from_slice(c);
                ids.push(self.tokenizer.sep_id());
                ids
            })
            .collect()
    }

    /// Embeds one batch of encodings in one forward pass: pads to the longest, mean-pools over the
    /// mask, L2-normalises.
    fn embed_batch(&self, encodings: &[&Vec<u32>]) -> Result<Vec<Vec<f32>>, AiError> {
        let b = encodings.len();
        let s = encodings.iter().map(|e| e.len()).max().unwrap_or(2);
        let pad = self.tokenizer.pad_id();
        let mut ids = Vec::with_capacity(b * s);
        let mut mask = Vec::with_capacity(b * s);
        for e in encodings {
            ids.extend_from_slice(e);
            ids.extend(std::iter::repeat_n(pad, s - e.len()));
            mask.extend(std::iter::repeat_n(1f32, e.len()));
            mask.extend(std::iter::repeat_n(0f32, s - e.len()));
        }
        let Encoder::Reference(bert) = &self.encoder else {
            return Err(AiError::Model("the reference encoder is not loaded".into()));
        };
        let ids = Tensor::from_vec(ids, (b, s), &self.device)?;
        let mask = Tensor::from_vec(mask, (b, s), &self.device)?;
        let hidden = bert.forward(&ids, &mask)?;
        // Mean over the real tokens.
        let m = mask.unsqueeze(2)?; // (b, s, 1)
        let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (b, h)
        let counts = m.sum(1)?.clamp(1e-9, f64::MAX)?; // (b, 1)
        let mean = summed.broadcast_div(&counts)?;
        let norms = mean.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
        let unit = mean.broadcast_div(&norms)?;
        Ok(unit.to_vec2::<f32>()?)
    }

    /// Each text's window vectors, in order, with the pieces each window holds: a text that fits
    /// the model's window has one, a longer one one per consecutive window (see `windows`). Each
    /// vector is mean-pooled and L2-normalised.
    pub fn embed_windows(&self, texts: &[&str]) -> Result<Vec<Vec<WindowVector>>, AiError> {
        self.embed_windows_of(texts, usize::MAX)
    }

    /// [`MiniLm::embed_windows`] with windows of at most `pieces` word pieces (and at most the
    /// model's window).
    pub fn embed_windows_of(&self, texts: &[&str], pieces: usize) -> Result<Vec<Vec<WindowVector>>, AiError> {
        Ok(self.embed_windows_asking(texts, pieces, &mut |_| true)?.expect("nothing asked to stop"))
    }

    /// [`MiniLm::embed_windows_of`], asking `next(done)` before each batch of windows and once at
    /// the end, `done` the texts' share of the windows embedded so far; `None` once it answered
    /// `false` (see [`Embedder::embed_documents_in_parts`]).
    fn embed_windows_asking(
        &self,
        texts: &[&str],
        pieces: usize,
        next: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Vec<Vec<WindowVector>>>, AiError> {
        if texts.is_empty() {
            next(0);
            return Ok(Some(Vec::new()));
        }
        // (text, window) pairs, batched by length so little is padded; given back per text.
        let windows: Vec<Vec<Vec<u32>>> = texts.iter().map(|t| self.windows(t, pieces)).collect();
        let mut order: Vec<(usize, usize, usize)> = windows
            .iter()
            .enumerate()
            .flat_map(|(i, ws)| ws.iter().enumerate().map(move |(j, w)| (w.len(), i, j)))
            .collect();
        order.sort_unstable();
        // Windows done, told as the same share of the texts.
        let (all, count) = (order.len(), texts.len());
        let mut next = |windows: usize| next(windows * count / all);
        // One vector per window, in `order`.
        let vectors: Vec<Vec<f32>> = match &self.encoder {
            Encoder::Fast(bert) => {
                let seqs: Vec<&[u32]> = order.iter().map(|&(_, i, j)| windows[i][j].as_slice()).collect();
                match bert.embed_asking(&seqs, self.threads, &mut next) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            Encoder::Reference(_) => {
                let mut out = Vec::with_capacity(order.len());
                for group in order.chunks(self.batch) {
                    if !next(out.len()) {
                        return Ok(None);
                    }
                    let batch: Vec<&Vec<u32>> = group.iter().map(|&(_, i, j)| &windows[i][j]).collect();
                    out.extend(self.embed_batch(&batch)?);
                }
                next(out.len());
                out
            }
        };
        let mut out: Vec<Vec<WindowVector>> =
            windows.iter().map(|ws| vec![(0, Vec::new()); ws.len()]).collect();
        for (&(len, i, j), v) in order.iter().zip(vectors) {
            out[i][j] = (len - 2, v);
        }
        Ok(Some(out))
    }
}

impl Embedder for MiniLm {
    fn id(&self) -> &str {
        &self.id
    }

    fn describe(&self) -> String {
        format!("{} · {}", self.id, self.precision_name())
    }

    fn dim(&self) -> usize {
        self.hidden
    }

    fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Texts longer than the window are embedded window by window and the windows' vectors
    /// averaged, weighted by their pieces, then normalised again.
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, AiError> {
        Ok(self.embed_windows(texts)?.iter().map(|ws| mean_of_windows(ws, self.hidden)).collect())
    }

    /// The whole list as one call, asking `next` before each of the encoder's own batches (a few
    /// hundred pieces): `part` is not needed.
    fn embed_documents_in_parts(
        &self,
        texts: &[&str],
        _part: usize,
        next: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Vec<Vec<f32>>>, AiError> {
        let windows = self.embed_windows_asking(texts, usize::MAX, next)?;
        Ok(windows.map(|w| w.iter().map(|ws| mean_of_windows(ws, self.hidden)).collect()))
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, AiError> {
        self.embed_documents(&[text])?
            .pop()
            .ok_or_else(|| AiError::Model("the model returned no embedding".into()))
    }
}
