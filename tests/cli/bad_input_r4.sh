#!/usr/bin/env bash
# Issue 79 (bad input, round 4): the items not covered by their own
# scripts (output_registry.sh: item 1; bounded_inputs.sh: item 5), one
# check per item, each named by it. Each failed on the reference build of
# 8727757 and passes now.
# usage: bad_input_r4.sh GPUVM SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-r4.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok - $*"; }

# refuse NAME WANT CMD...: exit 2, the message contains WANT
refuse() {
	local name=$1 want=$2
	shift 2
	"$@" > stdout.txt 2> err.txt
	local rc=$?
	if [ $rc -ne 2 ]; then
		fail "$name: exit $rc, wanted 2 ($(head -c 300 err.txt))"
	elif ! grep -qF -- "$want" err.txt; then
		fail "$name: message lacks '$want': $(head -c 300 err.txt)"
	else
		ok "$name: $(head -c 160 err.txt)"
	fi
}

# --- item 6: calibrate --table rows with an unknown GPU or quantity --------
table="$SRC/validation/microbench.tsv"
{ grep -v '^#' "$table" | head -2; printf 'k8O\tchase_l1_hit_cycles\t32\tcycles\tx\ty\tvalidation\t\n'; } > gpu.tsv
refuse "item 6: a row's GPU is no preset (before any run)" "gpu.tsv:3: gpu: 'k8O' is not a shipped preset" \
	"$GPUVM" calibrate --gpu k80 --quick --table gpu.tsv
# issue 80: the quantities too before any run (the registry of names,
# src/cli/calib_quantities.c; and what this GPU measures, from its rows
# made without running them): --progress prints a line a run, and a k80
# quick table takes 10 s (70 s under ASan), so no line and under 5 s
no_run() { # NAME: err.txt has no progress line and the command took < 5 s
	if grep -q '^calibrate: ' err.txt || [ $(($(date +%s%N) - t0)) -ge 5000000000 ]; then
		fail "$1: a run happened before the refusal ($(grep -c '^calibrate: ' err.txt) runs, $((($(date +%s%N) - t0) / 1000000)) ms)"
	else
		ok "$1: no run ($((($(date +%s%N) - t0) / 1000000)) ms)"
	fi
}
{ grep -v '^#' "$table" | head -2; printf 'k80\tchase_l1_hti_cycles\t32\tcycles\tx\ty\tvalidation\t\n'; } > q.tsv
t0=$(date +%s%N)
refuse "item 6: a row's quantity is not measured" \
	"q.tsv:3: quantity: 'chase_l1_hti_cycles' is not a quantity gpuvm calibrate measures; did you mean 'chase_l1_hit_cycles'?" \
	"$GPUVM" calibrate --gpu k80 --quick --progress --table q.tsv
no_run "item 6: a misspelt quantity"
# a quantity calibrate measures, but not on this GPU (v100: two TLB levels)
{ grep -v '^#' "$table" | head -1; printf 'v100\ttlb_l3_miss_delay_cycles\t32\tcycles\tx\ty\tvalidation\t\n'; } > l3.tsv
t0=$(date +%s%N)
refuse "item 6: a quantity this GPU does not measure" \
	"l3.tsv:2: quantity: 'tlb_l3_miss_delay_cycles' is not a quantity gpuvm calibrate measures on v100" \
	"$GPUVM" calibrate --gpu v100 --quick --progress --table l3.tsv
no_run "item 6: a quantity v100 does not measure"
[ ! -e out.csv ] || fail "item 6: an output was written"

# --- item 11: sweep --cache / writes its KEY.json files into / --------------
refuse "item 11: sweep --cache /" "is the root directory" \
	"$GPUVM" sweep --gpu p100 --workload random-sampling:region=32MiB,threads=256,reads=4 --cache / -q

# --- item 1 (a positional output): trace convert IN OUT -o X kept one -------
printf 'garbage\n' > in.txt
refuse "item 1: trace convert IN OUT with -o too" "OUT given twice" \
	"$GPUVM" trace convert in.txt a.gvt -o b.gvt
[ ! -e a.gvt ] && [ ! -e b.gvt ] || fail "item 1: trace convert wrote an output"

# --- item 10: a device allocation past the preset's device memory ---------
refuse "item 10: 4 TiB of device memory on the 16 GB p100" \
	"region: cudaMalloc of 4TiB (4398046511104 bytes) does not fit: 0B of the p100 preset's 16GiB" \
	timeout 60 "$GPUVM" sim --gpu p100 --workload random-sampling:region=4TiB --no-outdir -q
refuse "item 10: two allocations that fit alone, not together (k80: 12 GiB)" \
	"cudaMalloc of" \
	timeout 60 "$GPUVM" sim --gpu k80 --workload stream-triad:elems=1073741824 --no-outdir -q
# managed memory past the board still oversubscribes (no --oversub: unbounded, as before)
timeout 120 "$GPUVM" sim --gpu p100 --workload random-sampling:region=32GiB,threads=256,reads=2,mem=managed \
	--no-outdir -q 2> err.txt && ok "item 10: 32 GiB managed on p100 runs" ||
	fail "item 10: 32 GiB managed on p100: exit $? ($(head -c 200 err.txt))"

# --- item 7: a workload key that does not apply is an error -----------------
for w in bc:vertices=64 color:vertices=64 mis:degree=3 pagerank:vertices=99; do
	refuse "item 7: $w under the default (rmat) graph" "applies to graph=uniform only" \
		timeout 60 "$GPUVM" sim --gpu p100 --workload "$w" --no-outdir -q
done
# a managed-memory hint with memory that is not managed (advise=1 ran as if absent)
for w in cpu-gpu-phases:advise=1 cpu-gpu-phases:prefetch=1,mem=pinned; do
	refuse "item 7: $w" "applies to mem=managed only" \
		timeout 60 "$GPUVM" sim --gpu p100 --workload "$w" --no-outdir -q
done

# --- item 11: a sweep whose CSV cannot be written says what its checkpoint
# holds (it said "no checkpoint" and left a one-row .partial). A file-size
# limit stands in for a full disk: the first checkpoint (one row) fits, the
# later ones and the 8-row CSV do not.
mkdir full && (
	cd full || exit 1
	ulimit -f 4
	trap '' XFSZ
	"$GPUVM" sweep --gpu p100 --workload random-sampling:threads=2048,reads=2,region=64MiB \
		--vary workload.reads=1,2,3,4,5,6,7,8 --csv s.csv -q 2> err.txt
	echo $? > rc.txt
)
if [ "$(cat full/rc.txt)" != 1 ]; then
	fail "item 11: sweep on a full disk: exit $(cat full/rc.txt), wanted 1 ($(head -c 300 full/err.txt))"
elif [ -e full/s.csv ]; then
	fail "item 11: sweep on a full disk left a CSV"
elif [ -e full/s.csv.partial ] && ! grep -q "s.csv.partial keeps the points of the last checkpoint" full/err.txt; then
	fail "item 11: a .partial is left without a word: $(cat full/err.txt)"
elif grep -q "no checkpoint" full/err.txt && [ -e full/s.csv.partial ]; then
	fail "item 11: says 'no checkpoint' and leaves s.csv.partial"
else
	# the checkpoint resumes to the whole CSV once there is room
	(cd full && "$GPUVM" sweep --gpu p100 --workload random-sampling:threads=2048,reads=2,region=64MiB \
		--vary workload.reads=1,2,3,4,5,6,7,8 --csv s.csv -q --resume 2> err2.txt)
	if [ "$(wc -l < full/s.csv 2>/dev/null)" = 9 ] && [ ! -e full/s.csv.partial ]; then
		ok "item 11: a full disk's sweep names its checkpoint; --resume completes it"
	else
		fail "item 11: resume after a full disk: $(cat full/err2.txt)"
	fi
fi

echo "bad_input_r4: $failures failures"
[ $failures -eq 0 ]
