#!/usr/bin/env python3
"""Flag numbers that look quoted from a run outside the generated blocks of docs/.

Issue 80: a number a page quotes from a run must sit in a generated block
(scripts/docs-blocks.py writes it from committed data, so it cannot go stale)
or in a dated record under docs/notes/, which says it is one. This script
reads README.md and every docs/**/*.md page except docs/notes/ and pages that open with a
"written by ...: do not edit" line (rendered whole by a script that a test
compares, as docs/fidelity/fidelity.md), skips the text between
<!-- generated: NAME --> and <!-- end generated -->, and flags what looks
like a run's result:

  speed-up or ratio     2.45x, 13x, 1.7×
  time                  9.6 ms, 131 us, 45 µs, 36 s, 2 min, 38 minutes
  bandwidth             854.7 GB/s, 12 GiB/s
  cycles                43.7 cycles, 412 cycles, 2,377 cycles (whole counts
                        too: a run's latency is as often an integer)
  percentage            12.3 %, 17 %, 5-12 %, +3 %, -0.4 %, 43% (integer or
                        decimal, a range, signed or not)

A tolerance written ±30 % or +-50 % is matched too and allowed by the
`tolerance` rule of the allow-list, so that its count shows.

Numbers that are not run results (a paper's value quoted as the paper's, a
hardware parameter with its source, a time limit) are allowed by
scripts/docs-numbers-allow.tsv, one row per pattern:

  allow    PAGE   REGEX   WHY    numbers inside a match of REGEX on a line of
                                 PAGE (a path under docs/, or * for every
                                 page) are not flagged; the regex names the
                                 number's context, so a run number planted on
                                 the same line is still caught
  board    docs/hardware.md  LABEL=NUMBER  WHY
                                 a decimal of the board table ("What the
                                 boards measured") that is not a value of
                                 validation/hw/ (see board_table below): a
                                 size, a ratio, or a derivation not recorded
  pending  PAGE   COUNT   WHY    a page whose run numbers have not been moved
                                 yet: it may hold at most COUNT flagged
                                 numbers; one more fails (a ratchet: lower
                                 COUNT when a page is cleaned)

usage: scripts/docs-numbers.py [--root DIR] [--list | --count]
  exit 1 naming page, line and number for each flagged number (or each page
  over its pending count); --list prints every flagged number, pending pages
  included, and exits 0; --count prints how many numbers each allow row lets
  through (the '*' rules first) and the rows that let nothing through.
"""
import glob
import os
import re
import sys

NUMBER = re.compile(r"""(?x)
    (?<![\w.^])(?!0x)\d+(?:\.\d+)?(?:x|×)(?![\w])          # speed-up: 2.45x, 13× (not 0x hex)
  | (?<![\w.^])(?<![eE][-+])\d+(?:\.\d+)?\s?(?:ms|us|µs|ns)\b  # time: 9.6 ms, 131 us (not 10^9 ns)
  | (?<![\w.^])(?<![eE][-+])\d+(?:\.\d+)?\s(?:s|min|minutes?|hours?|seconds?)\b
                                                           # time: 36 s, 2 min, 38 minutes (not the 5 of 9.3e-5 s)
  | (?<![\w.^])\d+(?:\.\d+)?\s?[KMGT]i?B/s\b                # bandwidth: 854.7 GB/s
  | (?<![\w.,^])(?<![eE][-+])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?cycles\b
                                                           # cycles: 43.7 cycles, 412 cycles, 2,377 cycles
                                                           # (not the 07 of 1.152e+07 cycles)
  | (?<![\w.^±+\u2212-])(?<![eE][-+])                      # percentage, one number or a range:
    (?:±\s?|\+-\s?|[+\u2212-])?                            #   ±30 %, +-50 % (tolerances, matched whole
    \d+(?:\.\d+)?(?:\s?[-\u2013]\s?\d+(?:\.\d+)?)?\s?%        #   for the tolerance rule), 17 %, 5-12 %,
                                                           #   +3 %, -0.4 %, 43%
""")
BEGIN = re.compile(r"^<!-- generated: [a-z0-9-]+ -->\s*$")
END = re.compile(r"^<!-- end generated -->\s*$")
RENDERED = re.compile(r"^<!-- written by .*do not edit")
ALLOW = "scripts/docs-numbers-allow.tsv"


class AllowError(Exception):
    pass


class _Row:
    """A compiled allow regex with its row (line, page, why), for --count."""

    def __init__(self, rx, row):
        self.rx, self.row = rx, row

    def finditer(self, text):
        return self.rx.finditer(text)


def read_allow(root):
    """Returns ({page: [regex]}, {page: count}); '*' rows apply to every page."""
    allow, pending = {}, {}
    board = {}
    rel = ALLOW
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise AllowError(f"cannot read {rel}: {e.strerror}")
    for n, ln in enumerate(lines, 1):
        if not ln.strip() or ln.startswith("#"):
            continue
        cols = ln.split("\t")
        if len(cols) != 4 or not all(c.strip() for c in cols):
            raise AllowError(f"{rel}:{n}: want 4 tab-separated columns (kind, page, pattern or count, why)")
        kind, page, what, _ = cols
        if page != "*" and not os.path.isfile(os.path.join(root, page)):
            raise AllowError(f"{rel}:{n}: no page {page}")
        if kind == "allow":
            try:
                rx = _Row(re.compile(what), (n, page, cols[3].strip()))
                allow.setdefault(page, []).append(rx)
            except re.error as e:
                raise AllowError(f"{rel}:{n}: bad regex '{what}': {e}")
        elif kind == "pending":
            if not what.isdigit():
                raise AllowError(f"{rel}:{n}: pending count '{what}' is not a number")
            if page in pending:
                raise AllowError(f"{rel}:{n}: {page} is pending twice")
            pending[page] = int(what)
        elif kind == "board":
            if page != BOARD_PAGE or not re.fullmatch(r"[^=]+=\d+\.\d+", what):
                raise AllowError(f"{rel}:{n}: a board row names {BOARD_PAGE} and LABEL=NUMBER (a decimal)")
            board[what] = cols[3].strip()
        else:
            raise AllowError(f"{rel}:{n}: kind '{kind}' is neither allow, pending nor board")
    return allow, pending, board


# ---- docs/hardware.md's table of what the boards measured ------------------------
# The table "What the boards measured" quotes the H100 SXM5 boards' runs, whose raw
# files are committed under BOARD_DIR. Its rows are allowed by pattern above (they
# are measurements, not gpuvm's), so that the allowance hides no hand edit: every
# decimal in a row's measured column (the second) must be, at the precision shown,
# a value of BOARD_DIR in one of the row's sections, or the median, mean, minimum
# or maximum over the runs of one quantity there. A number that is not (derived
# another way, or not a measurement) is a `board` row of the allow-list naming
# LABEL=NUMBER and why; an edited digit then matches neither.
BOARD_PAGE = "docs/hardware.md"
BOARD_DIR = "validation/hw/h100-sxm-2026-11-26"
# run6 checked a refactor of hwbench and is not in the table (docs/hardware.md's
# list of runs says so): its values take no part in the table's means
BOARD_EXCLUDE = ("run6",)
BOARD_ROWS = {  # the table's row label -> sections of BOARD_DIR's files it draws on
    "chase": ("chase", "loaded", "home"),
    "TLB": ("tlb_chase", "tlbmiss", "tlbpar"),
    "ops": ("ops",),
    "shared memory": ("smem", "mech"),
    "atomics": ("atomic", "mech"),
    "STREAM": ("stream",),
    "L2 reads": ("l2",),
    "launches (events)": ("launch", "durations"),
    "empty kernels": ("durations", "slot", "launch"),
    "host link": ("link",),
    "far faults and migration": ("fault",),
    "random sampling": ("sampling",),
}
BOARD_HEADER = re.compile(r"^\| what \| measured \| what it settles \|")  # the table's header
BOARD_ROW = re.compile(r"^\| (" + "|".join(re.escape(k) for k in BOARD_ROWS) + r")(?=[\s|,])[^|]*\|([^|]*)\|")
BOARD_NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


def board_series(root):
    """{(section, quantity, x): [value per run]} from BOARD_DIR's row files and TLB chase."""
    import csv
    import io
    import statistics  # noqa: F401 (used by board_table)
    series = {}
    for p in sorted(glob.glob(os.path.join(root, BOARD_DIR, "run*", "*"))):
        base = os.path.basename(p)
        if os.path.basename(os.path.dirname(p)) in BOARD_EXCLUDE:
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if base.endswith(".tsv"):
            for ln in text.split("\n"):
                c = ln.split("\t")
                if len(c) >= 5 and c[0] == "row" and c[1] != "section":
                    try:
                        series.setdefault((c[1], c[2], c[3]), []).append(float(c[4]))
                    except ValueError:
                        pass
        elif base == "tlb_chase.csv":
            body = "\n".join(ln for ln in text.split("\n") if ln and not ln.startswith("#"))
            for r in csv.DictReader(io.StringIO(body)):
                try:
                    key = ("tlb_chase", r["kind"], r["stride_bytes"] + "/" + r["hops"])
                    series.setdefault(key, []).append(float(r["latency_cycles"]))
                except (KeyError, TypeError, ValueError):
                    pass
        elif base == "durations.csv":  # ncu's CSV: every quoted number of a line, in ns and in us
            for ln in text.split("\n"):
                for m in re.finditer(r'"(\d[\d,]*(?:\.\d+)?)"', ln):
                    v = float(m.group(1).replace(",", ""))
                    series.setdefault(("durations", "ns", ln[:40]), []).append(v)
                    series.setdefault(("durations", "us", ln[:40]), []).append(v / 1000)
    return series


def board_table(root, unverified):
    """Messages for each decimal of the board table that BOARD_DIR does not give."""
    import statistics
    page = os.path.join(root, BOARD_PAGE)
    if not os.path.isfile(page):
        return []
    if not os.path.isdir(os.path.join(root, BOARD_DIR)):
        return [f"{BOARD_DIR}: missing, so {BOARD_PAGE}'s board table cannot be checked"]
    series = board_series(root)
    pools = {}
    out, seen = [], set()
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    in_table, rows = False, 0
    for n, ln in enumerate(lines, 1):
        if BOARD_HEADER.match(ln):
            in_table = True
            continue
        if not ln.strip():
            in_table = False
        m = BOARD_ROW.match(ln) if in_table else None
        if in_table and ln.startswith("| ") and not ln.startswith("|--") and not m:
            out.append(f"{BOARD_PAGE}:{n}: a row of the board table whose label is not in BOARD_ROWS "
                       f"(scripts/docs-numbers.py): name the sections of {BOARD_DIR} it draws on")
        if not m:
            continue
        rows += 1
        label = m.group(1)
        if label not in pools:
            vals = set()
            for (sec, _, _), vs in series.items():
                if sec in BOARD_ROWS[label]:
                    vals.update(vs)
                    vals.update((statistics.median(vs), statistics.mean(vs), min(vs), max(vs)))
            pools[label] = {d: {round(v, d) for v in vals} for d in range(1, 5)}
        for num in BOARD_NUMBER.finditer(m.group(2)):
            s = num.group(0)
            d = min(len(s.split(".")[1]), 4)
            key = f"{label}={s}"
            found = round(float(s), d) in pools[label][d]
            if key in unverified:
                seen.add(key)
                if found:
                    out.append(f"{ALLOW}: board row '{key}' is not needed: {s} is a value of {BOARD_DIR} "
                               f"(or an aggregate of one); drop the row")
                continue
            if not found:
                out.append(f"{BOARD_PAGE}:{n}: board row '{label}': {s} is no value of {BOARD_DIR} "
                           f"(sections {', '.join(BOARD_ROWS[label])}) nor a median, mean, minimum or maximum "
                           f"over its runs; fix it from the files, or add a board row '{key}' with why to {ALLOW}")
    if not rows:
        out.append(f"{BOARD_PAGE}: no board table (a '| what | measured | what it settles |' header and its rows)")
    for key in sorted(set(unverified) - seen):
        out.append(f"{ALLOW}: board row '{key}' names no number of {BOARD_PAGE}'s board table (stale)")
    return out


def pages(root):
    # README.md is the page most readers see first: it is scanned like docs/
    out = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
    for p in sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        if not rel.startswith("docs/notes/"):
            out.append(rel)
    return out


def flagged(root, rel, patterns, counts=None):
    """[(line, number text, line text)] outside generated blocks and allowed spans.
    counts, when given, gains one per number an allow row covers (the first
    that does), keyed by that row."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and RENDERED.match(lines[0]):
        return []
    out, inside = [], False
    for n, ln in enumerate(lines, 1):
        if BEGIN.match(ln):
            inside = True
            continue
        if END.match(ln):
            inside = False
            continue
        if inside:
            continue
        covered = [(m.span(), rx.row) for rx in patterns for m in rx.finditer(ln)]
        for m in NUMBER.finditer(ln):
            by = [row for (a, b), row in covered if a <= m.start() and m.end() <= b]
            if not by:
                out.append((n, m.group(0), ln.strip()))
            elif counts is not None:
                counts[by[0]] = counts.get(by[0], 0) + 1
    return out


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    listing = counting = False
    counts = {}
    i = 0
    while i < len(argv):
        if argv[i] == "--root" and i + 1 < len(argv):
            root = argv[i + 1]
            i += 2
        elif argv[i] == "--list":
            listing = True
            i += 1
        elif argv[i] == "--count":
            counting = True
            i += 1
        else:
            print(f"docs-numbers: unknown argument {argv[i]}; usage: scripts/docs-numbers.py [--root DIR] [--list | --count]",
                  file=sys.stderr)
            return 2
    try:
        allow, pending, board_unverified = read_allow(root)
    except AllowError as e:
        print(f"docs-numbers: {e}", file=sys.stderr)
        return 1
    bad, total, clean = 0, 0, 0
    for rel in pages(root):
        hits = flagged(root, rel, allow.get("*", []) + allow.get(rel, []), counts)
        total += len(hits)
        if listing or counting:
            for n, num, text in hits:
                if listing:
                    print(f"{rel}:{n}: {num} | {text[:160]}")
            continue
        if rel in pending:
            if len(hits) > pending[rel]:
                print(f"docs-numbers: {rel}: {len(hits)} run-looking numbers outside generated blocks, "
                      f"more than the {pending[rel]} its pending row in {ALLOW} allows; a number added? "
                      "Put it in a generated block or a docs/notes/ record:", file=sys.stderr)
                for n, num, text in hits:
                    print(f"  {rel}:{n}: '{num}'", file=sys.stderr)
                bad += 1
            elif len(hits) < pending[rel]:
                print(f"docs-numbers: note: {rel} has {len(hits)} flagged numbers, below its pending "
                      f"count {pending[rel]}: lower the count in {ALLOW}")
            continue
        if not hits:
            clean += 1
        for n, num, text in hits:
            print(f"docs-numbers: {rel}:{n}: '{num}' looks quoted from a run but is outside a generated "
                  f"block (generate it from committed data with scripts/docs-blocks.py, move it to a "
                  f"docs/notes/ record, or allow its pattern in {ALLOW} if it is not a run result)",
                  file=sys.stderr)
            bad += 1
    for msg in board_table(root, board_unverified):
        print(f"docs-numbers: {msg}", file=sys.stderr)
        bad += 1
    for rel in pending:
        if rel not in pages(root):
            print(f"docs-numbers: {ALLOW}: pending page {rel} is not a scanned page", file=sys.stderr)
            bad += 1
    if counting:
        # how many run-looking numbers each allow row lets through: rules ('*' rows)
        # first, then the per-page rows; a row that allows nothing is stale
        rows = sorted(counts, key=lambda r: (r[1] != "*", r[0]))
        for r in rows:
            print(f"{counts[r]:4d}  {ALLOW}:{r[0]} {r[1]}: {r[2][:90]}")
        unused = [rx.row for rxs in allow.values() for rx in rxs if rx.row not in counts]
        for r in unused:
            print(f"   0  {ALLOW}:{r[0]} {r[1]}: {r[2][:90]} (allows nothing)")
        print(f"docs-numbers: {sum(counts.values())} numbers allowed by {len(counts)} rows "
              f"({sum(c for r, c in counts.items() if r[1] == '*')} by the '*' rules); "
              f"{total} flagged")
    if listing or counting:
        if listing:
            print(f"docs-numbers: {total} flagged numbers")
        return 0
    if bad:
        return 1
    print(f"docs-numbers: {clean} pages free of run-looking numbers outside generated blocks; "
          f"{len(pending)} pending within their counts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
