/* random-sampling: Karnagel et al. §2.1 (Fig. 1a). A fixed number of
 * threads each read `reads` values at LCG-random positions of a region
 * and sum them; the region size is swept while the work stays fixed.
 *
 * With scope=S (Karnagel §5.2, Fig. 10) the kernel runs once per S-byte
 * TLB scope of the region: every pass regenerates the same LCG streams and
 * reads only the positions inside its scope, so skipped positions still
 * cost their compute and lanes out of scope drop out of the load's mask (a
 * warp with no lane in scope skips the load, as a branch no lane takes).
 * Each thread keeps its sum across passes in its output slot.
 *
 * By default (loop=listing) a warp issues what the compiled kernel
 * issues where the preset's gpu.compute_capability has a listing
 * (sampling_listing.h): per 4 reads one COMPUTE item of the unrolled
 * body's count, then the 4 loads back to back (load_indep: none waits
 * for another; the next body waits for all four), then reads % 4 reads
 * one at a time with the remainder loop's count. With loop=estimate (and
 * on a preset without a listing) each read is one COMPUTE item of the
 * estimate below and its load, which the next read waits for: the
 * generator before the listings. The listing became the default once the
 * engine stopped booking a scheduler ahead of a busy unit (core.busy_unit
 * = yield), which had cost its scoped passes their issue rate
 * (docs/scoping.md, "The compiled sampling loop"). */
#include "workloads/random_sampling.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"
#include "workloads/sampling_listing.h"
#include "workloads/scope_model.h"
#include "workloads/workload_util.h"

/* Without a listing: warp instructions between two loads, estimated from
 * the loop body's SASS shape (written before cuda/sass/ existed): the
 * 64-bit LCG step is 4 32-bit multiplies (low x low wide, two cross
 * products) and a 64-bit add; the multiply-high range reduction 3 more
 * multiplies; then address arithmetic, the add into the sum and the loop
 * test. The multiplies cost gpu.imul32_issue_slots each (3 on Pascal's
 * XMAD, 4 on Kepler), which is what makes a scoped pass's compute weigh
 * more on those parts. */
#define SAMPLING_INSTS_PER_READ_OTHER 10
/* Of these, the longest dependent chain: the LCG's multiply, its carry
 * add and the 64-bit add (the cross products run beside them), the
 * multiply-high reduction (two steps), the address's shift and add, and
 * the loop test: 8 instructions that each wait for the one before. */
#define SAMPLING_CHAIN_PER_READ 8
#define SAMPLING_IMULS_PER_READ 7
#define SAMPLING_INSTS_PROLOGUE 12
/* The scope test of a scoped pass: subtract the scope base, one unsigned
 * compare, the predicated branch (cuda/scoped_sampling.cu). */
#define SAMPLING_INSTS_SCOPE_TEST 3

struct sampling;

/* One loop iteration's COMPUTE item: issue slots and dependence chain. */
struct sampling_step {
	uint32_t insts, chain;
};

/* What a warp issues per read: groups of `unroll` reads (a body of
 * group[] then `unroll` independent loads) while `unroll` or more reads
 * are left, then one read at a time (rem[]). Index 1 = a scoped pass. */
struct sampling_shape {
	uint32_t unroll;
	struct sampling_step group[2], rem[2];
};

/* One kernel pass: the scope [lo, hi) in elements (everything unscoped). */
struct sampling_pass {
	struct sampling *s;
	uint64_t lo, hi;
	uint32_t index;
	struct gpuvm_kernel kernel;
};

struct sampling {
	uint64_t data_base, out_base;
	uint64_t elems, threads, reads, seed;
	struct sampling_shape shape;
	/* the threads' sums: warps of different SM partitions add to it side
	 * by side (gpuvm_kernel warps_independent), in any order */
	_Atomic uint64_t sum;
	struct scope_plan plan;
	struct sampling_pass *passes;
};

enum { PH_PROLOGUE, PH_COMPUTE, PH_LOAD, PH_SUM_LOAD, PH_STORE, PH_END };

struct sampling_warp {
	uint64_t lcg[GPUVM_WARP_LANES];
	/* The lanes' sums together: the kernel's result is their total, and a
	 * warp state half the size keeps more of them in the host's caches. */
	uint64_t sum;
	uint64_t tid0;
	uint32_t mask;
	uint32_t iter;
	uint32_t group_left; /* loads of the current group still to issue */
	uint8_t group_indep; /* they are a listing's unrolled, independent loads */
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
	struct sampling_pass *ps = k->impl;
	struct sampling *s = ps->s;
	struct sampling_warp *w = state;
	uint64_t tid0 = (uint64_t)cta * k->block[0] + (uint64_t)warp * GPUVM_WARP_LANES;
	w->tid0 = tid0;
	w->mask = 0;
	for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++) {
		if (tid0 + l < s->threads)
			w->mask |= 1u << l;
		/* every pass starts each thread's stream from the same seed */
		w->lcg[l] = sampling_lcg_seed(s->seed, tid0 + l);
	}
	w->sum = 0;
	w->iter = 0;
	w->phase = PH_PROLOGUE;
}

static int sw_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	(void)err;
	struct sampling_pass *ps = k->impl;
	struct sampling *s = ps->s;
	struct sampling_warp *w = state;
	int scoped = s->plan.passes > 1;
	for (;;) {
		switch (w->phase) {
		case PH_PROLOGUE:
			it->kind = GPUVM_ITEM_COMPUTE;
			it->compute_insts = SAMPLING_INSTS_PROLOGUE;
			w->phase = w->mask ? PH_COMPUTE : PH_END;
			return 0;
		case PH_COMPUTE: {
			/* the unrolled body while a whole group is left, then the
			 * remainder loop (the listings' loop order) */
			const struct sampling_shape *sh = &s->shape;
			int grouped = sh->unroll > 1 && s->reads - w->iter >= sh->unroll;
			const struct sampling_step *st =
				grouped ? &sh->group[scoped] : &sh->rem[scoped];
			it->kind = GPUVM_ITEM_COMPUTE;
			it->compute_insts = st->insts;
			it->chain_insts = st->insts < st->chain ? st->insts : st->chain;
			w->group_left = grouped ? sh->unroll : 1;
			w->group_indep = (uint8_t)grouped;
			w->phase = PH_LOAD;
			return 0;
		}
		case PH_LOAD: {
			/* one pass (not scoped): every position is in scope */
			uint32_t in_scope = scoped ? 0 : w->mask;
			uint64_t sum = 0;
			for (uint32_t m = w->mask; m; m &= m - 1) {
				uint32_t l = (uint32_t)__builtin_ctz(m);
				uint64_t pos = sampling_next_position(&w->lcg[l], s->elems);
				if (scoped) {
					if (pos < ps->lo || pos >= ps->hi)
						continue; /* another pass reads it */
					in_scope |= 1u << l;
				}
				it->addr[l] = s->data_base + pos * 4;
				sum += sampling_value(pos);
			}
			w->sum += sum;
			++w->iter;
			if (--w->group_left == 0)
				w->phase = w->iter < s->reads ? PH_COMPUTE : PH_SUM_LOAD;
			if (!in_scope)
				continue; /* no lane's predicate is set: no access */
			it->kind = GPUVM_ITEM_MEM;
			it->op = GPUVM_OP_LOAD;
			it->bytes_per_lane = 4;
			it->active_mask = in_scope;
			/* the group's loads are issued back to back (sm.h
			 * sm_item_load_indep); a remainder read's load is waited
			 * for by the next read's compute as before */
			it->load_indep = w->group_indep;
			return 0;
		}
		case PH_SUM_LOAD:
			/* sums[tid] += sum: later passes add to what earlier ones kept */
			w->phase = PH_STORE;
			if (ps->index == 0)
				continue;
			it->kind = GPUVM_ITEM_MEM;
			it->op = GPUVM_OP_LOAD;
			it->bytes_per_lane = 8;
			it->active_mask = w->mask;
			for (uint32_t m = w->mask; m; m &= m - 1) {
				uint32_t l = (uint32_t)__builtin_ctz(m);
				it->addr[l] = s->out_base + (w->tid0 + l) * 8;
			}
			return 0;
		case PH_STORE:
			it->kind = GPUVM_ITEM_MEM;
			it->op = GPUVM_OP_STORE;
			it->bytes_per_lane = 8;
			it->active_mask = w->mask;
			for (uint32_t m = w->mask; m; m &= m - 1) {
				uint32_t l = (uint32_t)__builtin_ctz(m);
				it->addr[l] = s->out_base + (w->tid0 + l) * 8;
			}
			atomic_fetch_add_explicit(&s->sum, w->sum, memory_order_relaxed);
			w->phase = PH_END;
			return 0;
		default:
			it->kind = GPUVM_ITEM_END;
			return 0;
		}
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
	int n = snprintf(buf, len, "sum=%" PRIu64 " reads=%" PRIu64, atomic_load(&s->sum),
		     s->threads * s->reads);
	if (s->plan.passes > 1 && n >= 0 && (size_t)n < len) {
		char sc[32];
		gpuvm_format_size(s->plan.scope_bytes, sc, sizeof sc);
		snprintf(buf + n, len - (size_t)n, " scope=%s%s passes=%u", sc,
			 s->plan.automatic ? "(auto)" : "", s->plan.passes);
	} else if (s->plan.automatic && n >= 0 && (size_t)n < len) {
		snprintf(buf + n, len - (size_t)n, " scope=none(auto)");
	}
}

static uint64_t sampling_items(void *impl)
{
	struct sampling *s = impl;
	return s->threads * s->reads;
}

static void sampling_destroy(void *impl)
{
	struct sampling *s = impl;
	free(s->passes);
	free(s);
}

static const struct gpuvm_param_def sampling_params[] = {
	{"region", GPUVM_PARAM_SIZE, "1GiB", "bytes of the sampled region (32-bit values)"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads; default fills every warp slot of the GPU"},
	{"reads", GPUVM_PARAM_U64, "1024", "random reads per thread (Karnagel: 1024)"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	{"insts_per_read", GPUVM_PARAM_U64, NULL,
	 "warp instructions per read besides the load (position computation, sum, loop; "
	 "a scoped pass adds its 3-instruction scope test); default: loop=estimate's "
	 "10 + 7 multiplies at gpu.imul32_issue_slots (k80 38, p100 31, v100 24), "
	 "loop=listing's count (per read k80 41.75, p100 43, v100/a100 20, h100 23). "
	 "Given, it replaces the count and keeps the loop's grouping and chains"},
	{"loop", GPUVM_PARAM_CHOICE, "listing|estimate",
	 "what a warp issues per read. listing (default): the ptxas loop of the preset's "
	 "gpu.compute_capability (cuda/sass/): per 4 reads the unrolled body's count then 4 "
	 "independent loads, then reads % 4 remainder reads; the estimate where no listing "
	 "exists. estimate: one COMPUTE item of the estimate (10 instructions + 7 multiplies "
	 "at gpu.imul32_issue_slots, chain 8) and one load, waited for by the next read (the "
	 "generator before the listings; docs/scoping.md, \"The compiled sampling loop\")"},
	WORKLOAD_MEM_PARAM,
	{"scope", GPUVM_PARAM_TEXT, "none",
	 "TLB scope (Karnagel §5.2): one pass per scope-sized slice of the region, e.g. 2GiB; "
	 "auto = the scope the model predicts fastest on this GPU"},
};

/* Issue slots of a listing's loop: its multiply-pipe instructions at the
 * preset's gpu.imul32_issue_slots, the rest one slot each
 * (workload_imul_insts, as the estimate prices its multiplies). */
static struct sampling_step listing_step(const struct gpuvm_config *cfg,
					 const struct sampling_loop *lp)
{
	struct sampling_step st = {lp->insts - lp->imuls + workload_imul_insts(cfg, lp->imuls),
				   lp->chain};
	return st;
}

/* The shape of a warp's reads on this preset: with loop=listing the
 * listing of its compute capability (sampling_listing.h), else (or
 * without one) the estimate; insts_per_read (override, UINT64_MAX when
 * not given) in place of the counts. */
static void sampling_make_shape(const struct gpuvm_config *cfg, uint64_t override,
				bool listing, struct sampling_shape *sh)
{
	const struct sampling_listing *ls =
		listing ? sampling_listing_for(cfg->compute_capability) : NULL;
	if (ls) {
		sh->unroll = SAMPLING_LISTING_UNROLL;
		sh->group[0] = listing_step(cfg, &ls->body4);
		sh->group[1] = listing_step(cfg, &ls->scoped4);
		sh->rem[0] = listing_step(cfg, &ls->rem1);
		sh->rem[1] = listing_step(cfg, &ls->scoped1);
	} else {
		uint32_t est = SAMPLING_INSTS_PER_READ_OTHER +
			       workload_imul_insts(cfg, SAMPLING_IMULS_PER_READ);
		sh->unroll = 1;
		sh->rem[0] = (struct sampling_step){est, SAMPLING_CHAIN_PER_READ};
		sh->rem[1] = (struct sampling_step){est + SAMPLING_INSTS_SCOPE_TEST,
						    SAMPLING_CHAIN_PER_READ};
		sh->group[0] = sh->rem[0];
		sh->group[1] = sh->rem[1];
	}
	if (override != UINT64_MAX) {
		uint32_t o = (uint32_t)override;
		sh->rem[0].insts = o;
		sh->rem[1].insts = o + SAMPLING_INSTS_SCOPE_TEST;
		sh->group[0].insts = o * sh->unroll;
		sh->group[1].insts = (o + SAMPLING_INSTS_SCOPE_TEST) * sh->unroll;
	}
}

static int sampling_read_params(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
				uint64_t *region, uint64_t *threads, uint64_t *reads,
				uint64_t *block, struct sampling_shape *shape,
				struct gpuvm_error *err)
{
	*region = 1ull << 30;
	*threads = fill_gpu_threads(cfg);
	*reads = 1024;
	*block = 256;
	uint64_t insts = UINT64_MAX; /* not given: the listing's or the estimate's */
	unsigned loop = 0;            /* listing; 1: estimate */
	if (gpuvm_params_size(p, "region", region, err) < 0 ||
	    gpuvm_params_choice(p, "loop", "listing|estimate", &loop, err) < 0 ||
	    gpuvm_params_u64(p, "threads", threads, err) < 0 ||
	    gpuvm_params_u64(p, "reads", reads, err) < 0 ||
	    gpuvm_params_u64(p, "block", block, err) < 0 ||
	    gpuvm_params_u64(p, "insts_per_read", &insts, err) < 0)
		return -1;
	if (workload_check_launch(*threads, *block, err))
		return -1;
	sampling_make_shape(cfg, insts, loop == 0, shape);
	return 0;
}

int sampling_scope_profile(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   struct scope_profile *prof, struct gpuvm_error *err)
{
	uint64_t region, threads, reads, block;
	struct sampling_shape sh;
	if (sampling_read_params(cfg, p, &region, &threads, &reads, &block, &sh, err))
		return -1;
	memset(prof, 0, sizeof *prof);
	prof->workload = "random-sampling";
	prof->region_bytes = region / 4 * 4;
	prof->threads = (double)threads;
	prof->launches = 1;
	prof->iters = (double)reads;
	/* per read, averaged over the groups and the remainder reads */
	double groups = (double)(reads / sh.unroll), rem = (double)(reads % sh.unroll);
	double n = (double)reads;
	prof->compute_insts = (groups * sh.group[0].insts + rem * sh.rem[0].insts) / n;
	prof->chain_insts = (groups * sh.group[0].chain + rem * sh.rem[0].chain) / n;
	prof->scope_insts = (groups * sh.group[1].insts + rem * sh.rem[1].insts) / n -
			    prof->compute_insts;
	prof->random_insts = 1;
	/* a group's loads wait together: reads per dependent step (1 with
	 * loop=estimate, every load waited for on its own, as before) */
	prof->random_in_flight = n / (groups + rem);
	prof->random_sectors = 1;
	prof->stream = SCOPE_STREAM_NONE;
	return 0;
}

static int sampling_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	uint64_t region, threads, reads, block;
	struct sampling_shape shape;
	struct scope_profile prof;
	struct scope_plan plan;
	if (sampling_read_params(cfg, p, &region, &threads, &reads, &block, &shape, err) ||
	    sampling_scope_profile(cfg, p, &prof, err) ||
	    scope_plan_parse(cfg, p, &prof, &plan, err))
		return -1;
	enum workload_mem mem;
	if (workload_mem_param(p, &mem, err))
		return -1;

	struct sampling *s = calloc(1, sizeof *s);
	if (!s)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	s->elems = region / 4;
	s->threads = threads;
	s->reads = reads;
	s->shape = shape;
	s->seed = seed;
	s->plan = plan;
	s->passes = calloc(plan.passes, sizeof *s->passes);
	if (!s->passes) {
		free(s);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}

	struct op_list l = {.impl = s, .result = sampling_result,
			 .work_items = sampling_items, .destroy_impl = sampling_destroy};
	struct va_layout va;
	struct gpuvm_alloc a;
	va_layout_init(&va);
	s->data_base = va_layout_alloc(&va, &a, "region", s->elems * 4, workload_mem_kind(mem));
	int rc = workload_mem_alloc(&l, mem, &a);
	s->out_base = va_layout_alloc(&va, &a, "sums", threads * 8, workload_mem_kind(mem));
	rc |= workload_mem_alloc(&l, mem, &a);

	uint64_t scope_elems = plan.passes > 1 ? plan.scope_bytes / 4 : s->elems;
	for (uint32_t i = 0; i < plan.passes; i++) {
		struct sampling_pass *ps = &s->passes[i];
		ps->s = s;
		ps->index = i;
		ps->lo = (uint64_t)i * scope_elems;
		ps->hi = i + 1 == plan.passes ? s->elems : ps->lo + scope_elems;
		char name[48];
		if (plan.passes > 1)
			snprintf(name, sizeof name, "scoped_sampling_pass_%u", i);
		else
			snprintf(name, sizeof name, "random_sampling");
		workload_kernel_1d(&ps->kernel, name, &sampling_ops, ps, threads, block);
		ps->kernel.warps_independent = true;
		/* Kernel sampling: scoped passes read the same number of uniform
		 * random positions from equal-sized scopes, so they are alike,
		 * except pass 0 (no sum load) and a shorter last scope (fewer lanes
		 * in scope, a smaller TLB footprint): classes 0, 1 and 2. */
		ps->kernel.sampleable = plan.passes > 1;
		ps->kernel.sample_class = i == 0 ? 0 : ps->hi - ps->lo == scope_elems ? 1 : 2;
		rc |= op_list_kernel(&l, &ps->kernel);
	}
	if (rc) {
		free(l.ops);
		sampling_destroy(s);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}
	return op_list_source(&l, out, err);
}

/* Every thread makes `reads` reads (scoped passes touch each once too). */
static int sampling_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			     uint64_t *thread_accesses, struct gpuvm_error *err)
{
	uint64_t region, threads, reads, block;
	struct sampling_shape shape;
	if (sampling_read_params(cfg, p, &region, &threads, &reads, &block, &shape, err))
		return -1;
	*thread_accesses = workload_mul_sat(threads, reads);
	return 0;
}

/* 2^30 reads per thread is a million times Karnagel's 1024; 2^32 threads
 * and 1024 per block are CUDA's limits (grid x block, max block size). */
static const struct gpuvm_param_range sampling_params_ranges[] = {
	GPUVM_RANGE("reads", 1, 1073741824.0),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("insts_per_read", 0, 100000),
	GPUVM_RANGE("region", 4, 4398046511104.0),
};

const struct gpuvm_workload_def gpuvm_workload_random_sampling = {
	.name = "random-sampling",
	.summary = "Karnagel §2.1/§5.2: threads x reads LCG-random 4-byte reads summed, "
		   "optionally in TLB-scoped passes (Fig. 1a, 10)",
	.working_set = "region + 8 B x threads",
	.params = sampling_params,
	.n_params = sizeof sampling_params / sizeof sampling_params[0],
	.ranges = sampling_params_ranges,
	.n_ranges = sizeof sampling_params_ranges / sizeof sampling_params_ranges[0],
	.create = sampling_create,
	.estimate = sampling_estimate,
};
