#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (+ASan/UBSan) and runs each for a
# bounded time, seeded with the shipped presets. usage: fuzz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
if ! command -v clang >/dev/null; then
	echo "fuzz.sh: clang not installed; skipping the fuzz run" >&2
	exit 0
fi
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DGPUVM_FUZZ=ON -DGPUVM_SANITIZE=ON \
	-DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_parsers >/dev/null
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# The first byte picks the parser: 0 preset text, 1 --set, 2 workload spec.
for f in presets/*.ini; do { printf '\000'; cat "$f"; } >"$corpus/$(basename "$f")"; done
printf '\001tlb.l2.entries=64' >"$corpus/set"
printf '\002random-sampling:region=4GiB,reads=3' >"$corpus/workload"
build-fuzz/fuzz_parsers -max_total_time="$SECONDS_EACH" -print_final_stats=1 "$corpus" 2>&1 | tail -3
