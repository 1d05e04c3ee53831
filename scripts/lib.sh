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

# System packages (Debian/Ubuntu names) that building Folio needs: protoc for LanceDB, WebKitGTK
# and friends for the Tauri desktop shell.
FOLIO_BUILD_PACKAGES=(
  protobuf-compiler
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev librsvg2-dev
  libayatana-appindicator3-dev libxdo-dev
  # OCR of scanned PDF pages: Tesseract and its English data. Folio loads libtesseract.so.5 at run
  # time (libtesseract5 has it; libtesseract-dev, with the unversioned .so, is not needed).
  tesseract-ocr tesseract-ocr-eng libtesseract5
)
# What the desktop app's end-to-end tests need besides: a virtual display and WebKit's WebDriver.
# qpdf strips bookmarks from PDFs in the outline tests; poppler-utils' pdftoppm renders the pages of
# the scanned copy the OCR test makes (test tools only, not shipped).
# The team library's tests: unzip (the PostgreSQL wheel), openssl (a test certificate authority).
FOLIO_GUI_TEST_PACKAGES=(xvfb xauth webkit2gtk-driver qpdf poppler-utils unzip openssl)

# Node.js and npm build the web UI.
require_node() {
  if ! command -v npm >/dev/null 2>&1; then
    ensure_apt_packages nodejs npm
  fi
}

# Installs the UI's npm packages (from package-lock.json) when they are missing or stale, and
# builds ui/dist, which the desktop binary embeds.
build_ui() {
  require_node
  local ui=$FOLIO_ROOT/ui
  if [ ! -d "$ui/node_modules" ] || [ "$ui/package-lock.json" -nt "$ui/node_modules/.package-lock.json" ]; then
    say "installing the UI's npm packages"
    (cd "$ui" && npm ci --no-audit --no-fund)
  fi
  say "building the UI"
  (cd "$ui" && npm run build)
}

# The GUI test tools: the packages, WebKitWebDriver, and tauri-driver (installed with cargo when
# missing); sets TAURI_DRIVER to its path.
require_gui_test_tools() {
  ensure_apt_packages "${FOLIO_GUI_TEST_PACKAGES[@]}"
  command -v WebKitWebDriver >/dev/null || die "WebKitWebDriver is missing (apt-get install webkit2gtk-driver)"
  if ! command -v tauri-driver >/dev/null && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
    say "installing tauri-driver"
    cargo install tauri-driver --locked --version 2.1.0
  fi
  TAURI_DRIVER=$(command -v tauri-driver || echo "$HOME/.cargo/bin/tauri-driver")
}

# Fills DOCS with the 40 ObliQA rulebooks of ../shared, or says SKIP and exits when they are absent.
obliqa_documents_or_skip() {
  local dir=$FOLIO_ROOT/../shared/data/obliqa/documents f
  DOCS=()
  for f in "$dir"/*; do
    [ -f "$f" ] && DOCS+=("$f")
  done
  if [ ${#DOCS[@]} -eq 0 ]; then
    echo "SKIP: $dir is absent"
    exit 0
  fi
}
