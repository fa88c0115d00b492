#!/usr/bin/env python3
"""Check every component contract's "May call:" line against the code.

A contract is the comment that opens a file under src/ or include/gpuvm/ and
holds the words "May call" (the Owns / May call / Guarantees comment,
docs/architecture.md "Contracts"). Its "May call" text runs from "May call"
to the next contract item ("Guarantees", "Owns", "Requests", "The run loop",
a new " - " bullet) or the end of the comment.

Grammar of the "May call" text: free prose, in which a component (a
directory src/DIR/, e.g. mem, uvm, link; core/ and the C library are the
shared base and never need naming) is *named* by any of
  - its directory:            `src/mem`, `mem/`
  - one of its headers:       `mem/server_pool.h`, `src/mem/l2_cache.h`,
                              `gpuvm/uvm.h` (a public header names the
                              directories that define its functions), or a
                              bare `server_pool.h` whose name is unique
  - a function it defines:    `xlat_translate`, `link_zero_copy*` (a
                              trailing * right after a letter or digit
                              names every function with that prefix;
                              `zero_copy_*`, a * after an underscore, is
                              prose: the counters' names), `link_lane_bulk`
Prose that matches none of these ("the round's task function", "pthreads")
is allowed and not checked.

A contract's scope is its own file; for a header X.h also X.c, X_*.c and
X_*.h beside it that have no contract of their own (sm.h: sm.c, sm_issue.c,
sm_sector.h, ...), and any file of its directory whose opening comment says
"X.h holds the contract" (run_loop.c and kernel_run.c: system.h). Within the scope the script finds what the code uses of
other components:
  - every `#include "DIR/NAME.h"` of a header of another component (src/DIR,
    not core/), following the includes of the component's own headers that
    have no contract of their own (uvm_lane.c includes uvm_impl.h, which
    includes uvm.h; uvm.h has its own contract, which answers for what it
    includes: link/link_lane.h, mem/long_pool.h);
  - every call of a function that another component defines (an index of the
    non-static functions and the static inline ones in headers, over src/).

and checks, per contract:
  1. every component used is named ("uses X but its May call line does not
     name it");
  2. every component named is used ("names X but does not use it"): a
     contract may not promise a dependency it does not have.

Tables in docs/ that describe the code sit between
    <!-- code-table: NAME -->  and  <!-- end code-table -->
and are written by this script (--write) and compared with what it would
write (the default; a differing table fails, naming page, line and table):
  contracts   docs/architecture.md: each contract, its scope, the components
              its May call line names (from the contracts themselves)
  partitions  docs/architecture.md: each shipped preset's memory partitions
              (presets/*.ini, following `base =`; unset keys at their
              defaults: 1 partition, 4096 B interleave, hash off)
  modules     docs/modules.md: the policy modules per selecting key, from
              `gpuvm presets --modules` (only with --gpuvm BIN)
  layers      docs/architecture.md: the layers of docs/layers.tsv (which
              scripts/check-layers.py checks the includes against)
  invariants  docs/invariants.md: each checker (int NAME_check(const ...,
              char *why, size_t len) in a .c file) and the invariants
              numbered (T1, U10, ...) in its file's opening comment

usage: scripts/check-contracts.py [--gpuvm BIN] [SOURCE_DIR]
                                   exit 0 when the contracts and tables hold
       scripts/check-contracts.py --write [--gpuvm BIN]   rewrite the tables
       scripts/check-contracts.py --list  each contract, its scope, what it
                                          names and uses
"""
import subprocess
import os
import re
import sys

BASE = {"core"}
KEYWORDS = set("""if for while switch return sizeof do else case default goto
    break continue typedef struct union enum static inline const volatile
    extern register signed unsigned void char short int long float double
    _Bool _Static_assert _Alignof _Alignas _Atomic _Generic _Noreturn
    __attribute__ __typeof__ typeof defined offsetof va_arg""".split())
ITEM_END = re.compile(r"Guarantees|Owns:|Requests:|The run loop drives|\n\s*\*\s*-\s")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def strip_c(text):
    """Comments and string/char literals blanked (newlines kept)."""
    out = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    out = re.sub(r'"(\\.|[^"\\\n])*"', '""', out)
    out = re.sub(r"'(\\.|[^'\\\n])*'", "''", out)
    return out


def component_of(rel):
    """src/DIR/... -> DIR; include/gpuvm/... -> 'gpuvm'."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "include":
        return "gpuvm"
    return None


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = []
        for top in ("src", "include"):
            for dp, _, fns in os.walk(os.path.join(root, top)):
                for fn in fns:
                    if fn.endswith((".c", ".h")):
                        self.files.append(os.path.relpath(os.path.join(dp, fn), root))
        self.files.sort()
        self.text = {f: read(os.path.join(root, f)) for f in self.files}
        self.code = {f: strip_c(t) for f, t in self.text.items()}
        self.components = sorted({component_of(f) for f in self.files if f.startswith("src/")} - {None})
        self.basename = {}
        for f in self.files:
            if f.endswith(".h"):
                self.basename.setdefault(os.path.basename(f), []).append(f)
        self.index_functions()

    def resolve_include(self, name, including):
        """An #include "..." name -> a file of the tree, or None (a library)."""
        for cand in (os.path.join("src", name), os.path.join("include", name),
                     os.path.join(os.path.dirname(including), name)):
            if cand in self.text:
                return cand
        return None

    def index_functions(self):
        """Function name -> set of components that define it."""
        self.defined_in = {}
        self.defines = {}
        sig = re.compile(r"^(static\s+)?(?:inline\s+)?(?:__attribute__\s*\(\([^)]*\)\)\s*)*"
                         r"(?:[A-Za-z_]\w*[\s\*]+)+?([A-Za-z_]\w*)\s*"
                         r"\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{", re.M)
        for f in self.files:
            comp = component_of(f)
            names = set()
            for m in sig.finditer(self.code[f]):
                name = m.group(2)
                if name in KEYWORDS:
                    continue
                names.add(name)
                if f.endswith(".c") and m.group(1):
                    continue  # file-local
                if comp and comp != "gpuvm":
                    self.defined_in.setdefault(name, set()).add(comp)
            self.defines[f] = names

    def public_header_components(self, hdr):
        """The src components that define the functions a public header declares."""
        comps = set()
        for name in re.findall(r"\b([A-Za-z_]\w*)\s*\(", self.code[hdr]):
            comps |= self.defined_in.get(name, set())
        return comps


def contract_text(text):
    """The 'May call' item of a file's opening contract comment, or None."""
    m = re.match(r"\s*/\*.*?\*/", text, re.S)
    if not m:
        return None
    comment = m.group(0)
    i = comment.find("May call")
    if i < 0:
        return None
    rest = comment[i + len("May call"):]
    e = ITEM_END.search(rest)
    body = rest[: e.start()] if e else rest
    body = re.sub(r"\n\s*\*(?!/) ?", " ", body.replace("*/", ""))
    return re.sub(r"\s+", " ", body).strip(" :")


def scope_of(tree, f, contracted):
    d, fn = os.path.split(f)
    stem, ext = os.path.splitext(fn)
    scope = [f]
    if ext == ".h":
        for g in tree.files:
            gd, gfn = os.path.split(g)
            if g == f or gd != d or g in contracted:
                continue
            if gfn == stem + ".c" or re.fullmatch(re.escape(stem) + r"_\w+\.[ch]", gfn):
                # window_profile.c belongs to window_profile.h, not window.h
                longer = [c for c in contracted if os.path.dirname(c) == d and c.endswith(".h")
                          and len(os.path.basename(c)) > len(fn)
                          and gfn.startswith(os.path.splitext(os.path.basename(c))[0])]
                if not longer:
                    scope.append(g)
    # files that say so in their opening comment: "(system.h holds the contract)"
    for g in tree.files:
        if g in scope or g in contracted or os.path.dirname(g) != d:
            continue
        m = re.match(r"\s*/\*.*?\*/", tree.text[g], re.S)
        if m and re.search(r"\(?" + re.escape(fn) + r"\s+holds\s+the\s+contract", m.group(0)):
            scope.append(g)
    return scope


def names_in(tree, prose, own):
    """Components the May call prose names, each with the words that named it."""
    named = {}

    def add(comp, why):
        if comp and comp != own and comp not in BASE:
            named.setdefault(comp, []).append(why)

    for m in re.finditer(r"(?<![\w/.])(?:src/([a-z_]\w*)(?:/([\w.]+\.h))?|([a-z_]\w*)/(?:([\w.]+\.h)\b)?)", prose):
        if m.group(1):
            d, h = m.group(1), m.group(2)
        else:
            d, h = m.group(3), m.group(4)
        if d == "gpuvm" and h:
            path = os.path.join("include/gpuvm", h)
            if path in tree.text:
                for c in tree.public_header_components(path):
                    add(c, m.group(0))
        elif d in tree.components:
            add(d, m.group(0))
    for m in re.finditer(r"(?<![\w/.])([A-Za-z_]\w*\.h)\b", prose):
        hits = tree.basename.get(m.group(1), [])
        if len(hits) == 1:
            c = component_of(hits[0])
            if c == "gpuvm":
                for cc in tree.public_header_components(hits[0]):
                    add(cc, m.group(1))
            else:
                add(c, m.group(1))
    for m in re.finditer(r"(?<![\w/.])([A-Za-z_]\w*_\w*)(\*?)", prose):
        word, star = m.group(1), m.group(2)
        if star and word.endswith("_"):
            continue  # "zero_copy_*", "pcie_*_bytes": counter names, prose
        if star:
            for name, comps in tree.defined_in.items():
                if name.startswith(word):
                    for c in comps:
                        add(c, word + "*")
        else:
            for c in tree.defined_in.get(word, ()):
                add(c, word)
    return named


def uses_of(tree, scope, own, contracted):
    """Components the scope's code uses, each with the evidence."""
    used = {}

    def add(comp, why):
        if comp and comp != own and comp not in BASE and comp != "gpuvm":
            used.setdefault(comp, []).append(why)

    # includes, following the component's own headers
    seen, todo = set(), list(scope)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', tree.text[f], re.M):
            path = tree.resolve_include(inc, f)
            if not path:
                continue
            c = component_of(path)
            if c == own:
                if path not in contracted:
                    todo.append(path)
            elif c != "gpuvm":
                add(c, "#include \"%s\" (%s)" % (inc, f))
    # calls of functions other components define
    local = set()
    for f in scope:
        local |= tree.defines[f]
    for f in scope:
        for name in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", tree.code[f])):
            if name in KEYWORDS or name in local:
                continue
            comps = tree.defined_in.get(name, set())
            if len(comps) == 1:
                add(next(iter(comps)), "%s() (%s)" % (name, f))
    return used


def preset_keys(root, name, seen=()):
    """A preset's [section] key = value pairs, its `base =` first."""
    path = os.path.join(root, "presets", name + ".ini")
    own, section = {}, ""
    for line in read(path).splitlines():
        line = re.split(r"\s[;#]", line)[0].strip()
        if not line or line[0] in ";#":
            continue
        m = re.fullmatch(r"\[([^\]]+)\]", line)
        if m:
            section = m.group(1).strip()
            continue
        if "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            own[(section + "." + k) if section else k] = v
    base = next((v for k, v in own.items() if k.split(".")[-1] == "base"), None)
    keys = preset_keys(root, base, seen + (name,)) if base and base not in seen else {}
    keys.update(own)
    return keys


def table_partitions(root, tree, gpuvm):
    rows = ["| preset | `mem.partitions` | `mem.partition_interleave` | `mem.partition_hash` | `mem.far_latency_cycles` |",
            "|---|---|---|---|---|"]
    for fn in sorted(os.listdir(os.path.join(root, "presets"))):
        if not fn.endswith(".ini"):
            continue
        k = preset_keys(root, fn[:-4])
        rows.append("| %s | %s | %s B | %s | %s |" % (
            fn[:-4], k.get("mem.partitions", "1"), k.get("mem.partition_interleave", "4096"),
            k.get("mem.partition_hash", "off"), k.get("mem.far_latency_cycles", "-")))
    return "\n".join(rows)


def table_contracts(root, tree, gpuvm):
    contracts = {f: contract_text(tree.text[f]) for f in tree.files}
    contracts = {f: t for f, t in contracts.items() if t is not None}
    rows = ["| contract | its scope | components its May call line names |", "|---|---|---|"]
    for f in sorted(contracts):
        own = component_of(f)
        scope = scope_of(tree, f, set(contracts))
        named = names_in(tree, contracts[f], own)
        rows.append("| `%s` | %s | %s |" % (
            f, ", ".join(os.path.basename(x) for x in scope),
            ", ".join("`%s/`" % c for c in sorted(named)) or "none outside its own (and core/)"))
    return "\n".join(rows)


def table_modules(root, tree, gpuvm):
    out = subprocess.run([gpuvm, "presets", "--modules"], capture_output=True, text=True, check=True).stdout
    rows = ["| selecting key | its values, in registry order |", "|---|---|"]
    for m in re.finditer(r"^; (\S+) = (.*)$", out, re.M):
        rows.append("| `%s` | %s |" % (m.group(1), m.group(2).strip()))
    return "\n".join(rows)


def table_invariants(root, tree, gpuvm):
    """Each checker (int NAME_check(const ..., char *why, size_t len) in a .c
    file) and the invariants numbered in its file's opening comment."""
    rows = ["| checker | file | invariants |", "|---|---|---|"]
    found = []
    for f in tree.files:
        if not f.endswith(".c"):
            continue
        for m in re.finditer(r"^int (\w+_check)\(const [^)]*char \*why, size_t len\)", tree.text[f], re.M):
            head = re.match(r"\s*/\*.*?\*/", tree.text[f], re.S)
            labels = re.findall(r"^ \*\s+([A-Z])(\d+)\s", head.group(0) if head else "", re.M)
            nums = {}
            for letter, n in labels:
                nums.setdefault(letter, []).append(int(n))
            ranges = ", ".join("%s%d-%s%d" % (l, min(v), l, max(v)) if len(v) > 1 else "%s%d" % (l, v[0])
                               for l, v in nums.items())
            found.append((m.group(1), f, ranges or "none numbered"))
    order = {"tlb_check": 0, "l1_cache_check": 1, "l2_cache_check": 2, "uvm_check": 3, "block_arena_check": 4}
    for name, f, r in sorted(found, key=lambda x: (order.get(x[0], 9), x[0])):
        rows.append("| `%s` | `%s` | %s |" % (name, f, r))
    return "\n".join(rows)


def table_layers(root, tree, gpuvm):
    """docs/layers.tsv as a table (scripts/check-layers.py checks the code
    against it; the order is written there only)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "check_layers", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-layers.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows, _ = mod.read_table(os.path.join(root, "docs", "layers.tsv"))
    return mod.markdown_rows(rows)


TABLES = {"contracts": table_contracts, "layers": table_layers, "partitions": table_partitions, "modules": table_modules,
          "invariants": table_invariants}
BLOCK = re.compile(r"(<!-- code-table: (\w+) -->\n)(.*?)(<!-- end code-table -->)", re.S)


def tables(root, tree, gpuvm, write):
    bad = 0
    for page in ("docs/architecture.md", "docs/modules.md", "docs/invariants.md", "docs/extending.md"):
        path = os.path.join(root, page)
        if not os.path.exists(path):
            continue
        text = read(path)

        def sub(m):
            nonlocal bad
            name = m.group(2)
            if name not in TABLES:
                print("FAIL: %s: unknown code-table %s" % (page, name))
                bad += 1
                return m.group(0)
            if name == "modules" and not gpuvm:
                return m.group(0)
            want = TABLES[name](root, tree, gpuvm) + "\n"
            if m.group(3) != want:
                line = text[: m.start()].count("\n") + 1
                if not write:
                    print("FAIL: %s:%d: code-table %s differs from the code "
                          "(scripts/check-contracts.py --write rewrites it)" % (page, line, name))
                    bad += 1
            return m.group(1) + want + m.group(4)

        new = BLOCK.sub(sub, text)
        if write and new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print("wrote %s" % page)
    return bad


def main(argv):
    listing = "--list" in argv
    write = "--write" in argv
    gpuvm = None
    args = []
    it = iter(argv[1:])
    for a in it:
        if a == "--gpuvm":
            gpuvm = next(it)
        elif not a.startswith("--"):
            args.append(a)
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    tree = Tree(root)
    tbad = tables(root, tree, gpuvm, write)
    contracts = {f: contract_text(tree.text[f]) for f in tree.files}
    contracts = {f: t for f, t in contracts.items() if t is not None}
    contracted = set(contracts)
    bad = 0
    for f in sorted(contracts):
        own = component_of(f)
        scope = scope_of(tree, f, contracted)
        named = names_in(tree, contracts[f], own)
        used = uses_of(tree, scope, own, contracted)
        if listing:
            print("%s: scope %s" % (f, " ".join(os.path.basename(s) for s in scope)))
            print("  May call: %s" % contracts[f])
            print("  names: %s" % (", ".join("%s (%s)" % (c, named[c][0]) for c in sorted(named)) or "-"))
            print("  uses:  %s" % (", ".join("%s (%s)" % (c, used[c][0]) for c in sorted(used)) or "-"))
        for c in sorted(set(used) - set(named)):
            print("FAIL: %s: uses %s/ (%s) but its May call line does not name it"
                  % (f, c, "; ".join(sorted(set(used[c]))[:3])))
            bad += 1
        for c in sorted(set(named) - set(used)):
            print("FAIL: %s: its May call line names %s/ (%s) but the code does not use it"
                  % (f, c, ", ".join(sorted(set(named[c])))))
            bad += 1
    if bad:
        print("%d contract line(s) disagree with the code (grammar: scripts/check-contracts.py)" % bad)
    if tbad:
        print("%d code table(s) in docs/ differ from the code" % tbad)
    if bad or tbad:
        return 1
    print("PASS: %d May call lines match their files' includes and calls; the code tables in docs/ match%s"
          % (len(contracts), "" if gpuvm else " (modules not checked: no --gpuvm)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
