#!/usr/bin/env bash
# Keeps the build cache from filling the disk. Every test binary that links the engine (lancedb's
# tree, unoptimised) is about 500 MB, and cargo leaves the old one behind each time a crate
# changes, so a cache reused across commits grows by gigabytes a day. This removes, in the
# target directory's debug/deps and debug/examples, every test or example binary (an executable
# without an extension, so never a proc-macro library) that a newer one of the same name (the
# part before cargo's hash) has replaced; cargo links a removed one again if it is ever needed.
# Prints how much it freed and what is left on the disk, and warns under 10 GiB (a cold build
# and the test binaries take about 25 GiB).
#
#   scripts/prune-build.sh [TARGET_DIR]     (default: $CARGO_TARGET_DIR or ~/.cache/folio-target)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

target=${1:-${CARGO_TARGET_DIR:-$HOME/.cache/folio-target}}
# A fresh machine has no cache yet; the build is about to make it (and `df` needs it to exist).
mkdir -p "$target"
freed=0
for dir in "$target/debug/deps" "$target/debug/examples"; do
  [ -d "$dir" ] || continue
  # newest first; the first of each name is kept
  declare -A seen=()
  while IFS=' ' read -r _ size path; do
    name=$(basename "$path")
    stem=${name%-*}
    if [ "$stem" = "$name" ]; then
      continue # no hash: the copy cargo places beside the hashed file (a hard link)
    fi
    if [ -n "${seen[$stem]:-}" ]; then
      rm -f -- "$path"
      freed=$((freed + size))
    else
      seen[$stem]=1
    fi
  done < <(find "$dir" -maxdepth 1 -type f -executable -name '*-*' ! -name '*.*' -printf '%T@ %s %p\n' | sort -rn)
  unset seen
done
avail=$(df -Pk "$target" 2>/dev/null | awk 'NR == 2 { print $4 }')
say "build cache: removed $((freed / 1048576)) MiB of replaced test binaries; $((${avail:-0} / 1024)) MiB free on its disk"
if [ "${avail:-0}" -lt $((10 * 1048576)) ]; then
  warn "less than 10 GiB is free where the build goes ($target): the build may fail for want of space"
fi
