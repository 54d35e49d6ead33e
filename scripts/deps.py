#!/usr/bin/env python3
"""The module graph of common/ and filters/, from their #include "x.h"
lines: a module is x.c with x.h, named by its path under common/
(core/buf).  Prints the layers (each module above everything it includes),
every cycle, and every dependency that points up the order of common/'s
folders (FOLDERS: a folder may use only itself and the folders before it);
exits 1 when there is either, 2 on usage trouble.

usage: scripts/deps.py [--layers] [ROOT]"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)

# common/'s folders, lowest first: the order the README's map of the tree
# gives.  A folder not named here sits above all of them.
FOLDERS = ["core", "gz", "json", "stream", "anchors", "guides", "compact",
           "window", "survey", "ranks", "verify", "perfetto", "serve", "gen"]


def graph(root):
    deps = {}
    for top in ("common", "filters"):
        base_dir = os.path.join(root, top)
        for d, subdirs, names in sorted(os.walk(base_dir)):
            subdirs.sort()
            for name in sorted(names):
                base, ext = os.path.splitext(name)
                if ext not in (".c", ".h"):
                    continue
                rel = os.path.relpath(os.path.join(d, base), base_dir)
                if top == "filters":
                    rel = base
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    text = f.read()
                node = deps.setdefault(rel, set())
                for inc in INCLUDE.findall(text):
                    if inc != rel:
                        node.add(inc)
    for node in list(deps):
        deps[node] = {d for d in deps[node] if d in deps}
    return deps


def folder_rank(node):
    if "/" not in node:
        return None
    folder = node.split("/")[0]
    return FOLDERS.index(folder) if folder in FOLDERS else len(FOLDERS)


def upward(deps):
    """Dependencies from a folder of common/ to a later one."""
    out = []
    for a in sorted(deps):
        ra = folder_rank(a)
        if ra is None:
            continue
        for b in sorted(deps[a]):
            rb = folder_rank(b)
            if rb is not None and rb > ra:
                out.append((a, b))
    return out


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
    up = upward(deps)
    for a, b in up:
        print("upward: %s -> %s" % (a, b))
    print("deps: %d modules, %d dependencies, %d cycles, %d upward" % (len(deps), nedges, len(found), len(up)))
    return 1 if found or up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
