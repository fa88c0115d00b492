#!/usr/bin/env bash
# TLB sharing schemes end to end: the slow path (the sharing analysis on)
# gives the baseline's results bit for bit; schemes report Eq. 1's ratios;
# bad scheme values name file, line and key. usage: neidty.sh GPUVM SRC
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-neidty.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
WL=lud:n=128
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# the fast path merges a lookup into a fill in flight; the preset's
# tlb.l1_in_flight = miss is modelled on the slow path only
MERGE="--set tlb.l1_in_flight=merge"
"$GPUVM" sim --gpu gem5gpu-neidty --workload $WL $MERGE --json fast.json -q || fail "fast run"
"$GPUVM" sim --gpu gem5gpu-neidty --workload $WL $MERGE --tlb-sharing --json slow.json -q || fail "analysis run"
"$GPUVM" sim --gpu gem5gpu-neidty --workload $WL --set tlb.l1.peer=neidty --json nd.json -q || fail "neidty run"
python3 - <<'PY' || fail "JSON checks"
import json
def res(f):
    d = json.load(open(f)); return d.get("results", d)
fast, slow, nd = res("fast.json"), res("slow.json"), res("nd.json")
assert fast["sim_seconds"] == slow["sim_seconds"], (fast["sim_seconds"], slow["sim_seconds"])
assert fast["tlb"][0]["hits"] == slow["tlb"][0]["hits"]
assert fast["tlb"][0]["avg_translation_cycles"] is None
assert slow["tlb"][0]["avg_translation_cycles"] > 1
sh = slow["tlb_sharing"]
assert abs(sum(sh["fraction_of_held_lookups"].values()) - 1) < 1e-9
assert len(sh["neighbour_correlation"]) == 16
l1 = nd["tlb"][0]
assert l1["peer"] == "neidty" and l1["remote_hits"] > 0
assert abs(l1["r_l1"] - l1["r_local"] - l1["r_remote"]) < 1e-12
assert l1["directory_hits"] >= l1["remote_hits"]
assert nd["result"] == fast["result"]  # translation schemes do not change the answer
PY
[ $failures -eq 0 ] && echo "ok - slow path equals fast path; Eq. 1 ratios reported"

# gpu.cta_issue: ADI at n=64 launches one CTA at a time; from SM 0 each
# time only SM 0 works, after-last (the preset, GPGPU-Sim) rotates them
"$GPUVM" sim --gpu gem5gpu-neidty --workload adi:n=64 --json rot.json -q || fail "after-last run"
"$GPUVM" sim --gpu gem5gpu-neidty --workload adi:n=64 --set gpu.cta_issue=sm0 --json sm0.json -q || fail "sm0 run"
python3 - <<'PY' && echo "ok - gpu.cta_issue: sm0 keeps SM 0, after-last rotates" || fail "cta_issue"
import json
def busy(f):
    d = json.load(open(f)); l1 = d.get("results", d)["tlb"][0]
    return sum(1 for h, m in zip(l1["instance_hits"], l1["instance_misses"]) if h + m)
assert busy("sm0.json") == 1, busy("sm0.json")
assert busy("rot.json") == 16, busy("rot.json")
PY
# GPGPU-Sim's issue pointer starts at cluster 0 (gpu-sim.cc, gpgpu_sim::gpgpu_sim:
# m_last_cluster_issue = 0), so a run's first CTA goes to SM 1 with after-last
"$GPUVM" sim --gpu gem5gpu-neidty --workload stream-triad-simt:elems=256 --json one.json -q || fail "one-CTA run"
"$GPUVM" sim --gpu gem5gpu-neidty --workload stream-triad-simt:elems=256 --set gpu.cta_issue=sm0 --json one0.json -q ||
	fail "one-CTA sm0 run"
python3 - <<'PY' && echo "ok - gpu.cta_issue: a run's first CTA goes to SM 1 (after-last), SM 0 (sm0)" || fail "first CTA"
import json
def used(f):
    d = json.load(open(f)); l1 = d.get("results", d)["tlb"][0]
    return [i for i, (h, m) in enumerate(zip(l1["instance_hits"], l1["instance_misses"])) if h + m]
assert used("one.json") == [1], used("one.json")
assert used("one0.json") == [0], used("one0.json")
PY

# tlb.translate_per: gem5-gpu's ShaderLSQ looks the TLB up once per coalesced
# 128 B access (the preset's access), gpuvm by default once per page. A
# warp of the triad reads 32 doubles = 2 segments of one 4 KB page, so
# access makes twice the lookups; the second is issued with the first, so
# it misses when the first does (no MSHR to merge into) and hits with it.
TRIAD=stream-triad-simt:elems=65536
"$GPUVM" sim --gpu gem5gpu-neidty --workload $TRIAD --json acc.json -q || fail "access run"
"$GPUVM" sim --gpu gem5gpu-neidty --workload $TRIAD --set tlb.translate_per=page --json pg.json -q ||
	fail "page run"
python3 - <<'PY' && echo "ok - tlb.translate_per: access looks up each 128 B segment, page each page" || fail "translate_per"
import json
def l1(f):
    d = json.load(open(f)); r = d.get("results", d); return r, r["tlb"][0]
ra, a = l1("acc.json"); rp, p = l1("pg.json")
la, lp = a["hits"] + a["misses"], p["hits"] + p["misses"]
print("  L1 lookups access %d, page %d; misses %d / %d" % (la, lp, a["misses"], p["misses"]))
assert ra["translation_units"] == 2 * rp["translation_units"], (ra["translation_units"], rp["translation_units"])
assert 1.9 * lp <= la <= 2.1 * lp, (la, lp)
assert 1.9 * p["misses"] <= a["misses"] <= 2.1 * p["misses"], (a["misses"], p["misses"])
assert ra["result"] == rp["result"]
PY

# atax variant=polybench-gpu: PolyBench/GPU 1.0's 32 x 8 blocks, n/32 CTAs per
# kernel whose 8 warps share rows, so at n=512 both kernels use all 16 SMs
# (UVMSmart's 256 x 1 blocks: 2 CTAs each) and the answer still checks
"$GPUVM" sim --gpu gem5gpu-neidty --workload atax:variant=polybench-gpu,n=512,verify=1 --json pb.json -q ||
	fail "atax polybench-gpu run"
"$GPUVM" sim --gpu gem5gpu-neidty --workload atax:n=512,verify=1 --json um.json -q || fail "atax uvmsmart run"
python3 - <<'PY' && echo "ok - atax: polybench-gpu runs 16 CTAs of 256 threads per kernel on 16 SMs" || fail "atax variant"
import json
def res(f):
    d = json.load(open(f)); return d.get("results", d)
pb, um = res("pb.json"), res("um.json")
def busy(r):
    l1 = r["tlb"][0]; return sum(1 for h, m in zip(l1["instance_hits"], l1["instance_misses"]) if h + m)
assert pb["ctas"] == 32 and pb["warps"] == 256, (pb["ctas"], pb["warps"])
assert um["ctas"] == 4 and um["warps"] == 32, (um["ctas"], um["warps"])
assert busy(pb) == 16 and busy(um) == 4, (busy(pb), busy(um))
assert "verify=pass" in pb["result"] and "verify=pass" in um["result"], (pb["result"], um["result"])
PY

# Fidelity (seeds/002 IV.D-E on LUD, the one workload whose speed-ups the
# text states): neidty-default 1.21x and twice 1.20x over the baseline's
# average translation delay. Asserted always: both cut the delay by more
# than 5 % (EXTRA adds --set options; mutation checks: EXTRA="--set
# tlb.l1_in_flight=merge" gives 1.00x). The paper's +-10 % is a known miss
# since the preset runs gem5-gpu's greedy-then-oldest scheduler (about
# 1.45x; experiments/fidelity_misses.tsv, docs/notes/2026-11-30-neidty-gto-record.md):
# reported, and asserted with GPUVM_FIDELITY_STRICT=1 as the unit tests'
# known misses are (tests/run_util.h fidelity_known_miss).
LUD="lud:n=512"
for s in none:default neidty:default neidty:twice; do
	"$GPUVM" sim --gpu gem5gpu-neidty --workload $LUD --set tlb.l1.peer=${s%%:*} \
		--set neidty.update=${s##*:} ${EXTRA:-} --json "lud.${s/:/.}.json" -q || fail "lud $s run"
done
python3 - <<'PY' && echo "ok - LUD: neidty-default and twice cut the translation delay" || fail "LUD fidelity"
import json, os
def cyc(f):
    d = json.load(open(f)); return d.get("results", d)["tlb"][0]["avg_translation_cycles"]
base = cyc("lud.none.default.json")
d, t = base / cyc("lud.neidty.default.json"), base / cyc("lud.neidty.twice.json")
print("  LUD speed-up default %.3fx, twice %.3fx" % (d, t))
assert d > 1.05 and t > 1.05, (d, t)
paper = 1.21 * 0.9 <= d <= 1.21 * 1.1 and 1.20 * 0.9 <= t <= 1.20 * 1.1
print("  %s LUD within 10 %% of the paper's 1.21x / 1.20x" % ("ok   " if paper else "MISS (known, issue 76)"))
assert paper or os.environ.get("GPUVM_FIDELITY_STRICT") != "1", (d, t)
PY

expect_fail() { # name substring args...
	local name=$1 want=$2
	shift 2
	"$GPUVM" sim "$@" --json bad.json >/dev/null 2>err.txt
	local rc=$?
	if [ $rc -ne 2 ] || ! grep -qF -- "$want" err.txt || [ -e bad.json ]; then
		fail "$name: exit $rc: $(cat err.txt)"
	else
		echo "ok - $name: $(head -c 160 err.txt)"
	fi
}
expect_fail "unknown scheme" "tlb.l1.peer" --gpu gem5gpu-neidty --workload $WL --set tlb.l1.peer=neighbours
expect_fail "unknown update" "neidty.update" --gpu gem5gpu-neidty --workload $WL --set neidty.update=thrice
expect_fail "tag bits" "neidty.tag_bits" --gpu gem5gpu-neidty --workload $WL --set neidty.tag_bits=60
printf 'base = gem5gpu-neidty\n[valkyrie]\nhop_cycles = -1\n' >bad.ini
expect_fail "ini line" "bad.ini:3" --gpu ./bad.ini --workload $WL

[ $failures -eq 0 ] && echo "all neidty CLI checks passed"
exit $((failures > 0))
