#!/usr/bin/env bash
# Bad traces of every kind get a message naming file and line (byte offset
# for native files), a non-zero exit and no output file; good ones work.
# usage: trace_bad_input.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
TRACES="$SRC/traces"
if [ ! -d "$TRACES/accelsim-vectoradd" ]; then
	echo "FAIL: real traces missing at $TRACES (they are part of the repository)"; exit 1
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

fresh; sed -i "s/^-shmem = 0/-shmem = 4k/" $K
expect_fail "bad -shmem" "kernel-1.traceg:5: shmem: expected a byte count, got '4k'" va
fresh; sed -i "s/^-shmem = 0/-shmem = 300000/" $K
expect_fail "-shmem beyond any GPU" "kernel-1.traceg:5: shmem: 300000 bytes per block" va

fresh; sed -i "s/^-grid dim = (196,1,1)/-grid dim = (197,1,1)/" $K
expect_fail "fewer blocks than the grid" "truncated: 196 of 197 thread blocks" va

# strict where a real trace never deviates (issue 14)
fresh; : >va/kernelslist.g
expect_fail "empty kernelslist.g" "kernelslist.g: lists no kernel" va
fresh; sed -i '/traceg/d' va/kernelslist.g
expect_fail "kernelslist.g with copies and no kernel" "lists no kernel" va
fresh; sed -i "1s/.*/MemcpyHtoD,0xffffffffffff0000,1048576/" va/kernelslist.g
expect_fail "copy that wraps the address space" "kernelslist.g:1: MemcpyHtoD: 0xffffffffffff0000 + 1048576 bytes wraps" va
fresh; sed -i "s/^-block dim = (256,1,1)/-block dim = (512,1,1)/" $K
expect_fail "block dim disagreeing with the warps present" "block dim: thread block 0,0,0 has 8 warps, but block dim (512,1,1) makes 16" va
fresh; ln=$(grep -n "LDG.E 1 R4 4 1 0x7fb0fc430e00" $K | head -1 | cut -d: -f1)
sed -i "${ln}s/LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0/LDG.E 1 R4 0 /" $K
expect_fail "a load with mem_width 0" "kernel-1.traceg:$ln: mem_width: 0 on the memory instruction LDG.E" va
# numbers past 32 bits are refused, not wrapped (issue 79: sscanf's %u read
# the grid 4294967492 as 196, the block 4294967552 as 256, and the thread
# block and warp 4294967296 as 0, exit 0)
fresh; sed -i "s/^-grid dim = (196,1,1)/-grid dim = (4294967492,1,1)/" $K
expect_fail "grid dim past 32 bits" "kernel-1.traceg:3: grid dim: 4294967492 is out of range" va
fresh; sed -i "s/^-block dim = (256,1,1)/-block dim = (4294967552,1,1)/" $K
expect_fail "block dim past 32 bits" "kernel-1.traceg:4: block dim: 4294967552 is out of range" va
fresh; sed -i "s/^-block dim = (256,1,1)/-block dim = (256,1,x)/" $K
expect_fail "block dim not a number" "kernel-1.traceg:4: block dim: expected a whole number" va
fresh; ln=$(grep -n "^thread block = 0,0,0" $K | head -1 | cut -d: -f1)
sed -i "${ln}s/.*/thread block = 4294967296,0,0/" $K
expect_fail "thread block past 32 bits" "kernel-1.traceg:$ln: thread block: 4294967296 is out of range" va
fresh; ln=$(grep -n "^warp = 0" $K | head -1 | cut -d: -f1)
sed -i "${ln}s/.*/warp = 4294967296/" $K
expect_fail "warp past 32 bits" "kernel-1.traceg:$ln: warp: 4294967296 is out of range" va
# a copy of almost 1 TiB: accepted, and cheap (a span, not 16 M granules)
fresh; sed -i "1s/.*/MemcpyHtoD,0x00007f0000000000,1099511627775/" va/kernelslist.g
if /usr/bin/time -f "%M" -o rss.txt "$GPUVM" sim --gpu h100 --trace va --quiet 2>err.txt &&
	[ "$(cat rss.txt)" -lt 300000 ]; then
	echo "ok - a copy of almost 1 TiB costs $(cat rss.txt) KB"
else echo "FAIL 1 TiB copy: $(cat err.txt) rss $(cat rss.txt) KB"; failures=$((failures + 1)); fi

# mem_trace
MT="$SRC/tests/data/memtrace-1.7.txt"
grep -v MEMTRACE "$MT" >mt_none.txt; echo "application output only" >>mt_none.txt
expect_fail "mem_trace with no kernel" "no kernel launch line" mt_none.txt --trace-format memtrace
sed "3s/grid_launch_id 0/grid_launch_id 7/" "$MT" >mt_gid.txt
expect_fail "mem_trace access of an unknown launch" "mt_gid.txt:3: grid_launch_id" mt_gid.txt
sed "3s/0x00007f0000100008/0x00007f00001000g8/" "$MT" >mt_hex.txt
expect_fail "mem_trace bad hex" "mt_hex.txt:3: bad hex address" mt_hex.txt
awk 'NR==5 {print substr($0, 1, 400); next} {print}' "$MT" >mt_trunc.txt
expect_fail "mem_trace truncated line" "mt_trunc.txt:5: truncated" mt_trunc.txt
sed "2s/grid size 2,1,1/grid size 2,1/" "$MT" >mt_launch.txt
expect_fail "mem_trace bad launch line" "mt_launch.txt:2: launch line" mt_launch.txt

# mem_trace numbers past their range are refused, not wrapped (issue 79)
sed "2s/grid size 2,1,1/grid size 4294967298,1,1/" "$MT" >mt_grid.txt
expect_fail "mem_trace grid size past 32 bits" "mt_grid.txt:2: grid size: 4294967298 is out of range" mt_grid.txt
sed "2s/block size 64,1,1/block size 4294967360,1,1/" "$MT" >mt_block.txt
expect_fail "mem_trace block size past 32 bits" "mt_block.txt:2: block size: 4294967360 is out of range" mt_block.txt
sed "3s/CTA 1,0,0/CTA 4294967297,0,0/" "$MT" >mt_cta.txt
expect_fail "mem_trace CTA past 32 bits" "mt_cta.txt:3: CTA: 4294967297 is out of range" mt_cta.txt
sed "3s/warp 0 /warp 4294967296 /" "$MT" >mt_warp.txt
expect_fail "mem_trace warp past 32 bits" "mt_warp.txt:3: expected 'warp N' (0 to 65535)" mt_warp.txt
sed "2s/grid launch id 0/grid launch id 18446744073709551616/" "$MT" >mt_lid.txt
expect_fail "mem_trace launch id past 64 bits" "mt_lid.txt:2: grid launch id: 18446744073709551616 is out of range" mt_lid.txt

# native
fresh; "$GPUVM" trace convert va good.gvt >/dev/null || { echo "FAIL: convert"; exit 1; }
size=$(stat -c %s good.gvt)
head -c $((size / 2)) good.gvt >trunc.gvt
expect_fail "truncated native file" "trunc.gvt: byte" trunc.gvt
head -c $((size - 1)) good.gvt >noend.gvt
# the end marker is 'E' and its checksum (version 6): named from its start
expect_fail "native file without end marker" "noend.gvt: byte $((size - 5)): truncated" noend.gvt
# version 9 with a 16-byte header (a version 6 header would fail its checksum)
cp good.gvt v9.gvt && printf '\x09' | dd of=v9.gvt bs=1 seek=8 conv=notrunc 2>/dev/null &&
	printf '\x10' | dd of=v9.gvt bs=1 seek=12 conv=notrunc 2>/dev/null
expect_fail "unknown native version" "v9.gvt: byte 8: unknown native trace version 9" v9.gvt
cp stderr.txt stderr.txt.v9
expect_fail "forced wrong format" "not a gpuvm native trace" va/kernelslist.g --trace-format native
# a flipped byte in a copy record's size (vectorAdd copies 200000 = 0x030d40
# bytes; the native records are plain, the kernels' frames compressed)
python3 - <<'PY'
data = bytearray(open("good.gvt", "rb").read())
pat = (200000).to_bytes(8, "little")
i = data.find(pat)
assert i > 0, "copy record not found"
data[i + 7] = 0x80  # 2^63 + 200000 bytes
open("hugecopy.gvt", "wb").write(data)
PY
# version 6: the record's checksum catches it first, at the record's byte
expect_fail "native copy record past 1 TiB" "record checksum mismatch" hugecopy.gvt

# good inputs still work, and info reports vectorAdd's shape
"$GPUVM" trace info va >info.txt 2>&1 || { echo "FAIL info"; cat info.txt; failures=$((failures + 1)); }
grep -q "196 CTAs of 8 warps" info.txt && [ "$(grep -c "h2d .* 200000 bytes" info.txt)" -eq 2 ] ||
	{ echo "FAIL info content"; cat info.txt; failures=$((failures + 1)); }
"$GPUVM" trace --help >help.txt
grep -q "gpuvm trace convert" help.txt || { echo "FAIL help"; failures=$((failures + 1)); }
# the native versions --help names are the ones the writer writes and the
# reader reads (issue 79: it still named versions 4 and 5); the reader's
# refusal of version 9 above says which it reads
reads=$(sed -n 's/.*this gpuvm reads versions 1 to \([0-9]*\)).*/\1/p' stderr.txt.v9)
written=$(python3 -c "import sys; print(open(sys.argv[1], 'rb').read()[8])" good.gvt)
if [ -n "$reads" ] && grep -q "any size writes native version $written, with" help.txt &&
	grep -q "gpuvm reads versions 1 to $reads)" help.txt && ! grep -q "version [45]\b" help.txt; then
	echo "ok - trace --help names native version $written written, 1 to $reads read"
else
	echo "FAIL trace --help versions (writes $written, reads 1 to $reads):"
	grep -n "version" help.txt; failures=$((failures + 1))
fi

if [ $failures -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "all trace bad-input checks passed"
