//! This CPU's measured peak rates, for benchmarks to read their figures against: multiply-adds a
//! second of f32 FMAs and of each 8-bit kernel's instruction, in a loop of independent
//! accumulators held in registers (no memory traffic), on one thread.
//!
//! A kernel's share of its peak says how much of the hardware a product uses, whatever the CPU;
//! figures from different machines compare through it.

use super::Kernel;
use std::time::Instant;

/// Iterations of each loop: long enough (tens of milliseconds) to reach full clock.
const ITERATIONS: u64 = 2_000_000;

/// Measured multiply-adds a second on one thread with `kernel`'s 8-bit instruction (`None` for
/// the scalar kernel, which has no peak of its own). The CPU must have the kernel.
pub fn int8_peak(kernel: Kernel) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        if !super::kernels().contains(&kernel) {
            return None;
        }
        let start = Instant::now();
        // SAFETY: the CPU has each kernel's features (checked above; AMX's tile state granted).
        let macs = unsafe {
            match kernel {
                Kernel::Amx => x86::amx(ITERATIONS / 16),
                Kernel::Vnni => x86::vnni512(ITERATIONS),
                Kernel::AvxVnni => x86::avx_vnni(ITERATIONS),
                Kernel::Avx2 => x86::avx2(ITERATIONS),
                Kernel::Scalar => return None,
            }
        };
        Some(macs as f64 / start.elapsed().as_secs_f64())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = kernel;
        None
    }
}

/// Measured f32 multiply-adds a second on one thread with the widest FMA this CPU has (AVX-512
/// or AVX2), `None` without FMA.
pub fn f32_peak() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let start = Instant::now();
        // SAFETY: each loop runs only where the CPU has its features.
        let macs = unsafe {
            if has!("avx512f") {
                x86::fma512(ITERATIONS)
            } else if has!("avx2") && has!("fma") {
                x86::fma256(ITERATIONS)
            } else {
                return None;
            }
        };
        Some(macs as f64 / start.elapsed().as_secs_f64())
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::hint::black_box;

    /// Independent accumulators: at least each instruction's latency × throughput, and few
    /// enough to stay in the sixteen vector registers AVX2 has.
    const ACC: usize = 12;

    macro_rules! peak_loop {
        ($name:ident, $feat:literal, $ty:ty, $zero:expr, $a:expr, $b:expr, |$acc:ident, $x:ident, $y:ident| $step:expr, $macs:expr) => {
            /// # Safety
            /// The CPU must have the features this loop is compiled for.
            #[target_feature(enable = $feat)]
            pub unsafe fn $name(iterations: u64) -> u64 {
                let mut accs: [$ty; ACC] = [$zero; ACC];
                let ($x, $y) = (black_box($a), black_box($b));
                for _ in 0..iterations {
                    for $acc in accs.iter_mut() {
                        *$acc = $step;
                    }
                }
                black_box(accs);
                iterations * ACC as u64 * $macs
            }
        };
    }

    peak_loop!(
        fma256,
        "avx2,fma",
        __m256,
        _mm256_setzero_ps(),
        _mm256_set1_ps(1.0),
        _mm256_set1_ps(0.5),
        |acc, x, y| _mm256_fmadd_ps(x, y, *acc),
        8
    );
    peak_loop!(
        fma512,
        "avx512f",
        __m512,
        _mm512_setzero_ps(),
        _mm512_set1_ps(1.0),
        _mm512_set1_ps(0.5),
        |acc, x, y| _mm512_fmadd_ps(x, y, *acc),
        16
    );
    peak_loop!(
        avx2,
        "avx2,fma",
        __m256i,
        _mm256_setzero_si256(),
        _mm256_set1_epi8(3),
        _mm256_set1_epi8(2),
        // The pair products read the accumulator (as bytes), or they would be hoisted out.
        |acc, _x, y| _mm256_add_epi32(
            *acc,
            _mm256_madd_epi16(_mm256_maddubs_epi16(*acc, y), _mm256_set1_epi16(1))
        ),
        32
    );
    peak_loop!(
        avx_vnni,
        "avx2,avxvnni",
        __m256i,
        _mm256_setzero_si256(),
        _mm256_set1_epi8(3),
        _mm256_set1_epi8(2),
        |acc, x, y| _mm256_dpbusd_avx_epi32(*acc, x, y),
        32
    );
    peak_loop!(
        vnni512,
        "avx512f,avx512bw,avx512vnni",
        __m512i,
        _mm512_setzero_si512(),
        _mm512_set1_epi8(3),
        _mm512_set1_epi8(2),
        |acc, x, y| _mm512_dpbusd_epi32(*acc, x, y),
        64
    );

    /// `tdpbusd` into four tiles from four others: 16 × 16 × 64 multiply-adds each.
    ///
    /// # Safety
    /// The CPU must have AMX-TILE and AMX-INT8, and this process the tile state.
    pub unsafe fn amx(iterations: u64) -> u64 {
        use std::arch::asm;
        let cfg = super::super::gemm::TileConfig::full();
        // SAFETY: the configuration is 64 bytes; the tiles are zeroed, multiplied in place and
        // released; nothing is read from or written to memory besides the configuration.
        unsafe {
            asm!("ldtilecfg [{}]", in(reg) cfg.0.as_ptr(), options(nostack, readonly));
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                "tilezero tmm4",
                "tilezero tmm5",
                "tilezero tmm6",
                "tilezero tmm7",
                options(nostack, nomem)
            );
            for _ in 0..iterations {
                asm!(
                    "tdpbusd tmm0, tmm4, tmm6",
                    "tdpbusd tmm1, tmm4, tmm7",
                    "tdpbusd tmm2, tmm5, tmm6",
                    "tdpbusd tmm3, tmm5, tmm7",
                    options(nostack, nomem)
                );
            }
            asm!("tilerelease", options(nostack, nomem));
        }
        iterations * 4 * 16 * 16 * 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_of_this_cpu_has_a_positive_peak() {
        for kernel in super::super::kernels() {
            match kernel {
                Kernel::Scalar => assert!(int8_peak(kernel).is_none()),
                _ => assert!(int8_peak(kernel).is_some_and(|r| r > 0.0), "{kernel:?}"),
            }
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("fma") {
            assert!(f32_peak().is_some_and(|r| r > 0.0));
        }
    }
}
