#!/usr/bin/env bash
# One managed far-faulting load's path (docs/architecture.md, "One managed
# load"): a checking build (GPUVM_CHECK_INVARIANTS: Debug and sanitizer
# builds) prints the steps of the first memory instruction that took a far
# fault when GPUVM_TRACE_REQUEST=1 (src/core/req_trace.h). Checks that the
# path of its first sector (the translation, then the sector's data) is the
# documented one and enters each component at most once per direction,
# with one stated exception, the host link (a transfer per run of pages
# migrated): the UVM driver is entered once, by the walk's page port
# (uvm_translate_sector, which serves the first sector's access too), and
# the translation layer is not re-entered; its other sectors take one
# request to the driver and one to the memory partitions each. A Release
# build prints no trace: skipped (77).
# usage: req_trace.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-req-trace.XXXXXX")
trap 'rm -rf "$T"' EXIT

# a one-warp-wide load of managed memory with a cold TLB faults at its
# first walk; the path below holds for any preset without pte_reads =
# l2 (which adds walk_pte_read and memsys_pte_read under xlat).
GPUVM_TRACE_REQUEST=1 "$GPUVM" sim --gpu p100 --workload stream-triad-simt:elems=4096,mem=managed \
	--quiet --json "$T/r.json" 2>"$T/err" >/dev/null
grep '^req-trace: ' "$T/err" | sed 's/^req-trace: //' >"$T/trace" || true
if [ ! -s "$T/trace" ]; then
	echo "SKIP: this build prints no request trace (a Release build)"
	exit 77
fi
cat "$T/trace"
python3 - "$T/trace" <<'PY'
import collections, sys
steps = [tuple(l.split()) for l in open(sys.argv[1]) if l.strip()]
assert steps[0] == ("sm", "down", "memory_instruction"), steps[0]
assert steps[-1] == ("sm", "up", "memory_instruction"), steps[-1]
# every step down has its step up, nested
stack = []
for comp, d, f in steps:
    if d == "down":
        stack.append((comp, f))
    else:
        assert stack and stack[-1] == (comp, f), (stack, comp, f)
        stack.pop()
assert not stack, stack
# the request: the translation and the first sector, up to its data
first = steps.index(("memsys", "up", "memsys_access_fresh")) + 1
req = steps[1:first]
fns = [f for _, _, f in req]
# the documented order of the far-faulting load (docs/architecture.md)
order = ["xlat_translate", "page_walk_done", "uvm_translate_sector", "link_lane_bulk",
         "memsys_access_fresh"]
at = [fns.index(f) for f in order]
assert at == sorted(at), list(zip(order, at))
# entered at most once per direction, but for the stated exception: the
# host link (one transfer per run of pages the fault migrates); the driver
# serves the first sector's access with the walk (no uvm_access_sector)
entries = collections.Counter((c, d) for c, d, f in req)
for (comp, d), n in entries.items():
    if comp != "link":
        assert n <= 1, (comp, d, n, req)
assert "uvm_access_sector" not in fns, req
assert "xlat_invalidate_range" not in fns, req
# the instruction's other sectors: each one request to the driver and one
# to the memory partitions, nothing else
rest = [f for _, d, f in steps[first:-1] if d == "down"]
assert rest == ["uvm_access_sector", "memsys_access_fresh"] * (len(rest) // 2), rest
print("ok:", len(req), "steps for the first sector;", dict(entries),
      "; then", len(rest) // 2, "more sectors")
PY
