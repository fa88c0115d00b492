#!/usr/bin/env bash
# gpuvm sim --system: a system of one GPU gives the plain preset's run,
# JSON and stats CSV alike (wall times aside); several GPUs run the
# multi-GPU workloads with their results checked; launches on two GPUs
# overlap; a peer copy's time follows the NVLink rate and goes through the
# host when no NVLink joins the GPUs; the description's numbers reach each
# GPU's configuration; bad --system input is refused with file:line.
# usage: sim_system.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-sim-system.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
strip() { python3 "$SRC/scripts/report-strip.py" "$1"; }
# a value of a report by its path "a/b" or "gpu/0/config/pcie.latency_ns"
num() {
	python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("/"):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$1" "$2"
}
# awk: 1 when lo <= a / b <= hi
ratio_in() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { r = a / b; exit !(r >= lo && r <= hi) }'; }

# 1. a system of one is its preset's run, bit for bit
while read -r gpu sys wl; do
	"$GPUVM" sim --gpu "$gpu" --workload "$wl" --json a.json --stats-csv a.csv --quiet 2>err.txt ||
		fail "--gpu $gpu $wl: exit $? ($(cat err.txt))"
	"$GPUVM" sim --system "$sys" --workload "$wl" --json b.json --stats-csv b.csv --quiet 2>err.txt ||
		fail "--system $sys $wl: exit $? ($(cat err.txt))"
	cmp -s <(strip a.json) <(strip b.json) ||
		fail "--system $sys differs from --gpu $gpu on $wl: $(diff <(strip a.json) <(strip b.json) | head -5)"
	cmp -s <(grep -v wall a.csv) <(grep -v wall b.csv) ||
		fail "--system $sys stats CSV differs from --gpu $gpu on $wl"
done <<'LIST'
h100 h100 stream-triad-simt:elems=262144
p100 single-p100 bfs:graph=rmat:scale=12
h100 h100 hotspot:n=256
LIST
"$GPUVM" sim --gpu p100 --workload stream-triad-simt:elems=500000,mem=managed --oversub 125 \
	--json a.json --quiet 2>err.txt || fail "managed --gpu: $(cat err.txt)"
"$GPUVM" sim --system p100 --workload stream-triad-simt:elems=500000,mem=managed --oversub 125 \
	--json b.json --quiet 2>err.txt || fail "managed --system: $(cat err.txt)"
cmp -s <(strip a.json) <(strip b.json) || fail "--system p100 differs from --gpu p100 with managed memory"

# 2. several GPUs: the workloads' results check out
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload triad-mgpu:elems=300001,verify=1 --json t.json \
	--quiet 2>err.txt || fail "triad-mgpu: exit $? ($(cat err.txt))"
grep -q '"result":.*verify=pass' t.json || fail "triad-mgpu: $(grep '"result"' t.json | head -1)"
[ "$(num t.json gpus)" = 2 ] || fail "triad-mgpu: not 2 GPUs in the report"
"$GPUVM" sim --gpu h100 --workload stream-triad-simt:elems=300001 --json s.json --quiet
want=$(grep -o 'checksum=[0-9.e+]*' s.json | head -1)
grep -q "$want elems" t.json || fail "triad-mgpu's checksum is not stream-triad-simt's ($want)"
"$GPUVM" sim --system dgx-h100-8:gpus=3 --workload jacobi-mgpu:n=200,iters=3,verify=1 --json j.json \
	--quiet 2>err.txt || fail "jacobi-mgpu: exit $? ($(cat err.txt))"
grep -q '"result":.*verify=pass max_err=0' j.json || fail "jacobi-mgpu: $(grep '"result"' j.json | head -1)"
[ "$(num j.json peer_copies)" = 12 ] || fail "jacobi-mgpu: $(num j.json peer_copies) peer copies, not 3 x 4"
"$GPUVM" sim --gpu h100 --workload jacobi-mgpu:n=200,iters=3 --json j1.json --quiet
[ "$(grep -o 'digest=[0-9a-f]*' j1.json | head -1)" = "$(grep -o 'digest=[0-9a-f]*' j.json | head -1)" ] ||
	fail "jacobi-mgpu: 1 and 3 GPUs end with different grids"
"$GPUVM" sim --system dgx-h100-8 --workload allgather-mgpu:chunk=4096 --json g.json --quiet 2>err.txt ||
	fail "allgather-mgpu: exit $? ($(cat err.txt))"
grep -q '"result":.*gpus=8 gathered=pass' g.json || fail "allgather-mgpu: $(grep '"result"' g.json | head -1)"
[ "$(num g.json peer_copies)" = 56 ] || fail "allgather-mgpu: $(num g.json peer_copies) copies, not 8 x 7"
# a graph kernel split over GPUs: pull PageRank, each GPU's new ranks
# all-gathered each iteration (3 iterations x 3 GPUs x 2 peers = 18 copies
# of its slice, 3 x 2 x 4096 vertices x 4 B in all), the ranks the same
# bits as on one GPU and as the CPU's pull iteration (verify=1: exact).
# Without the all-gather the GPUs iterate on stale ranks: verify fails.
"$GPUVM" sim --system dgx-h100-8:gpus=3 --workload pagerank-mgpu:graph=rmat-12-8,iterations=3,verify=1 \
	--json pr.json --quiet 2>err.txt || fail "pagerank-mgpu: exit $? ($(cat err.txt))"
grep -q '"result":.*verify=pass .*gpus=3 .*exchange_bytes=98304' pr.json ||
	fail "pagerank-mgpu: $(grep '"result"' pr.json | head -1)"
[ "$(num pr.json peer_copies)" = 18 ] || fail "pagerank-mgpu: $(num pr.json peer_copies) peer copies, not 18"
"$GPUVM" sim --gpu h100 --workload pagerank-mgpu:graph=rmat-12-8,iterations=3,verify=1 --json pr1.json \
	--quiet 2>err.txt || fail "pagerank-mgpu on one GPU: exit $? ($(cat err.txt))"
[ "$(grep -o 'digest=[0-9a-f]*' pr1.json | head -1)" = "$(grep -o 'digest=[0-9a-f]*' pr.json | head -1)" ] ||
	fail "pagerank-mgpu: 1 and 3 GPUs end with different ranks"
"$GPUVM" sim --system dgx-h100-8:gpus=8 --workload pagerank-mgpu:graph=uniform,vertices=4,degree=1 \
	--quiet > out.txt 2>err.txt
rc=$?
[ $rc = 2 ] && grep -q "fewer vertices (4) than GPUs" err.txt ||
	fail "pagerank-mgpu: 4 vertices on 8 GPUs: exit $rc, $(cat err.txt)"

# the same run with worker threads executing the kernels (--threads)
"$GPUVM" sim --system dgx-h100-8:gpus=3 --workload jacobi-mgpu:n=200,iters=3 --threads 3 --json j3.json \
	--quiet 2>err.txt || fail "jacobi-mgpu --threads 3: exit $? ($(cat err.txt))"
"$GPUVM" sim --system dgx-h100-8:gpus=3 --workload jacobi-mgpu:n=200,iters=3 --json j1t.json --quiet
cmp -s <(strip j1t.json | grep -v '"threads') <(strip j3.json | grep -v '"threads') ||
	fail "jacobi-mgpu on 3 GPUs differs with --threads 3"

# 3. launches on two GPUs overlap: twice the work on two GPUs takes about
# the time of the work on one (serialised it would take twice). The host's
# launch period is set to 0: with h100's 3.51 us a call, kernels this
# short are bound by the host's launch rate, not by the GPUs
nolp="--set gpu.kernel_launch_period_us=0"
# the time of 40 more launches (the serial host copies around them cancel)
for g in 1 2; do
	for l in 1 41; do
		"$GPUVM" sim --system dgx-h100-8:gpus=$g --workload triad-mgpu:elems=$((65536 * g)),launches=$l \
			$nolp --json "o$g-$l.json" --quiet || fail "overlap run gpus=$g launches=$l"
	done
done
k1=$(awk -v a="$(num o1-41.json sim_seconds)" -v b="$(num o1-1.json sim_seconds)" 'BEGIN { print a - b }')
k2=$(awk -v a="$(num o2-41.json sim_seconds)" -v b="$(num o2-1.json sim_seconds)" 'BEGIN { print a - b }')
ratio_in "$k2" "$k1" 0.9 1.15 || fail "two GPUs' launches do not overlap: 40 launches each take $k2 s against $k1 s on one"

# 4. peer copies follow the NVLink rate; without NVLink they go through the host
two_gpus() { # NAME NVLINK_GB_S
	cat >"$1.ini" <<EOF
[system]
name = $1
description = two h100 for the test
source = tests/cli/sim_system.sh
[gpu.0]
preset = h100
[gpu.1]
preset = h100
[cpu.0]
memory_bytes = 1TiB
bandwidth_gb_s = 300
[link.0]
kind = pcie
endpoints = gpu.0 cpu.0
bandwidth_gb_s = 64
[link.1]
kind = pcie
endpoints = gpu.1 cpu.0
bandwidth_gb_s = 64
[link.2]
kind = nvlink
endpoints = gpu.0 gpu.1
bandwidth_gb_s = $2
count = 2
EOF
}
two_gpus nv100 50
two_gpus nv200 100
wl=allgather-mgpu:chunk=16777216,threads=4096
for s in nv100.ini nv200.ini nv100.ini:nvlink=off; do
	"$GPUVM" sim --system "$s" --workload "$wl" --json "p-${s%%.ini*}${s##*ini}.json" --quiet 2>err.txt ||
		fail "peer copy on $s: exit $? ($(cat err.txt))"
done
p1=$(num p-nv100.json peer_copy_seconds) p2=$(num p-nv200.json peer_copy_seconds)
# 2 x 64 MiB at 100 then 200 GB/s (+ 9.62 us each): 1.97x
ratio_in "$p1" "$p2" 1.9 2.02 || fail "peer copies at twice the NVLink rate: $p2 s against $p1 s"
[ "$(num p-nv100.json peer_host_bytes)" = 0 ] || fail "NVLink copies staged through the host"
ph=$(num p-nv100:nvlink=off.json peer_copy_seconds)
[ "$(num p-nv100:nvlink=off.json peer_nvlink_bytes)" = 0 ] || fail "nvlink=off: bytes over NVLink"
[ "$(num p-nv100:nvlink=off.json peer_host_bytes)" = 134217728 ] || fail "nvlink=off: not staged through the host"
# through the host: 2 x (D2H + H2D) at 0.815 x 64 GB/s, ~4.1 ms, against 1.35 ms
ratio_in "$ph" "$p1" 2.5 4 || fail "staged copies take $ph s against $p1 s over NVLink"
grep -q gathered=pass p-nv100:nvlink=off.json || fail "nvlink=off: all-gather wrong"

# 5. the description's numbers reach each GPU's configuration
cat >mem.ini <<'EOF'
[system]
name = small
description = an h100 with 1 GiB on a slow link
source = tests/cli/sim_system.sh
[gpu.0]
preset = h100
memory_bytes = 1GiB
[gpu.1]
preset = h100
[cpu.0]
memory_bytes = 1TiB
bandwidth_gb_s = 300
[link.0]
kind = pcie
endpoints = gpu.0 cpu.0
bandwidth_gb_s = 16
latency_ns = 900
[link.1]
kind = pcie
endpoints = gpu.1 cpu.0
bandwidth_gb_s = 32
count = 2
EOF
"$GPUVM" sim --system mem.ini --workload triad-mgpu:elems=1000 --json m.json --quiet 2>err.txt ||
	fail "mem.ini: exit $? ($(cat err.txt))"
[ "$(num m.json gpu/0/config/gpu.memory)" = 1GiB ] || [ "$(num m.json gpu/0/config/gpu.memory)" = 1073741824 ] ||
	fail "memory_bytes did not become gpu.memory: $(num m.json gpu/0/config/gpu.memory)"
[ "$(num m.json gpu/0/config/pcie.bandwidth_gb_s)" = 16 ] || fail "gpu.0's pcie rate not the link's"
[ "$(num m.json gpu/0/config/pcie.latency_ns)" = 900 ] || fail "gpu.0's pcie latency not the link's"
[ "$(num m.json gpu/1/config/pcie.bandwidth_gb_s)" = 64 ] || fail "gpu.1's pcie rate not 32 x 2"
"$GPUVM" sim --system mem.ini --workload triad-mgpu:elems=100000000,gpus=2 --quiet --no-outdir 2>err.txt
[ $? = 2 ] && grep -q 'GPU 0 does not fit' err.txt || fail "gpu.0's 1 GiB not enforced: $(cat err.txt)"

# ... and a GPU on NVLink-C2C gets the coherent link's keys: its rate x
# count, its CPU's memory bandwidth and system page size (a Grace Hopper
# superchip: docs/systems.md "Grace Hopper memory")
cat >c2c.ini <<'EOF'
[system]
name = c2c
description = a GH200-like superchip with numbers of its own
source = tests/cli/sim_system.sh
[gpu.0]
preset = h100
[cpu.0]
memory_bytes = 1TiB
bandwidth_gb_s = 300
page_sizes = 4KiB 64KiB
page_bytes = 4KiB
[link.0]
kind = nvlink-c2c
endpoints = cpu.0 gpu.0
bandwidth_gb_s = 100
count = 2
EOF
"$GPUVM" sim --system c2c.ini --workload vectoradd:n=4096,mem=system --json c.json --quiet \
	--no-outdir 2>err.txt || fail "c2c.ini: mem=system: exit $? ($(cat err.txt))"
[ "$(num c.json config/c2c.coherent)" = on ] || fail "c2c: c2c.coherent not on"
[ "$(num c.json config/c2c.bandwidth_gb_s)" = 200 ] || fail "c2c: rate not 100 x 2"
[ "$(num c.json config/c2c.cpu_memory_gb_s)" = 300 ] || fail "c2c: CPU memory rate not the file's"
case $(num c.json config/c2c.system_page_bytes) in 4KiB | 4096) ;; *) fail "c2c: system page not 4KiB" ;; esac
"$GPUVM" sim --system gh200 --workload vectoradd:n=4096,mem=system --no-outdir > gh.txt 2>err.txt ||
	fail "gh200: mem=system: exit $? ($(cat err.txt))"
# the text report names the link the bytes crossed, and counts the CPU
# memory the kernel read in place (4096 x 2 floats read, 64 B lines)
grep -q "^traffic .*NVLink-C2C h2d .*remote access 3.277e+04 B" gh.txt ||
	fail "gh200: the traffic line does not name NVLink-C2C or the remote access: $(grep traffic gh.txt)"
grep -q "^c2c  *mean utilization" gh.txt || fail "gh200: the link's line is not labelled c2c"
"$GPUVM" sim --gpu h100 --workload vectoradd:n=4096 --no-outdir 2>err.txt | grep -q "^traffic .*PCIe h2d" ||
	fail "h100: the traffic line does not name PCIe"
echo "ok - a GPU on NVLink-C2C: c2c.coherent on, its rate, its CPU memory and page size; gh200 runs mem=system"

# system memory on two GH200s, x placed by GPU 0's first touch: GPU 1
# reads it in place over NVLink, without a far fault or a migration
"$GPUVM" sim --system 2xgh200 --workload shared-read-mgpu:elems=262144,mode=system,verify=1 \
	--set c2c.first_touch=gpu --json sys2.json --quiet 2>err.txt ||
	fail "2xgh200 mem=system: exit $? ($(cat err.txt))"
grep -q "verify=pass" <(num sys2.json result) || fail "2xgh200 mem=system: $(num sys2.json result)"
[ "$(num sys2.json gpu/1/uvm/far_faults)" = 0 ] ||
	fail "2xgh200 mem=system: GPU 1 took $(num sys2.json gpu/1/uvm/far_faults) far faults"
[ "$(num sys2.json uvm_peer_pages)" = 0 ] || fail "2xgh200 mem=system: pages migrated GPU to GPU"
awk -v b="$(num sys2.json uvm_peer_remote_bytes)" 'BEGIN { exit !(b >= 1048576) }' ||
	fail "2xgh200 mem=system: $(num sys2.json uvm_peer_remote_bytes) bytes read in place, not x's 1 MiB"
echo "ok - mem=system on 2xgh200: GPU 1 reads GPU 0's first-touched pages in place over NVLink"

# 5b. managed memory shared by the GPUs (docs/systems.md "Managed memory on
# several GPUs"): far faults take the pages GPU to GPU over NVLink, a
# prefetch does without far faults; the results match
for mode in fault prefetch; do
	"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload shared-read-mgpu:elems=262144,verify=1,mode=$mode \
		--json "sr-$mode.json" --quiet 2>err.txt || fail "shared-read-mgpu $mode: exit $? ($(cat err.txt))"
	grep -q '"result":.*verify=pass' "sr-$mode.json" || fail "shared-read-mgpu $mode: not verified"
	[ "$(num "sr-$mode.json" uvm_peer_nvlink_bytes)" = 1048576 ] ||
		fail "shared-read-mgpu $mode: $(num "sr-$mode.json" uvm_peer_nvlink_bytes) bytes over NVLink, not 1 MiB"
	[ "$(num "sr-$mode.json" gpu/1/uvm/bytes_h2d)" = 0 ] || fail "shared-read-mgpu $mode: GPU 1 used its PCIe link"
done
[ "$(num sr-prefetch.json gpu/1/uvm/far_faults)" = 0 ] || fail "shared-read-mgpu prefetch: GPU 1 faulted"
[ "$(num sr-fault.json gpu/1/uvm/far_faults)" -gt 0 ] || fail "shared-read-mgpu fault: GPU 1 did not fault"
cmp -s <(grep -o 'checksum=[0-9.e+]*' sr-fault.json) <(grep -o 'checksum=[0-9.e+]*' sr-prefetch.json) ||
	fail "shared-read-mgpu: fault and prefetch checksums differ"
# two rounds: faults move x back and forth (3 moves), read-mostly copies once
for mode in fault read-mostly; do
	"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload shared-read-mgpu:elems=262144,rounds=2,mode=$mode \
		--json "sr2-$mode.json" --quiet 2>err.txt || fail "shared-read-mgpu rounds=2 $mode: exit $? ($(cat err.txt))"
done
[ "$(num sr2-fault.json uvm_peer_pages)" = 768 ] || fail "rounds=2 fault: $(num sr2-fault.json uvm_peer_pages) pages GPU to GPU, not 768"
[ "$(num sr2-read-mostly.json uvm_peer_pages)" = 256 ] ||
	fail "rounds=2 read-mostly: $(num sr2-read-mostly.json uvm_peer_pages) pages GPU to GPU, not 256"
# preferred location GPU 0: GPU 1 maps x there (a fault per page), nothing
# migrates, both rounds read it in GPU 0's memory; the same checksum
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload shared-read-mgpu:elems=262144,rounds=2,verify=1,mode=preferred \
	--json sr2-preferred.json --quiet 2>err.txt || fail "shared-read-mgpu preferred: exit $? ($(cat err.txt))"
grep -q '"result":.*verify=pass' sr2-preferred.json || fail "shared-read-mgpu preferred: not verified"
[ "$(num sr2-preferred.json uvm_peer_pages)" = 0 ] ||
	fail "preferred: $(num sr2-preferred.json uvm_peer_pages) pages GPU to GPU, not 0"
[ "$(num sr2-preferred.json gpu/1/uvm/remote_map_faults)" = 256 ] ||
	fail "preferred: GPU 1 took $(num sr2-preferred.json gpu/1/uvm/remote_map_faults) mapping faults, not 256"
[ "$(num sr2-preferred.json uvm_peer_remote_bytes)" = 2097152 ] ||
	fail "preferred: $(num sr2-preferred.json uvm_peer_remote_bytes) bytes read in GPU 0's memory, not 2 MiB"
cmp -s <(grep -o 'checksum=[0-9.e+]*' sr2-fault.json) <(grep -o 'checksum=[0-9.e+]*' sr2-preferred.json) ||
	fail "shared-read-mgpu: fault and preferred checksums differ"
echo "ok - managed memory on two GPUs: GPU to GPU over NVLink by fault or prefetch; read-mostly copies once; preferred location maps"

# peer access (docs/systems.md "Peer access"): x in GPU 0's device memory,
# GPU 1 reads it over NVLink in both rounds (2 x 1 MiB), nothing faults or
# migrates; the same checksum; refused without an NVLink
"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload shared-read-mgpu:elems=262144,rounds=2,verify=1,mode=peer \
	--json sr2-peer.json --quiet 2>err.txt || fail "shared-read-mgpu peer: exit $? ($(cat err.txt))"
grep -q '"result":.*verify=pass' sr2-peer.json || fail "shared-read-mgpu peer: not verified"
[ "$(num sr2-peer.json gpu/1/peer_access/read_bytes)" = 2097152 ] ||
	fail "peer: GPU 1 read $(num sr2-peer.json gpu/1/peer_access/read_bytes) bytes of GPU 0's memory, not 2 MiB"
cmp -s <(grep -o 'checksum=[0-9.e+]*' sr2-fault.json) <(grep -o 'checksum=[0-9.e+]*' sr2-peer.json) ||
	fail "shared-read-mgpu: fault and peer checksums differ"
if "$GPUVM" sim --system dgx-h100-8:gpus=2,nvlink=off --workload shared-read-mgpu:elems=4096,mode=peer \
	--quiet --no-outdir >/dev/null 2>err.txt; then
	fail "peer access without an NVLink was not refused"
fi
grep -q "no NVLink or NVSwitch joins GPUs 1 and 0" err.txt || fail "peer refusal: $(cat err.txt)"
echo "ok - peer access: GPU 1 reads GPU 0's device memory over NVLink; refused without a GPU-GPU link"

# thrashing detection across the GPUs: the pages two GPUs take turns
# writing are pinned after 4 migrations GPU to GPU (of 15 without it)
for th in off on; do
	"$GPUVM" sim --system dgx-h100-8:gpus=2 --workload pingpong-mgpu:elems=65536,verify=1 \
		--set uvm.thrashing=$th --json "pp-$th.json" --quiet 2>err.txt ||
		fail "pingpong-mgpu thrashing $th: exit $? ($(cat err.txt))"
	grep -q '"result":.*verify=pass' "pp-$th.json" || fail "pingpong-mgpu thrashing $th: not verified"
done
[ "$(num pp-off.json uvm_peer_pages)" = 960 ] ||
	fail "pingpong off: $(num pp-off.json uvm_peer_pages) pages GPU to GPU, not 960"
[ "$(num pp-on.json uvm_peer_pages)" = 256 ] ||
	fail "pingpong on: $(num pp-on.json uvm_peer_pages) pages GPU to GPU, not 256"
[ "$(num pp-on.json gpu/1/uvm/thrash_pins)" = 64 ] ||
	fail "pingpong on: GPU 1 pinned $(num pp-on.json gpu/1/uvm/thrash_pins) pages, not 64"
echo "ok - thrashing detection across two GPUs pins the ping-ponged pages"

# 6. bad input
expect2() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	"$GPUVM" sim "$@" --quiet --no-outdir >out.txt 2>err.txt
	local rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, not 2"
	grep -q -- "$pat" err.txt || fail "$what: message '$(cat err.txt)' lacks '$pat'"
}
sed 's/^bandwidth_gb_s = 16$/bandwith_gb_s = 16/' mem.ini >typo.ini
expect2 "a misspelt key" "typo.ini:16: .*did you mean 'bandwidth_gb_s'" --system typo.ini --workload triad-mgpu
sed 's/^memory_bytes = 1GiB$/memory_bytes = 900TiB/' mem.ini >big.ini
expect2 "a GPU memory past gpu.memory's range" "big.ini:5 (gpu.0): gpu.memory: must be at most" \
	--system big.ini --workload triad-mgpu
expect2 "a misspelt system" "did you mean 'dgx-h100-8'" --system dgx-h100 --workload triad-mgpu
expect2 "--gpu and --system" "not both" --gpu h100 --system h100 --workload triad-mgpu
expect2 "too many GPUs" "gpus= takes 1 to 8" --system dgx-h100-8:gpus=9 --workload triad-mgpu
expect2 "a bad modifier" "unknown or repeated modifier 'gpu=2'" --system dgx-h100-8:gpus=2,gpu=2 --workload triad-mgpu
expect2 "gpus= past the system" "4 GPUs asked for and the system has 2" \
	--system dgx-h100-8:gpus=2 --workload triad-mgpu:gpus=4
expect2 "a second GPU on a preset" "2 GPUs asked for and the system has 1" --gpu h100 \
	--workload triad-mgpu:gpus=2
expect2 "system memory without C2C" "mem=system) needs a coherent CPU-GPU link .* on every GPU" \
	--system dgx-h100-8:gpus=2 --workload stream-triad-simt:elems=1000,mem=system
# system memory on two GH200s: the host's first touch puts x on cpu.0,
# which GPU 1 has no described route to: the run stops naming it, and
# writes nothing
"$GPUVM" sim --system 2xgh200 --workload shared-read-mgpu:elems=65536,mode=system --quiet \
	--json route.json >out.txt 2>err.txt
rc=$?
[ $rc = 2 ] || fail "GPU 1 to cpu.0: exit $rc, not 2"
grep -q "no route from gpu.1 to cpu.0" err.txt || fail "GPU 1 to cpu.0: message '$(cat err.txt)'"
[ -e route.json ] && fail "GPU 1 to cpu.0 refused but route.json written"
expect2 "--stats-csv of several GPUs" "not made for a system of several GPUs" \
	--system dgx-h100-8:gpus=2 --workload triad-mgpu --stats-csv x.csv
[ -e x.csv ] && fail "--stats-csv refused but written"

if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "sim --system: ok"
