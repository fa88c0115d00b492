#!/usr/bin/env bash
# Every prefetcher x every eviction policy at 125 % oversubscription for
# one workload, in one command (issue 5, E4): a table on stdout, the CSV
# and a figure (runtime per eviction policy, one line per prefetcher).
#
#   experiments/uvm_policy_sweep.sh [GPUVM_BINARY] [OUT_DIR]
#
# Environment: GPU (default gtx1080ti-uvmsmart), WORKLOAD (default random
# sampling over 8 MiB of managed memory), OVERSUB (default 125), JOBS (2),
# Y (the plotted metric, default uvm_posthoc_total_seconds: the run's time
# with its far faults' latency, which the default preset adds after the run
# as UVMSmart does and which is the run's own time on a preset that times
# it; e.g. uvm_thrashed_pages).
set -euo pipefail
bin=${1:-build/gpuvm}
out=${2:-out/uvm_policy}
gpu=${GPU:-gtx1080ti-uvmsmart}
workload=${WORKLOAD:-random-sampling:region=8MiB,reads=4,mem=managed}
oversub=${OVERSUB:-125}
jobs=${JOBS:-2}
y=${Y:-uvm_posthoc_total_seconds}
mkdir -p "$out"

prefetchers=none,random,seq-local,locality,tree-uvmsmart,tree-driver
evictions=lru-2mb-alloc,lru-2mb-access,lru-4kb,random-4kb,sl-64kb,tree,lfu-2mb

# The preset may switch prefetchers once eviction starts (gtx1080ti-uvmsmart:
# uvm.prefetcher_oversub = tree-uvmsmart, as UVMSmart does); that would
# replace the swept prefetcher at the first eviction and draw six copies of
# one line, so the switch is turned off here and each prefetcher runs
# throughout (an empty uvm.prefetcher_oversub keeps uvm.prefetcher).
plot=(--plot "$out/policies.png" --x uvm.eviction --y "$y" --logy
      --title "Prefetcher x eviction policy at $oversub % oversubscription (uvm.prefetcher_oversub off: each prefetcher runs throughout)")
command -v gnuplot >/dev/null || { echo "gnuplot not found: CSV only" >&2; plot=(); }

"$bin" sweep --gpu "$gpu" --workload "$workload" --oversub "$oversub" --set uvm.prefetcher_oversub= \
	--vary uvm.prefetcher=$prefetchers --vary uvm.eviction=$evictions \
	-j "$jobs" --csv "$out/policies.csv" "${plot[@]}"

echo "CSV: $out/policies.csv${plot:+; figure: $out/policies.png}"
