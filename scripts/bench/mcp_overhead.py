#!/usr/bin/env python3
"""Where an MCP search call's time goes: the same ObliQA dev questions asked three ways, one
after the other, on one library.

- engine: the library's own search time for the question, as `folio mcp` measured it around
  the engine call (the tool answer's `engine_ms`);
- raw: a plain JSON-RPC client on `folio mcp`'s stdin and stdout (a request line written, the
  response line read and parsed): the engine plus the server's work (arguments, the answer's
  JSON, the pipe);
- sdk: the official Python SDK's `call_tool` (PyPI `mcp`), as an assistant built on it sees it:
  the raw cost plus the SDK's own (its models, and validating the answer against the tool's
  output schema).

    /tmp/mcpvenv/bin/python scripts/bench/mcp_overhead.py --folio FOLIO --library LIB [--model fast] [--questions 300] [--limit 30]

Prints p50 and p99 of each and the differences. Needs PyPI `mcp` for the sdk column.
"""
import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "obliqa")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def server_args(a):
    return (["--model", a.model] if a.model else []) + ["--library", a.library, "mcp"]


def raw(a, questions):
    """Round trips of a bare JSON-RPC client, and the engine's time inside each."""
    p = subprocess.Popen([a.folio] + server_args(a), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(obj):
        p.stdin.write(json.dumps(obj) + "\n")
        p.stdin.flush()

    def answer(want_id):
        while True:
            msg = json.loads(p.stdout.readline())
            if msg.get("id") == want_id:
                return msg

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "mcp_overhead", "version": "1"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    trips, engine = [], []
    for i, q in enumerate(questions, start=1):
        t = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "search", "arguments": {"query": q, "limit": a.limit}}})
        msg = answer(i)
        trips.append((time.perf_counter() - t) * 1e3)
        engine.append(msg["result"]["structuredContent"]["engine_ms"])
    p.stdin.close()
    p.wait()
    return trips, engine


async def sdk(a, questions):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=a.folio, args=server_args(a), env={**os.environ})
    trips = []
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            for q in questions:
                t = time.perf_counter()
                await s.call_tool("search", {"query": q, "limit": a.limit})
                trips.append((time.perf_counter() - t) * 1e3)
    return trips


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--model", default=None)
    ap.add_argument("--questions", type=int, default=300)
    ap.add_argument("--limit", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=20)
    a = ap.parse_args()
    with open(os.path.join(DATA, "questions_dev.json")) as f:
        questions = [q["Question"] for q in json.load(f)][: a.questions + a.warmup]
    w = a.warmup
    trips, engine = raw(a, questions)
    trips, engine = trips[w:], engine[w:]
    sdk_trips = asyncio.run(sdk(a, questions))[w:]
    server = [t - e for t, e in zip(trips, engine)]
    print(f"{len(trips)} questions, {a.limit} hits each (after {w} warm-up questions)")
    print("| part | p50 ms | p99 ms |")
    print("|---|---|---|")
    for name, v in [("engine search", engine), ("raw JSON-RPC round trip", trips),
                    ("  of which server and pipe (round trip - engine)", server),
                    ("Python SDK call_tool", sdk_trips)]:
        print(f"| {name} | {pct(v, 0.5):.1f} | {pct(v, 0.99):.1f} |")
    print(f"| Python SDK's own share (p50 sdk - p50 raw) | {pct(sdk_trips, 0.5) - pct(trips, 0.5):.1f} | |")


if __name__ == "__main__":
    sys.exit(main())
