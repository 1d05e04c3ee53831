#!/usr/bin/env python3
"""ObliQA dev questions asked through `folio mcp`'s search tool (the official Python SDK as the
client), scored as scripts/eval/obliqa.py scores `folio eval`; prints Recall@10 / MAP@10 and each
tool call's time (p50, p99) beside the engine's own search time for the same question.

    /tmp/mcpvenv/bin/python scripts/eval/mcp_obliqa.py --folio FOLIO --library LIB [--model fast] [--limit-questions N]

Needs PyPI `mcp` in the interpreter that runs it (a scratch venv).
"""
import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "obliqa")


async def ask(a, questions, out):
    args = (["--model", a.model] if a.model else []) + ["--library", a.library, "mcp"]
    params = StdioServerParameters(command=a.folio, args=args, env={**os.environ})
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            with open(out, "w") as f:
                for i, q in enumerate(questions):
                    t = time.perf_counter()
                    res = await s.call_tool("search", {"query": q["Question"], "limit": 30})
                    ms = (time.perf_counter() - t) * 1e3
                    hits = [{"path": h["file"], "text": h["text"]} for h in res.structured_content["hits"]]
                    f.write(json.dumps({"id": i, "hits": hits, "ms": ms}) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--model", default=None)
    ap.add_argument("--limit-questions", type=int, default=0)
    a = ap.parse_args()
    with open(os.path.join(DATA, "questions_dev.json")) as f:
        questions = json.load(f)
    if a.limit_questions:
        questions = questions[: a.limit_questions]
    out = tempfile.mktemp(suffix=".jsonl")
    t = time.time()
    asyncio.run(ask(a, questions, out))
    print(f"{len(questions)} questions through MCP in {time.time() - t:.0f} s", file=sys.stderr)
    score = ["python3", os.path.join(ROOT, "scripts/eval/obliqa.py"),
             "--library", a.library, "--score-only", out]
    if a.limit_questions:
        score += ["--limit-questions", str(a.limit_questions)]
    subprocess.run(score, check=True)


if __name__ == "__main__":
    sys.exit(main())
