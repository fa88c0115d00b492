#!/usr/bin/env bash
# experiments/karnagel_fig1.sh's E1 check lines: on made-up CSVs
# (CHECK_ONLY=1 skips the sweeps) a check inside the paper's band says
# "yes", one outside says NO and why (which side of the band, by how much,
# which cliff); the demo announces its peak memory.
# usage: demo_checks.sh /path/to/gpuvm /path/to/source
set -euo pipefail
GPUVM=$(realpath "$1")
SRC=$(realpath "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-demo-checks.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }

# sizes in MiB and reads/s: p100 flat to 2 GiB then SLOW x lower; k80 with cliffs at
# 128 MiB and 2 GiB of K1 and K2
make_csv() { # file p100_slowdown k80_first_cliff k80_second_cliff
	python3 - "$@" <<'PY'
import sys
path, slow, k1, k2 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
sizes = [32, 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192]
with open(path, "w") as f:
    f.write("gpu,workload.region,workload.region_bytes,items_per_sim_second\n")
    for mib in sizes:
        b = mib * 2**20
        p = 1e10 if mib <= 2048 else 1e10 / slow
        k = 5e9 if mib <= 128 else (5e9 / k1 if mib <= 2048 else 5e9 / k1 / k2)
        f.write(f"p100,{mib}MiB,{b},{p}\nk80,{mib}MiB,{b},{k}\n")
PY
}
mkdir -p good bad
make_csv good/fig1a_sampling.csv 4.0 2.0 3.0
make_csv good/fig1b_groupby.csv 3.0 2.0 3.0
make_csv bad/fig1a_sampling.csv 1.5 1.2 3.0
make_csv bad/fig1b_groupby.csv 9.0 2.0 3.0
CHECK_ONLY=1 OUT=good bash "$SRC/experiments/karnagel_fig1.sh" "$GPUVM" > good.txt
CHECK_ONLY=1 OUT=bad bash "$SRC/experiments/karnagel_fig1.sh" "$GPUVM" > bad.txt
! grep -q "NO" good.txt || fail "in-band data gave a NO: $(grep NO good.txt)"
[ "$(grep -c ": yes" good.txt)" -ge 4 ] || fail "in-band data: $(cat good.txt)"
grep -q "paper 4.3x .*NO: 1.50x is below the band by 43% (the cliff is too shallow)" bad.txt ||
	fail "sampling slowdown below the band not explained: $(grep 4.3x bad.txt)"
grep -q "paper 3.3x .*NO: 9.00x is above the band by 102% (the cliff is too steep)" bad.txt ||
	fail "group-by slowdown above the band not explained: $(grep 3.3x bad.txt)"
grep -q "drop 1 GiB -> 4 GiB: 1.50x (needs > 2x): NO: the cliff near 2 GB" bad.txt ||
	fail "p100 drop not explained: $(grep 'drop 1 GiB' bad.txt)"
grep -q "NO: the first cliff (130 MB, reach of the L2 TLB) drops only 1.20x" bad.txt ||
	fail "k80 first cliff not explained: $(grep '64 MiB' bad.txt)"
! grep -q "NO$" bad.txt || fail "a bare NO: $(grep 'NO$' bad.txt)"
grep -q "peak memory: about 1.1 GB" "$SRC/experiments/karnagel_fig1.sh" ||
	fail "the demo does not announce its peak memory"
echo "ok - the demo's E1 checks say why a value is outside the paper's band"
