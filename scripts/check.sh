#!/usr/bin/env bash
# The test passes behind `make check` and `make check-quick`.
#
#   check.sh full    1. ASan + UBSan build (build-asan/, -O2 -g, asserts and
#                       invariant checks on, no recovery: any report fails the
#                       test), with clang where installed (its UBSan sees more
#                       than gcc's: a non-zero offset applied to a null pointer,
#                       float-to-integer overflow), else gcc; every test but
#                       the fidelity label (tens of full-size model runs that
#                       take 20+ minutes under ASan on two cores and exercise
#                       the code paths the cli and unit tests already run);
#                    2. plain Release build (build-check/), every test.
#                    Both passes always run, whatever the first gives.
#   check.sh sanitize  pass 1 alone.
#   check.sh quick   the unit and cli labels in one Release build (build-check/).
#
# Ends with a summary: per pass, the build's status, tests passed / failed /
# total, failed test names and the wall time; exits 1 if any pass failed.
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
failed_passes=0

fmt_time() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# run_pass TITLE BUILD_DIR "CMAKE_ARGS" "CTEST_ARGS"
run_pass() {
	local title=$1 dir=$2 cmake_args=$3 ctest_args=$4
	local start=$SECONDS line status
	echo "==== $title: configure and build in $dir/"
	# shellcheck disable=SC2086
	mkdir -p "$dir"
	if ! $CMAKE -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release $cmake_args >"$dir/configure.log" 2>&1; then
		cat "$dir/configure.log"
		SUMMARY+=("$title: CONFIGURE FAILED ($dir/configure.log), $(fmt_time $((SECONDS - start)))")
		failed_passes=$((failed_passes + 1))
		return
	fi
	if ! $CMAKE --build "$dir" -j "$JOBS"; then
		SUMMARY+=("$title: BUILD FAILED, no test run, $(fmt_time $((SECONDS - start)))")
		failed_passes=$((failed_passes + 1))
		return
	fi
	echo "==== $title: ctest -j$CTEST_JOBS $ctest_args"
	# shellcheck disable=SC2086
	(cd "$dir" && ctest --output-on-failure -j"$CTEST_JOBS" $ctest_args) 2>&1 | tee "$dir/check.log"
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
	if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$total" -eq 0 ]; then
		failed_passes=$((failed_passes + 1))
		SUMMARY+=("$title: FAILED: $passed passed, $failed failed of $total (${names% }), $(fmt_time $((SECONDS - start)))")
	else
		SUMMARY+=("$title: ok: $passed passed, 0 failed of $total, $(fmt_time $((SECONDS - start)))")
	fi
}

case "$MODE" in
full | sanitize)
	san_cc= san_name=gcc
	if command -v clang >/dev/null; then
		san_cc="-DCMAKE_C_COMPILER=clang" san_name=clang
	fi
	# leaks are errors; UBSan stops at the first report with a stack
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		run_pass "pass 1/2, ASan + UBSan ($san_name)" build-asan \
		"-DGPUVM_SANITIZE=ON $san_cc" "-LE ^fidelity$"
	[ "$MODE" = sanitize ] && MODE="sanitize only" || {
		# again without sanitizers: the SIMT executor's shared run stack (the
		# path users run) exists only in builds without AddressSanitizer
		run_pass "pass 2/2, Release" build-check "-DGPUVM_SANITIZE=OFF" ""
	}
	;;
quick)
	run_pass "quick, Release, unit + cli" build-check "-DGPUVM_SANITIZE=OFF" "-L ^(unit|cli)$"
	;;
*)
	echo "usage: check.sh full|sanitize|quick" >&2
	exit 2
	;;
esac

echo
echo "==== make check summary ($MODE; ctest -j$CTEST_JOBS on $(nproc 2>/dev/null || echo '?') cores, total $(fmt_time "$SECONDS"))"
for s in "${SUMMARY[@]}"; do
	echo "  $s"
done
if [ "$failed_passes" -ne 0 ]; then
	echo "  => FAILED ($failed_passes of ${#SUMMARY[@]} passes)"
	exit 1
fi
echo "  => all passes ok"
