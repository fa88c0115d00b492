#!/usr/bin/env bash
# Wall-time and CPU speed-up of --threads on issue 34's rows: the device
# rows (random sampling p100/k80, the triad, managed at 125 %), bfs,
# pagerank, the SIMT triad and a trace replay (the repository's b+tree
# trace), each at --threads 1 and N, medians of REPEAT runs, with the
# profile (serial fraction, predicted speed-up at 8/32/64 cores).
# Run it on a quiet machine: wall times on a loaded host say more about the
# load than about gpuvm (CPU times stay comparable).
# usage: scripts/bench-threads.sh [GPUVM] [--small] [--window] [--threads N] [--repeat R]
#                                 [--trace-repeat K] [--json FILE]
#   GPUVM    the binary (default: build/gpuvm beside this script's repository)
#   --small  small sizes: seconds, to check the script works (not a benchmark)
#   --window every run with core.window = on (its barriers on two threads
#            where they split; docs/parallel.md)
#   --trace-repeat K  replay the trace's list K times over, each kernel file
#            copied for each launch, as Accel-Sim's tracer writes a file per
#            launch (b+tree's two launches take 0.05 s; at K = 20, 40
#            launches, the reader thread parses one while the engine replays
#            the one before; a file named again would be parsed once, from
#            the kernel cache, leaving that thread nothing to do)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpuvm=$root/build/gpuvm
if [ $# -gt 0 ] && [ "${1:0:1}" != "-" ]; then
	gpuvm=$1
	shift
fi
threads=2 repeat=3 small="" window="" json="" trace_repeat=""
while [ $# -gt 0 ]; do
	case $1 in
	--small) small=--small ;;
	--window) window=--window ;;
	--threads) threads=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--trace-repeat) trace_repeat=$2; shift ;;
	--json) json="--json $2"; shift ;;
	*) echo "bench-threads.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$gpuvm" ] || { echo "bench-threads.sh: no gpuvm binary at $gpuvm" >&2; exit 2; }
trace=$root/traces/accelsim-rodinia-bptree-h100
if [ -n "$trace_repeat" ]; then
	case $trace_repeat in
	*[!0-9]* | 0) echo "bench-threads.sh: --trace-repeat takes a whole number from 1" >&2; exit 2 ;;
	esac
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	for ((r = 1; r <= trace_repeat; r++)); do
		while IFS= read -r line || [ -n "$line" ]; do
			case $line in
			*.traceg | *.traceg.xz)
				cp "$trace/$line" "$work/r$r-$line"
				echo "r$r-$line" ;;
			*) echo "$line" ;;
			esac
		done < "$trace/kernelslist.g"
	done > "$work/kernelslist.g"
	trace=$work
fi
echo "gpuvm: $gpuvm ($("$gpuvm" --version 2>/dev/null | head -1))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# shellcheck disable=SC2086 # small, window and json hold options or nothing
"$gpuvm" bench --threads "$threads" --repeat "$repeat" --profile --trace "$trace" $small $window \
	$json
