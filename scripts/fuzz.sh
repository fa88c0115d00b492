#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/fuzz_*.c) with clang + ASan/UBSan
# and runs each for a bounded time, seeded from tests/fuzz/corpus/<target>/.
# usage: fuzz.sh [seconds per target]     (default 60; CI passes its own)
#
# Per-input time limit: an input running past it is a hang and fails the
# run. The limit is FUZZ_TIMEOUT_S (default 10 s) times the scale the tests
# use on a slow or loaded host (GPUVM_TEST_TIMEOUT_SCALE, rounded up;
# tests/CMakeLists.txt), and times the load average per core when it is
# above 1 (a loaded host). Seeds that are slow by design (a 1 GiB L2 takes 2 s
# under ASan alone, and past 10 s on a loaded 2-core host: issue 79) live in
# tests/fuzz/corpus-slow/<target>/: each is run once, under SLOW_FACTOR (12)
# times the limit, and a crash or a run past that limit fails as any input
# does; the bounded search runs on the fast corpus under the plain limit.
# No seed is dropped: the ctest replay (fuzz_replay_<target>) runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
if ! command -v clang >/dev/null; then
	echo "fuzz.sh: clang not installed; skipping the fuzz run" >&2
	exit 0
fi
# clang's UBSan with no recovery: any undefined behaviour is a finding
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DGPUVM_FUZZ=ON -DGPUVM_SANITIZE=ON \
	-DCMAKE_C_FLAGS="-fno-sanitize-recover=all" -DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scale=${GPUVM_TEST_TIMEOUT_SCALE:-1}
if ! [[ $scale =~ ^[0-9]+(\.[0-9]+)?$ ]] || [ "$(awk -v s="$scale" 'BEGIN { print (s > 0) }')" != 1 ]; then
	echo "fuzz.sh: GPUVM_TEST_TIMEOUT_SCALE=$scale: not a positive number" >&2
	exit 2
fi
# On a loaded host (more runnable processes than cores) an input gets only
# a share of a core: the limit grows by the load average per core (at load
# 12 on 2 cores, 6x), so a hang is still a hang and a busy machine is not.
load_scale=$(awk -v n="$(nproc 2>/dev/null || echo 1)" \
	'{ r = $1 / n; print (r > 1) ? r : 1; exit }' /proc/loadavg 2>/dev/null || echo 1)
TIMEOUT_S=$(awk -v b="${FUZZ_TIMEOUT_S:-10}" -v s="$scale" -v l="${load_scale:-1}" \
	'BEGIN { t = b * s * l; print (t == int(t)) ? t : int(t) + 1 }')
SLOW_FACTOR=12
SLOW_TIMEOUT_S=$((TIMEOUT_S * SLOW_FACTOR))
# One harness per core at a time: each libFuzzer run is one process on one
# core, so on CI's 2 cores the 7 harnesses take 4 rounds of SECONDS_EACH
# instead of 7, each with the same fuzzing time. Reports come in harness
# order once all have ended.
jobs_max=$(nproc 2>/dev/null || echo 1)
fuzz_one() { # name
	local name=$1 slow=()
	# the slow seeds first, each once (files, not a corpus directory: no
	# search) under the larger limit
	if [ -d "tests/fuzz/corpus-slow/$name" ]; then
		mapfile -t slow < <(find "tests/fuzz/corpus-slow/$name" -type f | sort)
	fi
	if [ ${#slow[@]} -gt 0 ] && ! build-fuzz/"$name" -timeout="$SLOW_TIMEOUT_S" \
		-rss_limit_mb=4096 -artifact_prefix="$work/$name-slow-" "${slow[@]}" \
		>"$work/$name.log" 2>&1; then
		echo 1 >"$work/$name.rc"
		return
	fi
	# -timeout: one input running past the limit is a hang (an accepted
	# value whose cost is not proportional to the work), reported as a
	# failure
	if build-fuzz/"$name" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
		-timeout="$TIMEOUT_S" -rss_limit_mb=4096 \
		-artifact_prefix="$work/$name-" "$work/$name" >>"$work/$name.log" 2>&1; then
		echo 0 >"$work/$name.rc"
	else
		echo 1 >"$work/$name.rc"
	fi
}
names=()
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	names+=("$name")
	# A scratch copy of the seed corpus: new inputs found in CI are not kept.
	mkdir -p "$work/$name"
	if [ -d "tests/fuzz/corpus/$name" ]; then cp -r "tests/fuzz/corpus/$name/." "$work/$name/"; fi
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	fuzz_one "$name" &
done
wait
status=0
for name in "${names[@]}"; do
	echo "== $name (${SECONDS_EACH}s, ${TIMEOUT_S}s per input, ${SLOW_TIMEOUT_S}s per slow seed)"
	if [ "$(cat "$work/$name.rc" 2>/dev/null)" != 0 ]; then
		tail -40 "$work/$name.log"
		status=1
	else
		tail -3 "$work/$name.log"
	fi
done
exit $status
