#!/usr/bin/env python3
"""Measure gpuvm's own speed and write docs/speed/speed.csv.

The README's speed table (generated block `speed-summary`,
scripts/docs-blocks.py) is written from this CSV, so the speed it quotes is a
measurement, with its host, date and load beside it.

Rows:
  - `gpuvm bench`'s device-memory rows and its SIMT triad (single thread, the
    full model), their CPU time (user + system) and warp instructions;
  - a replay of each real Accel-Sim trace shipped in traces/ (on
    the GPU it was recorded on where the trace says, else h100), timed as
    a child process's CPU time, the fastest of REPEAT runs: start-up (the
    preset, the trace's parse) included, as a user sees it.
Each row is set beside Accel-Sim's published trace-driven rate, 12.5 K warp
instructions per second (Khairy et al., "Accel-Sim: An Extensible Simulation
Framework for Validated GPU Modeling", ISCA 2020, Table I and its simulation
speed section). That rate is Accel-Sim's mean over its own workloads on its
authors' host, not a run of these traces here: the column says how many
times faster than that rate a row ran, not a same-input comparison.

usage: scripts/speed-table.py GPUVM [--repeat N] [--bench-json FILE] [--out CSV]
  --repeat N        bench repeats and trace replays per row (default 3)
  --bench-json FILE reuse a `gpuvm bench --json` file from this host instead
                    of running bench again
  --out CSV         default docs/speed/speed.csv
"""
import csv
import datetime
import json
import os
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.path.join(ROOT, "traces")
# Accel-Sim trace-driven simulation rate, warp instructions per second
# (Khairy et al., ISCA 2020, Table I: 12.5 KIPS)
ACCELSIM_WARP_INSTS_PER_S = 12.5e3
ACCELSIM_SOURCE = "Accel-Sim trace-driven, 12.5 KIPS (Khairy et al., ISCA 2020, Table I)"
# trace folder -> preset of the GPU it was recorded on (traces/README.md)
TRACE_GPU = {"accelsim-rodinia-bptree-h100": "h100-pcie", "accelsim-vectoradd": "h100"}
BENCH_ROWS = ("random sampling over 4 GB", "coalesced streaming (triad)",
              "hash group-by, 1 GB table", "triad on the SIMT executor")
FIELDS = ["run", "input", "gpu", "warp_instructions", "cpu_seconds",
          "warp_instructions_per_cpu_second", "times_accelsim_rate", "reference",
          "host_cpu", "host_cores", "load_average", "date", "gpuvm_commit"]


def die(msg):
    print(f"speed-table: {msg}", file=sys.stderr)
    sys.exit(2)


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def replay(gpuvm, trace, gpu, repeat):
    """(warp instructions, the fastest run's CPU seconds) of one trace."""
    best, warps = None, None
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        for _ in range(repeat):
            before = child_cpu()
            p = subprocess.run([gpuvm, "sim", "--gpu", gpu, "--trace", trace, "--json", out,
                                "--no-outdir", "-q"], capture_output=True, text=True)
            cpu = child_cpu() - before
            if p.returncode:
                die(f"{trace}: gpuvm sim exit {p.returncode}: {p.stderr.strip()[:300]}")
            with open(out, encoding="utf-8") as f:
                warps = json.load(f)["warp_instructions"]
            best = cpu if best is None else min(best, cpu)
    return warps, best


def main(argv):
    if not argv or argv[0].startswith("-"):
        die("usage: scripts/speed-table.py GPUVM [--repeat N] [--bench-json FILE] [--out CSV]")
    gpuvm, repeat, bench_json, out = os.path.abspath(argv[0]), 3, None, os.path.join(ROOT, "docs/speed/speed.csv")
    i = 1
    while i < len(argv):
        if argv[i] in ("--repeat", "--bench-json", "--out") and i + 1 < len(argv):
            if argv[i] == "--repeat":
                try:
                    repeat = int(argv[i + 1])
                except ValueError:
                    repeat = 0
                if not 1 <= repeat <= 100:
                    die(f"--repeat: '{argv[i + 1]}' is not a count from 1 to 100")
            elif argv[i] == "--bench-json":
                bench_json = argv[i + 1]
            else:
                out = argv[i + 1]
            i += 2
        else:
            die(f"unknown or incomplete argument '{argv[i]}'")
    load = os.getloadavg()[0]
    if bench_json is None:
        fd, bench_json = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        p = subprocess.run([gpuvm, "bench", "--repeat", str(repeat), "--json", bench_json, "-q"])
        if p.returncode:
            die(f"gpuvm bench exit {p.returncode}")
    try:
        with open(bench_json, encoding="utf-8") as f:
            bench = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{bench_json}: {e}")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    common = {"reference": ACCELSIM_SOURCE, "host_cpu": bench.get("host_cpu", ""),
              "host_cores": bench.get("host_cores", ""), "load_average": f"{load:.1f}",
              "date": datetime.date.today().isoformat(), "gpuvm_commit": commit}
    rows = []
    for c in bench.get("cases", []):
        if c.get("run") not in BENCH_ROWS or c.get("oversub_percent", 0):
            continue
        rows.append({"run": f"bench: {c['run']}", "input": c["workload"], "gpu": c["gpu"],
                     "warp_instructions": c["warp_instructions"], "cpu_seconds": c["cpu_seconds"]})
    missing = [n for n in BENCH_ROWS if f"bench: {n}" not in {r["run"] for r in rows}]
    if missing:
        die(f"{bench_json}: no bench row {missing[0]!r} (a `gpuvm bench --json` file?)")
    for name in sorted(TRACE_GPU):
        d = os.path.join(TRACES, name)
        if not os.path.isdir(d):
            die(f"{d}: trace not found (traces/)")
        warps, cpu = replay(gpuvm, d, TRACE_GPU[name], repeat)
        rows.append({"run": f"trace replay: {name}", "input": f"traces/{name}",
                     "gpu": TRACE_GPU[name], "warp_instructions": warps, "cpu_seconds": cpu})
    for r in rows:
        rate = r["warp_instructions"] / r["cpu_seconds"]
        r["cpu_seconds"] = f"{r['cpu_seconds']:.3f}"
        r["warp_instructions_per_cpu_second"] = f"{rate:.4g}"
        r["times_accelsim_rate"] = f"{rate / ACCELSIM_WARP_INSTS_PER_S:.3g}"
        r.update(common)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, out)
    print(f"speed-table: {len(rows)} rows -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
