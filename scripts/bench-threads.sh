#!/usr/bin/env bash
# Wall-time and CPU speed-up of --threads on issue 34's rows: the device
# rows (random sampling p100/k80, the triad, managed at 125 %), bfs,
# pagerank, the SIMT triad and a trace replay (the repository's b+tree
# trace), each at --threads 1 and N, medians of REPEAT runs, with the
# profile (serial fraction, predicted speed-up at 8/32/64 cores).
# Run it on a quiet machine: wall times on a loaded host say more about the
# load than about gpuvm (CPU times stay comparable).
# usage: scripts/bench-threads.sh [GPUVM] [--small] [--window] [--threads N] [--repeat R]
#                                 [--json FILE]
#   GPUVM    the binary (default: build/gpuvm beside this script's repository)
#   --small  small sizes: seconds, to check the script works (not a benchmark)
#   --window every run with core.window = on (its barriers on two threads
#            where they split; docs/parallel.md)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpuvm=$root/build/gpuvm
if [ $# -gt 0 ] && [ "${1:0:1}" != "-" ]; then
	gpuvm=$1
	shift
fi
threads=2 repeat=3 small="" window="" json=""
while [ $# -gt 0 ]; do
	case $1 in
	--small) small=--small ;;
	--window) window=--window ;;
	--threads) threads=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--json) json="--json $2"; shift ;;
	*) echo "bench-threads.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$gpuvm" ] || { echo "bench-threads.sh: no gpuvm binary at $gpuvm" >&2; exit 2; }
trace=$root/traces/accelsim-rodinia-bptree-h100
echo "gpuvm: $gpuvm ($("$gpuvm" --version 2>/dev/null | head -1))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# shellcheck disable=SC2086 # small, window and json hold options or nothing
"$gpuvm" bench --threads "$threads" --repeat "$repeat" --profile --trace "$trace" $small $window \
	$json
