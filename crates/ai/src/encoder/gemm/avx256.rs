//! The 256-bit kernels, for CPUs without AVX-512: AVX-VNNI (`vpdpbusd` on ymm registers, Intel
//! Core from Alder Lake) and AVX2 alone (`vpmaddubsw` into pairs of 16-bit sums, then `vpmaddwd`
//! against ones into 32-bit sums). Both share one loop nest, differing in the multiply-add step
//! ([`Step`]):
//!
//! - register blocking: `R` rows × 16 columns (half a packed panel) in `2 R` accumulators, the
//!   activation bytes broadcast four at a time, the two weight vectors loaded once per group of
//!   four inputs and used `R` times (R = 6 for AVX-VNNI). AVX2 takes two groups a step (their
//!   pairs of products summed in 16 bits before one widening, which its seven-bit activations
//!   allow: see the parent module), so four weight vectors, two broadcasts, temporaries and the
//!   ones vector beside the accumulators: R = 3 keeps them within the sixteen ymm registers;
//! - cache blocking: [`ROW_BLOCK`] rows at a time, so that a block of activations (at most
//!   `ROW_BLOCK · k` bytes) stays in L2 while every half panel of weights (`k · 16` bytes, at most
//!   24 KiB) is read from L1 for the whole block.

use super::{QuantLinear, Rows, NR};
use std::arch::x86_64::*;

/// Rows of activations one pass over the weights serves.
const ROW_BLOCK: usize = 48;

/// One multiply-add step: `acc + Σ₄ a · b` per 32-bit lane, `a` unsigned and `b` signed bytes.
trait Step {
    /// Rows one call of the tile computes.
    const ROWS: usize;
    /// Whether the step takes two groups of four inputs at once ([`Step::step2`]).
    const PAIRED: bool;
    /// # Safety
    /// The CPU must have the step's features.
    unsafe fn step(acc: __m256i, a: __m256i, b: __m256i) -> __m256i;
    /// Two steps: `acc + Σ₄ a0 · b0 + Σ₄ a1 · b1`.
    ///
    /// # Safety
    /// As [`Step::step`].
    #[inline(always)]
    unsafe fn step2(acc: __m256i, a0: __m256i, b0: __m256i, a1: __m256i, b1: __m256i) -> __m256i {
        // SAFETY: the caller's guarantees.
        unsafe { Self::step(Self::step(acc, a0, b0), a1, b1) }
    }
}

/// AVX2: pairs of u8 × i8 products summed to 16 bits (no saturation: weights keep 7 bits), then
/// pairs of those to 32 bits.
struct Avx2;

impl Step for Avx2 {
    const ROWS: usize = 3;
    const PAIRED: bool = true;
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn step(acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
        let pairs = _mm256_maddubs_epi16(a, b);
        _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
    }
    /// Two groups' pairs added in 16 bits before they are widened: activations keep seven bits
    /// and weights six and a sign, so four products sum to at most 4 · 127 · 63 < 2¹⁵.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn step2(acc: __m256i, a0: __m256i, b0: __m256i, a1: __m256i, b1: __m256i) -> __m256i {
        let quads = _mm256_add_epi16(_mm256_maddubs_epi16(a0, b0), _mm256_maddubs_epi16(a1, b1));
        _mm256_add_epi32(acc, _mm256_madd_epi16(quads, _mm256_set1_epi16(1)))
    }
}

/// AVX-VNNI: four products and the sum in one instruction.
struct AvxVnni;

impl Step for AvxVnni {
    const ROWS: usize = 6;
    const PAIRED: bool = false;
    #[inline]
    #[target_feature(enable = "avx2,fma,avxvnni")]
    unsafe fn step(acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, a, b)
    }
}

impl QuantLinear {
    /// # Safety
    /// The CPU must have AVX2 and FMA; `a` must hold `rows` rows of `self.k` bytes and `out`
    /// `rows × self.n` values.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn matmul_avx2(&self, a: &Rows, rows: usize, out: &mut [f32]) {
        // SAFETY: the caller's guarantees, and the CPU has what `Avx2::step` needs.
        unsafe { self.matmul_ymm::<Avx2>(a, rows, out) }
    }

    /// # Safety
    /// The CPU must have AVX2, FMA and AVX-VNNI; the shapes as [`Self::matmul_avx2`].
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(super) unsafe fn matmul_avx_vnni(&self, a: &Rows, rows: usize, out: &mut [f32]) {
        // SAFETY: the caller's guarantees, and the CPU has what `AvxVnni::step` needs.
        unsafe { self.matmul_ymm::<AvxVnni>(a, rows, out) }
    }

    /// The loop nest: row blocks, then half panels, then `S::ROWS` rows at a time.
    ///
    /// # Safety
    /// As the callers: the CPU has `S`'s features; `a` holds `rows` rows of `k` bytes, `out`
    /// `rows × n` values.
    #[inline(always)]
    unsafe fn matmul_ymm<S: Step>(&self, a: &Rows, rows: usize, out: &mut [f32]) {
        for block in (0..rows).step_by(ROW_BLOCK) {
            let end = (block + ROW_BLOCK).min(rows);
            for half in 0..self.n / 16 {
                let mut m0 = block;
                while m0 < end {
                    let mr = S::ROWS.min(end - m0);
                    // SAFETY: rows m0..m0+mr lie inside `a` and `out` (m0 + mr <= rows), and half
                    // panel `half` inside the weights (half < n / 16).
                    unsafe {
                        match mr {
                            6 => self.tile_ymm::<S, 6>(a, m0, half, out),
                            5 => self.tile_ymm::<S, 5>(a, m0, half, out),
                            4 => self.tile_ymm::<S, 4>(a, m0, half, out),
                            3 => self.tile_ymm::<S, 3>(a, m0, half, out),
                            2 => self.tile_ymm::<S, 2>(a, m0, half, out),
                            _ => self.tile_ymm::<S, 1>(a, m0, half, out),
                        }
                    }
                    m0 += mr;
                }
            }
        }
    }

    /// Rows `m0..m0 + R` × the 16 columns of half panel `half` (columns `16 half..16 half + 16`).
    ///
    /// # Safety
    /// As [`Self::matmul_ymm`], and `m0 + R <= rows`, `half < n / 16`.
    #[inline(always)]
    unsafe fn tile_ymm<S: Step, const R: usize>(&self, a: &Rows, m0: usize, half: usize, out: &mut [f32]) {
        let (k, n) = (self.k, self.n);
        let groups = k / 4;
        let (panel, side) = (half / 2, half % 2);
        debug_assert!((m0 + R) * k <= a.bytes.len() && (m0 + R) * n <= out.len());
        // SAFETY: panel `panel` starts at panel · groups · NR · 4 and holds `groups` groups of
        // NR · 4 = 128 bytes; this half's columns are the 64 bytes from side · 64 of each group
        // (two 32-byte loads). Rows m0..m0+R of `a` hold k bytes each and 4g + 4 <= k. The
        // epilogue writes columns c..c+16 <= n of rows m0..m0+R of `out` (n values a row).
        unsafe {
            let b = self.packed.as_ptr().add(panel * groups * NR * 4 + side * 64);
            let a0 = a.bytes.as_ptr().add(m0 * k);
            let mut acc = [[_mm256_setzero_si256(); 2]; R];
            let mut g = 0;
            while S::PAIRED && g + 2 <= groups {
                let bp = b.add(g * NR * 4);
                let b0 = _mm256_loadu_si256(bp as *const __m256i);
                let b1 = _mm256_loadu_si256(bp.add(32) as *const __m256i);
                let c0 = _mm256_loadu_si256(bp.add(NR * 4) as *const __m256i);
                let c1 = _mm256_loadu_si256(bp.add(NR * 4 + 32) as *const __m256i);
                for (r, acc) in acc.iter_mut().enumerate() {
                    let at = a0.add(r * k + g * 4);
                    let av = _mm256_set1_epi32((at as *const i32).read_unaligned());
                    let aw = _mm256_set1_epi32((at.add(4) as *const i32).read_unaligned());
                    acc[0] = S::step2(acc[0], av, b0, aw, c0);
                    acc[1] = S::step2(acc[1], av, b1, aw, c1);
                }
                g += 2;
            }
            while g < groups {
                let bp = b.add(g * NR * 4);
                let b0 = _mm256_loadu_si256(bp as *const __m256i);
                let b1 = _mm256_loadu_si256(bp.add(32) as *const __m256i);
                for (r, acc) in acc.iter_mut().enumerate() {
                    let av = _mm256_set1_epi32((a0.add(r * k + g * 4) as *const i32).read_unaligned());
                    acc[0] = S::step(acc[0], av, b0);
                    acc[1] = S::step(acc[1], av, b1);
                }
                g += 1;
            }
            let c0 = half * 16;
            for (r, acc) in acc.iter().enumerate() {
                let m = m0 + r;
                let sa = _mm256_set1_ps(a.scale[m]);
                for (h, v) in acc.iter().enumerate() {
                    let c = c0 + h * 8;
                    let sums = _mm256_loadu_si256(self.sums.as_ptr().add(c) as *const __m256i);
                    let off = _mm256_mullo_epi32(sums, _mm256_set1_epi32(a.zero));
                    let sw = _mm256_loadu_ps(self.scale.as_ptr().add(c));
                    let bias = _mm256_loadu_ps(self.bias.as_ptr().add(c));
                    let ints = _mm256_cvtepi32_ps(_mm256_sub_epi32(*v, off));
                    let y = _mm256_fmadd_ps(_mm256_mul_ps(ints, sa), sw, bias);
                    _mm256_storeu_ps(out.as_mut_ptr().add(m * n + c), y);
                }
            }
        }
    }
}
