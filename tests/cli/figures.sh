#!/usr/bin/env bash
# Sweep figures: units on the axes (stats registry), the GPUs and workload
# in the title, log axes chosen from the data (> 10x), bars for categorical
# sweeps, readable size tics, and FIG.gp beside FIG.png that redraws it.
# usage: figures.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
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
	--vary workload.region=32MiB,64MiB,128MiB,192MiB,256MiB,512MiB,1GiB,1536MiB,2GiB,3GiB,4GiB,8GiB,11GiB \
	--y walks --title "walks against region" --csv lines.csv --plot lines.png -q
[ -s lines.png ] && [ -s lines.gp ] || fail "lines.png and lines.gp not both written"
grep -q "^set ylabel 'page walks'" lines.gp || fail "y label: $(grep ylabel lines.gp)"
grep -q "^set xlabel 'region size'" lines.gp || fail "x label: $(grep xlabel lines.gp)"
# one line: the title, then what ran (a title need not repeat it)
grep -q '^set title "walks against region: random-sampling (threads = 1024, reads = 8) on p100, k80"$' lines.gp ||
	fail "title not one line with workload and GPUs: $(grep title lines.gp)"
# the legend is never on the data: below the plot
grep -q '^set key below' lines.gp || fail "line legend not below the plot: $(grep 'set key' lines.gp)"
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

# throughput in the workload's own unit; a readable spec in the title
"$GPUVM" sweep --gpu p100 --workload random-sampling:threads=16384,reads=2 --vary workload.region=32MiB,64MiB \
	--y items_per_sim_second --plot items.png -q
grep -q "^set ylabel 'reads per simulated second (reads/s)'" items.gp ||
	fail "items y label not in reads: $(grep ylabel items.gp)"
grep -q '^set title "random-sampling (threads = 16.4k, reads = 2) on p100"' items.gp ||
	fail "title shows a raw spec: $(grep title items.gp)"
pass "items_per_sim_second labelled reads/s; titles readable (16.4k, not 16384)"

"$GPUVM" sweep --gpu p100 --workload random-sampling:region=4MiB,reads=2,threads=512,mem=managed \
	--oversub 125 --vary uvm.prefetcher=none,tree-uvmsmart --vary uvm.eviction=lru-4kb,lru-2mb-alloc \
	--x uvm.eviction --y uvm_far_faults --csv bars.csv --plot bars.png -q
grep -q 'with boxes' bars.gp || fail "categorical sweep not drawn as bars"
grep -q "^set ylabel 'far faults'" bars.gp || fail "bars y label: $(grep ylabel bars.gp)"
pass "categorical sweep: grouped bars"

# PCIe figure: legend below the data, readable title
"$GPUVM" sim --gpu gtx1080ti-uvmsmart --workload random-sampling:region=4MiB,reads=2,threads=512,mem=managed \
	--oversub 125 --pcie-plot pcie.png -q
grep -q '^set key below' pcie.gp || fail "PCIe legend not below: $(grep 'set key' pcie.gp)"
grep -q '^set title "PCIe utilization, random-sampling (region = 4MiB, reads = 2, threads = 512, mem = managed)' pcie.gp ||
	fail "PCIe title: $(grep title pcie.gp)"
pass "PCIe figure: legend below the data, readable title"

# validate's log-log scatter labels 20 and 50 between the decades (a
# recorded workload trace as the one measurement)
"$GPUVM" trace record random-sampling:region=4MiB,reads=2,threads=512 -o t.gvt --gpu p100 > /dev/null ||
	fail "trace record"
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\n' > m.tsv
printf 'one\t%s\tGPU\tp100\t30\tkernel time\ttest\n' "$PWD/t.gvt" >> m.tsv
"$GPUVM" validate --manifest m.tsv --plot val.png -q || fail "validate --plot: exit $?"
grep -q '^set xtics add (.*"20" 20.*"50" 50' val.gp || fail "validate x tics: $(grep tics val.gp)"
grep -q '^set ytics add (.*"20" 20.*"50" 50' val.gp || fail "validate y tics: $(grep tics val.gp)"
pass "validate's log axes labelled between the decades"

# past 30 points the labels would cover one another: validate colours the
# points by program (the name before "-<digit>"), one legend entry each
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\n' > many.tsv
for i in $(seq 1 16); do
	printf 'alpha-%d\t%s\tGPU\tp100\t%d\tkernel time\ttest\n' "$i" "$PWD/t.gvt" $((20 + i)) >> many.tsv
	printf 'beta-%d-x8\t%s\tGPU\tp100\t%d\tkernel time\ttest\n' "$i" "$PWD/t.gvt" $((40 + i)) >> many.tsv
done
"$GPUVM" validate --manifest many.tsv --plot many.png -q || fail "validate --plot, 32 rows: exit $?"
[ "$(grep -c "title 'alpha'\|title 'beta'" many.gp)" = 2 ] && ! grep -q 'with labels' many.gp ||
	fail "32 rows: not one legend entry per program, or labels drawn: $(grep -E 'title|labels' many.gp)"
grep -q 'with labels' val.gp || fail "one row: its point lost its label"
pass "validate's scatter: labels up to 30 points, one legend entry per program"

# families (programs) apart by colour and shape, devices by fill in a
# legend of their own entries, the band of +-20 % around y = x
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\n' > fam.tsv
for p in alpha beta gamma; do
	for d in A B; do
		printf '%s-1-%s\t%s\tGPU %s\tp100\t%d\tkernel time\ttest\n' $p $d "$PWD/t.gvt" $d 30 >> fam.tsv
	done
done
"$GPUVM" validate --manifest fam.tsv --plot fam.png -q || fail "validate --plot, two devices: exit $?"
grep -q "with filledcurves .* title '± 20 %'" fam.gp || fail "no +-20 % band: $(grep '^plot' fam.gp)"
grep -q "^plot '+' using 1:(\$1\*0.8[0-9]*):(\$1\*1.2[0-9]*) with filledcurves" fam.gp ||
	fail "band not 0.8x to 1.2x: $(grep '^plot' fam.gp)"
# one entry per program, each its own (marker, colour); one per device, grey,
# filled then open
entries=$(grep -E "^ +NaN with points pt [0-9]+ ps [0-9.]+ lc rgb '#[0-9a-f]{6}' title '(alpha|beta|gamma)'" fam.gp |
	sed -E "s/.*pt ([0-9]+) .*rgb '(#[0-9a-f]+)'.*/\1 \2/")
[ "$(echo "$entries" | wc -l)" = 3 ] && [ "$(echo "$entries" | sort -u | wc -l)" = 3 ] &&
	[ "$(echo "$entries" | cut -d' ' -f2 | sort -u | wc -l)" = 3 ] ||
	fail "programs not one entry each in distinct colours: $entries"
grep -q "NaN with points pt 7 .* lc rgb '#404040' title 'GPU A (filled)'" fam.gp &&
	grep -q "NaN with points pt 6 .* lc rgb '#404040' title 'GPU B (open)'" fam.gp ||
	fail "devices not in the legend by fill: $(grep title fam.gp)"
# the data draw no legend entries of their own: 3 programs + 2 devices + band + y = x
[ "$(grep -v '^set title' fam.gp | grep -c "title '")" = 7 ] ||
	fail "legend entries: $(grep -v '^set title' fam.gp | grep -c "title '"), want 7"
grep -q "^set key outside right" fam.gp || fail "legend on the data: $(grep 'set key' fam.gp)"
grep -q "^set xlabel 'measured kernel time (µs" fam.gp && grep -q "^set ylabel 'simulated kernel time (µs" fam.gp ||
	fail "validate axes without units"
pass "validate's scatter: a colour and marker per program, a fill per device, a +-20 % band, units"

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
