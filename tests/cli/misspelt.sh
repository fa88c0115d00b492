#!/usr/bin/env bash
# A misspelt option, subcommand or preset gets one line on stderr, exit 2
# and a suggestion, for EVERY command: the commands come from `gpuvm
# --help` (the CLI's own table), each command's options from its own
# --help usage lines, so a command or option added later is covered
# without editing this test.
#   1. gpuvm CMD [SUB] --zqxjvk           one line naming the command, exit 2
#   2. gpuvm CMD [SUB] --<option, two letters swapped>   "did you mean '--option'?"
#   3. gpuvm CMDX (a command misspelt)    "did you mean 'CMD'?"
#   4. a preset misspelt (P-100) wherever a command takes a preset
# usage: misspelt.sh GPUVM_BINARY SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-misspelt.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0 checks=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect_one_line WHAT PATTERN -- ARGS: exit 2, nothing on stdout, one line
# on stderr that matches PATTERN (grep -E)
expect_one_line() {
	local what=$1 pattern=$2
	shift 3
	checks=$((checks + 1))
	"$GPUVM" "$@" >out.txt 2>err.txt </dev/zero
	local rc=$?
	local lines
	lines=$(wc -l <err.txt)
	if [ $rc -ne 2 ] || [ -s out.txt ] || [ "$lines" -ne 1 ] || ! grep -qE -- "$pattern" err.txt; then
		bad "$what: gpuvm $* -> exit $rc, $lines stderr lines (want 2, 1 line matching /$pattern/):"
		head -5 err.txt out.txt | sed 's/^/    /'
	fi
}

mapfile -t commands < <("$GPUVM" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ ${#commands[@]} -ge 10 ] || { echo "FAIL: gpuvm --help lists ${#commands[@]} commands"; exit 1; }

# forms CMD: one line per form of the command its usage shows, "SUB|first
# long option" (SUB empty for the command itself; a subcommand is a
# lowercase word after CMD followed by an argument in capitals or brackets)
forms() {
	"$GPUVM" "$1" --help 2>&1 | awk -v c="$1" '
		/^usage:/ { u = 1 }
		u && /^$/ { exit }
		!u { next }
		{
			line = $0; sub(/^usage:/, "", line)
			n = split(line, w, " ")
			if (w[1] == "gpuvm" && w[2] == c) {
				form = (w[3] ~ /^[a-z]+$/ && w[4] ~ /^[A-Z[]/) ? w[3] : ""
				if (!(form in seen)) { seen[form] = 1; order[++k] = form }
			}
			for (i = 1; i <= n && w[i] !~ /^\(/; i++)
				if (w[i] ~ /^\[?--[a-z][a-z-][a-z-]+/ && !(form in opt)) {
					o = w[i]; sub(/^\[/, "", o); sub(/[^a-z-].*$/, "", o)
					if (o != "--help") opt[form] = o
				}
		}
		END { for (j = 1; j <= k; j++) print order[j] "|" (order[j] in opt ? opt[order[j]] : "--help") }'
}

for cmd in "${commands[@]}"; do
	while IFS="|" read -r sub opt; do
		args=("$cmd")
		[ -n "$sub" ] && args+=("$sub")
		expect_one_line "${args[*]}: unknown option" "gpuvm $cmd.*'--zqxjvk'" -- "${args[@]}" --zqxjvk
		name=${opt#--}
		typo="--${name:0:1}${name:2:1}${name:1:1}${name:3}"
		expect_one_line "${args[*]}: misspelt $opt" "did you mean '$opt'\\?" -- "${args[@]}" "$typo"
	done < <(forms "$cmd")
	sub=$(forms "$cmd" | head -1 | cut -d"|" -f1)
	# the preset: every command whose usage lines take --gpu or sim:PRESET
	help=$("$GPUVM" "$cmd" --help 2>&1 | awk '/^usage:/ { u = 1 } u && /^$/ { exit } u')
	if grep -q -- '--gpu' <<<"$help" && [ -z "$sub" ]; then
		case $cmd in
		sim | sweep) extra=(--workload stream-triad) ;;
		*) extra=() ;;
		esac
		expect_one_line "$cmd: misspelt preset" "did you mean 'p100'\\?" -- "$cmd" --gpu P-100 "${extra[@]}"
	fi
	if grep -q 'sim:PRESET' <<<"$help"; then
		expect_one_line "$cmd: misspelt preset" "did you mean 'p100'\\?" -- "$cmd" --target sim:P-100
	fi
	# the command itself misspelt
	typo_cmd="${cmd:0:1}${cmd:2:1}${cmd:1:1}${cmd:3}"
	[ "$typo_cmd" = "$cmd" ] && typo_cmd="${cmd}x"
	expect_one_line "command $cmd misspelt" "did you mean '$cmd'\\?" -- "$typo_cmd"
done
# preset and system names given as arguments
expect_one_line "presets NAME" "did you mean 'p100'\\?" -- presets P-100
expect_one_line "systems NAME" "did you mean 'gh200'\\?" -- systems gh20

# the planted case: an option the test knows is missing gets no suggestion
# it could not have, and still one line
expect_one_line "far from every option" "gpuvm sim: unknown option '--qqqqqqqqqqqq' \\(see" -- sim --qqqqqqqqqqqq

echo "$checks checks over ${#commands[@]} commands"
[ $fail -eq 0 ] && echo "all misspelt-input checks passed"
exit $((fail > 0))
