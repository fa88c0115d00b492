/* random-sampling: Karnagel et al. §2.1 (Fig. 1a). A fixed number of
 * threads each read `reads` values at LCG-random positions of a region
 * and sum them; the region size is swept while the work stays fixed. */
#include "workloads/random_sampling.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload_util.h"

/* Warp instructions between two loads: 64-bit LCG step (IMAD.WIDE pair +
 * add), multiply-high range reduction, address arithmetic, the add into
 * the sum and the loop test. Counted from the loop body's SASS shape;
 * Karnagel's kernel is not published, so this is an estimate. */
#define SAMPLING_INSTS_PER_READ 10
#define SAMPLING_INSTS_PROLOGUE 12

struct sampling {
	uint64_t data_base, out_base;
	uint64_t elems, threads, reads, seed;
	uint64_t sum;
	struct gpuvm_kernel kernel;
};

enum { PH_PROLOGUE, PH_COMPUTE, PH_LOAD, PH_STORE, PH_END };

struct sampling_warp {
	uint64_t lcg[GPUVM_WARP_LANES];
	uint64_t sum[GPUVM_WARP_LANES];
	uint64_t tid0;
	uint32_t mask;
	uint32_t iter;
	int phase;
};

uint64_t random_sampling_reference(uint64_t elems, uint64_t threads, uint64_t reads,
				   uint64_t seed)
{
	uint64_t total = 0;
	for (uint64_t t = 0; t < threads; t++) {
		uint64_t s = sampling_lcg_seed(seed, t);
		for (uint64_t i = 0; i < reads; i++)
			total += sampling_value(sampling_next_position(&s, elems));
	}
	return total;
}

static void sw_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct sampling *s = k->impl;
	struct sampling_warp *w = state;
	uint64_t tid0 = (uint64_t)cta * k->block[0] + (uint64_t)warp * GPUVM_WARP_LANES;
	w->tid0 = tid0;
	w->mask = 0;
	for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++) {
		if (tid0 + l < s->threads)
			w->mask |= 1u << l;
		w->lcg[l] = sampling_lcg_seed(s->seed, tid0 + l);
		w->sum[l] = 0;
	}
	w->iter = 0;
	w->phase = PH_PROLOGUE;
}

static int sw_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	(void)err;
	struct sampling *s = k->impl;
	struct sampling_warp *w = state;
	switch (w->phase) {
	case PH_PROLOGUE:
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = SAMPLING_INSTS_PROLOGUE;
		w->phase = w->mask ? PH_COMPUTE : PH_END;
		return 0;
	case PH_COMPUTE:
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = SAMPLING_INSTS_PER_READ;
		w->phase = PH_LOAD;
		return 0;
	case PH_LOAD:
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_LOAD;
		it->bytes_per_lane = 4;
		it->active_mask = w->mask;
		for (uint32_t m = w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			uint64_t pos = sampling_next_position(&w->lcg[l], s->elems);
			it->addr[l] = s->data_base + pos * 4;
			w->sum[l] += sampling_value(pos);
		}
		w->phase = ++w->iter < s->reads ? PH_COMPUTE : PH_STORE;
		return 0;
	case PH_STORE:
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_STORE;
		it->bytes_per_lane = 8;
		it->active_mask = w->mask;
		for (uint32_t m = w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			it->addr[l] = s->out_base + (w->tid0 + l) * 8;
			s->sum += w->sum[l];
		}
		w->phase = PH_END;
		return 0;
	default:
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
}

static const struct gpuvm_kernel_ops sampling_ops = {
	.warp_state_bytes = sizeof(struct sampling_warp),
	.warp_begin = sw_begin,
	.warp_next = sw_next,
};

static void sampling_result(void *impl, char *buf, size_t len)
{
	struct sampling *s = impl;
	snprintf(buf, len, "sum=%" PRIu64 " reads=%" PRIu64, s->sum, s->threads * s->reads);
}

static uint64_t sampling_items(void *impl)
{
	struct sampling *s = impl;
	return s->threads * s->reads;
}

static const struct gpuvm_param_def sampling_params[] = {
	{"region", GPUVM_PARAM_SIZE, "1GiB", "bytes of the sampled region (32-bit values)"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads; default fills every warp slot of the GPU"},
	{"reads", GPUVM_PARAM_U64, "1024", "random reads per thread (Karnagel: 1024)"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	WORKLOAD_MEM_PARAM,
};

static int sampling_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	uint64_t region = 1ull << 30, threads = fill_gpu_threads(cfg), reads = 1024, block = 256;
	if (gpuvm_params_size(p, "region", &region, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &threads, err) < 0 ||
	    gpuvm_params_u64(p, "reads", &reads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &block, err) < 0)
		return -1;
	enum workload_mem mem;
	if (workload_mem_param(p, &mem, err))
		return -1;
	if (region < 4 || region / 4 > (1ull << 40))
		return gpuvm_fail(err, "--workload", 0, "region", "must be between 4B and 4TiB");
	if (workload_check_launch(threads, block, err))
		return -1;
	if (!reads)
		return gpuvm_fail(err, "--workload", 0, "reads", "must be at least 1");

	struct sampling *s = calloc(1, sizeof *s);
	if (!s)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	s->elems = region / 4;
	s->threads = threads;
	s->reads = reads;
	s->seed = seed;

	struct op_list l = {.impl = s, .result = sampling_result,
			 .work_items = sampling_items, .destroy_impl = free};
	struct va_layout va;
	struct gpuvm_alloc a;
	va_layout_init(&va);
	s->data_base = va_layout_alloc(&va, &a, "region", s->elems * 4, workload_mem_kind(mem));
	int rc = workload_mem_alloc(&l, mem, &a);
	s->out_base = va_layout_alloc(&va, &a, "sums", threads * 8, workload_mem_kind(mem));
	rc |= workload_mem_alloc(&l, mem, &a);

	workload_kernel_1d(&s->kernel, "random_sampling", &sampling_ops, s, threads, block);
	rc |= op_list_kernel(&l, &s->kernel);
	if (rc) {
		free(l.ops);
		free(s);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}
	return op_list_source(&l, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_random_sampling = {
	.name = "random-sampling",
	.summary = "Karnagel §2.1: threads x reads LCG-random 4-byte reads summed (Fig. 1a)",
	.working_set = "region + 8 B x threads",
	.params = sampling_params,
	.n_params = sizeof sampling_params / sizeof sampling_params[0],
	.create = sampling_create,
};
