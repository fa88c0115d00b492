#!/usr/bin/env bash
# The MPI example of docs/outputs.md (the block between <!-- mpi-example -->
# markers) runs as written: as root, 4 ranks on however few cores, with no
# OMPI_* variables set for it (its own --allow-run-as-root and
# --oversubscribe must suffice), and gives the CSV of a plain -j 1 sweep.
# Skipped (77) without mpirun or without MPI in this build.
# usage: docs_mpi_example.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v mpirun > /dev/null; then
	echo "SKIP: mpirun not found (install openmpi-bin)"
	exit 77
fi
if "$GPUVM" sweep --mpi --gpu p100 --workload stream-triad 2>&1 > /dev/null | grep -q "built without MPI"; then
	echo "SKIP: gpuvm built without MPI"
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-docs-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
awk '/<!-- mpi-example -->/ { on = 1; next } /<!-- \/mpi-example -->/ { on = 0 }
     on && !/^```/' "$SRC/docs/outputs.md" > example.sh
grep -q "mpirun" example.sh || fail "no MPI example between the markers in docs/outputs.md"
# build/gpuvm as in the docs: this build's binary under that name
mkdir -p build && ln -s "$GPUVM" build/gpuvm
unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# the ASan pass: Open MPI's own allocations at init are not ours to free
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
timeout 300 bash example.sh > out.txt 2> err.txt || fail "the docs' MPI example failed: $(tail -5 err.txt)"
[ -s all.csv ] || fail "the example wrote no all.csv"
# the same grid without MPI
cmd=$(tr -d '\\\n' < example.sh | sed 's/.*build\/gpuvm sweep --mpi//; s/--csv all.csv//')
eval "\"$GPUVM\" sweep $cmd --csv plain.csv -q"
strip() { python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, c in enumerate(rows[0]) if "wall" not in c]
for r in rows: print("|".join(r[i] for i in keep))' "$1"; }
diff <(strip all.csv) <(strip plain.csv) > /dev/null || fail "MPI CSV differs from the plain sweep's"
echo "ok - docs/outputs.md's MPI example runs as written ($(id -un), $(nproc) cores) and equals -j 1"
