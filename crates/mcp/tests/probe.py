# WIP (issue 33): a first check with the official Python SDK (PyPI mcp 2.3.0, in a scratch venv):
#   python3 -m venv /tmp/mcpvenv && /tmp/mcpvenv/bin/pip install mcp
#   /tmp/mcpvenv/bin/python crates/mcp/tests/probe.py FOLIO_BINARY LIBRARY_DIR   (a fast-model library)
# To become the integration test of acceptance 1 (every tool, schemas, answers against the CLI).
import asyncio, json, os, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError


async def refused(call):
    try:
        await call
    except MCPError as e:
        return f"MCP error {e.error.code} {e.error.data}: {e.error.message[:90]}"
    return "answered"

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=["--model", "fast", "--library", sys.argv[2], "mcp"],
                                   env={**os.environ})
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            init = await s.initialize()
            print("server:", init.server_info.name, init.protocol_version)
            tools = await s.list_tools()
            print("tools:", [t.name for t in tools.tools])
            res = await s.call_tool("search", {"query": "GEN 5.5.1", "limit": 3})
            print("search isError:", res.is_error, "structured hits:", len(res.structured_content["hits"]) if res.structured_content else None)
            print("first:", res.structured_content["hits"][0]["citation"])
            res = await s.call_tool("search", {"query": "annual fee", "documents": ["FEES"], "chunk_types": ["requirement"], "limit": 5})
            hits = res.structured_content["hits"]
            print("filtered search:", len(hits), "hits,", {h["document"] for h in hits}, {h["chunk_type"] for h in hits}, hits[0]["found_by"] if hits else None)
            print("unknown type:", await refused(s.call_tool("search", {"query": "fee", "chunk_types": ["poem"]})))
            res = await s.call_tool("outline", {"document": "GEN", "depth": 1})
            print("outline:", len(res.structured_content["headings"]), "top headings,", res.structured_content["deeper"], "deeper")
            print("bad section:", await refused(s.call_tool("read_section", {"document": "GEN", "section": "9.9.9"})))
            print("path characters:", await refused(s.call_tool("read_section", {"document": "../../etc/passwd", "section": "1"})))
            print("100 kB query:", await refused(s.call_tool("search", {"query": "x" * 100_000})))
            print("empty query:", await refused(s.call_tool("search", {"query": " "})))
            res = await s.call_tool("search", {"limit": "x"})
            print("malformed arguments:", res.is_error, res.content[0].text[:80])
            res = await s.call_tool("search", {"query": "mooring"})
            print("still up after the errors:", not res.is_error)
            parts, offset, text = 0, None, ""
            while True:
                args = {"document": "GEN", "section": "5"} | ({"offset": offset} if offset is not None else {})
                res = (await s.call_tool("read_section", args)).structured_content
                text += res["text"]
                parts += 1
                offset = res["next_offset"]
                if offset is None:
                    break
            print("long section:", parts, "parts,", len(text.encode()), "of", res["total_bytes"], "bytes")
            templates = await s.list_resource_templates()
            print("resource templates:", [t.uri_template for t in templates.resource_templates])
            res = await s.read_resource("folio://doc/GEN/5.5.1")
            print("resource:", res.contents[0].text[:100].replace("\n", " | "))
            print("bad resource:", await refused(s.read_resource("folio://doc/GEN")))
            res = await s.call_tool("list_documents", {})
            print("documents:", len(res.structured_content["documents"]))

asyncio.run(main())
