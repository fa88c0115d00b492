#!/usr/bin/env bash
# Parsed trace kernels cached (issue 34 item 3): a kernelslist that names
# one kernel file many times parses it once (GPUVM_TRACE_CACHE_LOG counts),
# with JSON identical to the uncached replay (GPUVM_TRACE_CACHE=0) at
# --threads 1 and 2, for lists with and without cudaMalloc lines (inferred
# allocations) and managed replays; two paths to one file are two entries.
# (kernel_cache's identity and bounds: tests/test_kernel_cache.c.)
# usage: trace_cache.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
BPT="$SRC/traces/accelsim-rodinia-bptree-h100"
VA="$SRC/traces/accelsim-vectoradd"
[ -d "$BPT" ] && [ -d "$VA" ] || { echo "FAIL: traces missing under $SRC/traces"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-trace-cache.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
nowall() { grep -v -e wall "$1"; }

mkdir rep va
cp "$BPT"/*.traceg rep/
k1=kernel-1-ctx_0x5607b0e17740.traceg
k2=kernel-2-ctx_0x5607b0e17740.traceg
{ head -2 "$BPT/kernelslist.g"; for _ in 1 2 3; do echo $k1; echo $k2; done; } >rep/kernelslist.g
cp "$VA"/kernel-1.traceg va/
{ cat "$VA/kernelslist.g"; echo kernel-1.traceg; echo kernel-1.traceg; } >va/kernelslist.g

# case NAME GPU DIR PARSED FROM_CACHE [sim options]
case_() {
	local name=$1 gpu=$2 dir=$3 parsed=$4 cached=$5 f0=$failures
	shift 5
	for t in 1 2; do
		GPUVM_TRACE_CACHE_LOG=1 "$GPUVM" sim --gpu "$gpu" --trace "$dir" --threads $t \
			--json "c$t.json" -q "$@" 2>"err$t.txt" || fail "$name --threads $t: exit $?"
		GPUVM_TRACE_CACHE=0 "$GPUVM" sim --gpu "$gpu" --trace "$dir" --threads $t \
			--json "u$t.json" -q "$@" 2>/dev/null || fail "$name uncached --threads $t: exit $?"
		grep -q '"thread_accesses"' "c$t.json" || { fail "$name: no report"; return; }
		diff <(nowall "c$t.json") <(nowall "u$t.json") >/dev/null ||
			fail "$name --threads $t: cached JSON differs from the uncached replay"
		grep -q " $parsed parsed, $cached from the cache" "err$t.txt" ||
			fail "$name --threads $t: expected $parsed parsed, $cached cached: $(cat "err$t.txt")"
	done
	[ $failures -eq $f0 ] && echo "ok - $name"
}
case_ "bptree x3 (6 launches, 2 files)" h100 rep 2 4
case_ "bptree x3 managed" h100 rep 2 4 --trace-managed
case_ "vectoradd x3, inferred allocations" p100 va 1 2
case_ "vectoradd x3 managed" p100 va 1 2 --trace-managed

# a list naming two paths to one file (hard links, one inode) parses each
# path once
ln va/kernel-1.traceg va/kernel-1b.traceg
{ cat "$VA/kernelslist.g"; echo kernel-1b.traceg; echo kernel-1.traceg; } >va/kernelslist.g
GPUVM_TRACE_CACHE_LOG=1 "$GPUVM" sim --gpu p100 --trace va --json l.json -q 2>err.txt ||
	fail "hard link: exit $?"
if grep -q " 2 parsed, 1 from the cache" err.txt; then
	echo "ok - two paths to one file: one parse each"
else
	fail "hard link: $(cat err.txt)"
fi

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all trace cache checks passed"
