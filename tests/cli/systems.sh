#!/usr/bin/env bash
# gpuvm systems: lists every shipped system (systems/*.ini) and the
# system-of-one form of the presets; prints one with its processors, links
# and sources; checks a user's file and refuses bad ones with file:line and
# a did-you-mean (exit 2); prints the evidence table (validation/systems.tsv)
# grouped by system, both roles present.
# usage: systems.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-systems.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# the list: one line per shipped file, and the single-NAME line
"$GPUVM" systems >list.txt 2>err.txt || fail "gpuvm systems: exit $? ($(cat err.txt))"
for f in "$SRC"/systems/*.ini; do
	name=$(basename "$f" .ini)
	grep -q "^$name " list.txt || fail "list: no line for $name"
done
grep -q '^single-NAME' list.txt || fail "list: no system-of-one line"
grep -q '^gh200 .*nvlink-c2c 450 GB/s' list.txt || fail "list: gh200 line: $(grep '^gh200' list.txt)"
grep -q '^dgx-h100-8 .*8x h100, 2 cpu; 8x pcie 64 GB/s, 1x nvswitch 450 GB/s' list.txt ||
	fail "list: dgx line: $(grep '^dgx' list.txt)"

# one system: processors, links, sources, then its file
"$GPUVM" systems gh200 >one.txt 2>err.txt || fail "systems gh200: exit $?"
grep -q '^#   link.0  nvlink-c2c cpu.0-gpu.0: 1 x 450 GB/s per direction' one.txt || fail "gh200: link line"
grep -q '^#   cpu.0   grace, memory 480 GB at 546 GB/s, system pages 4KiB or 64KiB' one.txt || fail "gh200: cpu line"
grep -q '^# sources:' one.txt || fail "gh200: no sources"
grep -q '2407.07850' one.txt || fail "gh200: Schieffer et al. not cited"
grep -q '^# systems/gh200.ini:' one.txt || fail "gh200: file not printed"
# the output is a template: it checks as it is
cp one.txt copy.ini
"$GPUVM" systems --check copy.ini >check.txt 2>err.txt || fail "the printed gh200 does not check: $(cat err.txt)"
grep -q "^copy.ini: a valid system 'gh200'" check.txt || fail "--check output: $(cat check.txt)"

# a preset is a system of one, over its own PCIe link
"$GPUVM" systems h100 >h100.txt 2>err.txt || fail "systems h100: exit $?"
grep -q '^#   link.0  pcie       gpu.0-cpu.0: 1 x 64 GB/s per direction = 64 GB/s, latency 1175 ns' h100.txt ||
	fail "h100 as a system: $(grep link h100.txt)"
# ... written as a file, which checks too
"$GPUVM" systems --check h100.txt >check.txt 2>err.txt || fail "the printed h100 system does not check: $(cat err.txt)"
for s in 2xgh200 4xgh200 dgx-h100-8; do
	"$GPUVM" systems "$s" >"$s.txt" && "$GPUVM" systems --check "$s.txt" >check.txt 2>err.txt ||
		fail "the printed $s does not check: $(cat err.txt)"
done

# bad files: exit 2, file:line, a did-you-mean where a name was misspelt
bad() { # NAME WANT (a fixed string of the message); the file is NAME.ini
	"$GPUVM" systems --check "$1.ini" >out.txt 2>err.txt
	local rc=$?
	[ "$rc" = 2 ] || fail "$1: exit $rc, want 2"
	grep -qF -- "$2" err.txt || fail "$1: message '$(cat err.txt)', want '$2'"
}
head='[system]
name = t
source = test
[gpu.0]
preset = h100
[cpu.0]
memory_bytes = 1GiB
bandwidth_gb_s = 100'
printf '%s\n[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwdith_gb_s = 64\n' "$head" >key.ini
bad key "key.ini:12: unknown key 'bandwdith_gb_s' in [link.N] (did you mean 'bandwidth_gb_s'?)"
printf '%s\n[link.0]\nkind = nvlnik\n' "$head" >kind.ini
bad kind "kind.ini:10: kind: unknown link kind 'nvlnik' (did you mean 'nvlink'?)"
printf '%s\n[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.1\nbandwidth_gb_s = 64\n' "$head" >ends.ini
bad ends "ends.ini:11: endpoints: no processor 'cpu.1' in this system (did you mean 'cpu.0'?)"
sed -e 's/preset = h100/preset = h1000/' -e 's/bandwdith/bandwidth/' key.ini >preset.ini
bad preset "preset.ini:5: preset: no shipped preset 'h1000' (did you mean 'h100'?)"
printf '%s\n[gpu.1]\npreset = h100\n[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n' "$head" >apart.ini
bad apart "apart.ini:9: gpu.1 is not connected to gpu.0"
printf '%s\n[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 0\n' "$head" >range.ini
bad range "range.ini:12: bandwidth_gb_s: 0 is out of range"
bad missing "missing.ini: cannot open"
"$GPUVM" systems gh2000 >out.txt 2>err.txt
[ $? = 2 ] || fail "unknown system: exit not 2"
"$GPUVM" systems --frobnicate >out.txt 2>err.txt
[ $? = 2 ] || fail "unknown option: exit not 2"

# the evidence, grouped by system, both roles
"$GPUVM" systems --evidence >ev.txt 2>err.txt || fail "--evidence: exit $? ($(cat err.txt))"
grep -q '^gh200$' ev.txt || fail "evidence: no gh200 group"
grep -q '^  validation  c2c_h2d_gb_s .* 375 GB/s' ev.txt || fail "evidence: Schieffer's C2C H2D row"
grep -q '^  calibration link.0.bandwidth_gb_s .* 450 GB/s' ev.txt || fail "evidence: the C2C calibration row"

# help teaches the format
"$GPUVM" systems --help >help.txt || fail "--help: exit $?"
for w in '[link.N]' 'nvlink-c2c' 'nvswitch' '--check' '--evidence' 'single-NAME'; do
	grep -qF -- "$w" help.txt || fail "help: no '$w'"
done
"$GPUVM" --help | grep -q '^  systems ' || fail "gpuvm --help does not list systems"

[ "$failures" = 0 ] && echo "systems: all checks passed"
exit $((failures > 0))
