#!/usr/bin/env bash
# Access-counter migrations end to end (uvm.counter_migration, docs/uvm.md):
# with async (the default) a read that reaches the threshold is served
# remotely and notifies, so `always` on a100's bfs takes counter notices in
# batches of the driver's access-counter bottom half and fewer far faults;
# with fault every counter migration is a far fault and there is no
# notice; first touch takes neither. JSON counters uvm.counter_notices and
# uvm.notice_batches, per launch summed to the run's.
# usage: counter_notices.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-counter-notices.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
WL=bfs:mem=managed,vertices=65536
"$GPUVM" sim --gpu a100 --workload "$WL" --migration always --no-outdir --json async.json \
	>/dev/null 2>&1 || fail "sim (async)"
"$GPUVM" sim --gpu a100 --workload "$WL" --migration always --set uvm.counter_migration=fault \
	--no-outdir --json fault.json >/dev/null 2>&1 || fail "sim (fault)"
"$GPUVM" sim --gpu a100 --workload "$WL" --no-outdir --json ft.json >/dev/null 2>&1 ||
	fail "sim (first touch)"
python3 - <<'PY' || fail "counters"
import json
a, f, ft = (json.load(open(x))["uvm"] for x in ("async.json", "fault.json", "ft.json"))
runs = {n: json.load(open(n + ".json")) for n in ("async", "fault")}
def brief(u):
    return {k: u[k] for k in ("far_faults", "counter_notices", "notice_batches",
                              "migrations_counter", "remote_accesses")}
assert a["counter_notices"] > 0 and a["notice_batches"] >= 1, brief(a)
assert a["notice_batches"] <= a["counter_notices"], brief(a)
assert a["migrations_counter"] >= a["counter_notices"], brief(a)
assert f["counter_notices"] == 0 and f["notice_batches"] == 0 and f["migrations_counter"] > 0, brief(f)
# the notices' reads do not fault: fewer far faults than with fault
assert a["far_faults"] < f["far_faults"], (a["far_faults"], f["far_faults"])
assert ft["counter_notices"] == 0 and ft["migrations_counter"] == 0 and ft["remote_accesses"] == 0, brief(ft)
# the run's counts are its launches' summed
for k in ("counter_notices", "notice_batches"):
    assert sum(x["uvm"][k] for x in runs["async"]["kernels"]) == a[k], k
print("ok - always on a100 bfs: async %d notices in %d batches, %d far faults; fault %d far faults" % (
    a["counter_notices"], a["notice_batches"], a["far_faults"], f["far_faults"]))
PY
[ "$failures" -eq 0 ] && echo "counter_notices: all ok"
exit $((failures > 0))
