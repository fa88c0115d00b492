/* A TLB level's counters (struct gpuvm_tlb_level_stats,
 * include/gpuvm/stats.h), registered as gpuvm/counters.h describes: the
 * JSON's "tlb" array has an object per level with these members, sweep
 * CSVs have them as tlb_lN_NAME, and every launch's record carries the
 * GPUVM_CTR_SUM ones as kernels[].tlb[].NAME. Row order is JSON order. */
/* Rows are written positionally; the callbacks they leave out are NULL. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <math.h>
#include <stddef.h>

#include "gpuvm/counters.h"
#include "gpuvm/stats.h"

#define TL(f) offsetof(struct gpuvm_tlb_level_stats, f)
#define SUM GPUVM_CTR_SUM

static const struct gpuvm_tlb_level_stats *L(const struct gpuvm_counter_ctx *c) { return c->base; }

static double ratio(double a, double b) { return b ? a / b : 0.0; }

static double level(const struct gpuvm_counter_ctx *c) { return c->index + 1; }

static double r_local(const struct gpuvm_counter_ctx *c)
{
	return ratio((double)(L(c)->hits + L(c)->pending_hits), (double)L(c)->lookups);
}

static double r_remote(const struct gpuvm_counter_ctx *c)
{
	return ratio((double)L(c)->remote_hits, (double)L(c)->lookups);
}

static double r_l1(const struct gpuvm_counter_ctx *c) { return r_local(c) + r_remote(c); }

/* counted only when the slow path ran (a scheme or --tlb-sharing): null otherwise */
static double avg_translation(const struct gpuvm_counter_ctx *c)
{
	if (!L(c)->translation_counted)
		return NAN;
	return L(c)->lookups ? L(c)->translation_cycles / (double)L(c)->lookups : 0;
}

static void emit_instances(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	cJSON *ih = cJSON_AddArrayToObject(o, "instance_hits");
	cJSON *im = cJSON_AddArrayToObject(o, "instance_misses");
	for (uint32_t i = 0; i < L(c)->instances; i++) {
		cJSON_AddItemToArray(ih, cJSON_CreateNumber((double)L(c)->instance_hits[i]));
		cJSON_AddItemToArray(im, cJSON_CreateNumber((double)L(c)->instance_misses[i]));
	}
}

static const struct gpuvm_counter rows[] = {
	{"level", "index", "TLB level", "TLB level, 1 = closest to the SM (CSV: the N of tlb_lN_*)", GPUVM_CTR_FN, GPUVM_CTR_KEY, 0, level},
	{"lookups", "count", "TLB lookups", "translation requests reaching this TLB level", GPUVM_CTR_U64, SUM, TL(lookups)},
	{"hits", "count", "TLB hits", "lookups that found the entry filled", GPUVM_CTR_U64, SUM, TL(hits)},
	{"pending_hits", "count", "TLB pending hits", "lookups that found the entry still being filled (merged into its MSHR)", GPUVM_CTR_U64, SUM, TL(pending_hits)},
	{"misses", "count", "TLB misses", "lookups that missed and went to the next level or the page walk", GPUVM_CTR_U64, SUM, TL(misses)},
	{"hit_ratio", "ratio", "TLB hit ratio", "(hits + pending_hits) / lookups", GPUVM_CTR_FN, 0, 0, r_local},
	{"mshr_wait_cycles", "cycles", "TLB MSHR wait", "summed wait for a free TLB MSHR", GPUVM_CTR_F64, SUM, TL(mshr_wait_cycles)},
	{"instances", "count", "TLB instances", "instances of this level (per SM, TPC, GPC or GPU)", GPUVM_CTR_U32, 0, TL(instances)},
	/* seeds/002 Eq. 1 and its performance measure (docs/neidty.md) */
	{"peer", "text", NULL, "inter-TLB sharing scheme of the level (none, neidty, valkyrie)", GPUVM_CTR_TEXT_PTR, 0, TL(peer)},
	{"r_local", "ratio", "local TLB hit ratio", "Du et al. Eq. 1: lookups served by the local instance / lookups", GPUVM_CTR_FN, 0, 0, r_local},
	{"r_remote", "ratio", "remote TLB hit ratio", "Du et al. Eq. 1: lookups served by a neighbour instance / lookups", GPUVM_CTR_FN, 0, 0, r_remote},
	{"r_l1", "ratio", "L1 TLB hit ratio with sharing", "r_local + r_remote (Du et al. Eq. 1)", GPUVM_CTR_FN, 0, 0, r_l1},
	{"avg_translation_cycles", "cycles", "translation latency", "mean cycles per lookup to translate (null unless a sharing scheme or --tlb-sharing runs)", GPUVM_CTR_FN, 0, 0, avg_translation},
	{"remote_hits", "count", "remote TLB hits", "local misses served by another instance (sharing schemes)", GPUVM_CTR_U64, SUM, TL(remote_hits)},
	{"remote_fills", "count", "remote TLB fills", "remote hits also filled into the local TLB", GPUVM_CTR_U64, SUM, TL(remote_fills)},
	{"directory_hits", "count", "directory hits", "NeiDty: the directory named a neighbour", GPUVM_CTR_U64, SUM, TL(directory_hits)},
	{"directory_false_hits", "count", "directory false hits", "NeiDty: the named neighbour lacked the page", GPUVM_CTR_U64, SUM, TL(directory_false_hits)},
	{"neighbour_port_waits", "count", "neighbour port waits", "NeiDty: requests that found the neighbour's port busy", GPUVM_CTR_U64, SUM, TL(port_waits)},
	{"neighbour_port_wait_cycles", "cycles", "neighbour port wait", "NeiDty: cycles waited for neighbour ports", GPUVM_CTR_F64, SUM, TL(port_wait_cycles)},
	{"ring_probes", "count", "ring probes", "Valkyrie: probes sent into the ring", GPUVM_CTR_U64, SUM, TL(ring_probes)},
	{"ring_hops", "count", "ring hops", "Valkyrie: hops of probes and answers", GPUVM_CTR_U64, SUM, TL(ring_hops)},
	{"ring_misses", "count", "ring misses", "Valkyrie: probed, no instance held the page", GPUVM_CTR_U64, SUM, TL(ring_misses)},
	{"ldt_pushes", "count", "LDT pushes", "Valkyrie: entries pushed into L1 TLBs by the L2-TLB eviction prefetcher", GPUVM_CTR_U64, SUM, TL(ldt_pushes)},
	{"instance_hits[]", "count", NULL, "hits per instance of the level (JSON only)", GPUVM_CTR_EMIT, 0, 0, NULL, NULL, emit_instances},
	{"instance_misses[]", "count", NULL, "misses per instance of the level (JSON only)", GPUVM_CTR_DOC},
};

static uint32_t levels(const struct gpuvm_stats *st) { return st->tlb_levels; }

const struct gpuvm_counter_section gpuvm_tlb_level_section = {
	"tlb", GPUVM_STAT_RUN, true, GPUVM_COUNTER_ROWS(rows), levels,
	offsetof(struct gpuvm_stats, tlb), sizeof(struct gpuvm_tlb_level_stats), GPUVM_MAX_TLB_LEVELS,
};
