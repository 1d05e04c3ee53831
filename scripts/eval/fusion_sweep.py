#!/usr/bin/env python3
"""Sweeps RRF weights and depths offline over per-channel `folio eval` outputs on ObliQA.

Run each channel alone once, deep (`folio eval Q --channels dense --limit 100 --depth 100 --out
dense.jsonl`, the same for keyword and exact), then

    scripts/eval/fusion_sweep.py dense.jsonl keyword.jsonl exact.jsonl

(SWEEP_DENSE, SWEEP_EXACT, SWEEP_DEPTH and SWEEP_K, comma-separated, replace the grid's dense
weights, exact weights, dense depths and RRF k) fuses them here with weighted RRF (k = 60, ranks from 1, as folio does) for a grid of weights and
channel depths and prints Recall@10 / MAP@10 for each, scored as scripts/eval/obliqa.py does.
"""
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import obliqa  # noqa: E402


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            out[r["id"]] = [((h["path"], h["span"]["start"]), h) for h in r["hits"]]
    return out


def fuse(lists, weights, depths, k=60.0, limit=30):
    score, hit = {}, {}
    for lst, w, d in zip(lists, weights, depths):
        if w == 0:
            continue
        for rank, (key, h) in enumerate(lst[:d], 1):
            score[key] = score.get(key, 0.0) + w / (k + rank)
            hit.setdefault(key, h)
    order = sorted(score, key=lambda x: -score[x])[:limit]
    return [hit[x] for x in order]


def main():
    paths = sys.argv[1:4]
    chans = [load(p) for p in paths]
    with open(os.path.join(obliqa.DATA, "questions_dev.json")) as f:
        questions = json.load(f)
    docmap, passages = obliqa.load_passages()
    ids = sorted(chans[1])
    grid = []
    for wd in [float(x) for x in os.environ.get("SWEEP_DENSE", "0,0.25,0.5,0.75,1").split(",")]:
        for wk in [1.0]:
            for we in [float(x) for x in os.environ.get("SWEEP_EXACT", "0,1,2").split(",")]:
                for dd in [int(x) for x in os.environ.get("SWEEP_DEPTH", "20,50,100").split(",")]:
                    for k in [float(x) for x in os.environ.get("SWEEP_K", "60").split(",")]:
                        grid.append(((wd, wk, we), (dd, 100, 50), k))
    for weights, depths, k in grid:
        results = [{"id": i, "hits": fuse([c.get(i, []) for c in chans], weights, depths, k)} for i in ids]
        f = obliqa.score(results, questions, docmap, passages)
        print(f"weights {weights} depths {depths} k {k:g}: Recall@10 {f['recall']:.3f} MAP@10 {f['map']:.3f}", flush=True)


if __name__ == "__main__":
    main()
