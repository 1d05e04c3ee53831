//! `y = x Wᵀ + b` with 8-bit integers: the weights quantized once per output channel (symmetric,
//! signed, to ±63), each activation row quantized on the fly (symmetric to ±127, stored offset by
//! 128 as unsigned), multiplied as u8 × i8 with AMX (`tdpbusd`: a 16 × 16 block of sums of 64
//! products an instruction, on Sapphire Rapids and later), AVX-512 VNNI (`vpdpbusd`: 64
//! multiply-adds an instruction) or AVX2 (`vpmaddubsw` then `vpmaddwd`: 32), and scaled back to f32.
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

    /// `out[m][..n] = x[m] Wᵀ + b` for the `rows` rows of `x` (each `k` wide), on `kernel`, which
    /// the CPU must have (one of [`kernels`]). `scratch` holds the quantized rows between calls.
    #[inline(always)]
    pub fn forward(
        &self,
        kernel: Kernel,
        x: &[f32],
        rows: usize,
        out: &mut Vec<f32>,
        scratch: &mut Quantized,
    ) {
        self.forward_with(kernel, x, rows, out, scratch)
    }

    /// [`Self::forward`] with a given kernel, which the CPU must have (one of [`kernels`]).
    /// Inlined, like [`Quantized::quantize`], so that they are compiled for the CPU features of
    /// the encoder's forward pass that calls them.
    #[inline(always)]
    fn forward_with(
        &self,
        kernel: Kernel,
        x: &[f32],
        rows: usize,
        out: &mut Vec<f32>,
        scratch: &mut Quantized,
    ) {
        debug_assert_eq!(x.len(), rows * self.k);
        scratch.quantize(x, rows, self.k);
        out.clear();
        out.resize(rows * self.n, 0.0);
        match kernel {
            // SAFETY: the CPU has AMX (the tile state granted to this process) and AVX-512, as
            // `kernel` checked; `scratch` holds `rows` rows of `k` bytes padded with zero rows
            // (128) to a multiple of 32 rows, `k` is a multiple of 64, `out` holds `rows × n`.
            Kernel::Amx if self.k.is_multiple_of(64) => unsafe { self.matmul_amx(scratch, rows, out) },
            // SAFETY: an AMX CPU has AVX-512 VNNI too.
            Kernel::Amx => unsafe { self.matmul_vnni(scratch, rows, out) },
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
                for (h, v) in acc.iter().enumerate() {
                    self.store16(*v, a.scale[m0 + r], m0 + r, c0 + h * 16, out);
                }
            }
        }
    }

    /// Scales 16 integer sums back to f32 and stores them: `out[m][c..c + 16] = (sums − offset) ·
    /// scale_a · scale_w + bias`, shared by the VNNI and AMX kernels.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F; `c + 16 <= self.n` and `(m + 1) · self.n <= out.len()`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store16(
        &self,
        sums: std::arch::x86_64::__m512i,
        scale_a: f32,
        m: usize,
        c: usize,
        out: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        debug_assert!(c + 16 <= self.n && (m + 1) * self.n <= out.len());
        // SAFETY: offset, scale and bias hold n values and c + 16 <= n; row m of `out` holds n
        // values from m · n (the caller's guarantees).
        unsafe {
            let off = _mm512_loadu_si512(self.offset.as_ptr().add(c) as *const _);
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
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn matmul_amx(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        use std::arch::asm;
        use std::arch::x86_64::*;
        let (k, n) = (self.k, self.n);
        let groups = k / 4;
        debug_assert!(k.is_multiple_of(64) && a.bytes.len() >= rows.next_multiple_of(32) * k);
        debug_assert!(rows * n <= out.len());
        /// Tile palette 1, eight tiles of 16 rows × 64 bytes.
        #[repr(C, align(64))]
        struct TileConfig([u8; 64]);
        let mut cfg = TileConfig([0; 64]);
        cfg.0[0] = 1;
        for t in 0..8 {
            cfg.0[16 + 2 * t] = 64;
            cfg.0[48 + t] = 16;
        }
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
        // `sums` and offset, scale and bias at c..c+16 <= n, and writes rows m < rows of `out`.
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
                            self.store16(v, a.scale[m0 + r], m0 + r, c0 + h * 16, out);
                        }
                    }
                }
            }
            asm!("tilerelease", options(nostack, nomem));
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
    unsafe fn matmul_amx(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        self.matmul_scalar(a, rows, out)
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn matmul_avx2(&self, a: &Quantized, rows: usize, out: &mut [f32]) {
        self.matmul_scalar(a, rows, out)
    }
}

/// The integer kernel this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kernel {
    /// AMX tiles (with AVX-512 for the rest).
    Amx,
    /// AVX-512 with VNNI.
    Vnni,
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

impl Kernel {
    /// The kernel a name stands for (`amx`, `vnni`, `avx2`, `scalar`), as `FOLIO_INT8_KERNEL`
    /// names one to measure it.
    pub fn parse(name: &str) -> Option<Kernel> {
        match name {
            "amx" => Some(Kernel::Amx),
            "vnni" => Some(Kernel::Vnni),
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
        if has!("avx2") && has!("fma") {
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

/// Activation rows quantized to bytes: each row scaled by its largest magnitude to −127…127,
/// then offset by 128.
#[derive(Default)]
pub struct Quantized {
    bytes: Vec<u8>,
    scale: Vec<f32>,
}

impl Quantized {
    /// Quantizes `rows` rows of `k`, and pads the bytes with zero rows (128) to a multiple of 32
    /// rows, the blocks the AMX kernel reads.
    #[inline(always)]
    fn quantize(&mut self, x: &[f32], rows: usize, k: usize) {
        self.bytes.clear();
        self.bytes.resize(rows.next_multiple_of(32) * k, 128);
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
        lin.forward_with(kernel, x, rows, &mut fast, &mut q);
        let mut slow = vec![0f32; rows * n];
        lin.matmul_scalar(&q, rows, &mut slow);
        for (a, b) in fast.iter().zip(&slow) {
            assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{kernel:?} {n}×{k}, {rows} rows: {a} vs {b}");
        }
        // Against the float product: within the worst error 8-bit rounding allows. Each input is
        // off by at most half its row's step (max |x| / 127) and each weight by half its
        // column's (max |w| / WEIGHT_MAX), so each product by |x|·Δw/2 + |w|·Δx/2 + Δx·Δw/4.
        for m in 0..rows {
            let xr = &x[m * k..(m + 1) * k];
            let dx = xr.iter().fold(0f32, |a, v| a.max(v.abs())) / 127.0;
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

    #[test]
    fn shapes_the_kernel_cannot_take_are_refused() {
        assert!(QuantLinear::new(&[0.0; 30 * 4], &[0.0; 30], 30, 4).is_none());
        assert!(QuantLinear::new(&[0.0; 32 * 3], &[0.0; 32], 32, 3).is_none());
        assert!(QuantLinear::new(&[0.0; 32 * 4], &[0.0; 32], 32, 4).is_some());
    }
}
