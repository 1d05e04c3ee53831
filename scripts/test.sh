#!/usr/bin/env bash
# The one test command: system packages, native assets and the UI build, then formatting, lints,
# the UI's component tests, the whole Rust test suite, and the desktop app end to end.
#
#   scripts/test.sh
#
# Build output goes to $CARGO_TARGET_DIR (default ~/.cache/folio-target, outside the clone, so
# that fresh clones and CI reuse it). Tests that need ../shared data skip themselves when it is
# absent. Exits non-zero, naming the step, when any step fails.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Resolved before the cd, so a relative FOLIO_ASSETS_DIR means the caller's directory.
FOLIO_ASSETS_DIR=$(folio_assets_dir)
export FOLIO_ASSETS_DIR
cd "$FOLIO_ROOT"

require_cargo
for tool in fmt clippy; do
  if ! cargo "$tool" --version >/dev/null 2>&1; then
    die "\`cargo $tool\` is missing; add it with: rustup component add $([ "$tool" = fmt ] && echo rustfmt || echo clippy)"
  fi
done

ensure_apt_packages "${FOLIO_BUILD_PACKAGES[@]}" "${FOLIO_GUI_TEST_PACKAGES[@]}"
scripts/setup-assets.sh
build_ui

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}
say "CARGO_TARGET_DIR=$CARGO_TARGET_DIR"

step() {
  local name=$1
  shift
  say "$name: $*"
  local start=$SECONDS
  if ! "$@"; then
    printf '\nerror: step "%s" failed (%s)\n' "$name" "$*" >&2
    exit 1
  fi
  say "$name: passed in $((SECONDS - start))s"
}

step format cargo fmt --all --check
step lint cargo clippy --workspace --all-targets -- -D warnings
step ui-test bash -c "cd ui && npm test"
step test cargo test --workspace
# The desktop app driven through WebDriver under Xvfb (tauri-driver + WebKitWebDriver).
step e2e scripts/e2e.sh
say "all checks passed"
