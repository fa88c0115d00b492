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

__all__ = ["GpuvmError", "find_binary", "run_cli", "options_to_args", "option_table",
           "has_command"]


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
    if isinstance(v, bytes):
        return os.fsdecode(v)
    return str(v)


_tables = {}


def option_table(command, binary=None):
    """The CLI's own option table of `command` ("sim", "sweep merge"), as
    `gpuvm --list-options COMMAND` prints it: {name: (short, kind)}, kind
    "flag", "value" or "optional". {} for a binary without the listing."""
    key = (binary or find_binary(), command)
    if key not in _tables:
        table = {}
        try:
            out, _ = run_cli(["--list-options"] + command.split(), binary=binary)
        except GpuvmError:
            out = ""
        for line in out.splitlines():
            f = line.split("\t")
            if len(f) >= 4 and f[0] == "option":
                table[f[1]] = (None if f[2] == "-" else f[2], f[3])
        _tables[key] = table
    return _tables[key]


def _one(opt, kind, v, args):
    """One option and value as the CLI reads them: always attached
    (--name=VALUE, -jVALUE), so an optional value (--kernel-sampling=0.5)
    is never taken for a separate argument, nor a value starting with '-'
    for an option."""
    if kind == "flag":
        if v is not True:
            raise GpuvmError([opt], 2, f"{opt} is a flag: give True or leave it out, not {v!r}")
        args.append(opt)
    elif v is True and kind == "optional":
        args.append(opt)
    else:
        args.append(f"{opt}={_value(v)}" if opt.startswith("--") else opt + _value(v))


def options_to_args(options, command=None, binary=None):
    """Keyword arguments -> command-line options, in order, converted by
    the option table of `command` when given (option_table):

    name_with_underscores=VALUE -> --name-with-underscores=VALUE
    flag=True -> --flag ; flag=False or None -> left out; a flag given
      another value, or a name the command does not have, raises GpuvmError
    a list or tuple -> the option repeated, once per element
    a dict -> the option repeated with KEY=VALUE (set={'tlb.l2.entries': 128})
    a single letter (j=2) -> -j2
    Floats that are whole numbers go as integers (seed=2.0 -> --seed=2).
    """
    table = option_table(command, binary) if command else {}
    args = []
    for key, v in options.items():
        if v is None or v is False:
            continue
        name = key.replace("_", "-")
        short = len(key) == 1
        if table and not short and name not in table:
            raise GpuvmError(["gpuvm", command], 2,
                             f"gpuvm {command}: no option --{name} (the table has: "
                             f"{', '.join(sorted(table))})")
        kind = table.get(name, (None, None))[1] if table else None
        if kind is None:
            kind = "flag" if v is True else "value"
        opt = ("-" + key) if short else "--" + name
        if isinstance(v, dict):
            for k2, v2 in v.items():
                _one(opt, "value", f"{k2}={_value(v2)}", args)
        elif isinstance(v, (list, tuple)):
            for x in v:
                _one(opt, "value", x, args)
        else:
            _one(opt, kind, v, args)
    return args


def run_cli(args, binary=None, echo_stderr=False, cwd=None):
    """Runs `gpuvm ARGS...`; returns (stdout, stderr) as text (bytes that are
    not UTF-8 become U+FFFD). stderr is also copied to sys.stderr as it
    comes when echo_stderr (progress lines). Raises GpuvmError on a
    non-zero exit and on anything that keeps the binary from running (an
    argument with a NUL byte, a binary that cannot be executed): never
    UnicodeDecodeError or OSError."""
    argv = [binary or find_binary()] + [_value(a) if isinstance(a, bytes) else str(a)
                                        for a in args]
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, encoding="utf-8",
                                errors="replace", cwd=cwd)
    except (OSError, ValueError) as e:
        raise GpuvmError(argv, 2, f"gpuvm could not be run: {e}") from e
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
