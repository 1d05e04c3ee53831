#!/usr/bin/env bash
# The packaged build against the build `scripts/run.sh` makes, side by side in one run: the same
# ingest (the 40 ObliQA rulebooks, default model, each into a fresh scratch library) and the same
# query latency benchmark (scripts/eval/latency.py, ObliQA dev questions) with each `folio`.
# The packaged one is the .deb's (dist/folio_*.deb, or $1) unpacked into a scratch root and run
# as installed: scratch HOME, no FOLIO_* variables. Prints wall, CPU, peak RSS and the latency
# table of each, then the ratios.
#
#   scripts/bench/package.sh [DEB]       (FOLIO_BENCH_QUESTIONS: how many dev questions, default 300)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$FOLIO_ROOT"
DEB=${1:-$(ls -t dist/folio_*.deb 2>/dev/null | head -n1 || true)}
[ -n "$DEB" ] && [ -f "$DEB" ] || die "no package: run scripts/package.sh first (or pass a .deb)"
obliqa_documents_or_skip
command -v /usr/bin/time >/dev/null || die "needs GNU time (/usr/bin/time; Debian package 'time')"
QUESTIONS=${FOLIO_BENCH_QUESTIONS:-300}

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
say "building the scripts/run.sh build"
cargo build --workspace -q
DEV=$CARGO_TARGET_DIR/debug/folio
ASSETS=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
dpkg-deb -x "$DEB" "$SCRATCH/root"
PKG=$SCRATCH/root/usr/bin/folio
mkdir -p "$SCRATCH/home"
# How each build runs: the development one with its assets named, the packaged one as installed.
as_dev() { env FOLIO_ASSETS_DIR="$ASSETS" FOLIO_PDFIUM="$ASSETS/pdfium/libpdfium.so" "$@"; }
as_pkg() { env -i HOME="$SCRATCH/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }

declare -A WALL CPU RSS
ingest() {
  local name=$1 runner=$2 folio=$3
  say "$name: folio ingest, ${#DOCS[@]} rulebooks"
  $runner /usr/bin/time -f '%e %U %S %M' -o "$SCRATCH/$name.time" "$folio" ingest --library "$SCRATCH/$name-lib" "${DOCS[@]}" \
    >"$SCRATCH/$name.out" 2>"$SCRATCH/$name.err" || {
    tail -20 "$SCRATCH/$name.err" >&2
    die "$name ingest failed"
  }
  read -r wall user sys rss <"$SCRATCH/$name.time"
  WALL[$name]=$wall
  CPU[$name]=$(python3 -c "print(f'{$user + $sys:.1f}')")
  RSS[$name]=$((rss / 1024))
  echo "  $(tail -1 "$SCRATCH/$name.out")"
  echo "  wall ${WALL[$name]} s, CPU ${CPU[$name]} s, peak RSS ${RSS[$name]} MB"
}
ingest run.sh as_dev "$DEV"
ingest package as_pkg "$PKG"

for name in run.sh package; do
  say "$name: query latency, $QUESTIONS ObliQA dev questions"
  if [ "$name" = package ]; then
    as_pkg python3 scripts/eval/latency.py --folio "$PKG" --library "$SCRATCH/$name-lib" --limit-questions "$QUESTIONS" | tee "$SCRATCH/$name.lat"
  else
    as_dev python3 scripts/eval/latency.py --folio "$DEV" --library "$SCRATCH/$name-lib" --limit-questions "$QUESTIONS" | tee "$SCRATCH/$name.lat"
  fi
done

python3 - "$SCRATCH" "${WALL[run.sh]}" "${WALL[package]}" "${CPU[run.sh]}" "${CPU[package]}" "${RSS[run.sh]}" "${RSS[package]}" <<'PY'
import re, sys
d = sys.argv[1]
dw, pw, dc, pc, dr, pr = map(float, sys.argv[2:])
def p50(name):
    for line in open(f"{d}/{name}.lat"):
        m = re.match(r"\s+total\s+([\d.]+)", line)
        if m:
            return float(m.group(1))
    return float("nan")
dl, pl = p50("run.sh"), p50("package")
print("\n| | scripts/run.sh build | package (dist) | package / run.sh |")
print("|---|---|---|---|")
print(f"| ingest wall (s) | {dw:.1f} | {pw:.1f} | {pw / dw:.2f} |")
print(f"| ingest CPU (s) | {dc:.1f} | {pc:.1f} | {pc / dc:.2f} |")
print(f"| ingest peak RSS (MB) | {dr:.0f} | {pr:.0f} | {pr / dr:.2f} |")
print(f"| query p50 (ms) | {dl:.1f} | {pl:.1f} | {pl / dl:.2f} |")
PY
