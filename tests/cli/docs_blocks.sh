#!/usr/bin/env bash
# Every figure README.md and docs/ quote from a run sits in a generated block
# (<!-- generated: NAME --> ... <!-- end generated -->) that
# scripts/docs-blocks.py writes from committed data (docs/fidelity/fidelity.csv,
# docs/validation/validate.csv, docs/data/fig1/*.csv). Fails, naming the page,
# line and block, when a block differs from what the script would write: a
# number edited by hand, or data changed without rerunning the script.
# Also: the README has the blocks it promises, and --check writes nothing.
# usage: docs_blocks.sh GPUVM_BINARY SOURCE_DIR
set -u
SRC=$(realpath "${2:?usage: docs_blocks.sh GPUVM SOURCE_DIR}")
fail=0
for b in fidelity-summary validation-summary fig1-table; do
	grep -q "^<!-- generated: $b -->" "$SRC/README.md" ||
		{ echo "FAIL: README.md has no '$b' block"; fail=1; }
done
before=$(cd "$SRC" && git status --porcelain -- README.md docs 2>/dev/null)
if ! python3 "$SRC/scripts/docs-blocks.py" --check; then
	echo "FAIL: a generated block differs from its data (run scripts/docs-blocks.py and commit)"
	fail=1
fi
after=$(cd "$SRC" && git status --porcelain -- README.md docs 2>/dev/null)
[ "$before" = "$after" ] || { echo "FAIL: docs-blocks.py --check changed files"; fail=1; }
[ $fail = 0 ] && echo "PASS: generated blocks match their data"
exit $fail
