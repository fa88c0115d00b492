#!/usr/bin/env bash
# scripts/hw-record.py --validation-only on made-up ncu durations: each size
# gives a median row (every launch of both files, convention nsys-median)
# and a first-launch row (each file's first launch, their mean,
# nsys-first), both replaying launches=N with N the launches per file; a
# two-kernel program sums its kernels; the rows it wrote before are
# replaced, other rows and the calibration table are left alone.
# usage: hw_record.sh /path/to/gpuvm /path/to/source
set -uo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "${2:-.}")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-hwrec.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

printf '# device=NVIDIA Test GPU sms=2 l2_bytes=1 cc=9.0 mem_bus_bits=1 clock_mhz=1000\n' >hw.tsv
printf 'row\tsection\tquantity\tx\tvalue\tunit\tmethod\n' >>hw.tsv
# durations.csv as ncu --csv writes it: vectorAdd (grid 64: n = 16384) five
# times, ATAX's two kernels (grid 4: n = 128) five rounds
dur() { # FILE FIRST_VA FIRST_K1
	{
		echo '==PROF== Connected to process 1 (hwbench)'
		echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
		local id=0 v
		for v in "$2" 2000 2100 2000 2200; do
			echo "\"$id\",\"1\",\"hwbench\",\"h\",\"vectoradd_kernel(vectoradd_args)\",\"1\",\"7\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\",\"s\",\"gpu__time_duration.sum\",\"ns\",\"$v\""
			id=$((id + 1))
		done
		for v in "$3" 10000 10000 11000 10000; do
			echo "\"$id\",\"1\",\"hwbench\",\"h\",\"atax_pb_kernel1(atax_args)\",\"1\",\"7\",\"(32, 8, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"s\",\"gpu__time_duration.sum\",\"ns\",\"$v\""
			echo "\"$((id + 1))\",\"1\",\"hwbench\",\"h\",\"atax_pb_kernel2(atax_args)\",\"1\",\"7\",\"(32, 8, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"s\",\"gpu__time_duration.sum\",\"ns\",\"1,000\""
			id=$((id + 2))
		done
	} >"$1"
}
dur d1.csv 3000 20000
dur d2.csv 2500 30000
H='name	trace	device	preset	measured_us	what	source	convention'
printf '%s\nother\tworkload:gemm:n=32\td\th100\t5\tw\ts\tnsys\nt-vectoradd-16384\tx\td\th100\t1\tw\tmeasured: old\tnsys\n' "$H" >m.tsv
printf '%s\n' "$H" >large.tsv
printf 'gpu\tquantity\tvalue\tunit\tsource\tconvention\nh100\tfoo\t1\tcycles\ts\tc\n' >mb.tsv
cp mb.tsv mb.before
if python3 "$SRC/scripts/hw-record.py" --preset h100 --tag t --source "measured: cuda/hwbench.cu, test" \
	--hwbench hw.tsv --durations d1.csv --durations d2.csv --peak-gb-s 100 \
	--microbench mb.tsv --measurements m.tsv --large large.tsv --validation-only 2>err.txt &&
   python3 - <<'EOF'
import csv
rows = {r["name"]: r for r in csv.DictReader(open("m.tsv"), delimiter="\t")}
assert set(rows) == {"other", "t-vectoradd-16384", "t-vectoradd-16384-first",
                     "t-atax-128", "t-atax-128-first"}, set(rows)
va, vf = rows["t-vectoradd-16384"], rows["t-vectoradd-16384-first"]
# median of 3000 2000 2100 2000 2200 2500 2000 2100 2000 2200 ns
assert va["measured_us"] == "2.100" and va["convention"] == "nsys-median", va
assert vf["measured_us"] == "2.750" and vf["convention"] == "nsys-first", vf  # (3000 + 2500) / 2
assert va["trace"] == vf["trace"] == "workload:vectoradd:n=16384,launches=5", va
at, af = rows["t-atax-128"], rows["t-atax-128-first"]
assert at["measured_us"] == "11.000", at  # 10000 + 1000 ns
assert af["measured_us"] == "26.000", af  # (20000 + 30000) / 2 + 1000 ns
assert at["trace"] == "workload:atax:variant=polybench-gpu,n=128,launches=5", at
assert rows["other"]["measured_us"] == "5", rows["other"]
EOF
then echo "ok - median and first-launch rows, launches=5, the old row replaced"
else fail "hw-record validation rows"; cat err.txt m.tsv
fi
cmp -s mb.tsv mb.before && echo "ok - --validation-only leaves the calibration table" ||
	fail "--validation-only rewrote the calibration table"
# the rows it writes run: validate reads both conventions
if "$GPUVM" validate --manifest m.tsv -q --csv out.csv 2>err.txt &&
   [ "$(grep -c ',nsys-first,' out.csv)" -eq 2 ] && [ "$(grep -c ',nsys-median,' out.csv)" -eq 2 ]; then
	echo "ok - validate runs the rows"
else fail "validate on the recorded rows"; cat err.txt out.csv
fi
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
