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
                       its most hops minus its mean over STEP_WINDOW_HOPS;
                       `last_hops` and `last_bytes`: its most hops and the
                       bytes they span)
  AGG                  mean | median | min | max of the values over the runs
                       (one value per file that records the quantity; run6,
                       the check of a refactor of hwbench, takes no part);
                       list: every run's value, in the runs' order;
                       range: min-max over the runs; runN: that run's value;
                       spread: (max - min) / mean over the runs, in percent;
                       xrange: min-max over X's sizes of the per-size means
  FORMAT               Python's format spec (default .1f)

Arithmetic on fields, where the settles column derives a constant from them,
is written {expr: F1 - F2} with fields in [] (as [mean mech x y 1], or
[pval KEY] for a preset's value).

No number beside a field is typed apart from it:

  {@KIND} / {KIND@}    the X of the field just before / after the label: the
                       size or count the value was measured at (KIND B: bytes
                       in binary units, 4-128 KiB for a range; cta: BLOCKxGRID
                       as "G CTAs of B"; empty: the number)
  {x SECTION QUANTITY X [KIND]}   the X's a row has, alone (a curve's extent)
  {runs SECTION QUANTITY X}       the runs that recorded a quantity
  {preset KEY}         `KEY` and its value in presets/h100.ini (KEY as
                       `gpuvm presets` spells it: tlb.l2.miss_penalty_cycles;
                       PRESET:KEY for another preset); {pval KEY} the value alone
  FORMAT B             a byte count in binary units (70.8 GiB)
"""
import configparser
import csv
import glob
import io
import os
import re
import statistics

BOARD_DIR = "validation/hw/h100-sxm-2026-11-26"
EXCLUDE = ("run6",)
# the TLB chase's step is its last point over its mean in this window of hops:
# past the L1 TLB's reach at the large strides, below the 2048 regions of 32 MiB
STEP_WINDOW_HOPS = (1024, 2000)
PRESET = "presets/h100.ini"


class BoardError(Exception):
    pass


def _series(root):
    """{(section, quantity, x): [(run, value)]} from every run's files."""
    out = {}
    for p in sorted(glob.glob(os.path.join(root, BOARD_DIR, "run*", "*"))):
        run = os.path.basename(os.path.dirname(p))
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
                lo, hi = STEP_WINDOW_HOPS
                before = [v for h, v in pts if lo <= h <= hi]
                if before:
                    out.setdefault(("tlb_chase", "step", stride), []).append(
                        (run, max(pts)[1] - statistics.mean(before)))
                # the curve's extent: its last point's hops and the bytes it spans
                out.setdefault(("tlb_chase", "last_hops", stride), []).append((run, float(max(pts)[0])))
                out.setdefault(("tlb_chase", "last_bytes", stride), []).append(
                    (run, float(max(pts)[0]) * int(stride)))
    return out


def included(rv):
    """[(run, value)] less the runs in EXCLUDE, which only a runN field reads."""
    return [(r, v) for r, v in rv if r not in EXCLUDE]


def _values(series, sec, qty, x, all_runs=False):
    """[(x, [(run, value)])] for x or every x in LO..HI, in x's order; the runs in
    EXCLUDE only when all_runs (a runN field names its run)."""
    if ".." in x:
        lo, hi = (float(v) for v in x.split(".."))
        keys = sorted((k for k in series if k[0] == sec and k[1] == qty and lo <= float(k[2]) <= hi),
                      key=lambda k: float(k[2]))
    else:
        keys = [(sec, qty, x)] if (sec, qty, x) in series else []
    out = [(k[2], series[k] if all_runs else included(series[k])) for k in keys]
    out = [(k, rv) for k, rv in out if rv]
    if not out:
        raise BoardError(f"{BOARD_DIR} has no row '{sec} {qty} {x}'"
                         + ("" if all_runs else f" (runs other than {', '.join(EXCLUDE)})"))
    return out


def _field(series, spec):
    parts = spec.split()
    if len(parts) not in (4, 5):
        raise BoardError(f"hw-board-table: field '{{{spec}}}' wants AGG SECTION QUANTITY X [FORMAT]")
    agg, sec, qty, x = parts[:4]
    fmt = parts[4] if len(parts) == 5 else ".1f"
    groups = _values(series, sec, qty, x, all_runs=bool(re.fullmatch(r"run\d+", agg)))
    vals = [v for _, rv in groups for _, v in rv]
    if agg == "list":  # every run's value, in the runs' order
        return ", ".join(f"{v:{fmt}}" for _, rv in groups
                         for _, v in sorted(rv, key=lambda t: int(t[0][3:]))), None
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
    if fmt == "B":  # a byte count in binary units
        return _fmt_x(str(v), "B"), v
    return f"{v:{fmt}}", v


def _preset_value(root, spec):
    """(text, number or None) of a preset key: KEY (presets/h100.ini) or PRESET:KEY;
    KEY is SECTION.NAME as `gpuvm presets` spells it (tlb.l2.miss_penalty_cycles)."""
    name, key = spec.split(":", 1) if ":" in spec else ("h100", spec)
    if "." not in key:
        raise BoardError(f"hw-board-table: preset key '{key}' is not SECTION.NAME")
    section, item = key.rsplit(".", 1)
    rel = f"presets/{name}.ini"
    cp = configparser.ConfigParser(comment_prefixes=("#", ";"), inline_comment_prefixes=(";",),
                                   interpolation=None)
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            cp.read_string("[top]\n" + f.read(), rel)  # `base = ...` comes before any section
    except (OSError, configparser.Error) as e:
        raise BoardError(f"hw-board-table: cannot read {rel}: {e}")
    if not cp.has_option(section, item):
        raise BoardError(f"hw-board-table: {rel} sets no '{key}'")
    text = cp.get(section, item).strip()
    try:
        return text, float(text)
    except ValueError:
        return text, None


def _fmt_x(x, kind):
    """One X of a row as a label: B (bytes, binary units), cta (BLOCKxGRID), or the number."""
    if kind == "cta":
        block, grid = x.split("x")
        return f"{grid} CTA{'' if grid == '1' else 's'} of {block}"
    v = float(x)
    if kind == "B":
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)):
            if v >= size or size == 1:
                q = v / size
                return (f"{q:.0f}" if q == int(q) else f"{q:.3g}") + " " + unit
    if kind:
        raise BoardError(f"hw-board-table: unknown label kind '{kind}'")
    return f"{v:.0f}" if v == int(v) else f"{v:g}"


def _label(xs, kind):
    """The X's of a field (the sizes a range found, in order) as one label: 4-128 KiB."""
    a, b = _fmt_x(xs[0], kind), _fmt_x(xs[-1], kind)
    if len(xs) == 1 or a == b:
        return a
    ua, ub = a.rsplit(" ", 1), b.rsplit(" ", 1)
    if kind == "B" and ua[1] == ub[1]:
        return f"{ua[0]}-{b}"
    return f"{a}-{b}"


def _fill(series, template, root="."):
    """A template's text: {AGG SECTION QUANTITY X [FORMAT]} fields; {preset KEY} (the
    key and its value in presets/h100.ini, or PRESET:KEY) and {pval KEY} (the value
    alone); {runs SECTION QUANTITY X} (the runs that recorded it); {@KIND} and
    {KIND@}, the X of the field before or after the label (KIND: B bytes, cta, or
    empty for the number), so that no size beside a value is typed apart from the
    field that reads it; {expr: ...} arithmetic on [fields]."""
    def field_num(spec):
        if spec.startswith("pval "):
            return _preset_value(root, spec[5:].strip())[1]
        return _field(series, spec)[1]

    def expr(m):
        text = m.group(1)
        nums = {}

        def sub(f):
            k = f"v{len(nums)}"
            nums[k] = field_num(f.group(1))
            return k
        body, fmt = (text.rsplit(" ; ", 1) + [".1f"])[:2] if " ; " in text else (text, ".1f")
        py = re.sub(r"\[([^\]]+)\]", sub, body)
        if not re.fullmatch(r"[v0-9+\-*/(). ]+", py) or None in nums.values():
            raise BoardError(f"hw-board-table: expression '{text}' has more than fields and + - * /")
        return f"{eval(py, {'__builtins__': {}}, nums):{fmt}}"  # noqa: S307 (checked above)

    out = re.sub(r"\{expr: ([^}]+)\}", expr, template)
    tokens = re.split(r"(\{[^}]+\})", out)
    xs_of = {}  # token index -> the X's its field read
    for i, t in enumerate(tokens):
        if not (t.startswith("{") and t.endswith("}")):
            continue
        spec = t[1:-1].strip()
        if spec.startswith("@") or spec.endswith("@"):
            continue
        if spec.startswith("preset "):
            key = spec[7:].strip()
            tokens[i] = f"`{key.split(':')[-1]}` {_preset_value(root, key)[0]}"
        elif spec.startswith("pval "):
            tokens[i] = _preset_value(root, spec[5:].strip())[0]
        elif spec.startswith("runs "):
            parts = spec.split()[1:]
            if len(parts) != 3:
                raise BoardError(f"hw-board-table: '{t}' wants runs SECTION QUANTITY X")
            runs = sorted({r for _, rv in _values(series, *parts) for r, _ in rv}, key=lambda r: int(r[3:]))
            names = [f"`{r}`" for r in runs]
            tokens[i] = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            xs_of[i] = [x for x, _ in _values(series, *parts)]
        elif spec.startswith("x "):  # the X's alone: {x SECTION QUANTITY X [KIND]}
            parts = spec.split()[1:]
            if len(parts) not in (3, 4):
                raise BoardError(f"hw-board-table: '{t}' wants x SECTION QUANTITY X [KIND]")
            xs_of[i] = [x for x, _ in _values(series, *parts[:3])]
            tokens[i] = _label(xs_of[i], parts[3] if len(parts) == 4 else "")
        else:
            parts = spec.split()
            if len(parts) >= 4:
                xs_of[i] = [x for x, _ in _values(series, parts[1], parts[2], parts[3],
                                                  all_runs=bool(re.fullmatch(r"run\d+", parts[0])))]
            tokens[i] = _field(series, spec)[0]
    fields = sorted(xs_of)
    for i, t in enumerate(tokens):
        if not (t.startswith("{") and t.endswith("}")):
            continue
        spec = t[1:-1].strip()
        if spec.startswith("@"):
            near = [j for j in fields if j < i]
            pick = near[-1] if near else None
            kind = spec[1:].strip()
        else:
            near = [j for j in fields if j > i]
            pick = near[0] if near else None
            kind = spec[:-1].strip()
        if pick is None:
            raise BoardError(f"hw-board-table: label '{t}' has no field {'before' if spec.startswith('@') else 'after'} it")
        tokens[i] = _label(xs_of[pick], kind)
    return "".join(tokens)


# The table's rows: what | measured | what it settles. Every number is a field:
# a value of the boards' files, the size or count it was measured at ({@B} after
# it), or a preset value with its key ({preset KEY}, presets/h100.ini), so that
# none of the three columns is typed apart from its data.
_W = "%d-%d" % STEP_WINDOW_HOPS
ROWS = [
    ("chase, in-kernel curve",
     "{mean chase chase_cycles 4096..131072} cycles at {@B}; {xrange chase chase_cycles 524288..16777216} "
     "at {@B}; {xrange chase chase_cycles 20971520..25165824} at {@B}; "
     "{mean chase chase_cycles 29360128 .0f} at {@B}; a plateau of {xrange chase chase_cycles 37748736..50331648} "
     "at {@B}; {mean chase chase_cycles 58720256 .0f} at {@B}; {xrange chase chase_cycles 67108864..134217728 .0f} "
     "at {@B}",
     "the L2 ({preset l2.size}) in two partitions as A100's ({preset mem.partitions}), far hits dearer "
     "({preset mem.far_latency_cycles})"),
    ("chase, calibrate's kernel",
     "L1 {mean chase chase_l1_hit_cycles 4096} ({@B}), L2 {mean chase chase_l2_hit_cycles 486400} ({@B}), "
     "far L2 {run3 chase chase_l2_far_cycles 36700160} and {run4 chase chase_l2_far_cycles 36700160} "
     "({@B}, every line; runs 3-4, whose chase reaches the far part), DRAM "
     "{mean chase chase_dram_cycles 128026624} ({@B}), {mean chase chase_dram_1gib_cycles 1073741824} "
     "cycles at {@B}",
     "{preset gpu.load_base_latency_cycles}, {preset l2.hit_latency_cycles}; {preset dram.latency_cycles} "
     "from the DRAM chase (since the homes below); MT4G's published values time other kernels (kept as comments)"),
    ("TLB chase (`tlb_probe chase`, `run1`, strides {x tlb_chase last_hops 2048..134217728 B})",
     "at its most hops ({run1 tlb_chase last_bytes 33554432 B}, {run1 tlb_chase last_hops 33554432 .0f} "
     "regions of {@B}) a hop costs, over its plateau at " + _W + " hops, "
     "+{run1 tlb_chase step 33554432 .0f} cycles ({@B} stride), +{run1 tlb_chase step 16777216 .0f} ({@B}), "
     "+{run1 tlb_chase step 8388608 .0f} ({@B}), {run1 tlb_chase step 67108864 +.1f} cycles at {@B} "
     "({run1 tlb_chase last_hops 67108864 .0f} regions)",
     "a level of {preset tlb.l2.entries} x {preset tlb.l2.entry_size} whose miss costs "
     "{preset tlb.l2.miss_penalty_cycles}; `gpuvm probe --target cuda` finds it (docs/probe.md)"),
    ("TLB misses in flight (`tlbmiss`, {runs tlbmiss tlb_miss_par_hops_per_kcycle_sm 1}: nodes 32 MiB apart to the end of the memory, every hop a miss)",
     "lane 0 of K warps of one SM: {mean tlbmiss tlb_miss_par_hops_per_kcycle_sm 32} hops per kcycle at K = {@}; "
     "one warp on each of K SMs: {mean tlbmiss tlb_miss_par_hops_per_kcycle_sms 128 .0f} at K = {@}; "
     "every lane of K warps of one SM: {mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 1} (K = {@}), "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 2 .0f} ({@}), "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 4 .0f} ({@}), "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 8 .0f} ({@}), "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 16 .0f} ({@}), "
     "{mean tlbmiss tlb_miss_par_hops_per_kcycle_sm_lanes32 32 .0f} ({@})",
     "one SM keeps tens of misses in flight, the GPU at least as many as the most SMs measured ({x tlbmiss tlb_miss_par_hops_per_kcycle_sms 128}): "
     "{preset tlb.l1.mshrs}, {preset tlb.l2.mshrs}, {preset tlb.l3.mshrs}"),
    ("ops",
     "FFMA {mean ops fma_latency_cycles 0 .2f}, IMAD {mean ops imad_latency_cycles 0 .2f}, "
     "DFMA {mean ops dp_latency_cycles 0 .2f}, MUFU.EX2 {mean ops sfu_latency_cycles 0} cycles; "
     "{mean ops fma_ops_per_clk_sm 0} / {mean ops imad_ops_per_clk_sm 0} / {mean ops dp_ops_per_clk_sm 0} / "
     "{mean ops sfu_ops_per_clk_sm 0} per clock per SM",
     "the CUDA guide's rates hold; {preset core.sfu_latency_cycles}"),
    ("shared memory",
     "{mean smem smem_latency_cycles 0} cycles; a conflict of 2, 4, 8, 16, 32 ways adds "
     "+{mean mech smem_conflict_extra_cycles 2} ({@}-way), +{mean mech smem_conflict_extra_cycles 4} ({@}), "
     "+{mean mech smem_conflict_extra_cycles 8} ({@}), +{mean mech smem_conflict_extra_cycles 16} ({@}), "
     "+{mean mech smem_conflict_extra_cycles 32} ({@}) (`mech`, {runs mech smem_conflict_extra_cycles 2..32})",
     "two cycles a replayed wavefront: {preset smem.wavefront_cycles}, which no other preset sets "
     "(src/sm/sm.c's default is one)"),
    ("atomics",
     "`calib_atomic`'s chain on one word: {mean atomic atomic_latency_cycles 0 .0f} cycles (pipelined: its "
     "results only feed a sum); a dependent `atomicAdd(w, 0)` chase: {run4 mech atomic_chase_cycles 1} (`run4`) "
     "and {run13 mech atomic_chase_cycles 1} (`run13`) on {@} line (a `__ldcg` chase of it "
     "{run4 mech ldcg_chase_cycles 1}, `run4`), {mean mech atomic_chase_cycles 64} over {@} lines, "
     "{mean mech atomic_chase_cycles 4096} over {@}",
     "`atomic_latency_cycles` is the dependent one-line chase, their mean {mean mech atomic_chase_cycles 1}; "
     "{preset l2.atomic_latency_cycles} from `run4`'s "
     "{expr: [run4 mech atomic_chase_cycles 1] - [run4 mech ldcg_chase_cycles 1]}"),
    ("STREAM (2 CTAs per SM, 2^26 doubles)",
     "triad {mean stream stream_triad_gb_s 2048} GB/s at {@} threads per SM "
     "({expr: [mean stream stream_triad_gb_s 2048] / [pval dram.bandwidth_gb_s] ; .3f} of the datasheet's "
     "{pval dram.bandwidth_gb_s}, `dram.bandwidth_gb_s`), "
     "{mean stream stream_triad_gb_s 512 .0f} at {@}, {mean stream stream_triad_gb_s 128 .0f} at {@}; "
     "copy {mean stream stream_copy_gb_s 2048 .0f}; read {mean stream stream_read_gb_s 2048 .0f}; "
     "init {mean stream stream_init_gb_s 2048 .0f}",
     "validation rows of calibrate"),
    ("L2 reads",
     "every SM, 4-byte loads: {mean l2 l2_read_bytes_per_clk 0 .0f} B/clk; one 1024-thread CTA on each of {x l2 "
     "l2_read_gb_s_1cta_per_sm 132} SMs, 16-byte loads: {mean l2 l2_read_gb_s_1cta_per_sm 132 .0f} GB/s (boards "
     "{range l2 l2_read_gb_s_1cta_per_sm 132 .0f}); one CTA alone: {mean l2 l2_read_gb_s_1cta 1} GB/s; DRAM "
     "from one CTA per SM: {mean l2 dram_read_gb_s_1cta_per_sm 132 .0f} GB/s",
     "the L2 as {preset l2.slices} slices of {preset l2.slice_bytes_per_cycle} B/clk; one SM's read port is not "
     "the limit"),
    ("launches (events)",
     "200 back-to-back launches repeat every {range launch empty_kernel_back_to_back_us_block128 1 .2f} us "
     "with {@} CTA of 128 threads, every {range launch empty_kernel_back_to_back_us_block256 4096 .2f} us "
     "with {@} CTAs of 256",
     "launches overlap the previous kernel: they pipeline at the host's period, "
     "{preset gpu.kernel_launch_period_us} from the 1-CTA 128-thread rows (docs/launch.md, \"Back-to-back launches\")"),
    ("empty kernels (ncu, {runs ncu calib_empty 128x1}, every launch)",
     "{cta@}: {range ncu calib_empty 128x1 .0f} ns; medians: {cta@}: {median ncu calib_empty 128x1024 .0f}, "
     "{cta@}: {median ncu calib_empty 128x4096 .0f}, {cta@}: {median ncu calib_empty 128x65536 .0f}, "
     "{cta@}: {median ncu calib_empty 1024x4096 .0f}, {cta@}: {median ncu calib_empty 1024x16384 .0f}, "
     "{cta@}: {median ncu calib_empty 128x67584 .0f}, {cta@}: {median ncu calib_empty 1024x67584 .0f} ns",
     "{preset gpu.cta_dispatch_cycles}; only 1024-thread CTAs are slot-limited; {preset gpu.cta_launch_cycles}, "
     "{preset gpu.cta_release_cycles_per_warp} (h100-pcie keeps its nsys list's "
     "{pval h100-pcie:gpu.cta_launch_cycles} + {pval h100-pcie:gpu.cta_release_cycles_per_warp} a warp); "
     "{preset gpu.kernel_frontend_cycles}"),
    ("host link",
     "pinned H2D {mean link h2d_pinned_gb_s 268435456} GB/s at {@B} (PCIe 5.0 x16), pageable "
     "{xrange link h2d_pageable_gb_s 1048576..268435456 .0f} GB/s at {@B}; a {B@} pinned copy "
     "{range link h2d_copy_4k_us 4096} us; a dependent zero-copy read {range link zero_copy_read_ns 8388608 .0f} ns",
     "{preset pcie.copy_latency_us}; {preset pcie.latency_ns} (gpuvm's same chase is calibrate's "
     "`zero_copy_read_ns` row)"),
    ("far faults and migration",
     "first touch of a managed 2 MiB block {range fault far_fault_us 0} us (mean {mean fault far_fault_us 0}; "
     "`mech`'s {B@} stride {range mech far_fault_us_vs_stride 2097152}); `cudaMemPrefetchAsync` of a "
     "host-written {B@} block {range mech prefetch_2mib_us 2097152 .0f} us",
     "{preset uvm.migration_gb_s} (a per-block rate) and {preset uvm.fault_latency_us} (docs/uvm.md, "
     "\"Migration rate and fault latency on H100\")"),
    ("random sampling (Karnagel Fig. 1's operator)",
     "{mean sampling random_sampling_greads_s 33554432 .0f} Greads/s at {@B}, "
     "{xrange sampling random_sampling_greads_s 134217728..1073741824 .0f} at {@B}, "
     "{xrange sampling random_sampling_greads_s 34359738368..68719476736 .0f} at {@B}",
     "no TLB cliff inside the preset's reach ({pval tlb.l2.entries} x {pval tlb.l2.entry_size}) on this part "
     "(Karnagel's P100 has one past 2 GiB): validation of that reach"),
]


def board_table(root):
    """The block's text: the table and the note that states each aggregate."""
    if not os.path.isdir(os.path.join(root, BOARD_DIR)):
        raise BoardError(f"{BOARD_DIR} missing")
    series = _series(root)
    out = ["| what | measured | what it settles |", "|---|---|---|"]
    for what, measured, settles in ROWS:
        out.append(f"| {_fill(series, what, root)} | {_fill(series, measured, root)} | {_fill(series, settles, root)} |")
    note = _fill(series, (
        f"Written by scripts/hw_board_table.py from `{BOARD_DIR}/` (every run but `run6`, the check of "
        "a refactor of hwbench) and presets/h100.ini. A number alone is the **mean over the runs** that "
        "recorded it (one value a file); a-b is the minimum and maximum over those runs, or, for a curve over "
        "sizes, over the sizes of the per-size means; a run named beside a number is that run's value alone; "
        "the ncu durations are every launch of {runs ncu calib_empty 128x1}, by median or range as the cell "
        "says. The TLB chase's step is `run1`'s `tlb_chase.csv`: its latency at its most hops (the whole "
        "{run1 tlb_chase last_bytes 33554432 B} at a {@B} stride) minus its mean at " + _W + " hops. "
        "A size in parentheses or after *at* is the one the value beside it was measured at. The third "
        "column's values are the preset's (inputs), each after its key."), root)
    return "\n".join(out) + "\n\n" + note


# The page's sentence on the boards' spread, a block of its own below the list of runs
SPREAD = ("Board-to-board spread ((max - min) / mean over the runs that recorded a quantity, every run but "
          "`run6`): the L2 hit {range chase chase_l2_hit_cycles 486400} cycles ({spread chase chase_l2_hit_cycles 486400 .0f}), "
          "the DRAM chase {spread chase chase_dram_cycles 128026624 .0f}, FFMA {spread ops fma_latency_cycles 0 .1f}; "
          "STREAM triad {spread stream stream_triad_gb_s 2048 .1f} (at {@} threads per SM); one back-to-back launch "
          "{spread launch empty_kernel_back_to_back_us_block128 1 .0f}, a {B@} pinned copy "
          "{spread link h2d_copy_4k_us 4096 .0f}; random sampling {spread sampling random_sampling_greads_s 134217728 .0f} "
          "at {@B}, {spread sampling random_sampling_greads_s 68719476736 .0f} at {@B}.")


def board_spread(root):
    """The block `hw-board-spread`: how far the boards differ, per quantity."""
    if not os.path.isdir(os.path.join(root, BOARD_DIR)):
        raise BoardError(f"{BOARD_DIR} missing")
    return _fill(_series(root), SPREAD, root)
