//! The AVX-512 kernels: VNNI (`vpdpbusd` on 512-bit registers, 8 rows × 32 columns a call) and
//! AMX tiles (`tdpbusd`, 32 rows × 32 columns a block), with their shared epilogue.

use super::{QuantLinear, Rows, MR, NR};

/// An AMX tile configuration, as `ldtilecfg` reads it (64 bytes, aligned).
#[repr(C, align(64))]
pub(in crate::encoder) struct TileConfig(pub [u8; 64]);

impl TileConfig {
    /// Palette 1, all eight tiles 16 rows × 64 bytes.
    pub fn full() -> TileConfig {
        let mut cfg = TileConfig([0; 64]);
        cfg.0[0] = 1;
        for t in 0..8 {
            cfg.0[16 + 2 * t] = 64;
            cfg.0[48 + t] = 16;
        }
        cfg
    }
}

impl QuantLinear {
    /// # Safety
    /// The CPU must have AVX-512 (F, BW) and VNNI; `a` must hold `rows` rows of `self.k` bytes and
    /// `out` `rows × self.n` values.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn matmul_vnni(&self, a: &Rows, rows: usize, out: &mut [f32]) {
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
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize>(&self, a: &Rows, m0: usize, panel: usize, out: &mut [f32]) {
        use std::arch::x86_64::*;
        let (k, n) = (self.k, self.n);
        let groups = k / 4;
        debug_assert!((m0 + R) * k <= a.bytes.len() && (m0 + R) * n <= out.len());
        // SAFETY: panel `panel` starts at panel · groups · NR · 4 and holds `groups` groups of
        // NR · 4 bytes (two 64-byte loads each); rows m0..m0+R of `a` hold k bytes each and
        // 4g + 4 <= k; row m of `out` has n values and c + 16 <= n; sums, scale and bias have n.
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
                for (h, v) in acc.iter().enumerate() {
                    self.store16(*v, (a.scale[m0 + r], a.zero), m0 + r, c0 + h * 16, out);
                }
            }
        }
    }

    /// Scales 16 integer sums back to f32 and stores them: `out[m][c..c + 16] = (sums − zero ·
    /// Σ w) · scale_a · scale_w + bias`, shared by the VNNI and AMX kernels (`scale_a` and `zero`:
    /// the activation row's scale and offset).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F; `c + 16 <= self.n` and `(m + 1) · self.n <= out.len()`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store16(
        &self,
        sums: std::arch::x86_64::__m512i,
        (scale_a, zero): (f32, i32),
        m: usize,
        c: usize,
        out: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        debug_assert!(c + 16 <= self.n && (m + 1) * self.n <= out.len());
        // SAFETY: sums, scale and bias hold n values and c + 16 <= n; row m of `out` holds n
        // values from m · n (the caller's guarantees).
        unsafe {
            let column_sums = _mm512_loadu_si512(self.sums.as_ptr().add(c) as *const _);
            let off = _mm512_mullo_epi32(column_sums, _mm512_set1_epi32(zero));
            let sw = _mm512_loadu_ps(self.scale.as_ptr().add(c));
            let bias = _mm512_loadu_ps(self.bias.as_ptr().add(c));
            let ints = _mm512_cvtepi32_ps(_mm512_sub_epi32(sums, off));
            let y = _mm512_fmadd_ps(_mm512_mul_ps(ints, _mm512_set1_ps(scale_a)), sw, bias);
            _mm512_storeu_ps(out.as_mut_ptr().add(m * self.n + c), y);
        }
    }

    /// The product on AMX tiles: blocks of 32 rows × one 32-column panel in four 16 × 16 tiles of
    /// 32-bit sums (tmm0–3), fed 64 inputs at a time from two tiles of activations (tmm4–5, 16
    /// rows × 64 bytes at the row stride k) and two of weights (tmm6–7: the panel's packing is
    /// already the layout `tdpbusd` reads, 16 groups of four inputs at a stride of `NR · 4`).
    ///
    /// # Safety
    /// The CPU must have AMX-TILE, AMX-INT8 and AVX-512 (F, BW), and this process the tile state
    /// (see [`kernel`]); `self.k` must be a multiple of 64; `a` must hold `rows` rows of `self.k`
    /// bytes followed by padding to a multiple of 32 rows; `out` must hold `rows × self.n` values.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn matmul_amx(&self, a: &Rows, rows: usize, out: &mut [f32]) {
        use std::arch::asm;
        use std::arch::x86_64::*;
        let (k, n) = (self.k, self.n);
        let groups = k / 4;
        debug_assert!(k.is_multiple_of(64) && a.bytes.len() >= rows.next_multiple_of(32) * k);
        debug_assert!(rows * n <= out.len());
        let cfg = TileConfig::full();
        /// The four 16 × 16 sums of a block, as 32 rows of 32.
        #[repr(C, align(64))]
        struct Sums([i32; 32 * 32]);
        let mut sums = Sums([0; 32 * 32]);
        // SAFETY: `ldtilecfg` reads the 64-byte configuration; the tiles it configures are used
        // only in this function and released at its end. Every `tileloadd` reads 16 rows of 64
        // bytes: activations at rows m0..m0+32 (inside the padded buffer) and bytes kb·64.. of
        // each row (kb·64 + 64 <= k); weights at groups kb·16..kb·16+16 of panel `panel` (row r
        // at r · NR · 4, 64 bytes from 0 or 64: inside the panel's groups · NR · 4 bytes). The
        // stores write 16 rows of 64 bytes into `sums` (32 rows of 128 bytes). The epilogue reads
        // `sums` and the column sums, scale and bias at c..c+16 <= n, and writes rows m < rows of `out`.
        unsafe {
            asm!("ldtilecfg [{}]", in(reg) cfg.0.as_ptr(), options(nostack, readonly));
            for m0 in (0..rows).step_by(32) {
                let a0 = a.bytes.as_ptr().add(m0 * k);
                let a1 = a0.add(16 * k);
                for panel in 0..n / NR {
                    let b = self.packed.as_ptr().add(panel * groups * NR * 4);
                    asm!(
                        "tilezero tmm0",
                        "tilezero tmm1",
                        "tilezero tmm2",
                        "tilezero tmm3",
                        options(nostack, nomem)
                    );
                    for kb in 0..k / 64 {
                        let bp = b.add(kb * 16 * NR * 4);
                        asm!(
                            "tileloadd tmm4, [{a0} + {ka}*1]",
                            "tileloadd tmm5, [{a1} + {ka}*1]",
                            "tileloadd tmm6, [{b0} + {kb}*1]",
                            "tileloadd tmm7, [{b1} + {kb}*1]",
                            "tdpbusd tmm0, tmm4, tmm6",
                            "tdpbusd tmm1, tmm4, tmm7",
                            "tdpbusd tmm2, tmm5, tmm6",
                            "tdpbusd tmm3, tmm5, tmm7",
                            a0 = in(reg) a0.add(kb * 64),
                            a1 = in(reg) a1.add(kb * 64),
                            ka = in(reg) k,
                            b0 = in(reg) bp,
                            b1 = in(reg) bp.add(64),
                            kb = in(reg) NR * 4,
                            options(nostack, readonly)
                        );
                    }
                    let sp = sums.0.as_mut_ptr();
                    asm!(
                        "tilestored [{p0} + {s}*1], tmm0",
                        "tilestored [{p1} + {s}*1], tmm1",
                        "tilestored [{p2} + {s}*1], tmm2",
                        "tilestored [{p3} + {s}*1], tmm3",
                        p0 = in(reg) sp,
                        p1 = in(reg) sp.add(16),
                        p2 = in(reg) sp.add(16 * 32),
                        p3 = in(reg) sp.add(16 * 32 + 16),
                        s = in(reg) 32usize * 4,
                        options(nostack)
                    );
                    let c0 = panel * NR;
                    for r in 0..32.min(rows - m0) {
                        for h in 0..2 {
                            let v = _mm512_load_si512(sp.add(r * 32 + h * 16) as *const _);
                            self.store16(v, (a.scale[m0 + r], a.zero), m0 + r, c0 + h * 16, out);
                        }
                    }
                }
            }
            asm!("tilerelease", options(nostack, nomem));
        }
    }
}
