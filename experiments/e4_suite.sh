#!/usr/bin/env bash
# Fidelity target E4 (issue 5) on SIMT suite kernels instead of the
# generated stream/random workloads: the far-fault MSHR sweep (1..32 per
# SM), blocking vs replayable faults, and paging vs copy-then-execute
# (no prefetch, then each tree prefetcher), on the k80 preset (Zheng's
# GMMU: 20 us far faults). Prints each check with PASS/FAIL; CSVs in OUT.
#
#   experiments/e4_suite.sh [GPUVM_BINARY] [OUT_DIR]
#
# Environment: WORKLOADS (space-separated suite specs without mem=;
# default "fdtd-2d:n=1200,steps=5 atax:n=1200 ra" = UVMSmart's sizes),
# GPU (k80), JOBS (2).
set -euo pipefail
bin=${1:-build/gpuvm}
out=${2:-out/e4_suite}
gpu=${GPU:-k80}
jobs=${JOBS:-2}
workloads=${WORKLOADS:-"fdtd-2d:n=1200,steps=5 atax:n=1200 ra"}
mkdir -p "$out"

# sim_seconds of the CSV's rows, in order
secs() { awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="sim_seconds") c=i; next} {print $c}' "$1"; }
sep() { case $1 in *:*) echo ,;; *) echo :;; esac; }

fail=0
check() { # name condition-as-awk-expression values...
	local name=$1 cond=$2; shift 2
	if awk -v v="$*" "BEGIN{split(v,x,\" \"); exit !($cond)}"; then
		echo "  PASS  $name"
	else
		echo "  FAIL  $name"; fail=1
	fi
}

for wl in $workloads; do
	name=${wl%%:*}
	managed="$wl$(sep "$wl")mem=managed"
	device="$wl$(sep "$wl")mem=device"
	echo "== $name ($gpu)"
	"$bin" sweep --gpu "$gpu" --workload "$managed" --set uvm.prefetcher=none \
		--vary uvm.far_fault_mshrs=1,2,4,8,16,32 -j "$jobs" --csv "$out/$name-mshrs.csv" >/dev/null
	read -r -a m <<<"$(secs "$out/$name-mshrs.csv" | tr '\n' ' ')"
	echo "  far-fault MSHRs 1 2 4 8 16 32: ${m[*]} s"
	check "runtime falls 1 -> 32 (never >2 % slower with more)" \
		'x[2]<=x[1]*1.02 && x[3]<=x[2]*1.02 && x[4]<=x[3]*1.02 && x[5]<=x[4]*1.02 && x[6]<=x[5]*1.02 && x[6]<x[1]' "${m[@]}"
	check "< 10 % gain past 16" '(x[1]-x[2])/x[1] < 0.10' "${m[4]}" "${m[5]}"

	"$bin" sweep --gpu "$gpu" --workload "$managed" --set uvm.prefetcher=none \
		--vary uvm.fault_model=blocking,replayable -j "$jobs" --csv "$out/$name-fault-model.csv" >/dev/null
	read -r -a f <<<"$(secs "$out/$name-fault-model.csv" | tr '\n' ' ')"
	echo "  blocking ${f[0]} s, replayable ${f[1]} s"
	check "blocking slower than replayable" 'x[1] > x[2]' "${f[@]}"

	"$bin" sweep --gpu "$gpu" --workload "$device" -j 1 --csv "$out/$name-copy.csv" >/dev/null
	"$bin" sweep --gpu "$gpu" --workload "$managed" --set uvm.fault_latency_us=20 \
		--vary uvm.prefetcher=none,tree-driver,tree-uvmsmart -j "$jobs" --csv "$out/$name-prefetch.csv" >/dev/null
	c=$(secs "$out/$name-copy.csv")
	read -r -a p <<<"$(secs "$out/$name-prefetch.csv" | tr '\n' ' ')"
	echo "  copy-then-execute $c s; paging: none ${p[0]}, tree-driver ${p[1]}, tree-uvmsmart ${p[2]} s" \
	     "($(awk -v a="${p[0]}" -v b="${p[1]}" -v d="${p[2]}" -v c="$c" 'BEGIN{printf "%.2fx, %.2fx, %.2fx", a/c, b/c, d/c}'))"
	check "no prefetch >= 2x copy-then-execute" 'x[1] >= 2*x[2]' "${p[0]}" "$c"
	check "tree-driver within 1.25x of copy-then-execute" 'x[1] <= 1.25*x[2]' "${p[1]}" "$c"
	check "tree-uvmsmart within 1.25x of copy-then-execute" 'x[1] <= 1.25*x[2]' "${p[2]}" "$c"
done
exit $fail
