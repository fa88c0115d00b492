/* TLB scopes (Karnagel et al. §5): a randomly accessed region is split
 * into scopes no larger than a TLB level's reach and the kernel runs once
 * per scope, each pass touching only its scope. This header is the scope
 * advice: an analytic model that predicts a scoped workload's time for
 * every candidate scope on a preset and picks the fastest (`--scope auto`,
 * `scope=auto`). docs/scoping.md describes the model. */
#ifndef GPUVM_SCOPE_H
#define GPUVM_SCOPE_H

#include <stdint.h>
#include <stdio.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"

#define GPUVM_SCOPE_MAX_CANDIDATES 32

struct gpuvm_scope_candidate {
	uint64_t scope_bytes;     /* 0 = unscoped (one pass over the whole region) */
	uint32_t passes;
	double predicted_seconds;
	char bound[24];           /* resource that dominates the predicted time */
};

struct gpuvm_scope_advice {
	char workload[32];
	uint64_t region_bytes;    /* the randomly accessed bytes that get scoped */
	uint64_t tlb_reach_bytes[GPUVM_MAX_TLB_LEVELS]; /* per instance, per level */
	uint32_t tlb_levels;
	size_t n, best;           /* candidates c[0..n), c[best] is the choice */
	struct gpuvm_scope_candidate c[GPUVM_SCOPE_MAX_CANDIDATES];
};

/* Predicts every candidate scope of a scoped workload spec
 * ("random-sampling:region=16GiB", "hash-groupby:region=8GiB,scoped=copy")
 * on a finalized cfg. Any scope= in the spec is ignored. Fails for a
 * workload without scopes or a bad spec. */
int gpuvm_scope_advise(const struct gpuvm_config *cfg, const char *workload_spec,
		       struct gpuvm_scope_advice *adv, struct gpuvm_error *err);

/* The candidates and the choice, as a short table explaining why. */
void gpuvm_scope_advice_print(FILE *out, const struct gpuvm_scope_advice *adv);

#endif
