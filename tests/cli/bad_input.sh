#!/usr/bin/env bash
# Every kind of bad input gets a message naming file, line and key, exit
# status 2, and no output file. usage: bad_input.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-bad-input.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
WL=random-sampling:threads=256,reads=4

# expect_fail NAME EXPECTED-SUBSTRING ARGS...: runs gpuvm sim with --json out.json
expect_fail() {
	local name=$1 want=$2
	shift 2
	rm -f out.json
	"$GPUVM" sim "$@" --json out.json >stdout.txt 2>stderr.txt
	local rc=$?
	if [ $rc -ne 2 ]; then
		echo "FAIL $name: exit $rc, wanted 2"; cat stderr.txt; failures=$((failures + 1)); return
	fi
	if ! grep -qF -- "$want" stderr.txt; then
		echo "FAIL $name: message lacks '$want':"; cat stderr.txt; failures=$((failures + 1)); return
	fi
	if ls out.json* >/dev/null 2>&1; then
		echo "FAIL $name: left an output file"; failures=$((failures + 1)); return
	fi
	echo "ok - $name: $(head -c 160 stderr.txt)"
}

# A valid small preset to mutate, one key per line so lines are known.
"$GPUVM" presets p100 >base.ini || { echo "FAIL: presets p100"; exit 1; }
mutate() { # file key-line-regex replacement
	sed "s|^$2.*|$3|" base.ini >"$1"
}
line_of() { grep -n "^$2" "$1" | head -1 | cut -d: -f1; }

mutate unknown_key.ini "mshrs = 64" "mshrz = 64"
expect_fail "unknown key" "unknown_key.ini:$(line_of unknown_key.ini 'mshrz'): tlb.l2.mshrz" --gpu unknown_key.ini --workload $WL

mutate zero_entries.ini "entries = 65" "entries = 0"
expect_fail "zero entries" "zero_entries.ini:$(line_of zero_entries.ini 'entries = 0'): tlb.l2.entries" --gpu zero_entries.ini --workload $WL

mutate neg_entries.ini "entries = 65" "entries = -3"
expect_fail "negative entries" "neg_entries.ini:$(line_of neg_entries.ini 'entries = -3'): tlb.l2.entries" --gpu neg_entries.ini --workload $WL

mutate pow2.ini "entry_size = 32MiB" "entry_size = 3MiB"
expect_fail "entry size not a power of two" "pow2.ini:$(line_of pow2.ini 'entry_size = 3MiB'): tlb.l2.entry_size" --gpu pow2.ini --workload $WL

mutate malformed.ini "walkers = 32" "walkers = 3x2"
expect_fail "malformed number" "malformed.ini:$(line_of malformed.ini 'walkers = 3x2'): walker.walkers" --gpu malformed.ini --workload $WL

mutate sharemap.ini "share = gpc" "share = map"
sed -i "s|^share = map|share = map\nshare_map = 0 0 1 1|" sharemap.ini
expect_fail "sharing map not covering the SMs" "sharemap.ini:$(line_of sharemap.ini 'share_map'): tlb.l2.share_map" --gpu sharemap.ini --workload $WL

expect_fail "missing preset file" "no_such_preset.ini" --gpu ./no_such_preset.ini --workload $WL
expect_fail "unknown preset name" "no-such-gpu" --gpu no-such-gpu --workload $WL
expect_fail "--set unknown key" "--set: tlb.l9.entries" --gpu p100 --set tlb.l9.entries=4 --workload $WL
expect_fail "--set malformed value" "--set: tlb.l1.entries" --gpu p100 --set tlb.l1.entries=1e3x --workload $WL
expect_fail "--set zero walkers" "--set: walker.walkers" --gpu p100 --set walker.walkers=0 --workload $WL
# the write drain's hold needs the drain it holds reads behind (k80: no
# batch, no turnaround); a controller's channels are bounded
expect_fail "--set drain hold without a drain" "--set: dram.drain_hold" \
	--gpu k80 --set dram.drain_hold=on --workload $WL
expect_fail "--set drain group too large" "--set: dram.drain_group_channels" \
	--gpu p100 --set dram.drain_group_channels=2000 --workload $WL
# how a counter migration happens: a name, from --set or a preset file
expect_fail "--set bad counter migration" "--set: uvm.counter_migration" \
	--gpu p100 --set uvm.counter_migration=sometimes --workload $WL
"$GPUVM" presets gtx1080ti-uvmsmart >uvmsmart.ini || { echo "FAIL: presets gtx1080ti-uvmsmart"; exit 1; }
sed -i "s|^counter_migration = fault|counter_migration = sometimes|" uvmsmart.ini
expect_fail "bad counter migration in a preset" \
	"uvmsmart.ini:$(line_of uvmsmart.ini 'counter_migration'): uvm.counter_migration" \
	--gpu uvmsmart.ini --workload $WL
# how a TLB hit on a remote entry is served: link or local
expect_fail "--set bad remote TLB hits" "--set: uvm.remote_tlb_hits" \
	--gpu p100 --set uvm.remote_tlb_hits=sometimes --workload $WL
"$GPUVM" presets gtx1080ti-uvmsmart >uvmsmart2.ini || { echo "FAIL: presets gtx1080ti-uvmsmart"; exit 1; }
sed -i "s|^remote_tlb_hits = local|remote_tlb_hits = remote|" uvmsmart2.ini
expect_fail "bad remote TLB hits in a preset" \
	"uvmsmart2.ini:$(line_of uvmsmart2.ini 'remote_tlb_hits'): uvm.remote_tlb_hits" \
	--gpu uvmsmart2.ini --workload $WL
expect_fail "bad workload size" "region" --gpu p100 --workload random-sampling:region=4GiX
expect_fail "unknown workload parameter" "nosuch" --gpu p100 --workload random-sampling:nosuch=1
expect_fail "unknown workload" "unknown workload" --gpu p100 --workload nothing
expect_fail "bad seed" "--seed" --gpu p100 --workload $WL --seed -1
# a likely typo gets the name it was probably meant to be
expect_fail "--set key typo" "unknown key (did you mean tlb.l2.entries?)" \
	--gpu p100 --set tlb.l2.entires=64 --workload $WL
expect_fail "workload typo" "did you mean random-sampling?" --gpu p100 --workload random-samplng
expect_fail "workload parameter typo" "did you mean reads?" --gpu p100 --workload random-sampling:raeds=4
# oversubscription without managed memory would silently run unpaged
expect_fail "--oversub without mem=managed" "add the workload parameter mem=managed" \
	--gpu p100 --workload $WL --oversub 125
expect_fail "--oversub on a trace without --trace-managed" "--trace-managed" \
	--gpu p100 --trace "$SRC/traces/accelsim-vectoradd" --oversub 125
for args in "--repeat 0" "--repeat x" "--bogus" "extra"; do
	"$GPUVM" bench $args >/dev/null 2>err.txt
	rc=$?
	[ $rc -eq 2 ] && [ -s err.txt ] || { echo "FAIL: bench $args: exit $rc"; failures=$((failures + 1)); }
done
"$GPUVM" bench --json nodir/b.json 2>err.txt
[ $? -eq 2 ] && grep -q "nodir" err.txt || { echo "FAIL: bench --json in a missing directory"; failures=$((failures + 1)); }
"$GPUVM" sim -q --gpu p100 --workload $WL >q.txt 2>&1 && [ ! -s q.txt ] ||
	{ echo "FAIL: sim -q printed or failed: $(cat q.txt)"; failures=$((failures + 1)); }
"$GPUVM" --version | grep -q "^gpuvm [0-9]*\.[0-9]*\.[0-9]* (commit " ||
	{ echo "FAIL: --version"; failures=$((failures + 1)); }

# The happy path writes the JSON with the promised keys.
"$GPUVM" sim --gpu p100 --workload $WL --json good.json --quiet || { echo "FAIL: good run"; exit 1; }
for key in config tlb walks dram_bytes pcie_h2d_bytes sim_cycles sim_seconds \
	accesses_per_sim_second wall_seconds warp_instructions thread_accesses gpuvm_version \
	gpuvm_commit; do
	grep -q "\"$key\"" good.json || { echo "FAIL: JSON lacks $key"; failures=$((failures + 1)); }
done
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all bad inputs rejected"
