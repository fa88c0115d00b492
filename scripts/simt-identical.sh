#!/usr/bin/env bash
# Runs SIMT workloads on two gpuvm binaries and compares their JSON reports
# (wall-time fields and the commit aside) and error output: a change to the
# executor must leave every result bit-identical.
# usage: [SUBSET=1] simt-identical.sh BASE_GPUVM NEW_GPUVM [CASES_FILE]
# CASES_FILE: lines "GPU WORKLOAD [sim options]"; default: the list below.
# SUBSET=1: NEW may add keys (a change that adds counters or fields):
# every key of BASE's JSON must be in NEW's with the same value.
set -uo pipefail
base=$1 new=$2
cases=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
default_cases() {
	cat <<'LIST'
p100 stream-triad-simt:elems=4194304
p100 stream-triad-simt:elems=1000003,block=96
p100 stream-triad-simt:elems=2000000,mem=managed --oversub 125
p100 bfs:graph=rmat:scale=15
p100 bfs:vertices=100000
k80 bfs:graph=rmat:scale=14,mem=managed
p100 pagerank:graph=rmat:scale=14
p100 pagerank:graph=rmat:scale=13,mem=managed --oversub 125
p100 sssp:graph=rmat:scale=14
p100 hotspot
p100 sl1:app=wc,size=2097152
p100 sl1:app=mm,size=128
p100 sl1:app=kmeans,size=8192
p100 sl1:app=ii,size=1048576
p100 sl1:app=pvc,size=1048576,sl1=0
p100 sepo-pvc:records=65536
p100 sepo-wc:lines=32768
p100 sepo-kv:records=32768,org=multi
p100 sepo-ii:records=32768
p100 mis:graph=rmat:scale=13
p100 color:graph=rmat:scale=13
p100 bc:graph=rmat:scale=12
p100 pathfinder
p100 srad
p100 backprop
p100 nw
p100 lud
p100 adi
p100 2dconv
p100 atax
p100 fdtd-2d
p100 stencil:nx=256,ny=256,nz=16,iters=2
p100 ra
p100 ubench
p100 scalarprod
p100 fwt
# barrier kernels on worker threads (a warp pulled past a barrier early)
p100 hotspot --threads 3
p100 srad --threads 3
p100 backprop --threads 3
p100 nw --threads 3
p100 lud --threads 3
p100 pathfinder --threads 3
p100 scalarprod --threads 3
p100 fwt --threads 3
p100 sl1:app=kmeans,size=8192 --threads 3
gtx-titan-black sl1:app=kmeans,sl1=0,size=16384,block=256,tps=2048 --set smem.size=48KiB --set l1.fill=line --set l1.global_loads=uncached
gtx-titan-black sl1:app=kmeans,sl1=1,size=16384,block=256,tps=2048 --set smem.size=48KiB --set l1.fill=line --set l1.global_loads=uncached --threads 3
LIST
}
strip() {
	python3 "$(dirname "$0")/report-strip.py" "$1" 2>/dev/null
}
# NEW's JSON cut to BASE's keys (a key BASE has and NEW lacks shows as
# "<missing>"): what SUBSET=1 compares
project() {
	python3 -c '
import json, sys
def p(b, n):
    if isinstance(b, dict):
        if not isinstance(n, dict):
            return n
        return {k: p(v, n[k]) if k in n else "<missing>" for k, v in b.items()}
    if isinstance(b, list) and isinstance(n, list) and len(b) == len(n):
        return [p(x, y) for x, y in zip(b, n)]
    return n
b = json.load(open(sys.argv[1]))
n = json.load(open(sys.argv[2]))
print(json.dumps(p(b, n), indent=1, sort_keys=True))' "$1" "$2" 2>/dev/null
}
status=0
while read -r gpu wl extra; do
	[ -z "$gpu" ] || [ "${gpu:0:1}" = "#" ] && continue
	for side in base new; do
		bin=${!side}
		# shellcheck disable=SC2086 # extra holds options
		"$bin" sim --gpu "$gpu" --workload "$wl" $extra --quiet --json "$work/$side.json" \
			>/dev/null 2>"$work/$side.err"
		echo "rc=$?" >>"$work/$side.err"
		strip "$work/$side.json" >"$work/$side.out"
		grep -v wall "$work/$side.err" >"$work/$side.msg"
	done
	if [ "${SUBSET:-0}" = 1 ]; then
		strip "$work/base.json" >"$work/base.strip.json"
		strip "$work/new.json" >"$work/new.strip.json"
		project "$work/base.strip.json" "$work/new.strip.json" >"$work/new.out"
	fi
	if [ -s "$work/base.out" ] && cmp -s "$work/base.out" "$work/new.out" &&
		cmp -s "$work/base.msg" "$work/new.msg"; then
		echo "same  $gpu $wl $extra"
	else
		echo "DIFF  $gpu $wl $extra"
		status=1
	fi
	rm -f "$work"/*.json
done < <(if [ -n "$cases" ]; then cat "$cases"; else default_cases; fi)
exit $status
