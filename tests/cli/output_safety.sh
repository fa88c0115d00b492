#!/usr/bin/env bash
# Outputs never replace what the user pointed at, never half-write, and a
# lost write is an error. Devices are private nodes made with mknod in a
# temp dir: the real /dev/null and /dev/full are never touched.
# usage: output_safety.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-outputs.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
cd "$T"
failures=0
cases=0
WL=random-sampling:threads=256,reads=4
# a short probe (1 MiB..4 MiB strides, chases of at most 400 hops: p100's
# L1 TLB alone, 0.2 CPU s under ASan): these cases test how its outputs
# are written, not what it finds; the default ranges took 4-7 s each under
# ASan, and three levels' strides (1 MiB..64 MiB, 2500 hops) 1.1 s. (Its
# one-level preset loads as any other: cli_probe's --emit-preset cases.)
PROBE_QUICK="--sharing off --strides 1MiB..4MiB --max-hops 400"
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
ok() { echo "ok - $1"; }

mknod null c 1 3 || { echo "FAIL: mknod needs root"; exit 1; }
mknod full c 1 7
HAVE_GNUPLOT=0
command -v gnuplot >/dev/null && HAVE_GNUPLOT=1

is_chr() { [ -c "$1" ] && [ ! -L "$1" ]; }
no_temps() { # dir: no temp or spool file of ours left
	! ls -a "$1" | grep -q '\.tmp'
}

# --- a device stays a device ---------------------------------------------
dev_case() { # name, then the command (the device is ./null)
	local name=$1
	shift
	cases=$((cases + 1))
	"$@" >out.txt 2>err.txt
	local rc=$?
	if [ $rc -ne 0 ]; then fail "$name: exit $rc: $(head -c 300 err.txt)"; return; fi
	if ! is_chr null; then fail "$name: the device node was replaced"; mknod -m 666 null.new c 1 3; rm -f null; mv null.new null; return; fi
	if ! no_temps .; then fail "$name: temp file left: $(ls -a)"; return; fi
	ok "$name"
}
dev_case "sim --json DEVICE" "$GPUVM" sim --gpu p100 --workload $WL --json null --quiet
dev_case "sweep --csv DEVICE" "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --csv null -q
dev_case "sweep --json DEVICE" "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --json null -q
dev_case "trace record -o DEVICE" "$GPUVM" trace record $WL -o null
dev_case "trace info --json DEVICE" "$GPUVM" trace info "$SRC/traces/accelsim-vectoradd" --json null
dev_case "probe --json DEVICE" "$GPUVM" probe --target sim:p100 $PROBE_QUICK --json null --quiet
dev_case "probe --emit-preset DEVICE" "$GPUVM" probe --target sim:p100 $PROBE_QUICK --emit-preset null --quiet
dev_case "sim --page-map DEVICE" "$GPUVM" sim --gpu p100 --workload stream-triad:elems=65536 --page-map null --quiet
if [ $HAVE_GNUPLOT = 1 ]; then
	dev_case "sweep --plot DEVICE" "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --plot null -q
	dev_case "sim --pcie-plot DEVICE" "$GPUVM" sim --gpu k80 --workload stream-triad:elems=65536,mem=managed --pcie-plot null --quiet
fi

# --- a FIFO is written in place and receives the data ---------------------
fifo_case() { # name, want-substring, command... (the FIFO is ./pipe)
	local name=$1 want=$2
	shift 2
	cases=$((cases + 1))
	rm -f pipe got
	mkfifo pipe
	# bounded: a writer that replaced the FIFO would leave the reader waiting
	timeout 60 cat pipe >got &
	local reader=$!
	timeout 60 "$@" >out.txt 2>err.txt
	local rc=$?
	[ -p pipe ] || kill $reader 2>/dev/null
	wait $reader
	if [ $rc -ne 0 ]; then fail "$name: exit $rc: $(head -c 300 err.txt)"; return; fi
	if [ ! -p pipe ]; then fail "$name: the FIFO was replaced"; return; fi
	if ! grep -q -- "$want" got; then fail "$name: the FIFO did not receive '$want'"; return; fi
	ok "$name"
}
fifo_case "sim --json FIFO" '"sim_cycles"' "$GPUVM" sim --gpu p100 --workload $WL --json pipe --quiet
fifo_case "sweep --csv FIFO" 'workload.reads' "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --csv pipe -q
fifo_case "sim --page-map FIFO" 'alloc' "$GPUVM" sim --gpu p100 --workload stream-triad:elems=65536 --page-map pipe --quiet
if [ $HAVE_GNUPLOT = 1 ]; then
	fifo_case "sweep --plot FIFO (PNG)" 'PNG' "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --plot pipe -q
fi

# --- '-' is standard output -----------------------------------------------
cases=$((cases + 1))
if "$GPUVM" sim --gpu p100 --workload $WL --json - >stdout.json 2>err.txt &&
	python3 -c 'import json,sys; json.load(open("stdout.json"))["sim_cycles"]' 2>/dev/null; then
	ok "sim --json - prints the JSON alone"
else
	fail "sim --json -: stdout is not the JSON: $(head -c 200 stdout.json) $(head -c 200 err.txt)"
fi
cases=$((cases + 1))
if "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --csv - >stdout.csv 2>err.txt &&
	head -1 stdout.csv | grep -q '^gpu,' && [ "$(wc -l <stdout.csv)" -eq 3 ]; then
	ok "sweep --csv - prints the CSV alone"
else
	fail "sweep --csv -: $(head -c 300 stdout.csv) $(head -c 200 err.txt)"
fi
cases=$((cases + 1))
if "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2 --plot - >stdout.bin 2>err.txt; then
	fail "sweep --plot - accepted (figure bytes on stdout)"
elif [ -s stdout.bin ]; then
	fail "sweep --plot - wrote to stdout"
else
	ok "sweep --plot - refused: $(head -c 120 err.txt)"
fi

# --- a symlink is followed: the target gets the data, the link stays ------
cases=$((cases + 1))
echo old >target.json
ln -s target.json link.json
if "$GPUVM" sim --gpu p100 --workload $WL --json link.json --quiet 2>err.txt &&
	[ -L link.json ] && grep -q sim_cycles target.json && no_temps .; then
	ok "symlink to a regular file: target rewritten, link kept"
else
	fail "symlink: link=$(ls -l link.json) target=$(head -c 80 target.json) $(cat err.txt)"
fi
rm -f link.json target.json
cases=$((cases + 1))
ln -s null devlink
if "$GPUVM" sim --gpu p100 --workload $WL --json devlink --quiet 2>err.txt && [ -L devlink ] && is_chr null; then
	ok "symlink to a device: written through, both kept"
else
	fail "symlink to a device: $(ls -l devlink null) $(cat err.txt)"
fi
rm -f devlink
cases=$((cases + 1))
ln -s made.json dangling.json
if "$GPUVM" sim --gpu p100 --workload $WL --json dangling.json --quiet 2>err.txt && [ -L dangling.json ] &&
	grep -q sim_cycles made.json; then
	ok "dangling symlink: its target is created"
else
	fail "dangling symlink: $(ls -l) $(cat err.txt)"
fi
rm -f dangling.json made.json

# --- bad paths are refused before any simulation --------------------------
early_case() { # name, want, command...
	local name=$1 want=$2
	shift 2
	cases=$((cases + 1))
	# CPU time (bash's `time`: user + system), not wall: a busy host must
	# not fail a check that a refusal costs milliseconds
	local TIMEFORMAT='%3U %3S' rc ms
	{ time "$@" >out.txt 2>err.txt; } 2>cpu.txt
	rc=$?
	ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' cpu.txt)
	if [ $rc -ne 2 ]; then fail "$name: exit $rc, wanted 2: $(head -c 200 err.txt)"; return; fi
	if ! grep -qF -- "$want" err.txt; then fail "$name: message lacks '$want': $(cat err.txt)"; return; fi
	if [ "$ms" -gt 3000 ]; then fail "$name: took $ms ms of CPU (simulated before checking?)"; return; fi
	if ! no_temps . || ls nodir* >/dev/null 2>&1; then fail "$name: left a file"; return; fi
	ok "$name ($ms ms CPU): $(head -c 120 err.txt)"
}
# a run that would take minutes: the check must come first
BIG=random-sampling:region=4GiB,reads=1024
early_case "sim --json in a missing directory" "nodir/x.json" "$GPUVM" sim --gpu p100 --workload $BIG --json nodir/x.json
early_case "sim --json a directory" "is a directory" "$GPUVM" sim --gpu p100 --workload $BIG --json .
early_case "sim --page-map in a missing directory" "nodir/pm" "$GPUVM" sim --gpu p100 --workload $BIG --page-map nodir/pm
early_case "sweep --csv in a missing directory" "nodir/x.csv" "$GPUVM" sweep --gpu p100 --workload $BIG --vary workload.reads=2,4 --csv nodir/x.csv
early_case "sweep --json a directory" "is a directory" "$GPUVM" sweep --gpu p100 --workload $BIG --vary workload.reads=2,4 --json .
early_case "trace record -o in a missing directory" "nodir/t.gvt" "$GPUVM" trace record $BIG -o nodir/t.gvt
early_case "trace record -o -" "standard output" "$GPUVM" trace record $WL -o -
early_case "probe --json in a missing directory" "nodir/p.json" "$GPUVM" probe --target sim:p100 --json nodir/p.json
early_case "probe --emit-preset in a missing directory" "nodir/p.ini" "$GPUVM" probe --target sim:p100 --emit-preset nodir/p.ini
mkdir ro && chmod 555 ro
if [ "$(id -u)" = 0 ]; then
	: # root writes anywhere: the read-only case only means something for a user
else
	early_case "sim --json in a read-only directory" "not writable" "$GPUVM" sim --gpu p100 --workload $BIG --json ro/x.json
fi
rmdir ro
if [ $HAVE_GNUPLOT = 1 ]; then
	early_case "sim --pcie-plot in a missing directory" "nodir/u.png" "$GPUVM" sim --gpu k80 --workload $BIG --pcie-plot nodir/u.png
	early_case "sweep --plot in a missing directory" "nodir/f.png" "$GPUVM" sweep --gpu p100 --workload $BIG --vary workload.reads=2,4 --plot nodir/f.png
fi

# --- all outputs or none ----------------------------------------------------
cases=$((cases + 1))
rm -f keep.json
"$GPUVM" sim --gpu p100 --workload $WL --json keep.json --pcie-plot keep.png >out.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ]; then fail "--pcie-plot without managed memory accepted"
elif ls keep.* >/dev/null 2>&1 || ! no_temps .; then fail "--pcie-plot failure left $(ls keep.* 2>/dev/null)"
else ok "--pcie-plot without managed memory: exit $rc, no --json left: $(head -c 100 err.txt)"; fi
cases=$((cases + 1))
# the JSON is fine but the device for the CSV refuses: nothing is published
"$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --json s.json --csv full -q >out.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ]; then fail "sweep --csv FULL-DEVICE: exit 0"
elif ls s.json >/dev/null 2>&1 || ! no_temps .; then fail "sweep --csv FULL-DEVICE left s.json"
else ok "sweep: a refused in-place output publishes nothing (exit $rc): $(head -c 100 err.txt)"; fi
cases=$((cases + 1))
# probe: a directory it made is removed again when the run fails
"$GPUVM" probe --target sim:p100 $PROBE_QUICK --csv made_dir --json full --quiet >out.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ]; then fail "probe --json FULL-DEVICE: exit 0"
elif [ -e made_dir ]; then fail "probe: failed run left directory made_dir: $(ls made_dir)"
else ok "probe: failed run removes the directory it made (exit $rc)"; fi

# --- signals leave no temp file ---------------------------------------------
# SECONDS: the signal that long after the start; ~SECONDS: as soon as the
# run has made a file in sig/ (its temp file), polled every 0.05 s, and
# after SECONDS at the latest (the trace records: their temp file exists
# from the start, and under ASan their fixed 1.5 s were most of this
# test's CPU; a run signalled before it made anything would prove nothing).
sig_case() { # name, signal, [~]seconds, file-glob that must not exist, command...
	local name=$1 sig=$2 secs=$3 glob=$4
	shift 4
	cases=$((cases + 1))
	mkdir -p sig && rm -rf sig/*
	( cd sig && exec "$@" >../out.txt 2>../err.txt ) &
	local pid=$! made=() tries
	if [ "${secs#\~}" = "$secs" ]; then
		sleep "$secs"
	else
		tries=$(awk -v s="${secs#\~}" 'BEGIN { printf "%d", s * 20 }')
		while [ "$tries" -gt 0 ]; do
			shopt -s nullglob dotglob
			made=(sig/*)
			shopt -u nullglob dotglob
			[ ${#made[@]} -eq 0 ] || break
			sleep 0.05
			tries=$((tries - 1))
		done
	fi
	if ! kill -0 $pid 2>/dev/null; then fail "$name: finished before the signal; make it longer"; return; fi
	kill -"$sig" $pid
	wait $pid
	local rc=$?
	if [ $rc -eq 0 ]; then fail "$name: exit 0 after SIG$sig"; return; fi
	if [ -n "$(ls -A sig)" ]; then fail "$name: left $(ls -A sig)"; return; fi
	ok "$name: exit $rc, nothing left"
}
# a trace of a long run: its temp file exists from the start
sig_case "SIGINT during trace record" INT '~1.5' '*' "$GPUVM" trace record random-sampling:region=1GiB,reads=4096 -o t.gvt
sig_case "SIGTERM during trace record" TERM '~1.5' '*' "$GPUVM" trace record random-sampling:region=1GiB,reads=4096 -o t.gvt
sig_case "SIGINT during probe (made directories)" INT 0.25 '*' "$GPUVM" probe --target sim:p100 --csv c --plot p --json p.json --quiet
sig_case "SIGTERM during sweep" TERM 1 '*' "$GPUVM" sweep --gpu p100 --workload random-sampling:region=4GiB,reads=1024 --vary workload.threads=65536,131072 -j 2 --csv s.csv -q

# --- sweep workers die with their parent -------------------------------------
for sig in INT KILL; do
	cases=$((cases + 1))
	"$GPUVM" sweep --gpu p100 --workload random-sampling:region=4GiB,reads=1024 \
		--vary workload.threads=65536,131072,196608 -j 2 -q >out.txt 2>err.txt &
	parent=$!
	kids=""
	for _ in $(seq 50); do
		kids=$(pgrep -P $parent | tr '\n' ' ')
		[ "$(echo $kids | wc -w)" -ge 2 ] && break
		sleep 0.1
	done
	if [ -z "$kids" ]; then fail "sweep workers: none started"; kill -KILL $parent; wait $parent; continue; fi
	kill -$sig $parent
	wait $parent 2>/dev/null
	sleep 0.5
	alive=""
	# a killed worker may linger as a zombie until init reaps it: only a
	# running one counts
	for k in $kids; do
		st=$(awk '{print $3}' /proc/$k/stat 2>/dev/null)
		[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && alive="$alive $k"
	done
	if [ -n "$alive" ]; then fail "sweep workers outlive a SIG$sig to their parent:$alive"; kill -KILL $alive
	else ok "sweep workers ($kids) die with their parent (SIG$sig)"; fi
done

# --- writes to stdout are checked -------------------------------------------
full_case() { # name, command... (stdout is the private full device)
	local name=$1
	shift
	cases=$((cases + 1))
	"$@" >full 2>err.txt
	local rc=$?
	if [ $rc -eq 0 ]; then fail "$name > FULL: exit 0"; return; fi
	# one wording in every command, the first failed write's reason (issue
	# 79: some said "I/O error", others "No space left on device")
	if ! grep -q "standard output: write failed: No space left on device" err.txt; then
		fail "$name > FULL: not the one message: $(cat err.txt)"; return
	fi
	ok "$name > FULL: exit $rc"
}
full_case "sim" "$GPUVM" sim --gpu p100 --workload $WL
full_case "sim --json -" "$GPUVM" sim --gpu p100 --workload $WL --json -
full_case "sweep" "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4
full_case "sweep --csv -" "$GPUVM" sweep --gpu p100 --workload $WL --vary workload.reads=2,4 --csv -
full_case "trace info" "$GPUVM" trace info "$SRC/traces/accelsim-vectoradd"
full_case "trace info --json -" "$GPUVM" trace info "$SRC/traces/accelsim-vectoradd" --json -
full_case "sim --stats-csv -" "$GPUVM" sim --gpu p100 --workload $WL --stats-csv -
full_case "probe" "$GPUVM" probe --target sim:p100 $PROBE_QUICK
full_case "presets" "$GPUVM" presets
full_case "presets p100" "$GPUVM" presets p100
full_case "workloads" "$GPUVM" workloads
full_case "systems" "$GPUVM" systems
full_case "systems gh200" "$GPUVM" systems gh200
full_case "systems --evidence" "$GPUVM" systems --evidence
full_case "graph info" "$GPUVM" graph info rmat:scale=8,ef=4,seed=1
full_case "graph info --json -" "$GPUVM" graph info rmat:scale=8,ef=4,seed=1 --json -
full_case "--help" "$GPUVM" --help
full_case "sim --help" "$GPUVM" sim --help

echo "output_safety: $cases cases, $failures failed"
[ $failures -eq 0 ]
