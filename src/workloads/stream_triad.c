/* stream-triad: McCalpin's STREAM triad a[i] = b[i] + q * c[i] over
 * device arrays of doubles, grid-stride. The coalesced streaming kernel
 * the benchmark uses for warp-instruction throughput. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "workloads/workload_util.h"

#define TRIAD_SCALAR 3.0
#define TRIAD_INSTS_BODY 6 /* index math, FFMA, loop test */

struct triad {
	uint64_t a, b, c, elems, threads;
	/* sum of a[] as computed: whole numbers (b + 3c <= 4092), so an
	 * integer total is exact and the same in any order of the warps
	 * (partitions' threads add to it side by side: gpuvm_kernel
	 * warps_independent) */
	_Atomic uint64_t checksum;
	struct gpuvm_kernel kernel;
};

enum { TP_TOP, TP_LOAD_B, TP_LOAD_C, TP_STORE, TP_END };

struct triad_warp {
	uint64_t idx;
	uint32_t mask;
	int phase;
};

/* STREAM initialises b[i] = 2 and c[i] = 0.5 (stream.c); here they vary
 * with i so a wrong index would change the checksum: b[i] = i mod 1024,
 * c[i] = (i / 1024) mod 1024, and a[i] = b[i] + 3 c[i], a whole number
 * below 2^12, so the integer sum is the double one exactly. */
static inline uint64_t triad_a(uint64_t i)
{
	return (i & 1023) + (uint64_t)TRIAD_SCALAR * ((i >> 10) & 1023);
}

#define TRIAD_FULL 0xffffffffu

static void tw_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct triad_warp *w = state;
	w->idx = (uint64_t)cta * k->block[0] + (uint64_t)warp * GPUVM_WARP_LANES;
	w->phase = TP_TOP;
}

static void lanes_addr(struct gpuvm_warp_item *it, uint32_t mask, uint64_t base, uint64_t idx)
{
	if (mask == TRIAD_FULL) { /* every lane: a loop the compiler vectorizes */
		for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
			it->addr[l] = base + (idx + l) * 8;
		return;
	}
	for (uint32_t m = mask; m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctz(m);
		it->addr[l] = base + (idx + l) * 8;
	}
}

static int tw_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	(void)err;
	struct triad *t = k->impl;
	struct triad_warp *w = state;
	switch (w->phase) {
	case TP_TOP: {
		/* lanes l with idx + l < elems */
		uint64_t left = w->idx < t->elems ? t->elems - w->idx : 0;
		w->mask = left >= GPUVM_WARP_LANES ? TRIAD_FULL : (uint32_t)((1ull << left) - 1);
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = TRIAD_INSTS_BODY;
		w->phase = w->mask ? TP_LOAD_B : TP_END;
		return 0;
	}
	case TP_LOAD_B:
	case TP_LOAD_C:
	case TP_STORE:
		it->kind = GPUVM_ITEM_MEM;
		it->op = w->phase == TP_STORE ? GPUVM_OP_STORE : GPUVM_OP_LOAD;
		it->bytes_per_lane = 8;
		it->active_mask = w->mask;
		lanes_addr(it, w->mask, w->phase == TP_LOAD_B ? t->b : w->phase == TP_LOAD_C ? t->c : t->a,
			   w->idx);
		if (w->phase == TP_STORE) {
			uint64_t sum = 0;
			if (w->mask == TRIAD_FULL)
				for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
					sum += triad_a(w->idx + l);
			else
				for (uint32_t m = w->mask; m; m &= m - 1)
					sum += triad_a(w->idx + (uint32_t)__builtin_ctz(m));
			atomic_fetch_add_explicit(&t->checksum, sum, memory_order_relaxed);
			w->idx += t->threads;
			w->phase = TP_TOP;
		} else {
			w->phase++;
		}
		return 0;
	default:
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
}

static const struct gpuvm_kernel_ops triad_ops = {
	.warp_state_bytes = sizeof(struct triad_warp),
	.warp_begin = tw_begin,
	.warp_next = tw_next,
};

static void triad_result(void *impl, char *buf, size_t len)
{
	struct triad *t = impl;
	snprintf(buf, len, "checksum=%.17g elems=%" PRIu64, (double)atomic_load(&t->checksum),
		 t->elems);
}

static uint64_t triad_items(void *impl)
{
	return ((struct triad *)impl)->elems;
}

/* elems' default, the "33554432" the parameter table shows */
#define TRIAD_DEFAULT_ELEMS (1ull << 25)

static const struct gpuvm_param_def triad_params[] = {
	{"elems", GPUVM_PARAM_U64, "33554432", "elements per array (doubles); working set 24 B each"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads; default fills every warp slot of the GPU"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	WORKLOAD_MEM_PARAM,
};

static int triad_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	uint64_t elems = TRIAD_DEFAULT_ELEMS, threads = fill_gpu_threads(cfg), block = 256;
	if (gpuvm_params_u64(p, "elems", &elems, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &block, err) < 0)
		return -1;
	enum workload_mem mem;
	if (workload_mem_param(p, &mem, err))
		return -1;
	if (workload_check_launch(threads, block, err))
		return -1;
	threads = (threads + block - 1) / block * block;

	struct triad *t = calloc(1, sizeof *t);
	if (!t)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	t->elems = elems;
	t->threads = threads;
	struct op_list l = {.impl = t, .result = triad_result,
			 .work_items = triad_items, .destroy_impl = free};
	struct va_layout va;
	struct gpuvm_alloc al;
	va_layout_init(&va);
	int rc = 0;
	t->a = va_layout_alloc(&va, &al, "a", elems * 8, workload_mem_kind(mem));
	rc |= workload_mem_alloc(&l, mem, &al);
	t->b = va_layout_alloc(&va, &al, "b", elems * 8, workload_mem_kind(mem));
	rc |= workload_mem_alloc(&l, mem, &al);
	t->c = va_layout_alloc(&va, &al, "c", elems * 8, workload_mem_kind(mem));
	rc |= workload_mem_alloc(&l, mem, &al);
	workload_kernel_1d(&t->kernel, "stream_triad", &triad_ops, t, threads, block);
	t->kernel.warps_independent = true;
	rc |= op_list_kernel(&l, &t->kernel);
	if (rc) {
		free(l.ops);
		free(t);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}
	return op_list_source(&l, out, err);
}

/* Two loads and a store per element. */
static int triad_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  uint64_t *thread_accesses, struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t elems = TRIAD_DEFAULT_ELEMS;
	if (gpuvm_params_u64(p, "elems", &elems, err) < 0)
		return -1;
	*thread_accesses = workload_mul_sat(elems, 3);
	return 0;
}

/* 1024 threads per block: CUDA's largest block */
static const struct gpuvm_param_range triad_params_ranges[] = {
	GPUVM_RANGE("elems", 1, 1ull << 38),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
};

const struct gpuvm_workload_def gpuvm_workload_stream_triad = {
	.name = "stream-triad",
	.summary = "STREAM triad a = b + q*c over doubles (device, managed or copied), coalesced grid-stride",
	.working_set = "24 B x elems",
	.params = triad_params,
	.n_params = sizeof triad_params / sizeof triad_params[0],
	.ranges = triad_params_ranges,
	.n_ranges = sizeof triad_params_ranges / sizeof triad_params_ranges[0],
	.create = triad_create,
	.estimate = triad_estimate,
};
