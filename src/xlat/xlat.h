/* Address translation: the configured TLB levels (each with its sharing
 * map and MSHRs) in front of the page-walk unit (walkers in flight, an
 * optional page-walk cache). translate() returns when the translation of
 * an address requested by an SM at time t is available. */
#ifndef GPUVM_XLAT_H
#define GPUVM_XLAT_H

#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "mem/server_pool.h"
#include "xlat/tlb.h"

struct xlat_level {
	unsigned shift;               /* log2(entry_bytes) */
	double hit_cycles, miss_penalty_cycles;
	uint32_t instances;
	const uint16_t *instance_of_sm;
	struct tlb *tlb;              /* [instances] */
	struct server_pool *mshr;     /* [instances] */
	struct gpuvm_tlb_level_stats *stats;
};

struct xlat {
	uint32_t levels;
	struct xlat_level level[GPUVM_MAX_TLB_LEVELS];
	struct server_pool walkers;
	double walk_cycles, pwc_walk_cycles;
	struct tlb pwc;               /* entries == 0: no page-walk cache */
	unsigned pwc_shift;
	int pwc_on;
	struct gpuvm_stats *stats;
};

int xlat_init(struct xlat *x, const struct gpuvm_config *cfg, struct gpuvm_stats *stats);
void xlat_free(struct xlat *x);

/* Time at which addr's translation is available to SM sm, for a request
 * made at time t. Updates TLB state and statistics. */
double xlat_translate(struct xlat *x, uint32_t sm, uint64_t addr, double t);

#endif
