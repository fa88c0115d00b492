#!/usr/bin/env python3
"""Fails when a C function in src/ is longer than the limit (150 lines)
unless it is on the allow-list below, and fails when an allow-listed
function has shrunk under the limit or disappeared, so the list can only
shrink (issue 77: functions over 150 lines are split one commit at a time).

A function is what the house style writes: its name line starts in column 0,
its body opens with "{" alone in column 0 and closes with "}" in column 0.
The length counted is from the name line to the closing brace, inclusive.

usage: check-function-length.py [--list] [ROOT]
  --list  print every function over the limit with its length and exit 0
"""
import os
import re
import sys

LIMIT_LINES = 150

# (path relative to the repository root, function name): functions over
# the limit that remain. Remove a row when the function is split; the
# check fails on a row that no longer needs to be here.
ALLOW = {
}

NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
ATTR_RE = re.compile(r"__attribute__\s*\(\(.*?\)\)")


def functions(path):
    """Yields (name, first_line, length_lines) for each function in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != "{":
            i += 1
            continue
        # Walk back to the line that starts the declarator: the nearest
        # line in column 0 (not a comment, not blank) holding "name(".
        head = i - 1
        while head >= 0 and (lines[head][:1] in (" ", "\t", "")
                             or lines[head].startswith(("/*", " *", "*/", "#"))):
            head -= 1
        name = None
        if head >= 0:
            text = " ".join(l.strip() for l in lines[head:i])
            text = ATTR_RE.sub(" ", text)
            m = NAME_RE.search(text)
            if m:
                name = m.group(1)
        end = i + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        if name is not None and head >= 0:
            yield name, head + 1, end - head + 1
        i = end + 1


def main(argv):
    list_only = "--list" in argv
    args = [a for a in argv[1:] if a != "--list"]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    long_fns = {}
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for fname in sorted(files):
            if not fname.endswith(".c") and not fname.endswith(".h"):
                continue
            path = os.path.join(dirpath, fname)
            rel = os.path.relpath(path, root)
            for name, line, length in functions(path):
                if length > LIMIT_LINES:
                    long_fns[(rel, name)] = (line, length)
    if list_only:
        for (rel, name), (line, length) in sorted(long_fns.items(),
                                                  key=lambda kv: -kv[1][1]):
            print(f"{length:5d}  {rel}:{line}  {name}")
        return 0
    bad = 0
    for (rel, name), (line, length) in sorted(long_fns.items()):
        if (rel, name) not in ALLOW:
            print(f"{rel}:{line}: {name} is {length} lines (limit "
                  f"{LIMIT_LINES}): split it", file=sys.stderr)
            bad = 1
    for key in sorted(ALLOW):
        if key not in long_fns:
            print(f"{key[0]}: {key[1]} is no longer over {LIMIT_LINES} "
                  f"lines: remove it from ALLOW in {os.path.basename(__file__)}",
                  file=sys.stderr)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
