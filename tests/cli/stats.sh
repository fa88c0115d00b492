#!/usr/bin/env bash
# The statistics registry: every key a run emits (sim JSON, sweep CSV and
# JSON, --stats-csv) is documented by `gpuvm stats`; the registry's own
# outputs; --stats-csv rows; the JSON's provenance keys and flatness.
# usage: stats.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-stats-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

# Runs that between them emit every key: paging with oversubscription and
# delayed migration, a NeiDty L1 with the sharing analysis, Valkyrie, kernel
# sampling (fast-forwarded launches), a two-level sweep.
"$GPUVM" sim --gpu p100 --workload stream-triad:mem=managed,elems=262144 --oversub 125 \
	--migration adaptive --json a.json --stats-csv a.csv -q
"$GPUVM" sim --gpu p100 --workload random-sampling:region=64MiB,threads=1024,reads=8 \
	--tlb-sharing --set tlb.l1.peer=neidty --json b.json -q
"$GPUVM" sim --gpu p100 --workload random-sampling:region=64MiB,threads=1024,reads=8 \
	--set tlb.l1.peer=valkyrie --json b2.json -q 2>/dev/null ||
	cp b.json b2.json # a preset without a shader-engine ring: NeiDty covers the keys
"$GPUVM" sim --gpu p100 --workload hash-groupby:region=1MiB,input=4194304,chunk=1MiB,threads=2048 \
	--kernel-sampling --json c.json --stats-csv c.csv -q
grep -q ',alloc,' c.csv && fail "c.csv: alloc rows under --kernel-sampling (the recorder disables sampling)"
"$GPUVM" sweep --gpu p100 --workload stream-triad:mem=managed,elems=65536 \
	--vary uvm.oversub_percent=110,150 --csv s.csv --json s.json -q
grep -q '"fast_forwarded":[[:space:]]*true' c.json || fail "c.json: no fast-forwarded launch (kernel sampling keys untested)"
grep -q '"far_faults"' a.json || fail "a.json: no uvm object"
# asynchronous copies (the SePo driver's pipelined input)
"$GPUVM" sim --gpu p100 --workload sepo-pvc:records=20000 --json d.json -q
grep -q '"async_copies"' d.json || fail "d.json: no asynchronous copies"

"$GPUVM" stats --check a.json b.json b2.json c.json d.json s.json s.csv a.csv c.csv ||
	fail "keys above are emitted but not in the registry (src/report/stats_registry.c)"
pass "every emitted JSON key, CSV column and --stats-csv metric is in the registry"

# --check notices an undocumented key and column
sed 's/"walks":/"walkz":/' b.json > bad.json
"$GPUVM" stats --check bad.json 2> err.txt && fail "--check accepted an unknown key"
grep -q walkz err.txt || fail "--check did not name the unknown key"
head -1 s.csv | sed 's/,sim_seconds,/,sim_secs,/' > bad.csv
"$GPUVM" stats --check bad.csv 2> err.txt && fail "--check accepted an unknown column"
grep -q sim_secs err.txt || fail "--check did not name the unknown column"
pass "--check names unknown keys and columns"

# the registry as a table, JSON, CSV; names in either spelling
"$GPUVM" stats > table.txt
grep -q '^uvm.far_faults  *count' table.txt || fail "table lacks uvm.far_faults"
"$GPUVM" stats --json reg.json --csv reg.csv
# grep -c reads it all: grep -q would stop at the first match and the
# registry's JSON, more than a pipe holds (64 KiB), would end on SIGPIPE
[ "$("$GPUVM" stats --json - | grep -c '"unit":')" -gt 0 ] || fail "--json - is not the registry"
head -1 reg.csv | grep -qx 'name,csv,unit,label,scope,description' || fail "reg.csv header"
grep -q '^tlb\[\].hits,tlb_lN_hits,count,' reg.csv || fail "reg.csv lacks tlb[].hits"
"$GPUVM" stats tlb_l2_hits uvm.far_faults kernel.ipc | grep -c . | grep -qx 3 || fail "lookups"
"$GPUVM" stats uvm_far_falts 2> err.txt && fail "unknown name accepted"
grep -q "did you mean 'uvm_far_faults'" err.txt || fail "no suggestion: $(cat err.txt)"
pass "gpuvm stats: table, --json, --csv, lookups, did-you-mean"

# every row of --stats-csv has a unit; kernels and allocations are there
head -1 a.csv | grep -qx 'gpu,workload,seed,scope,index,name,kind,metric,value,unit' || fail "a.csv header"
awk -F, 'NR > 1 && $NF == "" { print; bad = 1 } END { exit bad }' a.csv || fail "rows without unit"
grep -q ',kernel,0,stream_triad,,ipc,' a.csv || fail "no kernel ipc row"
for n in a b c; do
	grep -q ",alloc,[0-9]*,$n,managed,thread_accesses,262144,count\$" a.csv || fail "alloc $n row"
done
grep -c ',kernel,[0-9]*,.*,warp_instructions,' c.csv | grep -qv '^[01]$' || fail "c.csv: one kernel only"
"$GPUVM" sim --gpu p100 --workload stream-triad:elems=4096 --stats-csv - | head -1 |
	grep -q '^gpu,workload' || fail "--stats-csv - did not go to stdout"
"$GPUVM" sim --gpu p100 --workload stream-triad:mem=managed,elems=262144 --oversub 125 \
	--migration adaptive --json a0.json -q
diff <(grep -v wall a0.json) <(grep -v wall a.json) > /dev/null ||
	fail "--stats-csv (its allocation recorder) changed the run"
pass "--stats-csv: run, kernel and alloc rows with units; the run is the same without it"

# provenance: version, commit, preset as given, a config hash that follows the config
for k in gpuvm_version gpuvm_commit preset config_hash; do
	grep -q "\"$k\":" a.json || fail "a.json lacks $k"
done
h1=$(grep '"config_hash"' b.json)
"$GPUVM" sim --gpu p100 --workload random-sampling:region=64MiB,threads=1024,reads=8 --json h.json -q
"$GPUVM" sim --gpu p100 --workload random-sampling:region=64MiB,threads=1024,reads=8 \
	--set tlb.l2.entries=64 --json h2.json -q
[ "$(grep '"config_hash"' h.json)" != "$(grep '"config_hash"' h2.json)" ] || fail "hash ignores --set"
"$GPUVM" sim --gpu p100 --workload random-sampling:region=64MiB,threads=512,reads=8 --json h3.json -q
[ "$(grep '"config_hash"' h.json)" = "$(grep '"config_hash"' h3.json)" ] || fail "hash depends on the workload"
[ "$h1" != "$(grep '"config_hash"' h.json)" ] || fail "hash ignores tlb.l1.peer"
pass "JSON carries gpuvm_version, gpuvm_commit, preset and a config hash"

# pandas.json_normalize of a sim JSON: one row (a dict always normalizes to
# one row; the check is that it loads and the columns are the registry's)
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import pandas' 2>/dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
	"$PY" - a.json s.json <<'PY'
import json, sys
import pandas as pd
run = json.load(open(sys.argv[1]))
df = pd.json_normalize(run)
assert len(df) == 1, len(df)
assert "uvm.far_faults" in df.columns and "config.tlb.l1.entries" in df.columns
sweep = json.load(open(sys.argv[2]))
df = pd.json_normalize(sweep)
assert len(df) == 2, len(df)
print("ok - pandas.json_normalize: one row per run (%d columns)" % df.shape[1])
PY
else
	echo "ok - # SKIP pandas not installed (python3-pandas)"
fi
