//! The element-wise parts of the encoder, written branch-free so that the compiler vectorizes them
//! (the exponential is a polynomial, not a libm call: GELU and softmax take one per value).
//!
//! The functions whose polynomials dominate take `FUSED`: whether `a · b + c` is one fused
//! multiply-add (`f32::mul_add`). The compiler never fuses a multiply and an add by itself (that
//! would change results), so without it each Horner step is two instructions. Only a caller
//! compiled with FMA passes `true`: elsewhere `mul_add` is a call into libm, not an instruction.

const LOG2E: f32 = std::f32::consts::LOG2_E;

/// `a · b + c`, as one fused multiply-add when `FUSED` (rounded once, where the plain form rounds
/// twice).
#[inline(always)]
fn madd<const FUSED: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FUSED {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `eˣ` to about 2e-7 relative error: `2^round(y)` built from the exponent bits times a degree-6
/// polynomial for `2^f`, `|f| ≤ ½`.
#[inline(always)]
pub fn exp<const FUSED: bool>(x: f32) -> f32 {
    // 1.5 · 2²³: adding it leaves round(y) in the low mantissa bits (no float-to-int conversion,
    // so the loop around this vectorises).
    const MAGIC: f32 = 12_582_912.0;
    let y = x.clamp(-87.0, 88.0) * LOG2E;
    let t = y + MAGIC;
    let n = t - MAGIC;
    let f = y - n;
    let m = madd::<FUSED>;
    let p = m(f, 0.000_154_035_3, 0.001_333_356);
    let p = m(f, p, 0.009_618_129);
    let p = m(f, p, 0.055_504_11);
    let p = m(f, p, 0.240_226_5);
    let p = m(f, p, std::f32::consts::LN_2);
    let p = m(f, p, 1.0);
    let n_bits = t.to_bits().wrapping_sub(MAGIC.to_bits());
    p * f32::from_bits(n_bits.wrapping_add(127) << 23)
}

/// The sum of a slice in eight independent lanes (a vectorisable reduction).
#[inline(always)]
pub fn sum(xs: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l += x;
        }
    }
    lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

/// The largest magnitude in `xs`, in eight independent lanes (a vectorisable reduction).
#[inline(always)]
pub fn max_abs(xs: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            let a = x.abs();
            *l = if a > *l { a } else { *l };
        }
    }
    lanes.iter().chain(chunks.remainder()).fold(0f32, |m, x| m.max(x.abs()))
}

/// The error function (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7).
#[inline(always)]
pub fn erf<const FUSED: bool>(x: f32) -> f32 {
    let m = madd::<FUSED>;
    let a = x.abs();
    let t = 1.0 / m(0.327_591_1, a, 1.0);
    let p = m(t, 1.061_405_4, -1.453_152);
    let p = m(t, p, 1.421_413_8);
    let p = m(t, p, -0.284_496_7);
    let p = m(t, p, 0.254_829_6);
    let y = m(-(p * t), exp::<FUSED>(-a * a), 1.0);
    y.copysign(x)
}

/// GELU as BERT computes it (with the error function, not the tanh approximation), in place.
#[inline(always)]
pub fn gelu<const FUSED: bool>(xs: &mut [f32]) {
    for x in xs {
        let half = 0.5 * *x;
        *x = madd::<FUSED>(half, erf::<FUSED>(*x * std::f32::consts::FRAC_1_SQRT_2), half);
    }
}

/// Softmax of a row without its division: each value becomes `e^(x − max)`, and their sum is
/// returned for the caller to divide by where fewer values need it (attention divides each row of
/// its context, `d` values, instead of each row of scores, `len`).
#[inline(always)]
pub fn exp_below_max<const FUSED: bool>(xs: &mut [f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l = if x > *l { x } else { *l };
        }
    }
    let max = lanes.iter().chain(chunks.remainder()).fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    let mut sums = [0f32; 8];
    let mut chunks = xs.chunks_exact_mut(8);
    for c in &mut chunks {
        for (l, x) in sums.iter_mut().zip(c) {
            *x = exp::<FUSED>(*x - max);
            *l += *x;
        }
    }
    let mut total = sums.iter().sum::<f32>();
    for x in chunks.into_remainder() {
        *x = exp::<FUSED>(*x - max);
        total += *x;
    }
    total
}

/// Layer normalisation of a row, in place.
#[inline(always)]
pub fn layer_norm<const FUSED: bool>(xs: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let n = xs.len() as f32;
    let mean = sum(xs) / n;
    let mut lanes = [0f32; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l = madd::<FUSED>(x - mean, x - mean, *l);
        }
    }
    let var = (lanes.iter().sum::<f32>()
        + chunks.remainder().iter().map(|x| (x - mean) * (x - mean)).sum::<f32>())
        / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((x, g), b) in xs.iter_mut().zip(gamma).zip(beta) {
        *x = madd::<FUSED>((*x - mean) * inv, *g, *b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_erf_match_the_library_functions() {
        exp_and_erf_match::<false>();
        exp_and_erf_match::<true>();
    }

    fn exp_and_erf_match<const FUSED: bool>() {
        let (exp, erf) = (exp::<FUSED>, erf::<FUSED>);
        for i in -2000..=2000 {
            let x = i as f32 / 100.0;
            let (got, want) = (exp(x), x.exp());
            assert!((got - want).abs() <= 2e-6 * want, "exp({x}) = {got}, want {want}");
            // A&S 7.1.26 against the series (good to 1e-9 in f64 for |x| ≤ 5; erf is ±1 in f32 beyond).
            let want = if x.abs() > 5.0 { 1f64.copysign(x as f64) } else { erf_series(x as f64) };
            assert!((erf(x) as f64 - want).abs() < 4e-7, "erf({x}) = {}, want {want}", erf(x));
        }
        assert!(exp(-1000.0) < 1e-37 && exp(1000.0).is_finite());
    }

    fn erf_series(x: f64) -> f64 {
        // erf x = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1))
        let (mut sum, mut term, mut n) = (0.0, x, 0.0);
        while term.abs() > 1e-17 || n < 3.0 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn softmax_sums_and_layer_norm_centres() {
        softmax_and_layer_norm::<false>();
        softmax_and_layer_norm::<true>();
    }

    fn softmax_and_layer_norm<const FUSED: bool>() {
        let (exp_below_max, layer_norm, gelu) = (exp_below_max::<FUSED>, layer_norm::<FUSED>, gelu::<FUSED>);
        let input = [1.0f32, 2.0, 3.0, -50.0, 0.5, 0.0, -1.0, 2.5, 1.5, 3.0, -3.0];
        let mut xs = input;
        let sum = exp_below_max(&mut xs);
        let want: f32 = input.iter().map(|x| (x - 3.0).exp()).sum();
        assert!((sum - want).abs() < 1e-5 * want, "{sum} vs {want}");
        assert!((xs.iter().sum::<f32>() - sum).abs() < 1e-6 * sum);
        assert!(xs[2] == 1.0 && xs[2] > xs[1] && xs[1] > xs[0] && xs[3] < 1e-20);
        let mut ys = [1.0, 2.0, 3.0, 6.0];
        layer_norm(&mut ys, &[1.0; 4], &[0.5; 4], 1e-12);
        assert!((ys.iter().sum::<f32>() / 4.0 - 0.5).abs() < 1e-6);
        let mut g = [-3.0f32, -1.0, 0.0, 1.0, 3.0];
        gelu(&mut g);
        let want = [-0.004_049_7, -0.158_655_3, 0.0, 0.841_344_7, 2.995_950_3];
        for (a, b) in g.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
    }
}
