#!/usr/bin/env bash
# Runs Folio. The desktop shell does not exist yet, so for now this builds the `folio` CLI
# (release profile) and runs `folio parse` on the given files:
#
#   scripts/run.sh                  # parses a sample document
#   scripts/run.sh FILE [ARGS...]   # same as `folio parse FILE [ARGS...]`
#
# With no arguments the sample is ../shared/data/uslm/USLM-2_0-Review-Guide-v2_0_12.md when that
# optional test data is present, else tests/fixtures/sample.md from this repository.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# System packages (Debian/Ubuntu names) that building and running Folio needs: LanceDB's build
# needs protoc.
SYSTEM_PACKAGES=(protobuf-compiler)
# What the Tauri desktop shell will need; move these into SYSTEM_PACKAGES when it lands.
# shellcheck disable=SC2034
TAURI_SYSTEM_PACKAGES=(
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev librsvg2-dev
  libayatana-appindicator3-dev libxdo-dev
)

FOLIO_ASSETS_DIR=$(folio_assets_dir)
export FOLIO_ASSETS_DIR

require_cargo
"$FOLIO_ROOT/scripts/setup-assets.sh"
ensure_apt_packages "${SYSTEM_PACKAGES[@]}"

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}

if [ $# -eq 0 ]; then
  sample=$(cd "$FOLIO_ROOT/.." && pwd)/shared/data/uslm/USLM-2_0-Review-Guide-v2_0_12.md
  [ -f "$sample" ] || sample=$FOLIO_ROOT/tests/fixtures/sample.md
  say "no file given; parsing the sample $sample"
  set -- "$sample"
fi

say "building and running the folio CLI (release profile)"
# Run from the caller's directory so relative paths in the arguments mean what they say.
exec cargo run --manifest-path "$FOLIO_ROOT/Cargo.toml" -p folio-cli --release -- parse "$@"
