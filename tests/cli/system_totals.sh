#!/usr/bin/env bash
# A report of several GPUs: its "totals" hold, for every counter there,
# the GPUs' sum of that counter (peer access and paging among them), and
# `gpuvm stats --check` checks it: the run's members and totals against
# the registry, each GPU's section as a one-GPU run's, and fails on a key
# the registry lacks in a GPU's section or in the totals; a sweep CSV of a
# system likewise (gpu_D_METRIC, totals_METRIC).
# usage: system_totals.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-system-totals.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

for mode in peer fault; do
	"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload shared-read-mgpu:elems=16384,mode=$mode \
		--json "$mode.json" --quiet 2>err.txt || fail "shared-read-mgpu $mode: exit $? ($(cat err.txt))"
	python3 - "$mode.json" <<'PY' || fail "$mode: totals are not the GPUs' sums"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
def walk(o, path):
    for k, v in o.items():
        if isinstance(v, dict):
            yield from walk(v, path + [k])
        else:
            yield path + [k], v
def at(g, path):
    for k in path:
        if not isinstance(g, dict) or k not in g:
            return 0
        g = g[k]
    return g
n = 0
for path, v in walk(t, []):
    s = sum(at(g, path) for g in r["gpu"])
    if abs(s - v) > 1e-9 * max(1, abs(s)):
        sys.exit(f"totals {'.'.join(path)} = {v}, the GPUs' sum {s}")
    n += 1
assert n > 20, n
mode = sys.argv[1].split(".")[0]
want = {"peer": ["peer_access", "requests"], "fault": ["uvm", "far_faults"]}[mode]
assert at(t, want) > 0 and at(t, want) == sum(at(g, want) for g in r["gpu"]), (want, t)
# a GPU's own (a peak) is not summed
assert "peak_resident_pages" not in t.get("uvm", {}), t.get("uvm")
PY
	"$GPUVM" stats --check "$mode.json" 2>err.txt || fail "stats --check $mode.json: exit $? ($(cat err.txt))"
done

# the text summary's totals line
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload shared-read-mgpu:elems=16384,mode=peer \
	--no-outdir >peer.txt 2>err.txt || fail "peer text: exit $? ($(cat err.txt))"
grep -q '^totals     of the GPUs: 2048 peer requests (6.554e+04 bytes read, 0 written)$' peer.txt ||
	fail "peer text: no totals line ($(grep totals peer.txt))"

# --check reads into the GPUs' sections and the totals: an unknown key in
# either is named with its path as a one-GPU run's, or under totals
python3 - <<'PY'
import json
r = json.load(open("peer.json"))
r["gpu"][1]["no_such_counter"] = 1
json.dump(r, open("bad-gpu.json", "w"))
r = json.load(open("peer.json"))
r["totals"]["no_such_total"] = 1
json.dump(r, open("bad-total.json", "w"))
PY
"$GPUVM" stats --check bad-gpu.json 2>err.txt
rc=$?
[ $rc = 1 ] && grep -qx '  no_such_counter' err.txt || fail "stats --check bad-gpu.json: exit $rc ($(cat err.txt))"
"$GPUVM" stats --check bad-total.json 2>err.txt
rc=$?
[ $rc = 1 ] && grep -qx '  totals.no_such_total' err.txt || fail "stats --check bad-total.json: exit $rc ($(cat err.txt))"
# a GPU that ran no kernel has an empty kernels list: a documented list,
# checked as such; an empty list the registry does not know is named
# (64 Ki elements, not the default 32 Mi: the list is empty at any size,
# and the default took 97 % of this script's time under ASan)
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload triad-mgpu:gpus=1,elems=65536 --json idle.json \
	>/dev/null 2>err.txt || fail "triad-mgpu gpus=1: exit $? ($(cat err.txt))"
python3 -c 'import json,sys; r=json.load(open("idle.json")); sys.exit(0 if r["gpu"][1]["kernels"] == [] else 1)' ||
	fail "idle.json: GPU 1's kernels not an empty list"
"$GPUVM" stats --check idle.json 2>err.txt || fail "stats --check idle.json: exit $? ($(cat err.txt))"
python3 -c 'import json; r=json.load(open("idle.json")); r["gpu"][1]["no_such_list"]=[]; json.dump(r,open("bad-list.json","w"))'
"$GPUVM" stats --check bad-list.json 2>err.txt
rc=$?
[ $rc = 1 ] && grep -qx '  no_such_list' err.txt || fail "stats --check bad-list.json: exit $rc ($(cat err.txt))"
# a sweep CSV of a system: gpu_D_METRIC is GPU D's METRIC, totals_* the
# totals' (and the ratios the sweep derives from their hits and misses)
"$GPUVM" sweep --system dgx-h100-8 --workload shared-read-mgpu:elems=16384,mode=fault \
	--vary gpus=1,2 --csv sw.csv --json sw.json --quiet 2>err.txt || fail "sweep: exit $? ($(cat err.txt))"
"$GPUVM" stats --check sw.json 2>err.txt || fail "stats --check sw.json: exit $? ($(cat err.txt))"
head -1 sw.csv | grep -q 'totals_uvm_far_faults' || fail "sweep CSV: no totals_uvm_far_faults column"
"$GPUVM" stats --check sw.csv 2>err.txt || fail "stats --check sw.csv: exit $? ($(cat err.txt))"
sed '1s/gpu_1_uvm_far_faults/gpu_1_uvm_far_fault/' sw.csv >bad.csv
"$GPUVM" stats --check bad.csv 2>err.txt
rc=$?
[ $rc = 1 ] && grep -qx '  gpu_1_uvm_far_fault' err.txt || fail "stats --check bad.csv: exit $rc ($(cat err.txt))"

# the registry describes the totals' members
"$GPUVM" stats totals.uvm.far_faults totals.peer_access.requests >out.txt 2>err.txt ||
	fail "gpuvm stats totals.*: exit $? ($(cat err.txt))"
grep -q "GPUs' sum" out.txt || fail "gpuvm stats totals.uvm.far_faults: $(cat out.txt)"

[ $failures = 0 ] && echo "ok - system totals and stats --check of a system report" && exit 0
exit 1
