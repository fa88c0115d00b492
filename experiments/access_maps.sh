#!/usr/bin/env bash
# Ganguly et al. IPDPS'20 Fig. 2-3 (seeds/004 SIII-B): per-allocation page
# access maps of a regular (fdtd-2d) and an irregular (sssp) application,
# both on UVMSmart's inputs in managed memory on the gtx1080ti-uvmsmart
# preset, and a table of the numbers behind the contrast.
#
#   experiments/access_maps.sh [GPUVM_BINARY] [OUT_DIR]
#
# Writes OUT_DIR/{fdtd2d,sssp}.{png,csv,json} (default out/access) and
# prints, per allocation: pages, page accesses per page (hot vs cold),
# whether it was written, and contiguity (the touched share of the span of
# page rows touched in each time bucket, averaged over the buckets: 1 for a
# dense sequential sweep, lower for scattered accesses).
# sssp runs UVMSmart's MAX_ITERATION = 15 kernel pairs (max_iter=15).
set -euo pipefail
bin=${1:-build/gpuvm}
out=${2:-out/access}
gpu=${GPU:-gtx1080ti-uvmsmart}
mkdir -p "$out"
command -v gnuplot >/dev/null || echo "gnuplot not found: no PNGs, CSV and JSON only" >&2

"$bin" sim --gpu "$gpu" --workload fdtd-2d:n=1200,steps=5,mem=managed --page-map "$out/fdtd2d" >/dev/null
"$bin" sim --gpu "$gpu" --workload sssp:mem=managed,max_iter=15 --page-map "$out/sssp" >/dev/null

for name in fdtd2d sssp; do
	echo "== $name ($out/$name.png)"
	awk -F, 'NR > 1 {
		a = $1; acc[a] += $10; if ($13) w[a] = 1
		if (!((a, $4) in seen)) { seen[a, $4] = 1; pages[a] += $6 }
		k = a SUBSEP $7
		if (!(k in lo) || $4 < lo[k]) lo[k] = $4
		if (!(k in hi) || $4 > hi[k]) hi[k] = $4
		n[k]++
		if (!(a in order)) { order[a] = ++na; names[na] = a }
	}
	END {
		for (k in n) { split(k, p, SUBSEP); c[p[1]] += n[k] / (hi[k] - lo[k] + 1); b[p[1]]++ }
		printf "%-16s %8s %14s %8s %11s\n", "allocation", "pages", "accesses/page", "written", "contiguity"
		for (i = 1; i <= na; i++) { a = names[i]
			printf "%-16s %8d %14.1f %8s %11.2f\n", a, pages[a], acc[a] / pages[a],
			       w[a] ? "yes" : "no", c[a] / b[a] }
	}' "$out/$name.csv"
done
