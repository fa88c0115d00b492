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
# (to a file: grep -q on a pipe may close it before a long help is written)
"$GPUVM" sweep --help > help.txt || fail "--help failed"
grep -q -- '--vary' help.txt || fail "--help does not explain --vary"
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
VA="$SRC/traces/accelsim-vectoradd"
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

# --- robust sweeps: a failed point is a row, the rest go on ----------------------
# Point 2 is past the work cap (rejected when validated), and the trace's
# oversubscribed points fail in the worker (a run-time failure), with -j 2.
"$GPUVM" sweep --gpu p100 --workload "$WL" --vary workload.reads=16,100000000,32 \
	--csv kg.csv --json kg.json -q 2>err.txt && fail "a failed point: exit 0"
[ "$(wc -l < kg.csv)" -eq 4 ] || fail "keep-going CSV: $(cat kg.csv)"
head -1 kg.csv | grep -q ',workload,seed,point,error$' || fail "no point/error columns: $(head -1 kg.csv)"
grep -q '^p100,16,[0-9]' kg.csv && grep -q '^p100,32,[0-9]' kg.csv || fail "good rows lost: $(cat kg.csv)"
grep -q '^p100,100000000,,,,.*,1,".*past the cap.*--force' kg.csv || fail "failed row: $(sed -n 3p kg.csv)"
grep -q '1 of 3 points failed' err.txt || fail "no count on stderr: $(cat err.txt)"
grep -q '"error":' kg.json || fail "JSON has no error entry"
strip_wall kg.csv > /dev/null || fail "malformed keep-going CSV"
rc=0
"$GPUVM" sweep --gpu p100,h100 --workload "trace:$SRC/traces/accelsim-vectoradd" \
	--vary uvm.oversub_percent=0,125 -j 2 --csv kt.csv -q 2>err.txt || rc=$?
[ $rc -eq 1 ] || fail "run-time failures: exit $rc"
[ "$(grep -c 'pages managed memory' kt.csv)" -eq 2 ] && grep -q '^h100,0,[0-9]' kt.csv \
	|| fail "run-time failure rows: $(cut -c1-80 kt.csv)"
rc=0
"$GPUVM" sweep --gpu p100 --workload "$WL" --vary workload.reads=16,100000000,32 \
	--csv ff.csv -q --fail-fast 2>err.txt || rc=$?
[ $rc -eq 2 ] && [ ! -e ff.csv ] || fail "--fail-fast: exit $rc, $(ls ff.csv* 2>&1)"
# with -j 2 (the worker pool): the first failing point of the grid is the
# one reported, whichever worker fails first, and no CSV is written
rc=0
"$GPUVM" sweep --gpu p100,h100 --workload "trace:$SRC/traces/accelsim-vectoradd" \
	--vary uvm.oversub_percent=0,125 -j 2 --csv ffj.csv -q --fail-fast 2>err.txt || rc=$?
[ $rc -eq 2 ] && [ ! -e ffj.csv ] && grep -q 'point 2 of 4 (gpu=p100 uvm.oversub_percent=125)' err.txt \
	|| fail "--fail-fast -j 2: exit $rc, $(cat err.txt)"
pass "--keep-going records failed points; --fail-fast stops"

# --- shards and merge ---------------------------------------------------------
# p100 and k80 have different TLB levels, so shards differ in columns; the
# merge must still give the single run's columns and rows.
SG=(--gpu p100,k80 --workload "$WL" --vary workload.region=64MiB,4GiB --vary workload.reads=16,100000000,32)
"$GPUVM" sweep "${SG[@]}" -j 1 --csv single.csv -q 2>/dev/null && fail "single: exit 0"
for i in 0 1; do
	"$GPUVM" sweep "${SG[@]}" --shard $i/2 -j 2 --csv shard$i.csv -q 2>/dev/null || true
done
[ "$(wc -l < shard0.csv)" -eq 7 ] && [ "$(wc -l < shard1.csv)" -eq 7 ] || fail "shard sizes"
# shard I of N: the points i with i mod N == I (the point column is next to last)
[ "$(strip_wall shard1.csv | awk -F'|' 'NR > 1 { printf "%s ", $(NF - 1) }')" = "1 3 5 7 9 11 " ] ||
	fail "shard 1/2 points: $(strip_wall shard1.csv | awk -F'|' '{ print $(NF - 1) }')"
"$GPUVM" sweep merge shard1.csv shard0.csv --csv merged.csv -q || fail "merge failed"
[ "$(head -1 merged.csv)" = "$(head -1 single.csv)" ] || fail "merged header differs"
diff <(strip_wall single.csv) <(strip_wall merged.csv) || fail "2 shards merged differ from the single run"
# 3 shards: shard 1/3 holds only the failing points, and still writes them
for i in 0 1 2; do
	"$GPUVM" sweep "${SG[@]}" --shard $i/3 --csv third$i.csv -q 2>/dev/null || true
done
[ "$(grep -c 'past the cap' third1.csv)" -eq 4 ] || fail "a shard of failing points: $(cat third1.csv)"
"$GPUVM" sweep merge third2.csv third0.csv third1.csv --csv merged3.csv -q
[ "$(head -1 merged3.csv)" = "$(head -1 single.csv)" ] || fail "3 shards merged: header differs"
diff <(strip_wall single.csv) <(strip_wall merged3.csv) || fail "3 shards merged differ from the single run"
# one point per shard: the k80 shard alone has tlb_l3 columns (v100: 2 levels)
"$GPUVM" sweep --gpu v100,k80 --workload "$WL" --csv s2.csv -q
"$GPUVM" sweep --gpu v100,k80 --workload "$WL" --shard 0/2 --csv s2a.csv -q
"$GPUVM" sweep --gpu v100,k80 --workload "$WL" --shard 1/2 --csv s2b.csv -q
head -1 s2a.csv | grep -q tlb_l3 && fail "v100 shard has tlb_l3 columns"
"$GPUVM" sweep merge s2b.csv s2a.csv --csv s2m.csv -q
[ "$(head -1 s2m.csv)" = "$(head -1 s2.csv)" ] || fail "merge of shards with different columns: header"
diff <(strip_wall s2.csv) <(strip_wall s2m.csv) || fail "merge of shards with different columns"
pass "2 shards merged equal the -j 1 run (wall columns aside)"

grep -q 'i mod N == I' help.txt || fail "--help does not say which points a shard runs"
merge_reject() {
	local what=$1 want=$2; shift 2
	local rc=0
	"$GPUVM" sweep merge "$@" --csv bad.csv > out.txt 2> err.txt || rc=$?
	[ $rc -eq 2 ] || fail "merge $what: exit $rc, wanted 2 ($(cat err.txt))"
	grep -q -- "$want" err.txt || fail "merge $what: message lacks '$want': $(cat err.txt)"
	ls bad.* > /dev/null 2>&1 && fail "merge $what: left $(ls bad.*)"
	true
}
merge_reject "a missing shard" "point 1 is in none" shard0.csv
head -n -1 single.csv > nolast.csv
merge_reject "a missing last point" "points are missing" nolast.csv
merge_reject "overlapping shards" "overlapping" shard0.csv shard1.csv shard0.csv
merge_reject "different sweeps" "different sweeps" shard0.csv s2b.csv
printf 'a,b\n1,2\n' > notsweep.csv
merge_reject "a CSV not of a sweep" "notsweep.csv" shard0.csv notsweep.csv
head -c 300 shard1.csv > cut.csv
merge_reject "a truncated CSV" "cut.csv" shard0.csv cut.csv
merge_reject "a missing file" "nosuch.csv" shard0.csv nosuch.csv
for spec in 3/2 1/0 2/2 x/2 1 -1/2 1/2/3; do
	expect_reject "--shard $spec" "${SG[@]}" --shard "$spec"
	grep -q -- "--shard" err.txt || fail "--shard $spec: message does not name --shard: $(cat err.txt)"
done
pass "bad shard specs and mismatched merges are refused, nothing written"

# --- resume --------------------------------------------------------------------
# a partial CSV (points 0, 3 and the failed 4 of 12) resumed
awk -F, 'NR == 1 || NR == 2 || NR == 5 || NR == 6' single.csv > part.csv
"$GPUVM" sweep "${SG[@]}" -j 2 --csv part.csv --resume 2>err.txt && fail "resume: exit 0"
grep -q -- "--resume: 2 points kept" err.txt || fail "resume kept: $(cat err.txt)"
[ "$(head -1 part.csv)" = "$(head -1 single.csv)" ] || fail "resumed header differs"
diff <(strip_wall single.csv) <(strip_wall part.csv) || fail "resumed CSV differs from a fresh run"
# the kept rows are kept as they were (their wall times too)
[ "$(sed -n 2p part.csv)" = "$(sed -n 2p single.csv)" ] &&
	[ "$(sed -n 5p part.csv)" = "$(sed -n 5p single.csv)" ] || fail "a kept row was rerun"
# a CSV of another sweep is refused, and left alone
resume_reject() { # what, message, CSV
	cp "$3" resumed.csv
	local rc=0
	"$GPUVM" sweep "${SG[@]}" --resume --csv resumed.csv -q > out.txt 2> err.txt || rc=$?
	[ $rc -eq 2 ] || fail "--resume $1: exit $rc, wanted 2 ($(cat err.txt))"
	grep -q -- "$2" err.txt || fail "--resume $1: message lacks '$2': $(cat err.txt)"
	cmp -s "$3" resumed.csv || fail "--resume $1: changed the refused CSV"
	[ ! -e resumed.csv.partial ] || fail "--resume $1: left a checkpoint"
}
resume_reject "from another sweep's CSV (other columns)" "not a CSV of this sweep" s2.csv
# the same columns, but another workload: refused by the row check
sed 's/threads=2048/threads=1024/' single.csv > other2.csv
resume_reject "from a CSV of another workload" "threads=1024" other2.csv
# a killed run: its checkpoint (CSV.partial) holds the finished rows
KG=(--gpu p100 --workload random-sampling:region=4GiB,reads=256 --vary workload.threads=1024,2048,4096,131072)
"$GPUVM" sweep "${KG[@]}" -j 1 --csv fresh.csv -q
"$GPUVM" sweep "${KG[@]}" -j 1 --csv killed.csv -q &
pid=$!
for _ in $(seq 100); do [ -s killed.csv.partial ] && break; sleep 0.05; done
[ -s killed.csv.partial ] || { kill $pid 2>/dev/null || true; fail "no checkpoint while the sweep runs"; }
kill -TERM $pid
wait $pid && fail "killed sweep: exit 0"
[ ! -e killed.csv ] || fail "a killed sweep wrote its CSV"
strip_wall killed.csv.partial > /dev/null || fail "malformed checkpoint"
[ "$(wc -l < killed.csv.partial)" -ge 2 ] || fail "empty checkpoint"
"$GPUVM" sweep "${KG[@]}" -j 2 --csv killed.csv --resume 2>err.txt || fail "resume after kill"
grep -q -- "--resume: [1-9] point" err.txt || fail "resume after kill kept nothing: $(cat err.txt)"
diff <(strip_wall fresh.csv) <(strip_wall killed.csv) || fail "resume after kill differs from a fresh run"
[ ! -e killed.csv.partial ] || fail "checkpoint left after the CSV was written"
# a FIFO or a device is not read (a FIFO would block)
mkfifo fifo.csv
rc=0
timeout 10 "$GPUVM" sweep "${SG[@]}" --resume --csv fifo.csv 2>err.txt || rc=$?
[ $rc -eq 2 ] && grep -q "not a regular file" err.txt || fail "--resume from a FIFO: exit $rc $(cat err.txt)"
rc=0
"$GPUVM" sweep "${SG[@]}" --resume --json x.json --csv part.csv 2>err.txt || rc=$?
[ $rc -eq 2 ] || fail "--resume with --json: exit $rc"
# an extended grid: the rows of a smaller one are kept where their
# parameters are, though the points are numbered anew
"$GPUVM" sweep --gpu p100 --workload random-sampling:region=4GiB,reads=256 \
	--vary workload.threads=4096,1024 -j 1 --csv grown.csv -q
"$GPUVM" sweep "${KG[@]}" -j 2 --csv grown.csv --resume 2>err.txt || fail "resume of an extended grid"
grep -q -- "--resume: 2 points kept" err.txt || fail "extended grid kept: $(cat err.txt)"
diff <(strip_wall fresh.csv) <(strip_wall grown.csv) || fail "extended grid's CSV differs from a fresh run"
# a grid that lost a row's point: refused, as a CSV of another sweep
cp fresh.csv shrunk.csv
rc=0
"$GPUVM" sweep --gpu p100 --workload random-sampling:region=4GiB,reads=256 \
	--vary workload.threads=1024,2048 --csv shrunk.csv --resume -q 2>err.txt || rc=$?
[ $rc -eq 2 ] && grep -q "no point of this sweep has the row's parameters" err.txt ||
	fail "resume into a smaller grid: exit $rc $(cat err.txt)"
cmp -s fresh.csv shrunk.csv || fail "a refused resume changed the CSV"
pass "--resume after a partial or killed run gives the fresh run's CSV; an extended grid keeps its rows"

# --- progress in a batch log -----------------------------------------------------
# stderr not a terminal: a line every 30 s and one at the end, with the
# points done; --quiet: none
"$GPUVM" sweep --gpu p100 --workload random-sampling:region=64MiB,reads=4 \
	--vary workload.threads=1024,2048 --csv batch.csv >/dev/stdout 2>batch.log || fail "batch sweep: exit $?"
grep -q "^gpuvm sweep: 2 of 2 points done" batch.log || fail "batch log lacks the last progress line: $(cat batch.log)"
[ "$(grep -c "points done" batch.log)" -eq 1 ] || fail "a 2-point sweep logged more than its last line: $(cat batch.log)"
"$GPUVM" sweep --gpu p100 --workload random-sampling:region=64MiB,reads=4 \
	--vary workload.threads=1024,2048 --csv batch.csv -q 2>batch.log || fail "quiet batch sweep: exit $?"
[ ! -s batch.log ] || fail "--quiet sweep wrote to stderr: $(cat batch.log)"
pass "a sweep logs its progress in a batch log, not under --quiet"

echo "sweep.sh: all passed"
