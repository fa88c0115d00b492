"""gpuvm from Python: run simulations, sweeps, validations and calibrations
with keyword arguments and get the results as pandas DataFrames.

Every function runs the built ``gpuvm`` binary (found through $GPUVM_BIN,
the repository's build/gpuvm, or PATH) and reads its JSON and CSV outputs;
nothing here reimplements the model, so results are exactly the CLI's.

    >>> import gpuvm
    >>> r = gpuvm.sim(gpu="p100", workload="random-sampling",
    ...               params={"region": "64MiB"}, set={"tlb.l2.entries": 128})
    >>> r.kernels          # one row per kernel launch
    >>> r.tlb              # one row per TLB level
    >>> s = gpuvm.sweep(gpu=["p100", "k80"], workload="random-sampling",
    ...                 vary={"workload.region": ["32MiB", "1GiB"]}, jobs=2)
    >>> s.runs             # one row per grid point

Keyword options become command-line options (see each command's --help):
``kernel_sampling=True`` -> ``--kernel-sampling``, ``threads=2`` ->
``--threads 2``, ``set={...}`` -> one ``--set KEY=VALUE`` per item, a list
-> the option repeated. docs/python.md has the details.
"""

import os
import shutil
import tempfile

from ._cli import GpuvmError, find_binary, has_command, options_to_args, run_cli
from .results import Run, Sweep, Table, load, load_csv, load_json, load_run_dir

__all__ = ["sim", "sweep", "validate", "calibrate", "cli", "load", "load_json", "load_csv",
           "load_run_dir", "find_binary", "has_command", "Run", "Sweep", "Table",
           "GpuvmError", "workload_spec"]

__version__ = "0.1.0"


def workload_spec(workload, params=None):
    """'name' + {'k': v} -> 'name:k=v,...' (the CLI's workload spec)."""
    if not params:
        return workload
    extra = ",".join(f"{k}={v}" for k, v in params.items())
    return workload + ("," if ":" in workload else ":") + extra


def cli(*args, echo_stderr=False):
    """Runs `gpuvm ARGS...` and returns its standard output (text)."""
    return run_cli(args, echo_stderr=echo_stderr)[0]


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _progress_args(progress):
    # progress lines go to stderr; off unless asked (a notebook shows them)
    return ["--progress", "off" if progress in (None, False) else str(progress)]


def sim(gpu, workload=None, *, trace=None, params=None, seed=None, outdir=None,
        progress=None, **options):
    """One `gpuvm sim` run -> Run.

    gpu       a preset name ('p100') or a preset .ini file
    workload  a workload spec ('bfs', 'random-sampling:region=64MiB'); or
    trace     an Accel-Sim folder, NVBit trace or native .gvt file
    params    workload parameters as a dict, appended to the spec
    seed      the workload's seed (default 1)
    outdir    keep the run directory there (report.json, stats.txt,
              config.ini, log.txt); default: a temporary one, removed
    progress  seconds between progress lines on stderr (default: none)
    options   any other `gpuvm sim` option: set={...}, oversub=125,
              migration='adaptive', kernel_sampling=True, threads=2, ...
    """
    if (workload is None) == (trace is None):
        raise ValueError("give workload= or trace=, not both (nor neither)")
    args = ["sim", "--gpu", gpu]
    args += ["--trace", trace] if trace is not None else ["--workload",
                                                           workload_spec(workload, params)]
    # seed=2.0 is the integer 2 (options_to_args converts it)
    args += options_to_args(dict(options, seed=seed), "sim")
    args += _progress_args(progress)
    tmp = None
    if outdir is None:
        tmp = tempfile.mkdtemp(prefix="gpuvm-py-")
        outdir = os.path.join(tmp, "run")
    try:
        text, _ = run_cli(args + ["--outdir", outdir], echo_stderr=bool(progress))
        run = load_run_dir(outdir)
        run.text = text or run.text
        if tmp:
            run.path = None
        return run
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def sweep(gpu, workload, *, vary=None, params=None, jobs=None, seed=None, csv=None,
          json=None, plot=None, progress=False, **options):
    """One `gpuvm sweep` -> Sweep (points in grid order).

    gpu       a preset or a list of presets (the outermost dimension)
    workload  the workload spec; params appends parameters to it
    vary      {KEY: [values] or 'LO..HI*F'} -> one --vary KEY=... each, in
              order (the last varies fastest); KEY is a config key,
              workload.PARAM or seed
    jobs      worker processes (-j); results do not depend on it
    csv, json, plot  also keep those files (the CLI's --csv/--json/--plot)
    progress  show the sweep's progress on stderr
    options   any other `gpuvm sweep` option: set={...}, x=..., logy=True, ...
    """
    gpus = ",".join(gpu) if isinstance(gpu, (list, tuple)) else gpu
    args = ["sweep", "--gpu", gpus, "--workload", workload_spec(workload, params)]
    for key, values in (vary or {}).items():
        v = values if isinstance(values, str) else ",".join(str(x) for x in values)
        args += ["--vary", f"{key}={v}"]
    if jobs is not None:
        args += ["-j", jobs]
    if seed is not None:
        args += options_to_args({"seed": seed}, "sweep")
    if plot:
        args += ["--plot", plot]
    args += options_to_args(options, "sweep")
    if not progress:
        args.append("--quiet")
    tmp = tempfile.mkdtemp(prefix="gpuvm-py-")
    try:
        csv_path = csv or os.path.join(tmp, "sweep.csv")
        json_path = json or os.path.join(tmp, "sweep.json")
        text, _ = run_cli(args + ["--csv", csv_path, "--json", json_path],
                          echo_stderr=bool(progress))
        import json as _json
        return Sweep(_json.loads(_read(json_path)), _read(csv_path), text,
                     path=csv if csv else None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def validate(*, manifest=None, gpu=None, plot=None, **options):
    """`gpuvm validate` -> Table whose ``rows`` has one row per measurement
    (name, preset, measured_us, simulated_us, ratio, error_percent, ...)."""
    args = ["validate"]
    if manifest:
        args += ["--manifest", manifest]
    if gpu:
        args += ["--gpu", gpu]
    if plot:
        args += ["--plot", plot]
    args += options_to_args(options, "validate")
    tmp = tempfile.mkdtemp(prefix="gpuvm-py-")
    try:
        path = os.path.join(tmp, "validate.json")
        text, _ = run_cli(args + ["--json", path])
        import json as _json
        return Table(_json.loads(_read(path)), text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def calibrate(*args, **options):
    """`gpuvm calibrate` -> Table (rows of its JSON output when it has
    --json, else the text it printed). Positional arguments are passed as
    they are, keyword options as --options. Raises GpuvmError if this
    binary has no calibrate command."""
    if not has_command("calibrate"):
        raise GpuvmError(["gpuvm", "calibrate"], 2,
                         "this gpuvm binary has no 'calibrate' command")
    help_text = run_cli(["calibrate", "--help"])[0]
    argv = ["calibrate"] + [str(a) for a in args] + options_to_args(options, "calibrate")
    if "--json" in help_text and "json" not in options:
        tmp = tempfile.mkdtemp(prefix="gpuvm-py-")
        try:
            path = os.path.join(tmp, "calibrate.json")
            text, _ = run_cli(argv + ["--json", path])
            import json as _json
            return Table(_json.loads(_read(path)), text)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    text, _ = run_cli(argv)
    return Table([{"line": ln} for ln in text.splitlines()], text)
