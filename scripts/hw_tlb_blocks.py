"""The H100 boards' TLB numbers that docs/probe.md and docs/calibration.md quote.

scripts/docs-blocks.py calls these for two blocks, so that no number of them is
typed by hand (issue 80 item 4):

  probe-h100              docs/probe.md: what `gpuvm probe --target cuda` finds
                          in the H100 SXM5 recording, read from its committed
                          --json (PROBE_JSON; tests/cli/docs_blocks.sh checks it
                          is what the binary gives for that recording today),
                          with the recording's own points that the analysis's
                          rules turn on (from the CSV the JSON names)
  h100-tlb-miss-penalty   docs/calibration.md: the boards' files behind h100's
                          `tlb.l2.miss_penalty_cycles`, beside the preset's value

Values of the boards' files and of the preset come through
scripts/hw_board_table.py's fields ({AGG SECTION QUANTITY X [FORMAT]},
{preset KEY}), so both pages and docs/hardware.md's table state one number one
way.

Refreshing PROBE_JSON after a change to the probe's analysis (src/probe/):
  build/gpuvm probe --target cuda \\
      --input validation/hw/h100-sxm-2026-11-26/run1/tlb_chase.csv \\
      --json docs/data/probe/h100-tlb-chase.json
run from the repository root (the JSON's target names the input as given),
then scripts/docs-blocks.py.
"""
import csv
import glob
import io
import json
import os
import re
import statistics

import hw_board_table as hw

PROBE_JSON = "docs/data/probe/h100-tlb-chase.json"


def _probe(root):
    """(the probe's JSON, its one level, {stride: [(hops, cycles)]} of the recording)."""
    try:
        with open(os.path.join(root, PROBE_JSON), encoding="utf-8") as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        raise hw.BoardError(f"cannot read {PROBE_JSON}: {e}")
    target = r.get("target", "")
    if not target.startswith("cuda:") or len(r.get("levels", [])) != 1:
        raise hw.BoardError(f"{PROBE_JSON}: want a cuda target with one level (the H100 recording), "
                            f"have '{target}' with {len(r.get('levels', []))}")
    rec = target[len("cuda:"):]
    try:
        with open(os.path.join(root, rec), encoding="utf-8") as f:
            body = "\n".join(ln for ln in f.read().split("\n") if ln and not ln.startswith("#"))
    except OSError as e:
        raise hw.BoardError(f"{PROBE_JSON} names {rec}: {e.strerror}")
    curves = {}
    for row in csv.DictReader(io.StringIO(body)):
        if row.get("kind") == "chase":
            curves.setdefault(int(row["stride_bytes"]), []).append(
                (int(row["hops"]), float(row["latency_cycles"])))
    for pts in curves.values():
        pts.sort()
    return r, r["levels"][0], rec, curves


def probe_h100(root):
    """The block `probe-h100`: the level, the two rules it turns on, the baseline."""
    r, lv, rec, curves = _probe(root)
    x = int(lv["entry_bytes"])
    if x not in curves or 2 * x not in curves or x // 2 not in curves:
        raise hw.BoardError(f"{rec}: no curves at X/2, X and 2X of the level's {x}-byte entries")
    nxt = [h for h, _ in curves[x] if h > lv["entries"]]
    first = [pts[0][1] for pts in curves.values() if pts[0][0] == 2]
    top2 = curves[2 * x][-1][0]
    gib = 1 << 30
    series = hw._series(root)
    step = "{run1 tlb_chase step %d .0f}"
    lo, hi = hw.STEP_WINDOW_HOPS
    text = [
        f"`gpuvm probe --target cuda --input {rec}` (`{PROBE_JSON}` is its `--json`, which "
        "`tests/cli/docs_blocks.sh` checks against the binary and `tests/cli/probe.sh` against bands):",
        "",
        f"- one level of {lv['entries']} entries of {hw._fmt_x(str(x), 'B')} "
        f"({lv['reach_bytes'] / gib:.1f} GiB): {lv['entries']} hops is the last point of the "
        f"{hw._fmt_x(str(x), 'B')} curve's lower plateau"
        + (f", the next ({nxt[0]} hops) is on the rise" if nxt else "")
        + f"; miss cost {lv['miss_cost']:.1f} cycles over that plateau ({lv['below_latency']:.1f}); "
        f"X/2 step {'seen' if lv['half_step_seen'] else 'inferred'}, "
        f"2X step {'seen' if lv['double_step_seen'] else 'past end'}.",
        hw._fill(series, "- the rules for a level near the end of the memory: the {B@} curve ends at "
                 "{run1 tlb_chase last_hops %d .0f} hops ({run1 tlb_chase last_bytes %d B}), short of twice the "
                 "reach, so the X/2 half step decides alone; at their last points the {B@} curve steps "
                 % (2 * x, 2 * x) + "+" + step % (x // 2) + " cycles and the {B@} curve +" + step % x +
                 " (over each one's mean at %d-%d hops), so %s is half an entry, not a level."
                 % (lo, hi, hw._fmt_x(str(x // 2), "B")), root),
        f"- the baseline: {r['baseline_latency']:.1f} cycles, over the {len(curves)} strides; their "
        f"first points (2 hops) take {min(first):.0f}-{max(first):.0f} cycles, so each curve's lowest "
        "flat run stands in for its first point.",
    ]
    if top2 >= 2 * lv["entries"]:
        raise hw.BoardError(f"{rec}: the 2X curve reaches twice the level; the block's text no longer holds")
    return "\n".join(text)


def tlb_miss_penalty(root):
    """The block `h100-tlb-miss-penalty`: the preset's value beside the boards' two measurements."""
    r, lv, rec, curves = _probe(root)
    series = hw._series(root)
    x = int(lv["entry_bytes"])
    last_hops, last = curves[x][-1]
    # tlbmiss: one warp's lane 0 (K = 1) chases nodes an entry apart, every hop a
    # miss; its rate in hops per kcycle is 1000 / the cycles of a hop; each run's
    # is set against that run's own L2-hit chase (same board, same clock)
    per_run = {}
    for run, v in dict(hw.included(series[("tlbmiss", "tlb_miss_par_hops_per_kcycle_sm", "1")])).items():
        l2 = dict(hw.included(series.get(("chase", "chase_l2_hit_cycles", "486400"), []))).get(run)
        if l2 is not None:
            per_run[run] = (1000.0 / v, l2)
    if not per_run:
        raise hw.BoardError("no run records both tlbmiss (K = 1) and the L2-hit chase")
    hop = statistics.mean(a for a, _ in per_run.values())
    l2 = statistics.mean(b for _, b in per_run.values())
    diff = [a - b for a, b in per_run.values()]
    runs = sorted(per_run, key=lambda s: int(s[3:]))
    lo, hi = hw.STEP_WINDOW_HOPS
    text = hw._fill(series, (
        "The boards' files behind h100's {preset tlb.l2.miss_penalty_cycles} (presets/h100.ini gives its "
        f"derivation): `tlb_probe chase` (`run1`) at a {hw._fmt_x(str(x), 'B')} stride, its last point "
        f"({last_hops} hops, past the level): {last:.1f} cycles a hop, +{last - r['baseline_latency']:.1f} "
        f"over the probe's baseline (every level hitting, {r['baseline_latency']:.1f}) and "
        "+{run1 tlb_chase step %d .1f} over the curve's own mean at %d-%d hops, where the L1 TLB already "
        "misses (the probe's miss cost, %.1f, is the same step between its flat runs); `tlbmiss` (lane 0 of one warp, %s): "
        "%.1f cycles a hop (1000 / its hops per kcycle), +%.1f over each run's own L2-hit chase "
        "(mean %.1f; the runs' differences %.1f-%.1f).")
        % (x, lo, hi, lv["miss_cost"], ", ".join(f"`{s}`" for s in runs), hop, statistics.mean(diff), l2,
           min(diff), max(diff)), root)
    return text


def _nodes(root):
    """The node counts the boards' tlbmiss rows state in their method column ("over N nodes")."""
    out = set()
    for p in sorted(glob.glob(os.path.join(root, hw.BOARD_DIR, "run*", "hwbench.tsv"))):
        if os.path.basename(os.path.dirname(p)) in hw.EXCLUDE:
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            for ln in f:
                c = ln.rstrip("\n").split("\t")
                if len(c) >= 7 and c[0] == "row" and c[1] == "tlbmiss":
                    m = re.search(r"over (\d+) nodes", c[6])
                    if m:
                        out.add(int(m.group(1)))
    if not out:
        raise hw.BoardError(f"{hw.BOARD_DIR}: no tlbmiss row states its node count")
    return sorted(out)


def tlbmiss_curves(root):
    """The block `h100-tlbmiss-curves`: docs/calibration.md's account of the boards'
    tlbpar and tlbmiss sections, from which h100's tlb.*.mshrs are set."""
    r, lv, rec, curves = _probe(root)
    series = hw._series(root)
    # tlbpar: lane 0 of K warps over nodes inside the reach, every hop an L2 hit:
    # each warp's rate (hops per kcycle / K), over every run, K and footprint
    per_warp = [v / float(k) for (sec, qty, k), rv in series.items()
                if sec == "tlbpar" and "lanes32" not in qty for _, v in hw.included(rv)]
    if not per_warp:
        raise hw.BoardError(f"{hw.BOARD_DIR}: no tlbpar rows")
    nodes = _nodes(root)
    one = [1000.0 / v for _, v in hw.included(series[("tlbmiss", "tlb_miss_par_hops_per_kcycle_sm", "1")])]
    hop = statistics.mean(one)
    lanes = [(int(k), statistics.mean(v for _, v in hw.included(rv))) for (sec, qty, k), rv in series.items()
             if sec == "tlbmiss" and qty == "tlb_miss_par_hops_per_kcycle_sm_lanes32" and int(k) >= 4]
    lanes.sort()
    lo, hi = min(v for _, v in lanes), max(v for _, v in lanes)
    # Little's law: misses in flight = hops per cycle x cycles a miss
    text = hw._fill(series, (
        "**An H100 SXM5 has run it** (docs/hardware.md). Inside the reach the curves measure L2 hits, not "
        f"misses: on that part no TLB level steps before {lv['reach_bytes'] / (1 << 30):.1f} GiB "
        f"(`tlb_probe chase`, docs/probe.md), so the 256 MiB and 8 GiB curves are linear to 32 warps at one "
        f"L2 hit a hop ({min(per_warp):.1f}-{max(per_warp):.1f} hops per kcycle per warp over the runs). "
        "`hwbench`'s `tlbmiss` section therefore chases 32 MiB strides over 90 % of the free memory "
        f"({nodes[0] if len(nodes) == 1 else f'{nodes[0]}-{nodes[-1]}'} "
        f"regions, past the {lv['entries']} entries of 32 MiB the chase found): every hop a miss, "
        f"{hop:.0f} cycles (one warp, the runs' mean); "
        "lane 0 of K warps in one SM stays linear to K = {x tlbmiss tlb_miss_par_hops_per_kcycle_sm 32} "
        "({mean tlbmiss tlb_miss_par_hops_per_kcycle_sm 32} hops per kcycle), one warp on each of K SMs to "
        "K = {x tlbmiss tlb_miss_par_hops_per_kcycle_sms 128} ({mean tlbmiss tlb_miss_par_hops_per_kcycle_sms 128 .0f}), "
        f"and with every lane chasing one SM, far from linear, reaches {lo:.0f}-{hi:.0f} hops per "
        f"kcycle at K = {lanes[0][0]}-{lanes[-1][0]}, {lo * hop / 1000:.0f}-{hi * hop / 1000:.0f} misses in "
        "flight (Little's law at the one-warp miss time). h100's {preset tlb.l1.mshrs}, {preset tlb.l2.mshrs} "
        "and {preset tlb.l3.mshrs} are set from that (values of the runs: docs/hardware.md's table, means over "
        "{runs tlbmiss tlb_miss_par_hops_per_kcycle_sm 1}). It says nothing of Kepler or Pascal: "
        "`tlb.l1.mshrs` on k80 and p100 stay the fitted values named above until a board of those "
        "generations runs the same sections."), root)
    return text
