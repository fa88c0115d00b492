#!/usr/bin/env bash
# gpuvm graph info on every input kind, its JSON, and bad input: message
# with file:line, exit status 2. gpuvm sim --page-map writes loadable
# CSV and JSON. usage: graph.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
D="$SRC/tests/data/graphs"
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-graph-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# json_get FILE KEY: a top-level number or string of a JSON object
json_get() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

check_info() { # name spec want-vertices want-edges [options]
	local name=$1 spec=$2 nv=$3 ne=$4
	shift 4
	if ! "$GPUVM" graph info "$spec" "$@" --json out.json >out.txt 2>err.txt; then
		fail "$name: exit $?"; cat err.txt; return
	fi
	local v e
	v=$(json_get out.json vertices)
	e=$(json_get out.json edges)
	if [ "$v" != "$nv" ] || [ "$e" != "$ne" ]; then
		fail "$name: $v vertices, $e edges; wanted $nv, $ne"; return
	fi
	echo "ok - $name: $v vertices, $e edges"
}

check_info "mtx" "$D/small.mtx" 4 4
check_info "mtx symmetrized" "$D/small.mtx" 4 8 --symmetrize
check_info "dimacs" "$D/small.gr" 4 5
check_info "snap" "$D/small.txt" 3 3
check_info "snap forced" "snap:$D/small.txt" 3 3
check_info "rmat" "rmat:scale=10,ef=4,seed=2" 1024 "$("$GPUVM" graph info rmat:scale=10,ef=4,seed=2 --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["edges"])')"

# text output names the counts
"$GPUVM" graph info "$D/small.gr" --weights >out.txt 2>&1 && grep -q "^vertices    4" out.txt &&
	grep -q "weights     from the input" out.txt && echo "ok - text output" || { fail "text output"; cat out.txt; }

expect_bad() { # name want args...
	local name=$1 want=$2
	shift 2
	"$GPUVM" graph info "$@" >out.txt 2>err.txt
	local rc=$?
	if [ $rc -ne 2 ]; then fail "$name: exit $rc, wanted 2"; cat err.txt; return; fi
	if ! grep -qF -- "$want" err.txt; then fail "$name: message lacks '$want'"; cat err.txt; return; fi
	if [ -s out.txt ]; then fail "$name: printed output"; return; fi
	echo "ok - $name: $(head -c 160 err.txt)"
}
expect_bad "mtx index" "bad_index.mtx:4: entry (4, 1) outside" "$D/bad_index.mtx"
expect_bad "dimacs arc" "bad_arc.gr:2: arc line" "$D/bad_arc.gr"
expect_bad "snap token" "bad_token.txt:3:" "$D/bad_token.txt"
expect_bad "missing file" "nope.mtx: cannot open" nope.mtx
expect_bad "rmat key" "unknown R-MAT key" rmat:scale=5,x=1
expect_bad "rmat scale" "1..31" rmat:scale=99
expect_bad "two graphs" "exactly one GRAPH" a b
# a line far longer than any edge line ends the read with an error, never
# as the end of the file (the graph is not silently cut short)
python3 -c 'print("0 1"); print("7" * (17 << 20)); print("1 2")' >long_line.txt
expect_bad "snap line past 16 MiB" "long_line.txt:2: line of" "snap:long_line.txt"
expect_bad "unknown option" "unknown option '--bogus'" "$D/small.txt" --bogus
expect_bad "--json without a file" "option --json needs a value" "$D/small.txt" --json
expect_bad "--json in a missing directory" "nodir/g.json" "$D/small.txt" --json nodir/g.json
expect_bad "--threads 0" "--threads: '0'" rmat:scale=5 --threads 0
expect_bad "--threads past the limit" "--threads: '65'" rmat:scale=5 --threads 65

# --threads generates R-MAT on a pool: the same graph (its JSON but the
# build's time and RSS) at any count; scale 16 is past the pool's four rounds
"$GPUVM" graph info rmat:scale=16,seed=3 --symmetrize --json t1.json -q &&
	"$GPUVM" graph info rmat:scale=16,seed=3 --symmetrize --threads 3 --json t3.json -q &&
	diff <(grep -v -e build_seconds -e peak_rss t1.json) <(grep -v -e build_seconds -e peak_rss t3.json) \
		>/dev/null && echo "ok - --threads 3: the same graph" || fail "--threads 3: the graph differs"

# page map of a small run: CSV and JSON load, one row per cell
if "$GPUVM" sim --gpu p100 --workload stream-triad:elems=65536,threads=8192 --quiet \
	--page-map "$T/pm" 2>err.txt; then
	python3 - "$T/pm" <<'PY' && echo "ok - page map outputs" || fail "page map outputs"
import csv, json, sys
p = sys.argv[1]
rows = list(csv.DictReader(open(p + ".csv")))
j = json.load(open(p + ".json"))
names = {a["name"] for a in j["allocations"]}
assert names == {"a", "b", "c"}, names
assert rows and {r["allocation"] for r in rows} == names
assert sum(int(r["accesses"]) for r in rows) == sum(a["accesses"] for a in j["allocations"])
assert all(r["written"] == ("1" if r["allocation"] == "a" else "0") for r in rows)
PY
else
	fail "sim --page-map: exit $?"; cat err.txt
fi
"$GPUVM" sim --gpu p100 --workload stream-triad:elems=4096 --page-map "$T/bad" --page-map-page 3000 >/dev/null 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "power-of-two" err.txt && ! ls "$T"/bad* >/dev/null 2>&1; then
	echo "ok - bad page size"
else
	fail "bad page size: exit $rc"; cat err.txt
fi
# a paged run: each cell's paging decisions, summing to the run's counts
if "$GPUVM" sim --gpu gtx1080ti-uvmsmart --workload stream-triad:mem=managed,elems=262144 \
	--oversub 125 --migration adaptive --quiet --page-map "$T/pd" --json "$T/pd-run.json" 2>err.txt; then
	python3 - "$T/pd" <<'PY' && echo "ok - page map decisions" || fail "page map decisions"
import csv, json, sys
p = sys.argv[1]
rows = list(csv.DictReader(open(p + ".csv")))
u = json.load(open(p + "-run.json"))["uvm"]
for col, key in (("fault", "migrations_fault"), ("prefetch", "migrations_prefetch"),
                 ("evict", "pages_evicted"), ("remote", "remote_accesses")):
    assert sum(int(r[col]) for r in rows) == u[key], (col, key)
assert {r["decision"] for r in rows} >= {"fault", "evict"}
for a in u["allocations"]:
    assert a["class"] in ("hot", "cold", "untouched"), a
PY
else
	fail "sim --page-map (managed): exit $?"; cat err.txt
fi
"$GPUVM" sim --gpu p100 --workload stream-triad:elems=4096 --page-map "$T/bad" --page-map-colour heat >/dev/null 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "use access or decision" err.txt; then
	echo "ok - bad page map colour"
else
	fail "bad page map colour: exit $rc"; cat err.txt
fi

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all graph CLI checks passed"
