"""docs/hardware.md's table of what the H100 SXM5 boards measured, from validation/hw/.

scripts/docs-blocks.py calls board_table() for the block `hw-board-table`, so
that no number of the table is typed by hand (issue 80 item 4): each row is a
template whose {...} fields name a quantity of the boards' files and how its
values over the runs are reduced. A hand edit of a cell then differs from what
the block's data gives, and cli_docs_blocks fails.

A field is {AGG SECTION QUANTITY X [FORMAT]}:

  SECTION QUANTITY X   a row `row SECTION QUANTITY X value ...` of a run's
                       *.tsv; X may be LO..HI (every x in between); section
                       `ncu` reads the durations.csv files (QUANTITY a kernel
                       name, X BLOCKxGRID threads and CTAs, one value a
                       launch, in ns); section `tlb_chase` reads tlb_chase.csv
                       (QUANTITY `step`, X the stride: the chase's latency at
                       its most hops, the whole 70.8 GB, minus its mean at
                       1024-2000 hops, below 2048 distinct regions)
  AGG                  mean | median | min | max of the values over the runs
                       (one value per file that records the quantity; run6,
                       the check of a refactor of hwbench, takes no part);
                       range: min-max over the runs; runN: that run's value;
                       spread: (max - min) / mean over the runs, in percent;
                       xrange: min-max over X's sizes of the per-size means
  FORMAT               Python's format spec (default .1f)

Arithmetic on fields, where the settles column derives a constant from them,
is written {expr: F1 - F2} with fields in [] (as [mean mech x y 1]).
"""
import csv
import glob
import io
import os
import re
import statistics

BOARD_DIR = "validation/hw/h100-sxm-2026-11-26"
EXCLUDE = ("run6",)


class BoardError(Exception):
    pass


def _series(root):
    """{(section, quantity, x): [(run, value)]} from every run's files."""
    out = {}
    for p in sorted(glob.glob(os.path.join(root, BOARD_DIR, "run*", "*"))):
        run = os.path.basename(os.path.dirname(p))
        if run in EXCLUDE:
            continue
        base = os.path.basename(p)
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if base.endswith(".tsv"):
            for ln in text.split("\n"):
                c = ln.split("\t")
                if len(c) >= 5 and c[0] == "row" and c[1] != "section":
                    try:
                        out.setdefault((c[1], c[2], c[3]), []).append((run, float(c[4])))
                    except ValueError:
                        pass
        elif base == "durations.csv":
            body = "\n".join(ln for ln in text.split("\n") if ln.startswith('"'))
            for r in csv.DictReader(io.StringIO(body)):
                try:
                    block = r["Block Size"].strip("()").split(",")[0].strip()
                    grid = r["Grid Size"].strip("()").split(",")[0].strip()
                    v = float(r["Metric Value"].replace(",", ""))
                except (KeyError, AttributeError, ValueError):
                    continue
                name = r["Kernel Name"].split("(")[0]
                out.setdefault(("ncu", name, f"{block}x{grid}"), []).append((run, v))
        elif base == "tlb_chase.csv":
            body = "\n".join(ln for ln in text.split("\n") if ln and not ln.startswith("#"))
            by = {}
            for r in csv.DictReader(io.StringIO(body)):
                if r.get("kind") == "chase":
                    by.setdefault(r["stride_bytes"], []).append((int(r["hops"]), float(r["latency_cycles"])))
            for stride, pts in by.items():
                before = [v for h, v in pts if 1024 <= h <= 2000]
                if before:
                    out.setdefault(("tlb_chase", "step", stride), []).append(
                        (run, max(pts)[1] - statistics.mean(before)))
    return out


def _values(series, sec, qty, x):
    """[(x, [(run, value)])] for x or every x in LO..HI, in x's order."""
    if ".." in x:
        lo, hi = (float(v) for v in x.split(".."))
        keys = sorted((k for k in series if k[0] == sec and k[1] == qty and lo <= float(k[2]) <= hi),
                      key=lambda k: float(k[2]))
    else:
        keys = [(sec, qty, x)] if (sec, qty, x) in series else []
    if not keys:
        raise BoardError(f"{BOARD_DIR} has no row '{sec} {qty} {x}' (runs other than {', '.join(EXCLUDE)})")
    return [(k[2], series[k]) for k in keys]


def _field(series, spec):
    parts = spec.split()
    if len(parts) not in (4, 5):
        raise BoardError(f"hw-board-table: field '{{{spec}}}' wants AGG SECTION QUANTITY X [FORMAT]")
    agg, sec, qty, x = parts[:4]
    fmt = parts[4] if len(parts) == 5 else ".1f"
    groups = _values(series, sec, qty, x)
    vals = [v for _, rv in groups for _, v in rv]
    if agg == "xrange":
        means = [statistics.mean(v for _, v in rv) for _, rv in groups]
        return f"{min(means):{fmt}}-{max(means):{fmt}}", None
    if agg == "spread":  # the boards' spread: (max - min) / mean, in percent
        return f"{(max(vals) - min(vals)) / statistics.mean(vals) * 100:{fmt}} %", None
    if agg == "range":
        return f"{min(vals):{fmt}}-{max(vals):{fmt}}", None
    if re.fullmatch(r"run\d+", agg):
        mine = [v for _, rv in groups for r, v in rv if r == agg]
        if len(mine) != 1:
            raise BoardError(f"hw-board-table: '{{{spec}}}': {agg} has {len(mine)} values, not one")
        v = mine[0]
    elif agg in ("mean", "median", "min", "max"):
        v = {"mean": statistics.mean, "median": statistics.median, "min": min, "max": max}[agg](vals)
    else:
        raise BoardError(f"hw-board-table: '{{{spec}}}': unknown aggregate '{agg}'")
    return f"{v:{fmt}}", v


def _fill(series, template):
    def expr(m):
        text = m.group(1)
        nums = {}

        def sub(f):
            k = f"v{len(nums)}"
            nums[k] = _field(series, f.group(1))[1]
            return k
        body, fmt = (text.rsplit(" ; ", 1) + [".1f"])[:2] if " ; " in text else (text, ".1f")
        py = re.sub(r"\[([^\]]+)\]", sub, body)
        if not re.fullmatch(r"[v0-9+\-*/(). ]+", py):
            raise BoardError(f"hw-board-table: expression '{text}' has more than fields and + - * /")
        return f"{eval(py, {'__builtins__': {}}, nums):{fmt}}"  # noqa: S307 (checked above)

    out = re.sub(r"\{expr: ([^}]+)\}", expr, template)
    return re.sub(r"\{([^}]+)\}", lambda m: _field(series, m.group(1))[0], out)


# The table's rows: what | measured | what it settles. The settles column names
# preset values (inputs, with their keys) beside the measurements they came from.
ROWS = [
    ("chase, in-kernel curve",
     "{mean chase chase_cycles 4096..131072} cycles to 128 KiB; {xrange chase chase_cycles 524288..16777216} "
     "at 512 KiB-16 MiB; {xrange chase chase_cycles 20971520..25165824} at 20-24 MiB; "
     "{mean chase chase_cycles 29360128 .0f} at 28 MiB; a plateau of {xrange chase chase_cycles 37748736..50331648} "
     "at 36-48 MiB; {mean chase chase_cycles 58720256 .0f} at 56 MiB; {xrange chase chase_cycles 67108864..134217728 .0f} "
     "from 64 MiB",
     "the L2's two partitions as A100's: a near part of ~25 MB and far hits dearer (`mem.far_latency_cycles`)"),
    ("chase, calibrate's kernel",
     "L1 {mean chase chase_l1_hit_cycles 4096}, L2 {mean chase chase_l2_hit_cycles 486400}, far L2 "
     "(36.7 MB, every line; runs 3-4, whose chase reaches the far part: {run3 chase chase_l2_far_cycles 36700160} "
     "and {run4 chase chase_l2_far_cycles 36700160}), DRAM (122 MiB) {mean chase chase_dram_cycles 128026624}, "
     "1 GiB {mean chase chase_dram_1gib_cycles 1073741824} cycles",
     "`load_base_latency_cycles` 49.5, `l2.hit_latency_cycles` 240; `dram.latency_cycles` from the DRAM chase "
     "(366.9 since the homes below); MT4G's published values time other kernels (kept as comments)"),
    ("TLB chase (`tlb_probe chase`, 2 KiB-128 MiB strides to 70.8 GB)",
     "no step up to 64 GiB; at its most hops (70.8 GB, past 2048 distinct regions) a hop costs, over its "
     "plateau at 1024-2000 hops, +{run1 tlb_chase step 33554432 .0f} cycles (32 MiB stride), +{run1 tlb_chase step 16777216 .0f} (16 MiB), "
     "+{run1 tlb_chase step 8388608 .0f} (8 MiB), {run1 tlb_chase step 67108864 +.1f} cycles at 64 MiB (1132 regions)",
     "a level of 2048 entries of 32 MiB (64 GiB reach) whose miss costs 78 cycles (`tlb.l2.miss_penalty_cycles`); "
     "`gpuvm probe --target cuda` finds it (docs/probe.md)"),
    ("TLB misses in flight (`tlbmiss`, 2265 nodes 32 MiB apart, every hop a miss)",
     "lane 0 of K warps of one SM: {mean tlbmiss tlb_miss_par_hops_per_kcycle_sm 32} hops per kcycle at K = 32; "
     "one warp on each of K SMs: {mean tlbmiss tlb_miss_par_hops_per_kcycle_sms 128 .0f} at K = 128; "
     "every lane of K warps of one SM: {mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 1}, "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 2 .0f}, {mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 4 .0f}, "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 8 .0f}, {mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 16 .0f}, "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 32 .0f} for K = 1..32",
     "one SM keeps tens of misses in flight, the GPU at least 128: `tlb.l1/l2.mshrs` 64, `tlb.l3.mshrs` 128"),
    ("ops",
     "FFMA {mean ops fma_latency_cycles 0 .2f}, IMAD {mean ops imad_latency_cycles 0 .2f}, "
     "DFMA {mean ops dp_latency_cycles 0 .2f}, MUFU.EX2 {mean ops sfu_latency_cycles 0} cycles; "
     "{mean ops fma_ops_per_clk_sm 0} / {mean ops imad_ops_per_clk_sm 0} / {mean ops dp_ops_per_clk_sm 0} / "
     "{mean ops sfu_ops_per_clk_sm 0} per clock per SM",
     "the CUDA guide's rates hold; `core.sfu_latency_cycles` 17"),
    ("shared memory",
     "{mean smem smem_latency_cycles 0} cycles; a 2-, 4-, 8-, 16-, 32-way conflict "
     "+{mean mech smem_conflict_extra_cycles 2}, +{mean mech smem_conflict_extra_cycles 4}, "
     "+{mean mech smem_conflict_extra_cycles 8}, +{mean mech smem_conflict_extra_cycles 16}, "
     "+{mean mech smem_conflict_extra_cycles 32} (`mech`, `run4` and `run13`)",
     "two cycles a replayed wavefront: `smem.wavefront_cycles` 2 (one on every other preset)"),
    ("atomics",
     "`calib_atomic`'s chain on one word: {mean atomic atomic_latency_cycles 0 .0f} cycles (pipelined: its "
     "results only feed a sum); a dependent `atomicAdd(w, 0)` chase: {run4 mech atomic_chase_cycles 1} (`run4`) "
     "and {run13 mech atomic_chase_cycles 1} (`run13`) on one line (a `__ldcg` chase of it "
     "{run4 mech ldcg_chase_cycles 1}, `run4`), {mean mech atomic_chase_cycles 64} over 64 lines, "
     "{mean mech atomic_chase_cycles 4096} over 4096",
     "`atomic_latency_cycles` is the dependent one-line chase, their mean {mean mech atomic_chase_cycles 1}; "
     "`l2.atomic_latency_cycles` 211 from `run4`'s {expr: [run4 mech atomic_chase_cycles 1] - [run4 mech ldcg_chase_cycles 1]}"),
    ("STREAM (2 CTAs per SM, 2^26 doubles)",
     "triad {mean stream stream_triad_gb_s 2048} GB/s at 2048 threads per SM "
     "({expr: [mean stream stream_triad_gb_s 2048] / 3350 ; .3f} of the datasheet's 3350), "
     "{mean stream stream_triad_gb_s 512 .0f} at 512, {mean stream stream_triad_gb_s 128 .0f} at 128; "
     "copy {mean stream stream_copy_gb_s 2048 .0f}; read {mean stream stream_read_gb_s 2048 .0f}; "
     "init {mean stream stream_init_gb_s 2048 .0f}",
     "validation rows of calibrate"),
    ("L2 reads",
     "every SM, 4-byte loads: {mean l2 l2_read_bytes_per_clk 0 .0f} B/clk; one 1024-thread CTA per SM, 16-byte "
     "loads: {mean l2 l2_read_gb_s_1cta_per_sm 132 .0f} GB/s (boards {range l2 l2_read_gb_s_1cta_per_sm 132 .0f}); "
     "one CTA alone: {mean l2 l2_read_gb_s_1cta 1} GB/s; DRAM from one CTA per SM: "
     "{mean l2 dram_read_gb_s_1cta_per_sm 132 .0f} GB/s",
     "the L2 as 80 slices of 46.4 B/clk (`l2.slices`, `l2.slice_bytes_per_cycle`); one SM's read port is not the limit"),
    ("launches (events)",
     "200 back-to-back launches of 1 CTA repeat every {range launch empty_kernel_back_to_back_us_block128 1 .2f} us "
     "(128 threads); of 4096 x 256 every {range launch empty_kernel_back_to_back_us_block256 4096 .2f} us",
     "launches overlap the previous kernel: they pipeline at the host's period, `gpu.kernel_launch_period_us` "
     "3.51 from the 1-CTA 128-thread rows (docs/launch.md, \"Back-to-back launches\")"),
    ("empty kernels (ncu, `run1` and `run5`, every launch)",
     "1 CTA {range ncu calib_empty 128x1 .0f} ns; 1024 / 4096 / 65536 CTAs of 128: "
     "{median ncu calib_empty 128x1024 .0f} / {median ncu calib_empty 128x4096 .0f} / "
     "{median ncu calib_empty 128x65536 .0f} ns (medians); 4096 / 16384 of 1024: "
     "{median ncu calib_empty 1024x4096 .0f} / {median ncu calib_empty 1024x16384 .0f} ns; "
     "512 CTAs per SM of 128 and of 1024 threads: {median ncu calib_empty 128x67584 .0f} / "
     "{median ncu calib_empty 1024x67584 .0f} ns",
     "`cta_dispatch_cycles` 1.19; only 1024-thread CTAs are slot-limited; `cta_launch_cycles` 369, "
     "`cta_release_cycles_per_warp` 0 (h100-pcie keeps its nsys list's 421 + 6.5 a warp); `kernel_frontend_cycles` 3464"),
    ("host link",
     "pinned H2D {mean link h2d_pinned_gb_s 268435456} GB/s at 256 MiB (PCIe 5.0 x16), pageable "
     "{xrange link h2d_pageable_gb_s 1048576..268435456 .0f} GB/s from 1 MiB; a 4 KiB pinned copy "
     "{range link h2d_copy_4k_us 4096} us; a dependent zero-copy read {range link zero_copy_read_ns 8388608 .0f} ns",
     "`pcie.copy_latency_us` 9.62; `pcie.latency_ns` 1175 (gpuvm's same chase is calibrate's `zero_copy_read_ns` row)"),
    ("far faults and migration",
     "first touch of a managed 2 MiB block {range fault far_fault_us 0} us (mean {mean fault far_fault_us 0}; "
     "`mech`'s 2 MiB stride {range mech far_fault_us_vs_stride 2097152}); `cudaMemPrefetchAsync` of a "
     "host-written 2 MiB block {range mech prefetch_2mib_us 2097152 .0f} us",
     "`uvm.migration_gb_s` 11.0 (a per-block rate) and `uvm.fault_latency_us` 33 (docs/uvm.md, "
     "\"Migration rate and fault latency on H100\")"),
    ("random sampling (Karnagel Fig. 1's operator)",
     "{mean sampling random_sampling_greads_s 33554432 .0f} Greads/s at 32 MiB, "
     "{xrange sampling random_sampling_greads_s 134217728..1073741824 .0f} at 128 MiB-1 GiB, "
     "{xrange sampling random_sampling_greads_s 34359738368..68719476736 .0f} at 32-64 GiB",
     "no TLB cliff inside 64 GiB on this part (P100's is past 2 GiB): validation of the 64 GiB reach"),
]


def board_table(root):
    """The block's text: the table and the note that states each aggregate."""
    if not os.path.isdir(os.path.join(root, BOARD_DIR)):
        raise BoardError(f"{BOARD_DIR} missing")
    series = _series(root)
    out = ["| what | measured | what it settles |", "|---|---|---|"]
    for what, measured, settles in ROWS:
        out.append(f"| {what} | {_fill(series, measured)} | {_fill(series, settles)} |")
    note = (f"Written by scripts/hw_board_table.py from `{BOARD_DIR}/` (every run but `run6`, the check of "
            "a refactor of hwbench). A number alone is the **mean over the runs** that recorded it (one value a "
            "file); a-b is the minimum and maximum over those runs, or, for a curve over sizes, over the sizes "
            "of the per-size means; a run named beside a number is that run's value alone; the ncu durations "
            "are every launch of `run1` and `run5`, by median or range as the cell says. The TLB chase's step "
            "is `run1`'s `tlb_chase.csv`: its latency at its most hops (the whole 70.8 GB) minus its mean at "
            "1024-2000 hops (below 2048 regions). "
            "The third column's values are the preset's (inputs, with their keys).")
    return "\n".join(out) + "\n\n" + note


# The page's sentence on the boards' spread, a block of its own below the list of runs
SPREAD = ("Board-to-board spread ((max - min) / mean over the runs that recorded a quantity, every run but "
          "`run6`): the L2 hit {range chase chase_l2_hit_cycles 486400} cycles ({spread chase chase_l2_hit_cycles 486400 .0f}), "
          "the DRAM chase {spread chase chase_dram_cycles 128026624 .0f}, FFMA {spread ops fma_latency_cycles 0 .1f}; "
          "STREAM triad at 2048 threads per SM {spread stream stream_triad_gb_s 2048 .1f}; one back-to-back launch "
          "{spread launch empty_kernel_back_to_back_us_block128 1 .0f}, a 4 KiB pinned copy "
          "{spread link h2d_copy_4k_us 4096 .0f}; random sampling at 128 MiB "
          "{spread sampling random_sampling_greads_s 134217728 .0f}, at 64 GiB "
          "{spread sampling random_sampling_greads_s 68719476736 .0f}.")


def board_spread(root):
    """The block `hw-board-spread`: how far the boards differ, per quantity."""
    if not os.path.isdir(os.path.join(root, BOARD_DIR)):
        raise BoardError(f"{BOARD_DIR} missing")
    return _fill(_series(root), SPREAD)
