#!/usr/bin/env python3
"""Write the figures that README.md and docs/ quote from runs, from committed data.

A generated block is the text between

    <!-- generated: NAME -->
    <!-- end generated -->

in README.md or any docs/**/*.md page (docs/notes/, the dated records, is not
scanned). This script replaces each block's body with what its generator
writes from the committed CSVs, so that a quoted number cannot drift from its
data:

  fidelity-summary    docs/fidelity/fidelity.csv: rows and passes per paper
                      (and the validation rows apart when the table has a
                      `role` column)
  validation-summary  docs/validation/validate.csv (`gpuvm validate --csv`):
                      rows, mean absolute error and log correlation per GPU
  calibration-summary docs/calibration/calibrate.csv (`gpuvm calibrate
                      --csv`): per preset, the microbenchmark rows compared
                      with a published value, validation apart from
                      calibration
  calibration-misses  the same CSV: every row outside its tolerance
  validation-programs docs/validation/validate.csv: error range and mean
                      absolute error per preset and program
  speed-summary       docs/speed/speed.csv (scripts/speed-table.py): the
                      simulator's warp instructions per CPU second on bench
                      rows and real traces, beside Accel-Sim's published rate
  fidelity-rows-*     docs/fidelity/fidelity.csv: every row of one experiment
                      (scoping, zheng, ganguly, neidty, sepo, sl1,
                      bigkernel), for the page of that feature
  calibration-rows-*  docs/calibration/calibrate.csv: the published rows of
                      one mechanism (launch), for its page
  hw-board-table      validation/hw/h100-sxm-2026-11-26/: docs/hardware.md's
                      table of what the H100 SXM5 boards measured, each cell
                      a stated aggregate over the runs
                      (scripts/hw_board_table.py; the third column from
                      presets/h100.ini); hw-board-spread, the boards' spread
                      per quantity, from the same files
  probe-h100          docs/data/probe/h100-tlb-chase.json (`gpuvm probe
                      --target cuda` over run1/tlb_chase.csv) and that
                      recording: docs/probe.md's H100 example
  h100-tlb-miss-penalty the same and the boards' tlbmiss rows: the
                      measurements behind h100's tlb.l2.miss_penalty_cycles,
                      for docs/calibration.md (scripts/hw_tlb_blocks.py);
                      h100-tlbmiss-curves, the boards' tlbpar and tlbmiss
                      sections behind h100's tlb.*.mshrs
  p100-tlbpar-model   docs/calibration/calibrate.csv: the model's p100
                      parallel TLB chase with every lane chasing
  validation-quote-*  docs/validation/validate.csv: a sentence of
                      docs/validation.md that quotes measured rows
                      (VALIDATION_QUOTES below)
  hw-quote-*          scripts/hw_quotes.py: one sentence of a page that
                      quotes the boards' files (store-rates, launch-period,
                      prefetch-rate, fault-latency, launch-pipelining,
                      launch-event)
  fig1-table          docs/data/fig1/fig1{a_sampling,b_groupby}.csv (the CSVs
                      `make demo` writes to out/fig1/): the checks that
                      experiments/karnagel_fig1.sh prints, computed by that
                      same script (CHECK_ONLY=1), so the README's table and
                      the demo's output are one computation

usage: scripts/docs-blocks.py           rewrite the blocks in place
       scripts/docs-blocks.py --check   exit 1, naming each block (file, line,
                                        name) whose text differs; write nothing
       scripts/docs-blocks.py --print NAME   print one block's text

Refreshing the data: copy out/fig1/*.csv of a `make demo` run into
docs/data/fig1/; `build/gpuvm validate --csv docs/validation/validate.csv`;
`build/gpuvm calibrate --gpu k80,p100,gtx-titan-black,gtx1080ti-uvmsmart,v100,a100,h100,h100-pcie
--jobs 2 --csv docs/calibration/calibrate.csv`;
`scripts/speed-table.py build/gpuvm`; `build/gpuvm probe --target cuda --input
validation/hw/h100-sxm-2026-11-26/run1/tlb_chase.csv --json
docs/data/probe/h100-tlb-chase.json` (from the repository root);
`make fidelity` and copy its table to docs/fidelity/fidelity.csv; then run
this script and commit data and pages together.
"""
import csv
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIDELITY_CSV = "docs/fidelity/fidelity.csv"
VALIDATE_CSV = "docs/validation/validate.csv"
CALIBRATE_CSV = "docs/calibration/calibrate.csv"
SPEED_CSV = "docs/speed/speed.csv"
FIG1_DIR = "docs/data/fig1"
FIG1_SCRIPT = "experiments/karnagel_fig1.sh"

BEGIN = re.compile(r"^<!-- generated: ([a-z0-9-]+) -->\s*$")
END = re.compile(r"^<!-- end generated -->\s*$")


class BlockError(Exception):
    pass


def path(rel):
    return os.path.join(ROOT, rel)


def read_csv(rel):
    try:
        with open(path(rel), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        raise BlockError(f"cannot read {rel}: {e.strerror}")


# ---- fidelity per paper ------------------------------------------------------
# experiment -> (paper, what it reproduces); the order is the table's
PAPERS = [
    ("karnagel_fig1", "Karnagel et al., DaMoN'17", "Fig. 1: TLB cliffs of random access (P100, K80)"),
    ("karnagel_fig10_11", "Karnagel et al., DaMoN'17", "Figs. 10-11: TLB-conscious scopes"),
    ("e4_suite", "Zheng et al., HPCA'16", "far-fault MSHRs, blocking vs replayable faults, prefetch"),
    ("ganguly_fig4_8", "Ganguly et al., IPDPS'20", "Figs. 4-8: delayed migration by access counters"),
    ("neidty_fig8_11", "Du et al. (NeiDty)", "Figs. 3, 8-11: neighbour TLB probing"),
    ("sepo_ch6", "Mokhtari, PhD thesis, ch. 6", "SePo: a hash table larger than GPU memory"),
    ("sl1_ch5", "Mokhtari, PhD thesis, ch. 5", "S-L1: a software L1 cache in shared memory"),
    ("bigkernel_ch4", "Mokhtari, PhD thesis, ch. 4", "BigKernel: a CPU-GPU prefetch pipeline"),
    ("gh200_memory", "Schieffer et al., ICPP'24; NVIDIA", "Grace Hopper: C2C copy rates, system page size, first touch"),
    ("multi_gpu_scaling", "gpuvm's own checks (DGX H100)", "several GPUs: partitioned triad, stencil, pagerank"),
]


def passed(row):
    return (row.get("passed") or "").strip().lower() == "pass"


def fidelity_summary():
    rows = read_csv(FIDELITY_CSV)
    if not rows:
        raise BlockError(f"{FIDELITY_CSV} has no rows")
    for need in ("experiment", "passed"):
        if need not in rows[0]:
            raise BlockError(f"{FIDELITY_CSV} has no '{need}' column")
    has_role = "role" in rows[0]
    known = [p[0] for p in PAPERS]
    extra = sorted({r["experiment"] for r in rows} - set(known))
    order = [p for p in PAPERS] + [(e, e, "") for e in extra]
    roles = ("validation", "calibration", "check")

    def role_of(r):
        return (r.get("role") or "").strip().lower()

    def frac(rs):
        rs = [r for r in rs if (r.get("passed") or "").strip() in ("pass", "FAIL")]
        return f"{sum(map(passed, rs))} of {len(rs)}" if rs else "-"

    if has_role:
        out = ["| paper | what gpuvm reproduces | validation rows passing | calibration rows | check rows |",
               "|---|---|--:|--:|--:|"]
    else:
        out = ["| paper | what gpuvm reproduces | effects | within tolerance |", "|---|---|--:|--:|"]
    for exp, paper, what in order:
        rs = [r for r in rows if r["experiment"] == exp]
        if not rs:
            continue
        if has_role:
            out.append(f"| {paper} | {what} | " + " | ".join(frac([r for r in rs if role_of(r) == k]) for k in roles) + " |")
        else:
            out.append(f"| {paper} | {what} | {len(rs)} | {sum(map(passed, rs))} |")
    if has_role:
        v = [r for r in rows if role_of(r) == "validation" and r["passed"] in ("pass", "FAIL")]
        pct = f" ({100 * sum(map(passed, v)) / len(v):.0f} %)" if v else ""
        out.append("| **all** | | **" + frac(v) + pct + "** | " +
                   " | ".join(frac([r for r in rows if role_of(r) == k]) for k in roles[1:]) + " |")
        note = (f"From `{FIDELITY_CSV}` ({len(rows)} rows: one per effect a paper states). A speed-up or "
                "slowdown passes when its sign is the paper's and its effect (ratio - 1) is within +-50 % of "
                "the paper's; signs and orderings are exact. Validation rows are effects no parameter was set "
                "from; calibration rows depend on a constant fitted to a paper figure; check rows are a paper's "
                "\"no effect\". docs/fidelity/fidelity.md has every row and the known misses.")
    else:
        tot = sum(map(passed, rows))
        out.append(f"| **all** | | **{len(rows)}** | **{tot} ({100 * tot / len(rows):.0f} %)** |")
        note = (f"From `{FIDELITY_CSV}` ({len(rows)} rows: one per effect a paper states, "
                "with the paper's value, gpuvm's, and the tolerance it is judged by).")
    return "\n".join(out) + "\n\n" + note


# ---- validation per GPU ------------------------------------------------------
def validation_summary():
    rows = read_csv(VALIDATE_CSV)
    if not rows:
        raise BlockError(f"{VALIDATE_CSV} has no rows")
    for need in ("device", "preset", "measured_us", "simulated_us"):
        if need not in rows[0]:
            raise BlockError(f"{VALIDATE_CSV} has no '{need}' column")

    def stats(rs):
        m = [float(r["measured_us"]) for r in rs]
        s = [float(r["simulated_us"]) for r in rs]
        err = [abs(b - a) / a * 100 for a, b in zip(m, s)]
        within = sum(e <= 20 for e in err)
        corr = pearson([math.log(x) for x in m], [math.log(x) for x in s]) if len(rs) >= 3 else None
        return len(rs), sum(err) / len(err), within, corr

    devices = []
    for r in rows:
        key = (r["device"], r["preset"])
        if key not in devices:
            devices.append(key)
    has_role = "role" in rows[0]
    out = ["| GPU (measured) | preset | rows | mean absolute error | within +-20 % | log correlation |",
           "|---|---|--:|--:|--:|--:|"]
    if has_role:
        out = [out[0] + " validation rows | their mean absolute error |", out[1] + "--:|--:|"]

    def fmt(label, preset, rs):
        n, mae, within, corr = stats(rs)
        c = f"{corr:.3f}" if corr is not None else "-"
        line = f"| {label} | {preset} | {n} | {mae:.1f} % | {within} | {c} |"
        if has_role:
            v = [r for r in rs if r["role"] == "validation"]
            line += f" {len(v)} | {stats(v)[1]:.1f} % |" if v else " 0 | - |"
        return line

    for dev, preset in devices:
        out.append(fmt(dev, f"`{preset}`", [r for r in rows if (r["device"], r["preset"]) == (dev, preset)]))
    if len(devices) > 1:
        out.append(fmt("**all**", "", rows))
    note = (f"From `{VALIDATE_CSV}` (`gpuvm validate --csv`, every row of "
            "`validation/measurements.tsv`): simulated against measured kernel time; "
            "the correlation is Pearson's r of the log times, as Accel-Sim reports it.")
    if has_role:
        note += (" Validation rows are those no parameter was set from; the others"
                 " (calibration) decided a model setting and are no evidence.")
    return "\n".join(out) + "\n\n" + note


def calibration_summary():
    rows = read_csv(CALIBRATE_CSV)
    if not rows:
        raise BlockError(f"{CALIBRATE_CSV} has no rows")
    for need in ("gpu", "status", "error_pct", "role"):
        if need not in rows[0]:
            raise BlockError(f"{CALIBRATE_CSV} has no '{need}' column")
    rows = [r for r in rows if r["status"] in ("pass", "FAIL")]
    presets = list(dict.fromkeys(r["gpu"] for r in rows))

    def cell(rs):
        if not rs:
            return "-"
        mae = sum(abs(float(r["error_pct"])) for r in rs) / len(rs)
        return f"{sum(r['status'] == 'pass' for r in rs)} of {len(rs)}, {mae:.1f} %"

    out = ["| preset | validation rows: pass, mean abs. error | calibration rows: pass, mean abs. error |",
           "|---|--:|--:|"]
    for g in presets + ["**all**"]:
        rs = rows if g == "**all**" else [r for r in rows if r["gpu"] == g]
        label = g if g == "**all**" else f"`{g}`"
        out.append(f"| {label} | {cell([r for r in rs if r['role'] == 'validation'])} | "
                   f"{cell([r for r in rs if r['role'] == 'calibration'])} |")
    note = (f"From `{CALIBRATE_CSV}` (`gpuvm calibrate --csv`): microbenchmarks (pointer chases, "
            "instruction latencies and rates, STREAM, launches, host copies) against published "
            "measurements. Calibration rows are the values a preset was set from, so they only check "
            "that the model composes its parameters; validation rows come from sources no preset "
            "cites. Tolerances: 10 % for a latency, 15 % for a rate.")
    return "\n".join(out) + "\n\n" + note


def validation_programs():
    """Per preset and program (the row name before its size), the error range."""
    rows = read_csv(VALIDATE_CSV)
    if not rows:
        raise BlockError(f"{VALIDATE_CSV} has no rows")
    for need in ("name", "preset", "error_percent"):
        if need not in rows[0]:
            raise BlockError(f"{VALIDATE_CSV} has no '{need}' column")
    groups = {}
    for r in rows:
        # h100sxm-2dconv-128-first -> h100sxm-2dconv; 2mm-32-x8 -> 2mm
        m = re.match(r"(.+?)-\d+(?:[-x]|$)", r["name"])
        prog = m.group(1) if m else r["name"]
        groups.setdefault((r["preset"], prog), []).append(float(r["error_percent"]))
    out = ["| preset | program | rows | error range | mean absolute error | within +-20 % |",
           "|---|---|--:|--:|--:|--:|"]
    for (preset, prog), e in groups.items():
        out.append(f"| `{preset}` | {prog} | {len(e)} | {round(min(e)):+d} to {round(max(e)):+d} % | "
                   f"{sum(abs(x) for x in e) / len(e):.1f} % | {sum(abs(x) <= 20 for x in e)} |")
    note = (f"From `{VALIDATE_CSV}`: a program is the row name before its size "
            "(`gemm-256-x8` is gemm); block widths, median and first launches together.")
    return "\n".join(out) + "\n\n" + note


def calibration_misses():
    """Every row with a published value outside its tolerance."""
    rows = read_csv(CALIBRATE_CSV)
    for need in ("gpu", "quantity", "simulated", "published", "error_pct", "status", "role", "source"):
        if rows and need not in rows[0]:
            raise BlockError(f"{CALIBRATE_CSV} has no '{need}' column")
    rows = [r for r in rows if r["status"] == "FAIL"]
    out = ["| preset | row | simulated | published | error | role | source |",
           "|---|---|--:|--:|--:|---|---|"]
    for r in rows:
        src = r["source"].split(" (")[0].split(";")[0].strip()
        if len(src) > 60:
            src = src[:57].rstrip() + "..."
        out.append(f"| `{r['gpu']}` | `{r['quantity']}` | {float(r['simulated']):.4g} | "
                   f"{float(r['published']):.4g} | {float(r['error_pct']):+.1f} % | {r['role']} | {src} |")
    note = (f"From `{CALIBRATE_CSV}`: the {len(rows)} rows with a published value outside their "
            "tolerance (10 % for a latency, 15 % for a rate); the source column is the start of "
            "the row's source, the CSV has it whole.")
    return "\n".join(out) + "\n\n" + note


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


# ---- Karnagel Fig. 1, as make demo prints it -----------------------------------
def fig1_checks_text():
    """The check lines experiments/karnagel_fig1.sh prints for the committed CSVs."""
    for f in ("fig1a_sampling.csv", "fig1b_groupby.csv"):
        if not os.path.isfile(path(os.path.join(FIG1_DIR, f))):
            raise BlockError(f"{FIG1_DIR}/{f} missing (copy it from a make demo run's out/fig1/)")
    env = dict(os.environ, CHECK_ONLY="1", OUT=path(FIG1_DIR), LC_ALL="C")
    env.pop("CHECKS_CSV", None)
    p = subprocess.run(["bash", path(FIG1_SCRIPT), "unused"], env=env, cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise BlockError(f"{FIG1_SCRIPT} (CHECK_ONLY=1) failed: {p.stderr.strip()[-300:]}")
    return p.stdout


def verdict(tail):
    tail = tail.strip()
    if tail.startswith("yes"):
        return "yes"
    m = re.match(r"NO: [0-9.]+x is (below|above) the band", tail)
    if m:
        return f"**no**: {m.group(1)} the band"
    return "**no**" if tail.startswith("NO") else tail


def fig1_table():
    text = fig1_checks_text()
    lines = text.splitlines()

    def find(rx, what):
        for ln in lines:
            m = re.search(rx, ln)
            if m:
                return m
        raise BlockError(f"{FIG1_SCRIPT} printed no line for {what} (its output format changed?)")

    def section(label, gpu):
        # the indented check lines below "LABEL GPU plateau ..."
        start = None
        for i, ln in enumerate(lines):
            if re.match(rf"^{re.escape(label)} {gpu}\s+plateau", ln):
                start = i
                break
        if start is None:
            raise BlockError(f"{FIG1_SCRIPT} printed no '{label} {gpu}' line")
        body = []
        for ln in lines[start + 1:]:
            if not ln.startswith("  "):
                break
            body.append(ln)
        return lines[start], body

    rows = []
    _, body = section("sampling", "p100")
    b = "\n".join(body)
    m = re.search(r"flat 32 MiB-1 GiB within \+-15%: (.*) \(spread ([0-9.]+)%\)", b)
    if not m:
        raise BlockError("no p100 flatness check")
    rows.append(("p100 sampling flat 32 MiB - 1 GiB", "flat (+-15 %)", f"spread {m.group(2)} %", verdict(m.group(1))))
    m = re.search(r"drop 1 GiB -> 4 GiB: ([0-9.]+)x \(needs > 2x\): (.*)", b)
    if not m:
        raise BlockError("no p100 1 GiB -> 4 GiB check")
    rows.append(("p100 sampling drop 1 GiB -> 4 GiB", "> 2x", f"{m.group(1)}x", verdict(m.group(2))))
    m = re.search(r"slowdown past 2.5 GiB ([0-9.]+)x vs paper ([0-9.]+x) \(effect \+-50%: ([0-9.]+-[0-9.]+)\): (.*)", b)
    if not m:
        raise BlockError("no p100 sampling slowdown check")
    rows.append(("p100 sampling slowdown past 2.5 GiB", f"{m.group(2)} (band {m.group(3)})", f"{m.group(1)}x", verdict(m.group(4))))

    _, body = section("group-by", "p100")
    b = "\n".join(body)
    m = re.search(r"slowdown past 2.5 GiB ([0-9.]+)x vs paper ([0-9.]+x) \(effect \+-50%: ([0-9.]+-[0-9.]+)\): (.*)", b)
    if not m:
        raise BlockError("no p100 group-by slowdown check")
    rows.append(("p100 group-by slowdown past 2.5 GiB", f"{m.group(2)} (band {m.group(3)})", f"{m.group(1)}x", verdict(m.group(4))))

    _, body = section("sampling", "k80")
    b = "\n".join(body)
    m = re.search(r"drop 64 MiB -> 256 MiB: ([0-9.]+)x; drop 1.5 GiB -> 3 GiB: ([0-9.]+)x \(both needed > 1.5x\): (.*)", b)
    if not m:
        raise BlockError("no k80 cliff check")
    rows.append(("k80 sampling cliffs: 64 -> 256 MiB; 1.5 -> 3 GiB", "both > 1.5x (~130 MB and ~2 GB)",
                 f"{m.group(1)}x; {m.group(2)}x", verdict(m.group(3))))
    m = re.search(r"1.5 GiB -> 8 GiB: ([0-9.]+)x .*; 32 MiB -> 8 GiB: ([0-9.]+)x", b)
    if not m:
        raise BlockError("no k80 1.5 -> 8 GiB line")
    rows.append(("k80 sampling 1.5 GiB -> 8 GiB", "\"an order of magnitude\"", f"{m.group(1)}x", "printed, not checked"))

    head, _ = section("group-by", "k80")
    m = re.search(r"mean slowdown past 2.5 GiB ([0-9.]+)x", head)
    if m:
        rows.append(("k80 group-by slowdown past 2.5 GiB", "up to ~12x", f"{m.group(1)}x", "printed, not checked"))

    out = ["| check | paper | gpuvm | in the paper's band |", "|---|---|--:|---|"]
    out += [f"| {a} | {p} | {g} | {v} |" for a, p, g, v in rows]
    note = (f"From `{FIG1_DIR}/*.csv`, a `make demo` run (64 reads per thread, 16 Mi "
            "group-by rows), through the checks `experiments/karnagel_fig1.sh` prints. A slowdown "
            "is within the band when its effect (slowdown - 1) is within +-50 % of the paper's. "
            "These rows are calibration, not evidence: the TLB MSHRs of both presets and the "
            "K80's walker count were fitted to this figure.")
    return "\n".join(out) + "\n\n" + note


def speed_summary():
    """docs/speed/speed.csv (scripts/speed-table.py): rates per CPU second."""
    rows = read_csv(SPEED_CSV)
    if not rows:
        raise BlockError(f"{SPEED_CSV} has no rows")
    for need in ("run", "gpu", "warp_instructions", "cpu_seconds",
                 "warp_instructions_per_cpu_second", "times_accelsim_rate", "reference",
                 "host_cpu", "host_cores", "load_average", "date", "gpuvm_commit"):
        if need not in rows[0]:
            raise BlockError(f"{SPEED_CSV} has no '{need}' column")
    out = ["| run | GPU | warp instructions | CPU s | warp instructions per CPU s | x Accel-Sim's rate |",
           "|---|---|--:|--:|--:|--:|"]
    for r in rows:
        out.append(f"| {r['run']} | `{r['gpu']}` | {int(r['warp_instructions']):,} | {r['cpu_seconds']} | "
                   f"{float(r['warp_instructions_per_cpu_second']):.3g} | {r['times_accelsim_rate']}x |")
    r0 = rows[0]
    note = (f"From `{SPEED_CSV}` (`scripts/speed-table.py build/gpuvm`), measured {r0['date']} at "
            f"{r0['gpuvm_commit']} on a {r0['host_cores']}-core {r0['host_cpu']} (load average "
            f"{r0['load_average']}: a shared host; CPU time, user + system, depends little on the "
            f"load, wall time does). Bench rows run one thread with the full model; a trace replay "
            f"includes start-up (the preset and the trace's parse), which dominates these small "
            f"traces. Accel-Sim's rate is the one its paper publishes ({r0['reference']}), over its "
            f"own workloads on its authors' host: the last column compares rates, not the same inputs.")
    return "\n".join(out) + "\n\n" + note


# ---- one experiment's rows, for the page of its feature --------------------------
# block name -> experiment column of docs/fidelity/fidelity.csv
FIDELITY_ROWS = {
    "fidelity-rows-scoping": "karnagel_fig10_11",
    "fidelity-rows-zheng": "e4_suite",
    "fidelity-rows-ganguly": "ganguly_fig4_8",
    "fidelity-rows-neidty": "neidty_fig8_11",
    "fidelity-rows-sepo": "sepo_ch6",
    "fidelity-rows-sl1": "sl1_ch5",
    "fidelity-rows-bigkernel": "bigkernel_ch4",
}


def fidelity_rows(exp):
    """Every row of one experiment: what the feature's page quotes as its current result."""
    rows = read_csv(FIDELITY_CSV)
    for need in ("figure", "quantity", "role", "paper", "gpuvm", "passed", "experiment"):
        if rows and need not in rows[0]:
            raise BlockError(f"{FIDELITY_CSV} has no '{need}' column")
    rows = [r for r in rows if r["experiment"] == exp]
    if not rows:
        raise BlockError(f"{FIDELITY_CSV} has no rows of experiment '{exp}'")
    out = ["| figure | quantity | role | paper | gpuvm | passes |", "|---|---|---|--:|--:|---|"]
    for r in rows:
        cells = [r[k].replace("|", "/").strip() for k in ("figure", "quantity", "role", "paper", "gpuvm")]
        ok = r["passed"].strip()
        out.append("| " + " | ".join(cells) + f" | {'**FAIL**' if ok == 'FAIL' else ok} |")
    v = [r for r in rows if r["role"].strip() == "validation" and r["passed"].strip() in ("pass", "FAIL")]
    note = (f"From `{FIDELITY_CSV}`, the {len(rows)} rows of `experiments/{exp}.sh`"
            + (f" ({sum(map(passed, v))} of {len(v)} validation rows pass)" if v else "")
            + ": the paper's value beside gpuvm's, judged as docs/fidelity.md says; "
            "docs/fidelity/fidelity.md gives each row's effect, band and the cause of each miss.")
    return "\n".join(out) + "\n\n" + note


# ---- calibrate rows of one mechanism, for its page ------------------------------
# block name -> (regex on the quantity column, what the rows measure)
CALIBRATION_ROWS = {
    "calibration-rows-launch": (r"^(stream_(init|read)_gb_s_occ|empty_kernel_|kernel_launch_cycles)",
                                "kernel launch, front-end, CTA turnover and back-to-back launches"),
}


def calibration_rows(rx, what):
    """The calibrate rows with a published value whose quantity matches rx."""
    rows = read_csv(CALIBRATE_CSV)
    for need in ("gpu", "quantity", "unit", "simulated", "published", "error_pct", "status", "role"):
        if rows and need not in rows[0]:
            raise BlockError(f"{CALIBRATE_CSV} has no '{need}' column")
    rows = [r for r in rows if r["published"].strip() and re.search(rx, r["quantity"])]
    if not rows:
        raise BlockError(f"{CALIBRATE_CSV} has no published rows matching '{rx}'")
    out = ["| preset | row | unit | gpuvm | published | error | role | within tolerance |",
           "|---|---|---|--:|--:|--:|---|---|"]
    for r in rows:
        out.append(f"| `{r['gpu']}` | `{r['quantity']}` | {r['unit']} | {float(r['simulated']):.4g} | "
                   f"{float(r['published']):.4g} | {float(r['error_pct']):+.1f} % | {r['role']} | "
                   f"{'**no**' if r['status'] == 'FAIL' else 'yes'} |")
    note = (f"From `{CALIBRATE_CSV}` (`gpuvm calibrate --csv`): the {len(rows)} rows of {what} that "
            "have a published value; the CSV has each row's source. Calibration rows are the values a "
            "preset was set from; validation rows were not used.")
    return "\n".join(out) + "\n\n" + note


def p100_tlbpar_model():
    """docs/calibration.md's sentence on the p100 model's lanes32 curve (calibrate.csv)."""
    rows = read_csv(CALIBRATE_CSV)
    q = "tlb_par_hops_per_kcycle_sm_lanes32_fp8192mib"
    pts = [(int(r["x"]), float(r["simulated"]))
           for r in rows if r.get("gpu") == "p100" and r.get("quantity") == q]
    if not pts:
        raise BlockError(f"{CALIBRATE_CSV} has no p100 row '{q}'")
    pts.sort()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hw_board_table
    try:
        mshrs = hw_board_table._preset_value(ROOT, "p100:tlb.l1.mshrs")[0]
    except hw_board_table.BoardError as e:
        raise BlockError(str(e))
    return (f"With all 32 lanes chasing, the preset's {mshrs} fitted MSHRs (`tlb.l1.mshrs`) fill within a "
            "few warps: "
            + ", ".join(f"{v:.1f}" for _, v in pts) + " hops per kcycle at K = "
            + ", ".join(str(k) for k, _ in pts)
            + f" (`{CALIBRATE_CSV}`, `{q}`), so the lanes32 curve is the one that can measure counts as "
            "large as a board's are likely to be.")


# ---- sentences of docs/validation.md that quote validation rows ------------------
# name -> template: {m:ROW} a row's measured time (us), {s:ROW} gpuvm's; {r:A/B} the
# ratio of two rows' measured times, {sr:A/B} of gpuvm's; {pct:A/B} and {spct:A/B}
# (ratio - 1) in percent; {spread:RX} the largest (max - min) / min of the measured
# times over rows that share RX's first group (the same size at several settings),
# {sspread:RX} of gpuvm's.
# Rows are docs/validation/validate.csv's, of any preset, by name.
VALIDATION_QUOTES = {
    "2dconv-width": (
        "2DCONV at n = 1024 takes {m:2dconv-1024-x8}, {m:2dconv-1024-x16} and {m:2dconv-1024} µs on "
        "the board at widths 8, 16 and 32 (`tests/test_suite_kernels.c` `test_block_x` checks the "
        "ordering and the 8-over-32 ratio against the board's {r:2dconv-1024-x8/2dconv-1024}x)."),
    "scalarprod-passes": (
        "`test_scalarprod` checks the two-pass over one-pass ratio: the board takes "
        "{m:scalarprod-256x2048} against {m:scalarprod-128x2048} µs at 2048 elements, "
        "{r:scalarprod-256x2048/scalarprod-128x2048}x."),
    "3dconv-width": (
        "Only at n = 128 does the body show: the 8-wide block is slower than the 32-wide one by "
        "{pct:3dconv-128-x8/3dconv-128} % on the board ({m:3dconv-128-x8} against {m:3dconv-128} µs), "
        "by {spct:3dconv-128-x8/3dconv-128} % in gpuvm."),
    "fwt-length": (
        "The kernel's length changes little on the board (at most {spread:^fwt-(\\d+)-\\d+$} % between "
        "the kernel lengths of one size) and {sspread:^fwt-(\\d+)-\\d+$} % in gpuvm (the GPU transforms the "
        "padded kernel)."),
}


def validation_quote(name):
    rows = {r["name"]: r for r in read_csv(VALIDATE_CSV)}

    def val(row, col):
        if row not in rows:
            raise BlockError(f"{VALIDATE_CSV} has no row '{row}' (block validation-quote-{name})")
        return float(rows[row][col])

    def field(m):
        kind, arg = m.group(1), m.group(2)
        if kind in ("m", "s"):
            return f"{val(arg, 'measured_us' if kind == 'm' else 'simulated_us'):.2f}"
        if kind in ("spread", "sspread"):
            groups = {}
            for n, r in rows.items():
                g = re.match(arg, n)
                if g:
                    groups.setdefault(g.group(1), []).append(
                        float(r["simulated_us" if kind == "sspread" else "measured_us"]))
            worst = max((max(v) - min(v)) / min(v) for v in groups.values() if len(v) > 1)
            return f"{100 * worst:.1f}"
        a, b = arg.split("/")
        col = "simulated_us" if kind.startswith("s") else "measured_us"
        ratio = val(a, col) / val(b, col)
        return f"{ratio:.2f}" if kind in ("r", "sr") else f"{100 * (ratio - 1):.0f}"
    return re.sub(r"\{(m|s|r|sr|pct|spct|spread|sspread):([^}]+)\}", field, VALIDATION_QUOTES[name])


def hw_board(what, module="hw_board_table"):
    """A block of the H100 boards' data: docs/hardware.md's table or spread
    (scripts/hw_board_table.py), the probe's H100 example and the TLB miss
    penalty's measurements (scripts/hw_tlb_blocks.py), beside this script."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import hw_board_table
        mod = __import__(module)
    except ImportError as e:
        raise BlockError(f"cannot load scripts/{module}.py: {e}")
    try:
        return getattr(mod, what)(ROOT)
    except hw_board_table.BoardError as e:
        raise BlockError(str(e))


GENERATORS = {
    "hw-board-table": lambda: hw_board("board_table"),
    "hw-board-spread": lambda: hw_board("board_spread"),
    "probe-h100": lambda: hw_board("probe_h100", "hw_tlb_blocks"),
    "h100-tlb-miss-penalty": lambda: hw_board("tlb_miss_penalty", "hw_tlb_blocks"),
    "h100-tlbmiss-curves": lambda: hw_board("tlbmiss_curves", "hw_tlb_blocks"),
    "p100-tlbpar-model": p100_tlbpar_model,
    "speed-summary": speed_summary,
    "fidelity-summary": fidelity_summary,
    "validation-summary": validation_summary,
    "calibration-summary": calibration_summary,
    "calibration-misses": calibration_misses,
    "validation-programs": validation_programs,
    "fig1-table": fig1_table,
}
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hw_quotes  # noqa: E402 (scripts/hw_quotes.py, beside this script)


def hw_quote(name):
    try:
        return hw_quotes.quote(ROOT, name)
    except hw_quotes.hw.BoardError as e:
        raise BlockError(str(e))


for _name in VALIDATION_QUOTES:
    GENERATORS["validation-quote-" + _name] = (lambda n: lambda: validation_quote(n))(_name)
for _name in hw_quotes.NAMES:
    GENERATORS["hw-quote-" + _name] = (lambda n: lambda: hw_quote(n))(_name)
for _name, (_rx, _what) in CALIBRATION_ROWS.items():
    GENERATORS[_name] = (lambda a, b: lambda: calibration_rows(a, b))(_rx, _what)
for _name, _exp in FIDELITY_ROWS.items():
    GENERATORS[_name] = (lambda e: lambda: fidelity_rows(e))(_exp)


# ---- the blocks ----------------------------------------------------------------
def pages():
    out = ["README.md"]
    for d, subdirs, files in os.walk(path("docs")):
        rel = os.path.relpath(d, ROOT)
        subdirs[:] = sorted(s for s in subdirs if os.path.join(rel, s) != os.path.join("docs", "notes"))
        out += [os.path.join(rel, f) for f in sorted(files) if f.endswith(".md")]
    return out


def process(rel, cache, check):
    """Returns (new text, [(line, name) of blocks that differ]); raises BlockError."""
    with open(path(rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, diffs, i = [], [], 0
    while i < len(lines):
        ln = lines[i]
        m = BEGIN.match(ln)
        if not m:
            if END.match(ln):
                raise BlockError(f"{rel}:{i + 1}: 'end generated' without a 'generated:' line")
            out.append(ln)
            i += 1
            continue
        name, start = m.group(1), i
        j = i + 1
        while j < len(lines) and not END.match(lines[j]):
            if BEGIN.match(lines[j]):
                raise BlockError(f"{rel}:{j + 1}: block '{name}' (line {start + 1}) not ended before another begins")
            j += 1
        if j == len(lines):
            raise BlockError(f"{rel}:{start + 1}: block '{name}' has no '<!-- end generated -->'")
        if name not in GENERATORS:
            raise BlockError(f"{rel}:{start + 1}: unknown block '{name}' (known: {', '.join(GENERATORS)})")
        if name not in cache:
            cache[name] = GENERATORS[name]().rstrip("\n").split("\n")
        want = cache[name]
        if lines[start + 1:j] != want:
            diffs.append((start + 1, name))
        out.append(ln)
        out += want
        out.append(lines[j])
        i = j + 1
    return "\n".join(out), diffs


def main(argv):
    check = "--check" in argv
    if "--print" in argv:
        k = argv.index("--print")
        name = argv[k + 1] if k + 1 < len(argv) else ""
        if name not in GENERATORS:
            print(f"docs-blocks: --print NAME, one of: {', '.join(GENERATORS)}", file=sys.stderr)
            return 2
        try:
            print(GENERATORS[name]())
        except BlockError as e:
            print(f"docs-blocks: {e}", file=sys.stderr)
            return 1
        return 0
    unknown = [a for a in argv if a != "--check"]
    if unknown:
        print(f"docs-blocks: unknown argument {unknown[0]}; "
              "usage: scripts/docs-blocks.py [--check | --print NAME]", file=sys.stderr)
        return 2
    cache, stale, nblocks = {}, [], 0
    try:
        for rel in pages():
            text, diffs = process(rel, cache, check)
            with open(path(rel), encoding="utf-8") as f:
                old = f.read()
            nblocks += old.count("<!-- generated: ")
            stale += [(rel, ln, name) for ln, name in diffs]
            if diffs and not check:
                tmp = path(rel) + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path(rel))
    except BlockError as e:
        print(f"docs-blocks: {e}", file=sys.stderr)
        return 1
    if check:
        for rel, ln, name in stale:
            print(f"docs-blocks: {rel}:{ln}: block '{name}' differs from what its data gives "
                  f"(run scripts/docs-blocks.py and commit)", file=sys.stderr)
        if stale:
            return 1
        print(f"docs-blocks: all {nblocks} generated blocks match their data")
        return 0
    for rel, ln, name in stale:
        print(f"docs-blocks: rewrote {rel}:{ln} '{name}'")
    print(f"docs-blocks: {nblocks} generated blocks, {len(stale)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
