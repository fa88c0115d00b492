#!/usr/bin/env bash
# Build-checks every cuda/*.cu with `nvcc -c` when nvcc is installed (CI runs
# this; there is no GPU needed to compile). Prints "nvcc not found: skipping"
# and succeeds otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-nvcc}
if ! command -v "$NVCC" >/dev/null 2>&1; then
	if [ -x /usr/local/cuda/bin/nvcc ]; then
		NVCC=/usr/local/cuda/bin/nvcc
	else
		echo "nvcc not found: skipping"
		exit 0
	fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for f in cuda/*.cu; do
	[ -e "$f" ] || continue
	if "$NVCC" -c -O2 -std=c++14 -Iinclude -Werror all-warnings -o "$out/$(basename "$f" .cu).o" "$f"; then
		echo "ok: $f"
	else
		echo "FAILED: $f"
		status=1
	fi
done
exit $status
