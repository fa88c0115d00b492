#!/usr/bin/env bash
# The banked DRAM model's counters (JSON "dram", src/mem/dram_counters.c):
# present where the preset has the model; every sector access a row hit or
# a row miss (their sum is dram_bytes / 32); under a copy with the write
# drain's hold (dram.drain_hold, p100's preset) reads wait behind drains
# and their summed wait is counted, none with the hold off while the
# turnarounds still are; the launch's own "dram" is its difference, the
# run's summed over the launches.
# usage: dram_counters.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-dram-counters.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
WL=ubench-loaded:warps=4,mode=copy,stream=16MiB,footprint=64MiB,elems=2097152,steps=1024
"$GPUVM" sim --gpu p100 --workload "$WL" --no-outdir --json on.json >/dev/null 2>&1 || fail "sim (hold on)"
"$GPUVM" sim --gpu p100 --workload "$WL" --set dram.drain_hold=off --no-outdir --json off.json \
	>/dev/null 2>&1 || fail "sim (hold off)"
"$GPUVM" sim --gpu p100 --workload fdtd-2d:steps=2 --no-outdir --json two.json \
	>/dev/null 2>&1 || fail "sim (fdtd-2d, 6 launches)"
python3 - <<'PY' || fail "counters"
import json
on, off, two = (json.load(open(f)) for f in ("on.json", "off.json", "two.json"))
for r in (on, off, two):
    d = r["dram"]
    assert d["row_hits"] + d["row_misses"] == r["dram_bytes"] // 32, (d, r["dram_bytes"])
    assert abs(d["row_hit_ratio"] - d["row_hits"] / (d["row_hits"] + d["row_misses"])) < 1e-12
    assert d["turnarounds"] > 0, d
    # the run's counts are the launches' summed (fdtd-2d: six launches)
    for k in ("row_hits", "row_misses", "turnarounds", "reads_held"):
        assert sum(x["dram"][k] for x in r["kernels"]) == d[k], (k, d)
assert len(two["kernels"]) == 6 and min(x["dram"]["row_hits"] for x in two["kernels"]) > 0
assert on["dram"]["reads_held"] > 0 and on["dram"]["held_seconds"] > 0, on["dram"]
assert off["dram"]["reads_held"] == 0 and off["dram"]["held_seconds"] == 0, off["dram"]
print("ok - dram: rows %d / %d, %d turnarounds, %d reads held %.3g s (off: %d)" % (
    on["dram"]["row_hits"], on["dram"]["row_misses"], on["dram"]["turnarounds"],
    on["dram"]["reads_held"], on["dram"]["held_seconds"], off["dram"]["reads_held"]))
PY
[ "$failures" -eq 0 ] && echo "dram_counters: all ok"
exit $((failures > 0))
