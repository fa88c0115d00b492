#!/usr/bin/env python3
"""Prints a gpuvm JSON report without what differs between two runs of the
same simulation: its wall-time fields (any key naming "wall") and the
build's commit. The identity scripts (simt-identical.sh,
threads-identical.sh) compare what is left.
usage: report-strip.py REPORT.json"""
import json
import sys


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if "wall" not in k and k != "gpuvm_commit"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


print(json.dumps(strip(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))
