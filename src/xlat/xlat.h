/* Address translation: the configured TLB levels (each with its sharing
 * map and MSHRs) in front of the page-walk unit (walkers in flight, an
 * optional page-walk cache). translate() returns when the translation of
 * an address requested by an SM at time t is available.
 *
 * Contract:
 *  - Owns: every TLB level's instances (their TLBs, MSHRs and counts),
 *    the sharing schemes' state (peer.h), the walkers and the page-walk
 *    cache.
 *  - May call: src/mem/server_pool.h (MSHRs and walkers as calendars)
 *    and, through the hooks the system builder installs (function
 *    pointers, not includes or calls the check sees), the memory
 *    partitions for a walk's leaf read (pte_hook: system.c walk_pte_read)
 *    and the UVM driver for a managed page (hook: system.c
 *    uvm_walk_hook).
 *  - Guarantees: xlat_translate answers a request for (sm, addr) at t
 *    with a time no earlier than t; an SM's request touches only the
 *    level instances its SM id maps to (tlb.lN.share), except through a
 *    sharing scheme (probe_remote, after_translate). */
#ifndef GPUVM_XLAT_H
#define GPUVM_XLAT_H

#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/stats.h"
#include "mem/server_pool.h"
#include "xlat/peer.h"
#include "xlat/tlb.h"

/* One instance of a level (one per sharing domain): its TLB, its MSHRs and
 * its counts. Counted here and added to the level's stats by
 * xlat_sync_stats: one increment a lookup instead of four (lookups, hits
 * or misses, the instance's). */
struct xlat_instance {
	struct tlb tlb;
	struct server_pool mshr;
	uint64_t hits, misses;
};

struct xlat_level {
	unsigned shift;               /* log2(entry_bytes) */
	double hit_cycles, miss_penalty_cycles;
	uint32_t instances;
	struct xlat_instance *inst;    /* [instances] */
	struct xlat_instance **of_sm;  /* [sms]: the instance each SM uses */
	struct gpuvm_tlb_level_stats *stats;
	uint64_t pending_hits;
	double cycles;                 /* translation cycles since the last sync */
	/* inter-TLB sharing scheme (src/xlat/peer.h); NULL ops: none */
	const struct xlat_peer_ops *peer_ops;
	void *peer;
};

/* Called after a walk of addr for SM sm finished at t (the miss path
 * only): returns when the translation is usable (later when the page must
 * first be brought in) and may lower *fill_max, the largest entry range
 * that may be kept (TLB levels with larger entries drop this one). */
typedef double (*xlat_walk_hook)(void *ctx, uint32_t sm, uint64_t addr, double t,
				 uint64_t *fill_max);

/* Reads the leaf page-table entry of addr's page at time t through the
 * memory hierarchy; returns the cycles it adds beyond the walk latency
 * (which already holds a read that hits the L2). */
typedef double (*xlat_pte_hook)(void *ctx, uint64_t addr, double t);

struct xlat {
	uint32_t levels;
	struct xlat_level level[GPUVM_MAX_TLB_LEVELS];
	struct server_pool walkers;
	double walk_cycles, pwc_walk_cycles;
	struct tlb pwc;               /* entries == 0: no page-walk cache */
	unsigned pwc_shift;
	int pwc_on;
	struct gpuvm_stats *stats;
	uint64_t walks, pwc_hits;     /* since the last xlat_sync_stats */
	xlat_walk_hook hook;          /* NULL: every walk succeeds */
	void *hook_ctx;
	xlat_pte_hook pte_hook;       /* NULL: the walk latency holds the entry reads */
	void *pte_ctx;
	uint64_t fill_max;            /* set per walk by the hook */
	/* Under paging (hook set), when the level below answered this
	 * translation: the walk's end, or the lookup of the level that hit.
	 * MSHRs are held until then, not until the data: a fault Nacks at
	 * walk end and the request replays, and an entry still being filled
	 * answers "pending" at once (seeds/003 Fig. 4). */
	double answered;
	/* Some level has a sharing scheme, or the sharing analysis is on:
	 * translations take the slow path (xlat.c), the fast one otherwise. */
	bool slow;
	/* tlb.l1_in_flight = miss: at the first level an entry counts only
	 * once filled (lookups, the sharing analysis); slow path only */
	bool l1_in_flight_miss;
	/* tlb.future_fill = peek: a last-level lookup earlier than its
	 * entry's fill request reads the walkers' calendar, books no walk */
	bool future_peek;
	struct gpuvm_tlb_sharing_stats *sharing; /* NULL: analysis off */
};

int xlat_init(struct xlat *x, const struct gpuvm_config *cfg, struct gpuvm_stats *stats);
void xlat_free(struct xlat *x);

/* Time at which addr's translation is available to SM sm, for a request
 * made at time t. Updates TLB state and statistics. */
double xlat_translate(struct xlat *x, uint32_t sm, uint64_t addr, double t);

/* Adds the counts kept since the last call to the statistics (every
 * counter of stats->tlb[], walks, pwc_hits). Call before reading them;
 * xlat_free does it a last time. */
void xlat_sync_stats(struct xlat *x);

/* Drops cached entries covering [addr, addr + bytes) at every level and
 * instance (a TLB shootdown after eviction). */
void xlat_invalidate_range(struct xlat *x, uint64_t addr, uint64_t bytes);

#endif
