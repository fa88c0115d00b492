"""Results of gpuvm runs as pandas DataFrames, and loaders for the files
gpuvm writes (JSON reports, CSVs, run directories).

pandas is imported when a DataFrame is first asked for, so ``import gpuvm``
and the runs themselves work without it.
"""

import io
import json
import os

__all__ = ["Run", "Sweep", "Table", "load", "load_json", "load_csv", "load_run_dir"]


def _pd():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the host
        raise ImportError(
            "gpuvm's DataFrames need pandas (Debian: apt-get install python3-pandas; "
            "scripts/install-deps.sh installs it)") from e
    return pandas


def _flat(obj, prefix="", out=None, skip=()):
    """Scalars of a nested dict as one flat dict, keys joined with '.'
    (stall_cycles.memory); lists are left out (they have their own tables)."""
    out = {} if out is None else out
    for k, v in obj.items():
        if k in skip:
            continue
        name = prefix + k
        if isinstance(v, dict):
            _flat(v, name + ".", out)
        elif not isinstance(v, list):
            out[name] = v
    return out


# Per-level arrays (one value per TLB instance) stay in the JSON.
_TLB_ARRAYS = ("instance_hits", "instance_misses")


class Run:
    """One simulation: ``json`` (the full report, a dict), ``text`` (the
    text report), and DataFrames:

    - ``runs``: one row, every scalar of the report (nested keys joined with
      '.', e.g. ``stall_cycles.memory``; the config is in ``config``);
    - ``kernels``: one row per kernel launch (column ``index`` = launch order);
    - ``tlb``: one row per TLB level (per-instance arrays left out);
    - ``allocations``: one row per allocation (from the long-form statistics;
      empty when the run had none recorded, e.g. with kernel sampling);
    - ``stats``: the long form itself (gpu, workload, seed, scope, index,
      name, kind, metric, value, unit), as `gpuvm sim --stats-csv` writes it.
    """

    def __init__(self, report, stats_csv=None, text="", path=None):
        self.json = report
        self.text = text
        self.path = path
        self._stats_csv = stats_csv

    def __repr__(self):
        r = self.json
        return (f"<gpuvm.Run {r.get('gpu')} {r.get('workload')} seed={r.get('seed')}: "
                f"{r.get('sim_seconds', 0):.4g} simulated s, "
                f"{len(r.get('kernels', []))} launches>")

    def __getitem__(self, key):
        return self.json[key]

    @property
    def config(self):
        return self.json.get("config", {})

    @property
    def runs(self):
        return _pd().DataFrame([_flat(self.json, skip=("config",))])

    @property
    def kernels(self):
        pd = _pd()
        rows = []
        for i, k in enumerate(self.json.get("kernels", [])):
            row = {"index": i}
            row.update(_flat(k))
            for dim in ("grid", "block"):
                if isinstance(k.get(dim), list):
                    for axis, v in zip("xyz", k[dim]):
                        row[f"{dim}_{axis}"] = v
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def tlb(self):
        rows = [{k: v for k, v in lv.items() if k not in _TLB_ARRAYS}
                for lv in self.json.get("tlb", [])]
        return _pd().DataFrame(rows)

    @property
    def stats(self):
        pd = _pd()
        if not self._stats_csv:
            return pd.DataFrame(columns=["gpu", "workload", "seed", "scope", "index", "name",
                                         "kind", "metric", "value", "unit"])
        return pd.read_csv(io.StringIO(self._stats_csv))

    @property
    def allocations(self):
        pd = _pd()
        st = self.stats
        a = st[st["scope"] == "alloc"]
        if a.empty:
            return pd.DataFrame(columns=["index", "name", "kind"])
        wide = a.pivot_table(index=["index", "name", "kind"], columns="metric",
                             values="value", aggfunc="first").reset_index()
        wide.columns.name = None
        wide["index"] = wide["index"].astype(int)
        return wide


class Sweep:
    """A grid of runs: ``points`` (a Run per point, in grid order),
    ``json`` (the list of reports) and DataFrames:

    - ``runs``: one row per point, the columns of `gpuvm sweep --csv`
      (the varied keys first, then the metrics);
    - ``kernels`` / ``tlb``: every point's table, with columns ``point``
      (grid order), gpu, workload and seed in front.
    """

    def __init__(self, reports, csv_text=None, text="", path=None):
        self.json = reports
        self.text = text
        self.path = path
        self._csv = csv_text
        self.points = [Run(r) for r in reports]

    def __repr__(self):
        return f"<gpuvm.Sweep {len(self.points)} points>"

    def __len__(self):
        return len(self.points)

    @property
    def runs(self):
        pd = _pd()
        if self._csv is not None:
            return pd.read_csv(io.StringIO(self._csv))
        return pd.concat([p.runs for p in self.points], ignore_index=True)

    def _stack(self, attr):
        pd = _pd()
        frames = []
        for i, p in enumerate(self.points):
            df = getattr(p, attr)
            df.insert(0, "seed", p.json.get("seed"))
            df.insert(0, "workload", p.json.get("workload"))
            df.insert(0, "gpu", p.json.get("gpu"))
            df.insert(0, "point", i)
            frames.append(df)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    @property
    def kernels(self):
        return self._stack("kernels")

    @property
    def tlb(self):
        return self._stack("tlb")


class Table:
    """Rows of a command that reports a list of records (validate,
    calibrate): ``json`` (the records or object as written), ``text`` (what
    it printed) and ``rows`` (a DataFrame)."""

    def __init__(self, records, text="", path=None):
        self.json = records
        self.text = text
        self.path = path

    def __repr__(self):
        n = len(self.json) if isinstance(self.json, list) else 1
        return f"<gpuvm.Table {n} rows>"

    @property
    def rows(self):
        pd = _pd()
        j = self.json
        if isinstance(j, list):
            return pd.DataFrame([_flat(r) if isinstance(r, dict) else {"value": r} for r in j])
        if isinstance(j, dict):
            # an object holding one list of records (e.g. {"rows": [...]})
            lists = [v for v in j.values() if isinstance(v, list) and v and
                     all(isinstance(x, dict) for x in v)]
            if len(lists) == 1:
                return pd.DataFrame([_flat(r) for r in lists[0]])
            return pd.DataFrame([_flat(j)])
        return pd.DataFrame()


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def load_run_dir(path):
    """A run directory (`gpuvm sim --outdir DIR`, or gpuvm-out/) as a Run."""
    report = json.loads(_read(os.path.join(path, "report.json")))
    stats = os.path.join(path, "stats.txt")
    log = os.path.join(path, "log.txt")
    return Run(report, _read(stats) if os.path.exists(stats) else None,
               _read(log) if os.path.exists(log) else "", path=path)


def load_json(path):
    """A JSON file gpuvm wrote: a sim report (-> Run), a sweep's list of
    reports (-> Sweep), or other records (validate, calibrate -> Table)."""
    j = json.loads(_read(path))
    if isinstance(j, dict) and "kernels" in j and "config" in j:
        return Run(j, path=path)
    if isinstance(j, list) and j and all(isinstance(r, dict) and "config" in r and "kernels" in r
                                         for r in j):
        return Sweep(j, path=path)
    return Table(j, path=path)


def load_csv(path):
    """A CSV gpuvm wrote (--stats-csv's long form, a sweep's --csv, validate
    --csv, a page map) as a DataFrame; a sweep's CSV with '|' separators
    (--csv-sep) is read too."""
    pd = _pd()
    with open(path, encoding="utf-8") as f:
        head = f.readline()
    return pd.read_csv(path, sep="|" if "|" in head and "," not in head else ",")


def load(path):
    """Anything gpuvm wrote: a run directory, a .json or a .csv/.txt file."""
    if os.path.isdir(path):
        return load_run_dir(path)
    if path.endswith(".json"):
        return load_json(path)
    return load_csv(path)
