#!/usr/bin/env bash
# Options given twice, and option text past a fixed buffer (issue 79, items
# 2 and 3), through the rules every command shares (src/cli/cli_options.h):
# a valued option that may not repeat is an error quoting both occurrences;
# --set keys compare case-insensitively, as the config reads them; a sweep
# checks duplicate --set keys as sim does and refuses a --set on a key it
# varies; sweep --oversub reads its whole argument.
# usage: repeated_options.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-repeat-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }
expect2() { # message-substring command...
	local pat=$1
	shift
	set +e
	"$@" >out.txt 2>err.txt
	local rc=$?
	set -e
	[ $rc -eq 2 ] || fail "$*: exit $rc, wanted 2 ($(cat err.txt))"
	grep -qF -- "$pat" err.txt || fail "$*: message does not say '$pat': $(cat err.txt)"
	[ ! -e out.json ] || fail "$*: wrote out.json"
}
WL=random-sampling:region=64MiB,reads=4,mem=managed

# sim: --oversub and --migration each became a --set through one shared
# buffer, so a second one rewrote the first and the duplicate check saw
# one setting; the last won with exit 0
expect2 "--oversub given twice ('--oversub 110', then '--oversub 150')" \
	"$GPUVM" sim --gpu p100 --workload "$WL" --oversub 110 --oversub 150 --json out.json
expect2 "--oversub given twice ('--oversub=110', then '--oversub 110')" \
	"$GPUVM" sim --gpu p100 --workload "$WL" --oversub=110 --oversub 110 --json out.json
expect2 "--migration given twice ('--migration always', then '--migration first-touch')" \
	"$GPUVM" sim --gpu p100 --workload "$WL" --migration always --migration first-touch \
	--json out.json
expect2 "--gpu given twice" "$GPUVM" sim --gpu p100 --gpu k80 --workload "$WL" --json out.json
pass "sim: a valued option twice is refused, both occurrences quoted"

# config keys are case-insensitive, and so is the duplicate check
expect2 "key 'UVM.Migration' given twice ('UVM.Migration=always', then 'uvm.migration=first-touch')" \
	"$GPUVM" sim --gpu p100 --workload "$WL" --set UVM.Migration=always \
	--set uvm.migration=first-touch --json out.json
expect2 "given twice" "$GPUVM" sim --gpu p100 --workload "$WL" --oversub 110 \
	--set UVM.OVERSUB_PERCENT=150 --json out.json
# repeatable ones still repeat; a flag twice is the flag; one key set twice
# to the same value is harmless
"$GPUVM" sim --gpu p100 --workload "$WL" --set uvm.migration=always --set tlb.l2.entries=1024 \
	--set UVM.migration=always -q -q --json a.json || fail "repeatable --set and -q refused"
pass "sim: --set keys compared case-insensitively; --set and flags repeat"

# sweep: the same rules (it had no duplicate --set check, and a --set on a
# varied key was dropped at every point)
expect2 "key 'tlb.l2.entries' given twice" "$GPUVM" sweep --gpu p100 --workload "$WL" \
	--set tlb.l2.entries=512 --set TLB.L2.Entries=1024 --json out.json
expect2 "--set 'TLB.l2.entries=512' names 'tlb.l2.entries', which --vary varies" \
	"$GPUVM" sweep --gpu p100 --workload "$WL" --set TLB.l2.entries=512 \
	--vary tlb.l2.entries=256,1024 --json out.json
# one config key varied under two spellings made a grid of the same runs
expect2 "varied twice ('TLB.l2.entries', then 'tlb.l2.entries')" "$GPUVM" sweep --gpu p100 \
	--workload "$WL" --vary TLB.l2.entries=256,512 --vary tlb.l2.entries=1024 --json out.json
expect2 "--oversub given twice" "$GPUVM" sweep --gpu p100 --workload "$WL" --oversub 110 \
	--oversub 150 --json out.json
expect2 "--jobs given twice ('-j 2', then '--jobs 3')" "$GPUVM" sweep --gpu p100 \
	--workload "$WL" -j 2 --jobs 3 --json out.json
expect2 "--workload given twice" "$GPUVM" sweep --gpu p100 --workload "$WL" --workload "$WL" \
	--json out.json
expect2 "--oversub given twice" "$GPUVM" sweep --gpu p100 --workload "$WL" --oversub 125 \
	--vary seed=1,2 --oversub 125 --json out.json
pass "sweep: duplicate and varied --set keys refused; a valued option twice refused"

# sweep --oversub kept 64 bytes of "uvm.oversub_percent=VALUE": a 45-digit
# spelling of 125 ran as 1.25 %
# (a smaller managed run than $WL, which pages and evicts alike: at 125 %
# $WL took 5 CPU seconds a sweep under ASan, this one 0.1; the value read
# and the capacity it gives are what is checked, not the run)
long=000000000000000000000000000000000000000000125
OWL=random-sampling:region=8MiB,reads=1,threads=4096,mem=managed
"$GPUVM" sweep --gpu p100 --workload "$OWL" --oversub "$long" --json long.json -q ||
	fail "sweep --oversub $long: exit $?"
"$GPUVM" sweep --gpu p100 --workload "$OWL" --oversub 125 --json short.json -q ||
	fail "sweep --oversub 125: exit $?"
python3 - <<'PY' || fail "sweep --oversub $long is not 125 %"
import json
a, b = (json.load(open(f))[0] for f in ("long.json", "short.json"))
pa, pb = a["config"]["uvm.oversub_percent"], b["config"]["uvm.oversub_percent"]
assert pa == pb == 125, (pa, pb)
assert a["uvm"]["capacity_pages"] == b["uvm"]["capacity_pages"], "capacity differs"
PY
pass "sweep --oversub reads its whole argument (47 digits: 125 %)"

# sim --scope copied its value into 32 bytes: a 34-character spelling of
# 1 GiB ran as scope=0000000000000000000000001048576, i.e. 1 MiB
scope=0000000000000000000000001048576KiB
"$GPUVM" sim --gpu p100 --workload random-sampling:region=4GiB,reads=4 --scope "$scope" \
	--json scope.json -q || fail "sim --scope $scope: exit $?"
python3 - "$scope" <<'PY' || fail "sim --scope $scope was not passed on whole"
import json, sys
w = json.load(open("scope.json"))["workload"]
assert w.endswith(",scope=" + sys.argv[1]), w
PY
pass "sim --scope passes its whole argument on"

# every other command follows the same rule (one mechanism: gpuvm_getopt)
VA=$(realpath "$2")/traces/accelsim-vectoradd
expect2 "gpuvm trace: --gpu given twice ('--gpu p100', then '--gpu=k80')" \
	"$GPUVM" trace info "$VA" --gpu p100 --gpu=k80
expect2 "gpuvm stats: --json given twice" "$GPUVM" stats a.json --json x.json --json y.json
expect2 "gpuvm validate: --gpu given twice" "$GPUVM" validate --gpu p100 --gpu k80
expect2 "gpuvm calibrate: --gpu given twice" "$GPUVM" calibrate --gpu p100 --gpu k80
expect2 "gpuvm probe: --target given twice" "$GPUVM" probe --target a --target b
expect2 "gpuvm probe: --set: key 'TLB.l2.entries' given twice" "$GPUVM" probe --target sim:p100 \
	--set TLB.l2.entries=128 --set tlb.l2.entries=256
# --input is repeatable (its help says so): the second one is not refused
# as a repeat (the run then fails for the missing files, not the option)
set +e
"$GPUVM" probe --target cuda --input no-a.csv --input no-b.csv >out.txt 2>err.txt
set -e
! grep -q "given twice" err.txt || fail "probe --input twice refused as a repeat: $(cat err.txt)"
expect2 "gpuvm graph: --seed given twice" "$GPUVM" graph info x.mtx --seed 1 --seed 2
expect2 "gpuvm bench: --repeat given twice" "$GPUVM" bench --repeat 1 --repeat=2
pass "trace, stats, validate, calibrate, probe, graph, bench: a valued option twice refused"
