#!/usr/bin/env bash
# gpuvm presets import: an Accel-Sim gpgpusim.config (the QV100 and SM90_H100
# fixtures of tests/data/gpgpusim, the second with a -config include) becomes
# a preset that `gpuvm sim` runs, with the mapped values in the run's config:
# SMs, core clock, L2 size (sets x line x ways per sub-partition x channels x
# sub-partitions) and DRAM bandwidth (channels x bus bytes x DRAM clock x data
# rate), each recomputed here from the fixture; every imported key cites its
# option and file:line; unmapped options and base keys are listed. Bad input
# (a line that is not an option, a bad number, a missing file or include, an
# unterminated quote, values the base cannot take, a misspelt option or base)
# is refused in one line naming file:line, and leaves no output behind; an
# output that is a symlink stays a link (gpuvm/output_file.h).
# usage: presets_import.sh GPUVM_BINARY SOURCE_DIR
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
DATA=$SRC/tests/data/gpgpusim
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-import.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); echo "FAIL: $*"; fail=$((fail + 1)); }

# opt FILE NAME: the value of -NAME in a fixture (its last word on the line)
opt() { awk -v n="-$2" '$1 == n { print $2 }' "$1"; }
# line FILE NAME: the line -NAME is given on
line() { awk -v n="-$2" '$1 == n { print NR }' "$1"; }
# cfg JSON KEY: a key of a run's config
cfg() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['config'][sys.argv[2]])" "$1" "$2"; }
same() { # same WHAT GOT WANT
	if python3 -c "import sys; a, b = sys.argv[1:3]; sys.exit(0 if abs(float(a) - float(b)) <= 1e-9 * max(1, abs(float(b))) else 1)" "$2" "$3" 2>/dev/null; then
		ok
	else
		bad "$1: got '$2', want '$3'"
	fi
}
size_bytes() { python3 -c "
import sys; s = sys.argv[1]; u = {'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30, 'B': 1}
for k, v in u.items():
    if s.endswith(k): print(int(float(s[:-len(k)]) * v)); break
else: print(int(s))" "$1"; }

# import FIXTURE OUT BASE_WANTED: import, run stream-triad, check the values
check_import() {
	local fx=$1 out=$2 want_base=$3 mem=${4:-$1}
	if ! "$GPUVM" presets import "$fx" -o "$out" 2>"$out.err"; then
		bad "import $fx: $(cat "$out.err")"
		return
	fi
	grep -q "on base $want_base:" "$out.err" && ok || bad "$fx: default base is not $want_base: $(head -1 "$out.err")"
	if ! "$GPUVM" sim --gpu "$out" --workload stream-triad:elems=1048576 --json "$out.json" >"$out.txt" 2>&1; then
		bad "sim --gpu $out: $(tail -3 "$out.txt")"
		return
	fi
	grep -q '^result .*checksum=' "$out.txt" && ok || bad "sim --gpu $out gave no result"
	local clusters mhz dl2 nmem nsub bus ratio per dclk
	clusters=$(opt "$fx" gpgpu_n_clusters)
	mhz=$(opt "$fx" gpgpu_clock_domains | cut -d: -f1)
	dclk=$(opt "$fx" gpgpu_clock_domains | cut -d: -f4)
	dl2=$(opt "$mem" gpgpu_cache:dl2 | cut -d, -f1)
	nmem=$(opt "$fx" gpgpu_n_mem)
	nsub=$(opt "$fx" gpgpu_n_sub_partition_per_mchannel)
	bus=$(opt "$mem" gpgpu_dram_buswidth)
	per=$(opt "$mem" gpgpu_n_mem_per_ctrlr)
	ratio=$(opt "$mem" dram_data_command_freq_ratio)
	same "$fx gpu.sms" "$(cfg "$out.json" gpu.sms)" "$clusters"
	same "$fx gpu.clock_mhz" "$(cfg "$out.json" gpu.clock_mhz)" "$mhz"
	local l2_want
	l2_want=$(echo "$dl2" | awk -F: -v c="$nmem" -v s="$nsub" '{ print $2 * $3 * $4 * c * s }')
	same "$fx l2.size" "$(size_bytes "$(cfg "$out.json" l2.size)")" "$l2_want"
	same "$fx dram.bandwidth_gb_s" "$(cfg "$out.json" dram.bandwidth_gb_s)" \
		"$(awk -v a="$nmem" -v b="$bus" -v c="$dclk" -v d="$ratio" -v p="$per" 'BEGIN { printf "%.6f", a * p * b * c * d / 1000 }')"
	same "$fx dram.channels" "$(cfg "$out.json" dram.channels)" "$nmem"
	# each imported key cites its option, value and file:line
	grep -qx "# \[AS\] -gpgpu_n_clusters $clusters ($(basename "$fx"):$(line "$fx" gpgpu_n_clusters)),.*" "$out" && ok ||
		bad "$out: no citation of -gpgpu_n_clusters with its file:line"
	grep -q "^# \[AS\] -gpgpu_cache:dl2 .*($(basename "$mem"):$(line "$mem" gpgpu_cache:dl2))" "$out" && ok ||
		bad "$out: no citation of -gpgpu_cache:dl2 with its file:line"
	# unmapped options and base keys: on stderr and in the file
	grep -q "^unmapped: -gpgpu_shader_registers 65536 (.*:$(line "$fx" gpgpu_shader_registers))" "$out.err" && ok ||
		bad "$fx: -gpgpu_shader_registers not listed as unmapped on stderr"
	grep -q "^#   -gpgpu_shader_registers 65536 " "$out" && ok || bad "$out: unmapped options not listed in the file"
	# -gpgpu_TB_launch_latency 0 is GPGPU-Sim's "not modelled": the base's value stays, with the reason
	grep -q "^unmapped: -gpgpu_TB_launch_latency 0 .*: 0 is GPGPU-Sim's default" "$out.err" &&
		[ "$(cfg "$out.json" gpu.cta_launch_cycles)" = "$("$GPUVM" presets "$want_base" | awk -F'[ =;]+' '$1 == "cta_launch_cycles" { print $2 }')" ] && ok ||
		bad "$fx: -gpgpu_TB_launch_latency 0 replaced the base's gpu.cta_launch_cycles ($(cfg "$out.json" gpu.cta_launch_cycles))"
	grep -q "^kept from base $want_base:.* tlb.l1.entries " "$out.err" && ok || bad "$fx: base keys not listed on stderr"
	grep -q "^# Keys left at the base's value ($want_base):" "$out" && ok || bad "$out: base keys not listed in the file"
}

check_import "$DATA/qv100.config" qv100.ini v100
check_import "$DATA/h100.config" h100.ini h100 "$DATA/memory.config"

# -gpgpu_scheduler: gto is core.warp_scheduler's gto (the run uses it);
# lrr has no counterpart and is listed with why
grep -q "^unmapped: -gpgpu_scheduler lrr .*: gpuvm models gto only" qv100.ini.err && ok ||
	bad "qv100: -gpgpu_scheduler lrr not listed as unmapped with its reason"
sed 's/^-gpgpu_scheduler lrr$/-gpgpu_scheduler gto/' "$DATA/qv100.config" >gto.config
if "$GPUVM" presets import gto.config -o gto.ini 2>gto.err &&
	"$GPUVM" sim --gpu gto.ini --workload stream-triad:elems=65536 --json gto.json >/dev/null 2>&1; then
	same "gto.config core.warp_scheduler" "$(cfg gto.json core.warp_scheduler | sed 's/^gto$/1/')" 1
	grep -q "^# \[AS\] -gpgpu_scheduler gto (gto.config:$(line gto.config gpgpu_scheduler))" gto.ini && ok ||
		bad "gto.ini: no citation of -gpgpu_scheduler gto"
else
	bad "import or run of a gto config: $(cat gto.err)"
fi

# standard output, and an explicit base
"$GPUVM" presets import "$DATA/qv100.config" --base a100 >stdout.ini 2>err.txt &&
	grep -q '^sms = 80$' stdout.ini && grep -q 'on base a100:' err.txt && ok ||
	bad "import to stdout with --base a100: $(head -2 err.txt)"

# bad input: exit 2, one line on stderr matching PATTERN, no output file
refuse() { # refuse WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	rm -f out.ini
	"$GPUVM" presets import "$@" -o out.ini >stdout.txt 2>err.txt
	local rc=$? lines
	lines=$(wc -l <err.txt)
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qE -- "$pattern" err.txt || [ -e out.ini ]; then
		bad "$what: exit $rc, $lines lines, out.ini $([ -e out.ini ] && echo left || echo absent): $(cat err.txt)"
	else
		ok
	fi
}
# edit N TEXT: the QV100 fixture with line N replaced by TEXT
edit() { awk -v n="$1" -v t="$2" 'NR == n { print t; next } { print }' "$DATA/qv100.config" >bad.config; }
n=$(line "$DATA/qv100.config" gpgpu_n_clusters)
edit "$n" "gpgpu_n_clusters 80"
refuse "a line that is not an option" "bad.config:$n: expected an option .*'gpgpu_n_clusters'" bad.config
edit "$n" "-gpgpu_n_clusters 8O"
refuse "a bad number" "bad.config:$n: -gpgpu_n_clusters: " bad.config
edit "$n" "-gpgpu_n_clusters 4294967376"
refuse "a number past its range" "bad.config:$n: -gpgpu_n_clusters: " bad.config
n=$(line "$DATA/qv100.config" gpgpu_clock_domains)
edit "$n" "-gpgpu_clock_domains 1132.0:1132.0"
refuse "a clock list too short" "bad.config:$n: -gpgpu_clock_domains: expected 'core:interconnect:l2:dram'" bad.config
n=$(line "$DATA/qv100.config" gpgpu_cache:dl2)
edit "$n" "-gpgpu_cache:dl2 S:32:128,L:B:m:L:P"
refuse "a cache string without ways" "bad.config:$n: -gpgpu_cache:dl2: " bad.config
edit "$n" "-config nothere.config"
refuse "a missing include" "bad.config:$n: -config: .*nothere.config" bad.config
cp "$DATA/qv100.config" bad.config
printf '%s\n' '-gpgpu_dram_timing_opt "nbk=16:CCD=1' '  RRD=3:RCD=12' >>bad.config
n=$(($(wc -l <"$DATA/qv100.config") + 1))
refuse "an unterminated quote" "bad.config:$n: -gpgpu_dram_timing_opt: unterminated quote" bad.config
n=$(line "$DATA/qv100.config" gpgpu_n_mem)
edit "$n" "-gpgpu_n_mem 31"
refuse "values the base cannot take" "bad.config:$n: dram.channels: mem.partitions 8 does not divide dram.channels 31.*base 'v100'" bad.config
refuse "a missing file" "nothere.config" nothere.config
refuse "a misspelt base" "did you mean 'v100'\\?" "$DATA/qv100.config" --base V-100
refuse "a misspelt option" "unknown option '--bsae'; did you mean '--base'\\?" "$DATA/qv100.config" --bsae v100
refuse "no file" "needs one gpgpusim.config FILE"

# an output that is a symlink: the link stays, its target gets the preset
echo old >target.ini
ln -s target.ini link.ini
if "$GPUVM" presets import "$DATA/qv100.config" -q -o link.ini 2>err.txt && [ -L link.ini ] &&
	grep -q '^sms = 80$' target.ini && [ ! -s err.txt ]; then
	ok
else
	bad "output through a symlink: $(ls -l link.ini target.ini 2>&1) $(cat err.txt)"
fi
# an output that is a directory is refused before any work
mkdir adir
"$GPUVM" presets import "$DATA/qv100.config" -o adir >stdout.txt 2>err.txt
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "adir" err.txt && [ -z "$(ls adir)" ]; then
	ok
else
	bad "an output directory: exit $rc: $(cat err.txt)"
fi

echo "$checks checks"
[ $fail -eq 0 ] && echo "all presets import checks passed"
exit $((fail > 0))
