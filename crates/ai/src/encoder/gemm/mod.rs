//! `y = x Wᵀ + b` with 8-bit integers: the weights quantized once per output channel (symmetric,
//! signed, to ±63), each activation row quantized on the fly (symmetric, stored offset as unsigned
//! bytes: to ±127 offset by 128, or ±63 offset by 64 for AVX2, see below), multiplied as u8 × i8
//! with AMX (`tdpbusd`: a 16 × 16 block of sums of 64 products an instruction, on Sapphire Rapids
//! and later), AVX-512 VNNI (`vpdpbusd`: 64 multiply-adds an instruction), AVX-VNNI (`vpdpbusd` on
//! 256-bit registers: 32) or AVX2 (`vpmaddubsw` then `vpmaddwd`: 32 in two instructions), and
//! scaled back to f32. The kernels live in [`avx512`] and [`avx256`]; the scalar one here is the
//! reference they are tested against.
//!
//! The weights keep seven bits so that AVX2's pairwise 16-bit sums cannot saturate
//! (2 · 255 · 63 < 2¹⁵). AVX2 has no one-instruction multiply-add into 32 bits, and widening each
//! pair of products costs as much as making it; with activations of seven bits (±63, offset by
//! 64) two groups' pairs add up in 16 bits before they are widened (4 · 127 · 63 < 2¹⁵), a tenth
//! more throughput for the whole encoder. The kernels with a 32-bit multiply-add keep eight bits.
//! So vectors depend on the kernel's activation range ([`Activations`]), not on anything else:
//! every kernel computes exactly the integers the scalar kernel computes from the same bytes.
//!
//! Offsetting a row by `zero` adds `zero · Σₖ w[n][k]` to every output of column `n`; that sum is
//! kept per column and taken off again.

use super::pair::Pair;

#[cfg(target_arch = "x86_64")]
mod avx256;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
pub(super) use avx512::TileConfig;

/// Rows of activations one AVX-512 VNNI kernel call computes.
const MR: usize = 8;
/// Output columns one kernel call computes: two 16-lane registers.
const NR: usize = 32;
/// The fewest rows worth a part of their own in a product shared by a pair of threads.
const MIN_ROWS_A_THREAD: usize = 4;
/// The most parts a shared product is cut into (claimed by two threads: a late helper leaves the
/// caller a fraction to do, not half).
const PARTS: usize = 4;
/// The largest weight magnitude after quantization (see the module note).
const WEIGHT_MAX: f32 = 63.0;

/// A linear layer's weights, quantized and packed for the kernel.
pub struct QuantLinear {
    /// Input width (a multiple of 4).
    pub k: usize,
    /// Output width (a multiple of [`NR`]).
    pub n: usize,
    /// Column panels of `NR` columns; within a panel, for each group of four inputs, `NR × 4`
    /// signed bytes: the four weights of each column in turn (the layout `vpdpbusd` reads).
    packed: Vec<i8>,
    /// Per output column: the weight scale, `Σ q` (times an activation row's offset, what the
    /// offset adds to the column's sums), and the bias.
    scale: Vec<f32>,
    sums: Vec<i32>,
    bias: Vec<f32>,
}

impl QuantLinear {
    /// Quantizes `weight` (`n` rows of `k`, as PyTorch stores a linear layer) and keeps `bias`.
    /// `None` when the shape does not suit the kernel.
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Option<QuantLinear> {
        if !k.is_multiple_of(4) || !n.is_multiple_of(NR) || weight.len() != n * k || bias.len() != n {
            return None;
        }
        let mut q = vec![0i8; n * k];
        let mut scale = vec![0f32; n];
        let mut sums = vec![0i32; n];
        for c in 0..n {
            let row = &weight[c * k..(c + 1) * k];
            let max = row.iter().fold(0f32, |m, x| m.max(x.abs()));
            let s = if max > 0.0 { max / WEIGHT_MAX } else { 1.0 };
            scale[c] = s;
            let mut sum = 0i32;
            for (j, &w) in row.iter().enumerate() {
                let v = (w / s).round().clamp(-WEIGHT_MAX, WEIGHT_MAX) as i8;
                q[c * k + j] = v;
                sum += v as i32;
            }
            sums[c] = sum;
        }
        let mut packed = vec![0i8; n * k];
        let mut at = 0;
        for panel in (0..n).step_by(NR) {
            for g in (0..k).step_by(4) {
                for c in panel..panel + NR {
                    packed[at..at + 4].copy_from_slice(&q[c * k + g..c * k + g + 4]);
                    at += 4;
                }
            }
        }
        Some(QuantLinear { k, n, packed, scale, sums, bias: bias.to_vec() })
    }

    /// `out[m][..n] = x[m] Wᵀ + b` for the `rows` rows of `x` (each `k` wide), on `kernel`, which
    /// the CPU must have (one of [`kernels`]); with a `pair`, half the rows on its helper (a lone
    /// query's product: latency, not throughput). `scratch` holds the quantized rows between calls.
    #[inline(always)]
    pub fn forward(
        &self,
        kernel: Kernel,
        x: &[f32],
        rows: usize,
        out: &mut Vec<f32>,
        scratch: &mut Quantized,
        pair: Option<&Pair>,
    ) {
        debug_assert_eq!(x.len(), rows * self.k);
        scratch.quantize(x, rows, self.k, kernel.activations());
        self.multiply(kernel, rows, out, scratch, pair);
    }

    /// [`Self::forward`] of `map(x)` (all of `x`'s rows): `map` turns each row of `x` in place just
    /// before the row is quantized, while it is in cache (GELU before a block's output layer: one
    /// pass over the wide activations where there were two).
    #[inline(always)]
    pub fn forward_mapped(
        &self,
        kernel: Kernel,
        x: &mut [f32],
        out: &mut Vec<f32>,
        scratch: &mut Quantized,
        pair: Option<&Pair>,
        map: impl Fn(&mut [f32]),
    ) {
        let rows = x.len() / self.k;
        scratch.quantize_mapped(x, rows, self.k, kernel.activations(), map);
        self.multiply(kernel, rows, out, scratch, pair);
    }

    /// The product of the `rows` rows quantized in `scratch` into `out`, split with `pair`'s
    /// helper where there is one.
    #[inline(always)]
    fn multiply(
        &self,
        kernel: Kernel,
        rows: usize,
        out: &mut Vec<f32>,
        scratch: &Quantized,
        pair: Option<&Pair>,
    ) {
        // Every kernel writes every value: the buffer is only sized, not cleared.
        out.resize(rows * self.n, 0.0);
        match pair {
            Some(pair) if rows >= 2 * MIN_ROWS_A_THREAD => {
                // Parts of whole rows, claimed by whichever thread is free.
                let parts = (rows / MIN_ROWS_A_THREAD).min(PARTS);
                let per = rows.div_ceil(parts);
                let chunks: Vec<std::sync::Mutex<(usize, &mut [f32])>> = out
                    .chunks_mut(per * self.n)
                    .enumerate()
                    .map(|(i, c)| std::sync::Mutex::new((i * per, c)))
                    .collect();
                pair.split(chunks.len(), |i| {
                    let mut part = chunks[i].lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    let (start, ref mut out) = *part;
                    let end = start + out.len() / self.n;
                    self.product(kernel, scratch, start..end, out);
                });
            }
            _ => self.product(kernel, scratch, 0..rows, out),
        }
    }

    /// Rows `range` of the product of the quantized rows `a` on `kernel` (which the CPU must
    /// have, one of [`kernels`]) into `out` (those rows, `n` values each). Inlined, like
    /// [`Quantized::quantize`], so that they are compiled for the CPU features of the encoder's
    /// forward pass that calls them.
    #[inline(always)]
    fn product(&self, kernel: Kernel, a: &Quantized, range: std::ops::Range<usize>, out: &mut [f32]) {
        debug_assert_eq!(out.len(), range.len() * self.n);
        let (rows, a) = (range.len(), a.rows(range, self.k));
        match kernel {
            // SAFETY: the CPU has AMX (the tile state granted to this process) and AVX-512, as
            // `kernel` checked; `a` holds `rows` rows of `k` bytes followed by at least enough
            // rows to make a multiple of 32 (see `Quantized::quantize`), `k` is a multiple of 64,
            // `out` holds `rows × n`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Amx if self.k.is_multiple_of(64) => unsafe { self.matmul_amx(&a, rows, out) },
            // SAFETY: the CPU has the features `matmul_vnni` is compiled for (`kernel` checked; an
            // AMX CPU has AVX-512 VNNI too); the shapes agree: `a` holds `rows` rows of `k`
            // bytes, `out` `rows × n` values.
            #[cfg(target_arch = "x86_64")]
            Kernel::Amx | Kernel::Vnni => unsafe { self.matmul_vnni(&a, rows, out) },
            // SAFETY: as above, for AVX2, FMA and AVX-VNNI.
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => unsafe { self.matmul_avx_vnni(&a, rows, out) },
            // SAFETY: as above, for AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.matmul_avx2(&a, rows, out) },
            _ => self.matmul_scalar(&a, rows, out),
        }
    }

    /// The same product without SIMD: the reference the kernel is tested against, and the path
    /// on CPUs without VNNI.
    fn matmul_scalar(&self, a: &Rows, rows: usize, out: &mut [f32]) {
        let k = self.k;
        for m in 0..rows {
            let arow = &a.bytes[m * k..(m + 1) * k];
            for c in 0..self.n {
                let (panel, col) = (c / NR, c % NR);
                let mut acc = 0i32;
                for g in 0..k / 4 {
                    let base = (panel * (k / 4) + g) * NR * 4 + col * 4;
                    for i in 0..4 {
                        acc += arow[g * 4 + i] as i32 * self.packed[base + i] as i32;
                    }
                }
                out[m * self.n + c] =
                    (acc - a.zero * self.sums[c]) as f32 * a.scale[m] * self.scale[c] + self.bias[c];
            }
        }
    }
}

/// The integer kernel this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kernel {
    /// AMX tiles (with AVX-512 for the rest).
    Amx,
    /// AVX-512 with VNNI.
    Vnni,
    /// AVX-VNNI: `vpdpbusd` on 256-bit registers (Intel Core from Alder Lake, Core Ultra).
    AvxVnni,
    /// AVX2 with FMA.
    Avx2,
    /// Neither: plain loops (tests; `Precision::Auto` runs f32 on such CPUs). The default: every
    /// CPU has it.
    #[default]
    Scalar,
}

/// The fastest kernel this CPU has.
pub fn kernel() -> Kernel {
    static KERNEL: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
    *KERNEL.get_or_init(|| kernels()[0])
}

/// How a kernel's activation rows are quantized: each scaled by its largest magnitude to
/// `−max…max`, then offset by `zero` into unsigned bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Activations {
    max: f32,
    zero: i32,
}

/// Eight bits: ±127, offset by 128.
const EIGHT_BITS: Activations = Activations { max: 127.0, zero: 128 };
/// Seven bits: ±63, offset by 64 (AVX2's, see the module note).
const SEVEN_BITS: Activations = Activations { max: 63.0, zero: 64 };

impl Kernel {
    /// The activation range this kernel's products take (see the module note).
    pub fn activations(self) -> Activations {
        match self {
            Kernel::Avx2 => SEVEN_BITS,
            _ => EIGHT_BITS,
        }
    }

    /// The kernel a name stands for (`amx`, `vnni`, `avxvnni`, `avx2`, `scalar`), as `FOLIO_INT8_KERNEL`
    /// names one to measure it.
    pub fn parse(name: &str) -> Option<Kernel> {
        match name {
            "amx" => Some(Kernel::Amx),
            "vnni" => Some(Kernel::Vnni),
            "avxvnni" => Some(Kernel::AvxVnni),
            "avx2" => Some(Kernel::Avx2),
            "scalar" => Some(Kernel::Scalar),
            _ => None,
        }
    }
}

/// The kernels this CPU runs, fastest first (the scalar one last). AMX counts only once the
/// kernel has granted this process the tile state (Linux's `ARCH_REQ_XCOMP_PERM`).
pub fn kernels() -> Vec<Kernel> {
    let mut out = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let vnni = has!("avx512f") && has!("avx512bw") && has!("avx512vnni");
        if vnni && amx_granted() {
            out.push(Kernel::Amx);
        }
        if vnni {
            out.push(Kernel::Vnni);
        }
        let avx2 = has!("avx2") && has!("fma");
        if avx2 && has!("avxvnni") {
            out.push(Kernel::AvxVnni);
        }
        if avx2 {
            out.push(Kernel::Avx2);
        }
    }
    out.push(Kernel::Scalar);
    out
}

/// Whether the CPU has AMX with 8-bit products and the OS lets this process use its tiles (asked
/// once; the grant holds for every thread of the process).
#[cfg(target_arch = "x86_64")]
fn amx_granted() -> bool {
    static GRANTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *GRANTED.get_or_init(|| {
        // CPUID leaf 7, sub-leaf 0: EDX bit 24 AMX-TILE, bit 25 AMX-INT8.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86_64 CPU and only reads identification registers.
        let leaf = unsafe { std::arch::x86_64::__cpuid_count(7, 0) };
        if leaf.edx & (1 << 24) == 0 || leaf.edx & (1 << 25) == 0 {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
            const XFEATURE_XTILEDATA: libc::c_long = 18;
            // SAFETY: arch_prctl with ARCH_REQ_XCOMP_PERM only asks the kernel to let this process
            // use the AMX tile data state; it reads and writes no memory of ours.
            unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 }
        }
        #[cfg(not(target_os = "linux"))]
        false
    })
}

/// Activation rows quantized to bytes (see [`Activations`]).
#[derive(Default)]
pub struct Quantized {
    bytes: Vec<u8>,
    scale: Vec<f32>,
    /// The offset of the rows quantized last.
    zero: i32,
}

/// One row quantized into `bytes` to `act`'s range; returns its scale. Each value is scaled and
/// offset in one step, `v / s + zero + ½`, then clamped and truncated: rounded to nearest, ties
/// up. Written so that it vectorises to a multiply, an add, a minimum, a maximum, a conversion
/// and saturating packs, about three times faster than rounding each value half away from zero
/// and offsetting it after (which cost NaN-aware clamps and a byte shuffle per eight values).
#[inline(always)]
fn quantize_row(row: &[f32], bytes: &mut [u8], act: Activations) -> f32 {
    let max = super::math::max_abs(row);
    let s = if max > 0.0 { max / act.max } else { 1.0 };
    let inv = 1.0 / s;
    let offset = act.zero as f32 + 0.5;
    let (low, high) = (offset - act.max, offset + act.max);
    for (b, &v) in bytes.iter_mut().zip(row) {
        let q = v * inv + offset;
        // Comparisons, not `max`/`min` (which keep the other operand of a NaN at a cost): a NaN
        // fails the first and becomes the low bound.
        let q = if q > low { q } else { low };
        let q = if q < high { q } else { high };
        // SAFETY: q lies in [low, high], within [0.5, 255.5]: finite and representable as an i32.
        let r = unsafe { q.to_int_unchecked::<i32>() };
        // Already in 0..=255: the clamp only lets the conversion be a saturating pack.
        *b = r.clamp(0, 255) as u8;
    }
    s
}

/// Rows of [`Quantized`] from one on: their bytes (with every row after them and the padding),
/// and their scales.
pub struct Rows<'a> {
    bytes: &'a [u8],
    scale: &'a [f32],
    /// Their offset ([`Activations`]).
    zero: i32,
}

impl Quantized {
    /// Quantizes `rows` rows of `k`, in a buffer of at least a multiple of 32 rows and 32 more,
    /// so that the AMX kernel's blocks of 32 rows stay inside it from whichever row a part of the
    /// product starts (what the rows past `rows` hold is never written out). The buffer only grows:
    /// the batches of one thread are of similar size, and filling it anew each call cost a
    /// product's worth of memory traffic.
    #[inline(always)]
    fn quantize(&mut self, x: &[f32], rows: usize, k: usize, act: Activations) {
        self.make_room(rows, k, act);
        for (row, bytes) in x.chunks_exact(k).zip(self.bytes.chunks_exact_mut(k)) {
            self.scale.push(quantize_row(row, bytes, act));
        }
    }

    /// [`Self::quantize`] of each row of `x` after `map` has turned it in place.
    #[inline(always)]
    fn quantize_mapped(
        &mut self,
        x: &mut [f32],
        rows: usize,
        k: usize,
        act: Activations,
        map: impl Fn(&mut [f32]),
    ) {
        self.make_room(rows, k, act);
        for (row, bytes) in x.chunks_exact_mut(k).zip(self.bytes.chunks_exact_mut(k)) {
            map(row);
            self.scale.push(quantize_row(row, bytes, act));
        }
    }

    /// Room for `rows` rows of `k` bytes and the padding (see [`Self::quantize`], never read
    /// into an output), for rows in `act`'s range; no scales yet.
    #[inline(always)]
    fn make_room(&mut self, rows: usize, k: usize, act: Activations) {
        let need = (rows.next_multiple_of(32) + 32) * k;
        if self.bytes.len() < need {
            self.bytes.resize(need, act.zero as u8);
        }
        self.scale.clear();
        self.zero = act.zero;
    }

    /// The rows `range` (of `k` bytes each).
    fn rows(&self, range: std::ops::Range<usize>, k: usize) -> Rows<'_> {
        Rows { bytes: &self.bytes[range.start * k..], scale: &self.scale[range], zero: self.zero }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A layer's weights and biases, and rows of input, of the given shape: values in the ranges
    /// MiniLM's layers see (weights within ±0.2, activations within ±3).
    fn layer_and_input(
        n: usize,
        k: usize,
        rows: usize,
    ) -> impl Strategy<Value = (Vec<f32>, Vec<f32>, Vec<f32>)> {
        (
            proptest::collection::vec(-0.2f32..0.2, n * k),
            proptest::collection::vec(-1f32..1.0, n),
            proptest::collection::vec(-3f32..3.0, rows * k),
        )
    }

    /// Shapes: k = 36 takes the VNNI path on AMX CPUs (the tiles need multiples of 64), k = 128
    /// the tiles; the row counts cover a single row, partial and whole blocks of rows.
    fn shape() -> impl Strategy<Value = (usize, usize, usize)> {
        (
            proptest::sample::select(vec![(64usize, 36usize), (64, 128)]),
            proptest::sample::select(vec![1usize, 7, 8, 13, 32, 45]),
        )
            .prop_map(|((n, k), rows)| (n, k, rows))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Every kernel this CPU runs gives the scalar kernel's answer (the reference), and the
        /// float product's within 8-bit error.
        #[test]
        fn every_kernel_agrees_with_the_scalar_path_and_with_floats(
            ((n, k, rows), (w, b, x)) in shape().prop_flat_map(|(n, k, rows)| (Just((n, k, rows)), layer_and_input(n, k, rows)))
        ) {
            let lin = QuantLinear::new(&w, &b, n, k).unwrap();
            for kernel in kernels() {
                check_kernel(kernel, &lin, (n, k, rows), (&w, &b, &x));
            }
        }
    }

    fn check_kernel(
        kernel: Kernel,
        lin: &QuantLinear,
        (n, k, rows): (usize, usize, usize),
        (w, b, x): (&[f32], &[f32], &[f32]),
    ) {
        let mut q = Quantized::default();
        let mut fast = Vec::new();
        lin.forward(kernel, x, rows, &mut fast, &mut q, None);
        let mut slow = vec![0f32; rows * n];
        lin.matmul_scalar(&q.rows(0..rows, k), rows, &mut slow);
        let act = kernel.activations();
        assert!(q.bytes[..rows * k].iter().all(|&b| (b as i32 - act.zero).abs() as f32 <= act.max));
        // Half the rows on a helper thread: the same answer.
        let mut split = Vec::new();
        crate::encoder::pair::with_pair(|pair| lin.forward(kernel, x, rows, &mut split, &mut q, Some(pair)));
        assert_eq!(split, fast, "{kernel:?}: the product split by rows differs");
        for (a, b) in fast.iter().zip(&slow) {
            assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{kernel:?} {n}×{k}, {rows} rows: {a} vs {b}");
        }
        // Against the float product: within the worst error the rounding allows. Each input is
        // off by at most half its row's step (max |x| / act.max) and each weight by half its
        // column's (max |w| / WEIGHT_MAX), so each product by |x|·Δw/2 + |w|·Δx/2 + Δx·Δw/4.
        for m in 0..rows {
            let xr = &x[m * k..(m + 1) * k];
            let dx = xr.iter().fold(0f32, |a, v| a.max(v.abs())) / act.max;
            for c in 0..n {
                let wr = &w[c * k..(c + 1) * k];
                let dw = wr.iter().fold(0f32, |a, v| a.max(v.abs())) / WEIGHT_MAX;
                let exact: f32 = xr.iter().zip(wr).map(|(a, b)| a * b).sum::<f32>() + b[c];
                let bound: f32 = xr
                    .iter()
                    .zip(wr)
                    .map(|(a, b)| a.abs() * dw / 2.0 + b.abs() * dx / 2.0 + dx * dw / 4.0)
                    .sum();
                let got = fast[m * n + c];
                assert!(
                    (got - exact).abs() <= bound * 1.001 + 1e-4,
                    "{kernel:?}: {got} vs {exact} (bound {bound})"
                );
            }
        }
    }

    /// The quantization plainly: rounded to nearest, ties up, then clamped to the range.
    fn quantize_plainly(row: &[f32], act: Activations) -> (Vec<u8>, f32) {
        let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
        let s = if max > 0.0 { max / act.max } else { 1.0 };
        let inv = 1.0 / s;
        let (low, high) = (act.zero - act.max as i32, act.zero + act.max as i32);
        let bytes = row
            .iter()
            .map(|&v| ((v * inv + (act.zero as f32 + 0.5)).floor() as i32).clamp(low, high) as u8)
            .collect();
        (bytes, s)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Quantizing rows gives, byte for byte, what the plain per-value definition gives, and a
        /// buffer reused for fewer rows holds the new rows.
        #[test]
        fn quantized_rows_match_the_plain_definition(
            (k, x) in (1usize..70).prop_flat_map(|k| (Just(k), proptest::collection::vec(-40f32..40.0, k..=5 * k)))
        ) {
            let rows = x.len() / k;
            let x = &x[..rows * k];
            for act in [EIGHT_BITS, SEVEN_BITS] {
                let mut q = Quantized::default();
                q.quantize(&vec![3.0; (rows + 40) * k], rows + 40, k, act);
                q.quantize(x, rows, k, act);
                for (m, row) in x.chunks_exact(k).enumerate() {
                    let (bytes, scale) = quantize_plainly(row, act);
                    prop_assert_eq!(&q.bytes[m * k..(m + 1) * k], &bytes[..]);
                    prop_assert_eq!(q.scale[m], scale);
                }
                prop_assert_eq!(q.scale.len(), rows);
            }
        }
    }

    #[test]
    fn quantization_rounds_to_nearest_ties_up_within_the_range() {
        let mut q = Quantized::default();
        q.quantize(&[127.0, 0.5, -0.5, 1.5, -2.5, 0.0, -127.0, 126.6, -1.4, 2.6], 1, 10, EIGHT_BITS);
        assert_eq!(&q.bytes[..10], &[255, 129, 128, 130, 126, 128, 1, 255, 127, 131]);
        q.quantize(&[0.0; 4], 1, 4, EIGHT_BITS);
        assert_eq!((&q.bytes[..4], q.scale[0]), (&[128u8; 4][..], 1.0));
        q.quantize(&[63.0, 0.5, -0.5, 1.5, -2.5, 0.0, -63.0, 62.6], 1, 8, SEVEN_BITS);
        assert_eq!(&q.bytes[..8], &[127, 65, 64, 66, 62, 64, 1, 127]);
        // A NaN takes the low bound (and no part in the scale).
        q.quantize(&[f32::NAN, 2.0, -2.0, 1.0], 1, 4, EIGHT_BITS);
        assert_eq!(&q.bytes[..4], &[1, 255, 1, 192]);
    }

    /// Names the kernels the property test above checks on this CPU (`scripts/test.sh` shows it:
    /// a CI log says which kernels ran where).
    #[test]
    fn the_kernels_this_cpu_runs_end_with_the_scalar_one() {
        let all = kernels();
        println!("8-bit kernels checked against the scalar one on this CPU: {all:?}");
        assert_eq!(all.last(), Some(&Kernel::Scalar));
        assert_eq!(kernel(), all[0]);
    }

    /// The largest sums the kernels can meet (every activation and weight at its bound, of one
    /// sign and of both): no kernel's partial sums saturate, AVX2's 16-bit sums of two pairs
    /// included.
    #[test]
    fn the_largest_products_do_not_saturate() {
        let (n, k, rows) = (64, 128, 8);
        for (w, x) in [(0.2f32, 3.0f32), (-0.2, 3.0), (0.2, -3.0)] {
            let (w, b, x) = (vec![w; n * k], vec![0.0; n], vec![x; rows * k]);
            let lin = QuantLinear::new(&w, &b, n, k).unwrap();
            for kernel in kernels() {
                check_kernel(kernel, &lin, (n, k, rows), (&w, &b, &x));
            }
        }
    }

    #[test]
    fn shapes_the_kernel_cannot_take_are_refused() {
        assert!(QuantLinear::new(&[0.0; 30 * 4], &[0.0; 30], 30, 4).is_none());
        assert!(QuantLinear::new(&[0.0; 32 * 3], &[0.0; 32], 32, 3).is_none());
        assert!(QuantLinear::new(&[0.0; 32 * 4], &[0.0; 32], 32, 4).is_some());
    }
}
