#!/usr/bin/env bash
# Issue 80: gpuvm calibrate's registry of quantity names
# (src/cli/calib_quantities.c) holds every name its rows carry, and a
# --table row is checked before any run. Before the runs calibrate makes
# each preset's rows without running them, and calib_add_row refuses a
# name the registry lacks: so a calibrate of every shipped preset, full
# and --quick, whose table's last row names a quantity one preset does
# not measure, is refused at that row (not an internal error at a row the
# registry lacks), at once, with no run. Seconds, not the minutes of the
# runs: the rows of ten presets are made without simulating.
# usage: calibrate_quantities.sh GPUVM SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-calq.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok - $*"; }

presets=$(cd "$SRC/presets" && ls -- *.ini | sed 's/\.ini$//' | paste -sd, -)
[ -n "$presets" ] || fail "no presets in $SRC/presets"
# v100's third TLB level (v100 has two) as the last row: alone (so that
# the registry check of the rows' names, not that of the table's, is what
# a missing name meets), then after the shipped table (whose rows all
# pass the check before the runs)
l3='v100\ttlb_l3_miss_delay_cycles\t32\tcycles\tx\ty\tvalidation\t\n'
{ grep -v '^#' "$SRC/validation/microbench.tsv" | head -1; printf "$l3"; } > alone.tsv
{ cat "$SRC/validation/microbench.tsv"; printf "$l3"; } > shipped.tsv
for table in alone shipped; do
	last=$(wc -l < $table.tsv)
	want="$table.tsv:$last: quantity: 'tlb_l3_miss_delay_cycles' is not a quantity gpuvm calibrate measures on v100"
	for mode in full quick; do
		args=()
		[ $mode = quick ] && args=(--quick)
		start=$(date +%s)
		# the timeout: were the rows run, the full tables would take minutes
		timeout 60 "$GPUVM" calibrate --gpu "$presets" "${args[@]}" --progress \
			--table $table.tsv > out.txt 2> err.txt
		rc=$? took=$(($(date +%s) - start))
		if [ $rc -eq 2 ] && grep -qF -- "$want" err.txt && ! grep -q '^calibrate: ' err.txt; then
			ok "$mode tables of $presets, $table.tsv: every name in the registry, refused at the last row in $took s"
		else
			fail "$mode, $table.tsv: exit $rc in $took s, wanted 2 and '$want' with no run: $(head -c 400 err.txt)"
		fi
	done
done

# a table row naming a curve is refused too: curves are drawn, never compared
{ grep -v '^#' "$SRC/validation/microbench.tsv" | head -1
  printf 'k80\tchase_cycles\t300\tcycles\tx\ty\tvalidation\t\n'; } > curve.tsv
"$GPUVM" calibrate --gpu k80 --quick --progress --table curve.tsv > out.txt 2> err.txt
rc=$?
if [ $rc -eq 2 ] && grep -qF "curve.tsv:2: quantity: 'chase_cycles' is a curve" err.txt &&
	! grep -q '^calibrate: ' err.txt; then
	ok "a curve's name refused before any run"
else
	fail "curve row: exit $rc: $(head -c 300 err.txt)"
fi

echo "calibrate_quantities: $failures failures"
[ $failures -eq 0 ]
