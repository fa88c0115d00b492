#!/usr/bin/env bash
# gpuvm sim --threads 1 against --threads 2 on the SIMT kernels of issue
# 21's speed table: wall and CPU seconds (user + system), --threads 1 and 2
# alternated, median of REPS (default 3), and the wall ratio t1 / t2. Then,
# unless NO_PROFILE=1, REPS --threads 2 runs each with GPUVM_THREADS_PROFILE=1
# (docs/simt.md): the timing thread's CPU, all threads' CPU, and the wall
# time two idle cores would take from those CPU times (the serial part plus
# the rest on two cores; wake-up latencies left out), against the
# --threads 1 CPU time (what a loaded machine cannot show in wall time).
# Wall ratios mean something only on a quiet machine: the load average is
# printed before and after.
# usage: threads-speed.sh GPUVM [REPS] [WORKLOAD...]
set -uo pipefail
bin=$(realpath "$1")
reps=${2:-3}
shift $(($# < 2 ? $# : 2))
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(hotspot 2dconv:n=2048 srad stream-triad-simt:elems=8388608
	lud:n=512 pathfinder bfs:graph=rmat-16)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# one run: prints "wall cpu"
run() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$bin" sim --gpu p100 --workload "$1" -q \
		--threads "$2" --json "$tmp/run.json" >/dev/null 2>"$tmp/err" || {
		echo "gpuvm failed on $1 --threads $2: $(cat "$tmp/err")" >&2
		exit 1
	}
	awk '{printf "%s %.2f\n", $1, $2 + $3}' "$tmp/time"
}

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
echo "load before: $(uptime | sed 's/.*load average: //')"
printf '| %s | %s | %s | %s | %s | %s |\n' workload "wall t1 s" "wall t2 s" "t1/t2" "CPU t1 s" "CPU t2 s"
printf '|---|---|---|---|---|---|\n'
for w in "${workloads[@]}"; do
	: >"$tmp/1"
	: >"$tmp/2"
	for ((i = 0; i < reps; i++)); do
		run "$w" 1 >>"$tmp/1"
		run "$w" 2 >>"$tmp/2"
	done
	w1=$(cut -d' ' -f1 "$tmp/1" | median)
	w2=$(cut -d' ' -f1 "$tmp/2" | median)
	c1=$(cut -d' ' -f2 "$tmp/1" | median)
	c2=$(cut -d' ' -f2 "$tmp/2" | median)
	printf '| `%s` | %s | %s | %.2fx | %s | %s |\n' "$w" "$w1" "$w2" "$(echo "$w1 / $w2" | bc -l)" "$c1" "$c2"
	echo "$w $c1" >>"$tmp/cpu1"
done
echo "load after: $(uptime | sed 's/.*load average: //')"
[ "${NO_PROFILE:-0}" = 1 ] && exit 0

echo
echo "--threads 2 with GPUVM_THREADS_PROFILE=1, median of $reps (predicted: two idle cores, from CPU times; a lower bound, docs/simt.md)"
printf '| %s | %s | %s | %s | %s | %s | %s |\n' workload "CPU t1 s (median)" "timing thread CPU s" "all threads CPU s" \
	"max(timing, all / 2) s" "predicted wall t2 s" "CPU t1 / predicted"
printf '|---|---|---|---|---|---|---|\n'
while read -r w c1; do
	: >"$tmp/prof"
	for ((i = 0; i < reps; i++)); do
		GPUVM_THREADS_PROFILE=1 "$bin" sim --gpu p100 --workload "$w" -q --threads 2 --json "$tmp/run.json" \
			>/dev/null 2>>"$tmp/prof"
	done
	eng=$(sed -n 's/.*engine cpu \([0-9.]*\) s.*/\1/p' "$tmp/prof" | median)
	all=$(sed -n 's/.*; cpu \([0-9.]*\) s;.*/\1/p' "$tmp/prof" | median)
	pred=$(sed -n 's/.*predicted 2-core wall \([0-9.]*\) s.*/\1/p' "$tmp/prof" | median)
	bound=$(echo "$eng $all" | awk '{printf "%.3f", ($1 > $2 / 2 ? $1 : $2 / 2)}')
	printf '| `%s` | %s | %s | %s | %s | %s | %.2fx |\n' "$w" "$c1" "$eng" "$all" "$bound" "$pred" \
		"$(echo "$c1 / $pred" | bc -l)"
done <"$tmp/cpu1"
