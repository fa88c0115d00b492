"""Finding and running the gpuvm binary.

Everything the package computes comes from the binary: this module turns
keyword arguments into command-line options and runs it. Nothing here
models a GPU.
"""

import os
import shutil
import subprocess
import sys
import threading

__all__ = ["GpuvmError", "find_binary", "run_cli", "options_to_args", "has_command"]


class GpuvmError(RuntimeError):
    """The gpuvm binary failed: ``returncode`` (2 = bad input, 1 = run or
    output failure) and its ``stderr``, whose message names the option,
    file or line at fault."""

    def __init__(self, argv, returncode, stderr):
        self.argv = list(argv)
        self.returncode = returncode
        self.stderr = stderr
        msg = stderr.strip().splitlines()
        # the last lines carry the message; progress lines come before
        tail = "\n".join(msg[-5:]) if msg else "(no message)"
        super().__init__(f"gpuvm exited with {returncode}: {tail}")


def _repo_binary():
    # used in place: python/gpuvm/_cli.py, the repository is above python/;
    # installed with pip: setup.py recorded the repository it came from
    try:
        from ._built_from import REPOSITORY as root
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(os.path.dirname(here))
    return os.path.join(root, "build", "gpuvm")


def find_binary():
    """The gpuvm executable: $GPUVM_BIN, else the repository's build/gpuvm
    (the package's own repository: used in place with PYTHONPATH=python, or
    the one `pip install ./python` installed it from), else `gpuvm` on
    PATH. Raises FileNotFoundError saying where it looked."""
    env = os.environ.get("GPUVM_BIN")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise FileNotFoundError(f"GPUVM_BIN={env!r} is not an executable file")
    repo = _repo_binary()
    if os.path.isfile(repo) and os.access(repo, os.X_OK):
        return repo
    on_path = shutil.which("gpuvm")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "gpuvm binary not found: set GPUVM_BIN, build the repository "
        f"(cmake -S . -B build && cmake --build build, giving {repo}), "
        "or put gpuvm on PATH")


def _value(v):
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def options_to_args(options):
    """Keyword arguments -> command-line options, in order.

    name_with_underscores=VALUE -> --name-with-underscores VALUE
    flag=True -> --flag ; flag=False or None -> left out
    a list or tuple -> the option repeated, once per element
    a dict -> the option repeated with KEY=VALUE (set={'tlb.l2.entries': 128})
    a single letter (j=2) -> -j 2
    """
    args = []
    for key, v in options.items():
        if v is None or v is False:
            continue
        opt = ("-" + key) if len(key) == 1 else "--" + key.replace("_", "-")
        if v is True:
            args.append(opt)
        elif isinstance(v, dict):
            for k2, v2 in v.items():
                args += [opt, f"{k2}={_value(v2)}"]
        elif isinstance(v, (list, tuple)):
            for x in v:
                args += [opt, _value(x)]
        else:
            args += [opt, _value(v)]
    return args


def run_cli(args, binary=None, echo_stderr=False, cwd=None):
    """Runs `gpuvm ARGS...`; returns (stdout, stderr) as text. stderr is
    also copied to sys.stderr as it comes when echo_stderr (progress lines).
    Raises GpuvmError on a non-zero exit."""
    argv = [binary or find_binary()] + [str(a) for a in args]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, cwd=cwd)
    out_parts, err_parts = [], []

    def pump_out():
        out_parts.append(proc.stdout.read())

    t = threading.Thread(target=pump_out, daemon=True)
    t.start()
    for line in proc.stderr:
        err_parts.append(line)
        if echo_stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
    proc.wait()
    t.join()
    out, err = "".join(out_parts), "".join(err_parts)
    if proc.returncode != 0:
        raise GpuvmError(argv, proc.returncode, err)
    return out, err


def has_command(name, binary=None):
    """Does this gpuvm binary know the subcommand `name`?"""
    try:
        run_cli([name, "--help"], binary=binary)
        return True
    except GpuvmError:
        return False
