"""Tests of the gpuvm Python package (python/gpuvm): it runs the built CLI
and returns the CLI's own numbers as DataFrames. Run by tests/cli/python.sh
(ctest cli_python) with an interpreter that has pandas and pytest."""
import json
import os
import sys
import subprocess

import pytest

import gpuvm

pd = pytest.importorskip("pandas")

WL = "random-sampling:region=32MiB,threads=2048,reads=16"


def cli_json(tmp_path, *args):
    out = tmp_path / "cli.json"
    subprocess.run([gpuvm.find_binary(), "sim", *args, "--json", str(out), "-q"], check=True)
    return json.loads(out.read_text())


def test_binary_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUVM_BIN", str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="GPUVM_BIN"):
        gpuvm.find_binary()


def test_options_to_args():
    args = gpuvm._cli.options_to_args({"kernel_sampling": True, "quiet": False, "threads": 2,
                                       "set": {"tlb.l2.entries": 128, "l1.fill": "line"},
                                       "vary": ["a=1", "b=2"], "j": 3, "none": None})
    # values attached, as the CLI's getopt reads an optional value too
    assert args == ["--kernel-sampling", "--threads=2", "--set=tlb.l2.entries=128",
                    "--set=l1.fill=line", "--vary=a=1", "--vary=b=2", "-j3"]
    assert gpuvm.workload_spec("bfs", {"mem": "managed"}) == "bfs:mem=managed"
    assert gpuvm.workload_spec("rs:region=1GiB", {"reads": 8}) == "rs:region=1GiB,reads=8"


def test_sim_is_the_cli(tmp_path):
    r = gpuvm.sim(gpu="p100", workload=WL, seed=3)
    ref = cli_json(tmp_path, "--gpu", "p100", "--workload", WL, "--seed", "3")
    # the package's numbers are the CLI's, not a model of its own
    for key in ("sim_cycles", "warp_instructions", "thread_accesses", "walks", "config_hash"):
        assert r.json[key] == ref[key], key
    runs = r.runs
    assert len(runs) == 1 and runs.loc[0, "sim_cycles"] == ref["sim_cycles"]
    assert "stall_cycles.memory" in runs.columns
    k = r.kernels
    assert len(k) == ref["kernel_launches"] == len(ref["kernels"])
    assert list(k["index"]) == list(range(len(k)))
    assert k["warp_instructions"].sum() == ref["warp_instructions"]
    assert {"grid_x", "block_x", "tlb_l1_hits"} <= set(k.columns)
    t = r.tlb
    assert list(t["level"]) == [lv["level"] for lv in ref["tlb"]]
    assert list(t["misses"]) == [lv["misses"] for lv in ref["tlb"]]
    a = r.allocations
    assert len(a) >= 1 and a["index"].dtype.kind == "i" and "bytes" in a.columns
    assert "simulator" in r.text and "CPU s" in r.text


def test_sim_options(tmp_path):
    r = gpuvm.sim(gpu="p100", workload="random-sampling", params={"region": "32MiB",
                  "threads": 2048, "reads": 16}, set={"tlb.l2.entries": 128})
    assert r.config["tlb.l2.entries"] == 128
    assert r.json["workload"] == WL
    out = tmp_path / "keep"
    r2 = gpuvm.sim(gpu="p100", workload=WL, outdir=str(out))
    assert (out / "config.ini").exists() and (out / "stats.txt").exists()
    again = gpuvm.load(str(out))
    assert again.json["sim_cycles"] == r2.json["sim_cycles"]
    assert len(again.stats) == len(r2.stats) > 0


def test_sim_bad_input():
    with pytest.raises(gpuvm.GpuvmError) as e:
        gpuvm.sim(gpu="p100", workload=WL, set={"tlb.l2.entries": "lots"})
    assert e.value.returncode == 2 and "tlb.l2.entries" in str(e.value)
    with pytest.raises(ValueError):
        gpuvm.sim(gpu="p100")


def test_sweep(tmp_path):
    csv = tmp_path / "s.csv"
    s = gpuvm.sweep(gpu="p100", workload=WL, vary={"workload.region": ["32MiB", "64MiB"]},
                    jobs=2, csv=str(csv))
    assert len(s) == 2 and len(s.runs) == 2
    assert list(s.runs["workload.region"]) == ["32MiB", "64MiB"]
    k = s.kernels
    assert set(k["point"]) == {0, 1} and "gpu" in k.columns
    assert len(s.tlb) == 2 * len(s.points[0].tlb)
    # the same grid point as a single run gives the same numbers
    one = gpuvm.sim(gpu="p100", workload=WL)
    assert s.points[0].json["sim_cycles"] == one.json["sim_cycles"]
    assert len(gpuvm.load_csv(str(csv))) == 2


def test_loaders(tmp_path):
    j = tmp_path / "r.json"
    c = tmp_path / "r.csv"
    subprocess.run([gpuvm.find_binary(), "sim", "--gpu", "p100", "--workload", WL, "--json",
                    str(j), "--stats-csv", str(c), "-q"], check=True)
    r = gpuvm.load(str(j))
    assert isinstance(r, gpuvm.Run) and len(r.kernels) == r.json["kernel_launches"]
    st = gpuvm.load(str(c))
    assert set(st["scope"]) >= {"run", "kernel", "alloc"}


def test_validate(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shipped = os.path.join(root, "validation", "measurements.tsv")
    if not os.path.exists(shipped):
        pytest.skip("no validation manifest")
    # the wrapper is what is tested here (tests/cli/validate.sh runs the
    # whole manifest, 313 rows, minutes): the header and three small rows
    with open(shipped, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header = next(line for line in lines if line.startswith("name\t"))
    small = [line for line in lines if line.split("\t")[0] in ("2dconv-32", "2dconv-48", "2dconv-64")]
    assert len(small) == 3
    manifest = tmp_path / "small.tsv"
    manifest.write_text("\n".join([header] + small) + "\n", encoding="utf-8")
    v = gpuvm.validate(manifest=str(manifest))
    rows = v.rows
    assert {"name", "measured_us", "simulated_us", "status"} <= set(rows.columns)
    ok = rows[rows["status"] == "ok"]
    if ok.empty:
        pytest.skip("no trace of the manifest is present")
    assert (ok["simulated_us"] > 0).all()


def test_calibrate():
    if not gpuvm.has_command("calibrate"):
        pytest.skip("this gpuvm has no calibrate command")
    # one preset, --quick: the whole suite on every preset takes minutes,
    # and what is tested here is the wrapper (tests/cli/calibrate.sh tests
    # the command)
    c = gpuvm.calibrate(gpu="k80", quick=True)
    assert len(c.rows) > 0
    assert set(c.rows["gpu"]) == {"k80"}


def test_cli_passthrough():
    assert "p100" in gpuvm.cli("presets")


def test_example_fig1(tmp_path):
    """examples/fig1_from_python.py regenerates Fig. 1a from Python."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    out = subprocess.run([sys.executable, os.path.join(root, "examples", "fig1_from_python.py"),
                          str(tmp_path)], env=env, check=True, capture_output=True, text=True)
    assert "p100: plateau" in out.stdout and "slowdown past 2.5 GiB" in out.stdout
    df = pd.read_csv(tmp_path / "fig1a.csv")
    assert set(df["gpu"]) == {"p100", "k80"} and len(df) == 14
    assert (tmp_path / "fig1a.png").stat().st_size > 0
