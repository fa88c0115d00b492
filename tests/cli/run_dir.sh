#!/usr/bin/env bash
# gpuvm sim run directories (--outdir DIR, the default gpuvm-out/) and batch
# progress lines (--progress=N|off when stderr is not a terminal).
# - DIR holds report.json, stats.txt (the long form), config.ini, log.txt;
# - --gpu DIR/config.ini reproduces the run (same config_hash, same numbers);
# - with no output named, the run goes to gpuvm-out/, overwritten by the next
#   run, but a gpuvm-out/ that gpuvm did not make is refused (exit 2);
# - a failed run leaves no directory; an --outdir that is a file is refused;
# - --progress=0.2 logs lines with a time-left field; --progress=off none;
# - the text report's rates are per CPU second.
# usage: run_dir.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-run-dir-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }
WL=random-sampling:region=32MiB,threads=2048,reads=16

# 1. --outdir: the four files, loadable
"$GPUVM" sim --gpu p100 --workload $WL --seed 3 --outdir run1 > out.txt || fail "sim --outdir: exit $?"
for f in report.json stats.txt config.ini log.txt; do
	[ -s "run1/$f" ] || fail "run1/$f missing or empty"
done
grep -q "^gpu,workload,seed,scope,index,name,kind,metric,value,unit$" run1/stats.txt ||
	fail "stats.txt is not the long form: $(head -1 run1/stats.txt)"
grep -q "^gpu,workload,seed,scope,index,name,kind,metric,value,unit$" run1/stats.txt
grep -q "^simulator .* CPU s" run1/log.txt || fail "log.txt has no CPU-time rates: $(tail -1 run1/log.txt)"
grep -q "warp insts/CPU s" out.txt || fail "text report rates are not per CPU second"
grep -q "outputs    run1/" out.txt || fail "text report does not name the run directory"
pass "--outdir writes report.json, stats.txt, config.ini, log.txt"

# 2. config.ini loads back as a preset and reproduces the run
"$GPUVM" sim --gpu run1/config.ini --workload $WL --seed 3 --outdir run2 -q ||
	fail "sim --gpu run1/config.ini: exit $?"
h1=$(grep -o "\"config_hash\":[[:space:]]*\"[0-9a-f]*\"" run1/report.json)
h2=$(grep -o "\"config_hash\":[[:space:]]*\"[0-9a-f]*\"" run2/report.json)
[ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "config_hash differs: $h1 vs $h2"
# same statistics, host times and the preset's name aside
strip() { grep -v -e wall -e '^[^,]*,[^,]*,[^,]*,run,,,,gpu,' "$1" | cut -d, -f2-; }
diff <(strip run1/stats.txt) <(strip run2/stats.txt) > diff.txt ||
	fail "the reloaded preset gives other statistics: $(head -5 diff.txt)"
pass "--gpu DIR/config.ini reproduces the run (config_hash $h1)"

# 3. the default run directory
"$GPUVM" sim --gpu p100 --workload $WL -q || fail "sim with no output: exit $?"
[ -s gpuvm-out/report.json ] || fail "no default gpuvm-out/"
"$GPUVM" sim --gpu p100 --workload $WL --seed 2 -q || fail "second default run: exit $?"
grep -q "\"seed\":[[:space:]]*2," gpuvm-out/report.json || fail "gpuvm-out/ not overwritten by the next run"
# a named output means no default directory
rm -rf gpuvm-out
"$GPUVM" sim --gpu p100 --workload $WL --json a.json -q
[ ! -e gpuvm-out ] || fail "gpuvm-out/ made although --json was given"
"$GPUVM" sim --gpu p100 --workload $WL --no-outdir -q
[ ! -e gpuvm-out ] || fail "gpuvm-out/ made with --no-outdir"
# a gpuvm-out/ gpuvm did not make is not touched
mkdir gpuvm-out && echo mine > gpuvm-out/notes.txt && echo mine > gpuvm-out/log.txt
set +e
"$GPUVM" sim --gpu p100 --workload $WL -q 2> err.txt
rc=$?
set -e
[ $rc -eq 2 ] || fail "foreign gpuvm-out/: exit $rc, wanted 2"
grep -q "not made by gpuvm" err.txt || fail "foreign gpuvm-out/: message: $(cat err.txt)"
[ "$(cat gpuvm-out/log.txt)" = mine ] || fail "foreign gpuvm-out/log.txt was replaced"
pass "default gpuvm-out/: made, overwritten by gpuvm, a foreign one refused"

# 4. bad --outdir, failed runs
echo x > afile
set +e
"$GPUVM" sim --gpu p100 --workload $WL --outdir afile -q 2> err.txt; rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- "--outdir" err.txt || fail "--outdir FILE: exit $rc: $(cat err.txt)"
set +e
"$GPUVM" sim --gpu p100 --workload random-sampling:region=32MiB,bogus=1 --outdir newdir -q 2> err.txt
rc=$?
set -e
[ $rc -eq 2 ] || fail "bad workload: exit $rc"
[ ! -e newdir ] || fail "a failed run left its new --outdir behind"

pass "bad --outdir refused; a failed run leaves no directory"

# 5. batch progress: stderr is a file here, not a terminal. A run long
# enough for several lines at 0.2 s: 128 reads a thread take 2 CPU s in
# Release (9 lines); under ASan (GPUVM_TEST_SANITIZED, tests/CMakeLists.txt)
# 48, about 3 CPU s (128 took 7-10 CPU s a run there, three runs: most of
# this script's time; 32 gave 3 lines), the same lines run
# (scripts/test-coverage.py)
PROG_WL=random-sampling:region=64MiB,reads=128
[ "${GPUVM_TEST_SANITIZED:-0}" = 1 ] && PROG_WL=random-sampling:region=64MiB,reads=48
"$GPUVM" sim --gpu p100 --workload $PROG_WL --no-outdir \
	--progress=0.2 > out.txt 2> prog.txt || fail "sim --progress=0.2: exit $?"
n=$(grep -c "progress at" prog.txt || true)
[ "$n" -ge 1 ] || fail "--progress=0.2 logged no progress line: $(cat prog.txt)"
grep -q "progress at .*: .* cycles simulated, .* launches done, .* warp insts/CPU s, left ~" prog.txt ||
	fail "progress line lacks a field: $(head -1 prog.txt)"
grep -q "left ~.* CPU, ~.* wall at this load (thread accesses: [0-9]*% of the workload's estimate)" prog.txt ||
	fail "progress line has no time-left estimate: $(head -1 prog.txt)"
"$GPUVM" sim --gpu p100 --workload $PROG_WL --no-outdir \
	--progress=off > out.txt 2> prog.txt || fail "sim --progress=off: exit $?"
[ ! -s prog.txt ] || fail "--progress=off logged: $(head -2 prog.txt)"
# -q silences progress unless --progress is given
"$GPUVM" sim --gpu p100 --workload $PROG_WL --no-outdir \
	-q --progress=0.2 > out.txt 2> prog.txt
grep -q "progress at" prog.txt || fail "-q --progress=0.2 logged no line"
for bad in 0.x -1 "" never; do
	set +e
	"$GPUVM" sim --gpu p100 --workload $WL --no-outdir --progress="$bad" 2> err.txt > /dev/null
	rc=$?
	set -e
	[ $rc -eq 2 ] && grep -q -- "--progress" err.txt || fail "--progress='$bad': exit $rc"
done
pass "--progress=0.2 logs lines with time left ($n lines); off logs none; bad values refused"
