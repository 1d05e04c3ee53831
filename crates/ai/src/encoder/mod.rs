//! A BERT sentence encoder for the CPU. The six linear layers of each transformer block run either
//! as 8-bit integer products ([`gemm`]: AMX, AVX-512 VNNI, AVX-VNNI or AVX2, chosen at run time) or
//! as f32 products ([`dense`]); embeddings, attention, GELU and layer norms are f32 ([`math`]). A
//! lone text (a query) hands half of each product's rows to a spinning helper thread ([`pair`]).
//!
//! Texts are not padded: the rows of every text in a batch are stacked into one matrix for the
//! linear layers, and attention runs per text over its own length, so a batch of mixed lengths
//! costs what its pieces cost. Batches run on all cores, one batch per thread.

mod batch;
mod dense;
mod gemm;
mod math;
mod pair;
pub mod peak;

use dense::DenseLinear;
pub use gemm::{kernel, kernels, Kernel};
use gemm::{QuantLinear, Quantized};

/// A linear layer in the precision the encoder runs in.
enum Linear {
    Int8(QuantLinear),
    F32(DenseLinear),
}

impl Linear {
    fn new(weight: &[f32], bias: &[f32], n: usize, k: usize, int8: bool) -> Option<Linear> {
        if int8 {
            QuantLinear::new(weight, bias, n, k).map(Linear::Int8)
        } else {
            DenseLinear::new(weight, bias, n, k).map(Linear::F32)
        }
    }

    #[inline(always)]
    fn forward(&self, x: &[f32], rows: usize, out: &mut Vec<f32>, s: &mut Quantized, how: How) {
        match self {
            Linear::Int8(l) => l.forward(how.kernel, x, rows, out, s, how.pair),
            Linear::F32(l) => l.forward(x, rows, out, how.threads),
        }
    }

    /// [`Self::forward`] of `map(x)` (all of `x`'s rows), `map` turning `x` in place row by row
    /// (in the 8-bit products, each row just before it is quantized).
    #[inline(always)]
    fn forward_mapped(
        &self,
        x: &mut [f32],
        out: &mut Vec<f32>,
        s: &mut Quantized,
        how: How,
        map: impl Fn(&mut [f32]),
    ) {
        match self {
            Linear::Int8(l) => l.forward_mapped(how.kernel, x, out, s, how.pair, map),
            Linear::F32(l) => {
                // A plain loop: an adapter's `for_each` that is not inlined is compiled without
                // this function's CPU features (see the softmax in `attention`).
                for row in x.chunks_exact_mut(l.k) {
                    map(row);
                }
                l.forward(x, x.len() / l.k, out, how.threads)
            }
        }
    }
}

/// How one batch's products run: the f32 products' threads, the 8-bit kernel, and a lone text's
/// helper thread.
#[derive(Clone, Copy)]
struct How<'a> {
    threads: usize,
    kernel: Kernel,
    pair: Option<&'a pair::Pair>,
}

use crate::AiError;
use serde::Deserialize;
use std::collections::HashMap;

/// Whether the portable forward pass may fuse multiply-adds: only where the target has them
/// without a run-time check (every aarch64; x86-64 built for FMA).
const FUSED_NATIVELY: bool = cfg!(any(target_arch = "aarch64", target_feature = "fma"));

/// A tensor of the checkpoint, flattened.
type Tensors = HashMap<String, Vec<f32>>;

struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

struct Block {
    /// Query, key and value as one 3h-wide layer.
    qkv: Linear,
    attn_out: Linear,
    attn_norm: Norm,
    intermediate: Linear,
    output: Linear,
    out_norm: Norm,
}

/// The subset of a BERT `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    /// Tokens in the WordPiece vocabulary (30522 for MiniLM): the rows of the word embeddings.
    pub vocab_size: usize,
    /// The width of every token's vector between layers (384 for MiniLM).
    pub hidden_size: usize,
    /// Transformer layers (6 for MiniLM).
    pub num_hidden_layers: usize,
    /// Attention heads per layer; `hidden_size` must be a multiple of it (12 for MiniLM).
    pub num_attention_heads: usize,
    /// The width of each layer's feed-forward part (1536 for MiniLM).
    pub intermediate_size: usize,
    /// The longest input, in tokens, that has a position embedding (512 for MiniLM).
    pub max_position_embeddings: usize,
    /// Rows of the token-type embeddings (2 for MiniLM); only type 0 is used.
    pub type_vocab_size: usize,
    /// The epsilon of the layer norms (default 1e-12).
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    /// The feed-forward activation (default `gelu`, the only one supported).
    #[serde(default = "default_act")]
    pub hidden_act: String,
}

fn default_eps() -> f64 {
    1e-12
}

fn default_act() -> String {
    "gelu".into()
}

/// The encoder's weights.
pub struct FastBert {
    int8: bool,
    /// The CPU kernel its loops and 8-bit products run on (one of [`kernels`]).
    kernel: Kernel,
    hidden: usize,
    heads: usize,
    eps: f32,
    max_positions: usize,
    vocab: usize,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    emb_norm: Norm,
    blocks: Vec<Block>,
}

/// Buffers one thread reuses from batch to batch.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    wide: Vec<f32>,
    quant: Quantized,
    /// One head's attention scores of one text (len × len).
    scores: Vec<f32>,
    /// Each row's sum of its exponentiated scores (the softmax's divisors).
    sums: Vec<f32>,
    /// Threads one product may use: all of them for a lone batch (a query), else 1 (the batches
    /// themselves run in parallel).
    threads: usize,
    /// The CPU kernel of the 8-bit products.
    kernel: Kernel,
}

impl FastBert {
    /// The encoder of a checkpoint (tensor names with or without a `bert.` prefix), its linear
    /// layers quantized to 8 bits when `int8`, run on `kernel` (which the CPU must have: one of
    /// [`kernels`]).
    pub fn new(cfg: &BertConfig, tensors: Tensors, int8: bool, kernel: Kernel) -> Result<FastBert, AiError> {
        if !kernels().contains(&kernel) {
            return Err(AiError::Config(format!(
                "this CPU has no {kernel:?} kernel (it has {:?})",
                kernels()
            )));
        }
        let prefix =
            if tensors.contains_key("bert.embeddings.word_embeddings.weight") { "bert." } else { "" };
        let h = cfg.hidden_size;
        // Each tensor is taken out as it is used (no copy of the model is kept aside).
        let tensors = std::cell::RefCell::new(tensors);
        let get = |name: &str, len: usize| -> Result<Vec<f32>, AiError> {
            let full = format!("{prefix}{name}");
            let t = tensors
                .borrow_mut()
                .remove(&full)
                .ok_or_else(|| AiError::Assets(format!("model.safetensors has no {full}")))?;
            if t.len() != len {
                return Err(AiError::Assets(format!("{full} has {} values, expected {len}", t.len())));
            }
            Ok(t)
        };
        let linear = |name: &str, n: usize, k: usize| -> Result<Linear, AiError> {
            let w = get(&format!("{name}.weight"), n * k)?;
            let b = get(&format!("{name}.bias"), n)?;
            Linear::new(&w, &b, n, k, int8)
                .ok_or_else(|| AiError::Assets(format!("{name}: shape {n}×{k} unsupported")))
        };
        let norm = |name: &str| -> Result<Norm, AiError> {
            Ok(Norm { gamma: get(&format!("{name}.weight"), h)?, beta: get(&format!("{name}.bias"), h)? })
        };
        let mut blocks = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let l = format!("encoder.layer.{i}");
            let own = format!("{l}.attention.self");
            let mut w = Vec::with_capacity(3 * h * h);
            let mut b = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                w.extend(get(&format!("{own}.{part}.weight"), h * h)?);
                b.extend(get(&format!("{own}.{part}.bias"), h)?);
            }
            let qkv = Linear::new(&w, &b, 3 * h, h, int8)
                .ok_or_else(|| AiError::Assets(format!("{own}: hidden size {h} unsupported")))?;
            blocks.push(Block {
                qkv,
                attn_out: linear(&format!("{l}.attention.output.dense"), h, h)?,
                attn_norm: norm(&format!("{l}.attention.output.LayerNorm"))?,
                intermediate: linear(&format!("{l}.intermediate.dense"), cfg.intermediate_size, h)?,
                output: linear(&format!("{l}.output.dense"), h, cfg.intermediate_size)?,
                out_norm: norm(&format!("{l}.output.LayerNorm"))?,
            });
        }
        Ok(FastBert {
            int8,
            kernel,
            hidden: h,
            heads: cfg.num_attention_heads,
            eps: cfg.layer_norm_eps as f32,
            max_positions: cfg.max_position_embeddings,
            vocab: cfg.vocab_size,
            word: get("embeddings.word_embeddings.weight", cfg.vocab_size * h)?,
            position: get("embeddings.position_embeddings.weight", cfg.max_position_embeddings * h)?,
            token_type: get("embeddings.token_type_embeddings.weight", cfg.type_vocab_size * h)?[..h]
                .to_vec(),
            emb_norm: norm("embeddings.LayerNorm")?,
            blocks,
        })
    }

    /// Mean-pooled, L2-normalised vectors of `seqs` (token ids, `[CLS]` … `[SEP]`, each no longer
    /// than the model's positions), in order, on up to `threads` threads. `next(done)` (the texts
    /// embedded so far) is asked on the calling thread before each batch it takes and once when
    /// all are done: once it answers `false`, no thread takes another batch, and the answer is
    /// `None`. The threads take batches as they finish them, so they wait for one another only at
    /// the end of the whole list.
    pub fn embed_asking(
        &self,
        seqs: &[&[u32]],
        threads: usize,
        next: &mut dyn FnMut(usize) -> bool,
    ) -> Option<Vec<Vec<f32>>> {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
        let batches = batch::batches(seqs, threads.max(1));
        let claimed = AtomicUsize::new(0);
        let (done, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        let threads_asked = threads.max(1);
        let threads = threads.clamp(1, batches.len().max(1));
        let lone = batches.len() == 1;
        // `next` is asked by the calling thread only (it is neither Send nor Sync).
        let work = |mut next: Option<&mut dyn FnMut(usize) -> bool>| {
            let mut scratch = Scratch {
                threads: if lone { threads_asked } else { 1 },
                kernel: self.kernel,
                ..Scratch::default()
            };
            let mut out = Vec::new();
            loop {
                if let Some(next) = next.as_mut() {
                    if !next(done.load(Relaxed)) {
                        stop.store(true, Relaxed);
                    }
                }
                if stop.load(Relaxed) {
                    break;
                }
                let b = claimed.fetch_add(1, Relaxed);
                let Some(range) = batches.get(b) else { break };
                let batch = &seqs[range.clone()];
                // A lone text's 8-bit products go half to a helper thread.
                let vecs = if lone && threads_asked > 1 && self.int8 {
                    pair::with_pair(|pair| self.forward(batch, &mut scratch, Some(pair)))
                } else {
                    self.forward(batch, &mut scratch, None)
                };
                out.extend(range.clone().zip(vecs));
                done.fetch_add(range.len(), Relaxed);
            }
            out
        };
        let results: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..threads).map(|_| scope.spawn(|| work(None))).collect();
            let mut all = vec![work(Some(&mut *next))];
            all.extend(handles.into_iter().map(|h| h.join().expect("an encoder thread panicked")));
            all
        });
        if stop.load(Relaxed) {
            return None;
        }
        next(seqs.len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); seqs.len()];
        for (i, v) in results.into_iter().flatten() {
            out[i] = v;
        }
        Some(out)
    }

    /// Whether the linear layers run in 8 bits.
    pub fn is_int8(&self) -> bool {
        self.int8
    }

    /// The CPU kernel the encoder runs on.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    fn forward(&self, seqs: &[&[u32]], s: &mut Scratch, pair: Option<&pair::Pair>) -> Vec<Vec<f32>> {
        match self.kernel {
            // SAFETY: the CPU has the features `forward_avx512` is compiled for (`new` checked that
            // the kernel is one of this CPU's).
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni | Kernel::Amx => unsafe { self.forward_avx512(seqs, s, pair) },
            // SAFETY: as above, for AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 | Kernel::AvxVnni => unsafe { self.forward_avx2(seqs, s, pair) },
            _ => self.forward_plain::<FUSED_NATIVELY>(seqs, s, pair),
        }
    }

    /// [`Self::forward_plain`] compiled for AVX-512, so that its element-wise loops use it.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn forward_avx512(
        &self,
        seqs: &[&[u32]],
        s: &mut Scratch,
        pair: Option<&pair::Pair>,
    ) -> Vec<Vec<f32>> {
        self.forward_plain::<true>(seqs, s, pair)
    }

    /// [`Self::forward_plain`] compiled for AVX2 and FMA.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(
        &self,
        seqs: &[&[u32]],
        s: &mut Scratch,
        pair: Option<&pair::Pair>,
    ) -> Vec<Vec<f32>> {
        self.forward_plain::<true>(seqs, s, pair)
    }

    /// The forward pass; `FUSED`: whether its element-wise polynomials use fused multiply-adds
    /// (see [`math`]), which only a caller compiled with FMA passes.
    #[inline(always)]
    fn forward_plain<const FUSED: bool>(
        &self,
        seqs: &[&[u32]],
        s: &mut Scratch,
        pair: Option<&pair::Pair>,
    ) -> Vec<Vec<f32>> {
        let h = self.hidden;
        let rows: usize = seqs.iter().map(|q| q.len()).sum();
        // Embeddings (every row is written below, so the buffer is only sized).
        s.x.resize(rows * h, 0.0);
        let mut r = 0;
        for seq in seqs {
            for (p, &id) in seq.iter().enumerate() {
                let id = (id as usize).min(self.vocab - 1);
                let p = p.min(self.max_positions - 1);
                let row = &mut s.x[r * h..(r + 1) * h];
                let (w, pos) = (&self.word[id * h..(id + 1) * h], &self.position[p * h..(p + 1) * h]);
                for (((x, a), b), c) in row.iter_mut().zip(w).zip(pos).zip(&self.token_type) {
                    *x = a + b + c;
                }
                math::layer_norm::<FUSED>(row, &self.emb_norm.gamma, &self.emb_norm.beta, self.eps);
                r += 1;
            }
        }
        let how = How { threads: s.threads, kernel: s.kernel, pair };
        for block in &self.blocks {
            block.qkv.forward(&s.x, rows, &mut s.qkv, &mut s.quant, how);
            self.attention::<FUSED>(seqs, s);
            block.attn_out.forward(&s.ctx, rows, &mut s.tmp, &mut s.quant, how);
            add_norm::<FUSED>(&mut s.x, &s.tmp, &block.attn_norm, h, self.eps);
            block.intermediate.forward(&s.x, rows, &mut s.wide, &mut s.quant, how);
            block.output.forward_mapped(&mut s.wide, &mut s.tmp, &mut s.quant, how, math::gelu::<FUSED>);
            add_norm::<FUSED>(&mut s.x, &s.tmp, &block.out_norm, h, self.eps);
        }
        // Mean pooling and normalisation.
        let mut out = Vec::with_capacity(seqs.len());
        let mut r = 0;
        for seq in seqs {
            let mut v = vec![0f32; h];
            for row in s.x[r * h..(r + seq.len()) * h].chunks_exact(h) {
                v.iter_mut().zip(row).for_each(|(a, b)| *a += b);
            }
            let inv = 1.0 / seq.len().max(1) as f32;
            v.iter_mut().for_each(|a| *a *= inv);
            crate::normalize(&mut v);
            out.push(v);
            r += seq.len();
        }
        out
    }

    /// Self-attention of every text over its own tokens: `s.qkv` (rows × 3h) to `s.ctx` (rows × h),
    /// per text and head as two f32 products (scores = Q Kᵀ, context = softmax(scores) V) read in
    /// place through strides; the softmax's division comes after the second product, on each row
    /// of the context (d values) rather than of the scores (len).
    #[inline(always)]
    fn attention<const FUSED: bool>(&self, seqs: &[&[u32]], s: &mut Scratch) {
        let h = self.hidden;
        let d = h / self.heads;
        let w = 3 * h;
        let scale = 1.0 / (d as f32).sqrt();
        let rows: usize = seqs.iter().map(|q| q.len()).sum();
        // Every value is written below (the products do not read their destinations).
        s.ctx.resize(rows * h, 0.0);
        let mut r0 = 0;
        for seq in seqs {
            let len = seq.len();
            s.scores.resize(len * len, 0.0);
            for head in 0..self.heads {
                let (qo, ko, vo) = (head * d, h + head * d, 2 * h + head * d);
                let (l, w_, h_) = (len as isize, w as isize, h as isize);
                let base = r0 * w;
                // SAFETY: the views below lie inside their buffers. Q, K and V of this head are
                // the `len` rows from `r0` of `s.qkv` (rows × 3h, row stride w = 3h) at column
                // offsets qo, ko, vo (each + d ≤ 3h); Kᵀ is K read with its strides swapped. The
                // scores are `s.scores` (len × len, resized above); the context is the same rows
                // of `s.ctx` (rows × h) at column qo. Destinations do not alias their inputs.
                unsafe {
                    // scores = scale · Q Kᵀ (len × len, k = d).
                    ::gemm::gemm(
                        len,
                        len,
                        d,
                        s.scores.as_mut_ptr(),
                        1,
                        l,
                        false,
                        s.qkv.as_ptr().add(base + qo),
                        1,
                        w_,
                        s.qkv.as_ptr().add(base + ko),
                        w_,
                        1,
                        0.0,
                        scale,
                        false,
                        false,
                        false,
                        ::gemm::Parallelism::None,
                    );
                }
                // Softmax, its division left for the context's rows below. A plain loop: an
                // iterator adapter's `fold` is a function of its own, compiled without this
                // function's CPU features.
                s.sums.clear();
                for row in s.scores.chunks_exact_mut(len) {
                    s.sums.push(math::exp_below_max::<FUSED>(row));
                }
                // SAFETY: as above.
                unsafe {
                    // context = softmax(scores) V (len × d, k = len).
                    ::gemm::gemm(
                        len,
                        d,
                        len,
                        s.ctx.as_mut_ptr().add(r0 * h + qo),
                        1,
                        h_,
                        false,
                        s.scores.as_ptr(),
                        1,
                        l,
                        s.qkv.as_ptr().add(base + vo),
                        1,
                        w_,
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        ::gemm::Parallelism::None,
                    );
                }
                for (i, sum) in s.sums.iter().enumerate() {
                    let inv = 1.0 / sum;
                    let at = (r0 + i) * h + qo;
                    s.ctx[at..at + d].iter_mut().for_each(|v| *v *= inv);
                }
            }
            r0 += len;
        }
    }
}

/// `x = LayerNorm(x + y)`, row by row.
#[inline(always)]
fn add_norm<const FUSED: bool>(x: &mut [f32], y: &[f32], norm: &Norm, h: usize, eps: f32) {
    for (row, add) in x.chunks_exact_mut(h).zip(y.chunks_exact(h)) {
        row.iter_mut().zip(add).for_each(|(a, b)| *a += b);
        math::layer_norm::<FUSED>(row, &norm.gamma, &norm.beta, eps);
    }
}

/// Reads the F32 tensors of a `.safetensors` file (an 8-byte little-endian header length, a JSON
/// header naming each tensor's dtype, shape and byte range, then the data), each flattened: one
/// copy from the file's bytes, where going through candle's tensors made three.
pub fn read_safetensors(bytes: &[u8]) -> Result<Tensors, AiError> {
    let bad = |why: &str| AiError::Assets(format!("model.safetensors: {why}"));
    let len = bytes.get(..8).ok_or_else(|| bad("shorter than its header"))?;
    let len = u64::from_le_bytes(len.try_into().expect("eight bytes")) as usize;
    let header = bytes.get(8..8usize.saturating_add(len)).ok_or_else(|| bad("header past the end"))?;
    let data = &bytes[8 + len..];
    let header: HashMap<String, serde_json::Value> =
        serde_json::from_slice(header).map_err(|e| bad(&format!("header: {e}")))?;
    let mut out = HashMap::new();
    for (name, info) in header {
        if name == "__metadata__" {
            continue;
        }
        let dtype = info.get("dtype").and_then(|d| d.as_str()).unwrap_or("");
        let range = info
            .get("data_offsets")
            .and_then(|o| o.as_array())
            .and_then(|o| Some((o.first()?.as_u64()? as usize, o.get(1)?.as_u64()? as usize)))
            .ok_or_else(|| bad(&format!("{name}: no data_offsets")))?;
        if dtype != "F32" {
            // Not a weight the encoder reads (position ids are I64); a weight it needs in another
            // dtype is reported missing by `FastBert::new`.
            continue;
        }
        let raw = data
            .get(range.0..range.1)
            .filter(|r| r.len() % 4 == 0)
            .ok_or_else(|| bad(&format!("{name}: data range {range:?} outside the file")))?;
        let values = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        out.insert(name, values);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn safetensors_are_read_and_bad_files_refused() {
        let data: Vec<u8> = [1.5f32, -2.0, 0.25].iter().flat_map(|v| v.to_le_bytes()).collect();
        let ok = file(
            r#"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
            &data,
        );
        let t = read_safetensors(&ok).unwrap();
        assert_eq!(t["a"], vec![1.5, -2.0, 0.25]);
        assert_eq!(t["b"], vec![-2.0]);
        let other = file(r#"{"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}"#, &data);
        assert!(read_safetensors(&other).unwrap().is_empty());
        for bad in [
            file(r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#, &data),
            file(r#"{"a":{"dtype":"F32"}}"#, &data),
            file("not json", &data),
            vec![200, 0, 0, 0, 0, 0, 0, 0, b'{'],
            vec![1, 2],
        ] {
            assert!(read_safetensors(&bad).is_err());
        }
    }
}
