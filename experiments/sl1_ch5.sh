#!/usr/bin/env bash
# Mokhtari's thesis (seeds/001) chapter 5: the S-L1 software L1 cache.
# Fig. 5.10 (speed-ups of S-L1 and of the hardware L1 over no L1),
# Fig. 5.11 (S-L1 hit rates), Fig. 5.13 (wc's L2 hit rate vs threads per
# SM), Fig. 5.14 (BigKernel combined with S-L1, data in CPU memory) and
# Fig. 5.15 (S-L1's extra executed instructions), on the gtx-titan-black
# preset (the thesis's GPU, 5.3.1: 15 SMX at 980 MHz, 48 KB of the 64 KB
# on-chip memory as shared memory, 16 KB as L1), with whole-line L1 fills
# (l1.fill=line: Kepler fetches 4 x 32 B per 128 B line miss, 5.3.2), and
# on h100-pcie (its own shared memory and sectored L1 fills). k80 runs the
# earlier stand-in (smem set to 48 KB, line fills).
#
#   experiments/sl1_ch5.sh [GPUVM_BINARY] [OUT_DIR]
#
# Three configurations per application (Fig. 5.10): sl1 = S-L1 with the
# hardware L1 off for globals, hwl1 = plain loads with l1.global_loads =
# cached, nol1 = plain loads, uncached. Each is run at several thread
# configurations (threads per SM 128..2048, mm: blocks of 16x4..16x16)
# and the best is reported, as the thesis did (5.3.1). Every run checks
# its output against the CPU reference (verify=1). Kernel time only
# (the data is already in GPU memory, 5.3.1).
# The same inputs on every GPU: on h100-pcie (114 SMs against 15) a
# thread has 1/7.6 of the titan's work at the same threads per SM, so
# more of it is S-L1's 300-access monitoring phase.
#
# Fig. 5.14 (5.3.3): workload bigkernel with sl1=1 on the applications in
# both BigKernel's Table 4.1 and S-L1's Table 5.1 (docs/sl1.md: the four
# of the figure are wc, of, dna, mca; kmeans is reported beside them):
# single and double buffering, BigKernel, BigKernel + S-L1 (32 MiB in
# CPU memory, 4 MiB chunks), each at its best of 1/4, 1/2 and all of the
# GPU's threads (the full GPU only on h100-pcie), over the serial CPU
# run (one thread of this host, thread CPU time, the median over the
# application's runs).
# Writes OUT_DIR/sl1_ch5.csv, fig5_10.png, fig5_14.png, fig5_15.png
# (gnuplot) and prints the tables beside the thesis's values.
# Environment: JOBS (default 2), GPUS (default "gtx-titan-black h100-pcie";
# GPU=x, the old name, sets GPUS=x). 7.2 minutes of wall time on 2 quiet cores
# (AMD EPYC; 802 s user + 18 s sys of CPU) with grep on 4 MiB; its 8 MiB
# about doubles grep's 30 runs (not re-timed on a quiet host); K-means at
# 2 M points adds 25-60 s of CPU a run, about 20-25 minutes of CPU for its
# 30 (docs/notes/2026-11-30-simt-barrier-memory-record.md).
set -euo pipefail
bin=${1:-build/gpuvm}
out=${2:-out/sl1_ch5}
jobs=${JOBS:-2}
gpus=${GPUS:-${GPU:-gtx-titan-black h100-pcie}}
mkdir -p "$out/runs"
apps="upper wc grep kmeans pvc mm mca ii of"
bkapps="wc of dna mca kmeans"

# inputs: chunks of about 1-10 KB per thread for the text applications,
# so the 300-access monitoring phase (5.2.2) is a small part of a thread.
# The thesis's threads ran far past it (5.3.4: monitoring is "less than
# 1%" of S-L1's overhead; 5.3.2: K-means caches nothing because its own
# shared memory leaves no room, not because it never left monitoring).
# grep's 8 MiB is the smallest power of two at which every thread with
# data, in every configuration swept (up to 2,048 threads per SM: 30,720
# on the Titan Black), makes more than the 300 monitoring accesses (about
# 2 a byte: its outer loop and the matcher each read the byte; 288-byte
# chunks, ~576 accesses). K-means needs 2 M points by the same rule
# (5 accesses a point: 69 points, 345 accesses a thread at 2,048 threads
# per SM). It ran at 16,384 points, where no thread leaves monitoring,
# until its barrier CTAs' buffers were bounded (2026-11-30, SIMT_EAGER_SLOTS:
# a 2 M-point run held 11.7 GB, now about 170 MB on the Titan Black and
# 1 GB on h100-pcie, 25-60 s of CPU a run).
size_of() {
	case $1 in
	upper | wc) echo 33554432 ;;    # text bytes
	pvc | ii | of) echo 16777216 ;; # text bytes (more work per byte)
	grep) echo 8388608 ;;           # text bytes (see above)
	mca) echo 2097152 ;;            # transactions (8 B each)
	kmeans) echo 2097152 ;;         # points (see above)
	mm) echo 256 ;;                 # matrix order
	*) echo 0 ;;                    # unused (Fig. 5.14's dna); never empty: a
	                                # trailing blank would join xargs -L lines
	esac
}

# BigKernel's thread configurations for Fig. 5.14: 1/4, 1/2 and all of the
# GPU (SMs x 2,048); the full GPU only on h100-pcie, as bigkernel_ch4.sh
bk_threads() {
	case $1 in
	gtx-titan-black) echo 7680 15360 30720 ;;
	k80) echo 6656 13312 26624 ;;
	*) echo 0 ;;
	esac
}

# Fig. 5.10's thread configurations: threads per SM (mm: blocks of 16 x
# 4, 8, 16), on every GPU. The thesis's sweep (5.3.1, l. 1338) starts
# "with 15 blocks of 128 threads (for a total of 1920 threads)", i.e. 128
# per SMX, so the first configuration is one block of 128 per SM, the
# others blocks of 256. Its Fig. 5.12 puts the hardware L1's best near
# there for upper, wc and DNA Assembly (about 1,900-2,600 online threads;
# the figure's data: rezafmk/sl1-paper 8higherParallelism.png).
tps_of() { echo 128 256 512 1024 2048; }
mm_blocks_of() { echo 64 128 256; }

jobs_file="$out/runs.txt"
: >"$jobs_file"
# Fig. 5.14 of every GPU first, then Fig. 5.10 (xargs runs them in order)
for g in $gpus; do
	for a in $bkapps; do
		for t in $(bk_threads "$g"); do echo "fig5_14 $g $a bigkernel 256 $t"; done
	done
done >>"$jobs_file"
for g in $gpus; do
	for a in $apps; do
		for v in sl1 hwl1 nol1; do
			if [ "$a" = mm ]; then
				for b in $(mm_blocks_of "$g"); do echo "fig5_10 $g $a $v $b 0"; done
			else
				for t in $(tps_of "$g"); do echo "fig5_10 $g $a $v $((t < 256 ? t : 256)) $t"; done
			fi
		done
	done
done >>"$jobs_file"

# sets: Kepler's split of the on-chip memory and its whole-line L1 fills
gpu_sets() {
	case $1 in
	gtx-titan-black | k80 | gtx680) echo "--set smem.size=48KiB --set l1.fill=line" ;;
	*) echo "" ;;
	esac
}

run_one() {
	local bin=$1 out=$2 e=$3 g=$4 a=$5 v=$6 block=$7 t=$8 size=$9
	local f="$out/runs/$e-$g-$a-$v-$block-$t.json"
	[ -s "$f" ] && return 0
	local sl1=0 l1=uncached tp=""
	case $v in sl1) sl1=1 ;; hwl1) l1=cached ;; esac
	# shellcheck disable=SC2046
	if [ "$e" = fig5_14 ]; then
		[ "$t" != 0 ] && tp=",threads=$t"
		"$bin" sim --gpu "$g" $(gpu_sets "$g") --set l1.global_loads=uncached \
			--workload "bigkernel:app=$a,sl1=1,um=0,nopat=0,volume=0,cpu_time=1$tp" \
			--json "$f.tmp" -q && mv "$f.tmp" "$f"
		return
	fi
	[ "$t" != 0 ] && tp=",tps=$t"
	"$bin" sim --gpu "$g" $(gpu_sets "$g") --set l1.global_loads=$l1 \
		--workload "sl1:app=$a,sl1=$sl1,size=$size,block=$block$tp" --json "$f.tmp" -q &&
		mv "$f.tmp" "$f"
}
export -f run_one gpu_sets
start=$(date +%s)
while read -r e g a v b t; do echo "$e $g $a $v $b $t $(size_of "$a")"; done <"$jobs_file" |
	xargs -P "$jobs" -L 1 bash -c 'run_one "$0" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"' "$bin" "$out"
echo "runs: $(wc -l <"$jobs_file") in $(( $(date +%s) - start )) s" >&2

python3 - "$out" "$gpus" "$apps" "$bkapps" <<'PY'
import json, os, re, sys, subprocess, shutil
out, gpus, apps, bkapps = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
rows, bkruns = [], []
for line in open(os.path.join(out, "runs.txt")):
    e, g, a, v, b, t = line.split()
    d = json.load(open(os.path.join(out, "runs", f"{e}-{g}-{a}-{v}-{b}-{t}.json")))
    if e == "fig5_14":
        res = dict(re.findall(r"(\w+)=(\S+)", d["result"]))
        if res.get("verify") != "pass":
            sys.exit(f"{g} {a}: a variant's result differs from the CPU reference: {d['result']}")
        bkruns.append(dict(gpu=g, app=a, threads=int(t), res=res))
        continue
    ks = d["kernels"]  # mca launches two kernels: their sums
    k = {x: sum(kk[x] for kk in ks) for x in ("sim_seconds", "warp_instructions", "l1_sector_hits",
                                               "l1_sector_misses", "l2_sector_hits",
                                               "l2_sector_misses", "dram_bytes")}
    res = dict(re.findall(r"(\w+)=(\S+)", d["result"]))
    if res.get("verify") != "pass":
        sys.exit(f"{a} {v}: output does not match the CPU reference: {d['result']}")
    l2 = k["l2_sector_hits"] + k["l2_sector_misses"]
    rows.append(dict(gpu=g, app=a, variant=v, tps=int(t), block=int(b), threads=int(res["threads"]),
                     sim_seconds=k["sim_seconds"], warp_instructions=k["warp_instructions"],
                     sl1_hit_rate=float(res["hit_rate"]), cln=int(res["cln"]),
                     sl1_threads_caching=int(res["caching"]),
                     l1_sector_hits=k["l1_sector_hits"], l1_sector_misses=k["l1_sector_misses"],
                     l2_hit_rate=k["l2_sector_hits"] / l2 if l2 else 0.0, dram_bytes=k["dram_bytes"]))
best = {}
for r in rows:
    key = (r["gpu"], r["app"], r["variant"])
    if key not in best or r["sim_seconds"] < best[key]["sim_seconds"]:
        best[key] = r
# the thesis's values (seeds/001 5.3.2-5.3.4; the per-application bars of
# Figs. 5.10, 5.11, 5.14 and 5.15 are not in the text): averages, ranges
# and the qualitative ranking only
cols = ["experiment", "app", "variant", "gpu", "sim_seconds", "speedup", "best", "tps", "block",
        "threads", "warp_instructions", "sl1_hit_rate", "cln", "sl1_threads_caching",
        "l1_sector_hits", "l1_sector_misses", "l2_hit_rate", "dram_bytes", "speedup_vs_cpu",
        "compute_s"]
csv = open(os.path.join(out, "sl1_ch5.csv"), "w")
csv.write(",".join(cols) + "\n")
for r in rows:
    b = best[(r["gpu"], r["app"], r["variant"])]
    base = best[(r["gpu"], r["app"], "nol1")]["sim_seconds"]
    r2 = dict(r, experiment="fig5_10", speedup=base / r["sim_seconds"], best=int(b is r),
              speedup_vs_cpu="", compute_s="")
    csv.write(",".join(str(r2[c]) for c in cols) + "\n")
def mean(xs):
    return sum(xs) / len(xs)
over_by_gpu, sp_by_gpu = {}, {}
for gpu in gpus:
    def sp(a, v):
        return best[(gpu, a, "nol1")]["sim_seconds"] / best[(gpu, a, v)]["sim_seconds"]
    sets = "48 KB shared, 16 KB L1, line fills" if gpu in ("gtx-titan-black", "k80", "gtx680") else "preset shared memory and sectored L1"
    print(f"Fig. 5.10 on {gpu} ({sets}): speed-up over no L1, best thread configuration each")
    print(f"{'app':8} {'S-L1':>6} {'hw L1':>6} {'S-L1/hwL1':>9} | {'S-L1 hit':>8} {'CLN':>3} {'tps S-L1':>8} {'tps nol1':>8} | {'insts +%':>8}")
    over = []
    for a in apps:
        s, h = best[(gpu, a, "sl1")], best[(gpu, a, "nol1")]
        # Fig. 5.15: executed instructions with S-L1 over without, same configuration
        same = [r for r in rows if r["gpu"] == gpu and r["app"] == a and r["variant"] == "nol1"
                and r["tps"] == s["tps"] and r["block"] == s["block"]][0]
        ov = 100.0 * (s["warp_instructions"] / same["warp_instructions"] - 1)
        over.append(ov)
        print(f"{a:8} {sp(a, 'sl1'):6.2f} {sp(a, 'hwl1'):6.2f} {sp(a, 'sl1') / sp(a, 'hwl1'):9.2f} | "
              f"{s['sl1_hit_rate']:8.3f} {s['cln']:3} {s['tps']:8} {h['tps']:8} | {ov:8.0f}")
    over_by_gpu[gpu] = over
    sp_by_gpu[gpu] = {a: (sp(a, "sl1"), sp(a, "hwl1")) for a in apps}
    m_s, m_h = mean([sp(a, "sl1") for a in apps]), mean([sp(a, "hwl1") for a in apps])
    m_sh = mean([sp(a, "sl1") / sp(a, "hwl1") for a in apps])
    print(f"{'mean':8} {m_s:6.2f} {m_h:6.2f} {m_sh:9.2f} | {'':8} {'':3} {'':8} {'':8} | {mean(over):8.0f}")
    print(f"{'thesis':8} {2.10:6.2f} {'<1.35':>6} {1.90:9.2f} | {'high':>8} {'':3} {'':8} {'':8} | {220:8.0f}")
    print("thesis 5.3.2: upper and wc gain most (several x); grep and K-means slightly slower with S-L1;\n"
          "  the hardware L1 slows wc, Page View Count and Matrix Multiply (extra DRAM transactions of\n"
          "  128 B line fills); Fig. 5.15: +220 % executed instructions on average")
    print(f"\nFig. 5.13 on {gpu}: wc's L2 hit rate vs threads per SM (no L1; thesis: falls to ~10 % at 1,024)")
    for r in sorted([r for r in rows if r["gpu"] == gpu and r["app"] == "wc" and r["variant"] == "nol1"],
                    key=lambda r: r["tps"]):
        print(f"  {r['tps']:5} threads/SM: L2 hit rate {r['l2_hit_rate']:.3f}, kernel {r['sim_seconds'] * 1e3:.3f} ms")
    print(f"\nhardware L1 vs no L1 on {gpu} (best configurations): DRAM bytes")
    for a in apps:
        print(f"  {a:8} hw L1 {best[(gpu, a, 'hwl1')]['dram_bytes'] / 1e6:9.1f} MB   no L1 {best[(gpu, a, 'nol1')]['dram_bytes'] / 1e6:9.1f} MB")
    print()

# Fig. 5.14 (5.3.3): the five scenarios over the serial CPU run
bkv = {"single": "single_us", "double": "double_us", "bigkernel": "bk_us", "bigkernel+sl1": "bksl1_us"}
bkbest = {}
for r in bkruns:
    for v, k in bkv.items():
        s = float(r["res"][k]) * 1e-6
        key = (r["gpu"], r["app"], v)
        if key not in bkbest or s < bkbest[key][0]:
            bkbest[key] = (s, r)
cpu = {}
for a in bkapps:
    xs = sorted(float(r["res"]["cpu_us"]) * 1e-6 for r in bkruns if r["app"] == a)
    cpu[a] = xs[len(xs) // 2]
for (g, a, v), (s, r) in sorted(bkbest.items()):
    res = r["res"]
    comp = {"bigkernel": "comp_us", "bigkernel+sl1": "sl1_comp_us"}.get(v, "base_comp_us")
    row = dict(experiment="fig5_14", app=a, variant=v, gpu=g, sim_seconds=s,
               speedup=bkbest[(g, a, "bigkernel")][0] / s, best=1, tps="", block=256,
               threads=r["threads"] or "full", warp_instructions="",
               sl1_hit_rate=res["sl1_hit"] if v == "bigkernel+sl1" else "",
               cln=res["cln"] if v == "bigkernel+sl1" else "", sl1_threads_caching="",
               l1_sector_hits="", l1_sector_misses="", l2_hit_rate="", dram_bytes="",
               speedup_vs_cpu=cpu[a] / s, compute_s=float(res[comp]) * 1e-6)
    csv.write(",".join(str(row[c]) for c in cols) + "\n")
for a in bkapps:
    csv.write(f"fig5_14,{a},cpu-serial,host,{cpu[a]},,1,,,,,,,,,,,,1,\n")
csv.close()
fig514 = {}
for g in gpus:
    print(f"Fig. 5.14 on {g}: speed-up over the serial CPU run (one thread of this host), best thread configuration per variant")
    print(f"{'app':8} {'CPU ms':>8} {'single':>7} {'double':>7} {'BigKern':>7} {'BK+S-L1':>7} | {'BK+SL1/BK':>9} {'S-L1 hit':>8} {'cached':>6} {'CLN':>3} | {'BK comp/h2d':>11} {'SL1 comp/h2d':>12}")
    ratios = []
    for a in bkapps:
        c = cpu[a]
        s, d, b, bs = (bkbest[(g, a, v)][0] for v in bkv)
        rb, rs = bkbest[(g, a, "bigkernel")][1]["res"], bkbest[(g, a, "bigkernel+sl1")][1]["res"]
        if a != "kmeans":
            ratios.append(b / bs)
        fig514[(g, a)] = (c / s, c / d, c / b, c / bs)
        print(f"{a:8} {c*1e3:8.2f} {c/s:7.2f} {c/d:7.2f} {c/b:7.2f} {c/bs:7.2f} | {b/bs:9.2f} {float(rs['sl1_hit']):8.3f} "
              f"{float(rs['sl1_cached']):6.3f} {rs['cln']:>3} | "
              f"{float(rb['comp_us'])/float(rb['h2d_us']):11.2f} {float(rs['sl1_comp_us'])/float(rs['h2d_us']):12.2f}")
    print(f"{'mean':8} (wc, of, dna, mca) BigKernel + S-L1 over BigKernel {mean(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}")
    print(f"{'thesis':8} 1.19x over BigKernel alone, range 1.04-1.45x (5.3.3, ch. 7); 1.07-11.24x (4.32 avg) over\n"
          f"{'':8} the multi-core CPU; BigKernel + S-L1 the fastest of the five scenarios for all four")
    print()
if shutil.which("gnuplot"):
    g = gpus[0]
    dat = os.path.join(out, "fig5_10.dat")
    with open(dat, "w") as f:
        f.write("app S-L1 hardware-L1\n")
        for a in apps:
            f.write(f"{a} {sp_by_gpu[g][a][0]:.4f} {sp_by_gpu[g][a][1]:.4f}\n")
    subprocess.run(["gnuplot", "-e",
                    f"set terminal pngcairo size 800,400; set output '{os.path.join(out, 'fig5_10.png')}';"
                    f"set title 'Fig. 5.10: speed-up over no L1 ({g}, best thread configuration)';"
                    "set style data histograms; set style fill solid border -1; set key top right;"
                    "set yrange [0:*]; set grid ytics;"
                    f"plot for [i=2:3] '{dat}' using i:xtic(1) title columnheader(i)"], check=False)
    dat2 = os.path.join(out, "fig5_15.dat")
    with open(dat2, "w") as f:
        f.write("app executed\n")
        for a, o in zip(apps, over_by_gpu[g]):
            f.write(f"{a} {o:.2f}\n")
    subprocess.run(["gnuplot", "-e",
                    f"set terminal pngcairo size 800,400; set output '{os.path.join(out, 'fig5_15.png')}';"
                    "set title 'Fig. 5.15: extra executed warp instructions with S-L1 (%)';"
                    "set style data histograms; set style fill solid border -1; set grid ytics;"
                    f"plot '{dat2}' using 2:xtic(1) title columnheader(2)"], check=False)
    dat3 = os.path.join(out, "fig5_14.dat")
    with open(dat3, "w") as f:
        f.write("app single double BigKernel BigKernel+S-L1\n")
        for a in bkapps:
            f.write(a + " " + " ".join(f"{x:.4f}" for x in fig514[(g, a)]) + "\n")
    subprocess.run(["gnuplot", "-e",
                    f"set terminal pngcairo size 900,400; set output '{os.path.join(out, 'fig5_14.png')}';"
                    f"set title 'Fig. 5.14: speed-up over the serial CPU run ({g}, data in CPU memory)';"
                    "set style data histograms; set style fill solid border -1; set key outside right;"
                    "set logscale y; set grid ytics;"
                    f"plot for [i=2:5] '{dat3}' using i:xtic(1) title columnheader(i)"], check=False)
PY
# issue 33: with CHECKS_CSV set, this run's checks are appended to it as rows
# (experiments/fidelity_collect.py); the exit status stays the run's own
st=$?
[ -z "${CHECKS_CSV:-}" ] || python3 "$(dirname "$0")/fidelity_collect.py" --append "$CHECKS_CSV" sl1_ch5 "$out"
exit "$st"
