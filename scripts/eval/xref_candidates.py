#!/usr/bin/env python3
"""Proposes cross-references for the ADGM gold set, found independently of Folio's scanner.

Each candidate is a reference written in an ObliQA gold passage, with the passage it points to,
looked up among the target rulebook's own passage ids (the most specific one that exists). The
candidates are printed with their sentence and the start of the target passage so a person can check
each by reading; the checked lines are kept in crates/engine/tests/data/adgm_references.tsv, which
the test `crates/engine/tests/it/shared/adgm_references.rs` scores.

    scripts/eval/xref_candidates.py [--per-form N] [--seed S] > /tmp/candidates.txt

Columns of a candidate line (tab-separated): form, source file number, source passage id, the
reference as written, its occurrence in the passage (0 = first), target file number ("-" when the
instrument is not among the 40), target passage id (or the instrument's name).
"""
import argparse
import json
import os
import random
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "obliqa")

LABELS = {"AML": "1", "CIB": "2", "COBS": "3", "FEES": "4", "FP": "5", "FUNDS": "6", "GEN": "7", "GLO": "8",
          "IFR": "9", "MIR": "10", "MKT": "11", "PIN": "12", "PRU": "13", "FSMR": "17", "CMC": "22",
          "GPM": "27", "CONF": "23", "BRR": "14", "CRS": "15"}
NAMES = {"Financial Services and Markets Regulations": "17", "Markets Rules": "11", "Fund Rules": "6",
         "Funds Rules": "6", "General Rulebook": "7", "Conduct of Business Rulebook": "3",
         "Market Infrastructure Rules": "10", "Prudential Rulebook": "13"}
EXTERNAL = ["Insolvency Regulations", "Companies Regulations", "Commercial Licensing Regulations",
            "ADGM Founding Law", "Data Protection Regulations", "Employment Regulations",
            "Interpretation Regulations", "UAE Penal Code", "Federal Law", "Cabinet Decision"]
# Candidates a reader rejected, with why.
EXCLUDE = {
    ("10", "5.4.1", "Rule 2.2.1"): "MIR's own fit and proper Rule 2.2.1, not GEN's",
    ("12", "8.3.2", "Rule 8.3"): "PIN's Rule 8.3, set against PRU 8.3 in the same sentence",
    ("19", "166).a)", "Section 52 of FSMR"): "Schedule 1, Section 52: paragraph 52 of Schedule 1, not section 52",
}
NUM = r"\d+[A-Z]?(?:\.\d+[A-Z]?)*(?: ?\([0-9a-z]{1,4}\))*"


def load():
    docmap = json.load(open(os.path.join(DATA, "document_map.json")))
    passages = {k: json.load(open(os.path.join(DATA, "passages", f"{k}.json"))) for k in docmap}
    return docmap, passages


def clean(s):
    return s.replace("\u200e", "").replace("\u200f", "")


def norm_pid(p):
    return re.sub(r"\s+", " ", p).strip().rstrip(".")


def rule_candidates(num):
    """'3.3.2(b)(1)' → ['3.3.2.(b).(1)', '3.3.2.(b)', '3.3.2'] (most specific first)."""
    base = re.match(r"[\dA-Z.]+", num).group(0).rstrip(".")
    parens = re.findall(r"\(([0-9a-z]{1,4})\)", num)
    out = []
    for k in range(len(parens), -1, -1):
        out.append(base + "".join(f".({p})" for p in parens[:k]))
    return out


def find_target(ids, form_kind, num, within=None, titles=None):
    """The most specific passage id of a target, or None."""
    nids = {norm_pid(i): i for i in ids}
    if form_kind == "rule":
        for c in rule_candidates(num):
            if c in nids:
                return nids[c]
        return None
    if form_kind == "chapter":
        # A chapter's passage is its title in capitals; a "4." list item is not the chapter.
        for pid in ids:
            if norm_pid(pid) == norm_pid(num) and titles.get(pid, "").isupper():
                return pid
        return None
    if form_kind == "part":
        return nids.get(f"Part {num}")
    if form_kind == "fsmr_section":
        base = re.match(r"\d+[A-Z]?", num).group(0)
        parens = re.findall(r"\(([0-9a-z]{1,4})\)", num)
        for k in range(len(parens), -1, -1):
            tail = base + "".join(f".({p})" for p in parens[:k])
            pat = re.compile(r"^(?:Part \d+[A-Z]?\.)?(?:Chapter \d+[A-Z]?\.)?" + re.escape(tail) + r"$")
            hits = [i for n, i in nids.items() if pat.match(n)]
            if len(hits) == 1:
                return hits[0]
        return None
    if form_kind == "schedule":
        sched, kind, value = within
        if kind == "Part":
            return nids.get(f"Schedule {sched}.Part {value}")
        if kind == "Chapter":
            pat = re.compile(rf"^Schedule {sched}\.(?:Part \d+\.)?Chapter {value}$")
        else:
            pat = re.compile(rf"^Schedule {sched}\.(?:Part \d+\.)?(?:Chapter \d+\.)?{value}$")
        hits = [i for n, i in nids.items() if pat.match(n)]
        return hits[0] if len(hits) == 1 else None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-form", type=int, default=60)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--tsv", action="store_true", help="print only the candidate lines")
    args = ap.parse_args()
    docmap, passages = load()
    ids = {k: [p["PassageID"] for p in v] for k, v in passages.items()}
    texts = {k: {p["PassageID"]: p["Passage"] for p in v} for k, v in passages.items()}

    def target(tgt, kind, num, within=None):
        return find_target(ids[tgt], kind, num, within, texts[tgt])

    own_label = {v: k for k, v in LABELS.items()}
    cands = {}

    def add(form, src, pid, text, ref, tgt, tpid):
        if (src, pid, ref) in EXCLUDE:
            return
        i = text.find(ref)
        if form in ("schedule_chain", "label_after", "name_after") and text[:i].endswith("of "):
            # "section 67 of Chapter 14 of Schedule 1": the reference is to the section inside.
            return
        cands.setdefault(form, []).append((src, pid, ref, 0, tgt, tpid, text))

    labels = "|".join(LABELS)
    names = "|".join(re.escape(n) for n in NAMES)
    for src, ps in passages.items():
        for p in ps:
            text = clean(p["Passage"])
            pid = p["PassageID"]
            seen = set()

            def once(ref):
                # Only the first occurrence of a given string in a passage (occurrence 0).
                if ref in seen:
                    return False
                seen.add(ref)
                return True

            # Label before the container: "GEN Rule 5.5.1", "COBS Chapter 3".
            for m in re.finditer(rf"\b({labels}) (Rule|Chapter|Section|section) ({NUM})", text):
                lab, kw, num = m.group(1), m.group(2), m.group(3).rstrip(".")
                tgt = LABELS[lab]
                kind = "rule" if kw == "Rule" or tgt != "17" else "fsmr_section"
                if kw == "Chapter":
                    kind = "chapter"
                t = target(tgt, kind, num)
                ref = m.group(0).rstrip(".")
                if t and once(ref):
                    form = "label_before_cross" if tgt != src else "label_before_own"
                    add(form, src, pid, text, ref, tgt, t)
            # Label after: "section 196 of the FSMR", "Part 4 of FSMR", "Rule 7.2.1 of MKT".
            for m in re.finditer(rf"\b(Rule|Chapter|Section|section|Part|paragraph) ({NUM}) of (?:the )?({labels})\b", text):
                kw, num, lab = m.group(1), m.group(2).rstrip("."), m.group(3)
                tgt = LABELS[lab]
                kind = {"Part": "part", "Chapter": "chapter"}.get(kw, "rule")
                if tgt == "17" and kind == "rule":
                    kind = "fsmr_section"
                t = target(tgt, kind, num)
                if t and once(m.group(0)):
                    add("label_after", src, pid, text, m.group(0), tgt, t)
            # An instrument by name: "section 58 of the Financial Services and Markets Regulations".
            for m in re.finditer(rf"\b(Rule|Chapter|Section|section|Part) ({NUM}) of (?:the )?({names})\b", text):
                kw, num, name = m.group(1), m.group(2).rstrip("."), m.group(3)
                tgt = NAMES[name]
                kind = {"Part": "part", "Chapter": "chapter"}.get(kw, "rule")
                if tgt == "17" and kind == "rule":
                    kind = "fsmr_section"
                t = target(tgt, kind, num)
                if t and once(m.group(0)):
                    add("name_after", src, pid, text, m.group(0), tgt, t)
            # Inside a schedule: "Part 4 of Schedule 1 of FSMR", "paragraph 92 of Schedule 1 of the FSMR".
            for m in re.finditer(r"\b(Part|PART|Chapter|paragraph|paragraphs) (\d+) of Schedule (\d+) of (?:the )?FSMR\b", text):
                kind = m.group(1).capitalize()
                kind = "Para" if kind.startswith("Paragraph") else kind
                t = target("17", "schedule", None, (m.group(3), kind, m.group(2)))
                if t and once(m.group(0)):
                    add("schedule_chain", src, pid, text, m.group(0), "17", t)
            # Internal rules, no document named, in the rulebooks.
            if src in own_label:
                for m in re.finditer(rf"(?<![A-Z] )\bRules? ({NUM})(?![\w.(])(?! of)", text):
                    num = m.group(1).rstrip(".")
                    if re.search(rf"\b(?:{labels}) $", text[: m.start()]):
                        continue
                    sentence = re.split(r"[.;]\s", text[: m.start()])[-1]
                    named = [l for l in re.findall(rf"\b(?:in|under) ({labels})\b", sentence) if LABELS[l] != src]
                    if named:
                        # The sentence names another rulebook: "set out in MIR, Chapter 5: … Rule 5.4.1".
                        t = target(LABELS[named[-1]], "rule", num)
                        if t and once(m.group(0)):
                            add("sentence_names_instrument", src, pid, text, m.group(0).rstrip("."), LABELS[named[-1]], t)
                        continue
                    t = target(src, "rule", num)
                    if t and once(m.group(0)):
                        form = "internal_paragraph" if "(" in num else "internal"
                        add(form, src, pid, text, m.group(0).rstrip("."), src, t)
                # Later items of a list: "Rules 2.2.6, 2.2.7 and 2.2.9".
                for m in re.finditer(rf"\bRules ({NUM})((?:, {NUM})*,? (?:and|or|to) ({NUM}))", text):
                    if re.search(rf"\b(?:{labels}) $", text[: m.start()]):
                        continue
                    last = m.group(3).rstrip(".")
                    t = target(src, "rule", last)
                    if t and once(last):
                        add("list_item", src, pid, text, last, src, t)
            # Instruments outside the library.
            for name in EXTERNAL:
                for m in re.finditer(rf"\b(?:Part|Chapter|section|Section|Article|paragraph|regulation) ({NUM}) of (?:the )?{re.escape(name)}", text):
                    if once(m.group(0)):
                        add("external", src, pid, text, m.group(0), "-", name)
            # A sentence names the instrument; the container follows without "of".
            for m in re.finditer(rf"\b(?:in|under) (?:the )?FSMR\b[^.;]{{1,120}}?\b(Part|section|Section) ({NUM})(?![\w.(])(?! of)", text):
                num = m.group(2)
                kind = "part" if m.group(1) == "Part" else "fsmr_section"
                if kind == "part" and not num.isdigit():
                    continue
                t = target("17", kind, num)
                ref = f"{m.group(1)} {num}"
                if t and once(ref):
                    add("sentence_names_instrument", src, pid, text, ref, "17", t)

    rng = random.Random(args.seed)
    for form in sorted(cands):
        rows = cands[form]
        rng.shuffle(rows)
        for src, pid, ref, occ, tgt, tpid, text in rows[: args.per_form]:
            i = text.find(ref)
            ctx = text[max(0, i - 90): i + len(ref) + 60].replace("\n", " ").replace("\t", " ")
            head = ""
            if tgt != "-":
                tp = next(p for p in passages[tgt] if p["PassageID"] == tpid)
                head = clean(tp["Passage"])[:70].replace("\n", " ").replace("\t", " ")
            print("\t".join([form, src, pid, ref, str(occ), tgt, tpid]))
            if not args.tsv:
                print(f"#   …{ctx}…")
                print(f"#   → {docmap.get(tgt, tpid)} {tpid}: {head}")
        if not args.tsv:
            print(f"# {form}: {len(rows)} candidates", flush=True)


if __name__ == "__main__":
    main()
