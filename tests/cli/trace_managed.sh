#!/usr/bin/env bash
# A real trace replayed as its unified-memory port (--trace-managed) drops
# the copies and faults the data in: far faults and H2D migration appear,
# and the copies' PCIe bytes of the plain replay are gone.
# usage: trace_managed.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
VA="$SRC/traces/accelsim-vectoradd"
[ -d "$VA" ] || { echo "FAIL: real traces missing at $VA (they are part of the repository)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-trace-managed.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$GPUVM" sim --gpu k80 --trace "$VA" --json "$T/plain.json" --quiet
"$GPUVM" sim --gpu k80 --trace "$VA" --trace-managed --json "$T/managed.json" --quiet
"$GPUVM" sim --gpu k80 --workload "trace+managed:$VA" --json "$T/spec.json" --quiet
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
plain = json.load(open(f"{t}/plain.json"))
managed = json.load(open(f"{t}/managed.json"))
spec = json.load(open(f"{t}/spec.json"))
assert plain["pcie_h2d_bytes"] == 400000, plain["pcie_h2d_bytes"]
assert "uvm" not in plain or plain["uvm"]["far_faults"] == 0
u = managed["uvm"]
assert u["far_faults"] > 0, u
assert u["pages_h2d"] * 4096 >= 400000, u  # both inputs migrate in
assert "2 copies dropped" in managed["result"], managed["result"]
assert spec["sim_cycles"] == managed["sim_cycles"]
print("ok: far faults", u["far_faults"], "pages in", u["pages_h2d"])
PY
# cudaMemAdvise hints on the trace's allocation, by name pattern: preferred
# location host with an accessed-by mapping leaves every page in host
# memory (remote accesses, no fault, nothing migrates); a pattern that
# names no allocation leaves the replay as it was
"$GPUVM" sim --gpu k80 --trace "$VA" --trace-managed --set uvm.preferred_location=host \
	--set uvm.accessed_by=gpu --set 'uvm.advise_allocations=none*, inferred@*' \
	--json "$T/advised.json" --quiet
"$GPUVM" sim --gpu k80 --trace "$VA" --trace-managed --set uvm.preferred_location=host \
	--set uvm.advise_allocations=cudaMalloc* --json "$T/unmatched.json" --quiet
python3 - "$T/managed.json" "$T/advised.json" "$T/unmatched.json" <<'PY'
import json, sys
m, a, n = (json.load(open(f)) for f in sys.argv[1:])
ua = a["uvm"]
assert ua["far_faults"] == 0 and ua["pages_h2d"] == 0, ua
assert ua["remote_accesses"] > 0 and ua["remote_map_faults"] == 0, ua
assert n["sim_cycles"] == m["sim_cycles"] and n["uvm"]["remote_accesses"] == 0, n["uvm"]
print("ok: advised remote accesses", ua["remote_accesses"])
PY
# cudaDeviceSynchronize survives a native recording (version 4 'Y'
# records): srad syncs after each iteration, and under UVMSmart's
# write-back semantics the replay writes back the same dirty pages
W="srad:mem=managed,rows=256,cols=256,iters=3"
"$GPUVM" trace record "$W" -o "$T/srad.gvt" --gpu gtx1080ti-uvmsmart -q
"$GPUVM" sim --gpu gtx1080ti-uvmsmart --workload "$W" --json "$T/live.json" --quiet
"$GPUVM" sim --gpu gtx1080ti-uvmsmart --trace "$T/srad.gvt" --json "$T/replay.json" --quiet
"$GPUVM" sim --gpu gtx1080ti-uvmsmart --workload "$W" --set uvm.device_sync=keep \
	--json "$T/keep.json" --quiet
python3 - "$T/live.json" "$T/replay.json" "$T/keep.json" <<'PY2'
import json, sys
live, rep, keep = (json.load(open(f))["uvm"] for f in sys.argv[1:])
assert live["device_syncs"] == 3 and rep["device_syncs"] == 3, (live, rep)
assert live["sync_writeback_pages"] > 0, live
assert rep["sync_writeback_pages"] == live["sync_writeback_pages"], (rep, live)
assert keep["device_syncs"] == 3 and keep["sync_writeback_pages"] == 0, keep
print("ok: device syncs", live["device_syncs"], "pages written back", live["sync_writeback_pages"])
PY2
if "$GPUVM" sim --gpu k80 --workload "trace+bogus:$VA" --quiet 2>"$T/err"; then
	echo "FAIL: bad trace option accepted"; exit 1
fi
grep -q "only trace option is +managed" "$T/err"
if "$GPUVM" sim --gpu k80 --workload stream-triad --trace-managed --quiet 2>"$T/err"; then
	echo "FAIL: --trace-managed without --trace accepted"; exit 1
fi
echo "ok"
