#!/usr/bin/env bash
# Multi-GPU scaling on DGX H100 (issue 78): the data-parallel STREAM triad
# (triad-mgpu) and the 2D Jacobi stencil with halo exchange (jacobi-mgpu)
# on 1, 2, 4 and 8 of dgx-h100-8's GPUs (the sub-systems
# dgx-h100-8:gpus=N: the first N GPUs on the same NVSwitch), and the same
# stencil with its halos staged through host memory (nvlink=off: no
# GPU-GPU link, each halo a device-to-host then a host-to-device copy over
# the two GPUs' PCIe links). The same total work at every count (strong
# scaling). And a graph kernel partitioned over GPUs: pagerank-mgpu (pull
# PageRank, vertex ranges per GPU, ranks all-gathered every iteration) on
# a uniform graph and on an R-MAT graph, whose hubs each land on one GPU
# and one thread. A CSV and, with gnuplot, a figure of the speed-up over one
# GPU; the simulator's own CPU time per run is a column.
#
#   experiments/multi_gpu_scaling.sh [GPUVM_BINARY] [OUT_DIR]
#
# Environment: TRIAD (default elems=4194304,launches=20), JACOBI (default
# n=4096,iters=4), PAGERANK_UNIFORM (default
# graph=uniform,vertices=262144,degree=16,iterations=5), PAGERANK_RMAT
# (default graph=rmat-16-16,iterations=3), GPUS (default "1 2 4 8").
# About 6 CPU minutes.
#
# What this shows is the model's, not hardware's: kernels of different
# GPUs overlap fully (nothing shared), a peer copy costs the part's
# measured cudaMemcpy fixed time (h100: 9.62 us) plus its bytes at the
# NVLink rate (450 GB/s per direction per GPU through NVSwitch, raw), and
# the host's launch calls (3.51 us each on h100) are serial: one host
# thread launches on every GPU, which bounds the speed-up of short
# kernels (a real code would launch from a thread per GPU). No measured
# multi-GPU scaling curve is compared yet (docs/systems.md).
set -euo pipefail
bin=$(realpath "${1:-build/gpuvm}")
out=${2:-out/multi_gpu_scaling}
triad=${TRIAD:-elems=4194304,launches=20}
jacobi=${JACOBI:-n=4096,iters=4}
pr_uniform=${PAGERANK_UNIFORM:-graph=uniform,vertices=262144,degree=16,iterations=5}
pr_rmat=${PAGERANK_RMAT:-graph=rmat-16-16,iterations=3}
gpus_list=${GPUS:-1 2 4 8}
mkdir -p "$out"
csv=$out/scaling.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field() { # JSON KEY: a top-level number of a report
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$1" "$2"
}

echo "case,workload,system,gpus,phase_seconds,speedup,sim_seconds,peer_nvlink_bytes,peer_host_bytes,cpu_seconds,result" >"$csv"
run() { # CASE WORKLOAD SYSTEM_MODIFIERS
	local case=$1 wl=$2 mods=$3 base=""
	for g in $gpus_list; do
		local sys="dgx-h100-8:gpus=$g$mods"
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" sim --system "$sys" --workload "$wl" \
			--json "$tmp/r.json" --quiet
		local sim cpu res phase
		sim=$(field "$tmp/r.json" sim_seconds)
		cpu=$(awk '{ print $1 + $2 }' "$tmp/time")
		res=$(field "$tmp/r.json" result)
		phase=$(echo "$res" | sed -n 's/.*\(kernel\|sweep\|iter\)_seconds=\([0-9.e+-]*\).*/\2/p')
		[ -n "$base" ] || base=$phase
		# the workload and system specs hold commas: quoted
		printf '%s,"%s","%s",%s,%s,%s,%s,%s,%s,%s,"%s"\n' "$case" "$wl" "$sys" "$g" "$phase" \
			"$(awk -v a="$base" -v b="$phase" 'BEGIN { print a / b }')" "$sim" \
			"$(field "$tmp/r.json" peer_nvlink_bytes)" "$(field "$tmp/r.json" peer_host_bytes)" \
			"$cpu" "$res" >>"$csv"
		echo "$g $(awk -v a="$base" -v b="$phase" 'BEGIN { print a / b }')" >>"$tmp/$case.dat"
		echo "$case gpus=$g: $phase s parallel phase, $sim s run, $cpu s CPU ($res)" >&2
	done
}
run triad "triad-mgpu:$triad" ""
run jacobi-nvlink "jacobi-mgpu:$jacobi" ""
run jacobi-host "jacobi-mgpu:$jacobi" ",nvlink=off"
run pagerank-uniform "pagerank-mgpu:$pr_uniform" ""
run pagerank-rmat "pagerank-mgpu:$pr_rmat" ""

cat "$csv"
if command -v gnuplot >/dev/null; then
	gnuplot <<EOF
set terminal pngcairo size 800,520
set output "$out/scaling.png"
set title "dgx-h100-8: speed-up of the parallel phase over one GPU (same total work)"
set xlabel "GPUs"
set ylabel "speed-up"
set logscale x 2
set key top left
set grid
plot "$tmp/triad.dat" using 1:2 with linespoints title "triad-mgpu ($triad)", \
     "$tmp/jacobi-nvlink.dat" using 1:2 with linespoints title "jacobi-mgpu ($jacobi), halos over NVSwitch", \
     "$tmp/jacobi-host.dat" using 1:2 with linespoints title "jacobi-mgpu, halos through the host", \
     "$tmp/pagerank-uniform.dat" using 1:2 with linespoints title "pagerank-mgpu, uniform graph", \
     "$tmp/pagerank-rmat.dat" using 1:2 with linespoints title "pagerank-mgpu, R-MAT graph", \
     x with lines dashtype 2 title "ideal"
EOF
	echo "CSV: $csv; figure: $out/scaling.png"
else
	echo "gnuplot not found: CSV only ($csv)"
fi
