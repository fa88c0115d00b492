#!/usr/bin/env bash
# gpuvm validate: the shipped manifest runs (once: its vectorAdd rows take
# seconds) and prints every row with a finite error; --csv/--json load;
# bad manifests are refused with exit 2, the file and line, and no output;
# --plot draws a PNG when gnuplot is there; --jobs N gives the same results
# and the same first failing row as one job; relative trace paths are found
# in the manifest's folder, then its parent, and a missing trace is an error.
# usage: validate.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-validate.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
MANIFEST=$SRC/validation/measurements.tsv
# The first row of each program on each preset stands for the shipped
# manifest (19 of its 313 rows, the b+tree trace among them, its path made
# absolute): every program, preset and trace format the manifest has, so
# every code path its replay runs (issue 80: the whole manifest was 200 of
# make check's Release seconds; what it adds is the sizes, each row's
# finite error, not code). GPUVM_TEST_FULL_MANIFEST=1 replays all 313
# rows (`make check-manifest`, docs/testing.md).
if [ "${GPUVM_TEST_FULL_MANIFEST:-0}" != 1 ]; then
	awk -F'\t' -v OFS='\t' -v src="$SRC" '
		NR == 1 { print; next }
		NF { p = $2; if (p ~ /^workload:/) { sub(/^workload:/, "", p); sub(/:.*/, "", p) }
		     k = p FS $4
		     if (!(k in seen)) { seen[k] = 1; if ($2 !~ /^(\/|workload:)/) $2 = src "/" $2; print } }' \
		"$MANIFEST" >"$T/manifest-subset.tsv"
	MANIFEST=$T/manifest-subset.tsv
fi
BPTREE=$SRC/traces/accelsim-rodinia-bptree-h100
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# The row's own preset when it is shipped, else h100 (the H100 PCIe preset
# may not exist yet).
GPU=(--gpu h100)
if "$GPUVM" presets h100-pcie >/dev/null 2>&1; then GPU=(); fi

# ---- the shipped manifest ------------------------------------------------
if [ ! -e "$BPTREE" ]; then
	echo "skip - shipped manifest: $BPTREE not present"
else
	PLOT=()
	command -v gnuplot >/dev/null && PLOT=(--plot fig.png)
	# two worker processes (--jobs: the same results as one, tested below)
	"$GPUVM" validate --manifest "$MANIFEST" "${GPU[@]}" --csv out.csv --json out.json \
		"${PLOT[@]}" --jobs 2 >table.txt 2>stderr.txt
	rc=$?
	nrows=$(($(grep -cv '^[[:space:]]*$' "$MANIFEST") - 1))
	if [ $rc -ne 0 ]; then
		fail "shipped manifest: exit $rc"; cat stderr.txt
	elif ! awk '$1 == "b+tree" && $4 ~ /^[0-9.]+$/ && $6 ~ /^[-+][0-9.]+$/ { ok = 1 } END { exit !ok }' table.txt; then
		fail "shipped manifest: no b+tree row with a finite simulated time and error"; cat table.txt
	elif [ "$(awk 'NF == 7 && $4 ~ /^[0-9.]+$/ && $6 ~ /^[-+][0-9.]+$/' table.txt | wc -l)" -ne "$nrows" ]; then
		fail "shipped manifest: not all $nrows rows ran with a finite error"; cat table.txt
	elif ! grep -q "^mean absolute error: [0-9.]* % over $nrows rows (0 skipped)" table.txt ||
	     ! grep -Eq "correlation \(Pearson r of log times\): 0?\.[0-9]+|correlation \(Pearson r of log times\): 1\.000" table.txt; then
		fail "shipped manifest: summary lines missing"; cat table.txt
	else
		echo "ok - shipped manifest: $nrows rows, $(grep '^mean absolute error' table.txt)"
	fi
	# CSV: the header and one b+tree row with as many fields (quoted fields
	# hold commas, so count with python's csv module)
	if python3 - out.csv <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
need = ["name", "preset", "measured_us", "simulated_us", "ratio", "error_percent", "status"]
assert all(k in rows[0] for k in need), rows[0].keys()
(r,) = [r for r in rows if r["name"] == "b+tree"]
assert all(x["status"] == "ok" and math.isfinite(float(x["error_percent"])) for x in rows), rows
assert r["status"] == "ok" and math.isfinite(float(r["error_percent"])), r
assert abs(float(r["measured_us"]) - 6244.96 / 345) < 0.01, r["measured_us"]
assert abs(float(r["ratio"]) * float(r["measured_us"]) - float(r["simulated_us"])) < 1e-6 * float(r["simulated_us"])
EOF
	then echo "ok - --csv: columns and the b+tree row"
	else fail "--csv: bad CSV"; cat out.csv
	fi
	# validation rows (nothing was set from them) apart from calibration
	# rows, overall and a line per preset, as the CSV's rows give them
	if python3 - table.txt out.csv <<'EOF'
import csv, re, sys
text = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
assert {r["role"] for r in rows} <= {"calibration", "validation"}, {r["role"] for r in rows}
def mae(text, rs):
    if not rs:
        return text == "none"
    m = re.fullmatch(r"mean absolute error ([0-9.]+) % over (\d+) rows?", text)
    errs = [abs(float(r["error_percent"])) for r in rs]
    return bool(m) and int(m[2]) == len(errs) and abs(float(m[1]) - sum(errs) / len(errs)) < 0.051
m = re.search(r"^validation rows alone: (.*); calibration rows: (.*)$", text, re.M)
assert m and mae(m[1], [r for r in rows if r["role"] == "validation"]) and \
    mae(m[2], [r for r in rows if r["role"] == "calibration"]), m and m[0]
presets = list(dict.fromkeys(r["preset"] for r in rows))
lines = re.findall(r"^  (\S+) +validation (.*); calibration (.*); all (.*)$", text, re.M)
assert [l[0] for l in lines] == presets, (lines, presets)
for p, v, c, a in lines:
    g = [r for r in rows if r["preset"] == p]
    assert mae(v, [r for r in g if r["role"] == "validation"]), (p, v)
    assert mae(c, [r for r in g if r["role"] == "calibration"]), (p, c)
    assert mae(a, g), (p, a)
EOF
	then echo "ok - validation apart from calibration rows, overall and per preset, as the CSV's rows"
	else fail "per-preset summary"; grep -A3 "^mean absolute error" table.txt
	fi
	if python3 -c '
import json, sys
rows = json.load(open("out.json"))
assert isinstance(rows, list) and rows[0]["name"] == "b+tree" and len(rows) > 1
assert rows[0]["gpuvm_version"] and rows[0]["gpuvm_commit"]
assert rows[0]["simulated_us"] > 0
'; then echo "ok - --json: an array of records with gpuvm_version/gpuvm_commit"
	else fail "--json: bad JSON"; cat out.json
	fi
	if python3 -c 'import pandas' 2>/dev/null; then
		if python3 -c '
import pandas as pd
c = pd.read_csv("out.csv"); j = pd.read_json("out.json", orient="records")
assert c["name"][0] == "b+tree" and c["error_percent"].notna().all()
assert list(j["name"]) == list(c["name"]) and (abs(j["ratio"] - c["ratio"]) < 1e-6).all()
'; then echo "ok - pandas: read_csv and read_json(orient=records)"
		else fail "pandas could not load the outputs"
		fi
	else
		echo "skip - pandas not installed"
	fi
	# the default manifest, found from the repository root (a repository of
	# the b+tree row and one small workload row: the whole manifest ran above)
	mkdir -p repo/validation
	ln -s "$SRC/traces" repo/traces
	head -2 "$MANIFEST" >repo/validation/measurements.tsv
	grep '^vectoradd-16384	' "$MANIFEST" >>repo/validation/measurements.tsv
	# (their stderr: the batch log's progress, checked below)
	if (cd repo && "$GPUVM" validate "${GPU[@]}" -q) >quiet.txt 2>&1 && [ ! -s quiet.txt ] &&
	   (cd repo && "$GPUVM" validate "${GPU[@]}") 2>repo-batch.log | grep -q "over 2 rows"; then
		echo "ok - default manifest from the repository root, -q prints nothing"
	else
		fail "default manifest or -q"; cat quiet.txt
	fi
	# --plot (with the run above): a PNG, checked by its magic bytes
	if [ ${#PLOT[@]} -gt 0 ]; then
		if [ "$(head -c 8 fig.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
			echo "ok - --plot: a PNG"
		else
			fail "--plot: no PNG"; cat stderr.txt
		fi
	else
		echo "skip - --plot: gnuplot not installed"
	fi
fi

# ---- a workload row: gpuvm's own implementation of the measured program --
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\n' >wl.tsv
printf 'conv\tworkload:2dconv:n=64\tNVIDIA X\th100-pcie\t2\tkernel time\ttest\n' >>wl.tsv
if "$GPUVM" validate --manifest wl.tsv --csv wl.csv >table.txt 2>stderr.txt &&
   grep -Eq "^conv +h100-pcie +2\.000 +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ +nsys" table.txt &&
   grep -q "^conv,h100-pcie,2,[0-9.]*,[0-9.]*,[-0-9.]*,ok,.*workload:2dconv:n=64" wl.csv; then
	echo "ok - workload row: $(grep '^conv' table.txt)"
else
	fail "workload row"; cat table.txt stderr.txt wl.csv
fi

# ---- trace paths: the manifest's folder, then its parent; missing = error --
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\n' >head.tsv
cp head.tsv skip.tsv
printf 'gone\tno/such/trace\tNVIDIA X\th100\t10\tkernel time\ttest\n' >>skip.tsv
RT=$(realpath "$T")
"$GPUVM" validate --manifest skip.tsv --csv skip.csv >table.txt 2>stderr.txt
rc=$?
want="skip.tsv:2: trace: row 'gone': 'no/such/trace' is not in the manifest's folder ($RT) nor in its parent ($(dirname "$RT"))"
if [ $rc -eq 2 ] && grep -qF -- "$want" stderr.txt && [ ! -e skip.csv ]; then
	echo "ok - missing trace: exit 2, $(cat stderr.txt)"
else
	fail "missing trace: exit $rc, wanted 2 and '$want'"; cat table.txt stderr.txt
fi
{ cat head.tsv; printf 'abs\t%s/no-such-trace\tNVIDIA X\th100\t10\tkernel time\ttest\n' "$RT"; } >abs.tsv
"$GPUVM" validate --manifest abs.tsv >table.txt 2>stderr.txt
rc=$?
if [ $rc -eq 2 ] && grep -qF "abs.tsv:2: trace: row 'abs': $RT/no-such-trace: no such file or folder" stderr.txt; then
	echo "ok - missing absolute trace: exit 2"
else
	fail "missing absolute trace: exit $rc"; cat stderr.txt
fi
# res/m/m.tsv: traces/own only beside the manifest, traces/up only in its
# parent, traces/both in both (the manifest's folder wins); run from
# another directory, so the current one plays no part
VA=$SRC/traces/accelsim-vectoradd
if [ -e "$VA" ]; then
	mkdir -p res/m/traces res/traces run
	cp -r "$VA" res/m/traces/own && cp -r "$VA" res/traces/up &&
		cp -r "$VA" res/m/traces/both && cp -r "$VA" res/traces/both
	{ cat head.tsv
	  for r in own up both; do printf '%s\ttraces/%s\tNVIDIA X\th100\t10\tkernel time\ttest\n' $r $r; done
	} >res/m/m.tsv
	if (cd run && "$GPUVM" validate --manifest ../res/m/m.tsv --csv ../res.csv -q 2>../stderr.txt) &&
	   python3 - res.csv "$RT/res" <<'EOF'
import csv, sys
r = {x["name"]: x["trace_resolved"] for x in csv.DictReader(open(sys.argv[1], newline=""))}
base = sys.argv[2]
want = {"own": base + "/m/traces/own", "up": base + "/traces/up", "both": base + "/m/traces/both"}
assert r == want, (r, want)
EOF
	then echo "ok - trace paths: the manifest's folder first, then its parent"
	else fail "trace paths from the manifest's folder"; cat stderr.txt res.csv
	fi
else
	echo "skip - trace paths: $VA not present"
fi
# an output path is checked before the manifest is read or anything runs
"$GPUVM" validate --manifest skip.tsv --csv no/such/dir/out.csv >/dev/null 2>stderr.txt
rc=$?
if [ $rc -eq 2 ] && grep -q -- "--csv" stderr.txt; then echo "ok - bad --csv path: exit 2"
else fail "bad --csv path: exit $rc"; cat stderr.txt
fi

# ---- bad input: exit 2, the file and line named, no output ----------------
# expect_fail NAME EXPECTED-SUBSTRING ARGS...
expect_fail() {
	local name=$1 want=$2
	shift 2
	rm -f out2.csv out2.json
	"$GPUVM" validate "$@" --csv out2.csv --json out2.json >stdout.txt 2>stderr.txt
	local rc=$?
	if [ $rc -ne 2 ]; then
		fail "$name: exit $rc, wanted 2"; cat stderr.txt; return
	fi
	if ! grep -qF -- "$want" stderr.txt; then
		fail "$name: message lacks '$want':"; cat stderr.txt; return
	fi
	if ls out2.csv* out2.json* >/dev/null 2>&1; then
		fail "$name: left an output file"; return
	fi
	echo "ok - $name: $(head -c 160 stderr.txt)"
}
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"; }

: >empty.tsv
expect_fail "empty manifest" "empty.tsv: empty" --manifest empty.tsv
cp head.tsv only_header.tsv
expect_fail "header only" "only_header.tsv:1: no measurement" --manifest only_header.tsv
printf 'name\ttrace\tdevice\tpreset\twhat\tsource\n' >nocol.tsv
row a b c d e f >>nocol.tsv
expect_fail "missing column" "nocol.tsv:1: header lacks the column 'measured_us'" --manifest nocol.tsv
printf 'name,trace,device,preset,measured_us,what,source\n' >commas.tsv
expect_fail "comma-separated" "commas.tsv:1: header lacks the column 'name'" --manifest commas.tsv
{ cat head.tsv; echo; row a x d h100 12.5 w s; row b x d h100 fast w s; } >nonnum.tsv
expect_fail "non-numeric measured_us" "nonnum.tsv:4: measured_us: 'fast' is not a positive number" --manifest nonnum.tsv
{ cat head.tsv; row a x d h100 -3 w s; } >neg.tsv
expect_fail "negative measured_us" "neg.tsv:2: measured_us: '-3'" --manifest neg.tsv
{ cat head.tsv; row a x d h100 0x10 w s; } >hex.tsv
expect_fail "hex measured_us" "hex.tsv:2: measured_us" --manifest hex.tsv
{ cat head.tsv; printf 'a\tx\td\th100\t12\tw\n'; } >short.tsv
expect_fail "too few fields" "short.tsv:2: 6 fields, the header (line 1) has 7" --manifest short.tsv
{ cat head.tsv; row a x d h100 12 "" s; } >emptyfield.tsv
expect_fail "empty field" "emptyfield.tsv:2: what: empty" --manifest emptyfield.tsv
{ cat head.tsv; row a x d h100 12 w s; row a y d h100 13 w s; } >dup.tsv
expect_fail "duplicate name" "dup.tsv:3: name: 'a' is also the name of line 2" --manifest dup.tsv
{ cat head.tsv; row a x d h100 12 'say "hi"' s; } >quote.tsv
expect_fail "double quotes" "quote.tsv:2: double quotes" --manifest quote.tsv
{ cat head.tsv; row a x d no-such-gpu 12 w s; } >preset.tsv
expect_fail "unknown preset" "preset.tsv:2: preset: unknown GPU preset 'no-such-gpu'" --manifest preset.tsv
expect_fail "unknown --gpu" "--gpu: " --manifest skip.tsv --gpu no-such-gpu
{ cat head.tsv; row w workload:no-such-workload d h100 12 w s; } >badwl.tsv
expect_fail "unknown workload" "badwl.tsv:2: trace: " --manifest badwl.tsv
{ cat head.tsv; row w workload:2dconv:n=lots d h100 12 w s; } >badwlv.tsv
expect_fail "bad workload value" "badwlv.tsv:2: trace: --workload: n=lots" --manifest badwlv.tsv
expect_fail "missing manifest" "nothere.tsv: cannot open" --manifest nothere.tsv
expect_fail "unknown option" "unknown option '--bogus'" --manifest skip.tsv --bogus
expect_fail "extra operand" "unexpected argument 'extra'" --manifest skip.tsv extra
if [ -e "$BPTREE" ]; then
	{ cat head.tsv; row bt "$BPTREE" d h100 18.1 w s; row bad "$SRC/README.md" d h100 1 w s; } >badtrace.tsv
	expect_fail "unreadable trace" "badtrace.tsv:3: bad: " --manifest badtrace.tsv
fi

# ---- conventions: each row compared with the quantity it measured ---------
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\tconvention\n' >conv_head.tsv
{ cat conv_head.tsv; printf 'x\tno/such\td\th100\t1\tw\ts\tncu-ish\n'; } >badconv.tsv
expect_fail "unknown convention" "badconv.tsv:2: convention: 'ncu-ish' is not a convention" \
	--manifest badconv.tsv
printf 'name\ttrace\tdevice\tpreset\tmeasured_us\twhat\tsource\trole\nx\tno/such\td\th100\t1\tw\ts\tfitted\n' >badrole.tsv
expect_fail "unknown role" "badrole.tsv:2: role: 'fitted' is neither 'calibration'" --manifest badrole.tsv
if [ -e "$BPTREE" ] && [ ${#GPU[@]} -eq 0 ]; then
	{ cat conv_head.tsv
	  for c in nsys ctas host; do
		printf 'bt-%s\t%s\td\th100-pcie\t18.1\tw\ts\t%s\n' "$c" "$BPTREE" "$c"
	  done; } >conv.tsv
	if "$GPUVM" validate --manifest conv.tsv --csv conv.csv -q 2>stderr.txt &&
	   python3 - conv.csv <<'EOF'
import csv, sys
r = {x["name"]: x for x in csv.DictReader(open(sys.argv[1], newline=""))}
assert [r["bt-" + k]["convention"] for k in ("nsys", "ctas", "host")] == ["nsys", "ctas", "host"]
n, c, h = (float(r["bt-" + k]["simulated_us"]) for k in ("nsys", "ctas", "host"))
# nsys holds each kernel's front-end (h100-pcie sets gpu.kernel_frontend_cycles:
# 1790 cycles = 1.02 us), ctas not; host adds gpu.kernel_launch_us per kernel
assert n - c > 1.0 and n - c < 5.0, (n, c)
launch = float(r["bt-host"]["kernel_launch_us"])
assert abs((h - n) - 2 * launch) < 1e-3, (h, n, launch)
EOF
	then echo "ok - conventions: ctas < nsys < host by the front-ends and launches"
	else fail "conventions"; cat stderr.txt conv.csv
	fi
fi

# ---- repeated launches: each kernel's median or first launch -------------
# atax runs two kernels a round: with launches=3, nsys-first is each
# kernel's first launch (= the one-launch run's kernels, which come first
# in time), nsys-median each kernel's middle launch by duration, both
# summed over the two kernel names; a row of the same trace and preset
# reads the earlier row's replay and must agree with a fresh one (a row on
# another preset replays its own).
AT=workload:atax:variant=polybench-gpu,n=64
{ cat conv_head.tsv
  printf 'one\t%s\td\th100\t10\tw\ts\tnsys\n' "$AT"
  printf 'med\t%s,launches=3\td\th100\t10\tw\ts\tnsys-median\n' "$AT"
  printf 'first\t%s,launches=3\td\th100\t10\tw\ts\tnsys-first\n' "$AT"
  printf 'all\t%s,launches=3\td\th100\t10\tw\ts\tnsys\n' "$AT"
  printf 'pcie\t%s,launches=3\td\th100-pcie\t10\tw\ts\tnsys-first\n' "$AT"; } >rep.tsv
{ cat conv_head.tsv
  printf 'pcie\t%s,launches=3\td\th100-pcie\t10\tw\ts\tnsys-first\n' "$AT"
  printf 'med\t%s,launches=3\td\th100\t10\tw\ts\tnsys-median\n' "$AT"; } >rep1.tsv
"$GPUVM" sim --gpu h100 --workload "${AT#workload:},launches=3" --json rep.json >/dev/null 2>&1
if "$GPUVM" validate --manifest rep.tsv --csv rep.csv -q 2>stderr.txt &&
   "$GPUVM" validate --manifest rep1.tsv --csv rep1.csv -q 2>>stderr.txt &&
   python3 - rep.csv rep1.csv rep.json <<'EOF'
import csv, json, statistics, sys
r = {x["name"]: x for x in csv.DictReader(open(sys.argv[1], newline=""))}
alone = {x["name"]: x for x in csv.DictReader(open(sys.argv[2], newline=""))}
ks = json.load(open(sys.argv[3]))["kernels"]
mhz = float(r["med"]["clock_mhz"])
us = lambda k: (k["end_cycle"] - k["start_cycle"]) / mhz
names = ["atax_pb_kernel1", "atax_pb_kernel2"]
assert [k["name"] for k in ks] == names * 3, [k["name"] for k in ks]
by = {n: [us(k) for k in ks if k["name"] == n] for n in names}
sim = {k: float(v["simulated_us"]) for k, v in r.items()}
assert abs(sim["med"] - sum(statistics.median(v) for v in by.values())) < 1e-6, (sim, by)
assert abs(sim["first"] - sum(v[0] for v in by.values())) < 1e-6, (sim, by)
assert abs(sim["first"] - sim["one"]) < 1e-6, sim
assert abs(sim["all"] - sum(sum(v) for v in by.values())) < 1e-6, sim
# the later launches find the matrix in the L2: faster than the first
assert sim["med"] < sim["first"], sim
# rep1.tsv replays pcie first and med after it: each row as a fresh replay
assert all(float(alone[k]["simulated_us"]) == sim[k] for k in ("med", "pcie")), (alone, sim)
assert [r[k]["convention"] for k in ("med", "first")] == ["nsys-median", "nsys-first"]
EOF
then echo "ok - nsys-median / nsys-first: each kernel's median / first launch, summed"
else fail "repeated launches"; cat stderr.txt rep.csv
fi
{ cat conv_head.tsv; printf 'v\t%s,launches=3,verify=1\td\th100\t1\tw\ts\tnsys\n' "$AT"; } >repv.tsv
expect_fail "launches with verify" "repv.tsv:2: v: --workload: verify: checks one run" \
	--manifest repv.tsv
{ cat conv_head.tsv; printf 'v\t%s,launches=0\td\th100\t1\tw\ts\tnsys\n' "$AT"; } >rep0.tsv
expect_fail "launches=0" "rep0.tsv:2: trace: --workload: launches=0: out of range [1, 4096]" \
	--manifest rep0.tsv

# ---- --jobs N: rows replayed in worker processes, the same results ---------
expect_fail "--jobs 0" "--jobs: '0': expected a whole number" --manifest skip.tsv --jobs 0
expect_fail "--jobs -2" "--jobs: '-2'" --manifest skip.tsv --jobs -2
expect_fail "--jobs 2x" "--jobs: '2x'" --manifest skip.tsv --jobs 2x
expect_fail "--jobs 1025" "--jobs: '1025'" --manifest skip.tsv --jobs 1025
# a trace, rows that read an earlier row's replay (median and first of one
# 2dconv run), and other workloads
{ cat conv_head.tsv
  printf 'c1\tworkload:2dconv:n=64,launches=3\td\th100\t9\tw\ts\tnsys-median\n'
  printf 'v\tworkload:vectoradd:n=16384\td\th100\t2\tw\ts\tnsys\n'
  printf 'c2\tworkload:2dconv:n=64,launches=3\td\th100\t9\tw\ts\tnsys-first\n'
  printf 'at\tworkload:atax:n=64\td\th100\t20\tw\ts\tnsys\n'
  [ -e "$BPTREE" ] && printf 'bt\t%s\td\th100\t18.1\tw\ts\tnsys\n' "$BPTREE"
} >jobs.tsv
"$GPUVM" validate --manifest jobs.tsv --csv jobs1.csv >jobs1.txt 2>stderr.txt
rc1=$?
"$GPUVM" validate --manifest jobs.tsv --csv jobs3.csv --jobs 3 >jobs3.txt 2>>stderr.txt
rc3=$?
if [ $rc1 -eq 0 ] && [ $rc3 -eq 0 ] && cmp -s jobs1.csv jobs3.csv && cmp -s jobs1.txt jobs3.txt &&
   [ "$(grep -c ',ok,' jobs3.csv)" -eq "$(($(wc -l <jobs.tsv) - 1))" ]; then
	echo "ok - --jobs 3: the same table and CSV as one job ($(($(wc -l <jobs.tsv) - 1)) rows)"
else
	fail "--jobs 3 differs from one job (exit $rc1 / $rc3)"; cat stderr.txt; diff jobs1.txt jobs3.txt
fi
# the first failing row in manifest order is the one reported, whichever
# worker fails first: 'late' fails near the end of its second kernel,
# 'early' in its first lines
if [ -e "$BPTREE" ]; then
	for which in late early; do
		cp -r "$BPTREE" "$which" && chmod -R u+w "$which"
	done
	k2=$(ls late/kernel-2*.traceg) k1=$(ls early/kernel-1*.traceg)
	sed -i "$(($(wc -l <"$k2") - 20))s/.*/zzzz not a trace line/" "$k2"
	sed -i '20s/.*/zzzz not a trace line/' "$k1"
	{ cat conv_head.tsv
	  printf 'late\t%s\td\th100\t18.1\tw\ts\tnsys\n' "$T/late"
	  printf 'early\t%s\td\th100\t18.1\tw\ts\tnsys\n' "$T/early"
	} >order.tsv
	expect_fail "failing rows, one job" "order.tsv:2: late: " --manifest order.tsv
	expect_fail "failing rows, --jobs 2" "order.tsv:2: late: " --manifest order.tsv --jobs 2
	# the rows after the first failing one are stopped, not waited for
	# (gemm at n = 1024 replays for a minute and more)
	{ cat conv_head.tsv
	  printf 'early\t%s\td\th100\t18.1\tw\ts\tnsys\n' "$T/early"
	  printf 'long\tworkload:gemm:n=1024\td\th100\t900\tw\ts\tnsys\n'
	} >stop.tsv
	start=$(date +%s)
	expect_fail "failing rows, --jobs 2, a long row after" "stop.tsv:2: early: " --manifest stop.tsv --jobs 2
	took=$(($(date +%s) - start))
	if [ $took -lt 10 ]; then
		echo "ok - --jobs 2: the row after the failing one stopped (${took} s)"
	else
		fail "--jobs 2: $took s with a failing first row (wanted under 10 s)"
	fi
fi

# ---- --help teaches -------------------------------------------------------
"$GPUVM" validate --help >help.txt
if grep -q "launch overhead is excluded" help.txt && grep -q "measured_us" help.txt &&
   grep -q "looked up in the manifest.s folder, then in that folder.s" help.txt; then
	echo "ok - --help explains the comparison and manifest"
else fail "--help"; cat help.txt
fi

# ---- progress in a batch log ---------------------------------------------
# stderr not a terminal: a line per row replayed (at most one every 30 s but
# the last); --quiet: none
# (the two-row manifest's runs above, from the repository root: their
# stderr; each replay of it is a process start and two rows under ASan)
if [ -e "$BPTREE" ]; then
	if grep -q "^gpuvm validate: 2 of 2 rows replayed (last: vectoradd-16384)" repo-batch.log; then
		echo "ok - batch log: the last row's progress line"
	else fail "batch log lacks the progress line: $(cat repo-batch.log)"
	fi
	[ -e quiet.txt ] && [ ! -s quiet.txt ] && echo "ok - --quiet: no progress" ||
		fail "--quiet wrote $(cat quiet.txt)"
fi

if [ $failures -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "all validate tests passed"
