# The time left of one ctest run, for make check (scripts/check.sh): reads
# ctest's output on stdin and prints it, each finished test's line followed
# by the pass's time left.
#
# Each test's expected seconds: its time in the previous run of this build
# directory (CTestCostData.txt, ctest's own record), else its time in this
# pass in the committed record of a make check (scripts/check-costs.tsv,
# column PASS_COL: 1 asan, 2 release, 3 tsan), else the committed
# table (GPUVM_TEST_SECONDS in tests/CMakeLists.txt: Release times at load
# average 10-16) times FACTOR (the sanitizers' slowdown), else DEFAULT_S.
# The time left: the expected seconds of the tests not yet finished, over
# JOBS, times how much slower or faster than expected the finished ones ran
# (a loaded host), damped.
#
# usage: awk -v jobs=2 -v factor=3 -v costdata=FILE -v table_file=FILE
#            -v list=FILE -f check-eta.awk
#            [-v pass_costs=scripts/check-costs.tsv -v pass_col=1|2|3]
#   costdata    <build>/Testing/Temporary/CTestCostData.txt ("" or absent: none)
#   table_file  tests/CMakeLists.txt
#   list        the names of the tests the run will run, one a line
function fmt(s) {
	s = int(s + 0.5)
	return s >= 60 ? sprintf("%dm%02ds", int(s / 60), s % 60) : sprintf("%ds", s)
}
BEGIN {
	if (!jobs) jobs = 2
	if (!factor) factor = 1
	if (!default_s) default_s = 5
	# CTestCostData.txt: "name runs seconds", then "---" and the failed tests
	while (costdata != "" && (getline line < costdata) > 0) {
		if (line == "---") break
		if (split(line, w, " ") == 3) prev[w[1]] = w[3]
	}
	# the table: "set(GPUVM_TEST_SECONDS" up to its ")", pairs of name seconds
	in_table = 0
	while ((getline line < table_file) > 0) {
		if (line ~ /^set\(GPUVM_TEST_SECONDS/) { in_table = 1; continue }
		if (!in_table) continue
		closing = line ~ /\)/
		gsub(/\)/, "", line)
		n = split(line, w, /[ \t]+/)
		for (i = 1; i < n; i++)
			if (w[i] ~ /^[a-z_0-9]+$/ && w[i + 1] ~ /^[0-9.]+$/)
				table[w[i]] = w[i + 1]
		if (closing) in_table = 0
	}
	# the committed record of a make check (scripts/check-costs.tsv):
	# "test asan release tsan", "-" where that pass did not run the test
	while (pass_costs != "" && pass_col > 0 && (getline line < pass_costs) > 0) {
		if (line ~ /^#/ || split(line, w, "\t") < 4) continue
		if (w[pass_col + 1] ~ /^[0-9.]+$/) rec[w[1]] = w[pass_col + 1]
	}
	while ((getline name < list) > 0) {
		if (name == "") continue
		e = (name in prev) ? prev[name] : (name in rec) ? rec[name] : \
		    (name in table) ? table[name] * factor : default_s
		expect[name] = e
		left += e
		n_tests++
		if (name in prev) n_prev++
		else if (name in rec) n_rec++
	}
	prior = left > 0 ? left / 10 : 1
	t0 = now()
}
# the time of day in seconds, in any POSIX awk (mawk has no systime()):
# srand() seeds from the clock and the next call returns that seed
function now() {
	srand()
	return srand()
}
!started {
	started = 1
	printf "==== about %s for %d tests on %d jobs (expected times: %d from this build's last run, %d from scripts/check-costs.tsv, %d from tests/CMakeLists.txt%s)\n", \
		fmt(left / jobs), n_tests, jobs, n_prev, n_rec, n_tests - n_prev - n_rec, \
		factor != 1 ? sprintf(" x %s", factor) : ""
	fflush()
}
# "  3/52 Test  #7: cli_sweep ......   Passed   80.01 sec"
/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: / {
	print
	name = $0
	sub(/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: /, "", name)
	sub(/ .*/, "", name)
	took = $0
	if (match(took, /[0-9.]+ sec *$/)) {
		took = substr(took, RSTART, RLENGTH) + 0
		if (name in expect) {
			left -= expect[name]
			done_expected += expect[name]
			done_took += took
			delete expect[name]
		}
	}
	if (left < 0) left = 0
	# damped: the first tests alone do not swing it (a tenth of the
	# pass's expected time counts as having run as expected)
	speed = (done_took + prior) / (done_expected + prior)
	# and bounded: one test far off its table time (ThreadSanitizer slows
	# the windowed engine's tests 100-200x, the cli scripts 10-40x) says
	# little about the rest
	if (speed > 3) speed = 3
	if (speed < 1 / 3) speed = 1 / 3
	if (left > 0)
		printf "        (this pass: %s so far, about %s left)\n", fmt(now() - t0), fmt(left * speed / jobs)
	else
		printf "        (this pass: %s so far)\n", fmt(now() - t0)
	fflush()
	next
}
{ print; fflush() }
