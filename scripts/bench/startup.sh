#!/usr/bin/env bash
# Cold start of the desktop app to an interactive window on an existing library: starts
# folio-desktop N times (default 5) under Xvfb and prints the time from process start to the UI's
# first answer from the library (the app's FOLIO_STARTUP_REPORT probe), then the distribution.
#
#   scripts/bench/startup.sh LIBRARY_DIR [N] [minilm|fast]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
LIB=${1:?usage: startup.sh LIBRARY_DIR [N] [minilm|fast]}
N=${2:-5}
MODEL=${3:-minilm}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
APP=$CARGO_TARGET_DIR/debug/folio-desktop
[ -x "$APP" ] || die "build it first: cargo build -p folio-desktop"
SCRATCH=$(mktemp -d)
trap 'kill ${XVFB:-} 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
if [ -z "${DISPLAY:-}" ]; then
  export DISPLAY=:96
  Xvfb "$DISPLAY" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
  XVFB=$!
  sleep 1
fi
export FOLIO_SETTINGS=$SCRATCH/settings.json FOLIO_ASSETS_DIR=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}
cat >"$FOLIO_SETTINGS" <<JSON
{"library_dir": "$(cd "$LIB" && pwd)", "model": "$MODEL", "context_provider": "structural",
 "anthropic_model": "claude-haiku-4-5", "openai_base_url": "http://localhost:11434/v1", "openai_model": "",
 "rrf_k": 60.0, "weights": {"dense": 0.25, "keyword": 1.0, "exact": 2.0}}
JSON
for _ in $(seq "$N"); do
  FOLIO_STARTUP_REPORT=exit timeout 60 "$APP" 2>/dev/null | grep startup_ms
done | python3 -c '
import json, sys
ms = sorted(json.loads(l)["startup_ms"] for l in sys.stdin)
print("startup ms:", ", ".join(f"{m:.0f}" for m in ms))
print(f"median {ms[len(ms)//2]:.0f} ms, max {ms[-1]:.0f} ms over {len(ms)} starts")'
