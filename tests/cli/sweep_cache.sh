#!/usr/bin/env bash
# sweep --cache DIR: a point run before is read back, not simulated, and
# gives the same row; a changed config, seed or workload is a new point;
# an unusable DIR is bad input; a corrupt entry is recomputed.
# usage: sweep_cache.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sweep-cache-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

A=(--gpu p100,k80 --workload random-sampling:threads=1024,reads=8 --vary workload.region=32MiB,1GiB)
"$GPUVM" sweep "${A[@]}" --cache cache --csv one.csv -q
[ "$(ls cache | wc -l)" -eq 4 ] || fail "expected 4 cache entries: $(ls cache)"
"$GPUVM" sweep "${A[@]}" --cache cache --csv two.csv 2> err.txt > /dev/null
grep -q -- "--cache: 4 of 4 points from cache" err.txt || fail "no cache hits: $(cat err.txt)"
cmp -s one.csv two.csv || fail "a cached sweep's CSV differs (wall columns included: they are the first run's)"
pass "a repeated sweep reads every point from the cache, same CSV"

"$GPUVM" sweep "${A[@]}" --set tlb.l2.entries=64 --cache cache --csv three.csv 2> err.txt > /dev/null
grep -q -- "--cache: 0 of 4" err.txt || fail "a changed config hit the cache: $(cat err.txt)"
"$GPUVM" sweep "${A[@]}" --seed 2 --cache cache --csv four.csv 2> err.txt > /dev/null
grep -q -- "--cache: 0 of 4" err.txt || fail "another seed hit the cache: $(cat err.txt)"
"$GPUVM" sweep --gpu p100 --workload random-sampling:threads=1024,reads=8 \
	--vary workload.region=32MiB,64MiB --cache cache --csv five.csv 2> err.txt > /dev/null
grep -q -- "--cache: 1 of 2" err.txt || fail "a sub-grid should hit once: $(cat err.txt)"
pass "config, seed and workload changes are new points; an overlapping grid reuses what it can"

"$GPUVM" sweep "${A[@]}" --cache c2 --csv six.csv -q
for f in c2/*.json; do echo "not json" > "$f"; break; done
"$GPUVM" sweep "${A[@]}" --cache c2 --csv six.csv 2> err.txt > /dev/null
grep -q -- "--cache: 3 of 4" err.txt || fail "a corrupt entry was used: $(cat err.txt)"
"$GPUVM" sweep "${A[@]}" --cache c2 --csv seven.csv 2> err.txt > /dev/null
grep -q -- "--cache: 4 of 4" err.txt || fail "the corrupt entry was not rewritten: $(cat err.txt)"
pass "a corrupt cache entry is recomputed and rewritten"

touch notadir
"$GPUVM" sweep "${A[@]}" --cache notadir --csv x.csv -q 2> err.txt && fail "--cache on a file accepted"
grep -q "not a directory" err.txt || fail "message: $(cat err.txt)"
[ ! -e x.csv ] || fail "output written after a bad --cache"
pass "--cache on a file is bad input"
