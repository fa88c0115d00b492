#!/usr/bin/env bash
# End-to-end test of `gpuvm sweep`: usage: sweep.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sweep-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

WL=random-sampling:threads=2048,reads=16
GRID=(--gpu p100 --workload "$WL" --vary workload.region=64MiB,4GiB)

# Prints a CSV without its wall-time columns, one row per line, fields
# joined by '|' (quoted fields with commas are parsed properly). Fails on a
# row whose field count differs from the header's.
strip_wall() {
	awk '
	function splitcsv(line, out,   n, i, c, f, q) {
		n = 0; f = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) {
				if (c == "\"") {
					if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0
				} else f = f c
			} else if (c == "\"") q = 1
			else if (c == ",") { out[++n] = f; f = "" }
			else f = f c
		}
		out[++n] = f
		return n
	}
	{
		n = splitcsv($0, fld)
		if (NR == 1) { ncol = n; for (i = 1; i <= n; i++) drop[i] = (fld[i] ~ /wall/) }
		else if (n != ncol) { print "row " NR ": " n " fields, header has " ncol > "/dev/stderr"; exit 1 }
		s = ""
		for (i = 1; i <= n; i++) if (!drop[i]) s = s "|" fld[i]
		print s
	}' "$1"
}

# 1. A small sweep: header + one row per point, grid order, sizes in bytes.
"$GPUVM" sweep "${GRID[@]}" --csv j1.csv --json j1.json > table.txt
[ -s j1.csv ] || fail "no CSV written"
[ "$(wc -l < j1.csv)" -eq 3 ] || fail "expected header + 2 rows, got: $(cat j1.csv)"
head -1 j1.csv | grep -q '^gpu,workload.region,workload.region_bytes,' || fail "bad header: $(head -1 j1.csv)"
for col in sim_seconds accesses_per_sim_second wall_seconds walks tlb_l1_hits; do
	head -1 j1.csv | tr , '\n' | grep -qx "$col" || fail "no $col column: $(head -1 j1.csv)"
done
sed -n 2p j1.csv | grep -q '^p100,64MiB,67108864,' || fail "row 1: $(sed -n 2p j1.csv)"
sed -n 3p j1.csv | grep -q '^p100,4GiB,4294967296,' || fail "row 2: $(sed -n 3p j1.csv)"
strip_wall j1.csv > /dev/null || fail "malformed CSV"
[ "$(grep -c '^p100 ' table.txt)" -eq 2 ] || fail "table should have 2 rows: $(cat table.txt)"
[ "$(head -c 1 j1.json)" = "[" ] || fail "JSON is not an array"
[ "$(grep -c '"point":' j1.json)" -eq 2 ] || fail "JSON should hold 2 points"
pass "sweep writes table, CSV and JSON"

# 2. Same results whatever -j (wall times aside).
"$GPUVM" sweep "${GRID[@]}" -j 2 --csv j2.csv --quiet > quiet.txt
[ ! -s quiet.txt ] || fail "--quiet printed: $(cat quiet.txt)"
diff <(strip_wall j1.csv) <(strip_wall j2.csv) || fail "-j 1 and -j 2 differ"
pass "-j 1 and -j 2 give identical CSVs"

# 3. Ranges and cartesian products, gpu outermost.
"$GPUVM" sweep --gpu p100,k80 --workload "$WL" --vary workload.region=64MiB..256MiB*2 \
	--vary workload.threads=1024,2048 -j 3 --csv grid.csv --quiet
[ "$(wc -l < grid.csv)" -eq 13 ] || fail "2 x 3 x 2 grid should give 12 rows: $(cat grid.csv)"
[ "$(cut -d, -f1-2,4 grid.csv | sed -n '2p;3p;4p;13p' | tr '\n' ' ')" = \
  "p100,64MiB,1024 p100,64MiB,2048 p100,128MiB,1024 k80,256MiB,2048 " ] || fail "grid order: $(cut -d, -f1-4 grid.csv)"
pass "ranges and products"

# 4. Bad input: exit 2, a message, and no output file (nor temporary).
expect_reject() {
	local what=$1; shift
	set +e
	"$GPUVM" sweep "$@" --csv bad.csv --json bad.json > out.txt 2> err.txt
	local rc=$?
	set -e
	[ $rc -eq 2 ] || fail "$what: exit status $rc, expected 2 ($(cat err.txt))"
	[ -s err.txt ] || fail "$what: no message"
	ls bad.* > /dev/null 2>&1 && fail "$what: left $(ls bad.*)"
	true
}
expect_reject "bad --vary key" --gpu p100 --workload "$WL" --vary tlb.no_such_key=1,2
grep -q no_such_key err.txt || fail "message does not name the key: $(cat err.txt)"
expect_reject "bad workload parameter" --gpu p100 --workload "$WL" --vary workload.nope=1,2
expect_reject "bad size" --gpu p100 --workload "$WL" --vary workload.region=64MiB,lots
expect_reject "unknown gpu" --gpu p100,nosuchgpu --workload "$WL"
expect_reject "unknown option" --gpu p100 --workload "$WL" --frobnicate
expect_reject "missing --workload" --gpu p100
expect_reject "bad range" --gpu p100 --workload "$WL" --vary workload.region=1GiB..64MiB*2
expect_reject "bad -j" --gpu p100 --workload "$WL" -j many
expect_reject "bad figure format" --gpu p100 --workload "$WL" --plot fig.gif
pass "bad input exits 2 and writes nothing"

# 5. Help.
"$GPUVM" sweep --help | grep -q -- '--vary' || fail "--help does not explain --vary"
pass "--help"

# 6. Figures: drawn with gnuplot when present; a note and exit 0 without it.
if command -v gnuplot > /dev/null 2>&1; then
	"$GPUVM" sweep "${GRID[@]}" --csv fig.csv --plot fig.png --quiet
	[ -s fig.png ] || fail "no figure"
	[ "$(head -c 4 fig.png | tail -c 3)" = PNG ] || fail "fig.png is not a PNG"
	"$GPUVM" sweep "${GRID[@]}" --plot fig.svg --y tlb_l1_hit_ratio --quiet
	grep -q '<svg' fig.svg || fail "fig.svg is not SVG"
	pass "figures"
fi
PATH=/nonexistent "$GPUVM" sweep "${GRID[@]}" --csv nognuplot.csv --plot nognuplot.png \
	--quiet 2> err.txt || fail "sweep without gnuplot failed"
grep -q gnuplot err.txt || fail "no note about gnuplot: $(cat err.txt)"
[ -s nognuplot.csv ] && [ ! -e nognuplot.png ] || fail "without gnuplot: CSV yes, figure no"
pass "no gnuplot: note, CSV, exit 0"

# a trace sweeps like a workload (over GPUs and preset keys), and says so
# plainly when asked to vary a parameter it does not have
VA="$SRC/../shared/traces/accelsim-vectoradd"
"$GPUVM" sweep --gpu p100,h100 --workload "trace:$VA" --vary tlb.l2.entries=32,64 \
	--csv trace.csv --quiet || fail "sweep over a trace"
[ "$(wc -l <trace.csv)" -eq 5 ] && grep -q "^h100,64," trace.csv || fail "trace sweep CSV: $(cat trace.csv)"
rc=0
"$GPUVM" sweep --gpu p100 --workload "trace:$VA" --vary workload.n=1,2 2>err.txt || rc=$?
[ $rc -eq 2 ] && grep -q "a trace has no workload parameters" err.txt || fail "trace --vary workload: $(cat err.txt)"
rc=0
"$GPUVM" sweep --gpu p100 --workload "trace:nonexistent" --vary tlb.l2.entries=32,64 2>err.txt || rc=$?
[ $rc -eq 2 ] && grep -q "nonexistent" err.txt || fail "missing trace: $(cat err.txt)"
pass "sweeps over traces"

echo "sweep.sh: all passed"
