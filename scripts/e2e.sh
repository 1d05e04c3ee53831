#!/usr/bin/env bash
# The desktop app end to end: builds folio-desktop, starts a virtual display (Xvfb) when there is
# none and tauri-driver (over WebKitWebDriver), and runs tests/e2e/app.mjs with a scratch home
# (settings with the fast model, an empty library). Screenshots go to tests/artifacts/e2e/.
# Skips with a message when ../shared/data is absent.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$FOLIO_ROOT"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
DATA=$(cd "$FOLIO_ROOT/.." && pwd)/shared/data
if [ ! -d "$DATA/obliqa/documents" ]; then
  say "SKIP e2e: $DATA/obliqa/documents is absent"
  exit 0
fi
require_gui_test_tools
# The desktop binary embeds ui/dist: a stale one would test yesterday's UI.
[ -n "${FOLIO_UI_BUILT:-}" ] || build_ui
cargo build --workspace
APP=$CARGO_TARGET_DIR/debug/folio-desktop

SCRATCH=$(mktemp -d)
PIDS=()
TEAM_DB=
STARTED_PG=
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$TEAM_DB" ]; then
    "$PG_BIN/psql" -q "$FOLIO_TEST_POSTGRES" -c "DROP DATABASE IF EXISTS $TEAM_DB WITH (FORCE)" >/dev/null 2>&1 ||
      warn "could not drop the e2e team database $TEAM_DB"
  fi
  [ -n "$STARTED_PG" ] && scripts/postgres.sh stop
  # The driver's log (the app's own output included) is kept beside the screenshots.
  [ -f "$SCRATCH/driver.log" ] && cp "$SCRATCH/driver.log" "$FOLIO_ROOT/tests/artifacts/e2e/driver.log" 2>/dev/null
  # A WebKit process of an app that has just closed may still be writing its shader cache into
  # the scratch folder: try again a moment later, and say so rather than fail checks that passed.
  rm -rf "$SCRATCH" 2>/dev/null || {
    sleep 2
    rm -rf "$SCRATCH" || warn "could not remove the scratch folder $SCRATCH"
  }
}
trap cleanup EXIT

if [ -z "${DISPLAY:-}" ]; then
  export DISPLAY=:97
  Xvfb "$DISPLAY" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
  PIDS+=($!)
  sleep 1
fi

# A scratch home: settings with the fast model and a library inside it.
export XDG_CONFIG_HOME=$SCRATCH/config XDG_DATA_HOME=$SCRATCH/data XDG_CACHE_HOME=$SCRATCH/cache
mkdir -p "$XDG_CONFIG_HOME/folio"
cat >"$XDG_CONFIG_HOME/folio/settings.json" <<JSON
{"library_dir": "$SCRATCH/library", "model": "fast", "context_provider": "structural",
 "anthropic_model": "claude-haiku-4-5", "openai_base_url": "http://localhost:11434/v1", "openai_model": "",
 "rrf_k": 60.0, "weights": {"dense": 0.25, "keyword": 1.0, "exact": 2.0}}
JSON
export FOLIO_ASSETS_DIR=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}

# A 772-page PDF: the Debian Policy Manual four times over (pdfium merges them, through the
# pypdfium2 wheel that setup-assets.sh already fetched for libpdfium). Long enough that searches
# are timed during its ingest: twice over, with conversion optimised, it was indexed before a
# fifth search.
python3 -c "import pypdfium2" 2>/dev/null ||
  python3 -m pip install --quiet --user --no-index \
    --find-links "$(dirname "$(find "$HOME/.cache/folio-assets/wheels" -name 'pypdfium2-*.whl' | head -n1)")" pypdfium2 ||
  true
BIG=$SCRATCH/policy-four-times.pdf
python3 - "$DATA/debian-policy/policy.pdf" "$BIG" <<'PY' || warn "could not build the big PDF (pypdfium2 missing); the responsiveness check is skipped"
import sys
import pypdfium2 as pdfium
src, out = sys.argv[1], sys.argv[2]
doc = pdfium.PdfDocument.new()
for _ in range(4):
    doc.import_pages(pdfium.PdfDocument(src))
doc.save(out)
print(f"{len(doc)} pages", file=sys.stderr)
PY

"$TAURI_DRIVER" --port 4444 --native-port 4445 >"$SCRATCH/driver.log" 2>&1 &
PIDS+=($!)
sleep 1

# The app through a wrapper that keeps its output (each start's, appended) beside the screenshots.
mkdir -p "$FOLIO_ROOT/tests/artifacts/e2e"
APP_LOG=$FOLIO_ROOT/tests/artifacts/e2e/app.log
: >"$APP_LOG"
cat >"$SCRATCH/folio-desktop" <<SH
#!/bin/sh
echo "== \$(date +%T.%N) start: \$*" >>"$APP_LOG"
exec "$APP" "\$@" >>"$APP_LOG" 2>&1
SH
chmod +x "$SCRATCH/folio-desktop"
export FOLIO_E2E_APP=$SCRATCH/folio-desktop FOLIO_E2E_APP_BINARY=$APP
export FOLIO_E2E_DOCS="$DATA/obliqa/documents/GEN_VER08.181223.txt:$DATA/obliqa/documents/GLO_VER19.181223.txt:$DATA/obliqa/documents/AML_VER09.211223.txt"
[ -f "$BIG" ] && export FOLIO_E2E_BIG_PDF=$BIG
export FOLIO_E2E_TABLE_PDF=$DATA/filings/MCDONALDS_2023Q1_EARNINGS.pdf
export FOLIO_E2E_CLOSE_PDF=$DATA/debian-policy/policy.pdf
export FOLIO_E2E_ARTIFACTS=$FOLIO_ROOT/tests/artifacts/e2e
mkdir -p "$SCRATCH/watched"
export FOLIO_E2E_WATCH_DIR=$SCRATCH/watched
export FOLIO_E2E_LIBRARY=$SCRATCH/library
# The app's log folder under the scratch home's data folder (folio_engine::log::default_log_dir).
export FOLIO_E2E_LOG_DIR=$XDG_DATA_HOME/folio/logs

# A team library: a new database on the test server (started here when test.sh has not), and a
# second app with its own home whose settings point at it.
if [ -z "${FOLIO_TEST_POSTGRES:-}" ]; then
  scripts/postgres.sh start >/dev/null
  STARTED_PG=1
  FOLIO_TEST_POSTGRES=$(scripts/postgres.sh url)
fi
PG_BIN=$(scripts/postgres.sh bin)
TEAM_DB=folio_e2e_$$
"$PG_BIN/psql" -q "$FOLIO_TEST_POSTGRES" -c "CREATE DATABASE $TEAM_DB" >/dev/null
PG_PORT=$(printf '%s\n' "$FOLIO_TEST_POSTGRES" | sed -E 's|^[a-z]+://[^@]*@[^:/]+:([0-9]+)/.*$|\1|')
TEAM_JSON="{\"host\": \"127.0.0.1\", \"port\": $PG_PORT, \"database\": \"$TEAM_DB\", \"user\": \"postgres\", \"tls\": \"disable\", \"root_cert\": \"\"}"
export FOLIO_E2E_TEAM=$TEAM_JSON
SECOND=$SCRATCH/second
mkdir -p "$SECOND/config/folio"
cat >"$SECOND/config/folio/settings.json" <<JSON
{"library_dir": "$SECOND/library", "model": "fast", "context_provider": "structural",
 "anthropic_model": "claude-haiku-4-5", "openai_base_url": "http://localhost:11434/v1", "openai_model": "",
 "rrf_k": 60.0, "weights": {"dense": 0.25, "keyword": 1.0, "exact": 2.0}, "team_library": $TEAM_JSON}
JSON
cat >"$SCRATCH/folio-desktop-second" <<SH
#!/bin/sh
echo "== \$(date +%T.%N) second app start: \$*" >>"$APP_LOG"
export XDG_CONFIG_HOME=$SECOND/config XDG_DATA_HOME=$SECOND/data XDG_CACHE_HOME=$SECOND/cache
exec "$APP" "\$@" >>"$APP_LOG" 2>&1
SH
chmod +x "$SCRATCH/folio-desktop-second"
export FOLIO_E2E_SECOND_APP=$SCRATCH/folio-desktop-second

node tests/e2e/app.mjs
