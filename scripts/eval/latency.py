#!/usr/bin/env python3
"""Query latency of an ingested library: the distribution of the fused query's time (query embedding
included) and of each channel, and the cold open to the first answer, over the ObliQA dev questions
(or any JSONL file of {"id", "query"}).

    scripts/eval/latency.py --library /tmp/obliqa-lib [--queries FILE] [--limit-questions N] [--warmup 20]

The first --warmup queries are run but not counted (warm caches, as an analyst's session would
be). The channels run concurrently, so the total is less than their sum. Not part of CI's pass/fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "obliqa")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/folio-target")), "debug", "folio"))
    ap.add_argument("--library", required=True)
    ap.add_argument("--queries", default=None)
    ap.add_argument("--limit-questions", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--weights", default=None)
    a = ap.parse_args()
    qfile = a.queries
    if not qfile:
        if not os.path.isdir(DATA):
            print(f"SKIP: {DATA} not found", file=sys.stderr)
            return 0
        with open(os.path.join(DATA, "questions_dev.json")) as f:
            qs = json.load(f)[: a.limit_questions]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as qf:
            for i, q in enumerate(qs):
                qf.write(json.dumps({"id": i, "query": q["Question"]}) + "\n")
        qfile = qf.name
    out = qfile + ".latency.out"
    cmd = [a.folio, "--library", a.library, "eval", qfile, "--out", out, "--limit", "10"]
    if a.weights:
        cmd += ["--weights", a.weights]
    run = subprocess.run(cmd, check=True, stderr=subprocess.PIPE, text=True)
    opened = {}
    for line in run.stderr.splitlines():
        if line.startswith("{") and "open_ms" in line:
            opened = json.loads(line)
    rows = [json.loads(l) for l in open(out)][a.warmup:]
    print(f"{len(rows)} queries (after {a.warmup} warm-up), ms:")
    print(f"  {'':<8} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7}")
    for key in ["total", "embed", "dense", "keyword", "exact"]:
        v = [r["timings_ms"][key] for r in rows if r.get("timings_ms")]
        if v:
            print(f"  {key:<8} {pct(v, .5):>7.1f} {pct(v, .9):>7.1f} {pct(v, .99):>7.1f} {max(v):>7.1f}")
    v = [r["ms"] for r in rows]
    print(f"  {'call':<8} {pct(v, .5):>7.1f} {pct(v, .9):>7.1f} {pct(v, .99):>7.1f} {max(v):>7.1f}   (search call, hits built)")
    if opened:
        print(f"cold open (catalog, indexes, vectors, model): {opened['open_ms']:.0f} ms; first answer at {opened['first_answer_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
