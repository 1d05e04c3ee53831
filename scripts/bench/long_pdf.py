#!/usr/bin/env python3
"""Ingests one long PDF with `folio ingest` and reports what an analyst waiting on it sees: the wall
time, the peak RSS, and how often the progress line moved (the longest gap between two different
progress lines on stderr, each stage's share of the wall time).

    scripts/bench/long_pdf.py --folio FOLIO --library NEW_DIR FILE.pdf

The CLI redraws its progress line (`\\r[###   ] 1/1 Embedding file.pdf 96/1210`) at most every 200
ms as progress events arrive; every distinct line is timestamped as it is read.
"""
import argparse
import os
import resource
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("pdf")
    a = ap.parse_args()
    if os.path.exists(a.library):
        sys.exit(f"{a.library} exists: a fresh library is measured")
    start = time.monotonic()
    p = subprocess.Popen([a.folio, "ingest", "--library", a.library, a.pdf],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []  # (seconds since start, progress line)
    buf = b""
    while True:
        chunk = os.read(p.stderr.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        *done, buf = buf.replace(b"\n", b"\r").split(b"\r")
        now = time.monotonic() - start
        for raw in done:
            line = raw.decode(errors="replace").strip()
            if line and (not lines or lines[-1][1] != line):
                lines.append((now, line))
    out = p.stdout.read().decode(errors="replace")
    code = p.wait()
    wall = time.monotonic() - start
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if code != 0:
        sys.exit(f"folio ingest failed ({code}):\n{out}\n" + "\n".join(l for _, l in lines[-5:]))
    print(out.strip())
    progress = [(t, l) for t, l in lines if l.startswith("[")]
    if not progress:
        sys.exit("no progress line was printed")
    stamps = [0.0] + [t for t, _ in progress] + [wall]
    gaps = [(b - a, i) for i, (a, b) in enumerate(zip(stamps, stamps[1:]))]
    worst, at = max(gaps)
    where = progress[at - 1][1] if at > 0 else "(start)"
    stages = {}
    for (t, l), t_next in zip(progress, stamps[2:]):
        stage = l.split("] ", 1)[-1].split(" ")[1] if "] " in l else "?"
        stages[stage] = stages.get(stage, 0.0) + (t_next - t)
    print(f"wall {wall:.1f} s, peak RSS {rss_mb:.0f} MB")
    print(f"progress lines: {len(progress)}; longest gap {worst:.2f} s (after: {where!r}); "
          f"gaps over 1 s: {sum(1 for g, _ in gaps if g > 1.0)}")
    print("time by stage: " + ", ".join(f"{s} {v:.1f} s" for s, v in stages.items()))
    for g, i in sorted(gaps, reverse=True)[:3]:
        before = progress[i - 1][1] if i > 0 else "(start)"
        after = progress[i][1] if i < len(progress) else "(end)"
        print(f"  gap {g:.2f} s: {before!r} -> {after!r}")


if __name__ == "__main__":
    main()
