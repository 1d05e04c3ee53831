#!/usr/bin/env python3
"""Scores Folio's retrieval on ObliQA (the ADGM rulebooks), as the library issue defines it.

A retrieved chunk counts for each passage whose text it contains; passages are ranked by their first
containing chunk; Recall@10 and MAP@10 are computed over the first 10 distinct passages. Two
readings of "ranked by their first containing chunk" are reported:

- chunk rank (primary): a passage's rank is the rank of its first containing chunk, so passages
  sharing a chunk share its rank; the first 10 distinct passages are those of the first chunks;
- passage list (strict): every passage a chunk contains is listed, in document order, before the next
  chunk's, and ranks count list positions, so a chunk holding several passages pushes later gold
  passages down (larger chunks pay for it).

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
    ap.add_argument("--depth", default=None)
    ap.add_argument("--fusion", default=None, help="folio eval --fusion (scores or rrf)")
    ap.add_argument("--limit-questions", type=int, default=0)
    ap.add_argument("--half", choices=["even", "odd"], default=None,
                    help="only the even- or odd-numbered questions: tune on one half, report the other")
    ap.add_argument("--out", default=None, help="keep the raw folio eval output here")
    ap.add_argument("--model", default=None, help="embedding model (minilm or fast)")
    ap.add_argument("--team-keywords", choices=["cache", "server"], default=None,
                    help="a team library's keyword ranking (folio --team-keywords)")
    ap.add_argument("--score-only", default=None, help="score an existing folio eval output")
    ap.add_argument("--min-passage-chars", type=int, default=0,
                    help="a diagnostic, not the issue's measure: passages shorter than this (squashed) are "
                         "not listed unless gold; headings such as 'Application' or 'The Regulator' are "
                         "passages too, and text containment finds them inside any chunk that uses the words")
    ap.add_argument("--heading-boost", default=None, help="folio eval --heading-boost")
    ap.add_argument("--follow-refs", default=None, help="folio eval --follow-refs")
    ap.add_argument("--feedback", default=None, help="folio eval --feedback-terms N[:weight]")
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print(f"SKIP: {DATA} not found", file=sys.stderr)
        return 0
    base = [a.folio, "--library", a.library] + (["--model", a.model] if a.model else [])
    if a.team_keywords:
        base += ["--team-keywords", a.team_keywords]
    if a.ingest:
        subprocess.run(base + ["ingest", os.path.join(DATA, "documents")], check=True)
    with open(os.path.join(DATA, "questions_dev.json")) as f:
        questions = json.load(f)
    if a.half:
        questions = questions[(0 if a.half == "even" else 1)::2]
    if a.limit_questions:
        questions = questions[: a.limit_questions]
    docmap, passages = load_passages()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as qf:
        for i, q in enumerate(questions):
            qf.write(json.dumps({"id": i, "query": q["Question"]}) + "\n")
    out = a.score_only or a.out or qf.name + ".out"
    wall = 0.0
    if not a.score_only:
        cmd = base + ["eval", qf.name, "--out", out, "--limit", "30", "--channels", a.channels]
        if a.depth:
            cmd += ["--depth", a.depth]
        if a.fusion:
            cmd += ["--fusion", a.fusion]
        if a.weights:
            cmd += ["--weights", a.weights]
        if a.heading_boost is not None:
            cmd += ["--heading-boost", a.heading_boost]
        if a.follow_refs is not None:
            cmd += ["--follow-refs", a.follow_refs]
        if a.feedback is not None:
            n, _, w = a.feedback.partition(":")
            cmd += ["--feedback-terms", n] + (["--feedback-weight", w] if w else [])
        t = time.time()
        subprocess.run(cmd, check=True)
        wall = time.time() - t
    with open(out) as f:
        results = [json.loads(l) for l in f]
    if a.min_passage_chars:
        gold = set().union(*(gold_of(q, docmap, passages) for q in questions))
        passages = {n: [(pid, t) for pid, t in rows if len(t) >= a.min_passage_chars or pid in gold]
                    for n, rows in passages.items()}
    figures = score(results, questions, docmap, passages)
    times = sorted(r["ms"] for r in results)
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print(
        f"ObliQA dev: {figures['n']} questions, channels {a.channels}, fusion {a.fusion or 'default'}, "
        f"depth {a.depth or 'default'}, weights {a.weights or 'default'}, "
        f"heading boost {a.heading_boost or 'default'}, follow refs {a.follow_refs or 'default'}, "
        f"feedback {a.feedback or 'default'}: "
        f"Recall@10 {figures['recall']:.3f}, MAP@10 {figures['map']:.3f} "
        f"(strict passage list: {figures['recall_strict']:.3f} / {figures['map_strict']:.3f}); "
        f"query ms p50 {p(0.5):.1f} p99 {p(0.99):.1f}; wall {wall:.0f} s"
        + (f" [passages under {a.min_passage_chars} characters not listed]" if a.min_passage_chars else "")
    )
    return 0


def gold_of(q, docmap, passages):
    gold = set()
    for p in q["Passages"]:
        name = docmap[str(p["DocumentID"])]
        t = squash(p["Passage"]).replace("/TableStart", "").replace("/TableEnd", "")
        for pid, text in passages[name]:
            if text == t:
                gold.add(pid)
                break
    return gold


def average_precision(ranks, n_gold):
    """ranks: the rank (from 1) of each found gold passage, within the cut-off."""
    ap, found = 0.0, 0
    for r in sorted(ranks):
        found += 1
        ap += found / r
    return ap / min(n_gold, 10)


def score(results, questions, docmap, passages):
    recalls, aps, recalls_s, aps_s = [], [], [], []
    for res in results:
        gold = gold_of(questions[res["id"]], docmap, passages)
        if not gold:
            continue
        seen, chunk_rank = {}, 0  # passage -> rank of its first containing chunk
        listed = []  # passages in list order
        for h in res["hits"]:
            name = os.path.basename(h["path"])
            chunk = squash(h["text"])
            chunk_rank += 1
            new = [pid for pid, text in passages.get(name, []) if pid not in seen and text in chunk]
            for pid in new:
                seen[pid] = chunk_rank
                listed.append(pid)
            if len(listed) >= 10:
                break
        # chunk rank: the first 10 distinct passages, each at its chunk's rank
        first10 = listed[:10]
        ranks = [seen[pid] for pid in first10 if pid in gold]
        recalls.append(len(ranks) / len(gold))
        aps.append(average_precision(ranks, len(gold)))
        # strict: list positions
        ranks_s = [k for k, pid in enumerate(first10, 1) if pid in gold]
        recalls_s.append(len(ranks_s) / len(gold))
        aps_s.append(average_precision(ranks_s, len(gold)))
    n = len(recalls)
    return {
        "n": n,
        "recall": sum(recalls) / n,
        "map": sum(aps) / n,
        "recall_strict": sum(recalls_s) / n,
        "map_strict": sum(aps_s) / n,
    }


if __name__ == "__main__":
    sys.exit(main())
