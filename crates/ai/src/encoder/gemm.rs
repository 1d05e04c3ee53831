//! `y = x Wᵀ + b` with 8-bit integers: the weights quantized once per output channel (symmetric,
//! signed, to ±63), each activation row quantized on the fly (symmetric to ±127, stored offset by
//! 128 as unsigned), multiplied as u8 × i8 with AVX-512 VNNI (`vpdpbusd`: 64 multiply-adds an
//! instruction) or AVX2 (`vpmaddubsw` then `vpmaddwd`: 32), and scaled back to f32.
//!
//! The weights keep seven bits so that AVX2's pairwise 16-bit sums cannot saturate
//! (2 · 255 · 63 < 2¹⁵); every kernel computes exactly the same integers, so vectors do not depend
//! on the CPU.
//!
//! Offsetting a row by 128 adds `128 · Σₖ w[n][k]` to every output of column `n`; that sum is kept
//! per column and taken off again.

/// Rows of activations one kernel call computes.
const MR: usize = 8;
/// Output columns one kernel call computes: two 16-lane registers.
const NR: usize = 32;
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
    /// Per output column: the weight scale, `128 · Σ q`, and the bias.
    scale: Vec<f32>,
    offset: Vec<i32>,
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
        let mut offset = vec![0i32; n];
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
            offset[c] = 128 * sum;
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
        Some(QuantLinear { k, n, packed, scale, offset, bias: bias.to_vec() })
    }

    /// `out[m][..n] = x[m] Wᵀ + b` for the `rows` rows of `x` (each `k` wide). `scratch` holds the
    /// quantized rows between calls.
    pub fn forward(&self, x: &[f32], rows: usize, out: &mut Vec<f32>, scratch: &mut Quantized) {
        debug_assert_eq!(x.len(), rows * self.k);
        scratch.quantize(x, rows, self.k);
        out.clear();
        out.resize(rows * self.n, 0.0);
        match kernel() {
            // SAFETY: the CPU has the features `matmul_vnni` is compiled for (`kernel` checked);
            // the shapes agree: `scratch` holds `rows` rows of `k` bytes, `out` `rows × n` values.
            Kernel::Vnni => unsafe { self.matmul_vnni(scratch, rows, out) },
            // SAFETY: as above, for AVX2 and FMA.
            Kernel::Avx2 => unsafe { self.matmul_avx2(scratch, rows, out) },
            Kernel::Scalar => self.matmul_scalar(scratch, rows, out),
        }
    }

    /// The same product without SIMD: the reference the kernel is tested against, and the path
    /// on CPUs without VNNI.
    fn matmul_scalar(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
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
                    (acc - self.offset[c]) as f32 * a.scale[m] * self.scale[c] + self.bias[c];
            }
        }
    }

    /// # Safety
    /// The CPU must have AVX-512 (F, BW) and VNNI; `a` must hold `rows` rows of `self.k` bytes and
    /// `out` `rows × self.n` values.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn matmul_vnni(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        let mut m0 = 0;
        while m0 < rows {
            let mr = MR.min(rows - m0);
            for panel in 0..self.n / NR {
                // SAFETY: the caller's guarantees; `tile` reads rows m0..m0+mr of `a` and panel
                // `panel` of the packed weights, and writes those rows' columns of the panel.
                unsafe {
                    match mr {
                        8 => self.tile::<8>(a, m0, panel, out),
                        7 => self.tile::<7>(a, m0, panel, out),
                        6 => self.tile::<6>(a, m0, panel, out),
                        5 => self.tile::<5>(a, m0, panel, out),
                        4 => self.tile::<4>(a, m0, panel, out),
                        3 => self.tile::<3>(a, m0, panel, out),
                        2 => self.tile::<2>(a, m0, panel, out),
                        _ => self.tile::<1>(a, m0, panel, out),
                    }
                }
            }
            m0 += mr;
        }
    }

    /// Rows `m0..m0 + R` × the `NR` columns of `panel`, accumulated in `2 R` registers.
    ///
    /// # Safety
    /// As [`Self::matmul_vnni`], and `m0 + R <= rows`, `panel < n / NR`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize>(&self, a: &Quantized, m0: usize, panel: usize, out: &mut [f32]) {
        use std::arch::x86_64::*;
        let (k, n) = (self.k, self.n);
        let groups = k / 4;
        debug_assert!((m0 + R) * k <= a.bytes.len() && (m0 + R) * n <= out.len());
        // SAFETY: panel `panel` starts at panel · groups · NR · 4 and holds `groups` groups of
        // NR · 4 bytes (two 64-byte loads each); rows m0..m0+R of `a` hold k bytes each and
        // 4g + 4 <= k; row m of `out` has n values and c + 16 <= n; offset, scale and bias have n.
        unsafe {
            let b = self.packed.as_ptr().add(panel * groups * NR * 4);
            let a0 = a.bytes.as_ptr().add(m0 * k);
            let mut acc = [[_mm512_setzero_si512(); 2]; R];
            for g in 0..groups {
                let b0 = _mm512_loadu_si512(b.add(g * NR * 4) as *const _);
                let b1 = _mm512_loadu_si512(b.add(g * NR * 4 + 64) as *const _);
                for (r, acc) in acc.iter_mut().enumerate() {
                    let av = _mm512_set1_epi32((a0.add(r * k + g * 4) as *const i32).read_unaligned());
                    acc[0] = _mm512_dpbusd_epi32(acc[0], av, b0);
                    acc[1] = _mm512_dpbusd_epi32(acc[1], av, b1);
                }
            }
            let c0 = panel * NR;
            for (r, acc) in acc.iter().enumerate() {
                let m = m0 + r;
                let sa = _mm512_set1_ps(a.scale[m]);
                for (h, v) in acc.iter().enumerate() {
                    let c = c0 + h * 16;
                    let off = _mm512_loadu_si512(self.offset.as_ptr().add(c) as *const _);
                    let sw = _mm512_loadu_ps(self.scale.as_ptr().add(c));
                    let bias = _mm512_loadu_ps(self.bias.as_ptr().add(c));
                    let ints = _mm512_cvtepi32_ps(_mm512_sub_epi32(*v, off));
                    let y = _mm512_fmadd_ps(_mm512_mul_ps(ints, sa), sw, bias);
                    _mm512_storeu_ps(out.as_mut_ptr().add(m * n + c), y);
                }
            }
        }
    }

    /// # Safety
    /// The CPU must have AVX2 and FMA; `a` must hold `rows` rows of `self.k` bytes and `out`
    /// `rows × self.n` values.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn matmul_avx2(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        let mut m0 = 0;
        while m0 < rows {
            let mr = 2.min(rows - m0);
            for panel in 0..self.n / NR {
                // SAFETY: the caller's guarantees; `tile_avx2` reads rows m0..m0+mr of `a` and
                // panel `panel`, and writes those rows' columns of the panel.
                unsafe {
                    if mr == 2 {
                        self.tile_avx2::<2>(a, m0, panel, out)
                    } else {
                        self.tile_avx2::<1>(a, m0, panel, out)
                    }
                }
            }
            m0 += mr;
        }
    }

    /// Rows `m0..m0 + R` × the `NR` columns of `panel` with AVX2: four 8-lane accumulators a row.
    ///
    /// # Safety
    /// As [`Self::matmul_avx2`], and `m0 + R <= rows`, `panel < n / NR`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn tile_avx2<const R: usize>(&self, a: &Quantized, m0: usize, panel: usize, out: &mut [f32]) {
        use std::arch::x86_64::*;
        let (k, n) = (self.k, self.n);
        let groups = k / 4;
        debug_assert!((m0 + R) * k <= a.bytes.len() && (m0 + R) * n <= out.len());
        // SAFETY: as in `tile`: every read stays inside panel `panel` of the packed weights, rows
        // m0..m0+R of `a`, and n-long rows of `out`, offset, scale and bias.
        unsafe {
            let b = self.packed.as_ptr().add(panel * groups * NR * 4);
            let a0 = a.bytes.as_ptr().add(m0 * k);
            let ones = _mm256_set1_epi16(1);
            let mut acc = [[_mm256_setzero_si256(); 4]; R];
            for g in 0..groups {
                let bp = b.add(g * NR * 4);
                let bs = [
                    _mm256_loadu_si256(bp as *const _),
                    _mm256_loadu_si256(bp.add(32) as *const _),
                    _mm256_loadu_si256(bp.add(64) as *const _),
                    _mm256_loadu_si256(bp.add(96) as *const _),
                ];
                for (r, acc) in acc.iter_mut().enumerate() {
                    let av = _mm256_set1_epi32((a0.add(r * k + g * 4) as *const i32).read_unaligned());
                    for (acc, bv) in acc.iter_mut().zip(&bs) {
                        let pairs = _mm256_maddubs_epi16(av, *bv);
                        *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(pairs, ones));
                    }
                }
            }
            let c0 = panel * NR;
            for (r, acc) in acc.iter().enumerate() {
                let m = m0 + r;
                let sa = _mm256_set1_ps(a.scale[m]);
                for (h, v) in acc.iter().enumerate() {
                    let c = c0 + h * 8;
                    let off = _mm256_loadu_si256(self.offset.as_ptr().add(c) as *const _);
                    let sw = _mm256_loadu_ps(self.scale.as_ptr().add(c));
                    let bias = _mm256_loadu_ps(self.bias.as_ptr().add(c));
                    let ints = _mm256_cvtepi32_ps(_mm256_sub_epi32(*v, off));
                    let y = _mm256_fmadd_ps(_mm256_mul_ps(ints, sa), sw, bias);
                    _mm256_storeu_ps(out.as_mut_ptr().add(m * n + c), y);
                }
            }
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn matmul_vnni(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        self.matmul_scalar(a, rows, out)
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn matmul_avx2(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        self.matmul_scalar(a, rows, out)
    }
}

/// The integer kernel this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512 with VNNI.
    Vnni,
    /// AVX2 with FMA.
    Avx2,
    /// Neither: plain loops (tests; `Precision::Auto` runs f32 on such CPUs).
    Scalar,
}

/// The fastest kernel this CPU has.
pub fn kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        static KERNEL: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
        *KERNEL.get_or_init(|| {
            if std::env::var_os("FOLIO_INT8_KERNEL").is_some_and(|v| v == "avx2") {
                // For measuring the AVX2 kernel on a machine that has VNNI too.
                if has!("avx2") && has!("fma") {
                    return Kernel::Avx2;
                }
            }
            if has!("avx512f") && has!("avx512bw") && has!("avx512vnni") {
                Kernel::Vnni
            } else if has!("avx2") && has!("fma") {
                Kernel::Avx2
            } else {
                Kernel::Scalar
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Kernel::Scalar
    }
}

/// Activation rows quantized to bytes: each row scaled by its largest magnitude to −127…127,
/// then offset by 128.
#[derive(Default)]
pub struct Quantized {
    bytes: Vec<u8>,
    scale: Vec<f32>,
}

impl Quantized {
    fn quantize(&mut self, x: &[f32], rows: usize, k: usize) {
        self.bytes.clear();
        self.bytes.resize(rows * k, 0);
        self.scale.clear();
        for (row, bytes) in x.chunks_exact(k).zip(self.bytes.chunks_exact_mut(k)) {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let s = if max > 0.0 { max / 127.0 } else { 1.0 };
            let inv = 1.0 / s;
            for (b, &v) in bytes.iter_mut().zip(row) {
                // Round half away from zero with a truncating conversion (no libm call).
                let q = v * inv;
                *b = ((q + 0.5f32.copysign(q)) as i32 + 128).clamp(1, 255) as u8;
            }
            self.scale.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    #[test]
    fn the_kernel_agrees_with_the_scalar_path_and_with_floats() {
        let (n, k) = (64, 36);
        let mut seed = 7;
        let w: Vec<f32> = (0..n * k).map(|_| lcg(&mut seed) * 0.2).collect();
        let b: Vec<f32> = (0..n).map(|_| lcg(&mut seed)).collect();
        let lin = QuantLinear::new(&w, &b, n, k).unwrap();
        for rows in [1, 7, 8, 13] {
            let x: Vec<f32> = (0..rows * k).map(|_| lcg(&mut seed) * 3.0).collect();
            let mut q = Quantized::default();
            let mut fast = Vec::new();
            lin.forward(&x, rows, &mut fast, &mut q);
            let mut slow = vec![0f32; rows * n];
            lin.matmul_scalar(&q, rows, &mut slow);
            for (a, b) in fast.iter().zip(&slow) {
                assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{a} vs {b}");
            }
            // Against the float product: 8-bit error, a small fraction of the output's range.
            for m in 0..rows {
                for c in 0..n {
                    let exact: f32 = (0..k).map(|j| x[m * k + j] * w[c * k + j]).sum::<f32>() + b[c];
                    assert!((fast[m * n + c] - exact).abs() < 0.05, "{} vs {exact}", fast[m * n + c]);
                }
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
