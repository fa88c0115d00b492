#!/usr/bin/env bash
# A chase's DRAM latency under a stream's load in the simulator, the curve
# cuda/hwbench.cu's `loaded` section measures on a board (docs/hardware.md,
# "The DRAM side of a warp's load"). ubench-loaded's streamers do a fixed
# amount of work, so each point is three runs: the chase alone (its
# latency L and the kernel's overhead o = T - steps x L, from steps and
# 2 x steps), the stream alone (T_s: it streamed for T_s - o) and both
# (T_b: the chase did steps - (T_b - T_s) / L steps while the stream ran).
#   scripts/loaded-latency.sh GPUVM PRESET MODE WARPS_PER_CTA... [-- --set K=V ...]
# MODE read|copy|copyl2|copyfroml2; two CTAs per SM, so the streaming warps per SM are
# twice WARPS_PER_CTA. Prints: preset mode warps/SM unloaded loaded GB/s.
set -euo pipefail
gpuvm=$1 preset=$2 mode=$3
shift 3
warps=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do warps+=("$1"); shift; done
[ $# -gt 0 ] && shift
steps=${STEPS:-8192} stream=${STREAM:-512MiB}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cycles() { # workload -> the last kernel's cycles (and the clock in $tmp/mhz)
	"$gpuvm" sim --gpu "$preset" "$@" --json "$tmp/r.json" >/dev/null
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); k=d['kernels'][-1]
open(sys.argv[2], 'w').write(str(d['config']['gpu.clock_mhz'])); print(k['end_cycle']-k['start_cycle'])" "$tmp/r.json" "$tmp/mhz"
}
for w in "${warps[@]}"; do
	wl="ubench-loaded:warps=$w,mode=$mode"
	c1=$(cycles "$@" --workload "$wl,stream=0,steps=$steps")
	c2=$(cycles "$@" --workload "$wl,stream=0,steps=$((2 * steps))")
	ts=$(cycles "$@" --workload "$wl,stream=$stream,steps=0")
	tb=$(cycles "$@" --workload "$wl,stream=$stream,steps=$steps")
	python3 - "$preset" "$mode" "$w" "$steps" "$stream" "$(cat "$tmp/mhz")" "$c1" "$c2" "$ts" "$tb" <<'PY'
import re, sys
preset, mode, w, steps, stream, mhz = sys.argv[1:7]
c1, c2, ts, tb = map(float, sys.argv[7:11])
steps = int(steps)
lat = (c2 - c1) / steps
over = c1 - steps * lat
done = steps - (tb - ts) / lat
streamed = ts - over
m = re.fullmatch(r"(\d+)(MiB|GiB)", stream)
nbytes = int(m.group(1)) << (20 if m.group(2) == "MiB" else 30)
ok = 0 < done < steps
loaded = f"{streamed / done:.1f}" if ok else "nan"
gbs = nbytes / (streamed / (float(mhz) * 1e6)) / 1e9
print(f"{preset} {mode} {2 * int(w)} {lat:.1f} {loaded} {gbs:.0f}")
PY
done
