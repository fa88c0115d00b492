#!/usr/bin/env bash
# Every command the README shows in its ```sh blocks runs as written, from
# a directory holding nothing but the repository's traces/, validation/,
# python/ and examples/ (no shared project folder, nothing else a clone
# lacks): build/gpuvm stands for this build's binary, and GPUVM_BIN points
# the Python package at it.
# A command fails the test when it exits non-zero or when a file it names
# with an output option (--json, --csv, --plot, --stats-csv, --page-map,
# --emit-preset, trace convert's output) is not written; the message names
# the README line.
#
# Not run, each for the reason printed: lines with elided arguments ("...",
# the shard and MPI forms: tests/cli/sweep.sh and docs_mpi_example.sh run
# them in full), `make` targets (CI runs make check and make build; make
# demo is the main job), the experiment scripts (make fidelity runs them),
# the few commands whose full size takes minutes (SLOW below: the
# reason says what covers them), and the Python lines when /usr/bin/python3
# has no pandas. Set README_EXAMPLES_ALL=1 to run the slow ones too.
# usage: readme_examples.sh GPUVM_BINARY SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
README="$SRC/README.md"
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-readme.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
mkdir build && ln -s "$GPUVM" build/gpuvm
# the README's commands run from the repository root: what they read
ln -s "$SRC/traces" traces
ln -s "$SRC/validation" validation
ln -s "$SRC/python" python
ln -s "$SRC/examples" examples
# the Python package runs this build's binary, not the source tree's build/
export GPUVM_BIN="$GPUVM"

# command substring -> why it is not run by default (CPU seconds measured
# in Release on the 2-core AMD EPYC host, 2026-11-23)
SLOW=(
	"bench --repeat 3|the benchmark itself, minutes; cli_bench_threads runs bench --small"
	"gpuvm validate|replays all 313 rows of validation/measurements.tsv, about 80 CPU s (GEMM up to n = 512, 2MM/3MM/SYRK up to 256, 3DCONV up to 128, the H100 SXM5 rows five launches each); cli_validate runs the shipped manifest with --csv, --json and --plot"
)

# The README's ```sh blocks: "LINE<TAB>command", continuation lines joined,
# trailing comments dropped.
awk '
	/^```sh/ { on = 1; next }
	/^```/ { on = 0; next }
	on {
		line = $0
		if (cont != "") { cmd = cmd " " line } else { cmd = line; start = NR }
		if (cmd ~ /\\$/) { sub(/\\$/, "", cmd); cont = 1; next }
		cont = ""
		print start "\t" cmd
	}' "$README" > commands.tsv
[ -s commands.tsv ] || { echo "FAIL: no \`\`\`sh blocks in README.md"; exit 1; }

fail=0 ran=0 skipped=0
outputs_of() {
	# file arguments of output options; "-" is stdout
	awk '{ for (i = 1; i < NF; i++) if ($i ~ /^--(json|csv|plot|stats-csv|emit-preset)$/ && $(i + 1) != "-") print $(i + 1) }' <<<"$1"
	# trace convert IN OUT
	awk '$1 == "build/gpuvm" && $2 == "trace" && $3 == "convert" { print $5 }' <<<"$1"
}
while IFS=$'\t' read -r line cmd; do
	# strip a trailing comment (no example quotes a '#')
	cmd=$(sed 's/[[:space:]]#.*$//; s/[[:space:]]*$//' <<<"$cmd")
	[ -n "$cmd" ] || continue
	why=""
	case "$cmd" in
	*"..."*) why="elided arguments" ;;
	*"sweep merge a.csv b.csv"*) why="merges the shards of the elided line above; cli_sweep merges real shards" ;;
	make\ *) why="a make target" ;;
	experiments/* | "bash experiments/"*) why="an experiment script (make fidelity)" ;;
	*/usr/bin/python3*)
		# the Python examples need Debian's pandas (scripts/install-deps.sh)
		/usr/bin/python3 -c 'import pandas' 2>/dev/null || why="no pandas for /usr/bin/python3 (cli_python skips too)" ;;
	esac
	if [ -z "$why" ] && [ "${README_EXAMPLES_ALL:-0}" != 1 ]; then
		for s in "${SLOW[@]}"; do
			[[ "$cmd" == *"${s%%|*}"* ]] && why="${s#*|}" && break
		done
	fi
	if [ -n "$why" ]; then
		echo "skip  README.md:$line: $cmd  ($why)"
		skipped=$((skipped + 1))
		continue
	fi
	ran=$((ran + 1))
	outs=$(outputs_of "$cmd")
	for o in $outs; do [ -d "$o" ] || rm -f "$o"; done
	t0=$(date +%s.%N)
	if ! timeout 300 bash -c "$cmd" > "out.$line.txt" 2> "err.$line.txt"; then
		echo "FAIL: README.md:$line: '$cmd' exited non-zero: $(tail -3 "err.$line.txt")"
		fail=1
		continue
	fi
	for o in $outs; do
		# --page-map-style prefixes and --csv DIR of probe write inside
		if [ ! -e "$o" ]; then
			echo "FAIL: README.md:$line: '$cmd' did not write $o"
			fail=1
		fi
	done
	# --page-map PREFIX writes PREFIX.csv
	pm=$(awk '{ for (i = 1; i < NF; i++) if ($i == "--page-map") print $(i + 1) }' <<<"$cmd")
	if [ -n "$pm" ] && [ ! -s "$pm.csv" ]; then
		echo "FAIL: README.md:$line: '$cmd' did not write $pm.csv"
		fail=1
	fi
	echo "ok    README.md:$line: $cmd ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s wall)"
done < commands.tsv
echo "ran $ran README commands, skipped $skipped"
[ "$ran" -ge 15 ] || { echo "FAIL: only $ran README commands ran (the extraction broke?)"; fail=1; }
[ $fail = 0 ] && echo "PASS: readme examples"
exit $fail
