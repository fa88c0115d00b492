#!/usr/bin/env bash
# gpuvm sim/sweep --kernel-sampling: a run reports its detailed and
# fast-forwarded launches; a bad tolerance exits 2, names the option and
# writes nothing.
# usage: kernel_sampling.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-ksample.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
WL=hash-groupby:region=64KiB,input=2097152,chunk=1MiB

"$GPUVM" sim --gpu p100 --workload "$WL" --kernel-sampling --json ok.json >out.txt 2>err.txt ||
	fail "--kernel-sampling: exit $?"
grep -q "^sampling .* launches simulated in detail, .* fast-forwarded" out.txt ||
	fail "--kernel-sampling: no sampling line: $(cat out.txt)"
python3 -c "import json,sys; k=json.load(open('ok.json'))['kernel_sampling']; sys.exit(0 if k['enabled'] and k['fast_forwarded_kernels'] > 0 else 1)" ||
	fail "--kernel-sampling: json says nothing was fast-forwarded"

for bad in abc 0 1.5 -0.1 ""; do
	"$GPUVM" sim --gpu p100 --workload "$WL" --kernel-sampling="$bad" --json bad.json >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "--kernel-sampling=$bad: exit $rc, wanted 2"
	grep -q -- "--kernel-sampling" err.txt || fail "--kernel-sampling=$bad: message does not name the option: $(cat err.txt)"
	[ ! -e bad.json ] || fail "--kernel-sampling=$bad: left an output file"
done

"$GPUVM" sweep --gpu p100 --workload "$WL" --kernel-sampling=abc --csv bad.csv >out.txt 2>err.txt
rc=$?
[ $rc -eq 2 ] || fail "sweep --kernel-sampling=abc: exit $rc, wanted 2"
grep -q -- "--kernel-sampling" err.txt || fail "sweep --kernel-sampling=abc: message"
[ ! -e bad.csv ] || fail "sweep --kernel-sampling=abc: left an output file"

"$GPUVM" sim --help >help.txt 2>&1 || fail "sim --help: exit $?"
grep -q -- "--kernel-sampling" help.txt || fail "sim --help does not teach --kernel-sampling"

[ $failures -eq 0 ] && echo "ok - kernel sampling CLI" || exit 1
