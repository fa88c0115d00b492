#!/usr/bin/env bash
# scripts/hw-seeds-rows.py on a made-up output folder of scripts/hw-seeds.sh
# (tiny sizes, so that every gpuvm command it writes runs here in moments):
# the median of each point's repeats, the matching gpuvm command and
# quantity, roles, the effects (slowdowns) with their +-50 % bands, a
# rerun replacing its rows and keeping others', --simulate running every
# command and filling the simulated columns (the value gpuvm's JSON gives),
# the validate manifest's rows replayed by gpuvm validate, and a malformed
# line refused with its file and line.
# usage: hw_seeds.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-hwseeds.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ROWS="$SRC/scripts/hw-seeds-rows.py"
H='experiment	variant	region_bytes	items	seconds	items_per_second	iter	params'

mkdir -p out
hdr() { printf '# section=%s\n# device=NVIDIA Test GPU\n# sms=2\n%s\n' "$1" "$H"; }
{
	hdr sampling
	P='threads=1024;reads=4;block=256;seed=1'
	for s in 0.001 0.002 0.0015; do printf 'sampling\tdevice\t33554432\t4096\t%s\t0\t1\t%s\n' $s $P; done
	for s in 0.003 0.003 0.003; do printf 'sampling\tdevice\t134217728\t4096\t%s\t0\t1\t%s\n' $s $P; done
	# a section stopped by its timeout: one repeat of the last point
	printf 'sampling\tdevice\t1073741824\t4096\t0.004\t0\t1\t%s\n' $P
	echo '# stopped: timeout after 45 s'
} >out/sampling.tsv
{
	hdr groupby
	P='chunk=134217728;threads=1024;block=256;seed=1'
	printf 'groupby\tzero-copy\t33554432\t4096\t0.002\t0\t1\t%s\n' $P
	printf 'groupby\tzero-copy\t33554432\t4096\t0.004\t0\t2\t%s\n' $P
	printf 'groupby\tzero-copy\t134217728\t4096\t0.006\t0\t1\t%s\n' $P
} >out/groupby.tsv
{
	hdr oversub
	echo '# oversub_device_free=98304'
	o() { printf 'oversub\t%s\t%s\t%s\t%s\t0\t1\tpct=%s;device_free=98304;kernel_s=%s;transfer_s=0\n' "$@"; }
	# variant W n seconds pct kernel_s
	o copy 49152 2048 0.002 50 0.001
	o device 49152 2048 0.001 50 0.001
	o prefetch 49152 2048 0.003 50 0.001
	o ondemand 49152 2048 0.004 50 0.004
	o copy 98304 4096 0.004 100 0.002
	o device 98304 4096 0.002 100 0.002
	o prefetch 98304 4096 0.006 100 0.002
	o ondemand 98304 4096 0.008 100 0.008
	o prefetch 122880 5120 0.02 125 0.01
	o ondemand 122880 5120 0.05 125 0.05
} >out/oversub.tsv
{
	hdr counters
	for v in fault accessed_by remote; do
		i=1
		for s in 0.01 0.004 0.002 0.002; do
			# remote: the first launch faster than the rest (a speed-up)
			[ $v = remote ] && { [ $i = 1 ] && s=0.004 || s=0.008; }
			printf 'counters\t%s\t49152\t4096\t%s\t0\t%s\tlaunches=4;block=256\n' $v $s $i
			i=$((i + 1))
		done
	done
} >out/counters.tsv
echo '/sys/module/nvidia_uvm/parameters/uvm_perf_access_counter_mimc_migration_enable:-1' >out/uvm-params.txt
printf 'name\trole\texperiment\tdevice\tpreset\tgpuvm_command\tquantity\titems\tmeasured\tunit\tsimulated\terror_pct\tconvention\tsource\nother-row\tvalidation\tx\td\th100\tgpuvm sim\ty\t1\t1\ts\t\t\tc\ts\n' >rows.tsv
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\tconvention\n' >manifest.tsv

run_rows() {
	python3 "$ROWS" --preset h100 --tag t --source "test" --rows rows.tsv --effects effects.tsv \
		--manifest manifest.tsv out >stdout.txt 2>err.txt
}
if run_rows && python3 - <<'EOF'
import csv
rows = {r["name"]: r for r in csv.DictReader(open("rows.tsv"), delimiter="\t")}
eff = {r["name"]: r for r in csv.DictReader(open("effects.tsv"), delimiter="\t")}
assert "other-row" in rows, "another tag's row was dropped"
s = rows["t-seeds-sampling-32MiB"]
assert s["role"] == "validation" and s["unit"] == "reads/s", s
assert abs(float(s["measured"]) / (4096 / 0.0015) - 1) < 1e-5, s  # the median, 1.5 ms
assert s["gpuvm_command"] == "gpuvm sim --gpu h100 --workload random-sampling:region=32MiB,threads=1024,reads=4", s
assert s["quantity"] == "items_per_sim_second" and "median of 3" in s["convention"], s
assert "median of 1" in rows["t-seeds-sampling-1GiB"]["convention"]
g = rows["t-seeds-groupby-32MiB"]
assert g["gpuvm_command"].endswith("hash-groupby:region=32MiB,input=4096,threads=1024"), g
assert abs(float(g["measured"]) / (4096 / 0.003) - 1) < 1e-5, g
o = rows["t-seeds-oversub-ondemand-125pct"]
assert o["gpuvm_command"] == ("gpuvm sim --gpu h100 --workload stream-triad:elems=5120,threads=4096,"
                              "mem=managed --oversub 125"), o
assert o["quantity"] == "sim_seconds" and o["unit"] == "s" and o["measured"] == "0.05", o
assert rows["t-seeds-oversub-copy-100pct"]["gpuvm_command"].endswith("elems=4096,threads=4096,mem=copy")
assert rows["t-seeds-oversub-device-50pct"]["gpuvm_command"].endswith("elems=2048,threads=4096")
p = rows["t-seeds-oversub-prefetch-125pct"]
assert p["role"] == "unmodelled" and p["gpuvm_command"] == "-", p
assert "t-seeds-oversub-copy-125pct" not in rows
c = rows["t-seeds-counters-accessed_by-first"]
# migration on counters off in uvm-params.txt: no --migration always
assert c["gpuvm_command"].endswith("vectoradd:n=4096,mem=managed,launches=4 --set uvm.accessed_by=gpu"), c
assert c["quantity"] == "kernels[0].sim_seconds" and c["measured"] == "0.01", c
l = rows["t-seeds-counters-fault-late"]
assert l["quantity"] == "median(kernels[2:4].sim_seconds)" and l["measured"] == "0.002", l
assert "uvm.preferred_location=host" in rows["t-seeds-counters-remote-late"]["gpuvm_command"]
# effects: slowdown = rate(base) / rate(other), band +-50 % of the effect
e = eff["t-seeds-sampling-32MiB-to-128MiB"]
assert e["measured_slowdown"] == "2" and e["measured_effect"] == "+1" and (e["lo"], e["hi"]) == ("1.5", "2.5"), e
assert "t-seeds-sampling-128MiB-to-1GiB" in eff
e = eff["t-seeds-oversub-125pct"]  # (4096 / 0.008) / (5120 / 0.05)
assert abs(float(e["measured_slowdown"]) - (4096 / 0.008) / (5120 / 0.05)) < 1e-3, e
assert eff["t-seeds-oversub-paging-100pct"]["measured_slowdown"] == "4", eff["t-seeds-oversub-paging-100pct"]
assert eff["t-seeds-oversub-copy-vs-demand-50pct"]["measured_slowdown"] == "2"
assert eff["t-seeds-oversub-prefetch-100pct"]["role"] == "unmodelled"
e = eff["t-seeds-counters-fault-migration"]
assert e["measured_slowdown"] == "5" and e["base"] == "t-seeds-counters-fault-late", e
assert eff["t-seeds-counters-remote-vs-local"]["measured_slowdown"] == "4"
# no effect measured: a check row, within 10 %
e = eff["t-seeds-counters-accessed-by-vs-local"]
assert e["measured_slowdown"] == "1" and e["role"] == "check" and (e["lo"], e["hi"]) == ("0.9", "1.1"), e
# a speed-up (slowdown below 1): the band keeps lo < hi
e = eff["t-seeds-counters-remote-migration"]  # (4096 / 0.008) / (4096 / 0.004)
assert e["measured_slowdown"] == "0.5" and e["measured_effect"] == "-0.5", e
assert e["role"] == "validation" and (e["lo"], e["hi"]) == ("0.25", "0.75"), e
e = eff["t-seeds-oversub-prefetch-125pct"]  # (5120 / 0.02) / (5120 / 0.05)
assert e["measured_slowdown"] == "2.5" and e["role"] == "unmodelled", e
e = eff["t-seeds-sampling-128MiB-to-1GiB"]  # (4096 / 0.003) / (4096 / 0.004)
assert e["measured_effect"] == "+0.3333" and (e["lo"], e["hi"]) == ("1.167", "1.5"), e
m = {r["name"]: r for r in csv.DictReader(open("manifest.tsv"), delimiter="\t")}
assert m["t-seeds-sampling-32MiB"]["trace"] == "workload:random-sampling:region=32MiB,threads=1024,reads=4"
assert m["t-seeds-sampling-32MiB"]["measured_us"] == "1500.000" and m["t-seeds-sampling-32MiB"]["convention"] == "nsys"
assert m["t-seeds-oversub-ondemand-100pct"]["trace"].endswith("mem=managed")
assert "t-seeds-oversub-ondemand-125pct" not in m  # needs --oversub: not replayable by validate
assert m["t-seeds-counters-fault-first"]["convention"] == "nsys-first"
assert m["t-seeds-counters-fault-median"]["convention"] == "nsys-median"
assert not any("accessed_by" in n for n in m)
EOF
then echo "ok - rows, commands, roles, effects and manifest rows"
else fail "hw-seeds-rows output"; cat err.txt stdout.txt rows.tsv effects.tsv manifest.tsv
fi

# a rerun replaces its own rows
cp rows.tsv rows.1
cp manifest.tsv manifest.1
if run_rows && cmp -s rows.tsv rows.1 && cmp -s manifest.tsv manifest.1; then
	echo "ok - a rerun rewrites the same rows"
else fail "rerun changed the rows"; diff rows.1 rows.tsv | head
fi

# --simulate runs every command it wrote (as written: split as a shell
# would) and fills the simulated columns from gpuvm's JSON
if python3 "$ROWS" --preset h100 --tag t --rows r3.tsv --effects e3.tsv --simulate "$GPUVM" --jobs 2 \
	out >/dev/null 2>sim.err &&
   "$GPUVM" sim --gpu h100 --workload random-sampling:region=32MiB,threads=1024,reads=4 -q --no-outdir \
	--json direct.json && python3 - <<'EOF2'
import csv, json
rows = {r["name"]: r for r in csv.DictReader(open("r3.tsv"), delimiter="\t")}
eff = {r["name"]: r for r in csv.DictReader(open("e3.tsv"), delimiter="\t")}
for r in rows.values():
    if r["role"] == "validation":
        v, m = float(r["simulated"]), float(r["measured"])
        assert v > 0 and abs(float(r["error_pct"]) - (v / m - 1) * 100) < 0.1 + 1e-3 * abs(v / m * 100), r
    else:
        assert r["simulated"] == r["error_pct"] == "", r
d = json.load(open("direct.json"))
s = rows["t-seeds-sampling-32MiB"]
assert abs(float(s["simulated"]) / d["items_per_sim_second"] - 1) < 1e-5, (s, d["items_per_sim_second"])
k = rows["t-seeds-counters-fault-first"]
assert float(k["simulated"]) < float(rows["t-seeds-counters-fault-late"]["simulated"]) * 100
def rate(n):
    r = rows[n]
    return float(r["simulated"]) if r["unit"].endswith("/s") else float(r["items"]) / float(r["simulated"])
for e in eff.values():
    if e["role"] == "unmodelled":
        assert e["passed"] == e["simulated_slowdown"] == "", e
        continue
    x = rate(e["base"]) / rate(e["other"])
    assert abs(float(e["simulated_slowdown"]) / x - 1) < 1e-4, (e, x)
    assert e["passed"] == ("pass" if float(e["lo"]) <= x <= float(e["hi"]) else "FAIL"), e
EOF2
   grep -q '^validation: 18 rows, mean absolute error [0-9.]* %; effects [0-9]* of 12 pass$' sim.err &&
   grep -q '^check: 0 rows, mean absolute error -; effects [0-9]* of 1 pass$' sim.err
then echo "ok - --simulate runs every command and fills the simulated columns"
else fail "--simulate"; cat sim.err
fi
if "$GPUVM" validate --manifest manifest.tsv -q --csv v.csv 2>err.txt &&
   [ "$(tail -n +2 v.csv | wc -l)" -eq "$(tail -n +2 manifest.tsv | wc -l)" ]; then
	echo "ok - gpuvm validate replays the manifest rows"
else fail "validate on the manifest rows"; cat err.txt v.csv
fi

# malformed input is refused, naming the file and the line
cp -r out bad
printf 'sampling\tdevice\t33554432\t4096\t0.001\t0\t1\n' >>bad/sampling.tsv
n=$(wc -l <bad/sampling.tsv)
if python3 "$ROWS" --preset h100 --tag t --rows r2.tsv --effects e2.tsv bad 2>err.txt; then
	fail "a 7-column line was accepted"
elif grep -q "bad/sampling.tsv:$n: 7 tab-separated columns" err.txt && [ ! -e r2.tsv ]; then
	echo "ok - a short line is refused with its file and line"
else fail "short line message"; cat err.txt
fi
cp -r out out.1
cp out/counters.tsv bad/sampling.tsv
sed -i 's/^counters\taccessed_by\t49152\t4096\t0.004/counters\taccessed_by\t49152\t4096\tfast/' out/counters.tsv
n=$(grep -n 'fast' out/counters.tsv | cut -d: -f1)
if python3 "$ROWS" --preset h100 --tag t --rows r2.tsv --effects e2.tsv out 2>err.txt; then
	fail "a non-numeric time was accepted"
elif grep -q "out/counters.tsv:$n: could not convert string to float: 'fast'" err.txt; then
	echo "ok - a non-numeric time is refused with its file and line"
else fail "bad number message"; cat err.txt
fi
if python3 "$ROWS" --preset h100 --tag t --rows r2.tsv --effects e2.tsv bad 2>err.txt; then
	fail "a counters row in sampling.tsv was accepted"
elif grep -q "bad/sampling.tsv:5: experiment 'counters' in sampling.tsv" err.txt; then
	echo "ok - a row of another section is refused"
else fail "wrong section message"; cat err.txt
fi
printf 'name\trole\tmeasured\nx\tvalidation\t1\n' >old.tsv
cp old.tsv old.before
if python3 "$ROWS" --preset h100 --tag t --rows old.tsv --effects e4.tsv out.1 2>err.txt; then
	fail "a rows file with other columns was rewritten"
elif grep -q "old.tsv:1: header is not name, role" err.txt && cmp -s old.tsv old.before && [ ! -e e4.tsv ]; then
	echo "ok - a rows file with other columns is left alone"
else fail "other columns message"; cat err.txt
fi
mkdir empty
if python3 "$ROWS" --preset h100 --tag t empty 2>err.txt; then
	fail "an empty folder gave rows"
elif grep -q "no measured rows" err.txt; then
	echo "ok - an empty folder is refused"
else fail "empty folder message"; cat err.txt
fi
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
