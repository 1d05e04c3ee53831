#!/usr/bin/env bash
# A long PDF: the filings of ../shared/data/filings merged into one (qpdf, about 660 pages) and
# ingested with `folio ingest` (the build scripts/run.sh makes); prints its pages, the wall time,
# the peak RSS and the longest gap between two moves of the progress line (scripts/bench/long_pdf.py).
#
#   scripts/bench/long_pdf.sh [PDF...]     (default: every PDF in ../shared/data/filings)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}
export FOLIO_ASSETS_DIR=${FOLIO_ASSETS_DIR:-$FOLIO_ROOT/.assets}
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$FOLIO_ASSETS_DIR/pdfium/libpdfium.so}
if [ $# -gt 0 ]; then
  PDFS=("$@")
else
  FILINGS=$FOLIO_ROOT/../shared/data/filings
  [ -d "$FILINGS" ] || die "$FILINGS is absent: pass the PDFs to merge"
  PDFS=("$FILINGS"/*.pdf)
fi
ensure_apt_packages qpdf
say "building folio (the build scripts/run.sh makes)"
cargo build --manifest-path "$FOLIO_ROOT/Cargo.toml" -p folio-cli -q
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
MERGED=$SCRATCH/merged-filings.pdf
qpdf --empty --pages "${PDFS[@]}" -- "$MERGED"
say "${#PDFS[@]} PDFs merged: $(qpdf --show-npages "$MERGED") pages, $(($(stat -c %s "$MERGED") / 1024)) KiB"
python3 "$FOLIO_ROOT/scripts/bench/long_pdf.py" --folio "$CARGO_TARGET_DIR/debug/folio" --library "$SCRATCH/lib" "$MERGED"
