#!/usr/bin/env bash
# The multi-GPU memory policies side by side on a shared read-mostly array
# (issue 78): shared-read-mgpu, every GPU of dgx-h100-8:gpus=N reading one
# array x in turn, rounds= times, with x reaching each GPU by
#   fault        far faults (migration GPU to GPU),
#   prefetch     cudaMemPrefetchAsync before each kernel,
#   read-mostly  read duplication (a copy per GPU),
#   accessed-by  x kept on GPU 0, the others mapping it (remote reads),
#   preferred    x preferring GPU 0, the others mapping it after a fault,
#   peer         x in GPU 0's device memory (cudaMalloc), the others
#                reading it by peer access (cudaDeviceEnablePeerAccess),
#   zero-copy    x host-pinned, every GPU reading it over its own PCIe link,
# on 2, 4 and 8 GPUs. One CSV row per mode and GPU count: the kernels'
# span (kernel_seconds of the result: the first launch to every GPU
# done), far faults and pages migrated GPU to GPU (summed over the GPUs),
# the bytes read in place over NVLink (accessed-by and preferred
# mappings: uvm_peer_remote_bytes; peer access: peer_access.read_bytes),
# and the result (the same checksum in every mode).
#
#   experiments/multi_gpu_policies.sh [GPUVM_BINARY] [OUT_DIR]
#
# Environment: SHARED (default elems=4194304,rounds=2), GPUS (default
# "2 4 8"). About 2 CPU minutes.
#
# What this shows is the model's (docs/systems.md "Peer access" and
# "Managed memory on several GPUs"): managed memory on several GPUs runs
# its kernels one GPU after another (the serialisation its timing needs),
# device memory read by peer access lets them overlap, and the peer reads
# of every GPU share GPU 0's NVSwitch port. No measured comparison of
# these policies is compared yet.
set -euo pipefail
bin=$(realpath "${1:-build/gpuvm}")
out=${2:-out/multi_gpu_policies}
shared=${SHARED:-elems=4194304,rounds=2}
gpus_list=${GPUS:-2 4 8}
mkdir -p "$out"
csv=$out/policies.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "mode,gpus,kernel_seconds,far_faults,peer_pages,remote_read_bytes,peer_access_read_bytes,result" >"$csv"
for mode in fault prefetch read-mostly accessed-by preferred peer zero-copy; do
	for g in $gpus_list; do
		"$bin" sim --system "dgx-h100-8:gpus=$g" --workload "shared-read-mgpu:$shared,mode=$mode" \
			--json "$tmp/r.json" --quiet
		python3 - "$tmp/r.json" "$mode" "$g" >>"$csv" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
res = j.get("result", "")
m = re.search(r"kernel_seconds=([0-9.e+-]+)", res)
gpus = j.get("gpu", [])
faults = sum(g.get("uvm", {}).get("far_faults", 0) for g in gpus)
peer = sum(g.get("peer_access", {}).get("read_bytes", 0) for g in gpus)
print('%s,%s,%s,%d,%d,%d,%d,"%s"' % (sys.argv[2], sys.argv[3], m.group(1) if m else "",
      faults, j.get("uvm_peer_pages", 0), j.get("uvm_peer_remote_bytes", 0), peer, res))
PY
		echo "$mode gpus=$g: $(tail -1 "$csv")" >&2
	done
done
cat "$csv"
