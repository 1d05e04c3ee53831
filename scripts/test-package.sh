#!/usr/bin/env bash
# Checks the Debian package as a user would get it: unpacks dist/folio_*.deb (built by
# scripts/package.sh; pass another .deb as $1) into a scratch root, checks that every package its
# `Depends:` names is installed here, then runs the installed `folio` from that root with a scratch
# HOME, no FOLIO_* variables and a working directory outside the repository, so it must find its
# models, PDFium and converter worker in the installed layout: it ingests a PDF and finds it by
# searching. Then the installed desktop app, under a virtual display (Xvfb) with a scratch HOME and
# no FOLIO_* variables, driven through WebDriver (tests/e2e/package.mjs): the first-run welcome, a
# PDF added, searched and opened in the reader, About with the licences, and files opened with
# Folio ("Open with", at start and while it runs). Screenshots go to tests/artifacts/package/.
# Prints what it checked; exits non-zero on the first failure. FOLIO_PACKAGE_GUI=0 skips the app.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$FOLIO_ROOT"
DEB=${1:-$(ls -t dist/folio_*.deb 2>/dev/null | head -n1 || true)}
[ -n "$DEB" ] && [ -f "$DEB" ] || die "no package: run scripts/package.sh first (or pass a .deb)"
DATA=$(cd "$FOLIO_ROOT/.." && pwd)/shared/data
PDF=$DATA/pdf/$(ls "$DATA/pdf" 2>/dev/null | grep -i '\.pdf$' | head -n1 || true)
if [ ! -f "$PDF" ]; then
  say "SKIP test-package: no PDF under $DATA/pdf"
  exit 0
fi

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
ROOT=$SCRATCH/root
dpkg-deb -x "$DEB" "$ROOT"
say "unpacked $DEB ($(du -sh "$ROOT" | cut -f1) installed)"

missing=()
IFS=',' read -ra deps <<<"$(dpkg-deb -f "$DEB" Depends)"
for d in "${deps[@]}"; do
  p=$(echo "$d" | awk '{print $1}')
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || die "Depends names packages not installed here: ${missing[*]}"
say "Depends: ${#deps[@]} packages, all installed here"

for f in usr/bin/folio usr/bin/folio-desktop usr/lib/folio/folio-convert-worker \
  usr/lib/folio/assets/minilm/model.safetensors usr/lib/folio/assets/pdfium/libpdfium.so \
  usr/share/applications/folio.desktop usr/share/doc/folio/copyright \
  usr/share/doc/folio/licences/all-MiniLM-L6-v2/LICENSE usr/share/doc/folio/licences/all-MiniLM-L6-v2/NOTICE \
  usr/share/doc/folio/licences/pdfium/LICENSES/BSD-3-Clause.txt; do
  [ -e "$ROOT/$f" ] || die "the package lacks /$f"
done
say "layout: binaries, worker, models, PDFium, menu entry and licences present"

run() { (cd "$SCRATCH" && env -i HOME="$SCRATCH/home" PATH=/usr/bin:/bin "$ROOT/usr/bin/folio" "$@"); }
version=$(run --version)
want=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ "$version" = "folio $want" ] || die "folio --version says '$version', Cargo.toml $want"
say "folio --version: $version"

mkdir -p "$SCRATCH/home"
t=$(date +%s.%N)
run --library "$SCRATCH/lib" ingest "$PDF" >"$SCRATCH/ingest.log" 2>&1 || {
  cat "$SCRATCH/ingest.log" >&2
  die "the installed folio could not ingest $PDF"
}
say "installed folio ingested $(basename "$PDF") in $(echo "$(date +%s.%N) - $t" | bc) s: $(tail -n1 "$SCRATCH/ingest.log")"
query="requirements of this rule"
hits=$(run --library "$SCRATCH/lib" search "$query" --limit 3 2>/dev/null)
echo "$hits" | grep -q '^1\. ' || die "searching '$query' found nothing: $hits"
say "search '$query': $(echo "$hits" | grep '^1\. ' | cut -c1-120)"
if [ "${FOLIO_PACKAGE_GUI:-1}" = 0 ]; then
  say "SKIP the desktop app check (FOLIO_PACKAGE_GUI=0)"
  say "package check passed (CLI only)"
  exit 0
fi
require_gui_test_tools
require_node
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$SCRATCH"' EXIT
DISPLAY_NO=:$((90 + RANDOM % 9))
Xvfb "$DISPLAY_NO" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
PIDS+=($!)
sleep 1
# The app's environment: a fresh home and nothing of Folio's; tauri-driver passes its own on.
GUI_HOME=$SCRATCH/gui-home
mkdir -p "$GUI_HOME"
clean_env=(env -i HOME="$GUI_HOME" PATH=/usr/bin:/bin DISPLAY="$DISPLAY_NO" LANG=C.UTF-8)
"${clean_env[@]}" "$TAURI_DRIVER" --port 4454 --native-port 4455 >"$SCRATCH/driver.log" 2>&1 &
PIDS+=($!)
sleep 1
NODE=$(command -v node)
OPEN1=$DATA/pdf/word365_structure.pdf
OPEN2=$DATA/debian-policy/ch-scope.html
[ -f "$OPEN1" ] && [ -f "$OPEN2" ] || die "$OPEN1 or $OPEN2 is missing"
(cd "$SCRATCH" && "${clean_env[@]}" FOLIO_E2E_DRIVER=http://127.0.0.1:4454 \
  FOLIO_E2E_APP="$ROOT/usr/bin/folio-desktop" FOLIO_E2E_PDF="$PDF" FOLIO_E2E_QUERY="$query" \
  FOLIO_E2E_OPEN="$OPEN1:$OPEN2" FOLIO_E2E_ARTIFACTS="$FOLIO_ROOT/tests/artifacts/package" \
  "$NODE" "$FOLIO_ROOT/tests/e2e/package.mjs") || {
  tail -30 "$SCRATCH/driver.log" >&2
  die "the installed desktop app failed its check (screenshots in tests/artifacts/package/)"
}
[ -d "$GUI_HOME/.local/share/folio" ] || die "the app kept no library under the scratch home's XDG data folder"
say "the installed app kept its library in \$HOME/.local/share/folio ($(du -sh "$GUI_HOME/.local/share/folio" | cut -f1))"
say "package check passed"
