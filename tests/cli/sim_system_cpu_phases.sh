#!/usr/bin/env bash
# CPU phases on a system of two GPUs from the CLI: cpu-gpu-phases with
# gpus=2 runs its kernels on GPU 0 and 1 in turn, its sums verified, and
# the report's totals carry the CPU-phase counters (the GPUs' sums, the CPU
# taking pages back from both GPUs); gpus=1 is the run it always was;
# mem=device with gpus=2 and more GPUs than the system has are refused,
# naming gpus; the presets' cudaMemAdvise keys run on two GPUs (issue 78).
# usage: sim_system_cpu_phases.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sim-system-cpu-phases.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
strip() { python3 "$SRC/scripts/report-strip.py" "$1"; }
WL=cpu-gpu-phases:elems=262144,iters=4,touch=50,mem=managed,verify=1

"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload "$WL,gpus=2" --json two.json --quiet \
	2>err.txt || fail "gpus=2: exit $? ($(cat err.txt))"
python3 - two.json <<'PY' || fail "gpus=2: the report's CPU phases or totals"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["result"].endswith("verify=pass"), r["result"]
g = r["gpu"]
# the kernels took turns: each GPU ran two and faulted x and y in
for d in (0, 1):
    assert len(g[d]["kernels"]) == 2, (d, len(g[d]["kernels"]))
    assert g[d]["uvm"]["far_faults"] > 0, (d, g[d]["uvm"]["far_faults"])
# the CPU phases took pages back from both GPUs
for d in (0, 1):
    assert g[d]["uvm"]["cpu_fault_pages"] > 0, (d, g[d]["uvm"])
t = r["totals"]["uvm"]
for k in ("host_accesses", "cpu_faults", "cpu_fault_pages", "cpu_duplicated_pages",
          "cpu_invalidated_copies", "cpu_remote_bytes", "bytes_d2h"):
    s = sum(x["uvm"][k] for x in g)
    assert k in t and t[k] == s, (k, t.get(k), s)
assert t["cpu_fault_pages"] > 0
# the second GPU's faults take what the first left over NVLink
assert r["uvm_peer_pages"] > 0, r["uvm_peer_pages"]
PY
"$GPUVM" stats --check two.json 2>err.txt || fail "stats --check two.json: exit $? ($(cat err.txt))"

# gpus=1 (the default) is the run without the parameter: every kernel on GPU 0
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload "$WL" --json one.json --quiet 2>err.txt ||
	fail "default gpus: exit $? ($(cat err.txt))"
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload "$WL,gpus=1" --json one1.json --quiet \
	2>err.txt || fail "gpus=1: exit $? ($(cat err.txt))"
cmp -s <(strip one.json | grep -v '"workload"') <(strip one1.json | grep -v '"workload"') ||
	fail "gpus=1 differs from the default"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["gpu"][1].get("kernels", [])) == 0 and r["result"].endswith("verify=pass"), r["result"]
' one.json || fail "default gpus: GPU 1 ran kernels or the sums differ"

# refused, naming the parameter
for bad in "cpu-gpu-phases:elems=4096,gpus=2" "cpu-gpu-phases:elems=4096,mem=managed,gpus=3"; do
	"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload "$bad" --quiet --no-outdir \
		>/dev/null 2>err.txt
	rc=$?
	[ $rc != 0 ] && grep -q 'gpus' err.txt || fail "$bad: exit $rc ($(cat err.txt))"
done

# the presets' advice keys on two GPUs: the CPU as the preferred location
# keeps x and y in host memory, each GPU mapping them
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload "$WL,gpus=2" \
	--set uvm.preferred_location=host --json host.json --quiet 2>err.txt ||
	fail "uvm.preferred_location=host on two GPUs: exit $? ($(cat err.txt))"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]["uvm"]
assert r["result"].endswith("verify=pass"), r["result"]
assert t["remote_map_faults"] > 0 and t["bytes_h2d"] == 0 and r["uvm_peer_pages"] == 0, t
' host.json || fail "uvm.preferred_location=host on two GPUs: pages migrated"

[ $failures = 0 ] && echo "ok - CPU phases on two GPUs from the CLI, their totals" && exit 0
exit 1
