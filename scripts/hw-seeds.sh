#!/usr/bin/env bash
# The seeds' experiments on a real H100/H200 (issue 76 item 6), in about two
# minutes of the machine's time (build included; docs/hardware.md, "The
# seeds' experiments"): Karnagel's random-sampling and group-by region
# sweeps, a managed-memory oversubscription run in Zheng's style and a
# migration-over-iterations run (access counters), all by
# cuda/seeds_driver.cu. CUDA toolkit and a GPU needed; gpuvm's build is not.
#   bash scripts/hw-seeds.sh [all|sampling|groupby|oversub|counters]...
# Writes into $OUT (default out/hw-seeds): the board (nvidia-smi.txt,
# gpu.csv, uvm-params.txt: the nvidia-uvm module's parameters, which say
# whether access counters migrate), one TSV per section (sampling.tsv,
# groupby.tsv, oversub.tsv, counters.tsv) and log.txt.
# Every step runs under `timeout` (seconds: SEEDS_BUILD_S 90, SEEDS_SAMPLING_S
# 45, SEEDS_GROUPBY_S 60, SEEDS_OVERSUB_S 90, SEEDS_COUNTERS_S 45: at most 4
# minutes of runs) and the driver prints each row as it is timed, so a step
# stopped at its limit keeps the rows it finished; the next step still runs.
# Sizes: SEEDS_SAMPLING_ARGS, SEEDS_GROUPBY_ARGS, SEEDS_OVERSUB_ARGS,
# SEEDS_COUNTERS_ARGS are passed to the driver (e.g. SEEDS_OVERSUB_ARGS=
# "budget=4GiB pcts=50,100,125"; cuda/seeds_driver.cu lists the keys).
# Then: python3 scripts/hw-seeds-rows.py --preset h100 --tag TAG $OUT
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-out/hw-seeds}
mkdir -p "$OUT"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
bin=${SEEDS_BIN:-$(mktemp -d)}
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$OUT/log.txt" >&2; }
[ $# -gt 0 ] || set -- all
steps=" $* "
[ "$steps" = " all " ] && steps=" sampling groupby oversub counters "

nvidia-smi -q >"$OUT/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max,clocks.max.sm,clocks.max.mem,clocks.sm \
	--format=csv >"$OUT/gpu.csv" 2>&1
"$NVCC" --version | tail -2 >>"$OUT/gpu.csv"
# access-counter migration is a module parameter (uvm_perf_access_counter_*):
# -1 is the driver's default policy, which migrates on counters only on
# systems with ATS (not on x86 with PCIe); recorded, never changed here
grep -H . /sys/module/nvidia_uvm/parameters/* >"$OUT/uvm-params.txt" 2>/dev/null ||
	echo "nvidia_uvm parameters not readable" >"$OUT/uvm-params.txt"
git rev-parse HEAD >"$OUT/commit.txt" 2>/dev/null

log "building cuda/seeds_driver.cu"
if ! timeout "${SEEDS_BUILD_S:-90}" "$NVCC" -O3 -arch=sm_90 -std=c++14 -Iinclude \
	-o "$bin/seeds_driver" cuda/seeds_driver.cu 2>>"$OUT/log.txt"; then
	log "build failed (log.txt)"
	exit 1
fi

status=0
run() { # SECTION LIMIT_S ARGS...
	local s=$1 limit=$2
	shift 2
	case "$steps" in *" $s "*) ;; *) return 0 ;; esac
	log "$s (limit ${limit} s) $*"
	local t0=$SECONDS
	# append: a rerun of one section adds to what an earlier run left
	timeout "$limit" "$bin/seeds_driver" "$s" "$@" >>"$OUT/$s.tsv" 2>>"$OUT/log.txt"
	local rc=$?
	[ $rc -eq 0 ] || status=1
	[ $rc -eq 124 ] && echo "# stopped: timeout after $limit s" >>"$OUT/$s.tsv"
	log "$s: exit $rc after $((SECONDS - t0)) s, $(grep -vc '^#\|^experiment' "$OUT/$s.tsv") rows in $s.tsv"
}
# word splitting of the *_ARGS is wanted: key=value words
# shellcheck disable=SC2086
{
	run sampling "${SEEDS_SAMPLING_S:-45}" ${SEEDS_SAMPLING_ARGS:-}
	run groupby "${SEEDS_GROUPBY_S:-60}" ${SEEDS_GROUPBY_ARGS:-}
	run oversub "${SEEDS_OVERSUB_S:-90}" ${SEEDS_OVERSUB_ARGS:-}
	run counters "${SEEDS_COUNTERS_S:-45}" ${SEEDS_COUNTERS_ARGS:-}
}
log "done (status $status)"
exit $status
