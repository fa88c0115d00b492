#!/usr/bin/env python3
"""Fails when a workload limits one parameter in code instead of in its
range table (issue 79, item 7: `gpuvm workloads` printed 2dconv's n as
0..2^40 while 2dconv_create refused anything outside 3..131072).

A single parameter's limits (min, max, a multiple of, a power of two)
live in the workload's `struct gpuvm_param_range` table, where
gpuvm_workload_parse enforces them and `gpuvm workloads` prints them.
Code may refuse a parsed value only through gpuvm_params_constraint, for
limits that tie several parameters (declared in the def's `constraints`).
This scans the workload folders for the old ways: a range helper, or a
gpuvm_fail on "--workload" whose message is a limit.

usage: check-workload-limits.py [SOURCE_ROOT]"""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
FOLDERS = ["src/workloads", "src/bigdata", "src/bigkernel", "src/graph", "src/probe"]
# a limit phrased in a message
LIMIT = re.compile(r'must be (between|at least|at most|a multiple|a positive|a power|0 or 1|'
                   r'[0-9]+ or [0-9]+|positive|in \[)')
FAIL_CALL = re.compile(r'gpuvm_fail\(\s*err,\s*"--workload",\s*0,\s*"[a-z_0-9]+",\s*"([^"]*)"')
HELPERS = re.compile(r'\b(suite_check_range|workload_check_range)\s*\(')


def main():
    problems = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.c")):
            text = path.read_text()
            rel = path.relative_to(ROOT)
            for m in FAIL_CALL.finditer(text):
                if LIMIT.search(m.group(1)):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: a limit in code: \"{m.group(1)}\"")
            for m in HELPERS.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: {m.group(1)}(): a range checked in code")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} limit(s) outside the range tables: put each in the workload's "
              "struct gpuvm_param_range table (GPUVM_RANGE, _STEP, _POW2), or, if it ties "
              "parameters, check it with gpuvm_params_constraint and declare it in the def's "
              "constraints", file=sys.stderr)
        return 1
    print("workload limits: every single-parameter limit is in a range table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
