//! `y = x Wᵀ + b` in f32 with the `gemm` crate's kernels (the ones candle uses): the encoder's
//! products on CPUs without a SIMD 8-bit kernel, and wherever f32 is asked for.

/// A linear layer's weights, transposed to `k × n` for the product.
pub struct DenseLinear {
    pub k: usize,
    pub n: usize,
    weight_t: Vec<f32>,
    bias: Vec<f32>,
}

impl DenseLinear {
    /// `weight` is `n` rows of `k` (as PyTorch stores a linear layer).
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Option<DenseLinear> {
        if weight.len() != n * k || bias.len() != n {
            return None;
        }
        let mut weight_t = vec![0f32; k * n];
        for c in 0..n {
            for j in 0..k {
                weight_t[j * n + c] = weight[c * k + j];
            }
        }
        Some(DenseLinear { k, n, weight_t, bias: bias.to_vec() })
    }

    /// `out[m][..n] = x[m] Wᵀ + b` for the `rows` rows of `x` (each `k` wide), on up to
    /// `threads` threads.
    pub fn forward(&self, x: &[f32], rows: usize, out: &mut Vec<f32>, threads: usize) {
        assert_eq!(x.len(), rows * self.k, "input shape");
        out.clear();
        out.resize(rows * self.n, 0.0);
        for row in out.chunks_exact_mut(self.n) {
            row.copy_from_slice(&self.bias);
        }
        if rows == 0 {
            return;
        }
        let (k, n) = (self.k as isize, self.n as isize);
        // SAFETY: every matrix is row-major and dense: `x` rows × k, `weight_t` k × n and `out`
        // rows × n (sizes asserted or set above); `out` does not alias the inputs. With
        // `read_dst`, gemm computes out = 1 · out + 1 · x · weight_t, adding the bias rows.
        unsafe {
            gemm::gemm(
                rows,
                self.n,
                self.k,
                out.as_mut_ptr(),
                1,
                n,
                true,
                x.as_ptr(),
                1,
                k,
                self.weight_t.as_ptr(),
                1,
                n,
                1.0,
                1.0,
                false,
                false,
                false,
                if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_product_is_x_times_w_transposed_plus_bias() {
        let (n, k, rows) = (3, 2, 2);
        let w = [1.0, 2.0, 0.0, 1.0, -1.0, 0.5];
        let lin = DenseLinear::new(&w, &[0.5, 0.0, 1.0], n, k).unwrap();
        let mut out = Vec::new();
        lin.forward(&[1.0, 1.0, 2.0, -2.0], rows, &mut out, 1);
        assert_eq!(out, vec![3.5, 1.0, 0.5, -1.5, -2.0, -2.0]);
        lin.forward(&[1.0, 1.0, 2.0, -2.0], rows, &mut out, 2);
        assert_eq!(out, vec![3.5, 1.0, 0.5, -1.5, -2.0, -2.0]);
        lin.forward(&[], 0, &mut out, 1);
        assert!(out.is_empty());
        assert!(DenseLinear::new(&w, &[0.0; 2], n, k).is_none());
    }
}
