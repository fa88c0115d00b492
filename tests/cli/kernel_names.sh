#!/usr/bin/env bash
# Kernel names and columns of the text report's per-launch lines: a mangled
# C++ kernel name from a trace is shown demangled and whole (it used to be
# shown mangled and cut to 28 characters), the JSON keeps "name" as the
# trace recorded it and adds "name_demangled", a C-style name is left as
# it is, and every number on the line has a label.
# usage: kernel_names.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-kernel-names.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

# b+tree's two launches of _Z15find_key_kernelPK5knodeiPKiPii (35 characters)
"$GPUVM" sim --gpu h100 --trace "$SRC/traces/accelsim-rodinia-bptree-h100" --no-outdir \
	--json bp.json >bp.txt 2>bp.err || { cat bp.err; fail "gpuvm sim --trace b+tree"; }
want='find_key_kernel(knode const*, int, int const*, int*, int)'
n=$(grep -c -F "kernel 0    $want  time " bp.txt || true)
[ "$n" = 1 ] || { grep '^kernel' bp.txt; fail "text report: kernel 0 is not shown as '$want'"; }
grep -q '_Z15find_key' bp.txt && fail "text report still shows the mangled name"
pass "text report shows the demangled name whole"

# the JSON: name as recorded, name_demangled beside it
grep -c '"name":[[:space:]]*"_Z15find_key_kernelPK5knodeiPKiPii"' bp.json | grep -qx 2 ||
	fail "JSON kernels[].name is not the mangled name as recorded"
grep -c -F "\"name_demangled\":	\"$want\"" bp.json | grep -qx 2 ||
	fail "JSON kernels[].name_demangled missing or wrong"
"$GPUVM" stats name_demangled | grep -q '^kernels\[\]\.name_demangled ' ||
	fail "gpuvm stats does not describe kernels[].name_demangled"
pass "JSON keeps name mangled and adds name_demangled"

# labelled columns, and a name that is not mangled (bfs_kernel1), with paging
"$GPUVM" sim --gpu p100 --workload bfs:mem=managed --oversub 125 --no-outdir >bfs.txt 2>bfs.err ||
	{ cat bfs.err; fail "gpuvm sim bfs"; }
line=$(grep -m1 '^kernel 0 ' bfs.txt)
for label in 'bfs_kernel1 ' ' time [0-9.e+-]+ s ' ' warp ipc [0-9.e+-]+ \(thread [0-9.e+-]+\)' \
	' l1 sector hit/miss [0-9.e+-]+/[0-9.e+-]+' ' l2 sector hit/miss [0-9.e+-]+/[0-9.e+-]+' \
	' tlb miss L1 [0-9.e+-]+' ' walks [0-9.e+-]+ \(pwc hits [0-9.e+-]+\)' ' far faults [0-9.e+-]+' \
	' pages in [0-9.e+-]+' ' evicted [0-9.e+-]+' ' thrashed [0-9.e+-]+' ' remote accesses [0-9.e+-]+'; do
	grep -qE -- "$label" <<<"$line" || fail "kernel line lacks '$label': $line"
done
# no number without a label: every number follows a word or a unit
if grep -qE '  [0-9.e+-]+(/[0-9.e+-]+)?( |$)' <<<"$line"; then
	fail "kernel line has an unlabelled number: $line"
fi
pass "per-kernel columns are labelled"
echo "PASS: kernel names and columns"
