#!/usr/bin/env bash
# The adversarial corpus of issue 35 (tests/adversarial/corpus.py): about
# 950 generated bad inputs - presets, --set, workload parameters, CLI,
# Accel-Sim, mem_trace, native traces, graphs, sweeps - each must exit 2
# within 60 s with no crash, no sanitizer report, no output file left, and
# a message naming the file (and line) or the option. About 5 minutes on
# two loaded cores in Release.
# usage: adversarial.sh GPUVM SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
exec python3 "$SRC/tests/adversarial/corpus.py" "$GPUVM" --src "$SRC" --jobs 2
