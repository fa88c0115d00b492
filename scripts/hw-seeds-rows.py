#!/usr/bin/env python3
"""Turns what scripts/hw-seeds.sh measured (its output folder) into rows
(docs/hardware.md, "The seeds' experiments"):

- ROWS (default validation/seeds-hw.tsv): one row per measured point, each
  with the gpuvm command that simulates it, the JSON quantity of that run
  to compare, and the measured value; role `validation` (nothing is set
  from them), or `unmodelled` where gpuvm has no counterpart (the
  cudaMemPrefetchAsync variant: no workload prefetches in bulk).
- EFFECTS (default validation/seeds-hw-effects.tsv): slowdowns between two
  rows, as the fidelity table scores them (issue 76 item 2): the slowdown
  is rate(base) / rate(other), rate = items / seconds of each row (gpuvm:
  items_per_sim_second, or items / sim_seconds), the effect is slowdown - 1,
  and a simulated effect passes when its sign is the measured one and it
  lies within +-50 % of it (the lo/hi columns). A measured effect under
  10 % is a `check` row (no effect: the simulated slowdown must stay
  within 0.9-1.1).
- --manifest FILE: the rows `gpuvm validate` can replay as they are
  (workload specs with no --set or --oversub: the sampling and group-by
  sweeps, the triad on device memory, copied in, or managed within the
  device's memory, the un-hinted migration run) appended to a manifest in
  validation/measurements.tsv's format.
- --simulate GPUVM: runs each validation row's command with that binary
  (--jobs at a time; rows that share a command share the run) and fills
  `simulated` (the quantity from its --json report) and `error_pct` in
  ROWS, `simulated_slowdown` and `passed` (pass/FAIL against lo-hi) in
  EFFECTS, and prints the mean absolute error and the effects passed,
  validation rows apart from check rows. Full-size rows take CPU minutes.

  python3 scripts/hw-seeds-rows.py --preset h100 --tag h100sxm [--source TEXT]
      [--set KEY=VALUE]... [--rows FILE] [--effects FILE] [--manifest FILE]
      [--simulate GPUVM [--jobs N]] OUT_DIR

Idempotent: rows named TAG-seeds-* are replaced, never duplicated. A
malformed input line stops it (exit 1) naming the file and the line.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

COLS = ["experiment", "variant", "region_bytes", "items", "seconds", "items_per_second", "iter", "params"]
VARIANTS = {
    "sampling": {"device"},
    "groupby": {"zero-copy"},
    "oversub": {"ondemand", "prefetch", "copy", "device"},
    "counters": {"fault", "accessed_by", "remote"},
}
ROW_COLS = ["name", "role", "experiment", "device", "preset", "gpuvm_command", "quantity", "items",
            "measured", "unit", "simulated", "error_pct", "convention", "source"]
EFFECT_COLS = ["name", "role", "experiment", "effect", "base", "other", "measured_slowdown",
               "measured_effect", "lo", "hi", "simulated_slowdown", "passed", "note"]
MANIFEST_COLS = ["name", "trace", "device", "preset", "measured_us", "what", "source", "convention"]
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
NO_EFFECT = 0.1  # a measured |slowdown - 1| below this is a `check` row, not a validation one


class Malformed(Exception):
    pass


def size_text(b):
    for unit, n in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if b >= n and b % n == 0:
            return f"{b // n}{unit}"
    return str(b)


def read_tsv(path, section):
    """[(row dict)], {meta}: refuses a malformed line with FILE:LINE"""
    rows, meta = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            where = f"{path}:{n}"
            if not line.strip():
                continue
            if line.startswith("#"):
                m = re.match(r"#\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
                if m:
                    meta.setdefault(m.group(1), m.group(2).strip())
                continue
            f_ = line.split("\t")
            if f_ == COLS:
                continue
            if len(f_) != len(COLS):
                raise Malformed(f"{where}: {len(f_)} tab-separated columns, expected {len(COLS)} "
                                f"({', '.join(COLS)})")
            r = dict(zip(COLS, f_))
            if r["experiment"] != section:
                raise Malformed(f"{where}: experiment '{r['experiment']}' in {section}.tsv")
            if r["variant"] not in VARIANTS[section]:
                raise Malformed(f"{where}: variant '{r['variant']}' is not one of "
                                f"{', '.join(sorted(VARIANTS[section]))}")
            try:
                for k in ("region_bytes", "items", "iter"):
                    r[k] = int(r[k])
                    if r[k] < 1:
                        raise ValueError(f"{k} must be at least 1")
                r["seconds"] = float(r["seconds"])
                if not (r["seconds"] > 0 and math.isfinite(r["seconds"])):
                    raise ValueError("seconds must be a positive number")
            except ValueError as e:
                raise Malformed(f"{where}: {e}")
            params = {}
            if r["params"] != "-":
                for kv in r["params"].split(";"):
                    if "=" not in kv:
                        raise Malformed(f"{where}: params '{r['params']}': '{kv}' is not key=value")
                    k, v = kv.split("=", 1)
                    params[k] = v
            r["params"] = params
            r["where"] = where
            rows.append(r)
    return rows, meta


def read_uvm_params(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(r".*/parameters/([A-Za-z0-9_]+):(.*)$", line.strip())
                if m:
                    out[m.group(1)] = m.group(2)
    return out


def median(xs):
    return statistics.median(xs)


def fmt(v):
    return f"{v:.6g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", help="the folder scripts/hw-seeds.sh wrote (OUT)")
    ap.add_argument("--preset", required=True, help="the gpuvm preset of the board (H100 SXM5: h100)")
    ap.add_argument("--tag", required=True, help="prefix of the rows' names, e.g. h100sxm")
    ap.add_argument("--source", default="", help="more source text: the date, the board, the commit")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a --set added to every gpuvm command (e.g. an H200's DRAM on the h100 preset)")
    ap.add_argument("--rows", default="validation/seeds-hw.tsv")
    ap.add_argument("--effects", default="validation/seeds-hw-effects.tsv")
    ap.add_argument("--manifest", help="also add the replayable rows to this validate manifest")
    ap.add_argument("--simulate", metavar="GPUVM", help="run each row's command with this gpuvm binary "
                    "and fill the simulated columns")
    ap.add_argument("--jobs", type=int, default=1, help="gpuvm runs at a time with --simulate")
    a = ap.parse_args()
    for s in a.set:
        if "=" not in s:
            ap.error(f"--set {s}: expected KEY=VALUE")

    data, meta, device = {}, {}, None
    try:
        for section in VARIANTS:
            path = os.path.join(a.out_dir, section + ".tsv")
            if not os.path.exists(path):
                continue
            rows, m = read_tsv(path, section)
            if rows:
                if device is None:
                    device = m.get("device")
                elif m.get("device") not in (None, device):
                    raise Malformed(f"{path}: measured on '{m.get('device')}', the other files on "
                                    f"'{device}': one board per folder")
            data[section] = rows
            meta[section] = m
    except Malformed as e:
        print(f"hw-seeds-rows.py: {e}", file=sys.stderr)
        return 1
    if not any(data.values()):
        print(f"hw-seeds-rows.py: {a.out_dir}: no measured rows (sampling.tsv, groupby.tsv, "
              "oversub.tsv, counters.tsv)", file=sys.stderr)
        return 1
    device = device or "unknown"
    uvm = read_uvm_params(os.path.join(a.out_dir, "uvm-params.txt"))
    try:
        counters_migrate = int(uvm.get("uvm_perf_access_counter_mimc_migration_enable", "-1")) >= 1
    except ValueError:
        counters_migrate = False
    commit = ""
    if os.path.exists(os.path.join(a.out_dir, "commit.txt")):
        with open(os.path.join(a.out_dir, "commit.txt")) as f:
            commit = f.read().strip()[:12]
    source = "measured: cuda/seeds_driver.cu (scripts/hw-seeds.sh)" + (f" at {commit}" if commit else "") + \
        f", {device}" + (f", {a.source}" if a.source else "")
    sets = "".join(f" --set {s}" for s in a.set)
    tag = f"{a.tag}-seeds-"

    out_rows, effects, manifest = [], [], []
    by_name = {}

    def add(name, role, exp, spec, extra, quantity, items, measured, unit, conv, src, manifest_row=None):
        cmd = f"gpuvm sim --gpu {a.preset} --workload {spec}{extra}{sets}" if spec else "-"
        r = dict(name=tag + name, role=role, experiment=exp, device=device, preset=a.preset,
                 gpuvm_command=cmd, quantity=quantity if spec else "-", items=str(items),
                 measured=fmt(measured), unit=unit, simulated="", error_pct="", convention=conv, source=src)
        out_rows.append(r)
        by_name[tag + name] = (items, measured, unit)
        if manifest_row and not a.set:
            trace, us, what, mconv = manifest_row
            manifest.append(dict(name=tag + name, trace="workload:" + trace, device=device, preset=a.preset,
                                 measured_us=f"{us:.3f}", what=what, source=src, convention=mconv))

    def rate(name):
        items, v, unit = by_name[name]
        return v if unit.endswith("/s") else items / v

    def effect(name, exp, what, base, other, note="", role="validation"):
        base, other = tag + base, tag + other
        if base not in by_name or other not in by_name:
            return
        s = rate(base) / rate(other)
        e = s - 1
        lo, hi = sorted((1 + 0.5 * e, 1 + 1.5 * e))
        if abs(e) < NO_EFFECT and role == "validation":
            # no effect measured: +-50 % of it would be no band at all
            role, lo, hi = "check", 1 - NO_EFFECT, 1 + NO_EFFECT
            note = (note + "; " if note else "") + \
                f"no effect measured (under {NO_EFFECT:.0%}): the simulated one must stay under it too"
        effects.append(dict(name=tag + name, role=role, experiment=exp, effect=what, base=base, other=other,
                            measured_slowdown=fmt(s), measured_effect=f"{e:+.4g}", lo=f"{lo:.4g}",
                            hi=f"{hi:.4g}", simulated_slowdown="", passed="", note=note))

    def spec_keys(p, *keys):
        return "".join(f",{k}={p[k]}" for k in keys if k in p)

    def sweep(section, spec_of, unit, what, conv, anchors):
        rows = data.get(section) or []
        by_region = {}
        for r in rows:
            by_region.setdefault(r["region_bytes"], []).append(r)
        for region in sorted(by_region):
            rs = by_region[region]
            med = median([r["seconds"] for r in rs])
            items = rs[0]["items"]
            spec = spec_of(region, rs[0]["params"])
            add(f"{section}-{size_text(region)}", "validation", section, spec, "", "items_per_sim_second",
                items, items / med, unit, f"{conv}, median of {len(rs)}", source,
                (spec, med * 1e6, what, "nsys"))
        present = sorted(by_region)
        pts = [b for b in anchors if b in by_region]
        if pts and present[-1] > pts[-1]:
            pts.append(present[-1])  # the largest region: past the last anchor
        for b0, b1 in zip(pts, pts[1:]):
            effect(f"{section}-{size_text(b0)}-to-{size_text(b1)}", section,
                   f"{section} slowdown from a {size_text(b0)} to a {size_text(b1)} region",
                   f"{section}-{size_text(b0)}", f"{section}-{size_text(b1)}")

    sweep("sampling",
          lambda reg, p: f"random-sampling:region={size_text(reg)}" + spec_keys(p, "threads", "reads"),
          "reads/s", "kernel time of Karnagel's random sampling (cuda/random_sampling.cu) over device memory, "
          "cudaEvents around one launch",
          "cudaEvents around one launch after a warm-up launch", [32 * MiB, 128 * MiB, GiB, 8 * GiB, 32 * GiB, 64 * GiB])
    sweep("groupby",
          lambda reg, p: f"hash-groupby:region={size_text(reg)},input=%d" + spec_keys(p, "threads"),
          "rows/s", "kernel time of Karnagel's hash group-by (cuda/hash_groupby.cu), input zero-copy in "
          "128 MB chunks, cudaEvents around all the chunks' launches",
          "cudaEvents around every chunk's launch (input zero-copy from pinned host memory), table zeroed before each",
          [32 * MiB, 128 * MiB, GiB, 4 * GiB, 32 * GiB])
    # the group-by's input count is the row's items
    for r in out_rows:
        if r["experiment"] == "groupby":
            r["gpuvm_command"] = r["gpuvm_command"].replace("input=%d", "input=" + r["items"])
    for m in manifest:
        if m["trace"].startswith("workload:hash-groupby"):
            n = by_name[m["name"]][0]
            m["trace"] = m["trace"].replace("input=%d", f"input={n}")

    # oversubscription: median over repeats of each (variant, pct)
    sms = int(meta.get("oversub", {}).get("sms", meta.get("sampling", {}).get("sms", "0")) or 0)
    groups = {}
    for r in data.get("oversub") or []:
        try:
            pct = int(r["params"]["pct"])
            free = int(r["params"]["device_free"])
        except (KeyError, ValueError):
            print(f"hw-seeds-rows.py: {r['where']}: oversub params need pct= and device_free=", file=sys.stderr)
            return 1
        groups.setdefault((r["variant"], pct), []).append((r, free))
    for (variant, pct), rs in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        r0, free = rs[0]
        n, w = r0["items"], r0["region_bytes"]
        med = median([r["seconds"] for r, _ in rs])
        actual = 100.0 * w / free
        threads = f",threads={sms * 2048}" if sms else ""
        conv = {"ondemand": "host wrote the arrays, then the kernel on demand",
                "prefetch": "host wrote the arrays, then cudaMemPrefetchAsync of all three and the kernel",
                "copy": "cudaMemcpy of all three arrays from pinned host memory, then the kernel",
                "device": "the kernel alone on device-resident arrays (after the copy run)"}[variant]
        conv = (f"{conv}, cudaEvents around all; managed data {w} B = {actual:.4g} % of the {free} B left "
                f"free by a cudaMalloc'd ballast; median of {len(rs)}")
        mem = {"ondemand": ",mem=managed", "copy": ",mem=copy", "device": "", "prefetch": None}[variant]
        name = f"oversub-{variant}-{pct}pct"
        if mem is None:
            add(name, "unmodelled", "oversub", None, "", "-", n, med, "s",
                conv + "; gpuvm has no bulk-prefetch workload (docs/uvm.md: no row prefetches on h100)", source)
            continue
        extra = f" --oversub {actual:.4g}" if variant == "ondemand" else ""
        spec = f"stream-triad:elems={n}{threads}{mem}"
        mrow = None
        kernel_s = median([float(r["params"].get("kernel_s", "nan")) for r, _ in rs])
        if variant in ("device", "copy") or (variant == "ondemand" and actual <= 100):
            mrow = (spec, kernel_s * 1e6, "kernel time of the STREAM triad (the suite's triad_kernels.h) "
                    f"{conv}; the kernel's own events", "nsys")
        add(name, "validation", "oversub", spec, extra, "sim_seconds", n, med, "s", conv, source, mrow)
    pcts = sorted({p for _, p in groups})
    for p in pcts:
        if p > 100:
            effect(f"oversub-{p}pct", "oversub", f"on-demand triad per element at {p} % of device memory "
                   "against 100 %", "oversub-ondemand-100pct", f"oversub-ondemand-{p}pct")
        else:
            effect(f"oversub-paging-{p}pct", "oversub", f"on demand (first touch from host memory) against "
                   f"the kernel on device-resident data, {p} %", f"oversub-device-{p}pct", f"oversub-ondemand-{p}pct")
            effect(f"oversub-copy-vs-demand-{p}pct", "oversub", f"demand paging against copy-then-execute, {p} %",
                   f"oversub-copy-{p}pct", f"oversub-ondemand-{p}pct")
        base = f"oversub-ondemand-{p}pct"
        if tag + base in by_name and tag + f"oversub-prefetch-{p}pct" in by_name:
            effect(f"oversub-prefetch-{p}pct", "oversub", f"on demand against cudaMemPrefetchAsync first, {p} %",
                   f"oversub-prefetch-{p}pct", base, "no gpuvm counterpart of the prefetch", role="unmodelled")

    # migration over iterations
    crow = {}
    for r in data.get("counters") or []:
        crow.setdefault(r["variant"], {})[r["iter"]] = r
    for variant in ("fault", "accessed_by", "remote"):
        it = crow.get(variant)
        if not it:
            continue
        k = max(it)
        n = it[k]["items"]
        launches = int(it[k]["params"].get("launches", k))
        spec = f"vectoradd:n={n},mem=managed,launches={launches}"
        extra = {"fault": "",
                 "accessed_by": " --set uvm.accessed_by=gpu" + (" --migration always" if counters_migrate else ""),
                 "remote": " --set uvm.preferred_location=host --set uvm.accessed_by=gpu"}[variant]
        hint = {"fault": "no hint: the first launch faults the pages in",
                "accessed_by": "cudaMemAdviseSetAccessedBy(GPU) on the three arrays",
                "remote": "cudaMemAdviseSetPreferredLocation(host) and SetAccessedBy(GPU)"}[variant]
        mig = uvm.get("uvm_perf_access_counter_mimc_migration_enable")
        conv = (f"vectorAdd (the suite's kernel) on managed arrays the host wrote first, {hint}; "
                f"cudaEvents around each of {launches} launches"
                + (f"; nvidia_uvm uvm_perf_access_counter_mimc_migration_enable={mig}" if mig is not None else ""))
        if 1 in it:
            mrow = (spec, it[1]["seconds"] * 1e6, f"first of {launches} launches: {conv}", "nsys-first") \
                if variant == "fault" else None
            add(f"counters-{variant}-first", "validation", "counters", spec, extra, "kernels[0].sim_seconds",
                n, it[1]["seconds"], "s", conv + "; the first launch", source, mrow)
        late = [i for i in it if i > k // 2 and i > 1]
        if late:
            med = median([it[i]["seconds"] for i in late])
            q = f"median(kernels[{min(late) - 1}:{max(late)}].sim_seconds)"
            add(f"counters-{variant}-late", "validation", "counters", spec, extra, q, n, med, "s",
                conv + f"; median of launches {min(late)}-{max(late)}", source)
        if variant == "fault" and len(it) == launches and not a.set:
            allmed = median([r["seconds"] for r in it.values()])
            manifest.append(dict(name=tag + "counters-fault-median", trace="workload:" + spec, device=device,
                                 preset=a.preset, measured_us=f"{allmed * 1e6:.3f}",
                                 what=f"median of {launches} launches: {conv}", source=source,
                                 convention="nsys-median"))
        effect(f"counters-{variant}-migration", "counters", f"first launch against the late ones ({hint}): "
               "what migration gains over the launches", f"counters-{variant}-late", f"counters-{variant}-first")
    effect("counters-remote-vs-local", "counters", "late launches read remotely (preferred location host) "
           "against migrated (no hint)", "counters-fault-late", "counters-remote-late")
    effect("counters-accessed-by-vs-local", "counters", "late launches with AccessedBy(GPU) against migrated "
           "(no hint): what access-counter migration leaves remote", "counters-fault-late", "counters-accessed_by-late")

    if a.simulate and simulate(a, out_rows, effects) != 0:
        return 1

    def rewrite(path, cols, new):
        keep = []
        if os.path.exists(path):
            with open(path) as f:
                lines = f.read().splitlines()
            if lines and lines[0].split("\t") != cols:
                print(f"hw-seeds-rows.py: {path}:1: header is not {', '.join(cols)}", file=sys.stderr)
                return False
            keep = [l for l in lines[1:] if not l.startswith(tag)]
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(path, "w") as f:
            f.write("\t".join(cols) + "\n")
            for l in keep:
                f.write(l + "\n")
            for r in new:
                f.write("\t".join(str(r[c]).replace("\t", " ") for c in cols) + "\n")
        return True

    ok = rewrite(a.rows, ROW_COLS, out_rows) and rewrite(a.effects, EFFECT_COLS, effects)
    if ok and a.manifest:
        if not os.path.exists(a.manifest):
            with open(a.manifest, "w") as f:
                f.write("\t".join(MANIFEST_COLS) + "\n")
        ok = rewrite(a.manifest, MANIFEST_COLS, manifest)
    if not ok:
        return 1
    for r in out_rows:
        print(f"{r['name']:<44} {r['role']:<11} {r['measured']:>12} {r['unit']}")
    for e in effects:
        sim = f" simulated {e['simulated_slowdown']}x {e['passed']}" if e["passed"] else ""
        print(f"{e['name']:<44} {e['role']:<11} {e['measured_slowdown']:>12}x  (band {e['lo']}-{e['hi']}){sim}")
    print(f"{len(out_rows)} rows ({sum(r['role'] == 'validation' for r in out_rows)} validation), "
          f"{len(effects)} effects" + (f", {len(manifest)} manifest rows" if a.manifest else ""), file=sys.stderr)
    return 0


def quantity_of(report, q):
    """the value of a row's quantity in a gpuvm --json report"""
    if q in ("items_per_sim_second", "sim_seconds"):
        return float(report[q])
    m = re.fullmatch(r"kernels\[(\d+)\]\.sim_seconds", q)
    if m:
        return float(report["kernels"][int(m.group(1))]["sim_seconds"])
    m = re.fullmatch(r"median\(kernels\[(\d+):(\d+)\]\.sim_seconds\)", q)
    if m:
        ks = report["kernels"][int(m.group(1)):int(m.group(2))]
        return statistics.median(float(k["sim_seconds"]) for k in ks)
    raise KeyError(q)


def simulate(a, rows, effects):
    """runs each row's command once (rows sharing a command share the run)"""
    todo = [r for r in rows if r["gpuvm_command"] != "-" and r["role"] in ("validation", "check")]
    cmds = sorted({r["gpuvm_command"] for r in todo})
    reports, failed = {}, []

    def run(cmd):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            argv = [a.simulate] + shlex.split(cmd)[1:] + ["-q", "--no-outdir", "--json", out]
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                return cmd, None, p.stderr.strip()
            with open(out) as f:
                return cmd, json.load(f), ""

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for cmd, rep, err in pool.map(run, cmds):
            if rep is None:
                failed.append(f"{cmd}: {err}")
            reports[cmd] = rep
    if failed:
        for f in failed:
            print(f"hw-seeds-rows.py: --simulate: {f}", file=sys.stderr)
        return 1
    sim = {}
    for r in todo:
        try:
            v = quantity_of(reports[r["gpuvm_command"]], r["quantity"])
        except (KeyError, IndexError, TypeError, ValueError, statistics.StatisticsError) as e:
            print(f"hw-seeds-rows.py: --simulate: {r['name']}: no {r['quantity']} in the report ({e})",
                  file=sys.stderr)
            return 1
        m = float(r["measured"])
        r["simulated"], r["error_pct"] = fmt(v), f"{(v / m - 1) * 100:+.1f}"
        sim[r["name"]] = float(r["items"]) / v if not r["unit"].endswith("/s") else v
    for e in effects:
        if e["base"] in sim and e["other"] in sim:
            x = sim[e["base"]] / sim[e["other"]]
            e["simulated_slowdown"] = fmt(x)
            e["passed"] = "pass" if float(e["lo"]) <= x <= float(e["hi"]) else "FAIL"
    for role in ("validation", "check"):
        errs = [abs(float(r["error_pct"])) for r in todo if r["role"] == role and r["error_pct"]]
        eff = [e for e in effects if e["role"] == role and e["passed"]]
        if errs or eff:
            print(f"{role}: {len(errs)} rows, mean absolute error "
                  + (f"{statistics.mean(errs):.1f} %" if errs else "-")
                  + f"; effects {sum(e['passed'] == 'pass' for e in eff)} of {len(eff)} pass", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
