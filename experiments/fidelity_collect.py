#!/usr/bin/env python3
"""Collect the seeds' fidelity checks into one table (issue 33 item 4).

    fidelity_collect.py OUT_DIR [EXPERIMENT ...]
    fidelity_collect.py --append CHECKS_CSV EXPERIMENT EXPERIMENT_OUT_DIR

The second form is what each experiment script runs at its end when
CHECKS_CSV is set in the environment: it appends that experiment's rows
(same columns) to CHECKS_CSV, writing the header when the file is new.

Reads each experiment's own output under OUT_DIR/<experiment>/ (the CSVs
and logs that experiments/<experiment>.sh writes) and recomputes every
effect that the script checks or prints beside a paper value, with the
issue's tolerances: slowdown magnitudes +-35 %, speed-ups +-30 %, signs
and orderings exact. Where a script checks another band, the tolerance
column gives both ("table: ...; script: ...") and `pass` is the table's
band; `script_pass` keeps the script's own verdict (empty where the script
prints the value without a check).

Writes OUT_DIR/fidelity.csv and OUT_DIR/fidelity.md and prints the table.
An experiment that has no output yet gives one row "not run" (pass = n/a),
so a partial run still reports what finished.
"""
import csv, json, math, os, sys

append_to = render = None
if len(sys.argv) == 4 and sys.argv[1] == "--render":
    # fidelity.md from a committed fidelity.csv: the table's summary, its rows
    # and the known misses, with every number from the CSV (docs/fidelity/
    # fidelity.md is written so, and tests/cli/fidelity_table.sh checks it)
    render, render_md = sys.argv[2], sys.argv[3]
    out, names = None, []
elif len(sys.argv) == 5 and sys.argv[1] == "--append":
    append_to, name_one, dir_one = sys.argv[2], sys.argv[3], sys.argv[4]
    out, names = None, [name_one]
elif len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit("usage: fidelity_collect.py OUT_DIR [EXPERIMENT ...] | --append CHECKS_CSV EXPERIMENT DIR"
             " | --render FIDELITY_CSV FIDELITY_MD")
else:
    out = sys.argv[1]
names = names if append_to or render else sys.argv[2:] or ["karnagel_fig1", "karnagel_fig10_11", "e4_suite", "ganguly_fig4_8",
                         "sepo_ch6", "sl1_ch5", "bigkernel_ch4", "neidty_fig8_11", "gh200_memory",
                         "multi_gpu_scaling"]
rows = []


EFFECT_SHARE = 0.5  # an effect passes within +-50 % of the paper's effect (issue 76 item 2)
CHECK_BAND = 0.05   # a paper's "no effect" (~1.00x): within +-5 %


def row(seed, figure, quantity, paper, gpuvm, tol, ok, script_ok=None, unit="", effect_paper="", effect_gpuvm="",
        kind="sign"):
    rows.append(dict(seed=seed, figure=figure, quantity=quantity, paper=paper,
                     gpuvm=("%.4g%s" % (gpuvm, unit)) if isinstance(gpuvm, (int, float)) else str(gpuvm),
                     tolerance=tol, passed="pass" if ok else "FAIL",
                     script_pass="" if script_ok is None else ("pass" if script_ok else "FAIL"),
                     kind=kind, effect_paper=effect_paper, effect_gpuvm=effect_gpuvm))


def effect(seed, fig, q, paper_lo, x, paper_hi=None, paper_text=None, script=None, script_ok=None, lower_only=False):
    """A speed-up or slowdown scored on its effect, (ratio - 1): it passes
    when its sign is the paper's and the effect lies within +-50 % of the
    paper's effect (of the paper's range, when the paper gives one). A band
    on the ratio let any effect under ~30 % pass with no effect or the
    wrong sign (issue 76)."""
    paper_hi = paper_lo if paper_hi is None else paper_hi
    e_lo, e_hi, e = paper_lo - 1, paper_hi - 1, x - 1
    if (e_lo > 0) != (e_hi > 0) or e_lo == 0:
        raise ValueError("%s: an effect row needs a paper effect of one sign (got %g-%g)" % (q, paper_lo, paper_hi))
    lo, hi = sorted((e_lo - EFFECT_SHARE * abs(e_lo), e_hi + EFFECT_SHARE * abs(e_hi)))
    if lower_only:
        hi = float("inf")
    ok = (e > 0) == (e_lo > 0) and lo <= e <= hi
    band = "effect +-50 %% (%+.3g to %s)" % (lo, "" if lower_only else "%+.3g" % hi)
    if script:
        band = "table: %s; script: %s" % (band, script)
    ptext = paper_text or ("%gx" % paper_lo if paper_hi == paper_lo else "%g-%gx" % (paper_lo, paper_hi))
    row(seed, fig, q, ptext, x, band, ok, script_ok, "x",
        effect_paper=("%+.3g" % e_lo) if paper_hi == paper_lo else "%+.3g to %+.3g" % (e_lo, e_hi),
        effect_gpuvm="%+.3g" % e, kind="effect")


def slowdown(seed, fig, q, paper, x, script=None, script_ok=None, lower_only=False):
    effect(seed, fig, q, paper, x, script=script, script_ok=script_ok, lower_only=lower_only)


def speedup(seed, fig, q, paper, x, script=None, script_ok=None, paper_text=None):
    effect(seed, fig, q, paper, x, script=script, script_ok=script_ok, paper_text=paper_text)


def value(seed, fig, q, paper, x):
    """A magnitude that is not a ratio of two runs (a hit ratio): +-35 % of
    the paper's value."""
    lo, hi = paper * 0.65, paper * 1.35
    row(seed, fig, q, "%g" % paper, "%.3g" % x, "value +-35 %% (%.3g-%.3g)" % (lo, hi), lo <= x <= hi, kind="value")


def no_effect(seed, fig, q, x, paper_text="~1.00x"):
    """A paper's "no effect": the ratio within +-5 % of 1 (a check row)."""
    lo, hi = 1 - CHECK_BAND, 1 + CHECK_BAND
    row(seed, fig, q, paper_text, x, "no effect: +-5 %% (%.3g-%.3g)" % (lo, hi), lo <= x <= hi, None, "x",
        effect_paper="0", effect_gpuvm="%+.3g" % (x - 1), kind="no-effect")


def sign(seed, fig, q, paper, value_text, ok, script_ok=None):
    row(seed, fig, q, paper, value_text, "sign/ordering: exact", ok, script_ok)


partial_files = []


def read_csv(path):
    """A sweep still running (or stopped) has only PATH.partial, its finished
    points: use them, and say so in the rows (see `group`)."""
    if not os.path.exists(path) and os.path.exists(path + ".partial"):
        partial_files.append(os.path.basename(path))
        path += ".partial"
    with open(path) as f:
        return list(csv.DictReader(f))


def group(seed, figure, what, fn, *args, fresh=True):
    """One group of checks; when its data is missing (an unfinished run),
    one row says so instead of the group's rows. fresh: the group reads its
    own files (so only those can mark its rows as from unfinished sweeps)."""
    n0 = len(rows)
    if fresh:
        del partial_files[:]
    try:
        fn(*args)
    except (FileNotFoundError, KeyError, ValueError, ZeroDivisionError, IndexError) as e:
        del rows[n0:]
        rows.append(dict(seed=seed, figure=figure, quantity="%s: not run to the end (%s: %s)" % (what, type(e).__name__, e),
                         paper="", gpuvm="", tolerance="", passed="n/a", script_pass=""))
    tag_partial(n0)


def tag_partial(n0):
    """Rows computed while an unfinished sweep had been read say so."""
    if partial_files:
        for r in rows[n0:]:
            if "not run to the end" not in r["quantity"] and "[from the finished points" not in r["quantity"]:
                r["quantity"] += " [from the finished points of %s]" % ", ".join(sorted(set(partial_files)))


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


# ---- Karnagel et al., DaMoN'17 (seeds/000), Fig. 1 ----
def karnagel_fig1(d):
    for label, fn in (("sampling", "fig1a_sampling.csv"), ("group-by", "fig1b_groupby.csv")):
        for g in ("p100", "k80"):
            group("000", "Fig. 1", "%s %s (%s)" % (g, label, fn), karnagel_fig1_one, d, label, fn, g)


def karnagel_fig1_one(d, label, fn, g):
    G, M = 2 ** 30, 2 ** 20
    if True:
        val = {}
        for r in read_csv(os.path.join(d, fn)):
            val[r["gpu"], float(r["workload.region_bytes"])] = float(r["items_per_sim_second"])
        if True:
            top = 128 * M if g == "k80" else G
            plat = [y for (gg, b), y in val.items() if gg == g and 32 * M <= b <= top]
            past = [y for (gg, b), y in val.items() if gg == g and b > 2.5 * G]
            if not past or not plat:
                raise KeyError("no points %s 2.5 GiB yet" % ("past" if plat else "below"))
            p = sum(plat) / len(plat)
            s = p / (sum(past) / len(past)) if past else float("nan")
            if g == "p100" and label == "sampling":
                lo, hi = min(plat), max(plat)
                flat = hi / p - 1 <= 0.15 and 1 - lo / p <= 0.15
                sign("000", "Fig. 1a", "p100 sampling flat 32 MiB-1 GiB (spread)", "flat (+-15 %)",
                     "%.1f %%" % (100 * (hi / lo - 1)), flat, flat)
                r = val[g, G] / val[g, 4 * G]
                sign("000", "Fig. 1a", "p100 sampling drop 1 GiB -> 4 GiB", "> 2x", "%.2fx" % r, r > 2, r > 2)
                slowdown("000", "Fig. 1a", "p100 sampling mean slowdown past 2.5 GiB", 4.3, s,
                         "+-35 % (2.8-5.8)", 2.8 <= s <= 5.8)
            if g == "p100" and label == "group-by":
                slowdown("000", "Fig. 1b", "p100 group-by mean slowdown past 2.5 GiB", 3.3, s,
                         "+-35 % (2.15-4.45)", 2.15 <= s <= 4.45)
            if g == "k80" and label == "sampling":
                r1 = val[g, 64 * M] / val[g, 256 * M]
                r2 = val[g, 1536 * M] / val[g, 3 * G]
                sign("000", "Fig. 1a", "k80 sampling cliffs: drop 64->256 MiB and 1.5->3 GiB", "both > 1.5x",
                     "%.2fx, %.2fx" % (r1, r2), r1 > 1.5 and r2 > 1.5, r1 > 1.5 and r2 > 1.5)
                o = val[g, 1536 * M] / val[g, 8 * G]
                slowdown("000", "Fig. 1a", "k80 sampling slowdown 1.5 GiB -> 8 GiB",
                         10, o, "printed, not checked", None, lower_only=True)
                rows[-1]["paper"] = "order of magnitude (>= 10x)"


# ---- Karnagel et al. (seeds/000), Figs. 10-11 (E3) ----
def karnagel_fig10_11(d):
    import glob
    val, maxb = {}, {}
    for fn in sorted(glob.glob(os.path.join(d, "fig10*_sampling_*.csv")) + glob.glob(os.path.join(d, "fig11*_groupby_*.csv"))):
        v = "naive" if "naive" in fn else "copy"
        op = "s" if "sampling" in fn else "g"
        for r in read_csv(fn):
            g, b, s = r["gpu"], float(r["workload.region_bytes"]), r["workload.scope"]
            key = (op, g, "none" if s == "none" else v + "/" + s, b)
            val[key] = float(r["items_per_sim_second"])
            maxb[op, g] = max(maxb.get((op, g), 0), b)
    if not val:
        raise FileNotFoundError("no fig10/fig11 CSVs")
    M, G = 2 ** 20, 2 ** 30
    r = lambda op, g, var, b: val[op, g, var, b] / val[op, g, "none", b]
    def check_0():
        b = maxb["s", "k80"]; x = r("s", "k80", "copy/2GiB", b)
        speedup("000", "Fig. 10a", "k80 sampling, 2 GB scopes vs unscoped, largest region (%g GiB)" % (b / G), 13, x,
                ">= 8x", x >= 8)
    group("000", "Figs. 10-11", "Fig. 10a k80 sampling 2 GB scopes", check_0, fresh=False)
    def check_1():
        xs = [r("s", "k80", "copy/128MiB", bb) for bb in (256 * M, 512 * M, G)]
        sign("000", "Fig. 10a", "k80 sampling, 128 MB scopes help at 256 MB-1 GB", "minor speed-up (> 1)",
             "%.2fx-%.2fx" % (min(xs), max(xs)), min(xs) > 1, min(xs) > 1)
    group("000", "Figs. 10-11", "Fig. 10a k80 sampling 128 MB scopes 256 MB-1 GB", check_1, fresh=False)
    def check_2():
        x = r("s", "k80", "copy/128MiB", 2 * G)
        sign("000", "Fig. 10a", "k80 sampling, 128 MB scopes at 2 GB", "speed-up gone (< 1)", "%.2fx" % x, x < 1, x < 1)
    group("000", "Figs. 10-11", "Fig. 10a k80 sampling 128 MB scopes at 2 GB", check_2, fresh=False)
    def check_3():
        b = maxb["g", "k80"]; x = r("g", "k80", "copy/2GiB", b)
        speedup("000", "Fig. 11a", "k80 group-by copy, 2 GB scopes, largest table (%g GiB; paper 11.2 GB)" % (b / G), 12.5, x,
                ">= 8x", x >= 8)
    group("000", "Figs. 10-11", "Fig. 11a k80 group-by 2 GB scopes", check_3, fresh=False)
    def check_3b():
        # 6.1: "It is interesting that even this approach [naive, 128 MB
        # scopes at 11.2 GB: 89 passes, each reading the 6 GB input over
        # PCIe] shows a small speedup compared to one pass"
        b = maxb["g", "k80"]; x = r("g", "k80", "naive/128MiB", b)
        sign("000", "Fig. 11a", "k80 group-by naive, 128 MB scopes, largest table (%g GiB)" % (b / G),
             "small speed-up (> 1)", "%.2fx" % x, x > 1)
    group("000", "Figs. 10-11", "Fig. 11a k80 group-by naive 128 MB scopes", check_3b, fresh=False)
    def check_4():
        x = r("s", "p100", "copy/2GiB", 16 * G)
        speedup("000", "Fig. 10b", "p100 sampling, 2 GB scopes at 16 GB", 2, x, ">= 1.5x", x >= 1.5)
    group("000", "Figs. 10-11", "Fig. 10b p100 sampling 2 GB scopes at 16 GB", check_4, fresh=False)
    def check_5():
        hi = max(r("s", "p100", "copy/128MiB", k[3]) for k in val if k[:3] == ("s", "p100", "copy/128MiB") and k[3] > 128 * M)
        sign("000", "Fig. 10b", "p100 sampling, 128 MB scopes, every region > 128 MB", "slower than unscoped (< 1)",
             "max %.2fx" % hi, hi < 1, hi < 1)
    group("000", "Figs. 10-11", "Fig. 10b p100 sampling 128 MB scopes", check_5, fresh=False)
    def check_6():
        b = maxb["g", "p100"]; x = r("g", "p100", "copy/2GiB", b)
        speedup("000", "Fig. 11b", "p100 group-by copy, 2 GB scopes, largest table (%g GiB; paper 16 GB)" % (b / G), 2.5, x,
                ">= 1.8x", x >= 1.8)
    group("000", "Figs. 10-11", "Fig. 11b p100 group-by 2 GB scopes", check_6, fresh=False)
    def check_7():
        hi = max(r("g", "p100", "copy/128MiB", k[3]) for k in val if k[:3] == ("g", "p100", "copy/128MiB"))
        sign("000", "Fig. 11b", "p100 group-by copy, 128 MB scopes, every table", "slower than unscoped (< 1)",
             "max %.2fx" % hi, hi < 1, hi < 1)
    group("000", "Figs. 10-11", "Fig. 11b p100 group-by 128 MB scopes", check_7, fresh=False)
    def check_8():
        worst, n = 0, 0
        for k in val:
            if k[0] == "g" and k[1] == "p100" and k[2].startswith("naive"):
                s = k[2][6:]; sb = 2 * G if s == "2GiB" else 128 * M
                if k[3] / sb > 2:
                    n += 1; worst = max(worst, val[k] / val["g", "p100", "copy/" + s, k[3]])
        if n == 0:
            raise KeyError("no p100 naive group-by points at >= 3 passes yet")
        sign("000", "Fig. 11b", "p100 group-by naive vs copy at >= 3 passes (%d points)" % n, "naive loses (< 1)",
             "max %.2f" % worst, worst < 1, worst < 1)
    group("000", "Figs. 10-11", "Fig. 11b p100 group-by naive vs copy", check_8, fresh=False)


# ---- Zheng et al., HPCA'16 (seeds/003), E4 on suite kernels ----
def e4_suite(d):
    secs = lambda fn: [float(r["sim_seconds"]) for r in read_csv(os.path.join(d, fn))]
    lb, lr = [], []
    wls = [f[:-len("-mshrs.csv")] for f in sorted(os.listdir(d)) if f.endswith("-mshrs.csv")]
    if not wls:
        raise FileNotFoundError("no *-mshrs.csv")
    def sweep(w):
        m = secs(w + "-mshrs.csv")
        ok = all(m[i + 1] <= m[i] * 1.02 for i in range(5)) and m[5] < m[0]
        sign("003", "3.2 MSHR sweep", "%s: runtime falls far-fault MSHRs 1 -> 32" % w, "falls (<= +2 %/step)",
             " ".join("%.3g" % x for x in m), ok, ok)
        g = (m[4] - m[5]) / m[4]
        sign("003", "3.2 MSHR sweep", "%s: gain past 16 MSHRs" % w, "< 10 %", "%.1f %%" % (100 * g), g < 0.10, g < 0.10)

    def one(w):
        m = secs(w + "-mshrs.csv")
        c = secs(w + "-copy.csv")[0]
        b = secs(w + "-blocking.csv")[0]
        p = secs(w + "-prefetch.csv")
        sign("003", "2.1 vs 3.2", "%s: blocking slower than replayable, 4 MSHRs" % w, "blocking > 1.2x repl-4",
             "%.2fx" % (b / m[2]), b > 1.2 * m[2], b > 1.2 * m[2])
        sign("003", "2.1 vs 3.2", "%s: blocking slower than replayable, 1 MSHR (6x vs 3.6x)" % w, "blocking > repl-1",
             "%.2fx" % (b / m[0]), b > m[0], None)
        # per workload the paper gives a range, not a value: 2.1 "about 6x,
        # up to 15x"; 3.2 "about 2x ... 2-7x for half of the workloads"
        effect("003", "2.1", "%s: blocking / copy-then-execute" % w, 6, b / c, paper_hi=15,
               paper_text="~6x (up to 15x)", script="[1.5, 22.5]x", script_ok=1.5 <= b / c <= 22.5)
        effect("003", "3.2", "%s: replayable 4 MSHRs / copy-then-execute" % w, 2, m[2] / c, paper_hi=7,
               paper_text="~2x (2-7x for half)", script="[0.9, 6]x", script_ok=0.9 <= m[2] / c <= 6)
        for name, t in zip(("tree-driver", "tree-uvmsmart"), p):
            # 4: the tree prefetcher makes UVM about 12 % faster than
            # copy-then-execute
            effect("003", "4 (prefetch)", "%s: %s / copy-then-execute" % (w, name), 0.88, t / c,
                   paper_text="~0.88x (12 % faster)", script="[0.6, 1.25]x", script_ok=0.6 <= t / c <= 1.25)
        lb.append(b / c); lr.append(m[2] / c)
    for w in wls:
        group("003", "E4", w + " MSHR sweep", sweep, w)
        group("003", "E4", w + " fault models and prefetch", one, w)
    if len(lb) < len(wls):
        rows.append(dict(seed="003", figure="2.1/3.2", quantity="geometric means: not all workloads finished",
                         paper="", gpuvm="", tolerance="", passed="n/a", script_pass=""))
        return
    x = gm(lb)
    slowdown("003", "2.1", "blocking / copy-then-execute, geometric mean over workloads", 6, x, "[4, 9]x", 4 <= x <= 9)
    x = gm(lr)
    slowdown("003", "3.2", "replayable 4 MSHRs / copy-then-execute, geometric mean", 2, x, "[1.33, 3]x", 4 / 3 <= x <= 3)


# ---- Ganguly et al., IPDPS'20 (seeds/004), Figs. 4-8 ----
def ganguly_paper():
    """The paper's figure data: {(sheet, workload, scheme): value}, as its
    authors extracted it from their logs (UVMSmart's
    Page_Migration_Pinning/plots/ExtractedResultsNPlots.xlsx; one sheet a
    figure: TsSensitivity Fig. 4, NoOversub Fig. 5, Oversub Fig. 6,
    Oversub_thrashing Fig. 7, PSensitivity Fig. 8), by
    scripts/uvmsmart-figure-data.py into experiments/ganguly_figures.csv."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ganguly_figures.csv")) as f:
        return {(r["sheet"], r["workload"], r["scheme"]): float(r["value"]) for r in csv.DictReader(f)}


def ganguly_fig4_8(d):
    rs = read_csv(os.path.join(d, "ganguly.csv"))
    paper = ganguly_paper()
    # the paper's runtime (kernel + post-hoc fault time, the script's
    # runtime_seconds); an older run's CSV has only sim_seconds
    rt = "runtime_seconds" if rs and "runtime_seconds" in rs[0] else "sim_seconds"
    def get(fig, w, s, p=None, ts="8", key=rt):
        if fig == "fig8" and p == "8":
            fig = "fig6"
        if p is None:
            p = "8" if fig == "fig6" and s.startswith("adaptive") else "2"
        for r in rs:
            if r["figure"] == fig and r["workload"] == w and r["scheme"] == s and r["p"] == p and r["t_s"] == ts and r["seed"] == "1":
                return float(r[key])
        raise KeyError((fig, w, s, p, ts))
    def fig(sheet, w, num, den):
        return paper[(sheet, w, num)] / paper[(sheet, w, den)]
    ws = []
    for r in rs:
        if r["workload"] not in ws:
            ws.append(r["workload"])
    irr = [w for w in ws if any(r["workload"] == w and r["class"] == "irregular" for r in rs)]
    reg = [w for w in ws if w not in irr]
    # Fig. 6: the text's "improves the performance of irregular
    # applications by 22% to 78%" is the time saved, 1 - adaptive /
    # baseline: the figure data give bfs 0.782 and ra 0.218 (22 % and 78 %),
    # nw 0.672, sssp 0.402. Until 2026-11-30 the rows read it as a speed-up
    # of 1.22-1.78x; the targets are now each workload's own.
    for w in irr:
        x = get("fig6", w, "baseline") / get("fig6", w, "adaptive")
        pw = fig("Oversub", w, "Baseline (Disabled)", "Adaptive")
        sign("004", "Fig. 6", "%s (irregular): adaptive faster than baseline at 125 %%" % w,
             "faster (%.3gx; text: 22-78 %% less time)" % pw, "%.3fx" % x, x > 1)
        effect("004", "Fig. 6", "%s (irregular): speed-up adaptive over baseline" % w, pw, x,
               paper_text="%.3gx (figure data)" % pw)
    for w in reg:
        x = get("fig6", w, "baseline") / get("fig6", w, "adaptive")
        no_effect("004", "Fig. 6", "%s (regular): speed-up adaptive over baseline at 125 %%" % w, x)
    for w in ws:
        x = get("fig5", w, "baseline") / get("fig5", w, "adaptive")
        no_effect("004", "Fig. 5", "%s: speed-up adaptive over baseline, no oversubscription" % w, x)
    # Figs. 4, 5, 7 and 8: scored on the effect against the figure data
    # (until 2026-11-30 on the sign the text gives, the data not found)
    for w in ("nw", "sssp", "bfs", "ra"):
        if w in ws:
            x = get("fig5", w, "always") / get("fig5", w, "baseline")
            pw = fig("NoOversub", w, "Always", "Baseline (Disabled)")
            effect("004", "Fig. 5", "%s: always-migrate vs baseline (runtime ratio)" % w, pw, x,
                   paper_text="%.3g (%s; figure data)" % (pw, "hurts" if pw > 1 else "helps"))
    for w, ts in (("nw", "32"), ("sssp", "32"), ("bfs", "16"), ("ra", "16")):
        if w in ws:
            x = get("fig4", w, "always", ts=ts) / get("fig4", w, "always", ts="8")
            pw = fig("TsSensitivity", w, "ts=%s (Always)" % ts, "ts=8 (Always)")
            effect("004", "Fig. 4", "%s: always-migrate runtime at t_s = %s over t_s = 8" % (w, ts), pw, x,
                   paper_text="%.3g (%s; figure data)" % (pw, "worse" if pw > 1 else "better"))
    for w in irr:
        a = get("fig6", w, "adaptive", key="thrashed_pages")
        b = get("fig6", w, "baseline", key="thrashed_pages")
        pw = fig("Oversub_thrashing", w, "Adaptive", "Baseline (Disabled)")
        effect("004", "Fig. 7", "%s (irregular): thrashed pages adaptive < baseline at 125 %%" % w, pw, a / b,
               paper_text="%.3g (%.0f vs %.0f; figure data)" % (
                   pw, paper[("Oversub_thrashing", w, "Adaptive")], paper[("Oversub_thrashing", w, "Baseline (Disabled)")]))
        rows[-1]["gpuvm"] = "%.3g (%.0f vs %.0f)" % (a / b, a, b)
    for w in irr:
        x = get("fig8", w, "adaptive", p="8") / get("fig8", w, "adaptive", p="2")
        pw = fig("PSensitivity", w, "k=8 (Adaptive)", "k=2 (Adaptive)")
        effect("004", "Fig. 8", "%s (irregular): runtime at p = 8 over p = 2" % w, pw, x,
               paper_text="%.3g (falls; figure data)" % pw)


# ---- Mokhtari's thesis (seeds/001) ch. 6: SePo ----
def sepo_ch6(d):
    group("001", "Fig. 6.8", "Fig. 6.8 runs", sepo_fig6_8, d)
    group("001", "ch. 6", "Table 6.3, Figs. 6.10-6.11 (sepo.csv)", sepo_tables, d)


def sepo_tables(d):
    rs = read_csv(os.path.join(d, "sepo.csv"))
    def find(exp, app, placement, org, dm=None, tb=None):
        for r in rs:
            if r["experiment"] == exp and r["app"] == app and r["placement"] == placement and r["organisation"] == org:
                yield r
    # (a) sepo total 100 % -> 33 %: thesis 1.22 s -> 2.02 s (x1.66)
    a = sorted(((float(r["device_memory_bytes"]), float(r["sim_seconds"])) for r in find("a", "pvc", "sepo", "combining")))
    if a:
        x = a[0][1] / a[-1][1]
        slowdown("001", "Table 6.3", "SePo PVC total time, 33 % vs 100 % device memory", 1.66, x)
    # (c) Fig. 6.11: sepo beats pinned on every application
    worse = []
    n = 0
    for app in sorted({r["app"] for r in rs if r["experiment"] == "c"}):
        s = [float(r["sim_seconds"]) for r in rs if r["experiment"] == "c" and r["app"] == app and r["placement"] == "sepo"]
        p = [float(r["sim_seconds"]) for r in rs if r["experiment"] == "c" and r["app"] == app and r["placement"] == "pinned"]
        if s and p:
            n += 1
            if not p[0] > s[0]:
                worse.append("%s %.2fx" % (app, p[0] / s[0]))
    sign("001", "Fig. 6.11", "SePo faster than pinned (zero-copy) on every application (%d)" % n, "all",
         "all" if not worse else "not on " + ", ".join(worse), not worse)
    # (d) Fig. 6.10: later iterations 1.94x, 3.84x, 5.4x faster than the
    # first, "on average" over the applications run "with our largest
    # available dataset -- input dataset #4" (6.6.2): the c runs (heap =
    # table / 3) of the seven thesis applications, one series each. Not
    # Table 6.3's PVC sweep (the a runs: one application at eight heaps)
    # nor the Fig. 6.8 benchmark's c runs (kvbasic, kvmulti: no thesis
    # application); until issue 33's fifth round those were averaged in.
    it = read_csv(os.path.join(d, "sepo_iterations.csv"))
    apps7 = ("pvc", "wc", "ii", "netflix", "dna", "patent", "geo")
    series = {}
    for r in it:
        if r["experiment"] == "c" and r["app"] in apps7:
            key = (r["experiment"], r["app"], r["organisation"], r["device_memory_bytes"])
            series.setdefault(key, []).append(float(r["sim_seconds"]))
    for i, paper in ((1, 1.94), (2, 3.84), (3, 5.4)):
        xs = [s[0] / s[i] for s in series.values() if len(s) > i and s[i] > 0]
        if xs:
            speedup("001", "Fig. 6.10", "iteration %d over the first, mean of %d applications" % (i + 1, len(xs)),
                    paper, sum(xs) / len(xs))




def sepo_fig6_8(d):
    # (b) Fig. 6.8: basic > combining > multi at every key size and table
    # size (the runs' JSON: sepo.csv has no key-size column). The rate is
    # pairs over the insert kernels' time: the thesis's benchmark
    # (rezafmk/BRB_HashTable performanceTest/main.cu, commits d47a8cf
    # "Multi-value gave me its raw perf results" and 1702e29) copies the
    # input before its timer and sums only each pass's insert kernel, the
    # copy-outs (checkAndResetPass, the final heap copy) outside it. The
    # rate over the whole simulated time (6.6.2's convention for the
    # application times) stays in the measured column; until issue 33's
    # fifth round the row compared that one.
    rate, kern = {}, {}
    for org in ("basic", "combining", "multi"):
        for k in (8, 64):
            for x in (1, 2, 3):
                f = os.path.join(d, "runs", "b-%s-%d-%d.json" % (org, k, x))
                if os.path.exists(f):
                    j = json.load(open(f))
                    rate[org, k, x] = j["items_per_sim_second"]
                    kern[org, k, x] = j["work_items"] / j["kernel_seconds"]
    for k in (8, 64):
        for x in (1, 2, 3):
            if all((o, k, x) in rate for o in ("basic", "combining", "multi")):
                b, c, m = (rate[o, k, x] / 1e6 for o in ("basic", "combining", "multi"))
                kb, kc, km = (kern[o, k, x] / 1e6 for o in ("basic", "combining", "multi"))
                sign("001", "Fig. 6.8", "insert rate (insert kernels), key %d B, table %dx the heap" % (k, x),
                     "basic > combining > multi",
                     "%.3g / %.3g / %.3g M/s (with copies %.3g / %.3g / %.3g)" % (kb, kc, km, b, c, m),
                     kb > kc > km)
    if not rate:
        raise FileNotFoundError("no Fig. 6.8 run (runs/b-*.json) yet")


# ---- Mokhtari's thesis (seeds/001) ch. 5: S-L1 ----
def sl1_ch5(d):
    rs = read_csv(os.path.join(d, "sl1_ch5.csv"))
    f510 = [r for r in rs if r["experiment"] == "fig5_10" and r["best"] == "1"]
    for gpu in sorted({r["gpu"] for r in f510}):
        best = {(r["app"], r["variant"]): float(r["sim_seconds"]) for r in f510 if r["gpu"] == gpu}
        apps = sorted({a for a, _ in best})
        sp = lambda a, v: best[a, "nol1"] / best[a, v]
        mean = lambda xs: sum(xs) / len(xs)
        tag = "" if gpu == "gtx-titan-black" else " (%s)" % gpu
        speedup("001", "Fig. 5.10", "S-L1 over no L1, mean" + tag, 2.10, mean([sp(a, "sl1") for a in apps]))
        # two-sided (issue 33): the thesis gives the means over no L1 (2.10)
        # and over the hardware L1 (1.90), so the hardware L1's own mean is
        # about 2.10 / 1.90 = 1.11 ("gains limited to under 35 %", 5.3.2)
        x = mean([sp(a, "hwl1") for a in apps])
        speedup("001", "Fig. 5.10", "hardware L1 over no L1, mean" + tag, 2.10 / 1.90, x,
                paper_text="1.11x (2.10 / 1.90)")
        speedup("001", "Fig. 5.10", "S-L1 over hardware L1, mean" + tag, 1.90, mean([sp(a, "sl1") / sp(a, "hwl1") for a in apps]))
        top = sorted(apps, key=lambda a: -sp(a, "sl1"))[:2]
        sign("001", "Fig. 5.10", "upper and wc gain most from S-L1" + tag, "upper, wc",
             ", ".join(top), set(top) == {"upper", "wc"})
        for a in ("grep", "kmeans"):
            if a in apps:
                # "slightly": S-L1 over no L1 is never below 0.95 (chapter 7)
                x = sp(a, "sl1")
                sign("001", "Fig. 5.10", "%s slightly slower with S-L1%s" % (a, tag),
                     "0.95-1 (slightly slower)", "%.4gx" % x, 0.95 <= x < 1)
        for a in ("wc", "pvc", "mm"):
            if a in apps:
                x = sp(a, "hwl1")
                sign("001", "Fig. 5.10", "hardware L1 slows %s%s" % (a, tag), "< 1", "%.3gx" % x, x < 1)
    f514 = [r for r in rs if r["experiment"] == "fig5_14"]
    for gpu in sorted({r["gpu"] for r in f514} - {"host"}):
        t = {(r["app"], r["variant"]): float(r["sim_seconds"]) for r in f514 if r["gpu"] == gpu}
        four = [a for a in ("wc", "of", "dna", "mca") if (a, "bigkernel") in t]
        ratios = [t[a, "bigkernel"] / t[a, "bigkernel+sl1"] for a in four]
        if ratios:
            tag = "" if gpu == "gtx-titan-black" else " (%s)" % gpu
            speedup("001", "Fig. 5.14", "BigKernel + S-L1 over BigKernel, mean of %s%s" % ("/".join(four), tag), 1.19,
                    sum(ratios) / len(ratios), paper_text="1.19x (1.04-1.45x)")
            fastest = [a for a in four if t[a, "bigkernel+sl1"] <= min(t[a, v] for v in ("single", "double", "bigkernel"))]
            sign("001", "Fig. 5.14", "BigKernel + S-L1 the fastest GPU scenario%s" % tag, "all four",
                 "%d of %d" % (len(fastest), len(four)), len(fastest) == len(four))


# ---- Mokhtari's thesis (seeds/001) ch. 4: BigKernel ----
def bigkernel_ch4(d):
    # each variant at its best (fig4_10), not the sweep it was chosen from
    rs = [r for r in read_csv(os.path.join(d, "bigkernel_ch4.csv")) if r["experiment"] == "fig4_10"]
    t42 = {"kmeans": 31, "wc": 66, "netflix": 3, "of": 6, "dna": 7, "mca": 57}
    for gpu in sorted({r["gpu"] for r in rs} - {"host"}):
        t = {(r["app"], r["variant"]): float(r["sim_seconds"]) for r in rs if r["gpu"] == gpu}
        apps = sorted({a for a, _ in t})
        tag = "" if gpu == "gtx680" else " (%s)" % gpu
        mean = lambda xs: sum(xs) / len(xs)
        speedup("001", "Fig. 4.10", "BigKernel over single buffering, mean" + tag, 2.6,
                mean([t[a, "single"] / t[a, "bigkernel"] for a in apps]))
        speedup("001", "Fig. 4.10", "BigKernel over double buffering, mean" + tag, 1.7,
                mean([t[a, "double"] / t[a, "bigkernel"] for a in apps]))
        d_over = sorted((t[a, "double"] / t[a, "bigkernel"], a) for a in apps)
        least = {a for _, a in d_over[:2]}
        sign("001", "Fig. 4.10", "least gain over double buffering" + tag, "wc, of",
             ", ".join(a for _, a in d_over[:2]), least == {"wc", "of"})
        for a, g in t42.items():
            if (a, "bigkernel-nopattern") in t:
                x = t[a, "bigkernel-nopattern"] / t[a, "bigkernel"]
                speedup("001", "Table 4.2", "%s: BigKernel with patterns over addresses%s" % (a, tag), 1 + g / 100, x,
                        paper_text="+%d %%" % g)


# ---- Du et al., NeiDty (seeds/002), Figs. 3, 8-11, Tables I-II ----
def neidty_fig8_11(d):
    n0 = len(rows)
    neidty_rows(d)
    ws = []
    for r in read_csv(os.path.join(d, "neidty.csv")):
        if r["workload"] not in ws:
            ws.append(r["workload"])
    full = "lud srad bc color mis pagerank atax adi".split()
    if set(ws) != set(full) and set(ws) != set(full) - {"atax"}:
        for r in rows[n0:]:
            r["quantity"] += " [only %s ran]" % "/".join(w.upper() for w in ws)


def neidty_rows(d):
    rs = read_csv(os.path.join(d, "neidty.csv"))
    get = {(r["workload"], r["scheme"]): r for r in rs}
    ws = []
    for r in rs:
        if r["workload"] not in ws:
            ws.append(r["workload"])
    mean = lambda xs: sum(xs) / len(xs)
    f = lambda w, s, k: float(get[w, s][k])
    x = mean([f(w, "neidty-default", "r_remote") for w in ws])
    value("002", "Fig. 8", "neidty-default remote-hit ratio r_remote, mean", 0.10, x)
    if "lud" in ws:
        x = f("lud", "neidty-default", "r_remote")
        value("002", "Fig. 8", "LUD neidty-default r_remote", 0.29, x)
    g = mean([f(w, "neidty-default", "r_l1") - f(w, "baseline", "r_l1") for w in ws])
    sign("002", "Fig. 9", "neidty-default raises r_L1 on average", "> 0", "%+.3f" % g, g > 0, g > 0)
    x = mean([f(w, "neidty-default", "speedup_vs_baseline") for w in ws])
    sign("002", "Fig. 11", "neidty-default cuts translation delay on average", "> 1", "%.3fx" % x, x > 1, x > 1)
    speedup("002", "Fig. 11", "neidty-default speed-up, mean", 1.05, x)
    t = mean([f(w, "neidty-twice", "speedup_vs_baseline") for w in ws])
    speedup("002", "Fig. 11", "neidty-twice speed-up, mean", 1.10, t, ">= 1.08x", t >= 1.08)
    for w, s, p in (("lud", "neidty-default", 1.21), ("lud", "neidty-twice", 1.20), ("srad", "neidty-twice", 1.20)):
        if w in ws:
            speedup("002", "Fig. 11", "%s %s speed-up" % (w.upper(), s), p, f(w, s, "speedup_vs_baseline"))
    for w in ws:
        tw, de = f(w, "neidty-twice", "speedup_vs_baseline"), f(w, "neidty-default", "speedup_vs_baseline")
        if w == "lud":
            # the paper's own numbers for LUD (Fig. 11) are twice 20 %,
            # default 21 %: its general "twice >= default" does not hold
            # there, so the target is the numbers' ordering
            ok = tw <= de * (1 + 1e-3)
            sign("002", "Fig. 11", "LUD: neidty-twice <= neidty-default (the paper's 1.20x vs 1.21x)",
                 "<= (within 0.1 %)", "%.3fx vs %.3fx" % (tw, de), ok)
            continue
        ok = tw >= de * (1 - 1e-3)
        sign("002", "Fig. 11", "%s: neidty-twice >= neidty-default" % w.upper(), ">= (within 0.1 %)",
             "%.3fx vs %.3fx" % (tw, de), ok, ok)
    if "adi" in ws:
        a, v = f("adi", "neidty-default", "speedup_vs_baseline"), f("adi", "valkyrie", "speedup_vs_baseline")
        sign("002", "Fig. 11", "ADI: neidty-default beats valkyrie", ">", "%.3fx vs %.3fx" % (a, v), a > v, a > v)
    try:
        f3 = {r["workload"]: r["largest"] for r in read_csv(os.path.join(d, "fig3.csv"))}
        for w in ("lud", "srad", "atax", "color"):
            if w in f3:
                sign("002", "Fig. 3", "%s: largest sharing bucket" % w.upper(), "13-16 L1 TLBs", f3[w] + " L1 TLBs",
                     f3[w] == "13-16")
    except FileNotFoundError:
        pass


# ---- Issue 78: Grace Hopper memory (gh200_memory.sh) ----
C2C_BAND = 0.15  # issue 78 item 5: the published Grace Hopper bandwidths within +-15 %


def gh200_memory(d):
    group("078", "GH200 C2C", "copy rates", gh200_link, d)
    group("078", "GH200 orderings", "orderings", gh200_orderings, d)


def gh200_link(d):
    # [SCH] Schieffer et al., ICPP'24: measured NVLink-C2C rates (validation:
    # the model's copy rates come from NVIDIA/nvbandwidth issue 23)
    for r in read_csv(os.path.join(d, "gh200_link.csv")):
        paper, x = float(r["paper_gb_s"]), float(r["gb_s"])
        lo, hi = paper * (1 - C2C_BAND), paper * (1 + C2C_BAND)
        row("078", "GH200 C2C", "copy rate %s (%s, --system gh200)" % (r["direction"], r["workload"]),
            "%g GB/s" % paper, "%.4g GB/s" % x, "value +-15 %% (%.3g-%.3g)" % (lo, hi), lo <= x <= hi,
            kind="value")


def gh200_orderings(d):
    t = {(r["kernel"], r["mode"]): float(r["sim_seconds"]) for r in read_csv(os.path.join(d, "gh200_memory.csv"))}
    kernels = list(dict.fromkeys(k for k, _ in t))
    checks = (
        ("GH200 orderings", "64 KiB system pages faster than 4 KiB, GPU first touch", "system-gpu-64k", "system-gpu-4k"),
        ("GH200 orderings", "64 KiB system pages faster than 4 KiB, CPU first touch", "system-cpu-64k", "system-cpu-4k"),
        ("GH200 orderings", "GPU first touch faster than CPU first touch (data reused)", "system-gpu-64k",
         "system-cpu-64k"),
        ("GH200 sanity", "device memory faster than CPU-resident system memory", "device", "system-cpu-64k"),
    )
    for fig, q, fast, slow in checks:
        for k in kernels:
            a, b = t[(k, fast)], t[(k, slow)]
            sign("078", fig, "%s: %s" % (k, q), "faster (< 1x)", "%.4gx" % (a / b), a < b)


# ---- Issue 78: multi-GPU scaling on DGX H100 (multi_gpu_scaling.sh) ----
def multi_gpu_scaling(d):
    rs = read_csv(os.path.join(d, "scaling.csv"))
    by = {}
    for r in rs:
        by.setdefault(r["case"], []).append((int(r["gpus"]), float(r["phase_seconds"])))
    # one host thread makes every launch call, at h100's launch period
    # (gpu.kernel_launch_period_us, 3.51 us): GPUs speed a kernel up only
    # while it outlasts the calls (docs/systems.md "Limits that shape those
    # results"), so the checks are two GPUs against one and, for the triad,
    # the host's calls bounding eight
    for case in ("triad", "jacobi-nvlink", "pagerank-uniform"):
        pts = dict(by[case])
        sign("078", "DGX H100 scaling", "%s: 2 GPUs faster than 1" % case, "faster (< 1x)",
             "%.3gx" % (pts[2] / pts[1]), pts[2] < pts[1])
    launches = int(next(r for r in rs if r["case"] == "triad")["workload"].split("launches=")[1].split(",")[0])
    pts = dict(by["triad"])
    bound = launches * 8 * 3.51e-6
    sign("078", "DGX H100 scaling", "triad on 8 GPUs: bound by the host's %d launch calls (within +-5 %%)" % (launches * 8),
         "%.4g s" % bound, "%.4g s" % pts[8], abs(pts[8] / bound - 1) <= 0.05)
    nv, host = dict(by["jacobi-nvlink"]), dict(by["jacobi-host"])
    for g in sorted(nv):
        if g > 1 and g in host:
            sign("078", "DGX H100 scaling", "jacobi-mgpu on %d GPUs: halos over NVLink faster than through the host" % g,
                 "faster (< 1x)", "%.3gx" % (nv[g] / host[g]), nv[g] < host[g])


collectors = dict(karnagel_fig1=karnagel_fig1, karnagel_fig10_11=karnagel_fig10_11, e4_suite=e4_suite,
                  ganguly_fig4_8=ganguly_fig4_8, sepo_ch6=sepo_ch6, sl1_ch5=sl1_ch5,
                  bigkernel_ch4=bigkernel_ch4, neidty_fig8_11=neidty_fig8_11, gh200_memory=gh200_memory,
                  multi_gpu_scaling=multi_gpu_scaling)
seed_of = dict(karnagel_fig1="000", karnagel_fig10_11="000", e4_suite="003", ganguly_fig4_8="004",
               sepo_ch6="001", sl1_ch5="001", bigkernel_ch4="001", neidty_fig8_11="002", gh200_memory="078",
               multi_gpu_scaling="078")
for name in names:
    n0 = len(rows)
    if name not in collectors:
        sys.exit("fidelity_collect.py: unknown experiment '%s' (known: %s)" % (name, " ".join(collectors)))
    try:
        collectors[name](dir_one if append_to else os.path.join(out, name))
    except (FileNotFoundError, KeyError, ValueError, ZeroDivisionError, IndexError) as e:
        del rows[n0:]
        rows.append(dict(seed=seed_of[name], figure=name, quantity="experiment did not finish (%s: %s)" % (type(e).__name__, e),
                         paper="", gpuvm="", tolerance="", passed="n/a", script_pass=""))
    del partial_files[:]
    for r in rows[n0:]:
        r["experiment"] = name

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_NAME = {"000": "Karnagel et al., DaMoN'17", "001": "Mokhtari's thesis (BigKernel, S-L1, SePo)",
             "002": "Du et al., NeiDty", "003": "Zheng et al., HPCA'16", "004": "Ganguly et al., IPDPS'20",
             "078": "Grace Hopper and DGX H100 systems (Schieffer et al., ICPP'24; NVIDIA; the model's own checks)"}


def read_rules(path, what):
    """A TSV of rules (comment lines start with #): each a seed, figure and
    quantity pattern and its fields; the first rule that matches a row wins."""
    import re
    rules = []
    with open(path) as fh:
        lines = [ln for ln in fh if ln.strip() and not ln.startswith("#")]
    for n, r in enumerate(csv.DictReader(lines, delimiter="\t"), 2):
        try:
            pats = [re.compile(r[k]) for k in ("seed", "figure", "quantity")]
        except (re.error, TypeError, KeyError) as e:
            sys.exit("%s: rule %d: %s" % (path, n - 1, e))
        rules.append((pats, r))
    return rules


def match(rules, r):
    for pats, rule in rules:
        if all(p.search(r[k]) for p, k in zip(pats, ("seed", "figure", "quantity"))):
            return rule
    return None


for r in rows:  # a "not run" row has only the first columns
    for k in ("kind", "effect_paper", "effect_gpuvm"):
        r.setdefault(k, "")
ROLES = read_rules(os.path.join(HERE, "fidelity_roles.tsv"), "roles")
MISSES = read_rules(os.path.join(HERE, "fidelity_misses.tsv"), "misses")
if render:
    with open(render, newline="") as fh:
        rows = list(csv.DictReader(fh))
for r in rows:
    rule = match(ROLES, r)
    role = rule["role"] if rule else "validation"
    if role not in ("calibration", "validation", "check"):
        sys.exit("fidelity_roles.tsv: role '%s' is none of calibration, validation, check" % role)
    if render and r.get("role") != role:
        sys.exit("%s: %s / %s / %s has role '%s', experiments/fidelity_roles.tsv says '%s': collect the "
                 "table again" % (render, r["seed"], r["figure"], r["quantity"], r.get("role"), role))
    r["role"] = role
    r["depends_on"] = rule["depends_on"] if rule else ""

cols = ["seed", "figure", "quantity", "role", "kind", "paper", "gpuvm", "effect_paper", "effect_gpuvm", "tolerance",
        "passed", "script_pass", "depends_on", "experiment"]
if append_to:
    new = not os.path.exists(append_to) or os.path.getsize(append_to) == 0
    with open(append_to, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        if new:
            w.writeheader()
        for r in rows:
            w.writerow(r)
    sys.exit(0)
if not render:
    with open(os.path.join(out, "fidelity.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def tally(rs):
    checked = [r for r in rs if r["passed"] in ("pass", "FAIL")]
    return sum(r["passed"] == "pass" for r in checked), len(checked)


def pct(p, n):
    return "%d of %d (%.0f %%)" % (p, n, 100.0 * p / n) if n else "none"


nrun = sum(r["passed"] == "n/a" for r in rows)
by_role = {role: tally([r for r in rows if r["role"] == role]) for role in ("validation", "calibration", "check")}
summary = "validation rows passing: %s; calibration rows (not evidence): %s; check rows: %s" % (
    pct(*by_role["validation"]), pct(*by_role["calibration"]), pct(*by_role["check"]))
if nrun:
    summary += "; %d row(s) n/a: groups of checks whose runs did not finish" % nrun
misses = [r for r in rows if r["passed"] == "FAIL" and r["role"] == "validation"]
with open(render_md if render else os.path.join(out, "fidelity.md"), "w") as fh:
    fh.write("<!-- written by experiments/fidelity_collect.py --render fidelity.csv fidelity.md: do not edit -->\n")
    fh.write("# Fidelity table\n\n%s.\n\n" % summary)
    fh.write("Speed-ups and slowdowns pass when their sign is the paper's and their effect (ratio - 1) "
             "is within +-50 % of the paper's; signs and orderings are exact; a paper's \"no effect\" is a "
             "check row within +-5 %. Roles are declared in experiments/fidelity_roles.tsv; calibration rows "
             "depend on a constant fitted to a paper figure and are not evidence.\n\n")
    fh.write("| paper | validation | calibration | check |\n|---|---|---|---|\n")
    for seed in sorted({r["seed"] for r in rows}):
        rs = [r for r in rows if r["seed"] == seed]
        fh.write("| %s | %s |\n" % (SEED_NAME.get(seed, seed), " | ".join(
            pct(*tally([r for r in rs if r["role"] == role])) for role in ("validation", "calibration", "check"))))
    fh.write("\n## Rows\n\n| seed | figure | quantity | role | paper | gpuvm | effect (paper / gpuvm) | tolerance | pass |\n"
             "|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        eff = "%s / %s" % (r["effect_paper"], r["effect_gpuvm"]) if r["effect_paper"] != "" else ""
        fh.write("| %s |\n" % " | ".join(str(v).replace("|", "/") for v in (
            r["seed"], r["figure"], r["quantity"], r["role"], r["paper"], r["gpuvm"], eff, r["tolerance"], r["passed"])))
    fh.write("\n## Known misses (validation rows that fail)\n\n")
    fh.write("Each entry quotes its rows from this table; their cause and the command that shows it come from "
             "experiments/fidelity_misses.tsv. Rows that one line of that file explains are listed together "
             "under its cause, in the table's order of the first.\n\n")
    # one entry per cause: the misses that one rule of fidelity_misses.tsv
    # matches share it (a row no rule matches is an entry of its own)
    entries = []
    for r in misses:
        m = match(MISSES, r)
        for e in entries:
            if m is not None and e[0] is m:
                e[1].append(r)
                break
        else:
            entries.append((m, [r]))
    for m, rs in entries:
        quoted = ["**%s %s, %s**: paper %s, gpuvm %s%s" % (
            SEED_NAME.get(r["seed"], r["seed"]), r["figure"], r["quantity"], r["paper"], r["gpuvm"],
            " (effect %s against %s)" % (r["effect_gpuvm"], r["effect_paper"]) if r["effect_paper"] != "" else "")
            for r in rs]
        if len(quoted) == 1:
            fh.write("- %s.\n" % quoted[0])
        else:
            fh.write("- %d rows:\n%s\n" % (len(quoted), "".join("  - %s.\n" % q for q in quoted)))
        fh.write("  %s\n" % (("Cause: %s Shown by: `%s`" % (m["cause"], m["command"])) if m
                             else "Cause: not yet found."))
    if not misses:
        fh.write("None.\n")
if render:
    sys.exit(0)
print("%-4s %-12s %-58s %-11s %-22s %-14s %s" % ("seed", "figure", "quantity", "role", "paper", "gpuvm", "pass"))
for r in rows:
    print("%-4s %-12s %-58s %-11s %-22s %-14s %s" % (r["seed"], r["figure"][:12], r["quantity"][:58], r["role"],
                                                  r["paper"][:22], r["gpuvm"][:14], r["passed"]))
print(summary)
