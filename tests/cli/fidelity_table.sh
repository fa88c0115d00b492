#!/usr/bin/env bash
# The committed fidelity table cannot go stale against its own page:
# docs/fidelity/fidelity.md is exactly what experiments/fidelity_collect.py
# --render writes from docs/fidelity/fidelity.csv (so every number the page
# quotes, the known misses included, is the table's), every row's role is
# the one experiments/fidelity_roles.tsv declares, and every failing
# validation row has a cause and a command in experiments/fidelity_misses.tsv.
# usage: fidelity_table.sh /path/to/gpuvm /path/to/source
set -uo pipefail
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-fidelity-table.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
CSV=$SRC/docs/fidelity/fidelity.csv
MD=$SRC/docs/fidelity/fidelity.md

if python3 "$SRC/experiments/fidelity_collect.py" --render "$CSV" "$T/fidelity.md" 2>"$T/err.txt"; then
	if cmp -s "$MD" "$T/fidelity.md"; then
		echo "ok - docs/fidelity/fidelity.md is what --render writes from fidelity.csv"
	else
		fail "docs/fidelity/fidelity.md differs from the table (run: experiments/fidelity_collect.py --render $CSV $MD)"
		diff "$MD" "$T/fidelity.md" | head -20
	fi
else
	fail "--render refused the committed table"; cat "$T/err.txt"
fi
if grep -q "Cause: not yet found" "$T/fidelity.md"; then
	fail "a failing validation row has no line in experiments/fidelity_misses.tsv:"
	grep -B1 "Cause: not yet found" "$T/fidelity.md" | grep '^- ' | head
else
	echo "ok - every failing validation row has a cause and a command"
fi
# every failing validation row is quoted in the known misses (rows one
# cause explains are listed together under it)
if python3 - "$CSV" "$T/fidelity.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
md = open(sys.argv[2]).read()
misses = md[md.index("## Known misses"):]
fails = [r for r in rows if r["role"] == "validation" and r["passed"] == "FAIL"]
missing = [r for r in fails if ", %s**: paper %s, gpuvm %s" % (r["quantity"], r["paper"], r["gpuvm"]) not in misses]
for r in missing:
    print("not quoted:", r["figure"], r["quantity"])
assert fails and not missing
print("%d failing validation rows quoted" % len(fails))
PY
then
	echo "ok - every failing validation row is quoted under its cause"
else
	fail "a failing validation row is missing from the known misses"
fi
# effect scoring: a row's verdict follows from its effects and band, with
# the paper's sign (a band on the ratio let effects of the wrong sign pass)
if python3 - "$CSV" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows and {"role", "kind", "effect_paper", "effect_gpuvm"} <= set(rows[0]), "columns"
n = 0
for r in rows:
    if r["kind"] != "effect" or r["passed"] not in ("pass", "FAIL"):
        continue
    m = re.search(r"effect \+-50 % \(([-+0-9.e]+) to ([-+0-9.e]*)\)", r["tolerance"])
    assert m, r
    lo, hi = float(m[1]), float(m[2]) if m[2] else float("inf")
    e = float(r["effect_gpuvm"])
    pe = float(r["effect_paper"].split(" to ")[0])
    want = (e > 0) == (pe > 0) and lo <= e * (1 + 1e-9) and e <= hi * (1 + 1e-9)
    # the band is printed to 3 significant digits: a value on its edge may go either way
    edge = min(abs(e - lo), abs(e - hi)) <= 0.005 * max(abs(lo), abs(hi) if hi != float("inf") else 0, 1e-9)
    assert want == (r["passed"] == "pass") or edge, r
    n += 1
assert n >= 20, n
print("%d effect rows consistent" % n)
PY
then
	echo "ok - effect rows: pass exactly when the sign is the paper's and the effect in its band"
else
	fail "effect rows"
fi
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "fidelity table: all checks passed"
