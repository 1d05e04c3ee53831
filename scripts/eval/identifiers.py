#!/usr/bin/env python3
"""Identifier and defined-term queries built from an ingested library (e.g. the 40 ObliQA rulebooks):

- "GEN 2.1.3" / "Rule 3.3.31 of COBS" style: a numbered section of a labelled document, asked by its
  document label and number; right when the first hit holds that section's own text: text of the
  section after its heading line (its body or its numbered paragraphs), not its guidance, and not
  a chunk that holds only its heading (--lenient counts any chunk naming the section);
- "section 196 of the FSMR" for the regulations whose sections are numbered on their own;
- "What does 'X' mean?" for defined terms; right when the first hit defines X.

    scripts/eval/identifiers.py --library /tmp/obliqa-lib [--count 60] [--seed 7]

Prints rank-1 accuracy per kind and the misses. Not part of CI's pass/fail.
"""
import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/folio-target")), "debug", "folio"))
    ap.add_argument("--library", required=True)
    ap.add_argument("--count", type=int, default=20, help="queries of each kind")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--fusion", default=None, help="folio eval --fusion (scores or rrf)")
    ap.add_argument("--weights", default=None, help="dense,keyword,exact (default: folio's)")
    ap.add_argument("--lenient", action="store_true", help="right when the first hit names the section at all")
    ap.add_argument("--sample-from", default=None,
                    help="a folder library holding the same documents (ingested in the same order) to draw the "
                         "queries from, when --library is a team library (postgres://…)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    db = sqlite3.connect(os.path.join(a.sample_from or a.library, "catalog.sqlite"))
    docs = {row[0]: row[1] for row in db.execute("SELECT id, label FROM documents")}
    short = {i: l for i, l in docs.items() if l.isupper() and 2 <= len(l) <= 6}
    queries = []
    # Numbered rules of labelled rulebooks: "GEN 2.1.3", "Rule 2.1.3 of GEN".
    rows = db.execute(
        "SELECT doc_id, section_id, number FROM sections WHERE number GLOB '[0-9]*.[0-9]*.[0-9]*' AND number NOT LIKE '%(%' AND number NOT LIKE '%Guidance%'"
    ).fetchall()
    rows = [r for r in rows if r[0] in short]
    for doc_id, sid, number in rnd.sample(rows, min(a.count, len(rows))):
        n = number.rstrip(".")
        form = rnd.choice(["{d} {n}", "Rule {n} of {d}", "{d} Rule {n}"])
        queries.append(("section", form.format(d=short[doc_id], n=n), doc_id, sid))
    # Regulations with sections numbered on their own: "section 196 of the FSMR".
    rows = db.execute(
        "SELECT doc_id, section_id, number FROM sections WHERE number LIKE 'Part %' AND number GLOB '*.[0-9]*.' "
    ).fetchall()
    rows = [r for r in rows if r[0] in short]
    # A number printed twice in one document ("134" in two Parts) names no one section: left out.
    counts = {}
    for doc_id, _, number in rows:
        key = (doc_id, number.rstrip(".").split(".")[-1])
        counts[key] = counts.get(key, 0) + 1
    rows = [r for r in rows if counts[(r[0], r[2].rstrip(".").split(".")[-1])] == 1]
    for doc_id, sid, number in rnd.sample(rows, min(a.count // 2, len(rows))):
        n = number.rstrip(".").split(".")[-1]
        queries.append(("section", f"section {n} of the {short[doc_id]}", doc_id, sid))
    # Defined terms.
    rows = db.execute("SELECT DISTINCT term, key FROM definitions WHERE length(term) BETWEEN 4 AND 40").fetchall()
    for term, key in rnd.sample(rows, min(a.count, len(rows))):
        form = rnd.choice(["What does '{t}' mean?", "define {t}", "What is meant by {t}?"])
        queries.append(("term", form.format(t=term), None, key))
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as qf:
        for i, q in enumerate(queries):
            qf.write(json.dumps({"id": i, "query": q[1]}) + "\n")
    out = qf.name + ".out"
    cmd = [a.folio, "--library", a.library, "eval", qf.name, "--out", out, "--limit", "3"]
    if a.weights:
        cmd += ["--weights", a.weights]
    if a.fusion:
        cmd += ["--fusion", a.fusion]
    subprocess.run(cmd, check=True)
    chunks = {}
    for cid, doc_id, section_id, section_ids, defined in db.execute("SELECT id, doc_id, section_id, section_ids, defined_terms FROM chunks"):
        chunks[(doc_id, section_id, section_ids)] = json.loads(defined)
    by_path = {row[0]: row[1] for row in db.execute("SELECT path, id FROM documents")}
    right = {"section": 0, "term": 0}
    total = {"section": 0, "term": 0}
    misses = []
    with open(out) as f:
        for line in f:
            r = json.loads(line)
            kind, text, doc_id, want = queries[r["id"]]
            total[kind] += 1
            top = r["hits"][0] if r["hits"] else None
            ok = False
            if top:
                hit_doc = by_path.get(top["path"])
                row = db.execute(
                    "SELECT section_ids, defined_terms FROM chunks WHERE doc_id = ? AND span_start = ? AND span_end = ?",
                    (hit_doc, top["span"]["start"], top["span"]["end"]),
                ).fetchone()
                if row:
                    if kind == "section" and a.lenient:
                        ok = hit_doc == doc_id and want in json.loads(row[0])
                    elif kind == "section":
                        ok = hit_doc == doc_id and own_text(db, doc_id, want, top)
                    else:
                        ok = want in json.loads(row[1])
            right[kind] += ok
            if not ok:
                misses.append(f"{text!r} -> {top['section_id'] if top else None} (wanted {want})")
    n = sum(total.values())
    print(
        f"Identifier queries: {n}; rank-1 right {sum(right.values())} ({100*sum(right.values())/max(n,1):.1f}%): "
        f"sections {right['section']}/{total['section']}, terms {right['term']}/{total['term']}"
    )
    for m in misses:
        print("  miss:", m)
    return 0


def own_text(db, doc_id, section_id, hit):
    """Whether a hit holds text of the section after its heading line, and begins in no guidance
    note (a section numbered as guidance: "5.5.1.Guidance.1.")."""
    start, end, heading = db.execute(
        "SELECT span_start, span_end, heading FROM sections WHERE doc_id = ? AND section_id = ?", (doc_id, section_id)
    ).fetchone()
    number = db.execute(
        "SELECT number FROM sections WHERE doc_id = ? AND section_id = ?", (doc_id, hit["section_id"])
    ).fetchone()
    guidance = number is not None and number[0] is not None and "guidance" in number[0].lower()
    body = min(start + len(heading.encode("utf-8")), end)
    s, e = hit["span"]["start"], hit["span"]["end"]
    return not guidance and s < end and e > body


if __name__ == "__main__":
    sys.exit(main())
