#!/usr/bin/env bash
# Measures the real GPU of this machine with gpuvm's own kernels (CUDA
# toolkit and a GPU needed; gpuvm's build is not): the board's description,
# cuda/hwbench.cu's calibration rows and kernel durations (under ncu, as
# nsys times them), and cuda/tlb_probe.cu's property chase. Writes into
# $OUT (default out/hw); docs/hardware.md says what each file holds and
# how the measurements of record were taken.
#   bash scripts/hw-measure.sh [all|bench|mt4g|durations|tlb] [tlb_probe share args...]
# Each step runs under `timeout` (HW_STEP_S seconds, default 240), so that a
# step that hangs on a lent machine leaves the others' files behind.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/hw}
mkdir -p "$OUT"
what=${1:-all}
STEP_S=${HW_STEP_S:-240}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
bin=$(mktemp -d)
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

nvidia-smi -q >"$OUT/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit \
	--format=csv >"$OUT/gpu.csv" 2>&1
"$NVCC" --version | tail -2 >>"$OUT/gpu.csv"
log "building"
"$NVCC" -O3 -arch=sm_90 -std=c++14 -Iinclude -o "$bin/hwbench" cuda/hwbench.cu || exit 1
"$NVCC" -O2 -arch=sm_90 -o "$bin/tlb_probe" cuda/tlb_probe.cu || exit 1
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
# the op chains' SASS: which instruction each latency row timed
"$CUOBJDUMP" -sass "$bin/hwbench" 2>&1 | awk '/Function :/{f=$3} /FFMA|IMAD|DFMA|MUFU|LDG|LDS|ATOMG|RED/{split($0,a,"[*]/");split(a[2],b," ");print f, b[1]}' |
	sort | uniq -c >"$OUT/sass-ops.txt"
status=0
if [ "$what" = all ] || [ "$what" = bench ]; then
	log "hwbench all"
	timeout "$STEP_S" "$bin/hwbench" all >"$OUT/hwbench.tsv" || status=1
fi
if [ "$what" = all ] || [ "$what" = mt4g ]; then
	# its own process: the section resets the device (MT4G's fresh context)
	log "hwbench mt4g"
	timeout "$STEP_S" "$bin/hwbench" mt4g >"$OUT/mt4g.tsv" || status=1
fi
if [ "$what" = all ] || [ "$what" = durations ]; then
	log "durations under ncu"
	# --clock-control none: the board's own boost, as nsys sees it;
	# --cache-control none: no flush between kernels, as in a plain run
	timeout "$STEP_S" "$NCU" --clock-control none --cache-control none --metrics gpu__time_duration.sum \
		--csv "$bin/hwbench" durations >"$OUT/durations.csv" 2>"$OUT/ncu.log" || status=1
fi
if [ "$what" = all ] || [ "$what" = tlb ]; then
	log "tlb_probe chase"
	timeout "$STEP_S" "$bin/tlb_probe" chase >"$OUT/tlb_chase.csv" || status=1
fi
if [ "$what" = share ]; then
	shift
	while [ $# -ge 2 ]; do
		log "tlb_probe share --stride $1 --hops $2"
		timeout "$STEP_S" "$bin/tlb_probe" share --stride "$1" --hops "$2" >>"$OUT/tlb_share.csv" || status=1
		shift 2
	done
fi
log "done (status $status)"
exit $status
