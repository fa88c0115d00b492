/* TLB scopes for the built-in workloads: the scope= parameter and the
 * analytic model behind scope=auto (see include/gpuvm/scope.h and
 * docs/scoping.md). A scoped workload describes itself as a profile; the
 * model turns a profile, a preset and a scope into a predicted time. */
#ifndef GPUVM_SCOPE_MODEL_H
#define GPUVM_SCOPE_MODEL_H

#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/scope.h"
#include "gpuvm/workload.h"

/* How a scoped workload's streamed input is read in passes after the first. */
enum scope_stream {
	SCOPE_STREAM_NONE,  /* no streamed input (sampling) */
	SCOPE_STREAM_NAIVE, /* every pass re-reads it zero-copy over the host link */
	SCOPE_STREAM_COPY,  /* pass 0 reads it zero-copy and writes it to a device
			     * buffer; later passes read that buffer */
};

struct scope_profile {
	const char *workload;
	uint64_t region_bytes;  /* bytes accessed at random; what scopes split */
	double threads;         /* threads per launch */
	double launches;        /* launches per pass (group-by: one per input chunk) */
	double iters;           /* loop iterations per thread and launch */
	double compute_insts;   /* warp instructions per iteration, redone every pass */
	double chain_insts;     /* of them, the longest dependent chain (0 = all) */
	double scope_insts;     /* extra per iteration when scoped: the scope test */
	double random_insts;    /* random memory instructions per in-scope iteration */
	/* iterations whose random loads a warp issues back to back and waits
	 * for together (sampling's 4-read groups); 0 or 1 = each on its own */
	double random_in_flight;
	double random_sectors;  /* DRAM sectors per in-scope iteration that misses L2 */
	double stream_bytes;    /* streamed input bytes per iteration */
	enum scope_stream stream;
};

/* What scope= asked for and what it means for this run. */
struct scope_plan {
	uint64_t scope_bytes; /* 0 = unscoped */
	uint32_t passes;      /* 1 when unscoped */
	int automatic;        /* chosen by the model (scope=auto) */
};

#define SCOPE_MAX_PASSES 4096

/* Reads scope= (a size; "none" or 0 for unscoped; "auto" for the model's
 * choice) for a profile. A scope at or above the region is one pass. */
int scope_plan_parse(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		     const struct scope_profile *prof, struct scope_plan *plan,
		     struct gpuvm_error *err);

/* Predicted seconds of the profile's run with the given scope (0 =
 * unscoped); *bound names the dominating resource. */
double scope_model_predict(const struct gpuvm_config *cfg, const struct scope_profile *prof,
			   uint64_t scope_bytes, const char **bound);

/* Fills adv with every candidate scope and the fastest. */
void scope_model_advise(const struct gpuvm_config *cfg, const struct scope_profile *prof,
			struct gpuvm_scope_advice *adv);

#endif
