#!/usr/bin/env bash
# The windowed model's serial fraction, measured (docs/parallel.md): runs
# one simulation under callgrind and sums the instructions by the layer
# their source file belongs to (self cost, inlined code counted where its
# source lies; compiler intrinsics by the function they are inlined into):
#   functional   src/simt src/trace src/workloads src/bigdata src/bigkernel
#                (SIMT workers, trace readers: parallel on any core)
#   sm side      src/sm src/mem/l1_cache src/sm/coalescer, and the loop
#                src/system src/event/event_* (per partition: parallel up
#                to the partition count)
#   memory side  applied at the barrier (serial), in three parts:
#                  translation  src/xlat (every TLB level, the walkers)
#                  data         src/memsys src/mem (L2 slices, DRAM, pools)
#                  paging/link  src/uvm src/link src/link/copy_stream
#   other        everything else: input building (graphs), libc, set-up
#                (serial)
# and predicts the windowed model's speed-up at p cores:
#   T(p) = T1 * (mem + other + sm / min(p, partitions) + functional / p)
#          + windows * barrier_us * log2(p)
# then what splitting the barrier would give (issue 34's item 2, not
# built): the data part over MEM_GROUPS memory groups (L2 slices and DRAM
# channels by address, taken as balanced), translation and paging serial;
# and, an upper bound, translation split with the SM partitions as well
# (as if every TLB level were SM-side).
# usage: scripts/par-split.sh GPUVM PARTITIONS WINDOW_CYCLES BARRIER_US [MEM_GROUPS] -- SIM ARGS...
# T1: the run's CPU time natively; windows: its simulated cycles / the
# preset's window (gpuvm bench --profile prints both).
# e.g.   scripts/par-split.sh build/gpuvm 6 201 2 32 -- --gpu p100 --workload bfs:graph=rmat:scale=12
set -euo pipefail
gpuvm=$1 parts=$2 window=$3 barrier_us=$4
shift 4
groups=1
if [ "${1:-}" != "--" ] && [ $# -gt 0 ]; then
	groups=$1
	shift
fi
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/env time -f "%U %S" -o "$work/time" "$gpuvm" sim "$@" --quiet --json "$work/run.json" >/dev/null
t1=$(awk '{print $1 + $2}' "$work/time")
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$gpuvm" sim "$@" --quiet \
	--json "$work/cg.json" >/dev/null 2>"$work/cg.err"
callgrind_annotate --inclusive=no --auto=no --threshold=100 "$work/cg.out" >"$work/ann.txt" 2>/dev/null
[ -n "${PAR_SPLIT_DEBUG:-}" ] && head -30 "$work/ann.txt" >&2
python3 - "$work/ann.txt" "$work/run.json" "$t1" "$parts" "$window" "$barrier_us" "$groups" <<'PY'
import json, math, re, sys
ann, run, t1, parts, window, barrier_us = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
groups = int(sys.argv[7])
rows = []
for line in open(ann):
    m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S+?):(\S+)", line)
    if m:
        rows.append((int(m.group(1).replace(",", "")), m.group(2), m.group(3)))
def layer_of_file(f):
    # callgrind_annotate drops the prefix the paths share: src/... or /.../src/...
    if f.startswith("src/"):
        s = f[4:]
    elif "/src/" in f:
        s = f.split("/src/", 1)[1]
    else:
        return None
    for pre, lay in (("simt/", "functional"), ("trace/", "functional"), ("workloads/", "functional"),
                     ("bigdata/", "functional"), ("bigkernel/", "functional"),
                     ("sm/", "sm"), ("mem/l1_cache", "sm"), ("sm/coalescer", "sm"),
                     ("system/", "sm"), ("event/event_", "sm"),
                     ("memsys/", "data"), ("mem/", "data"), ("xlat/", "xlat"), ("uvm/", "paging"),
                     ("link/", "paging"), ("link/copy_stream", "paging")):
        if s.startswith(pre):
            return lay
    return "other"
# a function's home layer: where most of its own lines are
home = {}
for ir, f, fn in rows:
    lay = layer_of_file(f)
    if lay:
        home.setdefault(fn, {}).setdefault(lay, 0)
        home[fn][lay] += ir
tot = {"functional": 0, "sm": 0, "xlat": 0, "data": 0, "paging": 0, "other": 0}
for ir, f, fn in rows:
    lay = layer_of_file(f)
    if lay is None:
        h = home.get(fn.split("'")[0])
        lay = max(h, key=h.get) if h else "other"
    tot[lay] += ir
all_ir = sum(tot.values())
frac = {k: v / all_ir for k, v in tot.items()}
memory = frac["xlat"] + frac["data"] + frac["paging"]
r = json.load(open(run))
windows = r.get("sim_cycles", 0) / window
print("instructions %d: functional %.3f, sm side %.3f, memory side %.3f "
      "(translation %.3f, data %.3f, paging/link %.3f), other %.3f" % (
    all_ir, frac["functional"], frac["sm"], memory, frac["xlat"], frac["data"], frac["paging"],
    frac["other"]))
print("T1 %.2f s CPU, %d windows of %.0f cycles, %d partitions, barrier %.1f us" % (
    t1, windows, window, parts, barrier_us))
serial = memory + frac["other"]
print("serial fraction (memory side + other) %.3f" % serial)
def predict(serial_part, sm_part, data_part, data_ways):
    out = []
    for p in (2, 8, 32, 64):
        tp = t1 * (serial_part + sm_part / min(p, parts) + data_part / min(p, data_ways)
                   + frac["functional"] / p) + windows * barrier_us * 1e-6 * math.log2(p)
        out.append(t1 / tp)
    return " / ".join("%.2f" % x for x in out)
print("predicted speed-up at 2 / 8 / 32 / 64 cores:")
print("  memory side serial (built):                  %s" % predict(serial, frac["sm"], 0, 1))
if groups > 1:
    print("  data over %3d memory groups (not built):     %s" % (
        groups, predict(frac["xlat"] + frac["paging"] + frac["other"], frac["sm"], frac["data"], groups)))
    print("  and translation with the SMs (upper bound):  %s" % (
        predict(frac["paging"] + frac["other"], frac["sm"] + frac["xlat"], frac["data"], groups)))
PY
