#!/usr/bin/env bash
# Runs a command as if on a CPU with AVX2 and FMA but neither AVX-512, AMX nor AVX-VNNI (the
# analysts' older laptops, and the AMD EPYC of issue 32), on a CPU that has more: every CPUID the
# command's processes execute is answered with those features cleared (cpuid-mask/cpuid_mask.c,
# which needs Linux's CPUID faulting: `grep cpuid_fault /proc/cpuinfo`). Kernel choices that read
# CPUID (Folio's, ONNX Runtime's, numpy's) follow; the hardware, caches and clocks are this
# machine's.
#
#   scripts/bench/as-avx2.sh COMMAND [ARGS...]
#   CPUID_MASK=avx512 scripts/bench/as-avx2.sh ...   (clear AVX-512 and AMX only; keep AVX-VNNI)
#
# Not for builds: rustc crashes with the handler in place. Issue 32's side-by-side on an AVX2-only
# CPU builds first and then measures both under this script:
#   BENCH_CPU=avx2 scripts/bench/ingest.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
grep -qw cpuid_fault /proc/cpuinfo || {
  echo "as-avx2.sh: this CPU or kernel has no CPUID faulting (no cpuid_fault in /proc/cpuinfo)" >&2
  exit 2
}
out=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}/cpuid-mask
mkdir -p "$out"
if [ ! -f "$out/cpuid_mask.so" ] || [ "$here/cpuid-mask/cpuid_mask.c" -nt "$out/cpuid_mask.so" ]; then
  cc -O2 -Wall -Wextra -shared -fPIC -o "$out/cpuid_mask.so" "$here/cpuid-mask/cpuid_mask.c"
fi
export CPUID_MASK=${CPUID_MASK:-avx2}
export LD_PRELOAD=$out/cpuid_mask.so${LD_PRELOAD:+:$LD_PRELOAD}
exec "$@"
