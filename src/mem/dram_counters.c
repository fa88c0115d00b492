/* The banked DRAM model's counters (struct gpuvm_dram_stats,
 * include/gpuvm/stats.h), registered as gpuvm/counters.h describes: the
 * JSON's "dram" object (only when the preset has the banked model), sweep
 * CSV columns dram_NAME, and per launch kernels[].dram.NAME for the
 * GPUVM_CTR_SUM ones. The model counts in each memory partition
 * (mem/dram_model.h); memsys_sync_stats sums them into the stats. */
/* Rows are written positionally; the callbacks they leave out are NULL. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <stddef.h>

#include "gpuvm/counters.h"
#include "gpuvm/stats.h"

#define D(f) offsetof(struct gpuvm_dram_stats, f)
#define SUM GPUVM_CTR_SUM
#define SEC GPUVM_CTR_SECONDS
#define U64 GPUVM_CTR_U64
#define F64 GPUVM_CTR_F64
#define FN GPUVM_CTR_FN

static const struct gpuvm_dram_stats *DS(const struct gpuvm_counter_ctx *c) { return c->base; }

static double row_hit_ratio(const struct gpuvm_counter_ctx *c)
{
	uint64_t n = DS(c)->row_hits + DS(c)->row_misses;
	return n ? (double)DS(c)->row_hits / (double)n : 0;
}

static const struct gpuvm_counter rows[] = {
	{"row_hits", "count", "DRAM row hits", "sector accesses (reads and write-backs) to their bank's open row", U64, SUM, D(row_hits)},
	{"row_misses", "count", "DRAM row misses", "sector accesses that opened their row (precharge and activate)", U64, SUM, D(row_misses)},
	{"row_hit_ratio", "ratio", "DRAM row-hit ratio", "row_hits / (row_hits + row_misses)", FN, 0, 0, row_hit_ratio},
	{"turnarounds", "count", "DRAM bus turnarounds", "write drains after which the bus turned from reads to writes and back (dram.write_batch_sectors with dram.twtr_ns / trtw_ns)", U64, SUM, D(turnarounds)},
	{"reads_held", "count", "reads held by write drains", "reads (a chunk's sectors count once) whose data waited for a write drain on their channel (dram.drain_hold)", U64, SUM, D(reads_held)},
	{"held_seconds", "s", "read wait behind drains", "the summed wait of the held reads", F64, SUM | SEC, D(held_cycles)},
};

static uint32_t banked(const struct gpuvm_stats *st) { return st->dram.banked; }

const struct gpuvm_counter_section gpuvm_dram_section = {
	"dram", GPUVM_STAT_RUN, false, GPUVM_COUNTER_ROWS(rows), banked,
	offsetof(struct gpuvm_stats, dram), 0, 1,
};
