#!/usr/bin/env bash
# Runs each case at --threads 1, 2, 3 and 8 under core.window off, on and
# lagged and compares every report with the same mode's one-thread report
# (host timing and the commit aside: scripts/report-strip.py): issue 34's
# "identical at any thread count", over more presets, workloads and traces
# than the CI tests (tests/cli/threads.sh, trace_threads.sh) afford.
# Minutes to tens of minutes.
# usage: threads-identical.sh GPUVM [CASES_FILE]
# CASES_FILE: lines "GPU WORKLOAD [sim options]"; WORKLOAD trace:PATH
# replays a trace. MODES and THREADS (space-separated) narrow the sweep.
set -uo pipefail
gpuvm=$1
cases=${2:-}
modes=${MODES:-off on lagged}
threads=${THREADS:-1 2 3 8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
default_cases() {
	cat <<'LIST'
k80 random-sampling:region=4GiB,reads=16
v100 random-sampling:region=1GiB,reads=16,mem=managed --oversub 125
a100 stream-triad:elems=1048576
h100 stream-triad:elems=1048576,mem=managed --oversub 110
h100-pcie hash-groupby:groups=1000000,input=4000000,chunk=4MiB
p100 hash-groupby:groups=100000,input=2000000,chunk=2MiB
v100 2dconv
a100 gemm:n=256
h100 atax
p100 fdtd-2d
k80 stencil:nx=256,ny=256,nz=16,iters=2
v100 ra
h100 bfs:graph=rmat:scale=13
a100 pagerank:graph=rmat:scale=12
v100 sssp:graph=rmat:scale=12
h100-pcie lud
a100 nw
p100 adi
k80 mis:graph=rmat:scale=12
h100 color:graph=rmat:scale=12
v100 bc:graph=rmat:scale=11
p100 sepo-kv:records=32768
h100 sepo-wc:lines=16384
p100 bigkernel
p100 sl1:app=grep,size=1048576
h100 ubench-stream:kernel=triad,elems=1048576,blocks_per_sm=2,block=64
v100 ubench-atomic:mode=same,steps=16,blocks=80,block=256
h100-pcie trace:traces/accelsim-rodinia-bptree-h100
h100 trace:traces/accelsim-vectoradd
LIST
}
strip() {
	python3 "$(dirname "$0")/report-strip.py" "$1" 2>/dev/null
}
runs=0 diffs=0 errors=0
while read -r gpu wl rest; do
	[ -z "${gpu:-}" ] || [ "${gpu:0:1}" = "#" ] && continue
	if [[ $wl == trace:* ]]; then
		src=(--trace "${wl#trace:}")
	else
		src=(--workload "$wl")
	fi
	for mode in $modes; do
		for t in $threads; do
			out=$work/$t.json
			# shellcheck disable=SC2086 # rest: the case's own options
			if ! "$gpuvm" sim --gpu "$gpu" "${src[@]}" $rest --set core.window="$mode" \
				--threads "$t" --no-outdir --json "$out" >/dev/null 2>"$work/err"; then
				echo "ERROR $gpu $wl $rest window=$mode threads=$t: $(tail -1 "$work/err")"
				errors=$((errors + 1))
				continue
			fi
			runs=$((runs + 1))
			strip "$out" >"$work/$t.txt"
			if [ "$t" != "${threads%% *}" ] &&
				! cmp -s "$work/${threads%% *}.txt" "$work/$t.txt"; then
				echo "DIFF $gpu $wl $rest window=$mode threads=$t"
				diff "$work/${threads%% *}.txt" "$work/$t.txt" | head -6
				diffs=$((diffs + 1))
			fi
		done
	done
done < <(if [ -n "$cases" ]; then cat "$cases"; else default_cases; fi)
echo "$runs runs, $diffs differ from one thread's, $errors failed"
[ "$diffs" = 0 ] && [ "$errors" = 0 ]
