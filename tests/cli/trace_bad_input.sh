#!/usr/bin/env bash
# Bad traces of every kind get a message naming file and line (byte offset
# for native files), a non-zero exit and no output file; good ones work.
# usage: trace_bad_input.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
TRACES="$SRC/../shared/traces"
if [ ! -d "$TRACES/accelsim-vectoradd" ]; then
	echo "FAIL: real traces missing at $TRACES (CI has them)"; exit 1
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-trace-bad.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0

# expect_fail NAME EXPECTED-SUBSTRING INPUT [convert options...]
expect_fail() {
	local name=$1 want=$2 input=$3
	shift 3
	rm -f out.gvt out.json
	"$GPUVM" trace convert "$input" out.gvt "$@" >stdout.txt 2>stderr.txt
	local rc=$?
	if [ $rc -eq 0 ]; then
		echo "FAIL $name: exit 0"; failures=$((failures + 1)); return
	fi
	if ! grep -qF -- "$want" stderr.txt; then
		echo "FAIL $name: message lacks '$want':"; cat stderr.txt; failures=$((failures + 1)); return
	fi
	if ls out.gvt* >/dev/null 2>&1; then
		echo "FAIL $name: left an output file"; failures=$((failures + 1)); return
	fi
	# the same input through the simulator fails the same way
	"$GPUVM" sim --gpu p100 --trace "$input" "$@" --json out.json >/dev/null 2>sim.txt
	if [ $? -eq 0 ] || ! grep -qF -- "$want" sim.txt || [ -e out.json ]; then
		echo "FAIL $name (sim): "; cat sim.txt; failures=$((failures + 1)); return
	fi
	echo "ok - $name: $(head -c 150 stderr.txt)"
}

# A copy of vectorAdd to mutate.
fresh() { rm -rf va && cp -r "$TRACES/accelsim-vectoradd" va && chmod -R u+w va; }
K=va/kernel-1.traceg

fresh; head -n 300 "$TRACES/accelsim-vectoradd/kernel-1.traceg" >$K
expect_fail "truncated kernel file" "kernel-1.traceg:300: truncated" va

fresh; ln=$(grep -n "LDG.E 1 R4 4 1 0x7fb0fc430e00" $K | head -1 | cut -d: -f1)
sed -i "${ln}s/0x7fb0fc430e00/0x7fb0fcZ30e00/" $K
expect_fail "bad hex address" "kernel-1.traceg:$ln: base address: bad hex '0x7fb0fcZ30e00'" va

fresh; ln=$(grep -n "^0000 ffffffff" $K | sed -n 3p | cut -d: -f1)
sed -i "${ln}s/^0000 ffffffff/0000 ffgfffff/" $K
expect_fail "bad hex mask" "kernel-1.traceg:$ln: mask: bad hex" va

fresh; ln=$(grep -n "^insts = 17" $K | head -1 | cut -d: -f1)
sed -i "${ln}s/insts = 17/insts = 18/" $K
expect_fail "too few instruction lines" "kernel-1.traceg:$((ln + 18)): warp 0 declares insts = 18 but has 17" va

fresh; sed -i "${ln}s/insts = 17/insts = 16/" $K
expect_fail "too many instruction lines" "kernel-1.traceg:$((ln + 17)): more instruction lines" va

fresh; sed -i "s/^-accelsim tracer version = 5/-accelsim tracer version = 7/" $K
expect_fail "unknown tracer version" "kernel-1.traceg:12: accelsim tracer version: unknown tracer version '7'" va

fresh; echo "kernel-2.traceg" >>va/kernelslist.g
expect_fail "missing kernel file" "kernelslist.g:4: kernel file" va

fresh; sed -i "1s/.*/MemcpyHtoD,0xZZ,200000/" va/kernelslist.g
expect_fail "bad hex in kernelslist.g" "kernelslist.g:1: MemcpyHtoD" va

fresh; sed -i "s/^-grid dim = (196,1,1)/-grid dim = (197,1,1)/" $K
expect_fail "fewer blocks than the grid" "truncated: 196 of 197 thread blocks" va

# mem_trace
MT="$SRC/tests/data/memtrace-1.7.txt"
sed "3s/0x00007f0000100008/0x00007f00001000g8/" "$MT" >mt_hex.txt
expect_fail "mem_trace bad hex" "mt_hex.txt:3: bad hex address" mt_hex.txt
awk 'NR==5 {print substr($0, 1, 400); next} {print}' "$MT" >mt_trunc.txt
expect_fail "mem_trace truncated line" "mt_trunc.txt:5: truncated" mt_trunc.txt
sed "2s/grid size 2,1,1/grid size 2,1/" "$MT" >mt_launch.txt
expect_fail "mem_trace bad launch line" "mt_launch.txt:2: launch line" mt_launch.txt

# native
fresh; "$GPUVM" trace convert va good.gvt >/dev/null || { echo "FAIL: convert"; exit 1; }
size=$(stat -c %s good.gvt)
head -c $((size / 2)) good.gvt >trunc.gvt
expect_fail "truncated native file" "trunc.gvt: byte" trunc.gvt
head -c $((size - 1)) good.gvt >noend.gvt
expect_fail "native file without end marker" "noend.gvt: byte $((size - 1)): truncated" noend.gvt
cp good.gvt v9.gvt && printf '\x09' | dd of=v9.gvt bs=1 seek=8 conv=notrunc 2>/dev/null
expect_fail "unknown native version" "v9.gvt: byte 8: unknown native trace version 9" v9.gvt
expect_fail "forced wrong format" "not a gpuvm native trace" va/kernelslist.g --trace-format native

# good inputs still work, and info reports vectorAdd's shape
"$GPUVM" trace info va >info.txt 2>&1 || { echo "FAIL info"; cat info.txt; failures=$((failures + 1)); }
grep -q "196 CTAs of 8 warps" info.txt && [ "$(grep -c "h2d .* 200000 bytes" info.txt)" -eq 2 ] ||
	{ echo "FAIL info content"; cat info.txt; failures=$((failures + 1)); }
"$GPUVM" trace --help | grep -q "gpuvm trace convert" || { echo "FAIL help"; failures=$((failures + 1)); }

if [ $failures -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "all trace bad-input checks passed"
