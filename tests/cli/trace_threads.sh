#!/usr/bin/env bash
# Trace replay with --threads (issue 21 item 4): JSON identical at --threads
# 1, 2, 3 and 8 (wall times aside) on the real Accel-Sim traces, a list of
# several kernels (the next one parsed on the reader thread while one
# replays), a managed replay, and native traces recorded from a generator
# and a SIMT workload, mapped or read with pread, at several frame sizes;
# bad traces fail at --threads 2 with the message and status of --threads 1
# and write nothing; --frame-bytes refuses bad sizes.
# usage: trace_threads.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
TRACES="$SRC/traces"
if [ ! -d "$TRACES/accelsim-vectoradd" ]; then
	echo "FAIL: real traces missing at $TRACES (they are part of the repository)"; exit 1
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-trace-threads.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
nowall() { grep -v -e wall -e '"workload"' "$1"; }

# The thread counts: 1, 2, 3 and 8, the first the reference. Under the
# sanitizers (tests/CMakeLists.txt sets GPUVM_TEST_SANITIZED) 1 and 3, as
# cli_threads: a reader ahead and workers that race, more than two of them;
# under ThreadSanitizer (GPUVM_TEST_TSAN) 3 alone, whose races TSan
# reports on the run itself, the comparisons with one thread being the
# other passes'. The Release pass runs all four.
COUNTS="1 2 3 8"
[ "${GPUVM_TEST_SANITIZED:-0}" = 1 ] && COUNTS="1 3"
[ "${GPUVM_TEST_TSAN:-0}" = 1 ] && COUNTS="3"
REF=${COUNTS%% *}
# Under ThreadSanitizer too: the frame sizes 1 KiB alone (the most frames,
# the most hand-overs between the reader and the engine: the reader's
# lines the other sizes run), and a bad trace at --threads 2 alone (its
# message checked; whether it is one thread's is the other passes'): the
# two were 7 of this script's 19 CPU seconds there.
FRAMES="1KiB 64KiB 1MiB" ERR_COUNTS="1 2"
[ "${GPUVM_TEST_TSAN:-0}" = 1 ] && FRAMES="1KiB" ERR_COUNTS="2"

# same_json NAME GPU TRACE [sim options]: --threads $COUNTS agree (the JSON
# of the first, t$REF.json, is kept)
same_json() {
	local name=$1 gpu=$2 tr=$3
	shift 3
	for t in $COUNTS; do
		rm -f "t$t.json"
		"$GPUVM" sim --gpu "$gpu" --trace "$tr" --threads $t --json "t$t.json" -q "$@" 2>err.txt ||
			fail "$name --threads $t: exit $?: $(cat err.txt)"
	done
	grep -q '"thread_accesses"' "t$REF.json" || { fail "$name: no report"; return; }
	for t in ${COUNTS#"$REF"}; do
		diff <(nowall "t$REF.json") <(nowall "t$t.json") >/dev/null ||
			fail "$name: --threads $t JSON differs from --threads $REF"
	done
	echo "ok - $name"
}

same_json vectoradd h100 "$TRACES/accelsim-vectoradd"
same_json bptree h100 "$TRACES/accelsim-rodinia-bptree-h100"
# (the managed replay whole not under ThreadSanitizer: its reader's and
# engine's threaded lines the one in parts below runs there)
[ "${GPUVM_TEST_TSAN:-0}" = 1 ] ||
	same_json "bptree managed" h100 "$TRACES/accelsim-rodinia-bptree-h100" --trace-managed
same_json "mem_trace 1.7" p100 "$SRC/tests/data/memtrace-1.7.txt"
same_json "mem_trace 1.5" p100 "$SRC/tests/data/memtrace-1.5.txt"

# a list of 6 kernels, alternating the two real kernels, copies between
mkdir list
for k in 0 1 2 3 4 5; do
	if [ $((k % 2)) -eq 0 ]; then f="$TRACES/accelsim-vectoradd/kernel-1.traceg"
	else f="$TRACES/accelsim-rodinia-bptree-h100/kernel-2-ctx_0x5607b0e17740.traceg"; fi
	ln -s "$f" "list/k$k.traceg"
	echo "MemcpyHtoD,0x00007fb0fc400000,$((4096 * (k + 1)))" >>list/kernelslist.g
	echo "k$k.traceg" >>list/kernelslist.g
done
same_json "6-kernel list" p100 list

# native traces: recorded generator and SIMT runs, default and other frames
"$GPUVM" trace record stream-triad:elems=262144 -o triad.gvt -q || fail "record triad: exit $?"
"$GPUVM" trace record bfs:graph=rmat-10 -o bfs.gvt -q || fail "record bfs: exit $?"
"$GPUVM" trace convert list list.gvt -q || fail "convert list: exit $?"
same_json "triad.gvt" p100 triad.gvt
same_json "bfs.gvt" p100 bfs.gvt
same_json "list.gvt" p100 list.gvt
cp "t$REF.json" list-default.json
for fb in $FRAMES; do
	"$GPUVM" trace convert list.gvt "list-$fb.gvt" --frame-bytes $fb -q || fail "--frame-bytes $fb: exit $?"
	[ "$(od -An -tu4 -j8 -N4 "list-$fb.gvt" | tr -d ' ')" = 7 ] || fail "--frame-bytes $fb: not version 7"
	same_json "list.gvt at --frame-bytes $fb" p100 "list-$fb.gvt"
	diff <(nowall list-default.json) <(nowall "t$REF.json") >/dev/null ||
		fail "--frame-bytes $fb: JSON differs from the 8 KiB frames"
done
[ "$(od -An -tu4 -j8 -N4 list.gvt | tr -d ' ')" = 7 ] || fail "default frames: not version 7"
# the mapping (opt-in) instead of pread: the same run
GPUVM_TRACE_MMAP=1 "$GPUVM" sim --gpu p100 --trace list.gvt --threads 2 --json mapped.json -q ||
	fail "mapped: exit $?"
diff <(nowall list-default.json) <(nowall mapped.json) >/dev/null || fail "mapped: JSON differs"

# bad --frame-bytes: exit 2 naming the option, nothing written
for bad in 0 512 1023 2MiB abc ""; do
	"$GPUVM" trace convert list.gvt bad.gvt --frame-bytes "$bad" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "--frame-bytes '$bad': exit $rc, wanted 2"
	grep -q -- "--frame-bytes" err.txt || fail "--frame-bytes '$bad': message: $(cat err.txt)"
	[ ! -e bad.gvt ] || fail "--frame-bytes '$bad': left an output file"
done
"$GPUVM" trace info list.gvt --frame-bytes 64KiB >out.txt 2>err.txt
[ $? -eq 2 ] || fail "trace info --frame-bytes: not refused"
# a version 5 header with a frame size out of range (version 6 headers
# carry a checksum: a rewritten frame size is a checksum mismatch)
python3 - <<'PY' || fail "python"
d = bytearray(open("list-1KiB.gvt", "rb").read())  # (1 KiB: the frame size every pass makes)
d[16:20] = (2 << 20).to_bytes(4, "little")
open("bigframe6.gvt", "wb").write(d)
d[8:12] = (5).to_bytes(4, "little")
d[12:16] = (20).to_bytes(4, "little")
del d[20:24]
open("bigframe.gvt", "wb").write(d)
PY

# same_error NAME WANT TRACE: --threads 1 and 2 fail alike, no output
# (--threads 2 alone under ThreadSanitizer: ERR_COUNTS)
same_error() {
	local name=$1 want=$2 tr=$3
	for t in $ERR_COUNTS; do
		rm -f "e$t.json"
		"$GPUVM" sim --gpu p100 --trace "$tr" --threads $t --json "e$t.json" -q >/dev/null 2>"e$t.txt"
		echo $? >"rc$t.txt"
		[ ! -e "e$t.json" ] || fail "$name --threads $t: left an output file"
	done
	[ "$(cat rc2.txt)" != 0 ] || fail "$name: exit 0"
	if [ "$ERR_COUNTS" != 2 ]; then
		cmp -s rc1.txt rc2.txt || fail "$name: exit $(cat rc1.txt) at 1 thread, $(cat rc2.txt) at 2"
		cmp -s e1.txt e2.txt || fail "$name: messages differ: $(cat e1.txt) / $(cat e2.txt)"
	fi
	grep -qF -- "$want" e2.txt || fail "$name: message lacks '$want': $(cat e2.txt)"
	echo "ok - $name: $(head -c 140 e2.txt)"
}

cp -r list badlist
rm badlist/k5.traceg
head -c 150000 "$TRACES/accelsim-rodinia-bptree-h100/kernel-2-ctx_0x5607b0e17740.traceg" >badlist/k5.traceg
same_error "truncated last kernel" "k5.traceg:" badlist
cp -r list badline
echo "NotACommand,1,2" >>badline/kernelslist.g
same_error "bad list line after the kernels" "kernelslist.g:13: unrecognised line" badline
size=$(stat -c %s list.gvt)
head -c $((size * 2 / 3)) list.gvt >cut.gvt
same_error "truncated native trace" "cut.gvt: byte" cut.gvt
python3 - <<'PY' || fail "python"
d = bytearray(open("list.gvt", "rb").read())
# the first kernel's first frame: flip bytes of its zstd payload
k = d.index(b"K", 16)
n = d[k + 1] | d[k + 2] << 8
f = k + 3 + n + 24 + 4  # version 6: the kernel record's checksum
d[f + 16 + 4:f + 16 + 12] = b"\xff" * 8
open("badframe.gvt", "wb").write(d)
PY
same_error "corrupt native frame" "badframe.gvt: byte" badframe.gvt
same_error "version 5 frame size out of range" "byte 16: frame size 2097152 bytes" bigframe.gvt
same_error "version 6 frame size rewritten" "byte 0: header checksum mismatch" bigframe6.gvt

# A kernel file parsed in parts on threads (src/trace/accelsim_split.c),
# the part size lowered so that the small real kernels split: the same
# reports; the profile line says they were split (a cut that failed would
# fall back to the whole parse and still agree); a bad line in a later
# part fails with the one-thread message and line.
export GPUVM_TRACE_SPLIT_BYTES=65536
same_json "vectoradd in parts" h100 "$TRACES/accelsim-vectoradd"
same_json "bptree in parts" h100 "$TRACES/accelsim-rodinia-bptree-h100"
same_json "bptree managed in parts" h100 "$TRACES/accelsim-rodinia-bptree-h100" --trace-managed
same_json "6-kernel list in parts" p100 list
for t in 2 3; do
	GPUVM_THREADS_PROFILE=1 "$GPUVM" sim --gpu h100 --trace "$TRACES/accelsim-vectoradd" \
		--threads $t -q 2>prof.txt >/dev/null || fail "profiled parts --threads $t: exit $?"
	grep -q "thread blocks parsed in $t parts\$" prof.txt ||
		fail "vectoradd at --threads $t: not parsed in $t parts: $(grep parsed prof.txt)"
done
mkdir badpart
cp "$TRACES/accelsim-vectoradd/kernelslist.g" badpart/
python3 - "$TRACES/accelsim-vectoradd/kernel-1.traceg" badpart/kernel-1.traceg <<'PY' || fail "python"
import sys
d = open(sys.argv[1]).read().split("\n")
i = int(len(d) * 0.8)
while not d[i][:1].isdigit():
    i += 1
d[i] = d[i].replace(" ", " zz ", 1)  # the mask field: not hex
open(sys.argv[2], "w").write("\n".join(d))
PY
same_error "bad line in the last part" "kernel-1.traceg:26001: mask: bad hex 'zz'" badpart
unset GPUVM_TRACE_SPLIT_BYTES

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all trace --threads checks passed"
