#!/usr/bin/env bash
# Writes scripts/check-costs.tsv, make check's record of each test's
# seconds in each pass, from the ctest records (Testing/Temporary/
# CTestCostData.txt) that a make check left in build-asan/, build-check/
# and build-tsan/. scripts/check-eta.awk reads it for a pass whose build
# directory has no record of its own (a fresh clone, as in CI), so that
# the first run's time left comes from the same pass's times, not from the
# Release table in tests/CMakeLists.txt times a slowdown guessed per
# sanitizer (which CLI tests that run less under the sanitizers, and
# threads under ThreadSanitizer, are far from).
# usage: scripts/check-costs.sh [ROOT]   (ROOT: where the build directories
#        are, default the repository); rerun after a make check that
#        changed a pass's tests or their sizes, and commit the file
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${1:-.}
out=scripts/check-costs.tsv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	echo "# make check's seconds per test and pass (ctest -j2 wall times, one test's"
	echo "# line each; - where the pass did not run it), from $ROOT's build-asan/,"
	echo "# build-check/ and build-tsan/ at $(date -u +%Y-%m-%d), written by scripts/check-costs.sh"
	printf 'test\tasan\trelease\ttsan\n'
	awk -v OFS='\t' '
		FNR == 1 { col++ }
		$0 == "---" { nextfile }
		NF == 3 { t[$1] = 1; s[$1, col] = $3 }
		END {
			for (n in t) {
				line = n
				for (c = 1; c <= 3; c++)
					line = line OFS (((n, c) in s) ? sprintf("%.1f", s[n, c]) : "-")
				print line
			}
		}' "$ROOT/build-asan/Testing/Temporary/CTestCostData.txt" \
		"$ROOT/build-check/Testing/Temporary/CTestCostData.txt" \
		"$ROOT/build-tsan/Testing/Temporary/CTestCostData.txt" | sort
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "check-costs: $(($(wc -l <"$out") - 4)) tests in $out"
