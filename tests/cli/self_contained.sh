#!/usr/bin/env bash
# The repository is self-contained: no tracked file points outside it.
# A clone has no ../shared (the project's working notes and traces) and no
# research/*.md notes, so a path or citation naming them is broken for every
# reader. Fails, listing file:line, when a tracked file names ../shared,
# /work/shared or research/<note>.md; and when the real traces the tests and
# the validation manifest use are missing or lack their licence.
#
# Not scanned: tests/fuzz/corpus/ (fuzzer inputs: arbitrary bytes, some of
# them mutated copies of old presets; what they say is not read by anyone)
# and this script (it names the patterns).
# usage: self_contained.sh GPUVM_BINARY SOURCE_DIR
set -u
SRC=${2:?usage: self_contained.sh GPUVM SOURCE_DIR}
cd "$SRC" || exit 1
fail=0

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	list() { git ls-files -z; }
else
	# an exported tree (tarball): every file but build outputs
	list() { find . -type f ! -path './build*' ! -path './.git/*' -printf '%P\0'; }
fi

pattern='\.\./shared|/work/shared|research/[A-Za-z0-9_-]+\.md'
hits=$(list | grep -zv -e '^tests/fuzz/corpus/' -e '^tests/cli/self_contained\.sh$' |
	xargs -0 grep -nIE "$pattern" -- 2>/dev/null)
if [ -n "$hits" ]; then
	echo "FAIL: tracked files reference paths outside the repository (cite the primary"
	echo "      source, docs/references.md, or a path under traces/ instead):"
	printf '%s\n' "$hits" | head -50
	fail=1
else
	echo "ok: no tracked file names ../shared or research/*.md"
fi

# the real traces, with their licence, are part of the repository
for t in traces/LICENSE traces/README.md \
	traces/accelsim-vectoradd/kernelslist.g \
	traces/accelsim-rodinia-bptree-h100/kernelslist.g; do
	if [ ! -s "$t" ]; then
		echo "FAIL: $t missing"
		fail=1
	fi
done
grep -q 'MIT License' traces/LICENSE 2>/dev/null || { echo "FAIL: traces/LICENSE is not the MIT text"; fail=1; }

# the validation manifest's relative trace paths resolve inside the repository
# (a workload:SPEC row names gpuvm's own workload, no file)
while IFS=$'\t' read -r name trace _; do
	case "$name" in name | '' | '#'*) continue ;; esac
	case "$trace" in
	workload:*) ;;
	/*) echo "FAIL: validation/measurements.tsv row $name: absolute trace path $trace"; fail=1 ;;
	*) [ -e "$trace" ] || { echo "FAIL: validation/measurements.tsv row $name: $trace missing"; fail=1; } ;;
	esac
done <validation/measurements.tsv

[ $fail = 0 ] && echo "PASS: self-contained"
exit $fail
