#!/usr/bin/env python3
"""The module graph of common/ and filters/, from their #include "x.h"
lines: a module is x.c with x.h.  Prints the layers (each module above
everything it includes) and every cycle; exits 1 when there is a cycle,
2 on usage trouble.

usage: scripts/deps.py [--layers] [ROOT]"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


def graph(root):
    deps = {}
    for folder in ("common", "filters"):
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            base, ext = os.path.splitext(name)
            if ext not in (".c", ".h"):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as f:
                text = f.read()
            node = deps.setdefault(base, set())
            for inc in INCLUDE.findall(text):
                inc = os.path.basename(inc)
                if inc != base:
                    node.add(inc)
    for node in list(deps):
        deps[node] = {d for d in deps[node] if d in deps}
    return deps


def cycles(deps):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
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

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out


def layers(deps):
    level = {}

    def of(v, seen=()):
        if v in level:
            return level[v]
        if v in seen:
            return 0
        level[v] = 1 + max((of(w, seen + (v,)) for w in deps[v]), default=-1)
        return level[v]

    for v in deps:
        of(v)
    return level


def main(argv):
    show = "--layers" in argv
    args = [a for a in argv if a != "--layers"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    root = args[0] if args else "."
    deps = graph(root)
    found = cycles(deps)
    nedges = sum(len(d) for d in deps.values())
    if show:
        level = layers(deps)
        for n in range(max(level.values()) + 1):
            print("layer %d: %s" % (n, " ".join(sorted(v for v in level if level[v] == n))))
    for comp in found:
        edges = ["%s -> %s" % (a, b) for a in comp for b in sorted(deps[a]) if b in comp]
        print("cycle: %s (%s)" % (" ".join(comp), ", ".join(edges)))
    print("deps: %d modules, %d dependencies, %d cycles" % (len(deps), nedges, len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
