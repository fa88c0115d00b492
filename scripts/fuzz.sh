#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/fuzz_*.c) with clang + ASan/UBSan
# and runs each for a bounded time, seeded from tests/fuzz/corpus/<target>/.
# usage: fuzz.sh [seconds per target]     (default 60; CI passes its own)
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
# One harness per core at a time: each libFuzzer run is one process on one
# core, so on CI's 2 cores the 7 harnesses take 4 rounds of SECONDS_EACH
# instead of 7, each with the same fuzzing time. Reports come in harness
# order once all have ended.
jobs_max=$(nproc 2>/dev/null || echo 1)
fuzz_one() { # name
	local name=$1
	# -timeout: one input running 10 s is a hang (an accepted value whose
	# cost is not proportional to the work), reported as a failure
	if build-fuzz/"$name" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="$work/$name-" "$work/$name" >"$work/$name.log" 2>&1; then
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
	echo "== $name (${SECONDS_EACH}s)"
	if [ "$(cat "$work/$name.rc" 2>/dev/null)" != 0 ]; then
		tail -40 "$work/$name.log"
		status=1
	else
		tail -3 "$work/$name.log"
	fi
done
exit $status
