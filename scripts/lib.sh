# Shared helpers for the scripts in this folder. Source it; do not run it.
# shellcheck shell=bash

# The repository root, whatever the caller's working directory.
FOLIO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Where the native assets live (see scripts/setup-assets.sh). Made absolute so that tests,
# which cargo runs from each crate's folder, find the same place.
folio_assets_dir() {
  local dir=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}
  case $dir in
    /*) ;;
    *) dir=$PWD/$dir ;;
  esac
  printf '%s\n' "$dir"
}

say() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# Fails with an explanation when cargo (or one of its components we use) is missing.
require_cargo() {
  if ! command -v cargo >/dev/null 2>&1; then
    cat >&2 <<'EOT'
error: `cargo` was not found on PATH.
Folio needs a stable Rust toolchain (1.80 or newer). Install it with rustup
(https://rustup.rs), then open a new shell or run `. "$HOME/.cargo/env"`, and run this again.
EOT
    exit 1
  fi
}

# Makes sure every Debian package named in the arguments is installed, installing only the
# missing ones (one `apt-get update`, then `apt-get install -y`). Does nothing for an empty list.
ensure_apt_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    if ! dpkg -s "$pkg" >/dev/null 2>&1; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  if ! command -v apt-get >/dev/null 2>&1; then
    die "these system packages are needed but this is not a Debian/Ubuntu system (no apt-get): ${missing[*]}"
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "installing ${missing[*]} needs root, and sudo is not available"
    sudo=(sudo)
  fi
  say "installing system packages: ${missing[*]}"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}
