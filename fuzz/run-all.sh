#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) one after the other, on one core, and prints
# one line per target: runs, executions per second, corpus size, and whether it crashed.
# Usage: fuzz/run-all.sh [SECONDS] [TARGET…]   (from anywhere; logs in fuzz/logs/)
set -uo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/folio-fuzz-target}
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(cargo +nightly fuzz list)
export FOLIO_PDFIUM=${FOLIO_PDFIUM:-$(cd .. && pwd)/.assets/pdfium/libpdfium.so}
cargo +nightly fuzz build || exit 1
mkdir -p logs
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  dict=()
  case $t in uslm|html|docx|epub) dict=(-dict=dicts/xml.dict) ;; esac
  start=$(date +%s)
  cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 \
    -timeout=20 "${dict[@]}" > "logs/$t.log" 2>&1
  rc=$?
  end=$(date +%s)
  stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "logs/$t.log" | tail -1)
  echo "$t: rc=$rc seconds=$((end - start)) ${stats}"
done
