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

  compared, no unit     1546 against 1157, 3.13e9 -> 2.69e9, 2.16 vs 1.09,
                        101 of 129 (both sides a decimal, an exponent or
                        3+ significant digits; matched whole, so an allow
                        row must cover both)

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
# Numbers compared with one another in prose without a unit ("1546 against 1157",
# "3.13e9 -> 2.69e9", "101 of 129"): a run's values as often as not; both sides
# must look like a run's (a decimal, an exponent, or 3+ significant digits), so
# "2 of 4" and "1024 -> 2048" (sizes; powers of two are flagged too, then allowed
# by rule) differ from "1546 against 1157" only by run_looking() below
_OPERAND = r"[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
COMPARE = re.compile(r"(?<![\w.^/#-])(" + _OPERAND + r")(?![\w]|\.\d)"
                     r"\s*(?:against|->|\u2192|vs\.?|versus|of)\s*"
                     r"(?<![\w.^/#-])(" + _OPERAND + r")(?![\w]|\.\d)")


def run_looking(num):
    """A decimal, an exponent, or an integer of 3+ significant digits."""
    t = num.lstrip("+-\u2212").replace(",", "")
    if "." in t or "e" in t.lower():
        return True
    return len(t.rstrip("0")) >= 3


def compared(line):
    """[(start, end, text)] of unitless run-looking numbers compared on a line."""
    return [(m.start(), m.end(), m.group(0)) for m in COMPARE.finditer(line)
            if run_looking(m.group(1)) and run_looking(m.group(2))]


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
        else:
            raise AllowError(f"{rel}:{n}: kind '{kind}' is neither allow nor pending")
    return allow, pending


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
        units = [(m.start(), m.end(), m.group(0)) for m in NUMBER.finditer(ln)]
        # a comparison whose operand carries a unit is the unit pattern's already
        bare = [c for c in compared(ln) if not any(a < c[1] and c[0] < b for a, b, _ in units)]
        # a comparison broken over two lines ("24,576\nagainst 28,419") is this line's;
        # an allow row then covers it on the two lines joined by a space
        nxt = lines[n] if n < len(lines) and not BEGIN.match(lines[n]) else ""
        joined = ln + " " + nxt
        straddle = [c for c in compared(joined) if c[0] < len(ln) < c[1] and c[1] > len(ln) + 1]
        if not (units or bare or straddle):
            continue  # nothing to flag: the allow rows need not be tried on it
        covered = [(m.span(), rx.row) for rx in patterns for m in rx.finditer(ln)]
        if straddle:
            units += [(m.start(), m.end(), m.group(0)) for m in NUMBER.finditer(joined)
                      if m.start() < len(ln) < m.end()]
            covered += [(m.span(), rx.row) for rx in patterns for m in rx.finditer(joined)
                        if m.end() > len(ln)]
        bare += [c for c in straddle if not any(a < c[1] and c[0] < b for a, b, _ in units)]
        for start, end, text in sorted(units + bare):
            by = [row for (a, b), row in covered if a <= start and end <= b]
            if not by:
                out.append((n, text, ln.strip()))
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
        allow, pending = read_allow(root)
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
