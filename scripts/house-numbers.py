#!/usr/bin/env python3
"""The house in numbers (docs/architecture.md): files over 1,000 lines, cli/'s lines, its
lines using unsafe or libc, circles of files importing each other, and benchmark-id
literals (templates counted) outside bench/, reference/ and selftest/.

    python3 scripts/house-numbers.py [TIMESHARE_BINARY]

The binary (default target/release/timeshare) gives the registered ids' families, as
`timeshare list` shows them. Test code is left out of the imports and the literals: files
named *_tests.rs or tests.rs, and every `#[cfg(test)] mod` block, cut by brace matching.
"""
import os
import re
import subprocess
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def files():
    out = []
    for root, _, names in os.walk(SRC):
        out += [os.path.join(root, n) for n in names if n.endswith(".rs")]
    return sorted(out)


def rel(path):
    return os.path.relpath(path, SRC)


def is_test_file(path):
    name = os.path.basename(path)
    return name == "tests.rs" or name.endswith("_tests.rs") or "/tests/" in rel(path)


def program(text):
    """`text` without comment lines and `#[cfg(test)] mod` blocks (brace matched)."""
    out, i = [], 0
    while i < len(text):
        m = re.compile(r"#\[cfg\(test\)\]\s*(#\[[^\]]*\]\s*)*(pub(\([a-z]+\))? )?mod \w+\s*([;{])").match(text, i)
        if m:
            if m.group(4) == ";":
                i = m.end()
                continue
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            i = j
            continue
        out.append(text[i])
        i += 1
    return "\n".join(l for l in "".join(out).splitlines() if not l.lstrip().startswith("//"))


def module_of(path):
    parts = rel(path)[:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def imports(mod, code, modules):
    """The module files `code` (of module `mod`) refers to by crate::, super:: or self::
    paths, grouped `use` braces expanded one level."""
    paths = []
    for m in re.finditer(r"\b(crate|super|self)((?:::\w+)*)::\{([^}]*)\}", code):
        for inner in m.group(3).split(","):
            paths.append(m.group(1) + m.group(2) + "::" + inner.strip().split(" ")[0])
    paths += [m.group(0) for m in re.finditer(r"\b(crate|super|self)(::\w+)+", code)]
    found = set()
    for p in paths:
        segs = [s for s in p.split("::") if s]
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        else:
            base = mod if segs[0] == "self" else mod
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
        target = base
        for s in segs:
            if base + (s,) in modules:
                base = base + (s,)
                target = base
            else:
                break
        if target != mod and target in modules:
            found.add(target)
    return found


def circles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
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
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def families(binary):
    listing = subprocess.run([binary, "list"], capture_output=True, text=True,
                             env={**os.environ, "COLUMNS": "300"}).stdout
    fams = set()
    for line in listing.splitlines():
        first = line.split()[0] if line.split() else ""
        if re.fullmatch(r"[a-z_0-9]+\.[\w.]+", first):
            fams.add(first.split(".")[0])
    return fams


def id_literals(code, fams):
    found = []
    for line in code.splitlines():
        if '\\"' in line or "'\"'" in line:
            continue
        for lit in line.split('"')[1::2]:
            head, dot, rest = lit.partition(".")
            if dot and head in fams and re.fullmatch(r"[\w.*{}:]*", rest):
                found.append(lit)
    return found


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "..", "target", "release", "timeshare")
    all_files = files()
    texts = {f: open(f, encoding="utf-8").read() for f in all_files}
    big = [(len(t.splitlines()), rel(f)) for f, t in texts.items() if len(t.splitlines()) > 1000]
    print(f"files over 1,000 lines: {len(big)}", *(f"  {n} {p}" for n, p in sorted(big)), sep="\n")
    cli = [f for f in all_files if rel(f).startswith("cli/")]
    print(f"lines of cli/: {sum(len(texts[f].splitlines()) for f in cli)}")
    sys_lines = [l for f in cli for l in texts[f].splitlines()
                 if not l.lstrip().startswith("//") and re.search(r"\b(unsafe|libc)\b", l)]
    print(f"lines of cli/ using unsafe or libc: {len(sys_lines)}")
    code = {f: program(t) for f, t in texts.items() if not is_test_file(f)}
    modules = {module_of(f): f for f in code}
    graph = {m: imports(m, code[f], modules) for m, f in modules.items()}
    found = circles(graph)
    print(f"circles: {len(found)}", *("  " + " <-> ".join("/".join(m) or "crate" for m in c) for c in found), sep="\n")
    fams = families(binary)
    lits = [(rel(f), lit) for f, c in code.items()
            if not rel(f).split("/")[0] in ("bench", "reference", "selftest")
            for lit in id_literals(c, fams)]
    print(f"benchmark-id literals outside bench/, reference/, selftest/: {len(lits)}")
    by = {}
    for f, _ in lits:
        by[f] = by.get(f, 0) + 1
    for f, n in sorted(by.items(), key=lambda x: -x[1]):
        print(f"  {n} {f}")


main()
