#!/usr/bin/env bash
# How far NeiDty's speed-ups on gem5gpu-neidty move under perturbations
# of one cycle that no scheme depends on (docs/neidty.md, "Is twice below
# default a bug?"). For each workload and each perturbation it runs the
# baseline, neidty-default, neidty-exclusive and neidty-twice, and reports
# each policy's speed-up (the baseline's average translation delay over
# the scheme's, both under the same perturbation), the walks, and in how
# many perturbations twice >= default.
#
#   experiments/neidty_sensitivity.sh BIN OUTDIR
#
# WORKLOADS (default "mis") as in neidty_fig8_11.sh; PERTURB: the --set
# lists, one per perturbation, separated by ";" (default: the walk at
# 148-152 cycles, the L2 TLB hit at 9 and 11 cycles around Table III's 150
# and 10). MIS costs ~2 CPU s a run (28 runs), ATAX ~126 (polybench-gpu).
# Writes OUTDIR/sensitivity.csv and the runs' JSON under OUTDIR/json/;
# RESUME=1 keeps the JSON already there. JOBS=N runs N at a time (2).
set -euo pipefail
BIN=${1:?usage: neidty_sensitivity.sh BIN OUTDIR}
OUT=${2:?usage: neidty_sensitivity.sh BIN OUTDIR}
JOBS=${JOBS:-2}
WORKLOADS=${WORKLOADS:-mis}
PERTURB=${PERTURB:-walker.latency_cycles=148;walker.latency_cycles=149;walker.latency_cycles=150;walker.latency_cycles=151;walker.latency_cycles=152;tlb.l2.hit_latency_cycles=9;tlb.l2.hit_latency_cycles=11}
mkdir -p "$OUT/json"
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON reports" >&2; exit 2; }

. "$(dirname "$0")/neidty_workloads.sh"
SCHEMES="baseline neidty-default neidty-exclusive neidty-twice"
sets_of() {
	case $1 in
	baseline) echo "--set tlb.l1.peer=none" ;;
	neidty-*) echo "--set tlb.l1.peer=neidty --set neidty.update=${1#neidty-}" ;;
	esac
}
jobs_file="$OUT/.jobs"
: >"$jobs_file"
IFS=';' read -r -a perts <<<"$PERTURB"
for w in $WORKLOADS; do
	for p in "${perts[@]}"; do
		for s in $SCHEMES; do
			f="$OUT/json/$w.$p.$s.json"
			[ -n "${RESUME:-}" ] && [ -s "$f" ] && continue
			# shellcheck disable=SC2046
			echo "$BIN sim --gpu gem5gpu-neidty --workload $(spec_of "$w") --set $p $(sets_of "$s") --json $f -q" >>"$jobs_file"
		done
	done
done
echo "NeiDty sensitivity: $(wc -l <"$jobs_file") runs, $JOBS at a time"
xargs -P "$JOBS" -I{} -d '\n' bash -c '{}' <"$jobs_file"
rm -f "$jobs_file"

python3 - "$OUT" "$WORKLOADS" "$PERTURB" <<'EOF'
import json, os, sys
out, workloads, perts = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(";")
schemes = ["baseline", "neidty-default", "neidty-exclusive", "neidty-twice"]
with open(os.path.join(out, "sensitivity.csv"), "w") as f:
    f.write("workload,perturbation,scheme,avg_translation_cycles,speedup_vs_baseline,walks,remote_hits\n")
    for w in workloads:
        sp = {s: [] for s in schemes}
        print("\n%s: speed-up over the baseline under the same perturbation (walks)" % w)
        print("%-30s %10s %16s %16s %16s" % ("perturbation", "base cyc", "default", "exclusive", "twice"))
        for p in perts:
            res = {}
            for s in schemes:
                d = json.load(open(os.path.join(out, "json", "%s.%s.%s.json" % (w, p, s))))
                r = d.get("results", d)
                res[s] = (r["tlb"][0]["avg_translation_cycles"], r["walks"], r["tlb"][0].get("remote_hits", 0))
            base = res["baseline"][0]
            cells = []
            for s in schemes:
                x = base / res[s][0]
                sp[s].append(x)
                f.write("%s,%s,%s,%.4f,%.4f,%d,%d\n" % (w, p, s, res[s][0], x, res[s][1], res[s][2]))
                if s != "baseline":
                    cells.append("%6.3fx (%7d)" % (x, res[s][1]))
            print("%-30s %10.1f %s" % (p, base, " ".join(cells)))
        n = len(perts)
        for s in schemes[1:]:
            v = sp[s]
            m = sum(v) / n
            sd = (sum((x - m) ** 2 for x in v) / (n - 1)) ** 0.5 if n > 1 else 0
            print("  %-17s mean %.3fx  sd %.3f  min %.3fx  max %.3fx" % (s, m, sd, min(v), max(v)))
        ge = sum(1 for a, b in zip(sp["neidty-twice"], sp["neidty-default"]) if a >= b)
        print("  twice >= default in %d of %d perturbations" % (ge, n))
EOF
