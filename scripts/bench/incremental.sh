#!/usr/bin/env bash
# Incremental re-indexing with the default model: ingests the General Rulebook (../shared/data/obliqa,
# ~100 pages) into a scratch library with `folio ingest`, rewords one paragraph (Rule 2.2.1), ingests
# again, and prints both wall times, folio's summary line each time and the ratio. The counting test
# (crates/engine/tests/it/shared/incremental.rs) checks which chunks are embedded again; this measures time.
#
#   scripts/bench/incremental.sh [minilm|fast]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
MODEL=${1:-minilm}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_ASSETS_DIR=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}
FOLIO=$CARGO_TARGET_DIR/debug/folio
[ -x "$FOLIO" ] || die "build it first: cargo build -p folio-cli"
GEN=$FOLIO_ROOT/../shared/data/obliqa/documents/GEN_VER08.181223.txt
if [ ! -f "$GEN" ]; then
  echo "SKIP: $GEN is absent"
  exit 0
fi
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
cp "$GEN" "$SCRATCH/GEN.txt"
run() {
  local start end
  start=$(date +%s%N)
  "$FOLIO" ingest --library "$SCRATCH/lib" --model "$MODEL" "$SCRATCH/GEN.txt" 2>/dev/null | tail -1 >&2
  end=$(date +%s%N)
  python3 -c "print(f'{($end - $start) / 1e9:.2f}')"
}
echo "first ingest ($MODEL):"
first=$(run)
echo "  ${first} s"
python3 - "$SCRATCH/GEN.txt" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
i = s.index("\n2.2.1")
j = s.index("\n", i + 1)
open(p, "w", encoding="utf-8").write(s[:j] + " This sentence was added by the incremental benchmark." + s[j:])
PY
echo "after rewording one paragraph:"
second=$(run)
echo "  ${second} s"
echo "ratio: $(python3 -c "print(f'{100 * $second / $first:.1f}')") % of the first ingest"
