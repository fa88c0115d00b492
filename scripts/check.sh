#!/usr/bin/env bash
# The test passes behind `make check` and `make check-quick`.
#
#   check.sh full    1. ASan + UBSan build (build-asan/, -O2 with line tables
#                       only: a report's stack names file and line, asserts and
#                       invariant checks on, no recovery: any report fails the
#                       test), with clang where installed (its UBSan sees more
#                       than gcc's: a non-zero offset applied to a null pointer,
#                       float-to-integer overflow), else gcc. What it must
#                       cover: every code path once, for memory errors and
#                       undefined behaviour, which a small input reaches as
#                       well as a large one; not the sizes. So every test but
#                       the labels fidelity (tens of full-size model runs that
#                       take 20+ minutes under ASan on two cores and exercise
#                       the code paths the cli and unit tests already run) and
#                       long (cli_readme_examples: minutes under ASan, and
#                       each command it runs is run under ASan by the cli
#                       test of that command; tests/CMakeLists.txt names
#                       the long tests) and sim (cli tests that spend their
#                       time in simulations, each of whose other paths a
#                       shorter test runs under ASan; docs/testing.md names
#                       them; GPUVM_TESTS_SIM in tests/CMakeLists.txt) and
#                       covered (tests whose every source line the pass's
#                       other tests run, measured with
#                       scripts/test-coverage.py, but for one or two lines
#                       of three tests that GPUVM_TESTS_COVERED names).
#                       So: the unit tests, the fuzz replays and the cli
#                       tests of the CLI's input and output, the
#                       memory-unsafe territory. cli scripts with a long end-to-end job run a
#                       smaller case here (GPUVM_TEST_SANITIZED=1; docs/testing.md
#                       lists the tests, unit and cli, that do): the code paths,
#                       not the sizes (cli_validate replays a row per
#                       program and preset in every build; check.sh
#                       manifest replays all). It builds only what those
#                       tests run (not the fidelity tests' executables);
#                    2. plain Release build (build-check/, the build users
#                       run; every target, so gcc's warnings see every
#                       source): what pass 1 does not run, each test at its
#                       full size: the labels fidelity, long, sim and covered, and
#                       the label release (tests/CMakeLists.txt says why each
#                       one: cli_probe's full sharing matrix, checks skipped
#                       or run otherwise under ASan, the SIMT executor's
#                       shared run stack, which exists only without ASan).
#                       Not the rest: ASan does not change a number, so a
#                       unit or cli test that pass 1 runs at the same size
#                       would check the same assertions twice (issue 80:
#                       the Release pass ran every test, 20 of make check's
#                       60 CPU minutes);
#                    3. ThreadSanitizer build (build-tsan/, clang where
#                       installed; the CLI and the threaded unit tests only).
#                       What it must cover: the code that runs threads (the
#                       windowed barrier's pipe and pools, the SIMT workers,
#                       the trace reader ahead, SePo's CPU baseline), with
#                       more than one thread,
#                       for data races; a race fails the run that has it.
#                       So the threaded tests, and in them (GPUVM_TEST_TSAN=1)
#                       the runs on 3 threads alone, not compared with a
#                       one-thread run: cli_threads (each SIMT workload's
#                       kernels on the workers, eight of them and the
#                       profiled pathfinder smaller) and cli_trace_threads,
#                       the windowed barrier's unit tests (tests/tsan_env.h:
#                       their one-thread cases and references skipped, 3
#                       threads not 2, 3 and 8), test_simt_par's whole runs
#                       (3, not 2 to 4; RED_ADD's on one preset) and
#                       test_graph's R-MAT pool (3); their comparisons with
#                       one thread, at 2 and 8, are pass 1's, which runs
#                       them. Every threaded line the runs dropped here ran
#                       (src/par, the SIMT workers, the window pipe and
#                       pools, the trace reader) the kept ones run,
#                       measured with gcov (docs/notes/2026-11-30-check-
#                       coverage-record.md).
#                       Where this kernel's address layout keeps TSan from
#                       starting, it retries without address randomisation
#                       (setarch -R), else reports the pass skipped.
#                    Passes 2 and 3 build in the background at nice 19
#                    while pass 1 builds and runs (their output in
#                    build-check/build.log and build-tsan/build.log): the
#                    idle time of pass 1's build and tests is theirs, and
#                    their tests start as pass 1 ends.
#                    Every pass runs, whatever the ones before give; every
#                    test runs in at least one pass (cli_check_passes checks
#                    the three selections' union, and that each test the
#                    label release names exists).
#                    ctest starts the costliest tests first (their COST,
#                    from tests/CMakeLists.txt's table), so that no long
#                    test starts last and holds a pass alone.
#                    Each pass prints its tests' time so far and time left after each test
#                    (scripts/check-eta.awk: the tests' times in the last
#                    run of that build directory, else in the committed
#                    record scripts/check-costs.tsv, else tests/CMakeLists.txt's
#                    table).
#   check.sh sanitize  pass 1 alone.
#   check.sh tsan    pass 3 alone.
#   check.sh release pass 2 alone.
#   check.sh manifest  cli_validate with the whole validation manifest (313
#                    rows, GPUVM_TEST_FULL_MANIFEST=1) in build-check/; make
#                    check's passes replay the first row of each program on
#                    each preset (tests/cli/validate.sh says why)
#   check.sh quick   the unit and cli labels in one Release build (build-check/;
#                    only the targets those tests run).
#   check.sh selections  print each pass's ctest selection (no build, no run;
#                    tests/cli/check_passes.sh checks every test is in one)
#
# Ends with a summary: per pass, the build's status, tests passed / failed /
# total, failed test names, the tests' and the build's wall time and their
# CPU time; exits 1 if any pass failed.
# Each pass's full ctest output stays in <build dir>/check.log.
# Environment: JOBS (build parallelism, default nproc), CMAKE (default cmake),
# CTEST_JOBS (default 2), GPUVM_TEST_TIMEOUT_SCALE (multiplies every test's
# time limit; tests/CMakeLists.txt).
set -u
cd "$(dirname "$0")/.."
MODE=${1:-full}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
CMAKE=${CMAKE:-cmake}
CTEST_JOBS=${CTEST_JOBS:-2}

declare -a SUMMARY=()
CPU_TOTAL=0
# mawk (Debian's awk) reads a pipe in blocks unless interactive: the time
# left would come in bursts
ETA_AWK=(awk)
awk -W version 2>&1 | grep -q mawk && ETA_AWK=(awk -W interactive)
failed_passes=0

fmt_time() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# children_cpu: CHILDREN_CPU_S = CPU seconds (user + sys) of every process
# this script has waited for so far, the builds' compilers and ctest's tests
# included (bash's times builtin, run in this shell: in a $(...) subshell
# it would start at 0). A pass's CPU tells its wall time on an idle
# machine where the wall time on a shared, loaded one cannot: at best
# CPU / cores.
# (a file per shell: the background builds' subshell counts its own)
CPU_TIMES=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-check-times.XXXXXX")
trap 'rm -rf "$CPU_TIMES"' EXIT
CHILDREN_CPU_S=0
children_cpu() {
	# ($BASHPID read here: inside $(...) below it is that subshell's)
	local f="$CPU_TIMES/$BASHPID"
	times >"$f"
	# second line: the children's user and sys, as 1m2.345s 0m0.678s
	CHILDREN_CPU_S=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%d\n", t + 0.5 }' "$f")
}

# build_dir DIR "CMAKE_ARGS" "CTEST_ARGS" ["TARGETS"]: configure and build
# DIR. TARGETS: build only these (default all; "tested": what the tests
# CTEST_ARGS selects run). Writes DIR/check-build.status: "ok|configure|
# build CPU_S WALL_S" (the CPU of the configure and the compilers), which
# test_pass reads: the same whether the build ran here or beside another
# pass in the background (children_cpu starts at 0 in a subshell).
build_dir() {
	local dir=$1 cmake_args=$2 ctest_args=$3 targets=${4:-}
	local t0=$SECONDS cpu0 status=ok
	children_cpu
	cpu0=$CHILDREN_CPU_S
	mkdir -p "$dir"
	rm -f "$dir/check-build.status"
	# shellcheck disable=SC2086
	if ! $CMAKE -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release $cmake_args >"$dir/configure.log" 2>&1; then
		cat "$dir/configure.log"
		status=configure
	else
		local target_args=() names t
		if [ "$targets" = tested ]; then
			# what the selected tests run: their own executables (a unit test
			# or fuzz replay is named as its target) and, for cli tests, the
			# CLI and the libraries cli_install installs; not the rest (the
			# fidelity tests' executables in the ASan pass)
			# shellcheck disable=SC2086
			names=$(cd "$dir" && ctest -N $ctest_args | sed -nE 's/^ *Test +#[0-9]+: +([^ ]+).*/\1/p')
			targets="gpuvm gpuvm_core gpuvm_shared"
			for t in $names; do
				case $t in cli_*) ;; *) targets="$targets $t" ;; esac
			done
		fi
		for t in $targets; do
			target_args+=(--target "$t")
		done
		$CMAKE --build "$dir" -j "$JOBS" "${target_args[@]}" || status=build
	fi
	children_cpu
	echo "$status $((CHILDREN_CPU_S - cpu0)) $((SECONDS - t0))" >"$dir/check-build.status"
	[ "$status" = ok ]
}

# test_pass TITLE BUILD_DIR "CTEST_ARGS" ["PREFIX" ["WHERE"]]: run the
# selected tests of a built DIR (PREFIX: a command ctest runs under;
# WHERE: how the build ran, for the summary) and add the pass's line to
# the summary
test_pass() {
	local title=$1 dir=$2 ctest_args=$3 prefix=${4:-} where=${5:-}
	local start=$SECONDS line status cpu0 cpu_build=0 wall_build=0 build_status=missing
	if [ -f "$dir/check-build.status" ]; then
		read -r build_status cpu_build wall_build <"$dir/check-build.status"
	fi
	local build_line="build $(fmt_time "$wall_build")${where:+ $where}"
	case $build_status in
	ok) ;;
	configure)
		SUMMARY+=("$title: CONFIGURE FAILED ($dir/configure.log), $build_line")
		failed_passes=$((failed_passes + 1))
		return
		;;
	*)
		local log="the output above"
		[ -z "$where" ] || log="$dir/build.log"
		SUMMARY+=("$title: BUILD FAILED, no test run ($log), $build_line")
		failed_passes=$((failed_passes + 1))
		return
		;;
	esac
	children_cpu
	cpu0=$CHILDREN_CPU_S
	echo "==== $title: ctest -j$CTEST_JOBS $ctest_args"
	# the time left after each test (scripts/check-eta.awk), from the
	# tests this run will run and their times in the last run here
	local costs="$dir/Testing/Temporary/CTestCostData.txt" list="$dir/check-tests.txt"
	[ -f "$costs" ] || costs=
	# shellcheck disable=SC2086
	(cd "$dir" && ctest -N $ctest_args) | sed -nE 's/^ *Test +#[0-9]+: +([^ ]+).*/\1/p' >"$list"
	# shellcheck disable=SC2086
	(cd "$dir" && $prefix ctest --output-on-failure -j"$CTEST_JOBS" $ctest_args) 2>&1 |
		tee "$dir/check.log" |
		"${ETA_AWK[@]}" -v jobs="$CTEST_JOBS" -v factor="${ETA_FACTOR:-1}" -v costdata="$costs" \
			-v pass_costs=scripts/check-costs.tsv -v pass_col="${ETA_COL:-2}" \
			-v table_file=tests/CMakeLists.txt -v list="$list" -f scripts/check-eta.awk
	status=${PIPESTATUS[0]}
	# "97% tests passed, 1 tests failed out of 52"
	line=$(grep -E '[0-9]+% tests passed' "$dir/check.log" | tail -1)
	local total failed passed
	total=$(sed -nE 's/.* out of ([0-9]+).*/\1/p' <<<"$line")
	failed=$(sed -nE 's/.* ([0-9]+) tests? failed.*/\1/p' <<<"$line")
	total=${total:-0}
	failed=${failed:-0}
	passed=$((total - failed))
	local names
	names=$(awk '/The following tests FAILED/ { f = 1; next } f && /^[[:space:]]+[0-9]+ - / { print $3 }' \
		"$dir/check.log" | tr '\n' ' ')
	children_cpu
	local cpu_tests=$((CHILDREN_CPU_S - cpu0))
	local times="tests $(fmt_time $((SECONDS - start))), $build_line (CPU $(fmt_time $((cpu_build + cpu_tests))): build $(fmt_time "$cpu_build"), tests $(fmt_time "$cpu_tests"))"
	if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$total" -eq 0 ]; then
		failed_passes=$((failed_passes + 1))
		SUMMARY+=("$title: FAILED: $passed passed, $failed failed of $total (${names% }), $times")
	else
		SUMMARY+=("$title: ok: $passed passed, 0 failed of $total, $times")
	fi
	# the pass's line of the summary now, as it ends: a run stopped
	# before the last pass still tells each finished pass's times
	echo "==== ${SUMMARY[${#SUMMARY[@]} - 1]}; all passes so far $(fmt_time "$SECONDS")"
}

# run_pass TITLE BUILD_DIR "CMAKE_ARGS" "CTEST_ARGS" ["TARGETS" ["PREFIX"]]:
# build here, then test
run_pass() {
	local title=$1 dir=$2 cmake_args=$3 ctest_args=$4 targets=${5:-} prefix=${6:-}
	echo "==== $title: configure and build in $dir/"
	build_dir "$dir" "$cmake_args" "$ctest_args" "$targets"
	test_pass "$title" "$dir" "$ctest_args" "$prefix"
}

san_cc= san_name=gcc
if command -v clang >/dev/null; then
	san_cc="-DCMAKE_C_COMPILER=clang" san_name=clang
fi

# Pass 3: the tests that run threads, under ThreadSanitizer (halt at the
# first report: its exit code fails the test).
TSAN_UNIT="test_window test_window_lagged test_window_split test_simt_par test_par_window test_worker_pool test_graph"
TSAN_CLI="threads trace_threads"
tsan_regex() {
	local re="" t
	for t in $TSAN_UNIT; do re="$re|$t"; done
	for t in $TSAN_CLI; do re="$re|cli_$t"; done
	echo "^(${re#|})\$"
}
# Pass 1's selection: all but the labels fidelity, long, sim and covered;
# pass 2's: those and the label release (the header says why)
ASAN_SELECT="-LE ^(fidelity|long|sim|covered)$"
RELEASE_SELECT="-L ^(fidelity|long|sim|release|covered)$"
TSAN_DIR=build-tsan
TSAN_TITLE="pass 3/3, ThreadSanitizer ($san_name), the threaded tests"
TSAN_CMAKE="-DGPUVM_SANITIZE=OFF -DGPUVM_TSAN=ON $san_cc"
# tsan_build: configure and build the TSan pass, after a probe: TSan maps
# its shadow at fixed addresses, and a kernel with more mmap randomisation
# than the runtime knows stops it at start ("unexpected memory mapping");
# a probe run tells, and setarch -R turns it off. Writes the prefix to run
# ctest under (or "skip REASON") to build-tsan/check-tsan.prefix.
tsan_build() {
	local dir=$TSAN_DIR prefix="" probe t0=$SECONDS cpu0
	children_cpu
	cpu0=$CHILDREN_CPU_S
	mkdir -p "$dir"
	rm -f "$dir/check-tsan.prefix"
	# shellcheck disable=SC2086
	if $CMAKE -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release $TSAN_CMAKE >"$dir/configure.log" 2>&1 &&
		$CMAKE --build "$dir" -j "$JOBS" --target test_worker_pool >/dev/null 2>&1; then
		probe=$("$dir/tests/test_worker_pool" 2>&1)
		if grep -q "FATAL: ThreadSanitizer" <<<"$probe"; then
			prefix="setarch $(uname -m) -R"
			if ! probe=$($prefix "$dir/tests/test_worker_pool" 2>&1) ||
				grep -q "FATAL: ThreadSanitizer" <<<"$probe"; then
				echo "skip ThreadSanitizer cannot start on this kernel ($(grep -m1 FATAL <<<"$probe"))" \
					>"$dir/check-tsan.prefix"
				return
			fi
		fi
	fi
	echo "run $prefix" >"$dir/check-tsan.prefix"
	build_dir "$dir" "$TSAN_CMAKE" "-R $(tsan_regex)" "gpuvm $TSAN_UNIT"
	# the probe's build is the pass's build too: most of it compiled there
	local status
	read -r status _ <"$dir/check-build.status"
	children_cpu
	echo "$status $((CHILDREN_CPU_S - cpu0)) $((SECONDS - t0))" >"$dir/check-build.status"
}
# tsan_test [WHERE]: the TSan pass's tests (halt at the first report: its
# exit code fails the test)
tsan_test() {
	local how="" prefix=""
	[ -f "$TSAN_DIR/check-tsan.prefix" ] && read -r how prefix <"$TSAN_DIR/check-tsan.prefix"
	if [ "$how" = skip ]; then
		SUMMARY+=("$TSAN_TITLE: skipped: $prefix")
		return
	fi
	TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} ETA_FACTOR=6 ETA_COL=3 \
		test_pass "$TSAN_TITLE" "$TSAN_DIR" "-R $(tsan_regex)" "$prefix" "${1:-}"
}
RELEASE_DIR=build-check
RELEASE_TITLE="pass 2/3, Release"
RELEASE_CMAKE="-DGPUVM_SANITIZE=OFF -DGPUVM_DEBUG_INFO=OFF"
# renice_tree PID: PID and its descendants back to nice 0, parents first
# (a child forked meanwhile inherits its parent's new priority)
renice_tree() {
	local p
	renice -n 0 -p "$1" >/dev/null 2>&1 || return 0
	for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		renice_tree "$p"
	done
}
asan_pass() {
	# leaks are errors; UBSan stops at the first report with a stack
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		ETA_FACTOR=3 ETA_COL=1 run_pass "pass 1/3, ASan + UBSan ($san_name)" build-asan \
		"-DGPUVM_SANITIZE=ON $san_cc" "$ASAN_SELECT" tested
}

case "$MODE" in
tsan)
	echo "==== $TSAN_TITLE: configure and build in $TSAN_DIR/"
	tsan_build
	tsan_test
	;;
release)
	run_pass "$RELEASE_TITLE" "$RELEASE_DIR" "$RELEASE_CMAKE" "$RELEASE_SELECT"
	;;
selections)
	# each pass's ctest selection, for tests/cli/check_passes.sh (every
	# test in at least one pass, the TSan list naming tests that exist)
	printf 'asan\t%s\nrelease\t%s\ntsan\t-R %s\n' "$ASAN_SELECT" "$RELEASE_SELECT" "$(tsan_regex)"
	printf 'tsan-names\t%s\n' "$TSAN_UNIT $(for t in $TSAN_CLI; do printf 'cli_%s ' "$t"; done)"
	exit 0
	;;
sanitize)
	asan_pass
	MODE="sanitize only"
	;;
full)
	# Passes 2 and 3 build in the background, at the lowest priority,
	# while pass 1 builds and tests: on two cores a build keeps one core
	# busy for much of its time (its links, the library before the tests
	# that link it) and the tests leave gaps (tests that wait on their
	# threads, the last ones of a pass), and the background builds take
	# that idle time; at nice 19 they take almost nothing from pass 1's
	# processes when both are ready (CFS weight 15 against 1024), so pass
	# 1's timings are unchanged. The background output goes to
	# build-check/build.log and build-tsan/build.log.
	mkdir -p "$RELEASE_DIR" "$TSAN_DIR"
	(
		renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		build_dir "$RELEASE_DIR" "$RELEASE_CMAKE" "$RELEASE_SELECT" >"$RELEASE_DIR/build.log" 2>&1
		tsan_build >"$TSAN_DIR/build.log" 2>&1
	) &
	bg_builds=$!
	echo "==== passes 2 and 3 build in the background at nice 19 ($RELEASE_DIR/build.log, $TSAN_DIR/build.log)"
	asan_pass
	# what is left of the builds now runs alone: back to the priority
	# the rest of make check has (needs the privilege to raise a
	# priority, as root in CI; without it they finish at nice 19, which
	# only matters on a machine busy with other work)
	renice_tree "$bg_builds"
	# without sanitizers, what pass 1 left out, at full size, and what
	# a plain build runs otherwise (the SIMT executor's shared run
	# stack, the path users run, exists only without AddressSanitizer)
	t_wait=$SECONDS
	wait "$bg_builds"
	[ $((SECONDS - t_wait)) -gt 0 ] &&
		echo "==== waited $(fmt_time $((SECONDS - t_wait))) for the background builds"
	test_pass "$RELEASE_TITLE" "$RELEASE_DIR" "$RELEASE_SELECT" "" "(background)"
	tsan_test "(background)"
	;;
manifest)
	GPUVM_TEST_FULL_MANIFEST=1 run_pass "manifest, Release, cli_validate's whole manifest" build-check \
		"$RELEASE_CMAKE" "-R ^cli_validate$" tested
	;;
quick)
	run_pass "quick, Release, unit + cli" build-check "$RELEASE_CMAKE" "-L ^(unit|cli)$" tested
	;;
*)
	echo "usage: check.sh full|sanitize|release|tsan|quick|manifest|selections" >&2
	exit 2
	;;
esac

children_cpu
CPU_TOTAL=$CHILDREN_CPU_S
echo
echo "==== make check summary ($MODE; ctest -j$CTEST_JOBS on $(nproc 2>/dev/null || echo '?') cores, total $(fmt_time "$SECONDS"), CPU $(fmt_time "$CPU_TOTAL"))"
for s in "${SUMMARY[@]}"; do
	echo "  $s"
done
if [ "$failed_passes" -ne 0 ]; then
	echo "  => FAILED ($failed_passes of ${#SUMMARY[@]} passes)"
	exit 1
fi
echo "  => all passes ok"
