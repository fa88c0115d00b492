#!/usr/bin/env bash
# Compatibility of the generated outputs (gpuvm/counters.h): every JSON key,
# --stats-csv metric and `gpuvm stats` name that gpuvm 1b4e3ad wrote for
# these runs (tests/data/stats/, see its README.md) is still written, under
# the same name and in the same relative order. Dropping a counter's
# registration drops its key from the JSON and from the registry alike, so
# `gpuvm stats --check` cannot see it; this test does.
# usage: stats_compat.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
D=$SRC/tests/data/stats
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-stats-compat.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

"$GPUVM" sim --gpu p100 --workload stream-triad:mem=managed,elems=262144 --oversub 125 \
	--migration adaptive --json a.json --stats-csv a.csv -q
"$GPUVM" sim --gpu p100 --workload random-sampling:region=64MiB,threads=1024,reads=8 \
	--tlb-sharing --set tlb.l1.peer=neidty --json b.json -q
"$GPUVM" sim --gpu p100 --workload hash-groupby:region=1MiB,input=4194304,chunk=1MiB,threads=2048 \
	--kernel-sampling --json c.json --stats-csv c.csv -q
"$GPUVM" sim --gpu p100 --workload sepo-pvc:records=20000 --json d.json -q
"$GPUVM" stats --csv reg.csv

cat > compat.py <<'EOF'
import csv, json, sys

def json_keys(path):
    out = []
    def walk(o, p):
        for k, v in o.items():
            q = p + k
            if isinstance(v, dict) and q != "config":
                walk(v, q + ".")
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for e in v:
                    walk(e, q + "[].")
            else:
                out.append(q + ("[]" if isinstance(v, list) else ""))
    walk(json.load(open(path)), "")
    return out

def csv_metrics(path):
    return [r["scope"] + " " + r["metric"] for r in csv.DictReader(open(path))]

def registry(path):
    return [r["name"] for r in csv.DictReader(open(path))]

def check(golden_file, got, ordered=True):
    golden = [l.rstrip("\n") for l in open(golden_file) if l.strip()]
    have = set(got)
    missing = [g for g in golden if g not in have]
    if missing:
        sys.exit("%s: missing %s" % (golden_file, ", ".join(missing[:20])))
    if ordered:
        first = {}
        for i, k in enumerate(got):
            first.setdefault(k, i)
        seq = [first[g] for g in golden]
        for a, b, ka, kb in zip(seq, seq[1:], golden, golden[1:]):
            if a > b:
                sys.exit("%s: order changed: %s now after %s" % (golden_file, ka, kb))

kind, golden, path = sys.argv[1:4]
got = {"json": json_keys, "csv": csv_metrics, "registry": registry}[kind](path)
check(golden, got, ordered=(kind != "registry"))
EOF
for f in a b c d; do
	python3 compat.py json "$D/keys-$f.txt" $f.json || fail "$f.json lost or reordered keys of 1b4e3ad"
done
pass "sim JSON: every key of 1b4e3ad, same relative order"
for f in a c; do
	python3 compat.py csv "$D/csv-metrics-$f.txt" $f.csv || fail "$f.csv lost or reordered metrics"
done
pass "--stats-csv: every scope/metric of 1b4e3ad, same relative order"
python3 compat.py registry "$D/registry-names.txt" reg.csv || fail "gpuvm stats lost names"
pass "gpuvm stats: every name of 1b4e3ad"
