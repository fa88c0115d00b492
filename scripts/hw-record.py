#!/usr/bin/env python3
"""Records what scripts/hw-measure.sh measured on a real GPU into the tables
gpuvm reads (docs/hardware.md, "Recording the results"):

- calibration: validation/microbench.tsv rows of PRESET, each the mean over
  the hwbench.tsv files given (one per board or run; the convention column
  lists every run's value). A row that had a value from another method is
  kept as a comment above the new one.
- validation: validation/measurements.tsv (and -large.tsv for the slow rows)
  `workload:` rows from ncu's kernel durations (durations.csv): hwbench
  launches each kernel several times back to back, so each size gives two
  rows, the median of its launches (convention nsys-median; the L2 as the
  earlier launches left it) and its first launch (TAG-NAME-N-first,
  nsys-first: the L2 as the uploads left it), both replayed with the
  workload's launches=N, N the launches in one file.

  python3 scripts/hw-record.py --preset h100 --tag TAG --source TEXT \\
      --hwbench run1/hwbench.tsv --hwbench run2/hwbench.tsv --durations run1/durations.csv

Idempotent: rows it wrote before (their source starts with "measured:
cuda/hwbench.cu") are replaced, never duplicated.
"""
import argparse
import csv
import re
import statistics
import sys
from collections import defaultdict

# microbench quantity <- (hwbench quantity, x); the x is the row's size
# (threads per SM for STREAM, CTAs for launches, bytes for copies)
FROM_HWBENCH = {
    "chase_l1_hit_cycles": ("chase_l1_hit_cycles", None),
    "chase_l2_hit_cycles": ("chase_l2_hit_cycles", None),
    "chase_l2_far_cycles": ("chase_l2_far_cycles", None),
    "chase_dram_cycles": ("chase_dram_cycles", None),
    "chase_dram_1gib_cycles": ("chase_dram_1gib_cycles", None),
    "fma_latency_cycles": ("fma_latency_cycles", None),
    "imad_latency_cycles": ("imad_latency_cycles", None),
    "dp_latency_cycles": ("dp_latency_cycles", None),
    "sfu_latency_cycles": ("sfu_latency_cycles", None),
    "smem_latency_cycles": ("smem_latency_cycles", None),
    "smem_2way_conflict_extra_cycles": ("smem_2way_conflict_extra_cycles", None),
    # the simulator's calib_atomic chain waits for each atomic; on H100
    # calib_atomic's do not (127 cycles, under an L2 hit): the dependent
    # atomic chase on one line is the like
    "atomic_latency_cycles": ("atomic_chase_cycles", "1"),
    "stream_copy_gb_s": ("stream_copy_gb_s", "2048"),
    "stream_triad_gb_s": ("stream_triad_gb_s", "2048"),
    "stream_triad_gb_s_occ6": ("stream_triad_gb_s", "128"),
    "stream_triad_gb_s_occ25": ("stream_triad_gb_s", "512"),
    "stream_init_gb_s_occ6": ("stream_init_gb_s", "128"),
    "stream_init_gb_s_occ25": ("stream_init_gb_s", "512"),
    "stream_init_gb_s": ("stream_init_gb_s", "2048"),
    "stream_read_gb_s_occ6": ("stream_read_gb_s", "128"),
    "stream_read_gb_s_occ25": ("stream_read_gb_s", "512"),
    "stream_read_gb_s": ("stream_read_gb_s", "2048"),
    "l2_read_bytes_per_clk": ("l2_read_bytes_per_clk", None),
    "l2_read_gb_s_1cta": ("l2_read_gb_s_1cta", None),
    "l2_read_gb_s_1cta_per_sm": ("l2_read_gb_s_1cta_per_sm", None),
    "l2_write_gb_s_1cta_per_sm": ("l2_write_gb_s_1cta_per_sm", None),
    "l2_write_gb_s_1cta": ("l2_write_gb_s_1cta", None),
    "l2_write_gb_s_1cta_per_2sm": ("l2_write_gb_s_1cta_per_2sm", None),
    "l2_write_gb_s_2cta_per_sm": ("l2_write_gb_s_2cta_per_sm", None),
    "l2_read_gb_s_1cta_per_2sm": ("l2_read_gb_s_1cta_per_2sm", None),
    "dram_read_gb_s_1cta_per_sm": ("dram_read_gb_s_1cta_per_sm", None),
    "empty_kernel_us_grid4096": ("empty_kernel_back_to_back_us_block256", "4096"),
    # back-to-back periods of the empty kernels whose ncu durations are
    # the empty_kernel_cycles_* rows (docs/launch.md, "Back-to-back launches")
    "empty_kernel_period_us_grid1": ("empty_kernel_back_to_back_us_block128", "1"),
    "empty_kernel_period_us_grid1024": ("empty_kernel_back_to_back_us_block128", "1024"),
    "empty_kernel_period_us_grid4096": ("empty_kernel_back_to_back_us_block128", "4096"),
    "empty_kernel_period_us_grid65536": ("empty_kernel_back_to_back_us_block128", "65536"),
    "empty_kernel_period_us_grid4096_block1024": ("empty_kernel_back_to_back_us_block1024", "4096"),
    "empty_kernel_period_us_grid16384_block1024": ("empty_kernel_back_to_back_us_block1024", "16384"),
    "h2d_pinned_gb_s": ("h2d_pinned_gb_s", "268435456"),
    "h2d_copy_4k_us": ("h2d_copy_4k_us", None),
    "far_fault_us": ("far_fault_us", None),
    "zero_copy_read_ns": ("zero_copy_read_ns", None),
    # a warp's DRAM load by its sectors (warpload), one warp and one per SM
    **{f"warp_load_cycles_s{n}": ("warp_load_cycles_w1", str(n)) for n in (1, 8, 16, 32)},
    **{f"warp_load_cycles_s{n}_sms": ("warp_load_cycles_w132", str(n)) for n in (1, 8, 16, 32)},
}

# why a row's convention is what gpuvm calibrate computes
NOTES = {
    "kernel_launch_cycles": "200 back-to-back launches of 1 CTA of 32 threads, events around all: the period, as calibrate's (T(3 launches) - T(1)) / 2",
    "empty_kernel_us_grid4096": "200 back-to-back launches of 4096 CTAs of 256 threads, events around all: the period, as calibrate's (T(3 launches) - T(1)) / 2",
    "stream_triad_fraction_of_peak": "triad GB/s at 2048 threads per SM over the board peak",
    **{q: "200 back-to-back launches between two events: the period, as calibrate's (T(3 launches) - T(1)) / 2"
       for q in FROM_HWBENCH if q.startswith("empty_kernel_period_us_")},
}

EMPTY_ROWS = {  # microbench quantity <- (grid, block) of calib_empty under ncu
    "empty_kernel_cycles_grid1": (1, 128),
    "empty_kernel_cycles_grid1024": (1024, 128),
    "empty_kernel_cycles_grid4096": (4096, 128),
    "empty_kernel_cycles_grid65536": (65536, 128),
    "empty_kernel_cycles_grid4096_block1024": (4096, 1024),
    "empty_kernel_cycles_grid16384_block1024": (16384, 1024),
}


def read_hwbench(path):
    rows, head = {}, {}
    with open(path) as f:
        for line in f:
            m = re.match(r"# device=(.*?) sms=(\d+) .*clock_mhz=([0-9.]+)", line)
            if m:
                head = {"device": m.group(1), "sms": m.group(2), "clock_mhz": m.group(3)}
            if not line.startswith("row\t") or line.startswith("row\tsection"):
                continue
            _, _, q, x, v, unit, method = line.rstrip("\n").split("\t")
            rows[(q, x)] = (float(v), unit, method)
    return rows, head


def read_durations(path):
    """{(kernel, grid, block): [ns, ...]} from ncu --csv, in launch order"""
    out = defaultdict(list)
    with open(path) as f:
        lines = [l for l in f if not l.startswith("==")]
    for r in csv.DictReader(lines):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        scale = {"ns": 1.0, "us": 1e3, "usecond": 1e3, "nsecond": 1.0, "ms": 1e6}[r["Metric Unit"]]
        kern = r["Kernel Name"].split("(")[0]
        grid = tuple(int(v) for v in r["Grid Size"].strip("()").split(","))
        block = tuple(int(v) for v in r["Block Size"].strip("()").split(","))
        out[(kern, grid, block)].append(float(r["Metric Value"].replace(",", "")) * scale)
    return out


def fmt(v):
    return f"{v:.4g}" if abs(v) < 100 else f"{v:.1f}"


# every source this script writes starts so (--source must): its own rows
# are replaced in place on a rerun, another source's are kept as comments
MEASURED = "measured: cuda/hwbench.cu"


def header_of(lines):
    """The column names of a tab-separated table (its first line that is
    neither blank nor a comment)."""
    for line in lines:
        if line.strip() and not line.startswith("#"):
            return line.split("\t")
    return []


def rewrite_table(path, replace, gpu):
    """replace: {(gpu, quantity): newline}; rows of gpu with a quantity in
    replace are swapped in place (an old row with a value from another
    source is kept as a comment); quantities not present are appended after
    the gpu's last row."""
    with open(path) as f:
        lines = f.read().splitlines()
    if "role" in header_of(lines):
        # the preset's parameters are set from these rows (hw-record's
        # calibration half): their role says so
        replace = {k: v + "\tcalibration" for k, v in replace.items()}
    if "at" in header_of(lines):
        # no measurement point: calibrate measures these where it always does
        replace = {k: v + "\t" for k, v in replace.items()}
    out, done, last_gpu = [], set(), None
    for line in lines:
        cols = line.split("\t")
        key = (cols[0], cols[1]) if len(cols) > 2 and not line.startswith("#") else None
        if key in replace:
            old_value, old_source = cols[2], cols[4] if len(cols) > 4 else ""
            if old_value != "none published" and not old_source.startswith(MEASURED):
                out.append("# superseded by the measurement below (another kernel or method): " + line)
            out.append(replace[key])
            done.add(key)
        else:
            out.append(line)
        if key and key[0] == gpu:
            last_gpu = len(out)
    extra = [v for k, v in replace.items() if k not in done]
    if extra:
        at = last_gpu if last_gpu is not None else len(out)
        out[at:at] = extra
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", required=True)
    ap.add_argument("--tag", required=True, help="prefix of the validation rows' names, e.g. h100sxm")
    ap.add_argument("--source", required=True, help="source column text, starts 'measured: cuda/hwbench.cu'")
    ap.add_argument("--hwbench", action="append", required=True)
    ap.add_argument("--durations", action="append", default=[],
                    help="ncu durations.csv; given twice, every launch of both counts")
    ap.add_argument("--peak-gb-s", type=float, required=True, help="board DRAM peak for the triad fraction")
    ap.add_argument("--microbench", default="validation/microbench.tsv")
    ap.add_argument("--measurements", default="validation/measurements.tsv")
    ap.add_argument("--large", default="validation/measurements-large.tsv")
    ap.add_argument("--large-us", type=float, default=60.0,
                    help="rows measured longer than this go to --large (CI replays the rest)")
    ap.add_argument("--validation-only", action="store_true",
                    help="rewrite only the validation rows (the durations), not --microbench")
    a = ap.parse_args()
    if not a.source.startswith(MEASURED):
        ap.error(f"--source must start with '{MEASURED}'")

    runs = [read_hwbench(p) for p in a.hwbench]
    mhz = statistics.mean(float(h["clock_mhz"]) for _, h in runs)
    device = runs[0][1]["device"]

    def measured(q, x):
        """the row in every run whose method is the last run's (an older
        hwbench may have timed it another way)"""
        vals = []
        for rows, _ in runs:
            hit = [v for (qq, xx), v in rows.items() if qq == q and (x is None or xx == x)]
            if hit:
                vals.append(hit[0])
        return [v for v in vals if v[2] == vals[-1][2]] if vals else vals

    rep = {}

    def put(q, vals, unit, method):
        mean = statistics.mean(vals)
        each = ", ".join(fmt(v) for v in vals)
        conv = f"{method}; mean of {len(vals)} run(s): {each}"
        rep[(a.preset, q)] = "\t".join([a.preset, q, fmt(mean), unit, a.source, conv])

    for q, (hq, x) in FROM_HWBENCH.items():
        got = measured(hq, x)
        if got:
            method = got[0][2] + (f" (x = {x})" if x else "")
            put(q, [v for v, _, _ in got], got[0][1], NOTES.get(q, method))
    got = measured("empty_kernel_back_to_back_us_block32", "1")
    if got:
        put("kernel_launch_cycles", [v * mhz for v, _, _ in got], "cycles", NOTES["kernel_launch_cycles"])
    got = measured("stream_triad_gb_s", "2048")
    if got:
        put("stream_triad_fraction_of_peak", [v / a.peak_gb_s for v, _, _ in got], "fraction",
            NOTES["stream_triad_fraction_of_peak"] + f" {a.peak_gb_s:g} GB/s")

    val_rows = []
    if a.durations:
        dur = defaultdict(list)
        first = defaultdict(list)  # each file's first launch
        per_file = defaultdict(set)  # launches a file holds
        for path in a.durations:
            for k, v in read_durations(path).items():
                dur[k] += v
                first[k].append(v[0])
                per_file[k].add(len(v))

        def median_us(kern, grid, block):
            v = dur.get((kern, grid, block))
            return statistics.median(v) / 1e3 if v else None

        for q, (g, b) in EMPTY_ROWS.items():
            us = median_us("calib_empty", (g, 1, 1), (b, 1, 1))
            if us is not None:
                put(q, [us * mhz], "cycles",
                    "ncu gpu__time_duration (nsys's convention: start to completion on the GPU), "
                    f"--clock-control none, median of the launches in {len(a.durations)} file(s), us x {mhz:.0f} MHz")
        what = "as nsys times it (ncu gpu__time_duration, --clock-control none --cache-control none"

        def add(name, spec, keys, text, first_row=True):
            """the median and (first_row) the first-launch rows of one size;
            keys: the (kernel, grid, block) of each kernel the row sums"""
            counts = set().union(*(per_file[k] for k in keys))
            if any(k not in dur for k in keys) or len(counts) != 1:
                return  # a kernel missing, or files with other launch counts
            n = counts.pop()
            spec = f"{spec},launches={n}"
            med = sum(statistics.median(dur[k]) for k in keys) / 1e3
            fst = sum(statistics.mean(first[k]) for k in keys) / 1e3
            val_rows.append((name, spec, med, f"{text} {what}, median of the launches: {n} back "
                             f"to back in each of {len(a.durations)} file(s))", "nsys-median"))
            if first_row:
                val_rows.append((name + "-first", spec, fst, f"{text} {what}, the first of {n} launches "
                                 f"back to back after the uploads, mean over {len(a.durations)} file(s))",
                                 "nsys-first"))

        for (kern, grid, block), v in sorted(dur.items()):
            key = (kern, grid, block)
            if kern == "vectoradd_kernel":
                n = grid[0] * 256
                add(f"{a.tag}-vectoradd-{n}", f"workload:vectoradd:n={n}", [key],
                    "kernel time of the CUDA samples' vectorAdd (floats, 256-thread blocks)")
            elif kern == "conv2d_kernel":
                n = grid[0] * 32
                add(f"{a.tag}-2dconv-{n}", f"workload:2dconv:n={n}", [key],
                    "kernel time of PolyBench/GPU 2DCONV (32 x 8 blocks)")
            elif kern == "gemm_kernel":
                n = grid[0] * 32
                add(f"{a.tag}-gemm-{n}", f"workload:gemm:n={n}", [key],
                    "kernel time of PolyBench/GPU GEMM (32 x 8 blocks)")
            elif kern in ("gesummv_kernel", "bicg_kernel1") and grid[0] == 1:
                continue  # n = 128 and 256 both launch one 256-thread CTA: not told apart
            elif kern in ("mvt_kernel1", "bicg_kernel1"):
                name = kern.split("_")[0]
                n = grid[0] * block[0]
                # hwbench runs MVT, BiCG and GESUMMV in turn on one matrix
                # (rounds of mvt1 mvt2 bicg1 bicg2 gesummv): only MVT's
                # first launch finds the L2 as the uploads left it
                add(f"{a.tag}-{name}-{n}", f"workload:{name}:n={n}",
                    [key, (name + "_kernel2", grid, block)],
                    f"kernel time of PolyBench/GPU {name.upper()} (two kernels, summed, "
                    f"{block[0]} x {block[1]} blocks; on the board each round also ran the other "
                    "matrix-vector kernels on the same matrix)", first_row=name == "mvt")
            elif kern == "gesummv_kernel":
                n = grid[0] * block[0]
                add(f"{a.tag}-gesummv-{n}", f"workload:gesummv:n={n}", [key],
                    f"kernel time of PolyBench/GPU GESUMMV ({block[0]} x {block[1]} blocks; on "
                    "the board after MVT and BiCG on the same matrix in each round)", first_row=False)
            elif kern == "atax_pb_kernel1":
                n = grid[0] * 32
                add(f"{a.tag}-atax-{n}", f"workload:atax:variant=polybench-gpu,n={n}",
                    [key, ("atax_pb_kernel2", grid, block)],
                    "kernel time of PolyBench/GPU ATAX (two kernels, summed, 32 x 8 blocks)")

    if not a.validation_only:
        rewrite_table(a.microbench, rep, a.preset)
    if val_rows:
        for path, keep in ((a.measurements, lambda us: us <= a.large_us), (a.large, lambda us: us > a.large_us)):
            with open(path) as f:
                lines = [l for l in f.read().splitlines() if not l.startswith(a.tag + "-")]
            # kernel durations set no parameter: validation rows
            role = ["validation"] if "role" in header_of(lines) else []
            for name, trace, us, what, conv in sorted(val_rows, key=lambda r: (r[1].split(":")[1], int(re.search(r"\bn=(\d+)", r[1]).group(1)), r[4] != "nsys-median")):
                if keep(us):
                    lines.append("\t".join([name, trace, device, a.preset, f"{us:.3f}", what,
                                             f"{MEASURED} durations under ncu ({', '.join(a.durations)})", conv] + role))
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
    print(f"{len(rep)} microbench rows of {a.preset}, {len(val_rows)} validation rows", file=sys.stderr)


if __name__ == "__main__":
    main()
