#!/usr/bin/env bash
# Issue 78: gpuvm sweep --system, a sweep whose points are system runs
# with the system's modifiers varied (--vary gpus=..., --vary nvlink=...).
# Checks: one CSV row per point; the gpus=1 row's metrics are the plain
# preset sweep's row (a system of one runs as its preset); a row of two
# GPUs has the run's totals and each GPU's metrics as gpu_D_METRIC, with
# the run's time no earlier than any GPU's; nvlink=off sends the halo
# swaps through the host, nvlink=on over NVLink; --cache keys tell the
# points apart (one file each) and a second sweep reads them all; bad
# input (a modifier without --system, gpus= past the system, --gpu with
# --system) is refused with exit 2; shards merge and --resume give the
# whole sweep's CSV; a trace per GPU ("trace:A;B") runs on gpus=2 and is a
# failed row (its message) on gpus=1.
# Mutations that fail it: VARY_SYSTEM values not set in the point's
# system spec (every row the same system: the gpus=2 and nvlink checks),
# the system left out of the cache key (one cache file for two points),
# the links left out of it (an edited NVLink rate read from the cache),
# the per-GPU flattening dropped (no gpu_1_sim_seconds column).
# usage: sweep_system.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sweep-system.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
WL=triad-mgpu:elems=131072

# 1. gpus=1,2 on dgx-h100-8; the plain preset's sweep beside it
"$GPUVM" sweep --system dgx-h100-8 --workload "$WL" --vary gpus=1,2 --csv sys.csv --json sys.json \
	--quiet 2>err.txt || fail "sweep --system: exit $? ($(cat err.txt))"
"$GPUVM" sweep --gpu h100 --workload "$WL" --csv pre.csv --quiet 2>err.txt ||
	fail "sweep --gpu h100: exit $? ($(cat err.txt))"
python3 - sys.csv pre.csv <<'PY' || fail "the system sweep's CSV (above)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pre = list(csv.DictReader(open(sys.argv[2])))[0]
assert len(rows) == 2, len(rows)
assert [r["gpus"] for r in rows] == ["1", "2"], [r["gpus"] for r in rows]
assert all(r["gpu"] == "dgx-h100-8" and r["error"] == "" for r in rows), rows
one, two = rows
# gpus=1 is the plain preset's row, metric for metric (wall times aside)
skip = {"gpu", "gpus", "point", "error"}
for k, v in pre.items():
    if k in skip or "wall" in k:
        continue
    assert one.get(k) == v, (k, one.get(k), v)
# gpus=2: the run's totals and each GPU's metrics
for d in (0, 1):
    for k in ("sim_seconds", "sim_cycles", "dram_bytes", "tlb_l1_hits"):
        assert two.get("gpu_%d_%s" % (d, k), "") != "", ("gpu_%d_%s" % (d, k), sorted(two))
    assert float(two["sim_seconds"]) >= float(two["gpu_%d_sim_seconds" % d])
assert two["gpu_0_sim_cycles"] != "" and one.get("gpu_0_sim_cycles", "") == ""
assert not any(k.startswith("gpu_0_config") or k.startswith("gpu_0_kernels") for k in two), \
    [k for k in two if k.startswith("gpu_0_c") or k.startswith("gpu_0_k")]
PY
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert [p.get("gpus", 1) for p in r] == [1, 2]
assert [p["point"]["system"] for p in r] == ["dgx-h100-8:gpus=1", "dgx-h100-8:gpus=2"]' \
	sys.json || fail "the JSON's points are not of 1 and 2 GPUs"
echo "ok - --system with --vary gpus=1,2: gpus=1 is the preset's row, gpus=2 per GPU"

# 2. nvlink on and off: the halo swaps' route
"$GPUVM" sweep --system dgx-h100-8:gpus=2 --workload jacobi-mgpu:n=128,iters=2 \
	--vary nvlink=on,off --csv nv.csv --cache cache --quiet 2>err.txt ||
	fail "sweep --vary nvlink: exit $? ($(cat err.txt))"
python3 - nv.csv <<'PY' || fail "nvlink on/off rows (above)"
import csv, sys
on, off = list(csv.DictReader(open(sys.argv[1])))
assert (on["nvlink"], off["nvlink"]) == ("on", "off")
assert float(on["peer_nvlink_bytes"]) > 0 and float(on["peer_host_bytes"]) == 0, on
assert float(off["peer_nvlink_bytes"]) == 0 and float(off["peer_host_bytes"]) > 0, off
PY
[ "$(ls cache | wc -l)" = 2 ] || fail "--cache: $(ls cache | wc -l) files for 2 system points"
"$GPUVM" sweep --system dgx-h100-8:gpus=2 --workload jacobi-mgpu:n=128,iters=2 \
	--vary nvlink=on,off --csv nv2.csv --cache cache 2>err.txt >/dev/null ||
	fail "cached sweep: exit $?"
grep -q -- "--cache: 2 of 2 points" err.txt || fail "cached sweep: $(cat err.txt)"
cmp -s nv.csv nv2.csv || fail "the cached sweep's CSV differs"
# an edited system file (its NVLink rate) is a new point, not a cache hit
"$GPUVM" systems dgx-h100-8 >node.ini
JW=jacobi-mgpu:n=128,iters=2
"$GPUVM" sweep --system node.ini:gpus=2 --workload $JW --csv f1.csv --cache fc --quiet 2>err.txt ||
	fail "sweep --system node.ini: exit $? ($(cat err.txt))"
sed -i 's/^bandwidth_gb_s = 25 /bandwidth_gb_s = 12.5 /' node.ini
"$GPUVM" sweep --system node.ini:gpus=2 --workload $JW --csv f2.csv --cache fc 2>err.txt >/dev/null ||
	fail "sweep --system node.ini, edited: exit $? ($(cat err.txt))"
grep -q -- "--cache: 0 of 1 point" err.txt || fail "an edited system file hit the cache: $(cat err.txt)"
cmp -s f1.csv f2.csv && fail "half the NVLink rate changed nothing"
echo "ok - --vary nvlink=on,off: NVLink or the host; --cache keeps each system point"

# 3. --shard and merge, --resume: the same CSV (wall times aside)
nowall() { python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, k in enumerate(rows[0]) if "wall" not in k]
for r in rows:
    print(",".join(r[i] for i in keep))
PY
}
for i in 0 1; do
	"$GPUVM" sweep --system dgx-h100-8 --workload "$WL" --vary gpus=1,2 --shard $i/2 --csv p$i.csv \
		--quiet 2>err.txt || fail "shard $i: exit $? ($(cat err.txt))"
done
"$GPUVM" sweep merge p0.csv p1.csv --csv m.csv 2>err.txt || fail "merge: exit $? ($(cat err.txt))"
cmp -s <(nowall sys.csv) <(nowall m.csv) || fail "merged shards differ from the whole sweep"
cp sys.csv r.csv
"$GPUVM" sweep --system dgx-h100-8 --workload "$WL" --vary gpus=1,2 --csv r.csv --resume \
	--quiet 2>err.txt || fail "--resume: exit $? ($(cat err.txt))"
cmp -s <(nowall sys.csv) <(nowall r.csv) || fail "--resume changed the CSV"
# a trace per GPU in a sweep: gpus=2 runs, gpus=1 is refused for two traces
VA=$SRC/traces/accelsim-vectoradd
"$GPUVM" sweep --system dgx-h100-8 --workload "trace:$VA;$VA" --vary gpus=1,2 --csv tr.csv \
	--quiet 2>err.txt
[ $? = 1 ] || fail "a trace per GPU swept over gpus=1,2: exit not 1 ($(cat err.txt))"
python3 - tr.csv <<'PY' || fail "a trace per GPU in a sweep (above)"
import csv, sys
one, two = list(csv.DictReader(open(sys.argv[1])))
assert "2 traces for the 1 GPU" in one["error"], one["error"]
assert two["error"] == "" and two["gpu_0_sim_cycles"] == two["gpu_1_sim_cycles"] != "", two
PY
echo "ok - --shard and merge, --resume; a trace per GPU in a sweep"

# 4. bad input
expect2() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	"$GPUVM" sweep "$@" --quiet >out.txt 2>err.txt
	local rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, not 2"
	grep -q -- "$pat" err.txt || fail "$what: message '$(cat err.txt)' lacks '$pat'"
}
expect2 "gpus without --system" "--vary gpus: a modifier of a system.*needs --system" \
	--gpu h100 --workload "$WL" --vary gpus=1,2
expect2 "gpus past the system" "--vary: gpus: .*gpus= takes 1 to 8" \
	--system dgx-h100-8 --workload "$WL" --vary gpus=1,9
expect2 "a bad nvlink value" "nvlink= takes on or off" \
	--system dgx-h100-8:gpus=2 --workload "$WL" --vary nvlink=on,maybe
expect2 "--gpu and --system" "give --gpu or --system, not both" \
	--gpu h100 --system dgx-h100-8 --workload "$WL"
expect2 "an unknown system" "dgx-h100" --system dgx-h100 --workload "$WL"

if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "sweep --system: ok"
