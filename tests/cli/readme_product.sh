#!/usr/bin/env bash
# README.md is a product page: at most 300 lines, and none of the project's
# development vocabulary (issue numbers, rounds and passes of work, done-when
# lists, experiment labels E1-E4, seed file names), which means nothing to a
# reader outside the project; history goes to CHANGELOG.md, dated lab records
# to docs/notes/. Also: LICENSE, CITATION.cff and CHANGELOG.md exist, and
# docs/index.md names every page under docs/.
# usage: readme_product.sh GPUVM_BINARY SOURCE_DIR
set -u
SRC=$(realpath "${2:?usage: readme_product.sh GPUVM SOURCE_DIR}")
cd "$SRC" || exit 1
fail=0
n=$(wc -l < README.md)
[ "$n" -le 300 ] || { echo "FAIL: README.md has $n lines (at most 300)"; fail=1; }

# pattern<TAB>what it is (extended regular expressions, case-insensitive)
VOCAB=(
	$'issue #?[0-9]\tan issue number'
	$'\\bround [0-9]\ta development round'
	$'\\b(this|that|earlier|previous|next|last|the) rounds?\\b\ta development round'
	$'\\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|[0-9]+(st|nd|rd|th)) pass\\b\ta development pass'
	$'done[- ]when\ta done-when list'
	$'seeds/[0-9]\ta seed file name'
	$'\\bseed [0-9]{3}\\b\ta seed number'
	$'\\bE[1-4]\\b\tan experiment label (E1-E4)'
	$'\\bCEO\\b\ta project role'
	$'\\bh-[a-z0-9]+ branch\ta development branch'
)
for v in "${VOCAB[@]}"; do
	pat=${v%%$'\t'*}
	hits=$(grep -n -i -E -- "$pat" README.md)
	if [ -n "$hits" ]; then
		echo "FAIL: README.md uses ${v#*$'\t'} ($pat):"
		printf '  %s\n' "$hits" | head -5
		fail=1
	fi
done

for f in LICENSE CITATION.cff CHANGELOG.md docs/index.md; do
	[ -s "$f" ] || { echo "FAIL: $f missing"; fail=1; }
done
grep -q '^cff-version: 1.2.0' CITATION.cff 2>/dev/null || { echo "FAIL: CITATION.cff is not CFF 1.2.0"; fail=1; }
grep -q 'MIT License' LICENSE 2>/dev/null || { echo "FAIL: LICENSE is not the MIT text"; fail=1; }
# every page under docs/ is listed in docs/index.md (by its path relative to docs/)
for p in $(find docs -name '*.md' ! -path docs/index.md | sort); do
	rel=${p#docs/}
	grep -qF "($rel)" docs/index.md || { echo "FAIL: docs/index.md does not list $p"; fail=1; }
done
[ $fail = 0 ] && echo "PASS: README is a product page ($n lines); LICENSE, CITATION.cff, CHANGELOG.md, docs/index.md"
exit $fail
