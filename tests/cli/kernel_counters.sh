#!/usr/bin/env bash
# Per-kernel counters (gpuvm/counters.h): every launch's record carries the
# run's summable counters as differences over the launch, so the launches
# add up to the run -- TLB levels, walks, page-walk cache, far faults,
# migrations, evictions, thrashing, remote accesses -- in JSON and in
# --stats-csv; warp and thread IPC; short names in `gpuvm stats`; run rows
# of --stats-csv with a usable index.
# usage: kernel_counters.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-kcounters.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

# Sums every numeric member of the launches' records (nested objects and
# lists of objects flattened to paths) and compares with the run's member
# of the same path. Prints the paths compared; fails on any difference.
cat > sums.py <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
required = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else []
def flat(o, p=""):
    out = {}
    for k, v in o.items():
        if isinstance(v, dict):
            out.update(flat(v, p + k + "."))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for i, e in enumerate(v):
                out.update(flat(e, "%s%s[%d]." % (p, k, i)))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[p + k] = v
    return out
# not counts of the launch: its own time, its rates, the TLB level's number
skip = {"sim_seconds", "warp_ipc", "thread_ipc"}
r = flat(run)
kernels = run["kernels"]
if len(kernels) < 2:
    sys.exit("only %d launch(es)" % len(kernels))
tot = {}
for k in kernels:
    for n, v in flat(k).items():
        tot[n] = tot.get(n, 0) + v
bad = []
compared = []
for n, v in tot.items():
    if n in skip or n.endswith(".level") or n not in r:
        continue
    compared.append(n)
    if abs(r[n] - v) > 1e-9 * max(1.0, abs(v)):
        bad.append("%s: run %r, launches sum to %r" % (n, r[n], v))
for n in required:
    if n not in compared:
        bad.append("%s: not in the launches' records" % n)
    elif r[n] <= 0:
        bad.append("%s: zero in the run (the case does not exercise it)" % n)
if bad:
    sys.exit("\n".join(bad))
print(len(compared), "counters add up over", len(kernels), "launches")
EOF

# 1. a multi-kernel managed run with oversubscription: faults, migrations,
#    evictions and refaults happen inside launches
"$GPUVM" sim --gpu gtx1080ti-uvmsmart --workload bfs:graph=rmat:scale=13,mem=managed \
	--oversub 125 --json bfs.json --stats-csv bfs.csv > bfs.txt
python3 sums.py bfs.json "tlb[0].lookups,tlb[0].hits,tlb[0].misses,walks,uvm.far_faults,uvm.pages_h2d,uvm.migrations_fault,uvm.migrations_prefetch,uvm.pages_evicted,uvm.thrashed_pages,uvm.fault_batches,warps,translation_units" ||
	fail "bfs (managed, oversubscribed): launches do not add up to the run"
pass "bfs managed --oversub 125: per-launch TLB, walk and paging counters sum to the run's"

# 2. a two-level TLB with a page-walk cache, and delayed migration (remote accesses)
"$GPUVM" sim --gpu p100 --workload stream-triad:mem=managed,elems=262144 --oversub 125 \
	--migration adaptive --json triad.json -q
python3 - triad.json <<'EOF' || fail "triad: no remote accesses in the launch record"
import json, sys
r = json.load(open(sys.argv[1]))
k = r["kernels"][0]
assert r["uvm"]["remote_accesses"] > 0
assert k["uvm"]["remote_accesses"] == r["uvm"]["remote_accesses"], k["uvm"]
assert len(k["tlb"]) == len(r["tlb"]) >= 2
assert k["pwc_hits"] == r["pwc_hits"]
EOF
"$GPUVM" sim --gpu p100 --workload pagerank:graph=rmat:scale=12,mem=managed --oversub 125 \
	--set walker.pwc_entries=16 \
	--json pr.json -q
python3 sums.py pr.json "tlb[0].misses,tlb[1].lookups,tlb[1].misses,walks,pwc_hits,uvm.far_faults,uvm.pages_evicted" ||
	fail "pagerank (two TLB levels, page-walk cache): launches do not add up"
pass "two TLB levels, page-walk cache hits and remote accesses per launch"

# 3. kernel sampling: fast-forwarded launches carry the estimated counters
#    they were charged (docs/kernel-sampling.md), so the sum still holds
"$GPUVM" sim --gpu p100 --workload hash-groupby:region=1MiB,input=4194304,chunk=1MiB,threads=2048 \
	--kernel-sampling --json hg.json -q
grep -q '"fast_forwarded":[[:space:]]*true' hg.json || fail "hg.json: nothing fast-forwarded"
python3 sums.py hg.json "tlb[0].lookups,tlb[0].misses,walks,sectors,warps" ||
	fail "kernel sampling: launches do not add up"
python3 - hg.json <<'EOF' || fail "fast-forwarded launch without estimated TLB counters"
import json, sys
ff = [k for k in json.load(open(sys.argv[1]))["kernels"] if k["fast_forwarded"]]
assert ff and all(k["tlb"][0]["lookups"] > 0 for k in ff)
EOF
pass "kernel sampling: fast-forwarded launches carry their estimated counters; sums hold"

# 4. warp and thread IPC
python3 - bfs.json <<'EOF' || fail "warp_ipc/thread_ipc"
import json, sys
r = json.load(open(sys.argv[1]))
for k in r["kernels"]:
    assert k["warp_ipc"] == k["ipc"], k
    assert k["warp_ipc"] <= k["thread_ipc"] <= 32 * k["warp_ipc"] + 1e-9, k
    assert k["thread_instructions"] >= k["thread_accesses"]
assert 0 < r["warp_ipc"] <= r["thread_ipc"]
EOF
pass "ipc = warp_ipc <= thread_ipc <= 32 warp_ipc, per launch and per run"

# 5. --stats-csv: kernel rows with the same counters, run rows index 0
python3 - bfs.csv <<'EOF' || fail "--stats-csv per-kernel rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
run = {r["metric"]: float(r["value"]) for r in rows if r["scope"] == "run"}
assert all(r["index"] == "0" and r["name"] == "run" for r in rows if r["scope"] == "run")
assert all(r["index"].isdigit() for r in rows), "an empty or non-integer index"
for m in ("uvm.far_faults", "uvm.pages_evicted", "tlb[0].misses", "walks"):
    s = sum(float(r["value"]) for r in rows if r["scope"] == "kernel" and r["metric"] == m)
    assert s == run[m], (m, s, run[m])
assert all(r["unit"] for r in rows), "a row without unit"
EOF
"$GPUVM" stats --check bfs.json bfs.csv hg.json triad.json || fail "per-kernel keys not in the registry"
pass "--stats-csv: kernel rows add up; run rows have index 0 and name run; every key registered"

# 6. the text report's launch lines, and gpuvm stats by short name
grep -q '^kernel 0 .*tlb miss L1 .*walks .*faults ' bfs.txt || fail "text report lacks per-kernel translation/paging"
"$GPUVM" stats ipc > ipc.txt
grep -q '^kernels\[\]\.ipc ' ipc.txt || fail "gpuvm stats ipc"
"$GPUVM" stats bytes | grep -q '^alloc\.bytes ' || fail "gpuvm stats bytes"
"$GPUVM" stats far_faults | grep -q '^kernels\[\]\.uvm\.far_faults ' || fail "gpuvm stats far_faults"
"$GPUVM" stats kernel.tlb[0].misses | grep -q 'kernels\[\]\.tlb\[\]\.misses' || fail "kernel.tlb[0].misses"
pass "text report per launch; gpuvm stats finds short names and per-kernel metrics"
