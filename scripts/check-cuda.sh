#!/usr/bin/env bash
# Build-checks every cuda/*.cu with nvcc -c when nvcc is present (CI on a
# machine with the CUDA toolkit); prints "nvcc not found: skipping" otherwise.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v nvcc >/dev/null 2>&1; then
	echo "nvcc not found: skipping"
	exit 0
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for f in "$root"/cuda/*.cu; do
	[ -e "$f" ] || continue
	if nvcc -c -std=c++14 -I"$root/include" "$f" -o "$out/$(basename "$f" .cu).o"; then
		echo "ok   $(basename "$f")"
	else
		echo "FAIL $(basename "$f")"
		status=1
	fi
done
exit $status
