#!/usr/bin/env bash
# Fidelity as one report (issue 33 item 4): runs the seeds' experiments at
# the FIDELITY sizes below and prints ONE table of every effect they check
# -- seed, figure, quantity, paper value, gpuvm value, tolerance, pass --
# magnitudes and signs/orderings alike. Writes OUT/fidelity.csv (loads into
# pandas), OUT/fidelity.md (Markdown) and OUT/durations.csv (each
# experiment's wall time and exit status); each experiment's own output
# (CSVs, figures, log) stays under OUT/<name>/.
#
#   experiments/fidelity.sh [GPUVM_BINARY] [OUT_DIR]      (make fidelity)
#
# Tolerances are issue 33's: slowdown magnitudes +-35 %, speed-ups +-30 %,
# signs and orderings exact. Where a script checks a different band, the
# table's tolerance column says both (`table: ...; script: ...`) and the
# pass column is the issue's band; the script's own verdict is kept in the
# script_pass column.
#
# The rows are collected from each experiment's printed checks (the values
# the scripts print today, parsed from OUT/<name>/log.txt) by
# experiments/fidelity_collect.py; COLLECT_ONLY=1 re-collects from an
# earlier OUT_DIR without running anything.
#
# FIDELITY sizes (fit ~30 minutes on 2 quiet cores; each script's header
# has its full size): the scripts' own scaled defaults, except
#   ganguly_fig4_8   SEEDS=1 (seed 1 only; the paper's ra input)
#   bigkernel_ch4    GPUS=gtx680 (the thesis's GPU only; its chunk sweep in full)
#   sl1_ch5          GPUS=gtx-titan-black (the thesis's GPU only)
#   multi_gpu_scaling TRIAD=elems=2097152,launches=5 JACOBI=n=2048,iters=4
#                    PAGERANK_UNIFORM=...,vertices=65536 PAGERANK_RMAT=rmat-14-16
#                    (a quarter of its own defaults' work or less: its
#                    defaults took 39 s of CPU a triad run)
#   gh200_memory     its own scaled defaults (about 4 CPU minutes)
# Environment: EXPERIMENTS (subset, names as below), STREAMS (experiments
# run at once, default 1), JOBS (per experiment, default 2), NICE (default
# 0; nice level of the runs), COLLECT_ONLY=1, FULL=1 (the scripts' own
# defaults everywhere).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/gpuvm}
out=${2:-out/fidelity}
case $bin in /*) ;; *) bin="$PWD/$bin" ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
all="karnagel_fig1 karnagel_fig10_11 e4_suite ganguly_fig4_8 sepo_ch6 sl1_ch5 bigkernel_ch4 neidty_fig8_11 gh200_memory multi_gpu_scaling"
experiments=${EXPERIMENTS:-$all}
streams=${STREAMS:-1}
export JOBS=${JOBS:-2}
nice_level=${NICE:-0}

run_one() { # name
	local name=$1 dir="$out/$1" start end rc
	mkdir -p "$dir"
	local -a env=()
	if [ -z "${FULL:-}" ]; then
		case $name in
		ganguly_fig4_8) env=(SEEDS=1) ;;
		bigkernel_ch4) env=(GPUS=gtx680) ;;
		sl1_ch5) env=(GPUS=gtx-titan-black) ;;
		multi_gpu_scaling) env=(TRIAD=elems=2097152,launches=5 JACOBI=n=2048,iters=4
			PAGERANK_UNIFORM=graph=uniform,vertices=65536,degree=16,iterations=5
			PAGERANK_RMAT=graph=rmat-14-16,iterations=3) ;;
		esac
	fi
	start=$(date +%s)
	case $name in
	karnagel_fig1 | karnagel_fig10_11)
		env "${env[@]}" OUT="$dir" nice -n "$nice_level" bash "$here/$name.sh" "$bin" >"$dir/log.txt" 2>&1 ;;
	*)
		env "${env[@]}" nice -n "$nice_level" bash "$here/$name.sh" "$bin" "$dir" >"$dir/log.txt" 2>&1 ;;
	esac
	rc=$?
	end=$(date +%s)
	echo "$name,$start,$end,$((end - start)),$rc" >"$dir/duration.csv"
	echo "fidelity: $name done in $((end - start)) s (exit $rc)" >&2
}

if [ -z "${COLLECT_ONLY:-}" ]; then
	[ -x "$bin" ] || { echo "fidelity.sh: $bin: no gpuvm binary (build it: make)" >&2; exit 2; }
	for name in $experiments; do
		[ -f "$here/$name.sh" ] || { echo "fidelity.sh: EXPERIMENTS: unknown experiment '$name' (known: $all)" >&2; exit 2; }
	done
	echo "fidelity: $experiments ($streams at a time, JOBS=$JOBS) into $out" >&2
	running=0
	for name in $experiments; do
		run_one "$name" &
		running=$((running + 1))
		if [ "$running" -ge "$streams" ]; then wait -n; running=$((running - 1)); fi
	done
	wait
fi

echo "experiment,start_unix,end_unix,seconds,exit" >"$out/durations.csv"
for name in $experiments; do
	[ -f "$out/$name/duration.csv" ] && cat "$out/$name/duration.csv" >>"$out/durations.csv"
done
python3 "$here/fidelity_collect.py" "$out" $experiments
