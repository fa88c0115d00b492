#!/usr/bin/env bash
# The Python package (python/gpuvm) under pytest (tests/python), against
# this build's binary (GPUVM_BIN). The interpreter is $GPUVM_PYTHON, else
# the first of python3 on PATH and /usr/bin/python3 (Debian's, where
# scripts/install-deps.sh puts python3-pandas and python3-pytest) that has
# pandas and pytest; with none, the test is skipped (exit 77) and says so.
# usage: python.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
# The package wraps the CLI and reimplements nothing, so it is tested against
# a plain build: under ASan its simulations took 17 minutes of make check's
# sanitizer pass (1,029 s, 2026-11-23), every one of them a run the other
# tests already check under sanitizers.
if grep -q __asan_init "$GPUVM"; then
	echo "SKIP: sanitizer build; the Python package is tested in the Release pass"
	exit 77
fi
py=""
for cand in ${GPUVM_PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$cand" > /dev/null 2>&1 && "$cand" -c 'import pandas, pytest' 2> /dev/null; then
		py=$cand
		break
	fi
done
if [ -z "$py" ]; then
	echo "SKIP: no Python with pandas and pytest (Debian: apt-get install python3-pandas python3-pytest, or set GPUVM_PYTHON)"
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-python-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
echo "python: $py ($("$py" -c 'import sys, pandas; print(sys.version.split()[0], "pandas", pandas.__version__)'))"
GPUVM_BIN="$GPUVM" PYTHONPATH="$SRC/python" PYTHONDONTWRITEBYTECODE=1 \
	"$py" -m pytest -q -p no:cacheprovider "$SRC/tests/python"
