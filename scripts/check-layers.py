#!/usr/bin/env python3
"""Check the include graph against the layers of docs/layers.tsv.

The table (docs/layers.tsv, the one place the order is written) gives each
source folder src/DIR a layer, 0 at the bottom. A public header
include/gpuvm/NAME.h belongs to the folders that define the functions it
declares (as scripts/check-contracts.py reads it: gpuvm/uvm.h is uvm's);
one that declares none is placed in the table by name.

From every `#include "..."` of src/ and include/ the script draws an edge
from the including file's folder to the included file's, and fails
  - on an include from a lower layer to a higher one (naming file, line,
    both folders and their layers);
  - on a circle between folders (a strongly connected group of two or
    more folders in the folder graph, whatever their layers), naming the
    folders and one include of each edge of the circle;
  - on a folder of src/ that the table does not place, a row naming no
    folder or header of the tree, or a public header it cannot place.

usage: scripts/check-layers.py [SOURCE_DIR]      exit 0 when the layers hold
       scripts/check-layers.py --stats [SOURCE_DIR] [--table FILE]
             the folder graph's size, its upward edges and circles, for any
             tree (an old commit's, with this table): never fails on them
       scripts/check-layers.py --markdown [SOURCE_DIR]
             the table as docs/architecture.md quotes it
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_contracts():
    spec = importlib.util.spec_from_file_location("check_contracts",
                                                  os.path.join(HERE, "check-contracts.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_table(path):
    """[(layer, unit, holds, line)] from the TSV, in file order."""
    rows, bad = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != 3 or not cells[0].isdigit():
                bad.append("%s:%d: want LAYER<TAB>UNIT<TAB>HOLDS, got %r" % (path, n, line))
                continue
            rows.append((int(cells[0]), cells[1], cells[2], n))
    return rows, bad


class Graph:
    def __init__(self, root, table):
        cc = load_contracts()
        self.tree = cc.Tree(root)
        self.rows, self.problems = read_table(table)
        self.layer = {}
        self.placed = {}  # public header -> its unit name
        for layer, unit, _, n in self.rows:
            if unit.startswith("src/") and unit.count("/") == 1:
                name = unit[4:]
                if name not in self.tree.components:
                    self.problems.append("%s:%d: %s is not a folder of the tree" % (table, n, unit))
            elif unit.startswith("include/gpuvm/") and unit.endswith(".h"):
                name = unit
                if unit not in self.tree.text:
                    self.problems.append("%s:%d: %s is not a header of the tree" % (table, n, unit))
                self.placed[unit] = unit
            else:
                self.problems.append("%s:%d: %s: a unit is src/DIR or include/gpuvm/NAME.h"
                                     % (table, n, unit))
                continue
            if name in self.layer:
                self.problems.append("%s:%d: %s placed twice" % (table, n, unit))
            self.layer[name] = layer
        for c in self.tree.components:
            if c not in self.layer:
                self.problems.append("%s: src/%s has no layer (add a row)" % (table, c))
        self.edges = {}  # (a, b) -> [evidence]
        for f in self.tree.files:
            for n, line in enumerate(self.tree.text[f].splitlines(), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                g = self.tree.resolve_include(m.group(1), f)
                if not g:
                    continue
                for a in self.owners(f):
                    for b in self.owners(g):
                        if a != b:
                            self.edges.setdefault((a, b), []).append(
                                "%s:%d: #include \"%s\"" % (f, n, m.group(1)))

    def owners(self, f):
        if f.startswith("src/"):
            return {f.split("/")[1]}
        if f in self.placed:
            return {f}
        comps = self.tree.public_header_components(f)
        if not comps:
            msg = "%s declares no function a folder defines: place it in the table by name" % f
            if msg not in self.problems:
                self.problems.append(msg)
            return {f}
        return comps

    def upward(self):
        return sorted((a, b) for (a, b) in self.edges
                      if a in self.layer and b in self.layer and self.layer[a] < self.layer[b])

    def circles(self):
        """Strongly connected groups of two or more units (Tarjan)."""
        succ = {}
        for a, b in self.edges:
            succ.setdefault(a, []).append(b)
        index, low, stack, on, out = {}, {}, [], set(), []
        counter = [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in sorted(succ.get(v, ())):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(sorted(group))

        sys.setrecursionlimit(10000)
        for v in sorted(set(a for a, _ in self.edges) | set(b for _, b in self.edges)):
            if v not in index:
                visit(v)
        return sorted(out)


def name(u):
    return u if u.startswith("include/") else "src/" + u


def markdown(g):
    return markdown_rows(g.rows)


def markdown_rows(rows):
    out = ["| layer | folder (or a public header placed by name) | what it holds |", "|---|---|---|"]
    for layer, unit, holds, _ in sorted(rows, key=lambda r: (r[0], r[3])):
        out.append("| %d | `%s` | %s |" % (layer, unit, holds))
    return "\n".join(out)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    table = None
    if "--table" in argv:
        table = argv[argv.index("--table") + 1]
        args.remove(table)
    root = args[0] if args else os.path.join(HERE, "..")
    table = table or os.path.join(root, "docs", "layers.tsv")
    if not os.path.isfile(table):
        print("FAIL: %s: no layer table there" % table)
        return 1
    g = Graph(root, table)
    if "--markdown" in argv:
        print(markdown(g))
        return 0
    up, circles = g.upward(), g.circles()
    if "--stats" in argv:
        print("folder edges: %d, upward: %d, circles: %d" % (len(g.edges), len(up), len(circles)))
        for a, b in up:
            print("  up: %s (%d) -> %s (%d): %s" % (name(a), g.layer[a], name(b), g.layer[b],
                                                   g.edges[(a, b)][0]))
        for c in circles:
            print("  circle: %s" % " <-> ".join(name(u) for u in c))
        for p in g.problems:
            print("  table: %s" % p)
        return 0
    bad = 0
    for p in g.problems:
        print("FAIL: %s" % p)
        bad += 1
    for a, b in up:
        for ev in g.edges[(a, b)]:
            print("FAIL: %s: %s (layer %d) includes %s (layer %d), a higher layer"
                  % (ev, name(a), g.layer[a], name(b), g.layer[b]))
            bad += 1
    for c in circles:
        print("FAIL: a circle between folders: %s" % " <-> ".join(name(u) for u in c))
        members = set(c)
        for (a, b), ev in sorted(g.edges.items()):
            if a in members and b in members:
                print("  %s -> %s: %s" % (name(a), name(b), ev[0]))
        bad += 1
    if bad:
        print("%d problem(s) with the layers of %s" % (bad, os.path.relpath(table, root)))
        return 1
    print("PASS: %d includes make %d dependencies between folders, none up the %d layers "
          "of %s; no circle" % (sum(len(v) for v in g.edges.values()), len(g.edges),
                                len(set(g.layer.values())), os.path.relpath(table, root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
