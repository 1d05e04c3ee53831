#!/usr/bin/env bash
# Ingest side by side: Folio's `folio ingest` (the build `scripts/run.sh` makes) and the seed's
# Python stack (../shared/peers/seed_python: markitdown, MiniLM int8 in ONNX Runtime, rank_bm25),
# one after the other on the same documents, each into a fresh scratch library. Prints each one's
# wall time, CPU time (user + system), peak RSS and Folio's ratio to the peer, and how many chunks
# and word pieces each embedded.
#
#   scripts/bench/ingest.sh [PATH...]     (default: the 40 ObliQA rulebooks)
#
# Environment: FOLIO_MODEL (minilm|fast, default minilm), FOLIO_PRECISION (f32|int8),
# PEER_HOME (where the peer's venv is, default /tmp/seed-peer; set up with its setup.sh when absent),
# SKIP_PEER=1 to time Folio alone, BENCH_LIBRARY=DIR to keep Folio's library there (it must not
# exist yet; for scripts/eval/obliqa.py afterwards), BENCH_CPU=avx2 to run both as on a CPU with
# AVX2 but no AVX-512, AMX or AVX-VNNI, BENCH_CPU=avxvnni as on one with AVX-VNNI but no AVX-512
# or AMX (an Intel Core laptop) (scripts/bench/as-avx2.sh; the build itself runs as is).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_ASSETS_DIR=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}
MODEL=${FOLIO_MODEL:-minilm}
SHARED=$FOLIO_ROOT/../shared
PEER_DIR=$SHARED/peers/seed_python
PEER_HOME=${PEER_HOME:-/tmp/seed-peer}
export PEER_HOME

if [ $# -gt 0 ]; then
  DOCS=("$@")
else
  obliqa_documents_or_skip
fi
command -v /usr/bin/time >/dev/null || die "needs GNU time (/usr/bin/time; Debian package 'time')"

say "building folio (the build scripts/run.sh makes)"
cargo build --manifest-path "$FOLIO_ROOT/Cargo.toml" --workspace -q
FOLIO=$CARGO_TARGET_DIR/debug/folio

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

AS_CPU=()
case "${BENCH_CPU:-}" in
  "") ;;
  avx2) AS_CPU=(env CPUID_MASK=avx2 "$FOLIO_ROOT/scripts/bench/as-avx2.sh") ;;
  avxvnni) AS_CPU=(env CPUID_MASK=avx512 "$FOLIO_ROOT/scripts/bench/as-avx2.sh") ;;
  *) die "BENCH_CPU=$BENCH_CPU: avx2 or avxvnni" ;;
esac

# Runs a command under GNU time; prints "wall cpu rss_mb" on the last line of $SCRATCH/$1.times.
measure() {
  local name=$1
  shift
  ${AS_CPU[@]+"${AS_CPU[@]}"} /usr/bin/time -f '%e %U %S %M' -o "$SCRATCH/$name.time" "$@" >"$SCRATCH/$name.out" 2>"$SCRATCH/$name.err" || {
    tail -20 "$SCRATCH/$name.err" >&2
    die "$name failed"
  }
  read -r wall user sys rss <"$SCRATCH/$name.time"
  python3 -c "print(f'{$wall:.1f} {$user + $sys:.1f} {$rss / 1024:.0f}')" >"$SCRATCH/$name.times"
}

LIBRARY=${BENCH_LIBRARY:-$SCRATCH/lib}
[ ! -e "$LIBRARY" ] || die "$LIBRARY exists: a fresh library is measured"
say "Folio: folio ingest --model $MODEL, ${#DOCS[@]} files, into $LIBRARY"
measure folio "$FOLIO" ingest --library "$LIBRARY" --model "$MODEL" "${DOCS[@]}"
read -r f_wall f_cpu f_rss <"$SCRATCH/folio.times"
tail -1 "$SCRATCH/folio.out"
echo "  wall ${f_wall} s, CPU ${f_cpu} s, peak RSS ${f_rss} MB"

if [ "${SKIP_PEER:-0}" = 1 ]; then
  exit 0
fi
if [ ! -x "$PEER_HOME/venv/bin/python" ]; then
  if [ ! -f "$PEER_DIR/setup.sh" ]; then
    echo "SKIP (peer): $PEER_DIR is absent"
    exit 0
  fi
  say "setting up the peer in $PEER_HOME"
  bash "$PEER_DIR/setup.sh"
fi
say "the peer: peer.py ingest"
measure peer "$PEER_HOME/venv/bin/python" "$PEER_DIR/peer.py" ingest "$SCRATCH/peer.pkl" "${DOCS[@]}"
read -r p_wall p_cpu p_rss <"$SCRATCH/peer.times"
tail -1 "$SCRATCH/peer.out"
echo "  wall ${p_wall} s, CPU ${p_cpu} s, peak RSS ${p_rss} MB"
python3 - "$f_wall" "$f_cpu" "$f_rss" "$p_wall" "$p_cpu" "$p_rss" <<'PY'
import sys
fw, fc, fr, pw, pc, pr = map(float, sys.argv[1:])
print(f"Folio / peer: wall {fw / pw:.2f}x, CPU {fc / pc:.2f}x, peak RSS {fr / pr:.2f}x")
PY
