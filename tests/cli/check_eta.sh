#!/usr/bin/env bash
# make check's progress lines (scripts/check-eta.awk, issue 80): before a
# pass's tests, the expected time from the build directory's last run
# (ctest's CTestCostData.txt), else from the committed record of the same
# pass (scripts/check-costs.tsv); after each test, the time the pass's tests
# have taken so far and the time left: the expected seconds of the tests
# not yet finished over the ctest jobs, scaled by how much slower than
# expected the finished ones ran. Fed a made-up ctest output, no build.
# usage: check_eta.sh /path/to/gpuvm /path/to/source
set -uo pipefail
SRC=$(realpath "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-check-eta.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
AWK=(awk)
awk -W version 2>&1 | grep -q mawk && AWK=(awk -W interactive)

printf 'eta_a\neta_b\neta_c\n' >"$T/list"
printf 'eta_a 1 10\neta_b 1 20\neta_c 1 30\n---\n' >"$T/costs"
# eta_a as expected, eta_b twice its time, then eta_c after 2 s
{
	echo "1/3 Test  #1: eta_a ......   Passed   10.00 sec"
	echo "2/3 Test  #2: eta_b ......   Passed   40.00 sec"
	sleep 2
	echo "3/3 Test  #3: eta_c ......   Passed   30.00 sec"
	echo "100% tests passed, 0 tests failed out of 3"
} | "${AWK[@]}" -v jobs=2 -v factor=3 -v costdata="$T/costs" -v table_file="$SRC/tests/CMakeLists.txt" \
	-v list="$T/list" -f "$SRC/scripts/check-eta.awk" >"$T/out" 2>"$T/err"
[ -s "$T/err" ] && fail "awk wrote to stderr: $(cat "$T/err")"
# 60 s expected over 2 jobs, all three from the last run
grep -q '^==== about 30s for 3 tests on 2 jobs (expected times: 3 from this build.s last run, 0 from' "$T/out" ||
	fail "the pass's expected time: $(head -1 "$T/out")"
# after eta_a: 50 s left over 2 jobs, at the expected speed
sed -n 3p "$T/out" | grep -Eq '^ +\(this pass: [0-9]+s so far, about 25s left\)$' ||
	fail "after the first test: $(sed -n 3p "$T/out")"
# after eta_b (40 s for 20 expected): 30 s left x (50 + 6) / (30 + 6) over 2 jobs
# (6: a tenth of the pass's expected time, counted as run as expected)
sed -n 5p "$T/out" | grep -Eq '^ +\(this pass: [0-9]+s so far, about 23s left\)$' ||
	fail "after a slow test, the time left is not scaled: $(sed -n 5p "$T/out")"
# the last: the time so far alone, at least the 2 s the feed waited
last=$(sed -n 7p "$T/out")
so_far=$(sed -nE 's/^ +\(this pass: ([0-9]+)s so far\)$/\1/p' <<<"$last")
[ -n "$so_far" ] && [ "$so_far" -ge 2 ] && [ "$so_far" -le 60 ] ||
	fail "after the last test, the time so far: '$last'"
# a fresh clone (no record of the build directory's own): the pass's
# column of the committed record (scripts/check-costs.tsv), the rest from
# tests/CMakeLists.txt's table times the sanitizer's factor
printf '# a comment\ntest\tasan\trelease\ttsan\neta_a\t40.0\t4.0\t-\neta_b\t-\t2.0\t-\n' >"$T/rec"
printf 'eta_a\neta_b\ncli_help_claims\n' >"$T/list2"
echo "1/3 Test  #1: eta_a ......   Passed   40.00 sec" |
	"${AWK[@]}" -v jobs=2 -v factor=3 -v costdata= -v pass_costs="$T/rec" -v pass_col=1 \
		-v table_file="$SRC/tests/CMakeLists.txt" -v list="$T/list2" -f "$SRC/scripts/check-eta.awk" >"$T/out2"
# eta_a 40 s (asan column), eta_b not run there: 5 s; cli_help_claims 1 s x 3
grep -q '^==== about 24s for 3 tests on 2 jobs (expected times: 0 from this build.s last run, 1 from scripts/check-costs.tsv, 2 from tests/CMakeLists.txt x 3)' "$T/out2" ||
	fail "the committed record's column: $(head -1 "$T/out2")"
# ctest's own lines pass through unchanged
grep -qx "100% tests passed, 0 tests failed out of 3" "$T/out" || fail "ctest's summary line lost"

[ $failures -eq 0 ] && echo "ok - make check's progress lines: expected time, time so far, time left" || exit 1
