#!/usr/bin/env bash
# Values that would hang a run or make it lie are refused at once (exit 2,
# the key and its range named); presets are complete or name a base; runs
# estimated past the work cap need --force; extreme accepted values finish.
# usage: value_ranges.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-ranges.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
cases=0
WL=random-sampling:threads=256,reads=4
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
# Time limits are on CPU time (user + system of the command and its
# children, from bash's `time`), not wall: a refusal costs milliseconds of
# CPU however busy the host, while its wall time under ASan on a host at
# load average 20 passes a second.
TIMEFORMAT='%3U %3S'
# timed OUT ERR CMD...: runs CMD with stdout to OUT and stderr to ERR; sets
# rc and cpu_ms
timed() {
	local out=$1 err=$2
	shift 2
	{ time "$@" >"$out" 2>"$err"; } 2>cpu.txt
	rc=$?
	cpu_ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' cpu.txt)
}

# refuse NAME WANT... -- ARGS: exit 2 within 1 s, every WANT in the message, no output
refuse() {
	local name=$1
	shift
	local wants=()
	while [ "$1" != "--" ]; do wants+=("$1"); shift; done
	shift
	cases=$((cases + 1))
	rm -f out.json
	local rc cpu_ms
	timed out.txt err.txt timeout 20 "$GPUVM" "$@" --json out.json
	if [ $rc -ne 2 ]; then fail "$name: exit $rc, wanted 2: $(head -c 300 err.txt)"; return; fi
	for w in "${wants[@]}"; do
		grep -qF -- "$w" err.txt || { fail "$name: message lacks '$w': $(cat err.txt)"; return; }
	done
	if [ "$cpu_ms" -gt 1000 ]; then fail "$name: took $cpu_ms ms of CPU (limit 1 s)"; return; fi
	if ls out.json* >/dev/null 2>&1; then fail "$name: left an output file"; return; fi
	echo "ok - $name ($cpu_ms ms CPU): $(head -c 160 err.txt)"
}

# --- the issue's three hangs ------------------------------------------------
refuse "dram bandwidth 1e-300" "dram.bandwidth_gb_s" "range [0.001, 100000]" -- \
	sim --gpu p100 --set dram.bandwidth_gb_s=1e-300 --workload $WL
refuse "walker latency 1e12" "walker.latency_cycles" "range [0, 10000000]" -- \
	sim --gpu p100 --set walker.latency_cycles=1e12 --workload $WL
refuse "reads = 2^64-1" "reads=18446744073709551615" "out of range [1, 1073741824]" -- \
	sim --gpu p100 --workload random-sampling:reads=18446744073709551615
# more physical ranges
refuse "pcie bandwidth 0" "pcie.bandwidth_gb_s" "range" -- sim --gpu p100 --set pcie.bandwidth_gb_s=0 --workload $WL
refuse "clock 1 THz" "gpu.clock_mhz" "range [1, 10000]" -- sim --gpu p100 --set gpu.clock_mhz=1e6 --workload $WL
refuse "issue rate 1e-9" "gpu.issue_warp_insts_per_cycle" "range" -- \
	sim --gpu p100 --set gpu.issue_warp_insts_per_cycle=1e-9 --workload $WL
refuse "fault latency 1e9 us" "uvm.fault_latency_us" "range" -- \
	sim --gpu k80 --set uvm.fault_latency_us=1e9 --workload $WL
refuse "tlb miss penalty 1e12" "tlb.l1.miss_penalty_cycles" "range" -- \
	sim --gpu p100 --set tlb.l1.miss_penalty_cycles=1e12 --workload $WL
refuse "l2 of a TiB" "l2.size" "range" -- sim --gpu p100 --set l2.size=1TiB --workload $WL
refuse "oversubscription 1e5 %" "uvm.oversub_percent" "range" -- sim --gpu k80 --oversub 100000 --workload $WL
refuse "device memory of 100 bytes" "uvm.device_memory" "one 4KiB page" -- \
	sim --gpu k80 --set uvm.device_memory=100 --workload $WL
refuse "block of 4096 threads" "block=4096" "[32, 1024]" -- sim --gpu p100 --workload random-sampling:block=4096
refuse "a workload count past 2^40" "n=" "out of range" -- sim --gpu p100 --workload atax:n=2000000000000
refuse "a workload size past 2^49" "region=" "out of range" -- sim --gpu p100 --workload random-sampling:region=1024TiB
refuse "sweep: reads = 2^64-1" "reads=" "out of range" -- \
	sweep --gpu p100 --workload random-sampling:threads=256 --vary workload.reads=4,18446744073709551615

# --- the work cap ----------------------------------------------------------------
refuse "a run past the work cap" "thread accesses" "--force" "CPU hours" -- \
	sim --gpu p100 --workload random-sampling:reads=1000000
# (with --fail-fast; by default the point's row records it: tests/cli/sweep.sh)
refuse "a sweep point past the work cap (--fail-fast)" "thread accesses" "--force" -- \
	sweep --gpu p100 --workload random-sampling --vary workload.reads=4,1000000 --fail-fast
refuse "every sweep point past the work cap" "thread accesses" "--force" -- \
	sweep --gpu p100 --workload random-sampling --vary workload.reads=1000000,2000000
refuse "triad past the work cap" "thread accesses" -- sim --gpu p100 --workload stream-triad:elems=100000000000
refuse "group-by past the work cap" "thread accesses" -- sim --gpu p100 --workload hash-groupby:input=100000000000
# --force passes the check: the run then starts (and is stopped here at once)
cases=$((cases + 1))
timeout -s INT 3 "$GPUVM" sim --gpu p100 --workload random-sampling:reads=1000000 --force --quiet >out.txt 2>err.txt
rc=$?
if [ $rc -eq 2 ]; then fail "--force still refused: $(cat err.txt)"
else echo "ok - --force passes the work cap (run started, stopped by the test: exit $rc)"; fi

# --- numbers are decimal or 0x hex ------------------------------------------------
cases=$((cases + 1))
"$GPUVM" presets p100 | sed 's/^mshrs = \(.*\)$/mshrs = 010/' >octal.ini
if "$GPUVM" sim --gpu ./octal.ini --workload $WL --json - 2>err.txt | grep -q '"tlb.l1.mshrs":\s*10,'; then
	echo "ok - 'mshrs = 010' is ten"
else fail "'mshrs = 010' is not ten: $(cat err.txt)"; fi
cases=$((cases + 1))
if "$GPUVM" sim --gpu p100 --set walker.walkers=0x40 --workload $WL --json - 2>err.txt | grep -q '"walker.walkers":\s*64,'; then
	echo "ok - 'walkers=0x40' is 64"
else fail "'walkers=0x40' is not 64: $(cat err.txt)"; fi

# --- presets: complete, or a base ------------------------------------------------
printf '[gpu]\nsms = 4\n' >partial.ini
refuse "a preset missing keys" "partial.ini" "gpu.description: missing" "base = NAME" -- \
	sim --gpu ./partial.ini --workload $WL
printf 'base = p100\n[tlb.l2]\nentries = 128\n' >based.ini
cases=$((cases + 1))
if "$GPUVM" sim --gpu ./based.ini --workload $WL --json - 2>err.txt >based.json &&
	grep -q '"tlb.l2.entries":\s*128,' based.json && grep -q '"gpu.sms":\s*56,' based.json; then
	echo "ok - 'base = p100' loads p100 and overrides it"
else fail "'base = p100': $(cat err.txt)"; fi
printf 'base = ./loop.ini\n' >loop.ini
refuse "a preset that is its own base" "base" "deep" -- sim --gpu ./loop.ini --workload $WL
printf '[gpu]\nsms = 28\nbase = p100\n' >late.ini
refuse "base after a section" "late.ini:3" -- sim --gpu ./late.ini --workload $WL
printf 'base = p100\n[gpu]\nclock_mhz = 0\n' >badbase.ini
refuse "a bad value over a base" "badbase.ini:3: gpu.clock_mhz" -- sim --gpu ./badbase.ini --workload $WL
printf 'base = no-such-gpu\n' >nobase.ini
refuse "an unknown base" "nobase.ini:1: base" "no-such-gpu" -- sim --gpu ./nobase.ini --workload $WL
# (v100: two TLB levels; p100 has three, Karnagel 4.1's L3)
refuse "a TLB level raised by --set without its keys" "tlb.l3" "needs every key" -- \
	sim --gpu v100 --set tlb.levels=3 --workload $WL
cases=$((cases + 1))
L3="--set tlb.levels=3 --set tlb.l3.entries=128 --set tlb.l3.ways=16 --set tlb.l3.entry_size=32MiB
    --set tlb.l3.share=gpu --set tlb.l3.hit_latency_cycles=0 --set tlb.l3.miss_penalty_cycles=50
    --set tlb.l3.mshrs=64"
if "$GPUVM" sim --gpu v100 $L3 --workload $WL --quiet 2>err.txt; then
	echo "ok - a TLB level raised by --set with all its keys runs"
else fail "tlb.levels=3 with every key: $(cat err.txt)"; fi
# every shipped preset is complete and its printed form loads back
for p in $("$GPUVM" presets | awk 'NR>1 && $2 ~ /^[0-9]+$/ {print $1}'); do
	cases=$((cases + 1))
	"$GPUVM" presets "$p" >"$p.ini" 2>/dev/null
	if "$GPUVM" sim --gpu "./$p.ini" --workload $WL --quiet 2>err.txt; then echo "ok - preset $p is complete"
	else fail "preset $p: $(cat err.txt)"; fi
done

# --- extreme accepted values finish in time proportional to the work ---------------
fast() { # name, set...
	local name=$1
	shift
	cases=$((cases + 1))
	local rc cpu_ms
	timed /dev/stdout err.txt timeout 60 "$GPUVM" sim --gpu p100 "$@" \
		--workload random-sampling:threads=4096,reads=16 --quiet
	if [ $rc -ne 0 ]; then fail "$name: exit $rc $(cat err.txt)"
	elif [ "$cpu_ms" -gt 10000 ]; then fail "$name: took $cpu_ms ms of CPU"
	else echo "ok - $name: $cpu_ms ms CPU"; fi
}
fast "1 MB/s DRAM" --set dram.bandwidth_gb_s=1e-3
fast "1 MB/s PCIe, zero-copy" --set pcie.bandwidth_gb_s=1e-3
fast "10^7-cycle walks" --set walker.latency_cycles=1e7
fast "10^7-cycle TLB misses" --set tlb.l1.miss_penalty_cycles=1e7 --set tlb.l2.miss_penalty_cycles=1e7
fast "10^7-cycle DRAM" --set dram.latency_cycles=1e7
fast "0.01 warp instructions per cycle" --set gpu.issue_warp_insts_per_cycle=0.01
cases=$((cases + 1))
timed /dev/stdout err.txt timeout 60 "$GPUVM" sim --gpu k80 --set pcie.bandwidth_gb_s=1e-3 \
	--set uvm.fault_latency_us=1e6 --workload stream-triad:elems=65536,mem=managed --oversub 125 --quiet
if [ $rc -ne 0 ] || [ "$cpu_ms" -gt 10000 ]; then fail "slow managed paging: exit $rc, $cpu_ms ms CPU $(cat err.txt)"
else echo "ok - 1 MB/s paging with 1 s faults: $cpu_ms ms CPU"; fi

echo "value_ranges: $cases cases, $failures failed"
[ $failures -eq 0 ]
