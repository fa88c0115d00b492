#!/usr/bin/env bash
# The components' contracts and the docs' tables that describe the code are
# true to it (scripts/check-contracts.py, which states the grammar of a
# "May call:" line): every other component a contract's files include or
# call is named in its May call line and every component named is used;
# the code tables in docs/architecture.md (contracts, presets' memory
# partitions) and docs/modules.md (the modules, from `gpuvm presets
# --modules`) are what the script writes from the code.
# usage: contracts.sh GPUVM_BINARY SOURCE_DIR
set -u
GPUVM=${1:?usage: contracts.sh GPUVM SOURCE_DIR}
SRC=$(realpath "${2:?usage: contracts.sh GPUVM SOURCE_DIR}")
exec python3 "$SRC/scripts/check-contracts.py" --gpuvm "$GPUVM" "$SRC"
