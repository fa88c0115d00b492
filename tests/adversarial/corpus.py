#!/usr/bin/env python3
"""Adversarial corpus (issue 35): generates several hundred bad inputs -
presets, --set, workload parameters, CLI, Accel-Sim, mem_trace, native
traces, graphs, sweeps - runs each through gpuvm and checks that:

  0 crashes         no signal, no sanitizer report (ASan/UBSan print to stderr)
  0 hangs           each case finishes within 60 s
  0 partial outputs no output file is left when the exit status is not 0
  0 nonsense        every case is invalid: the exit status must be 2
  every message     names the file (and line) or the option at fault

usage: corpus.py GPUVM [--jobs N] [--only CATEGORY] [--list]
Exit 0 when every case passes; the failures are listed otherwise.
Deterministic: the random mutations use a fixed seed.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SMALL = "random-sampling:threads=256,reads=4"
SAN = re.compile(r"AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|LeakSanitizer")

ACCEL_BODY = """-kernel name = vec
-kernel id = 1
-grid dim = (1,1,1)
-block dim = (32,1,1)
-shmem = 0
-nregs = 12
-binary version = 80
-cuda stream id = 0
-shmem base_addr = 0x00007fb139000000
-local mem base_addr = 0x00007fb137000000
-nvbit version = 1.7
-accelsim tracer version = 5
-enable lineinfo = 0

#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = 3
0000 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0 
0010 ffffffff 0 STG.E 2 R6 R9 4 1 0x7fb0fc461c00 4 0 
0020 ffffffff 0 EXIT 0 0 0 

#END_TB
"""
ACCEL_LIST = "MemcpyHtoD,0x00007fb0fc430e00,128\nkernel-1.traceg\n"


def memtrace_text():
    lanes = " ".join("0x%016x" % (0x7F0000100000 + 8 * i) for i in range(32))
    return (
        "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x1 - Kernel name k - grid launch id 0 - "
        "grid size 1,1,1 - block size 32,1,1 - nregs 16 - shmem 0 - cuda stream id 0\n"
        "MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E.64 - %s\n" % lanes
    )


def accel_fields_end(line):
    """Offset just past an Accel-Sim instruction line's mem_width field
    (pc mask dest_num dests... opcode src_num srcs... mem_width)."""
    toks = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line)]
    try:
        k = 2
        k += 1 + int(toks[k][2])  # dest_num and its registers
        k += 1                    # the opcode
        k += 1 + int(toks[k][2])  # src_num and its registers
        return toks[k][1]         # mem_width
    except (IndexError, ValueError):
        return len(line)


class Case:
    def __init__(self, cat, name, argv, where, out=None):
        self.cat, self.name, self.argv, self.where, self.out = cat, name, argv, where, out


def parse_preset(path):
    keys, sec = [], ""
    for line in open(path):
        line = line.split(";")[0].split("#")[0].strip()
        if line.startswith("["):
            sec = line.strip("[]").strip()
        elif "=" in line and sec:
            k, v = (s.strip() for s in line.split("=", 1))
            keys.append((sec, k, v))
    return keys



def range_number(text):
    """A bound as `gpuvm workloads` prints it: 1000, 2^40, 0B, 512TiB, 16MiB."""
    text = text.strip()
    if "^" in text:
        base, exp = text.split("^", 1)
        return float(int(base) ** int(exp))
    units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix) and text[: -len(suffix)].replace(".", "", 1).isdigit():
            return float(text[: -len(suffix)]) * units[suffix]
    return float(text)

def parse_workloads(gpuvm):
    out = subprocess.run([gpuvm, "workloads"], capture_output=True, text=True).stdout
    wl, cur = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            cur = line.strip()
            wl[cur] = []
            continue
        m = re.match(r"^    (\S+)\s+\[([^\]]*)\]\s*(\{([^}]*)\})?", line)
        if m and cur:
            wl[cur].append((m.group(1), m.group(2), m.group(4)))
    return wl


NUMERIC = re.compile(r"^-?[0-9.]+([KMGT]iB)?$")


def generate(gpuvm, src, work):
    rnd = random.Random(35)
    cases = []
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)

    def add(cat, name, argv, where, with_json=True):
        o = None
        if with_json:
            o = os.path.join(out, "c%04d.json" % len(cases))
            argv = argv + ["--json", o]
        cases.append(Case(cat, name, argv, where, o))

    sim = [gpuvm, "sim", "--gpu", "p100"]
    # --- --set and preset files: bad values for every key of p100 -------------
    keys = parse_preset(os.path.join(src, "presets", "p100.ini"))
    for i, (sec, k, v) in enumerate(keys):
        full = "%s.%s" % (sec, k) if sec != "gpu" or True else k
        if sec == "gpu" and k == "description":
            continue
        if NUMERIC.match(v):
            bads = ["abc", "1e400", "nan", "12abc", "-3"]
        elif " " in v and all(NUMERIC.match(t) for t in v.split()):
            bads = ["x y", "-1 -2"]
        elif v == "":
            bads = ["bogus_value_zz"]
        else:
            bads = ["bogus_value_zz", "1"]
        for b in rnd.sample(bads, min(2, len(bads))):
            add("set", "--set %s=%s" % (full, b), sim + ["--workload", SMALL, "--set", "%s=%s" % (full, b)],
                [full])
        if i % 3 == 0:
            p = os.path.join(work, "preset_%03d.ini" % i)
            with open(p, "w") as f:
                f.write("base = p100\n[%s]\n%s = %s\n" % (sec, k, bads[0]))
            add("preset", "preset %s = %s" % (full, bads[0]), [gpuvm, "sim", "--gpu", p, "--workload", SMALL],
                [os.path.basename(p) + ":3"])
    # structural preset damage
    structural = {
        "unknown key": "base = p100\n[tlb.l1]\nentriez = 3\n",
        "unknown section": "base = p100\n[tlb.l9]\nentries = 3\n",
        "empty section": "base = p100\n[]\n",
        "bogus empty section": "base = p100\n[bogus]\n",
        "key twice": "base = p100\n[tlb.l1]\nentries = 8\nentries = 16\n",
        "base late": "[tlb.l1]\nentries = 8\nbase = p100\n",
        "base unknown": "base = nosuchgpu\n",
        "syntax": "base = p100\n[tlb.l1\n",
        "junk line": "base = p100\njunk junk\n",
        "nul byte": "base = p100\n[gpu]\nsms = 5\0\n",
        "long line": "base = p100\n[gpu]\ndescription = " + "x" * 70000 + "\n",
        "missing keys": "[gpu]\nsms = 5\n",
        "binary": "".join(chr(rnd.randrange(1, 256)) for _ in range(300)),
    }
    for n, text in structural.items():
        p = os.path.join(work, "struct_%s.ini" % n.replace(" ", "_"))
        with open(p, "w", encoding="latin-1") as f:
            f.write(text)
        add("preset", "preset: " + n, [gpuvm, "sim", "--gpu", p, "--workload", SMALL], [os.path.basename(p)])
    # --- workload parameters ---------------------------------------------------
    wl = parse_workloads(gpuvm)
    for w, params in sorted(wl.items()):
        for key, dflt, rng in params:
            if rng:
                # "lo..hi[, multiple of N | , power of two]"
                span, _, rule = rng.partition(", ")
                lo, hi = (range_number(x) for x in span.split(".."))
                bads = ["abc", "1e400", "%d" % (int(hi) * 2 + 1)]
                if lo > 0:
                    bads.append("%d" % (int(lo) - 1))
                else:
                    bads.append("-1")
                if rule.startswith("multiple of ") and lo + 1 <= hi:
                    bads.append("%d" % (int(lo) + 1))
                elif rule == "power of two" and 2 * lo - 1 > lo and 2 * lo - 1 <= hi:
                    bads.append("%d" % (2 * int(lo) - 1))
            elif "|" in dflt:
                bads = ["bogus_choice"]
            else:
                continue
            for b in rnd.sample(bads, min(2, len(bads))):
                add("workload", "%s:%s=%s" % (w, key, b), sim + ["--workload", "%s:%s=%s" % (w, key, b)],
                    ["--workload", key])
        add("workload", "%s: unknown parameter" % w, sim + ["--workload", "%s:nosuchparam=1" % w],
            ["--workload", "nosuchparam"])
    for spec in ["nosuchworkload", "random-sampling:reads", "random-sampling:=4",
                 "random-sampling:reads=4,reads=5", "random-sampling:reads=4,,threads=3",
                 "bfs:graph=/nonexistent.mtx", "bfs:graph=rmat-99"]:
        add("workload", "spec " + spec, sim + ["--workload", spec], ["--workload", "nonexistent", "rmat", "reads",
                                                                    "nosuchworkload", "random-sampling"])
    # --- CLI ---------------------------------------------------------------------
    cli = [
        (["--workload", SMALL], "--gpu"),
        (["--gpu", "nosuchgpu", "--workload", SMALL], "nosuchgpu"),
        (["--gpu", "p100", "--workload", SMALL, "--seed", "-1"], "--seed"),
        (["--gpu", "p100", "--workload", SMALL, "--seed", "abc"], "--seed"),
        (["--gpu", "p100", "--workload", SMALL, "--threads", "0"], "--threads"),
        (["--gpu", "p100", "--workload", SMALL, "--threads", "65"], "--threads"),
        (["--gpu", "p100", "--workload", SMALL, "--threads", "1e3"], "--threads"),
        (["--gpu", "p100", "--workload", SMALL, "--oversub", "0"], "--oversub"),
        (["--gpu", "p100", "--workload", SMALL, "--oversub", "1e-300"], "--oversub"),
        (["--gpu", "p100", "--workload", SMALL, "--oversub", "1001"], "--oversub"),
        (["--gpu", "p100", "--workload", SMALL, "--oversub", "125"], "--oversub"),
        (["--gpu", "p100", "--workload", SMALL, "--migration", "nosuch"], "uvm.migration"),
        (["--gpu", "p100", "--workload", SMALL, "--scope", "abc"], "--scope"),
        (["--gpu", "p100", "--workload", SMALL, "--kernel-sampling=2"], "--kernel-sampling"),
        (["--gpu", "p100", "--workload", SMALL, "--kernel-sampling=0"], "--kernel-sampling"),
        (["--gpu", "p100", "--workload", SMALL, "--page-map-page", "3"], "--page-map-page"),
        (["--gpu", "p100", "--workload", SMALL, "--page-map-colour", "red"], "--page-map-colour"),
        (["--gpu", "p100", "--workload", SMALL, "--page-map", "/"], "--page-map"),
        (["--gpu", "p100", "--workload", SMALL, "--page-map", ""], "--page-map"),
        (["--gpu", "p100", "--workload", SMALL, "--pcie-plot", "x.bmp"], "--pcie-plot"),
        (["--gpu", "p100", "--workload", SMALL, "--stats-csv", "/nonexistent/dir/x.csv"], "--stats-csv"),
        (["--gpu", "p100", "--workload", SMALL, "--bogus-option"], "bogus-option"),
        (["--gpu", "p100", "--workload", SMALL, "extra-arg"], "extra-arg"),
        (["--gpu", "p100", "--workload", SMALL, "--trace", "x.gvt"], "--trace"),
        (["--gpu", "p100", "--trace-format", "native", "--workload", SMALL], "--trace"),
        (["--gpu", "p100", "--workload", SMALL, "--set", "noequals"], "noequals"),
        (["--gpu", "p100", "--workload", SMALL, "--set", "tlb.l1.entries=8", "--set", "tlb.l1.entries=9"], "--set"),
        (["--gpu", "p100", "--workload", SMALL, "--max-host-memory", "1KiB"], "--max-host-memory"),
        (["--gpu", "p100", "--workload", SMALL, "--max-host-memory", "abc"], "--max-host-memory"),
        (["--gpu", "--workload", SMALL], "--gpu"),
        (["--gpu", "p100", "--workload", "--quiet"], "--workload"),
    ]
    for argv, where in cli:
        add("cli", "sim " + " ".join(argv), [gpuvm, "sim"] + argv, [where])
    for n, (argv, where) in enumerate([
            (["--gpu", "p100", "--workload", SMALL, "--json", "%s/dup.json" % out, "--stats-csv", "%s/./dup.json" % out], "--stats-csv"),
            (["--gpu", "p100", "--workload", SMALL, "--json", "--quiet"], "--json")]):
        add("cli", "outputs %d" % n, [gpuvm, "sim"] + argv, [where], with_json=False)
    # --- Accel-Sim -----------------------------------------------------------------
    body = ACCEL_BODY.splitlines()
    muts = []
    for i, line in enumerate(body):
        if not line.strip():
            continue
        muts.append(("line %d garbage" % (i + 1), body[:i] + ["@@garbage@@ 1 2 3"] + body[i + 1:]))
        nums = list(re.finditer(r"\d+", line))
        # header fields the replay does not use (ids, registers, versions,
        # stream): any number is taken as it stands
        if re.match(r"-(kernel id|nregs|binary version|cuda stream id|nvbit version)", line):
            nums = []
        # instruction lines: the fields the reader checks are the standalone
        # numbers before the address (pc, dest_num, src_num, mem_width,
        # address mode); register names out of the scoreboard's range are read
        # as no dependency (as RZ), a stride is signed, and what follows it is
        # not used: leniency by design, not nonsense accepted
        if re.match(r"[0-9a-f]{4} [0-9a-f]{8} ", line):
            addr = line.find("0x")
            if addr < 0:
                # no address: the fields end at mem_width (0 here); what
                # follows it is not read (EXIT's trailing 0)
                addr = accel_fields_end(line)
            nums = [m for m in nums
                    if m.start() < addr
                    and (m.start() == 0 or line[m.start() - 1] == " ")
                    and (m.end() == len(line) or line[m.end()] == " ")]
        if nums:
            m = nums[rnd.randrange(len(nums))]
            for rep in ("99999999999999999999", "-7"):
                l2 = line[:m.start()] + rep + line[m.end():]
                muts.append(("line %d number %s" % (i + 1, rep), body[:i] + [l2] + body[i + 1:]))
    for k in (5, 15, 22):
        muts.append(("truncated at line %d" % k, body[:k]))
    for n, (what, lines) in enumerate(muts):
        d = os.path.join(work, "accel_%03d" % n)
        os.makedirs(d)
        with open(os.path.join(d, "kernelslist.g"), "w") as f:
            f.write(ACCEL_LIST)
        with open(os.path.join(d, "kernel-1.traceg"), "w") as f:
            f.write("\n".join(lines) + "\n")
        cases.append(Case("accelsim", "accelsim " + what, None, None))
        cases[-1].argv, cases[-1].where, cases[-1].dir = sim + ["--trace", d], ["kernel-1.traceg"], d
        cases[-1].out = os.path.join(out, "c%04d.json" % len(cases))
        cases[-1].argv += ["--json", cases[-1].out]
    for n, lst in enumerate(["Memcpy,1,2\nkernel-1.traceg\n", "MemcpyHtoD,0xzz,128\nkernel-1.traceg\n",
                             "MemcpyHtoD,0x10,99999999999999999999\nkernel-1.traceg\n",
                             "kernel-2.traceg\n", "NotACommand\n", ""]):
        d = os.path.join(work, "accel_list_%d" % n)
        os.makedirs(d)
        with open(os.path.join(d, "kernelslist.g"), "w") as f:
            f.write(lst)
        with open(os.path.join(d, "kernel-1.traceg"), "w") as f:
            f.write(ACCEL_BODY)
        add("accelsim", "kernelslist %d" % n, sim + ["--trace", d], ["kernelslist.g", "kernel-2.traceg"])
    # --- mem_trace --------------------------------------------------------------------
    good = memtrace_text().splitlines()
    mt = [
        ("bad hex", [good[0], good[1].replace("0x00007f0000100008", "0x00007f00001000zz")]),
        ("truncated lanes", [good[0], good[1][:400]]),
        ("garbage MEMTRACE", [good[0], "MEMTRACE: garbage", good[1]]),
        ("access before launch", [good[1], good[0]]),
        ("bad grid", [good[0].replace("grid size 1,1,1", "grid size 0,1,1"), good[1]]),
        ("bad block", [good[0].replace("block size 32,1,1", "block size 99999,1,1"), good[1]]),
        ("no launch", ["hello"]),
        ("bad cta", [good[0], good[1].replace("CTA 0,0,0", "CTA 5,0,0")]),
        ("bad warp", [good[0], good[1].replace("warp 0", "warp 99999")]),
    ]
    for n, (what, lines) in enumerate(mt):
        p = os.path.join(work, "mt_%02d.txt" % n)
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        add("memtrace", "mem_trace " + what, sim + ["--trace", p, "--trace-format", "memtrace"], [os.path.basename(p)])
    # --- native ------------------------------------------------------------------------
    gvt = os.path.join(work, "small.gvt")
    subprocess.run([gpuvm, "trace", "record", "stream-triad:elems=64,threads=64", "-o", gvt, "-q"], check=True)
    data = open(gvt, "rb").read()
    for n in range(40):
        d = bytearray(data)
        if n < 12:
            d = d[: rnd.randrange(1, len(d))]
            what = "truncated to %d bytes" % len(d)
        else:
            pos = rnd.randrange(len(d))
            d[pos] ^= 1 << rnd.randrange(8)
            what = "bit flip at byte %d" % pos
        p = os.path.join(work, "nat_%02d.gvt" % n)
        open(p, "wb").write(bytes(d))
        add("native", "native " + what, sim + ["--trace", p], [os.path.basename(p) + ": byte"])
        add("native", "native info " + what, [gpuvm, "trace", "info", p], [os.path.basename(p) + ": byte"])
    # --- graphs ---------------------------------------------------------------------------
    graphs = {
        "neg_weight.mtx": "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 -5\n",
        "huge.mtx": "%%MatrixMarket matrix coordinate pattern general\n4000000000 4000000000 1\n1 2\n",
        "nonsquare.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n",
        "oob.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 9\n",
        "more.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n",
        "nobanner.mtx": "3 3 1\n1 2\n",
        "badbanner.mtx": "%%MatrixMarket matrix array real general\n3 3 1\n1 2\n",
        "junk.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 junk\n",
        "zero.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 2\n",
        "empty.mtx": "",
        "noproblem.gr": "a 1 2 3\n",
        "twoproblem.gr": "p sp 3 1\np sp 3 1\na 1 2 3\n",
        "oob.gr": "p sp 3 1\na 1 9 3\n",
        "bigweight.gr": "p sp 3 1\na 1 2 99999999999\n",
        "huge.gr": "p sp 4000000000 1\na 1 2 1\n",
        "cols.txt": "1 2\n2 3 4\n",
        "neg.txt": "1 -2\n",
        "junk.txt": "1 x\n",
        "bigw.txt": "1 2 99999999999\n",
    }
    for name, text in graphs.items():
        p = os.path.join(work, name)
        with open(p, "w") as f:
            f.write(text)
        add("graph", "graph info " + name, [gpuvm, "graph", "info", p], [name])
        add("graph", "bfs:graph=" + name, sim + ["--workload", "bfs:graph=" + p], [name])
    for g in ["rmat:scale=0", "rmat:scale=40", "rmat:scale=10,a=0.9,b=0.9", "rmat:bogus=1", "rmat:scale=30"]:
        add("graph", "graph info " + g, [gpuvm, "graph", "info", g], ["rmat", "scale", "bogus"])
    # --- sweeps ------------------------------------------------------------------------------
    sw = [gpuvm, "sweep"]
    for argv, where in [
            (["--gpu", "p100,", "--workload", SMALL], "--gpu"),
            (["--gpu", ",p100", "--workload", SMALL], "--gpu"),
            (["--gpu", "p100,,k80", "--workload", SMALL], "--gpu"),
            (["--gpu", "nosuchgpu", "--workload", SMALL], "nosuchgpu"),
            (["--gpu", "p100", "--workload", SMALL, "--vary", "tlb.l1.entries="], "--vary"),
            (["--gpu", "p100", "--workload", SMALL, "--vary", "tlb.l1.entries=1,,2"], "--vary"),
            (["--gpu", "p100", "--workload", SMALL, "--vary", "tlb.l1.entries=abc"], "tlb.l1.entries"),
            (["--gpu", "p100", "--workload", SMALL, "--vary", "reads=0"], "reads"),
            (["--gpu", "p100", "--workload", SMALL, "--vary", "nosuchkey=1,2"], "nosuchkey"),
            (["--gpu", "p100", "--workload", SMALL, "-j", "-1"], "-j"),
            (["--gpu", "p100", "--workload", SMALL, "--vary", "seed=1..1000000000"], "--vary")]:
        o = os.path.join(out, "c%04d.csv" % len(cases))
        cases.append(Case("sweep", "sweep " + " ".join(argv), sw + argv + ["--csv", o, "-q"], [where], o))
    return cases


def sanitized(binary):
    """True for a binary built with AddressSanitizer (make check's first
    pass, clang or gcc): it reserves terabytes of shadow at
    start-up, which an address-space limit forbids."""
    try:
        with open(binary, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


SANITIZED = False


def limit_memory():
    # 8 GiB of address space: a missing host-memory check fails fast
    # instead of eating the machine (sanitizer builds reserve terabytes of
    # shadow and set GPUVM_ADVERSARIAL_NO_ULIMIT)
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


def run_case(c, timeout):
    t0 = time.time()
    pre = None if os.environ.get("GPUVM_ADVERSARIAL_NO_ULIMIT") or SANITIZED else limit_memory
    try:
        r = subprocess.run(c.argv, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, preexec_fn=pre)
    except subprocess.TimeoutExpired:
        return c, "hang (over %d s)" % timeout, ""
    err = r.stderr.decode("utf-8", "replace")
    dt = time.time() - t0
    if r.returncode < 0 or r.returncode >= 128:
        return c, "crash (status %d)" % r.returncode, err
    if SAN.search(err):
        return c, "sanitizer report", err
    if r.returncode == 0:
        return c, "nonsense accepted (exit 0)", err
    if r.returncode != 2:
        return c, "exit %d, wanted 2" % r.returncode, err
    if c.out and os.path.exists(c.out):
        return c, "partial output left: " + c.out, err
    if not any(w in err for w in c.where):
        return c, "message names none of %s" % c.where, err
    return c, None, "%.1fs" % dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpuvm")
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--only")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    gpuvm = os.path.abspath(a.gpuvm)
    global SANITIZED
    SANITIZED = sanitized(gpuvm)
    work = tempfile.mkdtemp(prefix="gpuvm-adversarial-")
    try:
        os.chdir(work)
        cases = generate(gpuvm, os.path.abspath(a.src), work)
        if a.only:
            cases = [c for c in cases if c.cat == a.only]
        if a.list:
            for c in cases:
                print("%-9s %s" % (c.cat, c.name))
            return 0
        t0 = time.time()
        fails = []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            for c, why, info in ex.map(lambda c: run_case(c, a.timeout), cases):
                if why:
                    fails.append((c, why, info))
        cats = {}
        for c in cases:
            cats[c.cat] = cats.get(c.cat, 0) + 1
        print("adversarial corpus: %d cases (%s) in %.0f s" % (
            len(cases), ", ".join("%s %d" % kv for kv in sorted(cats.items())), time.time() - t0))
        for c, why, err in fails:
            print("FAIL [%s] %s: %s\n    %s" % (c.cat, c.name, why, err.strip().replace("\n", "\n    ")[:400]))
        print("%d failure(s)" % len(fails))
        return 1 if fails else 0
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
