#!/usr/bin/env python3
"""Sweeps fusion weights and depths offline over per-channel `folio eval` outputs on ObliQA.

Run each channel alone once, deep (`folio eval Q --channels dense --limit 200 --depth 200 --out
dense.jsonl`, the same for keyword and exact), then

    scripts/eval/fusion_sweep.py dense.jsonl keyword.jsonl exact.jsonl

(SWEEP_DENSE, SWEEP_EXACT, SWEEP_DEPTH and SWEEP_K, comma-separated, replace the grid's dense
weights, exact weights, dense depths and RRF k) fuses them here with weighted RRF (k = 60, ranks from 1, as folio does) for a grid of weights and
channel depths and prints Recall@10 / MAP@10 for each, scored as scripts/eval/obliqa.py does.
SWEEP_FUSION=scores fuses by score instead, as folio's default does (each channel's own scores,
`dense_score`, `keyword_score` and `exact_score` in the eval output, scaled so that its first candidate counts 1
and its last, in a full list of the channel's depth, 0); `SWEEP_HALF=even|odd` scores half the
questions, to choose on one half and report the other.
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


def own_score(h):
    """The channel's own score of a hit from a one-channel eval output."""
    for name in ("dense_score", "keyword_score", "exact_score"):
        if h.get(name) is not None:
            return h[name]
    return 1.0  # an output written before folio eval gave the exact channel's score


def fuse(lists, weights, depths, k=60.0, limit=30, by_scores=False):
    score, hit = {}, {}
    for lst, w, d in zip(lists, weights, depths):
        if w == 0:
            continue
        lst = lst[:d]
        if by_scores and lst:
            values = [own_score(h) for _, h in lst]
            top, low = values[0], min(values)
            floor = low if len(lst) >= d else min(low, 0.0)
            span = top - floor
        for rank, (key, h) in enumerate(lst, 1):
            if by_scores:
                add = w * (min(1.0, max(0.0, (values[rank - 1] - floor) / span)) if span > 0 else 1.0)
            else:
                add = w / (k + rank)
            score[key] = score.get(key, 0.0) + add
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
    half = os.environ.get("SWEEP_HALF")
    if half:
        ids = [i for i in ids if i % 2 == (0 if half == "even" else 1)]
    by_scores = os.environ.get("SWEEP_FUSION", "rrf") == "scores"
    grid = []
    for wd in [float(x) for x in os.environ.get("SWEEP_DENSE", "0,0.25,0.5,0.75,1").split(",")]:
        for wk in [1.0]:
            for we in [float(x) for x in os.environ.get("SWEEP_EXACT", "0,1,2").split(",")]:
                for dd in [int(x) for x in os.environ.get("SWEEP_DEPTH", "20,50,100").split(",")]:
                    for k in [float(x) for x in os.environ.get("SWEEP_K", "60").split(",")]:
                        grid.append(((wd, wk, we), (dd, dd if by_scores else 100, 50), k))
    for weights, depths, k in grid:
        results = [{"id": i, "hits": fuse([c.get(i, []) for c in chans], weights, depths, k, by_scores=by_scores)} for i in ids]
        f = obliqa.score(results, questions, docmap, passages)
        how = "scores" if by_scores else f"rrf k {k:g}"
        print(f"{how} weights {weights} depths {depths}: Recall@10 {f['recall']:.3f} MAP@10 {f['map']:.3f}", flush=True)


if __name__ == "__main__":
    main()
