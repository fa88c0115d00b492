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
# A program's managed-memory operations between kernels survive a native
# recording (version 7 'V', 'C', 'P' records): a read-mostly advice, CPU
# phases writing part of the data and prefetches of it back to the GPU replay to the same run, and trace
# info lists them in program order
W="cpu-gpu-phases:elems=65536,iters=3,touch=50,cpu=write,advise=1,prefetch=1,mem=managed"
"$GPUVM" trace record "$W" -o "$T/phases.gvt" --gpu p100 -q
"$GPUVM" sim --gpu p100 --workload "$W" --json "$T/plive.json" --quiet
"$GPUVM" sim --gpu p100 --trace "$T/phases.gvt" --json "$T/preplay.json" --quiet
"$GPUVM" sim --gpu p100 --workload "${W/prefetch=1/prefetch=0}" --json "$T/pnone.json" --quiet
"$GPUVM" trace info "$T/phases.gvt" --json "$T/pinfo.json" --quiet
python3 - "$T/plive.json" "$T/preplay.json" "$T/pnone.json" "$T/pinfo.json" <<'PY3'
import json, sys
live, rep, none, info = (json.load(open(f)) for f in sys.argv[1:])
assert rep["sim_cycles"] == live["sim_cycles"], (rep["sim_cycles"], live["sim_cycles"])
for k in ("far_faults", "pages_h2d", "pages_d2h", "prefetch_pages"):
    if k in live["uvm"]:
        assert rep["uvm"][k] == live["uvm"][k], (k, rep["uvm"][k], live["uvm"][k])
# the prefetches are in the replay: without them the kernels fault more
assert none["uvm"]["far_faults"] > live["uvm"]["far_faults"], (none["uvm"], live["uvm"])
ops = [(o["op"], o["detail"]) for o in info["managed_operations"]]
want = [("advise", "read_mostly")] + [("cpu_access", "write"), ("prefetch", "to_gpu")] * 2 \
    + [("cpu_access", "write"), ("cpu_access", "read")]
assert ops == want, ops
print("ok: managed ops replayed", len(ops), "far faults", live["uvm"]["far_faults"])
PY3
# the same bytes declared version 6 (header checksum made right): version 7's
# first record is refused as unknown, naming its byte, not misread
python3 - "$T/phases.gvt" "$T/v6.gvt" <<'PY4'
import struct, sys
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
d = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<I", d, 8)[0] == 7, "recorded version"
struct.pack_into("<I", d, 8, 6)
struct.pack_into("<I", d, 20, crc32c(bytes(d[:20])))
open(sys.argv[2], "wb").write(d)
PY4
if "$GPUVM" trace info "$T/v6.gvt" --quiet 2>"$T/err"; then
	echo "FAIL: a version 6 file with a version 7 record accepted"; exit 1
fi
grep -q "v6.gvt.*byte [0-9]*: unknown record type" "$T/err" || { cat "$T/err"; exit 1; }
if "$GPUVM" sim --gpu k80 --workload "trace+bogus:$VA" --quiet 2>"$T/err"; then
	echo "FAIL: bad trace option accepted"; exit 1
fi
grep -q "only trace option is +managed" "$T/err"
if "$GPUVM" sim --gpu k80 --workload stream-triad --trace-managed --quiet 2>"$T/err"; then
	echo "FAIL: --trace-managed without --trace accepted"; exit 1
fi
echo "ok"
