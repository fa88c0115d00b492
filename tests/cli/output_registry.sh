#!/usr/bin/env bash
# Issue 79, item 1: one output registry. Walks every command and every
# pair of its output options FROM THE CLI'S OWN OPTION TABLE
# (`gpuvm --list-options`), not from a list kept here, so a command or an
# output option added later is covered without editing this test:
#   1. for each output option A (given "same.png") and each file A claims
#      (the file, a checkpoint, a figure's .gp script, a page map's
#      PREFIX.csv, a directory's files), each other output option B is
#      given a value that makes B write that same file, spelled "x",
#      "./x" and "sub/../x", and through a symlink when the file exists:
#      exit 2, a message naming both options, no file written, an existing
#      file unchanged;
#   2. each valued option that is NOT declared an output, given a path in
#      an empty directory, writes nothing there and never trips the
#      registry's run-time guard ("was not claimed": a writer that skipped
#      its claim);
#   3. no source file writes a file around the output module (fopen "w",
#      O_CREAT outside src/core/output_file.c).
#   1b. each positional output (`positional` rows: trace convert's OUT)
#      against each output option, refused the same way; 1c. a positional
#      OUT in a command's usage must have such a row.
# Planted violations that fail it (docs/mutations.md): an output option
# added to stats that writes its file without a declaration (part 2), or
# with one but no gpuvm_cli_claim_or_report call (part 1).
# usage: output_registry.sh GPUVM SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-outreg.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mapfile -t commands < <("$GPUVM" --list-options | awk -F'\t' '$1 == "command" { print $2 }')
[ ${#commands[@]} -ge 10 ] || fail "gpuvm --list-options lists ${#commands[@]} commands"

# The checks below run gpuvm several hundred times, each refused in
# milliseconds; what they cost is the processes around it (under ASan the
# script's rm, grep and find were most of its CPU). So each check runs in
# a directory of its own, made with one mkdir (no rm: the work directory
# goes at the end), and reads the message and lists what is left with
# bash's builtins.
shopt -s globstar dotglob nullglob
# read_err FILE: the file's text into $err (a builtin: no process)
read_err() {
	err=
	IFS= read -r -d '' err < "$1" || true
}
# left_over [EXCEPT...]: the first three paths under . (recursively, as
# find lists them) other than out.txt, err.txt and link anywhere and the
# paths EXCEPT, into $left
left_over() {
	local f x n=0
	left=
	for f in **; do
		case ${f##*/} in out.txt | err.txt | link) continue ;; esac
		for x in "$@"; do [ "$f" = "$x" ] && continue 2; done
		left+="./$f "
		n=$((n + 1))
		[ $n -lt 3 ] || break
	done
	left=${left% }
}

# run_pair CMD A B VALUE_B: runs in a fresh directory; checks the refusal
run_pair() {
	local cmd=$1 a=$2 b=$3 vb=$4 existing=${5:-}
	local d="$work/run$checks"
	mkdir -p "$d/sub" && cd "$d" || return
	if [ -n "$existing" ]; then
		mkdir -p "$(dirname "$existing")"
		echo keep > "$existing"
	fi
	# shellcheck disable=SC2086
	timeout 60 "$GPUVM" $cmd "--$a=same.png" "--$b=$vb" > out.txt 2> err.txt
	local rc=$?
	checks=$((checks + 1))
	local what="$cmd --$a=same.png --$b=$vb" err left
	read_err err.txt
	if [ $rc -ne 2 ]; then
		fail "$what: exit $rc, wanted 2 (${err:0:300})"
	elif [[ $err != *"--$a"* || $err != *"--$b"* ]]; then
		fail "$what: the message does not name --$a and --$b: ${err:0:300}"
	elif [ -n "$existing" ] && [ "$(cat "$existing")" != keep ]; then
		fail "$what: $existing was changed"
	else
		left_over sub ${existing:+"$existing"} ${existing:+"$(dirname "$existing")"}
		[ -z "$left" ] || fail "$what: left $left behind"
	fi
	cd "$work" || exit 1
}

for cmd in "${commands[@]}"; do
	# shellcheck disable=SC2086
	table=$("$GPUVM" --list-options $cmd 2>/dev/null)
	# a command without an option table (presets, systems, workloads) may
	# not offer outputs: they would be parsed by hand, around the registry
	if ! grep -q "^option" <<< "$table" && ! printf '%s\n' "${commands[@]}" | grep -q "^$cmd "; then
		# shellcheck disable=SC2086
		if "$GPUVM" $cmd --help 2>&1 | grep -qE -- '--(json|csv|plot|output|emit[a-z-]*)'; then
			fail "$cmd has no option table (gpuvm_getopt) but its --help offers an output"
		fi
	fi
	# NAME KIND of each output option
	mapfile -t outs < <(awk -F'\t' '$1 == "option" && $6 != "-" { print $2 "\t" $6 }' <<< "$table")
	# NAME PATH TYPE of each file an output claims for "same.png"
	mapfile -t claims < <(awk -F'\t' '$1 == "claims" { print $2 "\t" $3 "\t" $4 }' <<< "$table")
	for oa in "${outs[@]}"; do
		a=${oa%%$'\t'*}
		for ca in "${claims[@]}"; do
			IFS=$'\t' read -r owner fa ta <<< "$ca"
			[ "$owner" = "$a" ] || continue
			fa=${fa//\*/1}  # "level*.png": level1.png
			fa=${fa//\?/a}  # a cache file's 16 hex digits
			for ob in "${outs[@]}"; do
				b=${ob%%$'\t'*}
				kb=${ob#*$'\t'}
				[ "$b" = "$a" ] && continue
				# B's claims for "same.png": "same.png" + SUFFIX; give B the
				# value whose SUFFIX file is A's file fa
				for cb in "${claims[@]}"; do
					IFS=$'\t' read -r ownb pb tb <<< "$cb"
					[ "$ownb" = "$b" ] || continue
					[ "$tb" = in-dir ] && continue
					case $pb in same.png*) ;; *) continue ;; esac
					suffix=${pb#same.png}
					case $fa in *"$suffix") ;; *) continue ;; esac
					vb=${fa%"$suffix"}
					[ -n "$vb" ] || continue
					# two directories may share a folder (probe --csv d --plot d)
					[ "$ta" = dir ] && [ "$tb" = dir ] && continue
					# a figure named "x.gp" is its own script: refused for itself
					[ "$kb" = figure ] && [ "${vb%.png}" = "$vb" ] && continue
					for v in "$vb" "./$vb" "sub/../$vb"; do
						run_pair "$cmd" "$a" "$b" "$v"
					done
					# the file exists: found by device and inode, through a link
					if [ "$ta" != dir ] && [ "$tb" != dir ] && [ -z "$suffix" ]; then
						rm -rf "$work/run" && mkdir -p "$work/run/sub"
						(
							cd "$work/run" && mkdir -p "$(dirname "$fa")" && echo keep > "$fa" &&
								ln -s "$fa" link
						)
						# shellcheck disable=SC2086
						(cd "$work/run" && timeout 60 "$GPUVM" $cmd "--$a=same.png" \
							"--$b=link" > out.txt 2> err.txt)
						rc=$?
						checks=$((checks + 1))
						if [ $rc -ne 2 ]; then
							fail "$cmd --$a=same.png --$b=link (-> $fa, existing): exit $rc"
						elif [ "$(cat "$work/run/$fa")" != keep ] || [ ! -L "$work/run/link" ]; then
							fail "$cmd --$a=same.png --$b=link: $fa changed or the link replaced"
						fi
					fi
				done
			done
		done
	done
	# part 1b: a positional output (trace convert IN OUT) against each
	# output option, the positionals before it given as placeholders:
	# the claims come before any input is read
	mapfile -t poss < <(awk -F'\t' '$1 == "positional" { print $2 "\t" $3 }' <<< "$table")
	for pp in "${poss[@]}"; do
		IFS=$'\t' read -r pname ppos <<< "$pp"
		lead=()
		for ((i = 1; i < ppos; i++)); do lead+=("in$i.trace"); done
		for ob in "${outs[@]}"; do
			b=${ob%%$'\t'*}
			for v in same.png ./same.png sub/../same.png; do
				rm -rf "$work/run" && mkdir -p "$work/run/sub"
				# shellcheck disable=SC2086
				(cd "$work/run" && timeout 60 "$GPUVM" $cmd "${lead[@]}" same.png "--$b=$v" \
					> out.txt 2> err.txt)
				rc=$?
				checks=$((checks + 1))
				what="$cmd ${lead[*]} same.png --$b=$v"
				if [ $rc -ne 2 ]; then
					fail "$what: exit $rc, wanted 2 ($(head -c 300 "$work/run/err.txt"))"
				elif ! grep -qF -- "$pname" "$work/run/err.txt" ||
					! grep -qF -- "--$b" "$work/run/err.txt"; then
					fail "$what: the message does not name $pname and --$b: $(head -c 300 "$work/run/err.txt")"
				elif [ -e "$work/run/same.png" ]; then
					fail "$what: same.png was written"
				fi
			done
		done
	done
	# part 1c: every positional output the command's usage shows (a word
	# OUT... that is not an option's value) is declared in its table, so
	# part 1b walks it
	# shellcheck disable=SC2086
	usage_pos=$("$GPUVM" $cmd --help 2>&1 | awk -v cmd="$cmd" -v subs="$(printf '%s\n' "${commands[@]}" | tr '\n' '|')" '
		{ line = $0; sub(/^usage:/, "", line); n = split(line, w, /[ \t]+/); k = 0 }
		{ for (i = 1; i <= n; i++) if (w[i] != "") { k++; t[k] = w[i] } }
		k > 0 && t[1] == "gpuvm" {
			m = split(cmd, c, " "); ok = 1
			for (i = 1; i <= m; i++) if (t[1 + i] != c[i]) ok = 0
			if (!ok) next
			if (index("|" subs, "|" cmd " " t[m + 2] "|")) next  # a subcommand line
			pos = 0; prev = ""
			for (i = m + 2; i <= k; i++) {
				if (t[i] ~ /^[[(|-]/ || prev ~ /^[[(]?-/) { prev = t[i]; continue }
				prev = t[i]; pos++
				if (t[i] ~ /^OUT/) print pos "\t" t[i]
			}
		}')
	while IFS=$'\t' read -r upos uname; do
		[ -n "$upos" ] || continue
		checks=$((checks + 1))
		awk -F'\t' -v p="$upos" '$1 == "positional" && $3 == p { f = 1 } END { exit !f }' <<< "$table" ||
			fail "$cmd: its usage takes $uname as positional argument $upos, not declared an output (gpuvm_cli_output.position)"
	done <<< "$usage_pos"
	# part 2: the other valued options write nothing
	mapfile -t vals < <(awk -F'\t' '$1 == "option" && $4 != "flag" && $6 == "-" { print $2 }' <<< "$table")
	for o in "${vals[@]}"; do
		d="$work/probe$checks"
		mkdir -p "$d/in" && cd "$d/in" || exit 1
		# shellcheck disable=SC2086
		timeout 20 "$GPUVM" $cmd "--$o=$d/written" > out.txt 2> err.txt
		checks=$((checks + 1))
		read_err err.txt
		left=
		for f in **; do
			case ${f##*/} in out.txt | err.txt | gpuvm-out) ;; *) left=$f && break ;; esac
		done
		if [[ $err == *"was not claimed"* ]]; then
			fail "$cmd --$o: writes a file it never claimed: ${err:0:300}"
		elif [ -e "$d/written" ] || [ -n "$left" ]; then
			fail "$cmd --$o: wrote a file but is not declared an output"
		fi
		cd "$work" || exit 1
	done
done

# part 3: every file is written through the output module
raw=$(grep -rnE 'fopen\([^)]*"[wa]b?\+?"|O_CREAT' "$SRC/src" --include=*.c |
	grep -v "^$SRC/src/core/output_file.c:" || true)
[ -z "$raw" ] || fail "files written around the output module (use gpuvm_output_open): $raw"

echo "output_registry: $checks checks over ${#commands[@]} commands, $failures failures"
[ $failures -eq 0 ]
