#!/usr/bin/env bash
# Every number gpuvm reads goes through one parser family (gpuvm/number.h,
# src/core/number.c): range and overflow checked, the input named. This
# test fails on a raw strtoul/strtol/strtoull/strtod/atoi/atof/sscanf call
# anywhere else in src/ (issue 79: sscanf's %u read an Accel-Sim grid of
# 4294967299 as 3), except the ones on the allow-list below, each with the
# reason it is there. The list may only shrink: a file with fewer calls
# than listed fails too, so that moving one off the list means editing it.
# The list is empty now; a planted call in any reader fails the test.
# usage: number_parsers.sh /path/to/gpuvm /path/to/source [src dir to scan]
set -uo pipefail
SRC=$(realpath "$2")
SCAN=${3:-$SRC/src}

# the family's own files
FAMILY="src/core/number.c include/gpuvm/number.h"

# path  count  why it is not on the family yet. Empty: every reader is on
# it (the ten files first allowed were moved in the commit that emptied it).
# A line here ("src/x.c 1 why") lets a file keep that many raw calls while
# it waits to be moved; the test fails when the file has more, or fewer.
ALLOW=$(
	cat <<'EOF'
EOF
)

RE='\b(strtoull|strtoul|strtoll|strtol|strtoimax|strtoumax|strtod|strtof|strtold|atoi|atol|atoll|atof|sscanf)[[:space:]]*\('
failures=0
declare -A found=()
while IFS= read -r f; do
	rel=${f#"$SCAN"/}
	rel=src/$rel
	case " $FAMILY " in *" $rel "*) continue ;; esac
	# comment lines are not calls
	n=$(grep -E "$RE" "$f" | grep -cvE '^[[:space:]]*(/?\*|//)')
	[ "$n" -gt 0 ] && found[$rel]=$n
done < <(find "$SCAN" -name '*.[ch]' | sort)

declare -A allowed=()
while read -r path count _; do
	[ -n "$path" ] && allowed[$path]=$count
done <<<"$ALLOW"

for rel in "${!found[@]}"; do
	n=${found[$rel]} a=${allowed[$rel]:-0}
	if [ "$n" -gt "$a" ]; then
		echo "FAIL $rel: $n raw number parse(s), $a allowed; use gpuvm/number.h:"
		grep -nE "$RE" "$SCAN/${rel#src/}" | sed 's/^/    /'
		failures=$((failures + 1))
	fi
done
for rel in "${!allowed[@]}"; do
	n=${found[$rel]:-0} a=${allowed[$rel]}
	if [ "$n" -lt "$a" ]; then
		echo "FAIL $rel: allow-list says $a raw parse(s), the file has $n: shrink the list"
		failures=$((failures + 1))
	fi
done

if [ $failures -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "ok - no raw number parse outside the family (${#allowed[@]} file(s) on the allow-list)"
