#!/usr/bin/env bash
# Build-checks every cuda/*.cu with `nvcc -c` when nvcc is on PATH (CI and
# machines with the CUDA toolkit); prints "nvcc not found: skipping"
# otherwise. NVCC_FLAGS overrides the flags (default: -O2 -std=c++14).
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1; then
	echo "nvcc not found: skipping"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for f in cuda/*.cu; do
	[ -e "$f" ] || continue
	# shellcheck disable=SC2086
	if nvcc ${NVCC_FLAGS:--O2 -std=c++14} -c "$f" -o "$tmp/$(basename "$f" .cu).o"; then
		echo "ok - $f"
	else
		echo "FAIL $f"
		status=1
	fi
done
exit $status
