/* ubench: microbenchmarks of the timing model (ubench_kernels.h), one
 * CTA each: a pointer chase through L1, L2 or DRAM (and the TLBs), a
 * shared-memory chase with a bank-conflict stride, a dependent FFMA chain
 * and a barrier loop. tests/test_ubench.c checks that their time per
 * step equals the latencies the presets cite. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/suite.h"
#include "workloads/suite/ubench_kernels.h"

enum ubench_test { UB_CHASE, UB_SMEM, UB_FMA, UB_SYNC };

struct ubench_cfg {
	enum ubench_test test;
	uint64_t footprint, stride, steps, passes, lane_stride, work, warps;
	unsigned cache;
	struct suite_opts o;
};

static int ubench_host(struct simt_host *h, void *user)
{
	const struct ubench_cfg *c = user;
	unsigned int *out = simt_malloc(h, "out", 4096, c->o.mem);
	if (!out)
		return -1;
	uint64_t digest = 0;
	switch (c->test) {
	case UB_CHASE: {
		uint64_t words = c->footprint / 4, step = c->stride / 4;
		unsigned int *next = simt_malloc(h, "chain", c->footprint, c->o.mem);
		if (!next)
			return -1;
		/* the chain: 0, step, 2 step, ... (mod words), back to 0 */
		uint64_t j = 0;
		for (uint64_t s = 0; s < c->steps; s++) {
			uint64_t nj = s + 1 == c->steps ? 0 : (j + step) % words;
			next[j] = (unsigned int)nj;
			j = nj;
		}
		if (simt_upload(h, next, c->footprint))
			return -1;
		struct ubench_chase_args a = {next, out, (unsigned)c->steps, (unsigned)c->passes,
					      (int)c->cache};
		if (SIMT_LAUNCH(h, ubench_chase, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), a))
			return -1;
		digest = out[0];
		break;
	}
	case UB_SMEM: {
		struct ubench_smem_args a = {out, (unsigned)c->steps, (unsigned)c->lane_stride};
		if (SIMT_LAUNCH_SHARED(h, ubench_smem, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1),
				       UBENCH_SMEM_SHARED_BYTES, a))
			return -1;
		digest = suite_digest(out, 32 * 4);
		break;
	}
	case UB_FMA: {
		struct ubench_fma_args a = {(float *)(void *)out, (unsigned)c->steps, 0.999f, 0.5f};
		if (SIMT_LAUNCH(h, ubench_fma, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), a))
			return -1;
		digest = suite_digest(out, 32 * 4);
		break;
	}
	case UB_SYNC: {
		struct ubench_sync_args a = {out, (unsigned)c->steps, (unsigned)c->work};
		if (SIMT_LAUNCH(h, ubench_sync, simt_dim3(1, 1, 1),
				simt_dim3((uint32_t)(32 * c->warps), 1, 1), a))
			return -1;
		digest = suite_digest(out, 32 * c->warps * 4);
		break;
	}
	}
	suite_result(h, &c->o, digest, 1, 0, NULL);
	simt_work_items(h, c->steps * (c->test == UB_CHASE ? c->passes : 1));
	return 0;
}

static const struct gpuvm_param_def ubench_params[] = {
	{"test", GPUVM_PARAM_CHOICE, "chase|smem|fma|sync",
	 "chase: dependent loads; smem: shared-memory chase; fma: dependent FFMAs; sync: barriers"},
	{"steps", GPUVM_PARAM_U64, "1024",
	 "dependent steps (chase: per pass; default for chase: footprint / stride)"},
	{"footprint", GPUVM_PARAM_SIZE, "4KiB", "chase: bytes the chain spans"},
	{"stride", GPUVM_PARAM_SIZE, "128", "chase: bytes between consecutive nodes (a multiple of 4)"},
	{"passes", GPUVM_PARAM_U64, "2", "chase: walks of the chain (the first warms caches and TLBs)"},
	{"cache", GPUVM_PARAM_CHOICE, "default|cg|ca",
	 "chase: LD (the part's default), LDCG (__ldcg: L2 only) or LDCA (__ldca: L1 too)"},
	{"lane_stride", GPUVM_PARAM_U64, "1", "smem: words between lanes (n-way bank conflicts)"},
	{"work", GPUVM_PARAM_U64, "64", "sync: dependent instructions warp 0 runs before each barrier"},
	{"warps", GPUVM_PARAM_U64, "4", "sync: warps in the CTA"},
	SUITE_COMMON_PARAMS,
};

static const struct gpuvm_param_range ubench_ranges[] = {
	GPUVM_RANGE("steps", 1, 1 << 24),       GPUVM_RANGE("passes", 1, 1024),  GPUVM_RANGE("lane_stride", 1, 32),
	GPUVM_RANGE("work", 0, 1 << 20),        GPUVM_RANGE("warps", 1, 32),     GPUVM_RANGE("footprint", 4, 4ull << 30),
	GPUVM_RANGE("stride", 4, 1ull << 30),
	SUITE_COMMON_RANGES,
};

static int ubench_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct ubench_cfg c = {.footprint = 4096, .stride = 128, .steps = 0, .passes = 2,
			       .lane_stride = 1, .work = 64, .warps = 4};
	unsigned test = 0;
	if (gpuvm_params_choice(p, "test", "chase|smem|fma|sync", &test, err) < 0 ||
	    gpuvm_params_choice(p, "cache", "default|cg|ca", &c.cache, err) < 0 ||
	    gpuvm_params_u64(p, "steps", &c.steps, err) < 0 ||
	    gpuvm_params_size(p, "footprint", &c.footprint, err) < 0 ||
	    gpuvm_params_size(p, "stride", &c.stride, err) < 0 ||
	    gpuvm_params_u64(p, "passes", &c.passes, err) < 0 ||
	    gpuvm_params_u64(p, "lane_stride", &c.lane_stride, err) < 0 ||
	    gpuvm_params_u64(p, "work", &c.work, err) < 0 ||
	    gpuvm_params_u64(p, "warps", &c.warps, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	c.test = (enum ubench_test)test;
	if (c.footprint % 4 || c.stride % 4)
		return gpuvm_fail(err, "--workload", 0, "stride", "footprint and stride must be multiples of 4");
	if (c.stride > c.footprint)
		return gpuvm_fail(err, "--workload", 0, "stride", "is larger than the footprint");
	if (!c.steps)
		c.steps = c.test == UB_CHASE ? c.footprint / c.stride : 1024;
	if (c.test == UB_CHASE && c.steps > c.footprint / 4)
		return gpuvm_fail(err, "--workload", 0, "steps", "more than the footprint's %llu words",
				  (unsigned long long)(c.footprint / 4));
	struct ubench_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("ubench", ubench_host, u, free, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench = {
	.name = "ubench",
	.summary = "microbenchmarks of the timing model: L1/L2/DRAM/TLB pointer chase, shared-memory "
		   "bank conflicts, dependent FFMAs, barriers (one CTA)",
	.working_set = "footprint (chase), 4 KiB otherwise",
	.params = ubench_params,
	.n_params = sizeof ubench_params / sizeof ubench_params[0],
	.ranges = ubench_ranges,
	.n_ranges = sizeof ubench_ranges / sizeof ubench_ranges[0],
	.create = ubench_create,
};
