#!/usr/bin/env python3
"""The repository's structure check, run by scripts/test.sh.

1. No import cycle between sibling modules of a Rust crate. Every `crate::`, `super::` and `self::`
   path in a module's files (in `use` declarations, grouped ones included, and inline) that names
   another module counts as an edge between the two sibling modules under their nearest common
   parent: `library::ingest` using `crate::library::search::Hit` is an edge ingest → search inside
   `library`; `workspace` using `crate::library::Library` is an edge workspace → library at the
   crate root. A child using its parent's items, or a parent its children's, is not an edge (that
   is what a folder module is for). A cycle among siblings fails the check, naming the modules and
   one line for each edge.
2. No source file over 800 lines unless it is on the allow-list below, each with its reason. An
   allowed file that has shrunk under the limit is reported, so the list does not go stale.
3. No Rust function over 150 lines in the crates' own code (tests, benchmarks and examples aside);
   the ten longest are listed, so that a function growing towards the limit is seen.

Usage: scripts/check-structure.py [ROOT]       (ROOT: the repository, default this script's parent)
       scripts/check-structure.py --functions N [ROOT]  (the N longest functions, and nothing else)
       scripts/check-structure.py --self-test  (checks the checker on made-up crates)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

LIMIT = 800
# The longest a function of the crates' own code may be, in lines from `fn` to its closing brace.
FUNCTION_LIMIT = 150

# Files allowed over LIMIT lines, each with the reason it stays one file.
ALLOWED: dict[str, str] = {}

SOURCE_SUFFIXES = {".rs", ".ts", ".tsx", ".mjs", ".js", ".py", ".sh", ".css"}
SKIP_DIRS = {"node_modules", "target", "dist", ".git", ".assets", "snapshots", "gen"}


def strip_rust(text: str) -> str:
    """Removes comments, string and char literals, keeping line breaks (line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or text.startswith("'\\u{", i):
            j = text.find("'", i + 1)
            out.append("' '")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_test_modules(text: str) -> str:
    """Blanks `#[cfg(test)] mod … { … }` blocks (a module's tests may use what they like)."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
        if not m:
            return text
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        text = text[:m.start()] + "\n" * text.count("\n", m.start(), j) + text[j:]


def expand_use(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` → [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"as\w+$", "", tree)] if tree else []
    prefix, inner = tree[:brace], tree[brace + 1:tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:k])
            start = k + 1
    parts.append(inner[start:])
    out = []
    for p in parts:
        if p in ("", "self"):
            out.append(prefix.rstrip(":"))
        else:
            out.extend(prefix + q for q in expand_use(p))
    return out


class Crate:
    """The modules of one crate (one `src` tree) and the paths each module's files name."""

    def __init__(self, src: Path, root_file: str):
        self.src = src
        self.modules: dict[tuple, Path] = {}
        self._collect(src / root_file, ())

    def _collect(self, file: Path, path: tuple) -> None:
        self.modules[path] = file
        text = strip_rust(file.read_text(encoding="utf-8", errors="replace"))
        if file.name in ("lib.rs", "main.rs", "mod.rs") or path == ():
            folder = file.parent
        else:
            folder = file.with_suffix("")
        for m in re.finditer(r"(?m)^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text):
            name = m.group(1)
            for cand in (folder / f"{name}.rs", folder / name / "mod.rs"):
                if cand.exists():
                    self._collect(cand, path + (name,))
                    break

    def references(self):
        """(from module, to module, file, line) for each path naming another module."""
        for mod, file in self.modules.items():
            text = drop_test_modules(strip_rust(file.read_text(encoding="utf-8", errors="replace")))
            # Inline modules (`mod tests { … }`) belong to this file's module: fine for siblings.
            paths: list[tuple[str, int]] = []
            for m in re.finditer(r"\buse\s+([^;]+);", text):
                line = text.count("\n", 0, m.start()) + 1
                paths.extend((p, line) for p in expand_use(m.group(1)))
            for m in re.finditer(r"(?<![\w:])((?:crate|super|self)(?:\s*::\s*\w+)+)", text):
                line = text.count("\n", 0, m.start()) + 1
                paths.append((re.sub(r"\s+", "", m.group(1)), line))
            for p, line in paths:
                target = self.resolve(mod, p.split("::"))
                if target is not None and target != mod:
                    yield mod, target, file, line

    def resolve(self, mod: tuple, segs: list[str]):
        """The deepest known module a path names, or None for paths outside the crate."""
        if not segs:
            return None
        if segs[0] == "crate":
            base, rest = (), segs[1:]
        elif segs[0] in ("super", "self"):
            base = mod
            # A non-folder file's `super` is its parent; `self` is itself.
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            rest = segs
        else:
            return None
        cur = base
        for s in rest:
            if cur + (s,) in self.modules:
                cur = cur + (s,)
            else:
                break
        return cur


def sibling_edges(crate: Crate):
    """Edges between siblings: (parent, a, b) → [(file, line), …]."""
    edges: dict[tuple, list] = defaultdict(list)
    for a, b, file, line in crate.references():
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        if k == len(a) or k == len(b):
            continue  # one is the other's ancestor
        edges[(a[:k], a[k], b[k])].append((file, line))
    return edges


def cycles(edges) -> list[tuple[tuple, list[str]]]:
    """Strongly connected components of more than one module, per parent (Tarjan)."""
    by_parent: dict[tuple, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for parent, a, b in edges:
        by_parent[parent][a].add(b)
    found = []
    for parent, graph in by_parent.items():
        index, low, stack, on, counter = {}, {}, [], set(), [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph.get(v, ()):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append((parent, sorted(comp)))

        for v in list(graph):
            if v not in index:
                visit(v)
    return found


def crate_roots(root: Path):
    """Each crate's source roots: (src folder, root file) for lib.rs, main.rs and src/bin/*.rs."""
    for cargo in sorted(root.glob("**/Cargo.toml")):
        if any(part in SKIP_DIRS for part in cargo.relative_to(root).parts):
            continue
        src = cargo.parent / "src"
        for name in ("lib.rs", "main.rs"):
            if (src / name).exists():
                yield src, name
        for b in sorted((src / "bin").glob("*.rs")) if (src / "bin").is_dir() else []:
            yield src / "bin", b.name


def check_cycles(root: Path) -> list[str]:
    problems = []
    for src, root_file in crate_roots(root):
        crate = Crate(src, root_file)
        edges = sibling_edges(crate)
        for parent, comp in cycles(edges):
            where = "::".join(parent) or "the crate root"
            lines = [f"import cycle in {src.relative_to(root)} ({root_file}) among {', '.join(comp)} under {where}:"]
            for (p, a, b), sites in sorted(edges.items()):
                if p == parent and a in comp and b in comp:
                    f, ln = sites[0]
                    lines.append(f"    {a} → {b}  ({f.relative_to(root)}:{ln}{f', and {len(sites) - 1} more' if len(sites) > 1 else ''})")
            problems.append("\n".join(lines))
    return problems


def tracked_files(root: Path) -> list[Path]:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard"],
                             check=True, capture_output=True, text=True).stdout
        files = [root / f for f in out.splitlines()]
    except (OSError, subprocess.CalledProcessError):
        files = [Path(d) / f for d, _, fs in os.walk(root) for f in fs]
    return [f for f in files
            if f.suffix in SOURCE_SUFFIXES and f.is_file()
            and not any(part in SKIP_DIRS for part in f.relative_to(root).parts)]


def check_sizes(root: Path) -> tuple[list[str], list[str]]:
    problems, notes = [], []
    sizes = {}
    for f in tracked_files(root):
        rel = f.relative_to(root).as_posix()
        with open(f, "rb") as fh:
            sizes[rel] = sum(1 for _ in fh)
    for rel, n in sorted(sizes.items(), key=lambda kv: -kv[1]):
        if n > LIMIT:
            if rel in ALLOWED:
                notes.append(f"{rel}: {n} lines (allowed: {ALLOWED[rel]})")
            else:
                problems.append(f"{rel}: {n} lines, over {LIMIT}: split it along its seams, or allow it in "
                                f"scripts/check-structure.py with the reason")
    for rel in ALLOWED:
        if rel in sizes and sizes[rel] <= LIMIT:
            problems.append(f"{rel} is on the allow-list but has {sizes[rel]} lines: take it off")
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    notes.append("largest files: " + ", ".join(f"{r} {n}" for r, n in largest))
    return problems, notes


def functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every `fn` with a body in stripped Rust source, nested ones too."""
    out = []
    for m in re.finditer(r"\bfn\s+(\w+)", text):
        j = m.end()
        # The body's brace: the first `{` or `;` after the signature, at bracket depth 0.
        depth = 0
        while j < len(text):
            c = text[j]
            if c in "(<[":
                depth += 1
            elif c in ")>]" and depth:
                depth -= 1
            elif depth == 0 and c in "{;":
                break
            j += 1
        if j >= len(text) or text[j] == ";":
            continue
        start, depth = j, 1
        j += 1
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        first = text.count("\n", 0, m.start()) + 1
        out.append((m.group(1), first, text.count("\n", m.start(), j) + 1))
    return out


def own_code(rel: str) -> bool:
    """A crate's own code: `src/` of a crate or the desktop shell, not tests, benches or examples."""
    parts = rel.split("/")
    return rel.endswith(".rs") and "src" in parts and not {"tests", "benches", "examples", "fuzz"} & set(parts)


def longest_functions(root: Path, n: int) -> list[tuple[int, str]]:
    found = []
    for f in tracked_files(root):
        rel = f.relative_to(root).as_posix()
        if not own_code(rel):
            continue
        text = drop_test_modules(strip_rust(f.read_text(encoding="utf-8", errors="replace")))
        for name, line, lines in functions(text):
            found.append((lines, f"{rel}:{line} {name}"))
    return sorted(found, reverse=True)[:n]


def check_functions(root: Path) -> tuple[list[str], list[str]]:
    longest = longest_functions(root, 1_000_000)
    problems = [f"{where}: {lines} lines, over {FUNCTION_LIMIT}: split it along its phases"
                for lines, where in longest if lines > FUNCTION_LIMIT]
    notes = ["longest functions: " + ", ".join(f"{w.split(' ')[1]} {n}" for n, w in longest[:10])]
    return problems, notes


def main(root: Path) -> int:
    problems = check_cycles(root)
    size_problems, notes = check_sizes(root)
    problems += size_problems
    function_problems, function_notes = check_functions(root)
    problems += function_problems
    notes += function_notes
    for n in notes:
        print(n)
    if problems:
        print("\nstructure check failed:\n", file=sys.stderr)
        for p in problems:
            print(p, file=sys.stderr)
        return 1
    print("structure check passed: no import cycles between modules, no file over "
          f"{LIMIT} lines outside the allow-list, no function over {FUNCTION_LIMIT} lines")
    return 0


def self_test() -> int:
    """The checker on made-up crates: each case must give the expected verdict."""
    cases = {
        # name: (files, expected cycle count)
        "cycle through use": ({
            "src/lib.rs": "mod a;\nmod b;\n",
            "src/a.rs": "use crate::b::Thing;\npub struct Other;\n",
            "src/b.rs": "use crate::a::Other;\npub struct Thing;\n",
        }, 1),
        "cycle through grouped use and inline path": ({
            "src/lib.rs": "pub mod x;\n",
            "src/x/mod.rs": "mod p;\nmod q;\nmod r;\n",
            "src/x/p.rs": "use super::{q::Q, r};\n",
            "src/x/q.rs": "pub struct Q;\n",
            "src/x/r.rs": "fn f() { let _ = crate::x::p::g(); }\n",
        }, 1),
        "parent and child are no cycle": ({
            "src/lib.rs": "mod a;\npub use a::A;\npub struct Top;\n",
            "src/a.rs": "use crate::Top;\npub struct A(Top);\n",
        }, 0),
        "one-way siblings": ({
            "src/lib.rs": "mod a;\nmod b;\nmod c;\n",
            "src/a.rs": "use crate::b::B;\nuse crate::c::C;\n",
            "src/b.rs": "use crate::c::C;\npub struct B;\n",
            "src/c.rs": "// use crate::a::A; in a comment is no edge\nconst S: &str = \"crate::a::A\";\npub struct C;\n",
        }, 0),
        "a module's tests may use anything": ({
            "src/lib.rs": "mod a;\nmod b;\n",
            "src/a.rs": "use crate::b::B;\n",
            "src/b.rs": "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a::*;\n    fn f() { {} }\n}\n",
        }, 0),
    }
    failed = 0
    for name, (files, want) in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "Cargo.toml").write_text("[package]\nname = \"t\"\n")
            for rel, text in files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
            got = len(check_cycles(root))
            ok = got == want
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {got} cycle(s), expected {want}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "big.rs").write_text("x\n" * (LIMIT + 1))
        (root / "small.rs").write_text("x\n" * LIMIT)
        problems, _ = check_sizes(root)
        ok = len(problems) == 1 and problems[0].startswith("big.rs")
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} a file of {LIMIT + 1} lines is reported, one of {LIMIT} is not")
    text = strip_rust(
        "fn short() -> Vec<u8> { vec![] }\n"
        "fn braces_in_strings() {\n    let s = \"{{{\";\n    let c = '}';\n}\n"
        "trait T { fn declared(&self); }\n"
        "impl X {\n    pub fn long<F: Fn(u8) -> [u8; 2]>(f: F) where F: Copy {\n" + "        f(1);\n" * 5 + "    }\n}\n")
    got = [(name, lines) for name, _, lines in functions(text)]
    want = [("short", 1), ("braces_in_strings", 4), ("long", 7)]
    ok = got == want
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} function lengths: {got}, expected {want}")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if sys.argv[1:2] == ["--functions"]:
        where = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(__file__).resolve().parent.parent
        for lines, name in longest_functions(where, int(sys.argv[2])):
            print(f"{lines:5}  {name}")
        sys.exit(0)
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent))
