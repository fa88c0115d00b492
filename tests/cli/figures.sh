#!/usr/bin/env bash
# Sweep figures: units on the axes (stats registry), the GPUs and workload
# in the title, log axes chosen from the data (> 10x), bars for categorical
# sweeps, readable size tics, and FIG.gp beside FIG.png that redraws it.
# usage: figures.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-figures-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

if ! command -v gnuplot >/dev/null; then
	echo "ok - # SKIP gnuplot not installed"
	exit 0
fi

WL=random-sampling:threads=1024,reads=8
# page walks grow by far more than 10x over the regions: a log y axis
"$GPUVM" sweep --gpu p100,k80 --workload "$WL" \
	--vary workload.region=32MiB,64MiB,128MiB,192MiB,256MiB,512MiB,1GiB,1536MiB,2GiB,3GiB,4GiB,8GiB,16GiB \
	--y walks --title "walks against region" --csv lines.csv --plot lines.png -q
[ -s lines.png ] && [ -s lines.gp ] || fail "lines.png and lines.gp not both written"
grep -q "^set ylabel 'page walks'" lines.gp || fail "y label: $(grep ylabel lines.gp)"
grep -q "^set xlabel 'region (bytes)'" lines.gp || fail "x label: $(grep xlabel lines.gp)"
grep -q '^set title "walks against region\\n.*random-sampling:threads=1024,reads=8 on p100, k80"' lines.gp ||
	fail "title lacks workload and GPUs: $(grep title lines.gp)"
grep -q '^set logscale y' lines.gp || fail "walks span > 10x but y is linear"
grep -q '^set logscale x 2' lines.gp || fail "sizes on a linear x"
# size tics: never two labels closer than 1/12 of the axis (1536MiB next to 2GiB)
grep '^set xtics (' lines.gp | grep -q "'1536MiB'" && grep '^set xtics (' lines.gp | grep -q "'2GiB'" &&
	fail "1536MiB and 2GiB both labelled: $(grep '^set xtics (' lines.gp)"
pass "line figure: labels with units, title with GPUs and workload, log axes, thinned size tics"

"$GPUVM" sweep --gpu p100 --workload "$WL" --vary tlb.l1.entries=16,32 \
	--csv flat.csv --plot flat.png -q
grep -q '^set logscale y' flat.gp && fail "a series within 10x got a log y axis"
grep -q "^set xlabel 'tlb.l1.entries (entries of one TLB instance)'" flat.gp ||
	fail "config key x label: $(grep xlabel flat.gp)"
pass "linear y when every series stays within 10x; config keys labelled with their help"

"$GPUVM" sweep --gpu p100 --workload random-sampling:region=4MiB,reads=2,threads=512,mem=managed \
	--oversub 125 --vary uvm.prefetcher=none,tree-uvmsmart --vary uvm.eviction=lru-4kb,lru-2mb-alloc \
	--x uvm.eviction --y uvm_far_faults --csv bars.csv --plot bars.png -q
grep -q 'with boxes' bars.gp || fail "categorical sweep not drawn as bars"
grep -q "^set ylabel 'far faults'" bars.gp || fail "bars y label: $(grep ylabel bars.gp)"
pass "categorical sweep: grouped bars"

# the script redraws the figure (from its folder) and can be restyled
mkdir re && cp lines.gp re/ && (cd re && gnuplot lines.gp) && [ -s re/lines.png ] ||
	fail "gnuplot lines.gp did not redraw lines.png"
sed 's/^set grid$/set grid xtics/' bars.gp > re/bars.gp && (cd re && gnuplot bars.gp) &&
	[ -s re/bars.png ] || fail "a restyled bars.gp did not draw"
pass "FIG.gp redraws FIG.png"

# a figure on a device gets no script beside it
mkfifo fifo.png
( cat fifo.png > /dev/null & "$GPUVM" sweep --gpu p100 --workload "$WL" --vary tlb.l1.entries=16,32 \
	--plot fifo.png -q; wait )
[ ! -e fifo.gp ] || fail "a FIFO figure got fifo.gp"
pass "no script beside a figure that is not a regular file"
