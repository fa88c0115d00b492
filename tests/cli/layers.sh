#!/usr/bin/env bash
# The source folders keep to their layers (docs/layers.tsv, the one place
# the order is written; scripts/check-layers.py reads it): no #include from
# a lower layer to a higher one, no circle between folders. Then the check
# is shown to fail: on a copy of the tree it is run with an upward include
# planted (src/core including the system's header), with a circle planted
# between two folders of one layer (src/memsys and src/xlat including each
# other), with a folder the table does not place, and with a public header
# it cannot place; each must fail and name what was planted.
# usage: layers.sh GPUVM_BINARY SOURCE_DIR
set -u
SRC=$(realpath "${2:?usage: layers.sh GPUVM SOURCE_DIR}")
CHECK="$SRC/scripts/check-layers.py"
fail=0
out=$(python3 "$CHECK" "$SRC") || { echo "$out"; echo "FAIL: the tree breaks its layers"; exit 1; }
echo "$out"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fresh() {
	rm -rf "$work/t" && mkdir -p "$work/t/docs" &&
		cp -r "$SRC/src" "$SRC/include" "$work/t/" && cp "$SRC/docs/layers.tsv" "$work/t/docs/"
}
# expect_fail WHAT PATTERN: the check fails on the planted tree and its
# output matches PATTERN
expect_fail() {
	local got rc
	got=$(python3 "$CHECK" "$work/t" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		echo "FAIL: $1: the check passed"
		echo "$got" | tail -3
		fail=1
	elif ! grep -qE "$2" <<<"$got"; then
		echo "FAIL: $1: the check failed without naming it (want /$2/):"
		echo "$got" | head -5
		fail=1
	else
		echo "PASS: $1 is caught: $(grep -E "$2" <<<"$got" | head -1)"
	fi
}

fresh
printf '#include "system/system.h"\n' >> "$work/t/src/core/units.c"
expect_fail "an upward include (core -> system)" \
	'src/core/units.c:[0-9]+: #include "system/system.h": src/core \(layer 0\) includes src/system'

fresh
printf '#include "xlat/xlat.h"\n' >> "$work/t/src/memsys/memsys.c"
printf '#include "memsys/memsys.h"\n' >> "$work/t/src/xlat/tlb.c"
expect_fail "a circle within one layer (memsys <-> xlat)" \
	'a circle between folders: .*src/memsys <-> src/xlat'

fresh
mkdir -p "$work/t/src/attic" && printf 'int attic;\n' > "$work/t/src/attic/attic.c"
expect_fail "a folder without a layer" 'src/attic has no layer'

fresh
printf '#ifndef X\n#define X\nstruct orphan { int x; };\n#endif\n' > "$work/t/include/gpuvm/orphan.h"
printf '#include "gpuvm/orphan.h"\n' >> "$work/t/src/core/units.c"
expect_fail "a public header nobody places" 'include/gpuvm/orphan.h declares no function'

exit $fail
