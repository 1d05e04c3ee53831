#!/usr/bin/env bash
# Runs the Folio desktop app on its default library (~/.local/share/folio/library), setting up
# whatever is missing first: system packages (apt), the pinned native assets (pdfium, the models),
# the UI's npm packages, and the build.
#
#   scripts/run.sh
#
# Build output goes to $CARGO_TARGET_DIR (default ~/.cache/folio-target). Without a display
# (no $DISPLAY or $WAYLAND_DISPLAY) it says so and stops; run it from a desktop session.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FOLIO_ASSETS_DIR=$(folio_assets_dir)
export FOLIO_ASSETS_DIR

require_cargo
ensure_apt_packages "${FOLIO_BUILD_PACKAGES[@]}"
"$FOLIO_ROOT/scripts/setup-assets.sh"
build_ui

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}

say "building the desktop app"
cargo build --manifest-path "$FOLIO_ROOT/Cargo.toml" --workspace
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  die "no display: run this from a desktop session (or under xvfb-run)"
fi
say "starting Folio"
exec "$CARGO_TARGET_DIR/debug/folio-desktop" "$@"
