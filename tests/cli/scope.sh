#!/usr/bin/env bash
# gpuvm sim --scope: a size runs that many passes; auto prints the model's
# candidates and its choice and runs it; bad values exit 2 with no output.
# usage: scope.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-scope.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

"$GPUVM" sim --gpu k80 --workload random-sampling:region=8GiB,reads=4,threads=2048 --scope 2GiB \
	>out.txt 2>err.txt || fail "--scope 2GiB: exit $?"
grep -q "scope=2GiB passes=4" out.txt || fail "--scope 2GiB: no 4 passes in result"

"$GPUVM" sim --gpu k80 --workload random-sampling:region=8GiB,reads=4 --scope auto \
	--json auto.json >out.txt 2>err.txt || fail "--scope auto: exit $?"
grep -q "^scope advice for random-sampling over a 8GiB region" out.txt || fail "--scope auto: no advice table"
grep -q "<- chosen" out.txt || fail "--scope auto: no chosen line"
grep -q "^chose scope .* faster than unscoped" out.txt || fail "--scope auto: no reason line"
python3 -c "import json,sys; r=json.load(open('auto.json'))['result']; sys.exit(0 if 'passes=' in r else 1)" ||
	fail "--scope auto: json result has no passes"

"$GPUVM" sim --gpu k80 --workload random-sampling:region=1GiB --scope lots --json bad.json \
	>out.txt 2>err.txt
rc=$?
[ $rc -eq 2 ] || fail "--scope lots: exit $rc, wanted 2"
grep -q -- "--scope" err.txt || fail "--scope lots: message does not name --scope"
[ ! -e bad.json ] || fail "--scope lots: left an output file"

"$GPUVM" sim --gpu k80 --workload stream-triad --scope auto >out.txt 2>err.txt
[ $? -eq 2 ] || fail "--scope auto on stream-triad: wanted exit 2"
grep -q "no TLB scopes" err.txt || fail "--scope auto on stream-triad: message"

[ $failures -eq 0 ] && echo "ok - scope CLI" || exit 1
