//! 8-bit vector codes and their products: [`quantize`] writes a vector as signed bytes and a
//! scale; [`dot_i8`] and [`dot_rows`] multiply codes on AVX2 where the CPU has it (the plain loop
//! is the reference, and both give the same integers).

/// A vector's 8-bit code and scale: normalised, then each value over the largest magnitude
/// times 127, rounded. A zero vector gets scale 0 (every cosine with it is 0).
pub fn quantize(v: &[f32], code: &mut Vec<i8>) -> f32 {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    code.clear();
    if norm == 0.0 || max == 0.0 || !norm.is_finite() {
        code.resize(v.len(), 0);
        return 0.0;
    }
    let inv = 127.0 / max;
    code.extend(v.iter().map(|x| (x * inv).round().clamp(-127.0, 127.0) as i8));
    max / 127.0 / norm
}

/// `Σ a[i] · b[i]` over signed bytes within ±127 (as [`quantize`] writes them), on AVX2 where
/// the CPU has it.
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    {
        if avx2() {
            // SAFETY: the CPU has AVX2 (checked once, above).
            return unsafe { dot_i8_avx2(a, b) };
        }
    }
    dot_i8_plain(a, b)
}

#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
}

/// The reference: widened products summed in 32 bits.
fn dot_i8_plain(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| *x as i32 * *y as i32).sum()
}

/// 32 bytes a step: `vpmaddubsw` multiplies unsigned by signed bytes, so `a`'s magnitudes
/// (`vpabsb`) meet `b` with `a`'s signs (`vpsignb`); pairs of products (at most 2 · 127² < 2¹⁵)
/// are summed to 16 bits, then to 32 (`vpmaddwd` with ones). Two accumulators a step of 64.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    // SAFETY: the caller's guarantee.
    unsafe { dot_i8_avx2_inline(a, b) }
}

/// [`dot_i8_avx2`]'s body, inlined into the AVX2 functions that call it.
///
/// # Safety
/// The CPU must have AVX2, and the caller be compiled for it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn dot_i8_avx2_inline(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let mut i = 0;
    // SAFETY: every load reads 32 bytes from i, i + 32 <= n (the loop conditions); the caller is
    // compiled for AVX2.
    unsafe {
        let ones = _mm256_set1_epi16(1);
        let mut acc = [_mm256_setzero_si256(); 2];
        macro_rules! step {
            ($acc:expr, $i:expr) => {{
                let x = _mm256_loadu_si256(a.as_ptr().add($i) as *const __m256i);
                let y = _mm256_loadu_si256(b.as_ptr().add($i) as *const __m256i);
                let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(x), _mm256_sign_epi8(y, x));
                $acc = _mm256_add_epi32($acc, _mm256_madd_epi16(pairs, ones));
            }};
        }
        while i + 64 <= n {
            step!(acc[0], i);
            step!(acc[1], i + 32);
            i += 64;
        }
        if i + 32 <= n {
            step!(acc[0], i);
            i += 32;
        }
        let sum = _mm256_add_epi32(acc[0], acc[1]);
        let half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
        let quad = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
        let one = _mm_add_epi32(quad, _mm_shuffle_epi32::<0b10_11_00_01>(quad));
        _mm_cvtsi128_si32(one) + dot_i8_plain(&a[i..n], &b[i..n])
    }
}

/// `out[r] = Σ q[i] · rows[r][i]` for each `q.len()`-wide row of `rows`, on AVX2 where the CPU
/// has it (one dispatch for a whole list).
pub(super) fn dot_rows(q: &[i8], rows: &[i8], out: &mut Vec<i32>) {
    out.clear();
    if q.is_empty() {
        out.resize(rows.len(), 0);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if avx2() {
            // SAFETY: the CPU has AVX2 (checked once, above).
            unsafe { dot_rows_avx2(q, rows, out) };
            return;
        }
    }
    out.extend(rows.chunks_exact(q.len()).map(|r| dot_i8_plain(q, r)));
}

/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_rows_avx2(q: &[i8], rows: &[i8], out: &mut Vec<i32>) {
    // SAFETY: the caller's guarantee; this function is compiled for AVX2.
    out.extend(rows.chunks_exact(q.len()).map(|r| unsafe { dot_i8_avx2_inline(q, r) }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_simd_product_is_the_plain_one(
            pair in (0usize..1000).prop_flat_map(|n| (
                proptest::collection::vec(-127i8..=127, n),
                proptest::collection::vec(-127i8..=127, n),
            ))
        ) {
            let (a, b) = pair;
            let exact: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
            prop_assert_eq!(dot_i8_plain(&a, &b), exact);
            prop_assert_eq!(dot_i8(&a, &b), exact);
            // The same row twice as a list of rows.
            let mut out = Vec::new();
            dot_rows(&a, &[b.clone(), b.clone()].concat(), &mut out);
            if !a.is_empty() {
                prop_assert_eq!(out, vec![exact, exact]);
            }
        }
    }
}
