#!/usr/bin/env python3
"""Karnagel et al., DaMoN'17, Fig. 1a from Python, at a small size.

Random sampling throughput (reads per simulated second) against the size of
the randomly accessed region, on the p100 and k80 presets: the TLB cliffs
(K80 near 130 MB and 2 GB, P100 near 2 GB). experiments/karnagel_fig1.sh is
the full script (more sizes, 64 reads per thread, group-by too); this one
runs 16 reads per thread over 7 sizes in well under a minute on 2 cores.

Run from the repository root after building (cmake -S . -B build &&
cmake --build build):

    PYTHONPATH=python python3 examples/fig1_from_python.py [OUT_DIR]

It needs pandas; matplotlib draws the figure if present (else the CLI's
gnuplot figure is kept instead).
"""
import os
import sys

import gpuvm

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("out", "fig1_py")
os.makedirs(out, exist_ok=True)

regions = ["32MiB", "128MiB", "512MiB", "1GiB", "2GiB", "4GiB", "8GiB"]
s = gpuvm.sweep(gpu=["p100", "k80"], workload="random-sampling", params={"reads": 16},
                vary={"workload.region": regions}, jobs=os.cpu_count() or 1,
                csv=os.path.join(out, "fig1a.csv"))
runs = s.runs
runs["region_MiB"] = runs["workload.region_bytes"] / 2**20
table = runs.pivot(index="region_MiB", columns="gpu", values="items_per_sim_second")
print("reads per simulated second (Karnagel Fig. 1a, 16 reads per thread)")
print(table.to_string(float_format=lambda v: f"{v:.3g}"))

# the paper's E1 numbers: the plateau up to the first cliff, and the
# slowdown past 2.5 GiB against it
for gpu, cliff in (("p100", 1024), ("k80", 128)):
    col = table[gpu]
    plateau = col[col.index <= cliff].mean()
    past = col[col.index > 2.5 * 1024].mean()
    print(f"{gpu}: plateau {plateau:.3g} reads/s, slowdown past 2.5 GiB {plateau / past:.1f}x "
          f"(paper: {'4.3x' if gpu == 'p100' else 'up to 13x'})")

png = os.path.join(out, "fig1a.png")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    gpuvm.sweep(gpu=["p100", "k80"], workload="random-sampling", params={"reads": 16},
                vary={"workload.region": regions}, plot=png, y="items_per_sim_second")
else:
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for gpu in table.columns:
        ax.plot(table.index, table[gpu], marker="o", label=gpu.upper())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("randomly accessed region (MiB)")
    ax.set_ylabel("reads / s (simulated)")
    ax.set_title("Random sampling (Karnagel et al. Fig. 1a)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
print(f"figure: {png}; data: {os.path.join(out, 'fig1a.csv')}")
