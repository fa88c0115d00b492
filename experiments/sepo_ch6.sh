#!/usr/bin/env bash
# Mokhtari thesis (seeds/001) chapter 6: the SePo hash table against demand
# paging and pinned memory, on the thesis's GPU (6.6.1: "an Nvidia Geforce
# GTX 780ti GPU with 2,880 cores each running at 875MHz and 3GB of DRAM
# with a maximum bandwidth of 336 GB/s ... PCIe Gen3 x16"): the
# gtx-titan-black preset (the same GK110B die, 15 SMX x 192 cores,
# 336 GB/s, PCIe 3.0 x16) at 875 MHz with 3 GiB. Until issue 76 this ran
# on p100 (56 SMs at 1480 MHz, 732 GB/s). SEPO_GPU overrides the
# --gpu/--set arguments.
#
#   experiments/sepo_ch6.sh [GPUVM_BINARY] [OUT_DIR]
#
# (a) Table 6.3: Page View Count's table with the device memory given to it
#     shrinking from 100 % to 33 % of the table (the thesis's 1200 MB ..
#     400 MB of a 1.2 GB table), managed memory under demand paging at 4 KB
#     (no prefetch, LRU-4KB), 64 KB (seq-local, SL-64KB) and 2 MB
#     (tree-driver, LRU-2MB) granularity -- simulated, where the thesis
#     could only bound the transfer time -- against sepo.
# (b) Fig. 6.8: insert rate by organisation and key size with the table at
#     1x, 2x and 3x the device heap.
# (c) Fig. 6.11: sepo (heap = 1/3 of the table) against pinned (zero-copy).
# (d) Fig. 6.10: per-iteration time of the sepo runs of (a) and (c).
# Writes OUT_DIR/sepo.csv (experiment,app,placement,organisation,
# device_memory_bytes,table_bytes,iterations,sim_seconds,pcie_bytes,
# inserts_per_sim_second), OUT_DIR/sepo_iterations.csv, PNGs (gnuplot)
# and prints each table beside the thesis's values.
# Environment: JOBS (default 2). About 3-4 minutes on 2 shared cores.
set -euo pipefail
bin=${1:-build/gpuvm}
out=${2:-out/sepo}
jobs=${JOBS:-2}
export SEPO_GPU=${SEPO_GPU:---gpu gtx-titan-black --set gpu.clock_mhz=875 --set gpu.memory=3GiB}
if [ ! -x "$bin" ]; then
	echo "sepo_ch6.sh: '$bin' is not an executable gpuvm binary" >&2
	exit 2
fi
mkdir -p "$out/runs"

run_one() { # bin out name workload [--set ...]
	local bin=$1 out=$2 name=$3 wl=$4
	shift 4
	local f="$out/runs/$name.json"
	[ -s "$f" ] && return 0
	# shellcheck disable=SC2086
	"$bin" sim $SEPO_GPU --workload "$wl" "$@" --json "$f.tmp" -q && mv "$f.tmp" "$f"
}
export -f run_one
table_of() { # the table bytes a run reports
	python3 -c "import json,sys,re; d=json.load(open(sys.argv[1])); print(re.search(r'table=(\d+)', d['result']).group(1))" "$1"
}
start=$(date +%s)

# ---- sizing runs: each table with room to spare (one iteration) -------
pvc="sepo-pvc:records=262144,urls=131072"
wc="sepo-wc:lines=131072,vocab=65536"
ii="sepo-ii:records=131072,urls=65536,groups=16"
# the other four applications of section 6.6.1, default generator settings
rec_apps="netflix dna patent geo"
sizing="$out/sizing.txt"
{
	echo "size-pvc $pvc"
	echo "size-wc $wc"
	echo "size-ii $ii"
	for app in $rec_apps; do echo "size-$app sepo-$app"; done
	for org in basic multi combining; do
		for k in 8 64; do echo "size-kv-$org-$k sepo-kv:records=131072,dup=2,key=$k,value=8,org=$org"; done
	done
} >"$sizing"
xargs -P "$jobs" -L 1 bash -c 'run_one "$0" "$1" "$2" "$3"' "$bin" "$out" <"$sizing"

# ---- the grid ------------------------------------------------------------
jobs_file="$out/runs.txt"
: >"$jobs_file"
T=$(table_of "$out/runs/size-pvc.json")
for mb in 1200 1100 1000 900 800 700 600 500 400; do
	dm=$((T * mb / 1200))
	echo "a-sepo-$mb $pvc --set uvm.device_memory=$dm"
	echo "a-m4k-$mb $pvc,placement=managed --set uvm.device_memory=$dm --set uvm.prefetcher=none --set uvm.eviction=lru-4kb"
	echo "a-m64k-$mb $pvc,placement=managed --set uvm.device_memory=$dm --set uvm.prefetcher=seq-local --set uvm.eviction=sl-64kb"
	echo "a-m2m-$mb $pvc,placement=managed --set uvm.device_memory=$dm --set uvm.prefetcher=tree-driver --set uvm.eviction=lru-2mb-alloc"
done >>"$jobs_file"
for org in basic multi combining; do
	for k in 8 64; do
		Tk=$(table_of "$out/runs/size-kv-$org-$k.json")
		# 1x fits; 2x and 3x: slightly more than the heap twice / three
		# times (Fig. 6.8: "slightly less than two and three times")
		for x in 1 2 3; do
			heap=$(python3 -c "print(int($Tk / ($x - 0.1 if $x > 1 else 1)) + 1)")
			echo "b-$org-$k-$x sepo-kv:records=131072,dup=2,key=$k,value=8,org=$org,heap=$heap"
		done
	done
done >>"$jobs_file"
Tw=$(table_of "$out/runs/size-wc.json")
# (c) and Fig. 6.9: the sepo runs also time the pthreads CPU baseline
# (cpu=2: this machine's cores), so they run one at a time, after the grid
c_file="$out/runs_c.txt"
{
	echo "c-pvc-sepo $pvc,heap=$((T / 3)),cpu=2,verify=1"
	echo "c-pvc-pinned $pvc,placement=pinned,verify=1"
	echo "c-wc-sepo $wc,heap=$((Tw / 3)),cpu=2,verify=1"
	echo "c-wc-pinned $wc,placement=pinned,verify=1"
	Ti=$(table_of "$out/runs/size-ii.json")
	echo "c-ii-sepo $ii,heap=$((Ti / 3)),cpu=2,verify=1"
	echo "c-ii-pinned $ii,placement=pinned,verify=1"
	for app in $rec_apps; do
		Ta=$(table_of "$out/runs/size-$app.json")
		echo "c-$app-sepo sepo-$app:heap=$((Ta / 3)),cpu=2,verify=1"
		echo "c-$app-pinned sepo-$app:placement=pinned,verify=1"
	done
	for org in basic multi; do
		Tk=$(table_of "$out/runs/size-kv-$org-64.json")
		echo "c-kv$org-sepo sepo-kv:records=131072,dup=2,key=64,value=8,org=$org,heap=$((Tk / 3)),cpu=2,verify=1"
		echo "c-kv$org-pinned sepo-kv:records=131072,dup=2,key=64,value=8,org=$org,placement=pinned,verify=1"
	done
} >"$c_file"
# the bigger managed runs first, so the two workers finish together; a
# failed run is reported below and leaves the others going
sort -r -k1,1 "$jobs_file" | xargs -P "$jobs" -L 1 bash -c 'b=$0 o=$1; shift; run_one "$b" "$o" "$@"' "$bin" "$out" || true
xargs -P 1 -L 1 bash -c 'b=$0 o=$1; shift; run_one "$b" "$o" "$@"' "$bin" "$out" <"$c_file" || true
echo "runs: $(( $(wc -l <"$jobs_file") + $(wc -l <"$sizing") + $(wc -l <"$c_file") )) in $(( $(date +%s) - start )) s" >&2

python3 - "$out" <<'PY'
import json, os, re, sys, shutil, subprocess
out = sys.argv[1]
cols = ("experiment,app,placement,organisation,device_memory_bytes,table_bytes,iterations,"
        "sim_seconds,pcie_bytes,inserts_per_sim_second,kernel_seconds,inserts_per_kernel_second").split(",")
rows, iters = [], []
missing = []
def load(name):
    f = os.path.join(out, "runs", name + ".json")
    if not os.path.exists(f):
        missing.append(name)
        raise KeyError(name)
    return json.load(open(f))
def res(d, key):
    m = re.search(key + r"=([^ ]+)", d["result"])
    return m.group(1) if m else ""
def cfg(d, key):
    return d["config"].get(key)
def row(exp, app, placement, org, name):
    d = load(name)
    if placement.startswith("managed"):
        dm = int(re.sub(r"\D", "", str(cfg(d, "uvm.device_memory"))) or 0)
    elif placement == "pinned":
        dm = 0
    else:
        dm = int(res(d, "heap") or 0)
    r = dict(experiment=exp, app=app, placement=placement, organisation=org, name=name,
             device_memory_bytes=dm,
             table_bytes=int(res(d, "table")), iterations=int(res(d, "iters")),
             sim_seconds=d["sim_seconds"],
             pcie_bytes=d["pcie_h2d_bytes"] + d["pcie_d2h_bytes"] + d.get("zero_copy_bytes", 0),
             inserts_per_sim_second=d["items_per_sim_second"],
             kernel_seconds=d["kernel_seconds"],
             inserts_per_kernel_second=d["work_items"] / d["kernel_seconds"] if d["kernel_seconds"] else 0)
    r["_d"] = d
    if "verify=FAIL" in d["result"]:
        print(f"{name}: {d['result']}", file=sys.stderr)
    rows.append(r)
    if placement == "sepo":
        for i, ms in enumerate(res(d, "iter_ms").split("/")):
            if ms and ms != "...":
                iters.append((exp, app, org, r["device_memory_bytes"], i + 1, float(ms) / 1e3))
    return r

# (a)
thesis = {1200: (0.00, 0.00, 0.00, 1.22), 1100: (14.8, 2.04, 0.07, 1.29), 1000: (101.6, 11.4, 0.60, 1.37),
          900: (261.5, 32.5, 1.21, 1.45), 800: (496.5, 62.1, 2.14, 1.56), 700: (801.4, 104.4, 4.47, 1.65),
          600: (1178.3, 157.7, 6.12, 1.76), 500: (1626.5, 128.7, 7.87, 1.89), 400: (2148.3, 292.2, 10.33, 2.02)}
print("\n(a) Table 6.3: PVC, device memory for the table from 100 % to 33 % (GTX 780 Ti: gtx-titan-black at 875 MHz, simulated)")
print("    managed: total simulated time / paging transfer time (paging bytes over the 12.14 GiB/s link)")
print(f"{'mem':>5} {'managed 2MB':>20} {'managed 64KB':>20} {'managed 4KB':>20} {'sepo':>9} {'it':>3} |"
      f" thesis transfer 1MB/128KB/4KB, sepo total")
a = {}
for mb in (1200, 1100, 1000, 900, 800, 700, 600, 500, 400):
    line = f"{100 * mb / 1200:4.0f}%"
    for g, lab in (("m2m", "managed-2MB"), ("m64k", "managed-64KB"), ("m4k", "managed-4KB")):
        r = row("a", "pvc", lab, "combining", f"a-{g}-{mb}")
        u = r["_d"].get("uvm", {})
        xfer = (u.get("bytes_h2d", 0) + u.get("bytes_d2h", 0)) / (0.815 * 16e9)
        a[(g, mb)] = (r["sim_seconds"], xfer)
        line += f" {r['sim_seconds'] * 1e3:9.3f}/{xfer * 1e3:8.3f}ms"
    r = row("a", "pvc", "sepo", "combining", f"a-sepo-{mb}")
    a[("sepo", mb)] = (r["sim_seconds"], 0)
    t = thesis[mb]
    line += f" {r['sim_seconds'] * 1e3:7.3f}ms {r['iterations']:3d} | {t[0]:7.1f}s {t[1]:6.1f}s {t[2]:6.2f}s {t[3]:5.2f}s"
    print(line)
s100, s33 = a[("sepo", 1200)][0], a[("sepo", 400)][0]
print(f"    sepo total 100% -> 33%: x{s33 / s100:.2f} (thesis 1.22 s -> 2.02 s: x1.66);"
      f" managed-4KB total x{a[('m4k', 400)][0] / a[('m4k', 1200)][0]:.1f},"
      f" 64KB x{a[('m64k', 400)][0] / a[('m64k', 1200)][0]:.1f}")

# (b)
print("\n(b) Fig. 6.8: insert rate (M pairs per second of the insert kernels), 131072 pairs, 2 per key, 8-byte values")
print(f"{'organisation':>12} {'key':>4} {'1x':>8} {'2x':>8} {'3x':>8}  iterations   with copies: 1x 2x 3x")
for org in ("basic", "multi", "combining"):
    for k in (8, 64):
        rates, its, trates = [], [], []
        for x in (1, 2, 3):
            try:
                r = row("b", "kv", "sepo", org, f"b-{org}-{k}-{x}")
            except KeyError:
                rates.append(float("nan"))
                trates.append(float("nan"))
                its.append(0)
                continue
            rates.append(r["inserts_per_kernel_second"] / 1e6)
            trates.append(r["inserts_per_sim_second"] / 1e6)
            its.append(r["iterations"])
        print(f"{org:>12} {k:4d} {rates[0]:8.1f} {rates[1]:8.1f} {rates[2]:8.1f}  {str(its):11}"
              f"  {trates[0]:7.1f} {trates[1]:7.1f} {trates[2]:7.1f}")
print("    thesis: basic > combining > multi-valued at every key size; rates fall with iterations."
      "\n    The rate is over the insert kernels' time, as the thesis's benchmark times it (rezafmk/BRB_HashTable"
      "\n    performanceTest/main.cu: input copied before the timer, copy-outs after it); 'with copies' divides"
      "\n    by the whole simulated time (input copies and copy-outs, section 6.6.2's convention for the"
      "\n    application times).")

# (c)
print("\n(c) Fig. 6.11 / 6.9: sepo (heap = 1/3 of the table) vs pinned (zero-copy heap) vs the")
print("    pthreads CPU baseline (2 threads, wall time on this machine)")
print(f"{'app':>10} {'sepo ms':>9} {'iters':>5} {'pinned ms':>10} {'pinned/sepo':>11} {'cpu ms':>9} {'cpu/sepo':>9}"
      f"  verify  | sepo: input MB, input copies ms (beside kernels), waited ms, copy-outs ms, kernels ms | pinned: zero-copy MB, kernels ms")
for app, org in (("pvc", "combining"), ("wc", "combining"), ("ii", "multi"), ("kvbasic", "basic"),
                 ("kvmulti", "multi"), ("netflix", "combining"), ("dna", "combining"),
                 ("patent", "multi"), ("geo", "multi")):
    try:
        s = row("c", app, "sepo", org, f"c-{app}-sepo")
        p = row("c", app, "pinned", org, f"c-{app}-pinned")
    except KeyError:
        continue
    cpu = float(res(s["_d"], "cpu_ms") or "nan")
    sd, pd = s["_d"], p["_d"]
    print(f"{app:>10} {s['sim_seconds'] * 1e3:9.3f} {s['iterations']:5d} {p['sim_seconds'] * 1e3:10.3f}"
          f" {p['sim_seconds'] / s['sim_seconds']:11.2f} {cpu:9.2f} {cpu / 1e3 / s['sim_seconds']:9.2f}"
          f"  {res(sd, 'verify')}/{res(sd, 'cpu_verify')}/{res(pd, 'verify')}"
          f"  | {sd['pcie_h2d_bytes'] / 1e6:6.1f} {sd.get('async_copy_seconds', 0) * 1e3:6.3f}"
          f" {sd.get('async_wait_seconds', 0) * 1e3:6.3f} {sd['copy_seconds'] * 1e3:6.3f} {sd['kernel_seconds'] * 1e3:6.3f}"
          f" | {pd['zero_copy_bytes'] / 1e6:6.1f} {pd['kernel_seconds'] * 1e3:6.3f}")
print("    thesis: sepo beats pinned on all seven applications; GPU over CPU 3.5x on average (Fig. 6.9)")

# (d)
print("\n(d) Fig. 6.10: per-iteration time (ms), first iteration = 1")
for (exp, app, org, dm) in sorted({(e, a_, o, d) for e, a_, o, d, _, _ in iters if e in ("a", "c")}):
    ts = [t for e, a_, o, d, i, t in iters if (e, a_, o, d) == (exp, app, org, dm)]
    if len(ts) > 1:
        print(f"  {exp} {app:8} heap {dm:>9}: " + " ".join(f"{t * 1e3:.3f}" for t in ts) +
              "   speed-up of later ones: " + " ".join(f"{ts[0] / t:.2f}x" for t in ts[1:]))
# the thesis's average: the seven applications at dataset #4 (the c runs)
apps7 = ("pvc", "wc", "ii", "netflix", "dna", "patent", "geo")
ser = {}
for e, a_, o, d, i, t in iters:
    if e == "c" and a_ in apps7:
        ser.setdefault(a_, []).append(t)
means = []
for i in (1, 2, 3):
    xs = [s_[0] / s_[i] for s_ in ser.values() if len(s_) > i and s_[i] > 0]
    means.append(f"{sum(xs) / len(xs):.2f}x of {len(xs)}" if xs else "-")
print("  mean over the seven applications (c runs), iterations 2, 3, 4: " + ", ".join(means))
print("    thesis: iterations 2, 3, 4 are 1.94x, 3.84x, 5.4x faster than the first (average over the"
      "\n    applications at dataset #4)")
print("  breakdown (c runs): per iteration MB of input sent : records pending after it : ms of its end"
      "\n  (done bitmap, decision, heap copy-out); the run's kernels and input copies in ms")
for app in apps7:
    try:
        d = load(f"c-{app}-sepo")
    except KeyError:
        continue
    print(f"  {app:8} {res(d, 'iter_mb_pending_outms')}  records {d['work_items']}"
          f"  kernels {d['kernel_seconds'] * 1e3:.3f} input copies {d.get('async_copy_seconds', 0) * 1e3:.3f}")

with open(os.path.join(out, "sepo.csv"), "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        f.write(",".join(str(r[c]) for c in cols) + "\n")
with open(os.path.join(out, "sepo_iterations.csv"), "w") as f:
    f.write("experiment,app,organisation,device_memory_bytes,iteration,sim_seconds\n")
    for t in iters:
        f.write(",".join(str(x) for x in t) + "\n")

if shutil.which("gnuplot"):
    dat = os.path.join(out, "table63.dat")
    with open(dat, "w") as f:
        f.write("mem managed-2MB managed-64KB managed-4KB sepo\n")
        for mb in (1200, 1100, 1000, 900, 800, 700, 600, 500, 400):
            f.write(f"{100 * mb / 1200:.0f}% " + " ".join(f"{a[(g, mb)][0] * 1e3:.6g}" for g in ("m2m", "m64k", "m4k", "sepo")) + "\n")
    cmds = (f"set terminal pngcairo size 900,460; set output '{os.path.join(out, 'table63.png')}';"
            "set title 'Table 6.3: PVC total simulated time vs device memory (GTX 780 Ti)';"
            "set ylabel 'simulated ms (log)'; set logscale y; set key top left; set style data linespoints;"
            f"plot for [i=2:5] '{dat}' using i:xtic(1) title columnheader(i)")
    subprocess.run(["gnuplot", "-e", cmds], check=False)
    dat = os.path.join(out, "fig68.dat")
    with open(dat, "w") as f:
        f.write("case 1x 2x 3x\n")
        for org in ("basic", "multi", "combining"):
            for k in (8, 64):
                rs = [r["inserts_per_sim_second"] / 1e6 for r in rows if r["name"].startswith(f"b-{org}-{k}-")]
                f.write(f"{org}-{k}B " + " ".join(f"{x:.4g}" for x in rs) + "\n")
    cmds = (f"set terminal pngcairo size 900,420; set output '{os.path.join(out, 'fig68.png')}';"
            "set title 'Fig. 6.8: insert rate (M pairs / simulated s)'; set style data histograms;"
            "set style fill solid 0.8; set key top right;"
            f"plot for [i=2:4] '{dat}' using i:xtic(1) title columnheader(i)")
    subprocess.run(["gnuplot", "-e", cmds], check=False)
if missing:
    print(f"\nFAILED runs (no report): {' '.join(missing)}", file=sys.stderr)
print(f"\nwrote {os.path.join(out, 'sepo.csv')}")
sys.exit(1 if missing else 0)
PY
# issue 33: with CHECKS_CSV set, this run's checks are appended to it as rows
# (experiments/fidelity_collect.py); the exit status stays the run's own
st=$?
[ -z "${CHECKS_CSV:-}" ] || python3 "$(dirname "$0")/fidelity_collect.py" --append "$CHECKS_CSV" sepo_ch6 "$out"
exit "$st"
