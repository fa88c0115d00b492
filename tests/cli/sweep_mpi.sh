#!/usr/bin/env bash
# gpuvm sweep --mpi: a 4-rank mpirun on localhost (--oversubscribe: more
# ranks than cores) writes exactly the CSV and JSON of a -j 1 run, wall-time
# columns aside; a failed point is a row with its error under MPI too;
# bad input stops every rank; rank 0's progress counts every rank's
# points. Skipped (exit 77) when gpuvm was built
# without MPI or mpirun is missing (scripts/install-deps.sh installs
# libopenmpi-dev and openmpi-bin, so CI runs it).
# usage: sweep_mpi.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sweep-mpi-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

if ! command -v mpirun >/dev/null; then
	echo "SKIP: mpirun not found (install openmpi-bin)"
	exit 77
fi
if "$GPUVM" sweep --mpi --gpu p100 --workload stream-triad 2>&1 >/dev/null | grep -q "built without MPI"; then
	echo "SKIP: gpuvm built without MPI (install libopenmpi-dev and reconfigure)"
	exit 77
fi
# CI runs as root; OpenMPI refuses root unless told. Open MPI's own
# allocations at init are not ours to free: no leak check under ASan.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# shared memory and TCP on loopback only; no network probing
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
MPIRUN=(timeout 300 mpirun --oversubscribe -n 4)

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

GRID=(--gpu p100,k80 --workload random-sampling:threads=1024,reads=8
      --vary workload.region=32MiB,1GiB,4GiB --vary tlb.l1.entries=16,32)

"$GPUVM" sweep "${GRID[@]}" -j 1 --csv j1.csv --json j1.json -q
"${MPIRUN[@]}" "$GPUVM" sweep --mpi "${GRID[@]}" --csv mpi.csv --json mpi.json > table.txt \
	2> progress.txt || fail "mpirun sweep failed: $(cat progress.txt)"
[ "$(wc -l < mpi.csv)" -eq 13 ] || fail "expected header + 12 rows: $(cat mpi.csv)"
[ "$(strip_wall j1.csv)" = "$(strip_wall mpi.csv)" ] || {
	diff <(strip_wall j1.csv) <(strip_wall mpi.csv) | head -5 >&2
	fail "4-rank CSV differs from the -j 1 CSV"
}
# the JSON too, once the wall-clock keys are dropped
grep -v wall j1.json > j1.nowall
grep -v wall mpi.json > mpi.nowall
cmp -s j1.nowall mpi.nowall || fail "4-rank JSON differs from the -j 1 JSON"
[ "$(grep -c '^p100 \|^k80 ' table.txt)" -eq 12 ] || fail "rank 0 table: $(cat table.txt)"
pass "4-rank mpirun sweep == -j 1 sweep (CSV and JSON, wall time aside)"
# rank 0's progress counts every rank's points (3 each), not its own alone
grep -q '^gpuvm sweep: 12 of 12 points done' progress.txt &&
	! grep -q ' of 3 points' progress.txt ||
	fail "progress under MPI does not count every rank's points: $(cat progress.txt)"
pass "rank 0's progress line counts the 12 points of the 4 ranks"

# a point that fails: its row carries the error, the others run, exit 1
# (32 GiB of device memory on the 16 GB p100: cudaMalloc fails at run time;
# region=0 is refused up front by the range table)
set +e
"${MPIRUN[@]}" "$GPUVM" sweep --mpi --gpu p100 --workload random-sampling:threads=1024,reads=8 \
	--vary workload.region=32MiB,32GiB,1GiB,4GiB,64MiB --csv kg.csv -q 2> kg.err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "keep-going under MPI: exit $rc, expected 1: $(cat kg.err)"
[ "$(wc -l < kg.csv)" -eq 6 ] || fail "keep-going CSV: $(cat kg.csv)"
grep -q '^p100,32GiB,34359738368,.*does not fit' kg.csv || fail "failed point's row lacks its error: $(cat kg.csv)"
"$GPUVM" sweep --gpu p100 --workload random-sampling:threads=1024,reads=8 \
	--vary workload.region=32MiB,32GiB,1GiB,4GiB,64MiB --csv kg1.csv -q 2>/dev/null || true
[ "$(strip_wall kg1.csv)" = "$(strip_wall kg.csv)" ] || fail "keep-going CSV differs from -j 1"
pass "a failed point under MPI is a row with its error, as without"

# bad input: every rank stops, nothing written
set +e
"${MPIRUN[@]}" "$GPUVM" sweep --mpi --gpu p100 --workload random-sampling \
	--vary tlb.l2.entries=64,banana --csv bad.csv -q > /dev/null 2> bad.err
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "bad input under MPI exited 0"
[ ! -e bad.csv ] || fail "bad input under MPI wrote a CSV"
grep -q "banana" bad.err || fail "no message naming the bad value: $(cat bad.err)"
"$GPUVM" sweep --mpi --shard 0/2 --gpu p100 --workload random-sampling 2> err.txt && fail "--mpi with --shard"
grep -q "each rank is a shard" err.txt || fail "--mpi --shard message: $(cat err.txt)"
pass "bad input stops every rank; --mpi refuses --shard"
