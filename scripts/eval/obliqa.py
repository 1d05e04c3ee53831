#!/usr/bin/env python3
"""Scores Folio's retrieval on ObliQA (the ADGM rulebooks), as the library issue defines it.

A retrieved chunk counts for each passage whose text it contains; passages are ranked by their first
containing chunk; Recall@10 and MAP@10 are computed over the first 10 distinct passages.

    scripts/eval/obliqa.py --folio target/debug/folio --library /tmp/obliqa-lib [--ingest] \
        [--channels dense,keyword,exact] [--weights 1,1,1] [--limit-questions N]

Needs ../shared/data/obliqa. Prints one line of figures per run; not part of CI's pass/fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "obliqa")


def squash(s):
    return "".join(c for c in s if not c.isspace() and c not in "\u200e\u200f\ufeff")


def load_passages():
    with open(os.path.join(DATA, "document_map.json")) as f:
        docmap = json.load(f)
    by_file = {}
    for num, name in docmap.items():
        with open(os.path.join(DATA, "passages", f"{num}.json")) as f:
            ps = json.load(f)
        rows = []
        for p in ps:
            t = squash(p["Passage"]).replace("/TableStart", "").replace("/TableEnd", "")
            t = t.replace("\\TableStart", "").replace("\\TableEnd", "")
            if t:
                rows.append((p["ID"], t))
        by_file[name] = rows
    return docmap, by_file


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/folio-target")), "debug", "folio"))
    ap.add_argument("--library", required=True)
    ap.add_argument("--ingest", action="store_true")
    ap.add_argument("--channels", default="dense,keyword,exact")
    ap.add_argument("--weights", default=None)
    ap.add_argument("--depth", default="50")
    ap.add_argument("--limit-questions", type=int, default=0)
    ap.add_argument("--out", default=None, help="keep the raw folio eval output here")
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print(f"SKIP: {DATA} not found", file=sys.stderr)
        return 0
    if a.ingest:
        subprocess.run([a.folio, "--library", a.library, "ingest", os.path.join(DATA, "documents")], check=True)
    with open(os.path.join(DATA, "questions_dev.json")) as f:
        questions = json.load(f)
    if a.limit_questions:
        questions = questions[: a.limit_questions]
    docmap, passages = load_passages()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as qf:
        for i, q in enumerate(questions):
            qf.write(json.dumps({"id": i, "query": q["Question"]}) + "\n")
    out = a.out or qf.name + ".out"
    cmd = [a.folio, "--library", a.library, "eval", qf.name, "--out", out, "--limit", "30", "--depth", a.depth, "--channels", a.channels]
    if a.weights:
        cmd += ["--weights", a.weights]
    t = time.time()
    subprocess.run(cmd, check=True)
    wall = time.time() - t
    recalls, aps, times = [], [], []
    with open(out) as f:
        results = [json.loads(l) for l in f]
    for res in results:
        q = questions[res["id"]]
        gold = set()
        for p in q["Passages"]:
            name = docmap[str(p["DocumentID"])]
            t = squash(p["Passage"]).replace("/TableStart", "").replace("/TableEnd", "")
            for pid, text in passages[name]:
                if text == t:
                    gold.add(pid)
                    break
        if not gold:
            continue
        ranked = []
        for h in res["hits"]:
            name = os.path.basename(h["path"])
            chunk = squash(h["text"])
            for pid, text in passages.get(name, []):
                if pid not in ranked and text in chunk:
                    ranked.append(pid)
            if len(ranked) >= 10:
                break
        ranked = ranked[:10]
        hits = [1 if p in gold else 0 for p in ranked]
        recalls.append(sum(hits) / len(gold))
        ap_sum, found = 0.0, 0
        for k, r in enumerate(hits, 1):
            if r:
                found += 1
                ap_sum += found / k
        aps.append(ap_sum / min(len(gold), 10))
        times.append(res["ms"])
    times.sort()
    n = len(recalls)
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print(
        f"ObliQA dev: {n} questions, channels {a.channels}, weights {a.weights or '1,1,1'}: "
        f"Recall@10 {sum(recalls)/n:.3f}, MAP@10 {sum(aps)/n:.3f}; "
        f"query ms p50 {p(0.5):.1f} p99 {p(0.99):.1f}; wall {wall:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
