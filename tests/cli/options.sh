#!/usr/bin/env bash
# sweep and bench parse options with getopt_long like every other command:
# --opt=value and --opt value, -j4 and -j 4; errors name the option; and
# `gpuvm workloads` prints ranges with units, not raw bytes.
# usage: options.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-options-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }
expect2() { # message-pattern command...
	local pat=$1
	shift
	set +e
	"$@" > out.txt 2> err.txt
	local rc=$?
	set -e
	[ $rc -eq 2 ] || fail "$*: exit $rc, wanted 2"
	grep -q -- "$pat" err.txt || fail "$*: message does not say '$pat': $(cat err.txt)"
}

# bench: --repeat=3 is accepted (the parse goes on to the next word, which
# is then the error), --repeat 3 too; errors name the option
expect2 "unknown option '--bogus'" "$GPUVM" bench --repeat=3 --bogus
expect2 "unknown option '--bogus'" "$GPUVM" bench --repeat 3 --bogus
expect2 "unknown option '--bogus'" "$GPUVM" bench --json=x.json --bogus
expect2 "option --repeat needs a value" "$GPUVM" bench --repeat
expect2 "option --quiet takes no value" "$GPUVM" bench --quiet=yes
expect2 "--repeat: '0' is not a count" "$GPUVM" bench --repeat=0
expect2 "unexpected argument 'extra'" "$GPUVM" bench extra
[ ! -e x.json ] || fail "bench wrote x.json on bad input"
pass "bench: --repeat=3 and --repeat 3 accepted; errors name the option"

WL=random-sampling:region=32MiB,threads=1024,reads=4
"$GPUVM" sweep --gpu=p100 --workload="$WL" --vary=seed=1,2 --jobs=2 --csv=a.csv -q ||
	fail "sweep --opt=value: exit $?"
"$GPUVM" sweep --gpu p100 --workload "$WL" --vary seed=1,2 -j2 --csv b.csv -q ||
	fail "sweep --opt value: exit $?"
cut -d, -f1-9 a.csv > a9 && cut -d, -f1-9 b.csv > b9 && cmp -s a9 b9 || fail "the two spellings differ"
[ "$(wc -l < a.csv)" -eq 3 ] || fail "sweep --vary=seed=1,2 did not make 2 rows"
expect2 "unknown option '--frobnicate'" "$GPUVM" sweep --gpu p100 --workload "$WL" --frobnicate
expect2 "option --csv needs a value" "$GPUVM" sweep --gpu p100 --workload "$WL" --csv
expect2 "option --quiet takes no value" "$GPUVM" sweep --gpu p100 --workload "$WL" --quiet=1
expect2 "-j 'many'" "$GPUVM" sweep --gpu p100 --workload "$WL" --jobs many
expect2 "unexpected argument 'stray'" "$GPUVM" sweep --gpu p100 --workload "$WL" stray
expect2 "kernel-sampling '2'" "$GPUVM" sweep --gpu p100 --workload "$WL" --kernel-sampling=2
pass "sweep: --opt=value, --opt value, -j2, --jobs=2; errors name the option"

"$GPUVM" workloads > w.txt
grep -q "region     \[1GiB\] {4B..4TiB}" w.txt || fail "region range not in units: $(grep -m1 'region ' w.txt)"
grep -q "threads    \[auto\] {1..2^32}" w.txt || fail "threads range: $(grep -m1 'threads ' w.txt)"
! grep -q "{[0-9]*\.\.[0-9]\{10,\}}" w.txt || fail "a raw 10+ digit bound: $(grep -m1 '{[0-9]*\.\.[0-9]\{10,\}}' w.txt)"
pass "workloads: ranges in units (0B..512TiB, 1..2^32)"
