#!/usr/bin/env bash
# make check's passes (scripts/check.sh) leave no test out: the union of
# the three passes' ctest selections (check.sh selections) is every test
# this build has, and each test the ThreadSanitizer pass names, and each
# the label release names, exists (a renamed test would otherwise drop out
# of that pass without a word).
# usage: check_passes.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
BUILD=$(dirname "$GPUVM")
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
names() { # ctest args... -> the selected tests' names, one a line, sorted
	ctest --test-dir "$BUILD" -N "$@" | sed -nE 's/^ *Test +#[0-9]+: +([^ ]+).*/\1/p' | sort -u
}
sel=$(bash "$SRC/scripts/check.sh" selections) || { echo "FAIL check.sh selections: exit $?"; exit 1; }
all=$(names)
[ "$(wc -l <<<"$all")" -ge 100 ] || fail "ctest -N lists only $(wc -l <<<"$all") tests in $BUILD"
union=""
while IFS=$'\t' read -r pass args; do
	case $pass in
	tsan-names)
		for t in $args; do
			grep -qx -- "$t" <<<"$all" || fail "the TSan pass names $t, which is no test"
		done
		continue ;;
	esac
	# shellcheck disable=SC2086
	got=$(names $args)
	[ -n "$got" ] || fail "pass $pass ($args) selects no test"
	echo "ok - pass $pass ($args): $(wc -l <<<"$got") tests"
	union=$(printf '%s\n%s\n' "$union" "$got" | sed '/^$/d' | sort -u)
done <<<"$sel"
# the label release (tests/CMakeLists.txt, GPUVM_TESTS_RELEASE) names
# tests the Release pass must run again; a renamed one would drop out of
# it without a word (it stays in the ASan pass, so the union misses it)
rel=$(sed -n '/^set(GPUVM_TESTS_RELEASE/,/)/p' "$SRC/tests/CMakeLists.txt" |
	sed -e 's/set(GPUVM_TESTS_RELEASE//' -e 's/)//' | tr -s ' \t' '\n\n' | sed '/^$/d')
[ "$(wc -l <<<"$rel")" -ge 5 ] || fail "GPUVM_TESTS_RELEASE names $(wc -l <<<"$rel") tests"
for t in $rel; do
	grep -qx -- "$t" <<<"$all" || fail "the label release names $t, which is no test"
done
missing=$(comm -23 <(echo "$all") <(echo "$union"))
[ -z "$missing" ] || fail "in no pass of make check: $(tr '\n' ' ' <<<"$missing")"
[ $failures -eq 0 ] && echo "ok - every one of $(wc -l <<<"$all") tests runs in at least one pass" || exit 1
