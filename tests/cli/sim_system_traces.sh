#!/usr/bin/env bash
# Issue 78: gpuvm sim --system with one Accel-Sim trace per GPU
# (docs/traces.md "A trace per GPU"). A system of one given one trace is
# the --gpu run, JSON alike (wall times aside); on two GPUs each GPU's run
# is the one-GPU run of its trace (the same trace on both: equal times),
# and the run's time is the later GPU's end; --workload trace:A;B is the
# same run as --trace A --trace B; a count of traces other than the GPUs',
# a missing trace and several traces on --gpu are refused naming the
# option, exit 2.
# Mutations that fail it: run_traces replaying path 0 on every GPU (the
# two-trace times), sim_seconds summed instead of the max, the count check
# removed (the bad-input rows).
# usage: sim_system_traces.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sim-traces.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
strip() { python3 "$SRC/scripts/report-strip.py" "$1"; }
num() {
	python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("/"):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(repr(v))' "$1" "$2"
}
VA=$SRC/traces/accelsim-vectoradd
BT=$SRC/traces/accelsim-rodinia-bptree-h100
run() { # OUT ARGS...: a quiet run, JSON to OUT
	local out=$1
	shift
	"$GPUVM" sim "$@" --json "$out" --quiet --no-outdir 2>err.txt ||
		fail "sim $*: exit $? ($(cat err.txt))"
}

# 1. a system of one given one trace is the --gpu run
run g.json --gpu h100 --trace "$VA"
run s.json --system h100 --trace "$VA"
cmp -s <(strip g.json) <(strip s.json) ||
	fail "--system h100 --trace differs from --gpu h100: $(diff <(strip g.json) <(strip s.json) | head -5)"
echo "ok - a system of one with one trace is the --gpu run"

# 2. two GPUs, the same trace on both: each GPU's time is the one-GPU run's
run one-va.json --system dgx-h100-8:gpus=1 --trace "$VA"
run one-bt.json --system dgx-h100-8:gpus=1 --trace "$BT"
run two-va.json --system dgx-h100-8:gpus=2 --trace "$VA" --trace "$VA"
[ "$(num two-va.json gpus)" = 2 ] || fail "same trace twice: not 2 GPUs in the report"
for d in 0 1; do
	for k in sim_cycles sim_seconds warp_instructions dram_bytes; do
		[ "$(num two-va.json gpu/$d/$k)" = "$(num one-va.json $k)" ] ||
			fail "same trace twice: GPU $d's $k $(num two-va.json gpu/$d/$k), one GPU's $(num one-va.json $k)"
	done
	[ "$(num two-va.json gpu/$d/workload)" = "'trace:$VA'" ] ||
		fail "GPU $d's workload is $(num two-va.json gpu/$d/workload)"
done
[ "$(num two-va.json sim_seconds)" = "$(num one-va.json sim_seconds)" ] ||
	fail "same trace twice: the run's time $(num two-va.json sim_seconds) is not one GPU's"
[ "$(num two-va.json peer_copies)" = 0 ] || fail "a trace per GPU made peer copies"
echo "ok - the same trace on two GPUs: each GPU's time is the one-GPU run's"

# 3. two different traces: each GPU its own, the run's time the max
run two.json --system dgx-h100-8:gpus=2 --trace "$VA" --trace "$BT"
[ "$(num two.json gpu/0/sim_cycles)" = "$(num one-va.json sim_cycles)" ] ||
	fail "two traces: GPU 0 is not the vectoradd run"
[ "$(num two.json gpu/1/sim_cycles)" = "$(num one-bt.json sim_cycles)" ] ||
	fail "two traces: GPU 1 is not the bptree run"
python3 - two.json <<'PY' || fail "two traces: the run's time is not the later GPU's end"
import json, sys
r = json.load(open(sys.argv[1]))
ends = [g["sim_seconds"] for g in r["gpu"]]
assert ends[0] != ends[1], ends  # two traces of different lengths
assert r["sim_seconds"] == max(ends), (r["sim_seconds"], ends)
PY
run wl.json --system dgx-h100-8:gpus=2 --workload "trace:$VA;$BT"
cmp -s <(strip two.json) <(strip wl.json) || fail "--workload trace:A;B differs from --trace A --trace B"
echo "ok - two traces on two GPUs: each its own run, the run's time the later end"

# 4. bad input: the option named, exit 2, nothing written
expect2() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	rm -f x.json
	"$GPUVM" sim "$@" --json x.json --quiet --no-outdir >out.txt 2>err.txt
	local rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, not 2"
	grep -q -- "$pat" err.txt || fail "$what: message '$(cat err.txt)' lacks '$pat'"
	[ -e x.json ] && fail "$what: refused but x.json written"
}
expect2 "too few traces" "^gpuvm sim: --trace: 1 trace for the 2 GPUs" \
	--system dgx-h100-8:gpus=2 --trace "$VA"
expect2 "too many traces" "^gpuvm sim: --trace: 3 traces for the 2 GPUs" \
	--system dgx-h100-8:gpus=2 --trace "$VA" --trace "$VA" --trace "$VA"
expect2 "two traces on a system of one" "^gpuvm sim: --trace: 2 traces for the 1 GPU " \
	--system h100 --trace "$VA" --trace "$VA"
expect2 "two traces on --gpu" "^gpuvm sim: --trace given 2 times: one per GPU of --system" \
	--gpu h100 --trace "$VA" --trace "$VA"
expect2 "a missing trace" "^gpuvm sim: --trace: GPU 1: .*no-such-trace" \
	--system dgx-h100-8:gpus=2 --trace "$VA" --trace no-such-trace

if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "sim --system with a trace per GPU: ok"
