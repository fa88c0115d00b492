/* The statistics registry: every value a run reports (sim JSON, sweep CSV
 * columns, the per-kernel and per-allocation rows of --stats-csv) has a
 * name, a unit and a one-line description here. `gpuvm stats` lists them;
 * figures take their axis labels from them; tests/cli/stats.sh fails when
 * a run emits a key the registry does not know.
 *
 * Names are JSON paths as pandas.json_normalize spells them: nested
 * objects joined by '.', an array of objects written "[]" ("tlb[].hits":
 * the hits of each TLB level, "kernels[].ipc"). A sweep CSV flattens the
 * same values into columns: '.' becomes '_' and a TLB level's index its
 * number (tlb[].hits -> tlb_l1_hits, uvm.far_faults -> uvm_far_faults);
 * gpuvm_stat_find accepts either spelling. */
#ifndef GPUVM_STATS_REGISTRY_H
#define GPUVM_STATS_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

/* enum gpuvm_stat_scope (where a statistic appears) is gpuvm/counters.h's,
 * whose rows carry it. */
#include "gpuvm/counters.h"


struct gpuvm_stat_info {
	const char *name;  /* JSON path, e.g. "uvm.far_faults", "tlb[].hits" */
	const char *unit;  /* count, cycles, s, bytes, pages, ratio, 1/s, bool, text, ... */
	const char *label; /* short axis label ("far faults"); NULL: the name */
	const char *help;  /* one line */
	enum gpuvm_stat_scope scope;
};

size_t gpuvm_stat_count(void);
const struct gpuvm_stat_info *gpuvm_stat_at(size_t i);

/* The entry of a JSON path ("uvm.far_faults", "tlb[1].hits" or
 * "tlb[].hits"), a sweep CSV column ("uvm_far_faults", "tlb_l2_hits",
 * "l2_sector_hit_ratio"), or a --stats-csv metric ("kernel.ipc",
 * "alloc.thread_accesses"); NULL when unknown. */
const struct gpuvm_stat_info *gpuvm_stat_find(const char *name);

/* Entries whose name's last component is name ("ipc" finds kernels[].ipc,
 * "bytes" alloc.bytes and uvm.allocations[].bytes, "far_faults" also
 * kernels[].uvm.far_faults): up to max into out; returns how many match.
 * For people looking a name up (gpuvm stats NAME), not for --check. */
size_t gpuvm_stat_find_short(const char *name, const struct gpuvm_stat_info **out, size_t max);

/* "far faults (count)", "simulated time (s)": an axis label with its unit.
 * Unknown names come back as given. */
void gpuvm_stat_axis_label(const char *name, char *buf, size_t len);

/* The closest registered name (CSV spelling when csv) to a mistyped one,
 * or NULL. */
const char *gpuvm_stat_suggest(const char *name, bool csv);

#endif
