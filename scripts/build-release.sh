#!/usr/bin/env bash
# Release build of the CLI at build/gpuvm: one optimized build (-O2 -g), what
# `make`, `make build` and `make demo` run.
#
# GPUVM_PGO=1 adds profile-guided optimization when the compiler is GCC: an
# instrumented build in build-pgo/ runs a short training set (the runs
# `gpuvm bench` times, at small sizes and the random-sampling one weighted
# first, plus paging, a graph kernel and other presets so their code is
# profiled too), then build/ is compiled with that profile. PGO makes the
# simulator 2-4 % faster and changes no result, but compiles everything
# twice (the instrumented build is as long as the plain one; the training
# takes seconds), so it is opt-in; any failure on the way falls back to a
# plain build.
#
# usage: [GPUVM_PGO=1] scripts/build-release.sh [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${1:-$(nproc 2>/dev/null || echo 2)}
CMAKE=${CMAKE:-cmake}
GEN=build-pgo
PROFILE=$PWD/$GEN/profile

# The training runs: seconds on the instrumented binary.
train() {
	local b=$GEN/gpuvm
	"$b" sim --gpu p100 --workload random-sampling:region=4GiB,reads=128 --quiet &&
	"$b" sim --gpu k80 --workload random-sampling:region=3GiB,reads=32 --quiet &&
	"$b" sim --gpu p100 --workload random-sampling:region=64MiB,reads=16 --quiet &&
	"$b" sim --gpu p100 --workload hash-groupby:region=1GiB,input=1048576 --quiet &&
	"$b" sim --gpu p100 --workload stream-triad --quiet &&
	"$b" sim --gpu p100 --workload random-sampling:region=1GiB,reads=8,mem=managed --oversub 125 --quiet &&
	"$b" sim --gpu gtx1080ti-uvmsmart --workload bfs --quiet &&
	"$b" sim --gpu h100 --workload random-sampling:region=2GiB,reads=8 --quiet
}

pgo_args=(-DGPUVM_PGO=)
retrained=0
if [ "${GPUVM_PGO:-0}" != 1 ]; then
	: # the default: one plain optimized build
elif $CMAKE -S . -B "$GEN" -DCMAKE_BUILD_TYPE=Release -DGPUVM_PGO=generate \
	-DGPUVM_PGO_DIR="$PROFILE" >/dev/null &&
	$CMAKE --build "$GEN" -j "$JOBS" --target gpuvm; then
	# Train again only when the instrumented binary changed since the
	# last profile.
	if [ ! -f "$PROFILE/.trained" ] || [ "$GEN/gpuvm" -nt "$PROFILE/.trained" ]; then
		rm -rf "$PROFILE"
		echo "build-release: training the profile (a few seconds)"
		if train && compgen -G "$PROFILE/*.gcda" >/dev/null; then
			touch "$PROFILE/.trained"
			retrained=1
		else
			echo "build-release: no profile (training failed, or the compiler is not GCC);" \
				"building without one" >&2
			rm -rf "$PROFILE"
		fi
	fi
	if [ -f "$PROFILE/.trained" ]; then
		pgo_args=(-DGPUVM_PGO=use -DGPUVM_PGO_DIR="$PROFILE")
	fi
else
	echo "build-release: the instrumented build failed; building without a profile" >&2
fi
$CMAKE -S . -B build -DCMAKE_BUILD_TYPE=Release "${pgo_args[@]}"
# A new profile changes the code of every object, which make cannot see.
if [ "$retrained" = 1 ]; then
	$CMAKE --build build --target clean
fi
$CMAKE --build build -j "$JOBS" --target gpuvm
