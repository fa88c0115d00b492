#!/usr/bin/env bash
# No workload limits a single parameter in its code: each limit is in the
# workload's range table, where the parser enforces it and `gpuvm
# workloads` prints it (scripts/check-workload-limits.py says how it looks;
# tests/test_workload_ranges.c walks the tables). Then the table as printed
# is the one enforced: a value past a printed range is refused by `sim`
# naming the key and the range.
# usage: workload_limits.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$1
SRC=$2
python3 "$SRC/scripts/check-workload-limits.py" "$SRC" || exit 1
# a planted limit in a copy of one workload is found
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/workloads" "$tmp/scripts"
cp "$SRC/scripts/check-workload-limits.py" "$tmp/scripts/"
printf '%s\n' 'int f(void) { if (n > 9) return gpuvm_fail(err, "--workload", 0, "n", "must be at most 9"); }' \
	>"$tmp/src/workloads/planted.c"
if python3 "$tmp/scripts/check-workload-limits.py" "$tmp" >/dev/null 2>&1; then
	echo "FAIL: a planted limit in code was not found"
	exit 1
fi
# printed ranges are the enforced ones: 2dconv's n (the case)
"$GPUVM" workloads | grep -A3 '^2dconv$' | grep -q 'n  *\[1024\] {3\.\.131072}' || {
	echo "FAIL: gpuvm workloads does not print 2dconv's n as {3..131072}"
	"$GPUVM" workloads | grep -A3 '^2dconv$'
	exit 1
}
out=$("$GPUVM" sim --gpu v100 --workload 2dconv:n=131073 --quiet 2>&1) && {
	echo "FAIL: 2dconv:n=131073 accepted"
	exit 1
}
case $out in *"n=131073: out of range [3, 131072]"*) ;; *)
	echo "FAIL: 2dconv:n=131073: $out"
	exit 1
	;;
esac
echo "workload limits: ok"
