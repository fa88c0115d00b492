#!/usr/bin/env bash
# Issue 79, item 5: bounded readers. Every file input that is not a
# regular file - /dev/zero (read, never written), a FIFO with no writer, a
# character device made with mknod - is refused with a message naming it,
# in bounded time and memory: a text input through the one shared reader
# (gpuvm_input_fopen_any: a 64 MiB cap, GPUVM_INPUT_WAIT_S without a byte),
# traces, graphs and presets because they must be regular files. On the
# reference build (8727757) `stats --check /dev/zero` grew to GBs and every
# FIFO case blocked forever (here: killed by timeout, exit 124).
# usage: bounded_inputs.sh GPUVM SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-bounded.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok - $*"; }
export GPUVM_INPUT_WAIT_S=1

mkfifo fifo
devs=(/dev/zero fifo)
# a character device of our own (the kernel's zero device, 1:5), when
# mknod is allowed here
if mknod zero c 1 5 2>/dev/null; then
	devs+=(zero)
else
	echo "# mknod not permitted: the mknod'd device is left out"
fi
printf 'name,ipc\nx,1\n' > good.csv

# every input of every command, F standing for the file
inputs=(
	"stats --check F"
	"sweep merge F --csv out.csv"
	"sweep merge good.csv F --csv out.csv"
	"calibrate --gpu k80 --quick --table F"
	"validate --manifest F"
	"probe --target cuda --input F"
	"systems --check F"
	"sim --gpu ./F --workload random-sampling"
	"sim --gpu p100 --trace F"
	"trace info F"
	"graph info F"
)
for dev in "${devs[@]}"; do
	for spec in "${inputs[@]}"; do
		cmd=${spec//F/$dev}
		cmd=${cmd//.\/\/dev/\/dev}
		start=$(date +%s)
		# ulimit -v: a reader without a cap fails fast instead of eating
		# memory; not under the sanitizers, whose shadow memory reserves
		# terabytes of address space (ASan aborts at start under the limit)
		# shellcheck disable=SC2086
		(if [ -z "${GPUVM_TEST_SANITIZED:-}" ]; then ulimit -v 4000000; fi
			timeout 30 "$GPUVM" $cmd > out.txt 2> err.txt)
		rc=$?
		took=$(($(date +%s) - start))
		if [ $rc -eq 124 ]; then
			fail "$cmd: still reading after 30 s"
		elif [ $rc -eq 0 ]; then
			fail "$cmd: exit 0 on a non-regular input"
		elif [ $rc -ge 128 ]; then
			fail "$cmd: killed by signal $((rc - 128)): $(head -c 200 err.txt)"
		elif ! grep -qE "regular file|no data for|more than 64 MiB" err.txt; then
			fail "$cmd: exit $rc without saying why: $(head -c 300 err.txt)"
		elif ! grep -qF "$dev" err.txt; then
			fail "$cmd: the message does not name $dev: $(head -c 300 err.txt)"
		else
			ok "$cmd: exit $rc in ${took}s: $(head -c 120 err.txt)"
		fi
	done
done

# a FIFO with a writer is read (the bounded reader is not a refusal)
"$GPUVM" sweep --gpu p100 --workload random-sampling:region=32MiB,threads=256,reads=4 \
	--vary seed=1,2 --csv part.csv -q || fail "sweep for a part: exit $?"
(cat part.csv > fifo) &
"$GPUVM" sweep merge fifo --csv merged.csv > merge.out 2> err.txt ||
	fail "sweep merge from a FIFO with a writer: $(cat err.txt)"
wait
cmp -s part.csv merged.csv || fail "sweep merge from a FIFO changed the rows"

echo "bounded_inputs: $failures failures"
[ $failures -eq 0 ]
