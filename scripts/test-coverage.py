#!/usr/bin/env python3
"""Which source lines each test runs, and which tests add a line no other does.

make check's ASan + UBSan pass must run every code path once (docs/testing.md);
this script measures what each test of that pass contributes, so that a test
is left to the Release pass only when the pass's other tests run every line it
runs.

  test-coverage.py measure BUILD OUT.json [TEST ...]
      BUILD: a build configured for coverage, with the ASan pass's sizes:
        cmake -S . -B build-cov -DCMAKE_BUILD_TYPE=Release -DGPUVM_COV=ON \\
          -DGPUVM_CHECK_INVARIANTS=ON -DGPUVM_WERROR=OFF \\
          -DCMAKE_C_FLAGS='--coverage -fprofile-update=atomic' \\
          -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage
        cmake --build build-cov -j2
      (GPUVM_COV sets GPUVM_TEST_SANITIZED=1 for the cli scripts, as the
      ASan build does.) Runs each test alone (default: the ASan pass's
      selection, `scripts/check.sh selections`), its counters zeroed first,
      and records the src/ lines it ran (gcov --json-format). Minutes: each
      test at about Release speed, then gcov over every object.
  test-coverage.py unique OUT.json [--leave TEST ...] [--min-seconds S]
      For each test (costliest first, costs from scripts/check-costs.tsv's
      asan column, or the seconds measured), the lines no other test runs;
      with --leave, the lines the tests left out run and the pass's others
      do not (what leaving them out would lose; the answer wanted is none).
"""
import glob
import json
import os
import re
import subprocess
import sys
import time


def ran_lines(build):
    """The src/ lines with a non-zero count in the build's .gcda files."""
    lines = set()
    for gcda in glob.glob(os.path.join(build, '**', '*.gcda'), recursive=True):
        p = subprocess.run(['gcov', '-t', '-j', '-o', os.path.dirname(gcda), gcda],
                           capture_output=True, text=True, cwd=build)
        for chunk in p.stdout.splitlines():
            if not chunk.startswith('{'):
                continue
            try:
                d = json.loads(chunk)
            except json.JSONDecodeError:
                continue
            for f in d.get('files', []):
                name = f['file']
                at = name.find('src/')
                if at < 0:
                    continue
                for ln in f['lines']:
                    if ln['count'] > 0:
                        lines.add(f"{name[at:]}:{ln['line_number']}")
    return lines


def asan_selection():
    out = subprocess.run(['bash', 'scripts/check.sh', 'selections'], capture_output=True,
                         text=True, check=True).stdout
    sel = next(l.split('\t', 1)[1] for l in out.splitlines() if l.startswith('asan\t'))
    return sel.split()


def measure(build, out, tests):
    build = os.path.abspath(build)
    if not tests:
        listing = subprocess.run(['ctest', '--test-dir', build, '-N'] + asan_selection(),
                                 capture_output=True, text=True, check=True).stdout
        tests = re.findall(r'Test +#\d+: (\S+)', listing)
    res = {}
    for t in tests:
        for gcda in glob.glob(os.path.join(build, '**', '*.gcda'), recursive=True):
            os.unlink(gcda)
        t0 = time.time()
        r = subprocess.run(['ctest', '--test-dir', build, '-R', '^' + re.escape(t) + '$'],
                           capture_output=True, text=True)
        seconds = time.time() - t0
        lines = ran_lines(build)
        ok = r.returncode == 0
        print(f"{t}\t{seconds:.1f} s\t{len(lines)} lines\t{'ok' if ok else 'FAILED'}", flush=True)
        res[t] = {'seconds': round(seconds, 2), 'ok': ok, 'lines': sorted(lines)}
        with open(out, 'w') as f:
            json.dump(res, f)


def asan_costs():
    costs = {}
    with open('scripts/check-costs.tsv') as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if len(cols) >= 2 and not line.startswith('#') and cols[1] not in ('-', 'asan'):
                costs[cols[0]] = float(cols[1])
    return costs


def unique(path, leave, min_seconds):
    with open(path) as f:
        cov = json.load(f)
    lines = {t: set(v['lines']) for t, v in cov.items()}
    costs = asan_costs()
    cost = {t: costs.get(t, cov[t]['seconds']) for t in cov}
    unknown = [t for t in leave if t not in lines]
    if unknown:
        sys.exit(f"test-coverage.py: {', '.join(unknown)}: not in {path}")
    if leave:
        kept = set().union(*(lines[t] for t in cov if t not in leave))
        lost = set().union(*(lines[t] for t in leave)) - kept
        for t in leave:
            own = sorted(lines[t] - kept)
            print(f"{t}\t{cost[t]:.1f} s\t{len(own)} lines only it runs"
                  + (': ' + ' '.join(own[:12]) + (' ...' if len(own) > 12 else '') if own else ''))
        print(f"leaving {len(leave)} tests ({sum(cost[t] for t in leave):.0f} s of the pass) "
              f"loses {len(lost)} of {len(set().union(*lines.values()))} lines")
        return 1 if lost else 0
    for t in sorted(cov, key=lambda t: -cost[t]):
        if cost[t] < min_seconds:
            continue
        others = set().union(*(lines[u] for u in cov if u != t))
        own = lines[t] - others
        files = {}
        for x in own:
            fn = x.rsplit(':', 1)[0]
            files[fn] = files.get(fn, 0) + 1
        top = sorted(files.items(), key=lambda kv: -kv[1])[:4]
        print(f"{t}\t{cost[t]:.1f} s\t{len(own)} lines only it runs\t"
              + ', '.join(f'{fn} {n}' for fn, n in top))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == 'measure':
        measure(argv[1], argv[2], argv[3:])
        return 0
    if len(argv) >= 2 and argv[0] == 'unique':
        leave, min_seconds, rest = [], 0.0, argv[2:]
        while rest:
            if rest[0] == '--leave':
                rest = rest[1:]
                while rest and not rest[0].startswith('--'):
                    leave.append(rest.pop(0))
            elif rest[0] == '--min-seconds' and len(rest) > 1:
                min_seconds, rest = float(rest[1]), rest[2:]
            else:
                sys.exit(f"test-coverage.py: unknown argument '{rest[0]}'")
        return unique(argv[1], leave, min_seconds)
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
