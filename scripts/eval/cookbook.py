#!/usr/bin/env python3
"""Scores Folio's retrieval on Anthropic's contextual-retrieval cookbook set (Pass@5/10/20).

The 90 source files are written out and ingested as they are (Folio chunks them itself), so a golden
chunk counts as found in the top k when a retrieved chunk of the same file holds at least half of
the golden chunk's non-blank lines. Lines are compared with their whitespace removed: Folio's
plain-text reader joins hard-wrapped lines into paragraphs, so a chunk's line breaks are not the
file's. Pass@k is the mean, over queries, of the share of golden chunks
found.

    scripts/eval/cookbook.py --library /tmp/cookbook-lib [--ingest] [--channels dense,keyword]

Needs ../shared/data/cookbook. Not part of CI's pass/fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "cookbook")


def squash(s):
    return "".join(s.split())


def lines(s):
    return {squash(l) for l in s.splitlines() if l.strip()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/folio-target")), "debug", "folio"))
    ap.add_argument("--library", required=True)
    ap.add_argument("--ingest", action="store_true")
    ap.add_argument("--channels", default="dense,keyword,exact")
    ap.add_argument("--fusion", default=None, help="folio eval --fusion (scores or rrf)")
    ap.add_argument("--weights", default=None)
    ap.add_argument("--score-only", default=None, help="score an existing folio eval output")
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print(f"SKIP: {DATA} not found", file=sys.stderr)
        return 0
    with open(os.path.join(DATA, "codebase_chunks.json")) as f:
        docs = json.load(f)
    files = os.path.join(a.library + "-files")
    if a.ingest:
        os.makedirs(files, exist_ok=True)
        for d in docs:
            with open(os.path.join(files, d["original_uuid"][:16] + ".txt"), "w") as f:
                f.write(d["content"])
        subprocess.run([a.folio, "--library", a.library, "ingest", files], check=True)
    golden_text = {(d["original_uuid"], c["original_index"]): c["content"] for d in docs for c in d["chunks"]}
    with open(os.path.join(DATA, "evaluation_set.jsonl")) as f:
        queries = [json.loads(l) for l in f if l.strip()]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as qf:
        for i, q in enumerate(queries):
            qf.write(json.dumps({"id": i, "query": q["query"]}) + "\n")
    out = a.score_only or qf.name + ".out"
    cmd = [a.folio, "--library", a.library, "eval", qf.name, "--out", out, "--limit", "20", "--channels", a.channels]
    if a.weights:
        cmd += ["--weights", a.weights]
    if a.fusion:
        cmd += ["--fusion", a.fusion]
    if not a.score_only:
        subprocess.run(cmd, check=True)
    with open(out) as f:
        results = [json.loads(l) for l in f]
    passes = {5: [], 10: [], 20: []}
    for res in results:
        q = queries[res["id"]]
        golden = [(u, i) for u, i in q["golden_chunk_uuids"]]
        for k in passes:
            found = 0
            for u, i in golden:
                want = lines(golden_text[(u, i)])
                for h in res["hits"][:k]:
                    if not os.path.basename(h["path"]).startswith(u[:16]):
                        continue
                    text = squash(h["text"])
                    if want and sum(1 for l in want if l in text) * 2 >= len(want):
                        found += 1
                        break
            passes[k].append(found / len(golden))
    n = len(results)
    print(
        f"Cookbook: {n} queries, channels {a.channels}: "
        + ", ".join(f"Pass@{k} {100*sum(v)/n:.1f}" for k, v in passes.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
