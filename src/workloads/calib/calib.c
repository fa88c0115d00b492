/* The calibration microbenchmarks as workloads (kernels in calib_kernels.h),
 * so that `gpuvm calibrate` and `gpuvm sim` run the same thing:
 *   ubench-chase   pointer chase over a footprint, sequential or shuffled
 *   ubench-ops     dependent chains / independent streams of one op class
 *   ubench-stream  STREAM copy or triad at a chosen occupancy
 *   ubench-empty   empty kernels of a grid and block size
 *   ubench-atomic  atomicAdd latency and throughput
 *   ubench-link    host-link bandwidth: a cudaMemcpy or a zero-copy read
 *   ubench-l2      L2 read bandwidth: an L2-resident buffer, pass after pass
 * Each kernel reports a digest of its output; the quantities are read from
 * the run's report (kernel cycles, copy seconds), see docs/calibration.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/splitmix.h"
#include "gpuvm/config.h"
#include "workloads/calib/calib_internal.h"
#include "workloads/calib/calib_kernels.h"
#include "workloads/suite/suite.h"

/* ------------------------------------------------------------- shared */

int calib_source(const char *name, simt_host_fn fn, const void *cfg, size_t bytes,
		 struct gpuvm_source *out, struct gpuvm_error *err)
{
	void *u = malloc(bytes);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	memcpy(u, cfg, bytes);
	return simt_program_source(name, fn, u, free, out, err);
}

/* --------------------------------------------------------------- chase */

struct chase_cfg {
	uint64_t footprint, stride, steps, passes, seed;
	uint64_t chains; /* 0: one thread chases the cycle; K: K warps, one part each */
	uint64_t lanes;  /* with chains: chasers per warp, 1 or 32 */
	unsigned cache, order; /* order: 0 sequential, 1 shuffled */
	unsigned spread;       /* with chains: 0 one CTA of K warps, 1 K CTAs of one warp */
	struct suite_opts o;
};

/* The visiting order of nodes 0..nodes-1 (node k at byte k x stride):
 * sequential, or a uniformly shuffled permutation (Fisher-Yates, as
 * gpu-benches gpu-latency shuffles its lines). Node 0 comes first. */
uint32_t *calib_order(uint64_t nodes, bool shuffled, uint64_t seed)
{
	uint32_t *ord = malloc(nodes * sizeof *ord);
	if (!ord)
		return NULL;
	for (uint64_t k = 0; k < nodes; k++)
		ord[k] = (uint32_t)k;
	if (shuffled) {
		uint64_t s = seed;
		for (uint64_t k = nodes - 1; k > 1; k--) {
			uint64_t r = 1 + splitmix64_next(&s) % k; /* keep node 0 first */
			uint32_t t = ord[k];
			ord[k] = ord[r];
			ord[r] = t;
		}
	}
	return ord;
}

/* next[] over nodes words_per_node words apart: the first `steps` nodes
 * of ord form a cycle back to ord[0] (node 0 first, so a chase from word
 * 0 walks it). */
void calib_link_cycle(unsigned int *next, const uint32_t *ord, uint64_t steps,
		      uint64_t words_per_node)
{
	for (uint64_t s = 0; s < steps; s++) {
		uint64_t from = ord[s], to = s + 1 == steps ? ord[0] : ord[s + 1];
		next[from * words_per_node] = (unsigned int)(to * words_per_node);
	}
}

/* A chain's footprint in nodes `stride` apart within what a chase's
 * 32-bit word indices and the order's 2^26 nodes allow (else -1, err
 * naming footprint). */
int calib_chain_fits(uint64_t footprint, uint64_t stride, struct gpuvm_error *err)
{
	uint64_t nodes = footprint / stride;
	if (nodes > (1ull << 26) || footprint / 4 > UINT32_MAX)
		return gpuvm_fail(err, "--workload", 0, "footprint",
				  "%llu nodes or %llu words: at most 2^26 nodes and 2^32 words",
				  (unsigned long long)nodes, (unsigned long long)(footprint / 4));
	return 0;
}

/* chains = K warps of `lanes` chasers: chaser k starts k x steps / (K x
 * lanes) nodes along the cycle and walks steps / (K x lanes) x passes of it,
 * so with passes = 1 no two chasers visit a node. */
static int par_chase_launch(struct simt_host *h, const struct chase_cfg *c, unsigned int *next,
			    const uint32_t *ord)
{
	uint64_t words_per_node = c->stride / 4, chasers = c->chains * c->lanes;
	unsigned int *starts = simt_malloc(h, "starts", chasers * 4, c->o.mem);
	unsigned int *out = simt_malloc(h, "ends", chasers * 4, c->o.mem);
	if (!starts || !out)
		return -1;
	for (uint64_t k = 0; k < chasers; k++)
		starts[k] = (unsigned int)(ord[k * c->steps / chasers] * words_per_node);
	if (simt_upload(h, next, c->footprint) || simt_upload(h, starts, chasers * 4))
		return -1;
	struct calib_par_chase_args a = {next, starts, out,
					 (unsigned)(c->steps / chasers * c->passes), (unsigned)c->lanes};
	struct simt_dim3 grid = simt_dim3(c->spread ? (uint32_t)c->chains : 1, 1, 1);
	struct simt_dim3 block = simt_dim3(c->spread ? 32 : 32 * (uint32_t)c->chains, 1, 1);
	if (SIMT_LAUNCH(h, calib_par_chase, grid, block, a))
		return -1;
	uint64_t digest = 0;
	for (uint64_t k = 0; k < chasers; k++)
		digest = digest * 31 + out[k];
	suite_result(h, &c->o, digest, 1, 0, NULL);
	simt_work_items(h, c->steps / chasers * c->passes * chasers);
	return 0;
}

static int chase_host(struct simt_host *h, void *user)
{
	const struct chase_cfg *c = user;
	unsigned int *out = simt_malloc(h, "out", 4096, c->o.mem);
	unsigned int *next = simt_malloc(h, "chain", c->footprint, c->o.mem);
	if (!out || !next)
		return -1;
	uint64_t nodes = c->footprint / c->stride, words_per_node = c->stride / 4;
	uint32_t *ord = calib_order(nodes, c->order != 0, c->seed);
	if (!ord)
		return simt_fail(h, "out of memory for %llu chase nodes", (unsigned long long)nodes);
	calib_link_cycle(next, ord, c->steps, words_per_node);
	if (c->chains) {
		int rc = par_chase_launch(h, c, next, ord);
		free(ord);
		return rc;
	}
	free(ord);
	if (simt_upload(h, next, c->footprint))
		return -1;
	struct calib_chase_args a = {next, out, (unsigned)c->steps, (unsigned)c->passes,
				     (int)c->cache};
	if (SIMT_LAUNCH(h, calib_chase, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), a))
		return -1;
	suite_result(h, &c->o, out[0], 1, 0, NULL);
	simt_work_items(h, c->steps * c->passes);
	return 0;
}

static const struct gpuvm_param_def chase_params[] = {
	{"footprint", GPUVM_PARAM_SIZE, "64KiB", "bytes the chain spans"},
	{"stride", GPUVM_PARAM_SIZE, "128", "bytes between nodes (a multiple of 4)"},
	{"order", GPUVM_PARAM_CHOICE, "shuffled|sequential",
	 "shuffled: nodes in a random cycle (gpu-benches gpu-latency); sequential: node after "
	 "node (Karnagel tlb-bench)"},
	{"steps", GPUVM_PARAM_U64, "0", "nodes in the cycle, each visited once a pass (0: all)"},
	{"passes", GPUVM_PARAM_U64, "2", "walks of the cycle (the first warms caches and TLBs)"},
	{"cache", GPUVM_PARAM_CHOICE, "default|cg|ca",
	 "LD (the part's default), LDCG (__ldcg: L2 only) or LDCA (__ldca: L1 too)"},
	{"seed", GPUVM_PARAM_U64, "1", "shuffle seed"},
	{"chains", GPUVM_PARAM_U64, "0",
	 "0: one thread chases the cycle; K: lane 0 of K warps each chase steps/K of it "
	 "(misses in flight: the TLB MSHR and walker knee, cuda/hwbench.cu tlbpar)"},
	{"spread", GPUVM_PARAM_CHOICE, "sm|sms", "with chains: one CTA of K warps (one SM) or K CTAs of one warp"},
	{"lanes", GPUVM_PARAM_U64, "1", "with chains: chasers per warp, 1 (lane 0) or 32 (every lane)"},
	SUITE_COMMON_PARAMS,
};

static const struct gpuvm_param_range chase_ranges[] = {
	GPUVM_RANGE("footprint", 4, 64ull << 30), GPUVM_RANGE("stride", 4, 1ull << 34),
	GPUVM_RANGE("steps", 0, 1ull << 26),      GPUVM_RANGE("passes", 1, 1024),
	GPUVM_RANGE("chains", 0, 65536),
	SUITE_COMMON_RANGES,
};

static int chase_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct chase_cfg c = {.footprint = 65536, .stride = 128, .passes = 2, .seed = 1, .lanes = 1};
	if (gpuvm_params_size(p, "footprint", &c.footprint, err) < 0 ||
	    gpuvm_params_size(p, "stride", &c.stride, err) < 0 ||
	    gpuvm_params_choice(p, "order", "shuffled|sequential", &c.order, err) < 0 ||
	    gpuvm_params_u64(p, "steps", &c.steps, err) < 0 ||
	    gpuvm_params_u64(p, "passes", &c.passes, err) < 0 ||
	    gpuvm_params_choice(p, "cache", "default|cg|ca", &c.cache, err) < 0 ||
	    gpuvm_params_u64(p, "seed", &c.seed, err) < 0 ||
	    gpuvm_params_u64(p, "chains", &c.chains, err) < 0 ||
	    gpuvm_params_choice(p, "spread", "sm|sms", &c.spread, err) < 0 ||
	    gpuvm_params_u64(p, "lanes", &c.lanes, err) < 0 ||
	    suite_opts_parse(p, &c.o, err))
		return -1;
	c.order = c.order == 0; /* choice 0 is "shuffled" */
	if (c.chains && !c.spread && c.chains > 32)
		return gpuvm_fail(err, "--workload", 0, "chains",
				  "at most 32 warps in one CTA (spread=sms takes more)");
	if (c.footprint % 4 || c.stride % 4)
		return gpuvm_fail(err, "--workload", 0, "stride",
				  "footprint and stride must be multiples of 4");
	if (c.stride > c.footprint)
		return gpuvm_fail(err, "--workload", 0, "stride", "is larger than the footprint");
	uint64_t nodes = c.footprint / c.stride;
	if (calib_chain_fits(c.footprint, c.stride, err))
		return -1;
	if (!c.steps)
		c.steps = nodes;
	if (c.steps > nodes)
		return gpuvm_fail(err, "--workload", 0, "steps", "more than the %llu nodes",
				  (unsigned long long)nodes);
	if (c.lanes != 1 && c.lanes != 32)
		return gpuvm_fail(err, "--workload", 0, "lanes", "is 1 or 32");
	if (c.chains * c.lanes > c.steps)
		return gpuvm_fail(err, "--workload", 0, "chains",
				  "more chasers (chains x lanes) than the %llu steps",
				  (unsigned long long)c.steps);
	return calib_source("ubench-chase", chase_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_chase = {
	.name = "ubench-chase",
	.summary = "pointer chase (one thread, dependent loads) over a footprint: latency vs "
		   "footprint like gpu-benches gpu-latency, TLB levels like Karnagel's tlb-bench",
	.working_set = "footprint",
	.params = chase_params,
	.n_params = sizeof chase_params / sizeof chase_params[0],
	.ranges = chase_ranges,
	.n_ranges = sizeof chase_ranges / sizeof chase_ranges[0],
	.create = chase_create,
};

/* ----------------------------------------------------------------- ops */

struct ops_cfg {
	uint64_t insts, ilp, blocks, block;
	unsigned op;
};

static const int ops_class[] = {GPUVM_CLASS_ALU, GPUVM_CLASS_FMA, GPUVM_CLASS_IMAD,
				GPUVM_CLASS_SFU, GPUVM_CLASS_DP};

static int ops_host(struct simt_host *h, void *user)
{
	const struct ops_cfg *c = user;
	uint64_t threads = c->blocks * c->block;
	unsigned int *out = simt_malloc(h, "out", threads * 4, GPUVM_ALLOC_DEVICE);
	if (!out)
		return -1;
	struct calib_ops_args a = {out, (unsigned)c->insts, (unsigned)c->ilp, (int)c->op,
				   ops_class[c->op]};
	if (SIMT_LAUNCH(h, calib_ops, simt_dim3((uint32_t)c->blocks, 1, 1),
			simt_dim3((uint32_t)c->block, 1, 1), a))
		return -1;
	struct suite_opts o = {GPUVM_ALLOC_DEVICE, 0, 1};
	suite_result(h, &o, suite_digest(out, threads * 4), 1, 0, NULL);
	simt_work_items(h, threads * c->insts);
	return 0;
}

static const struct gpuvm_param_def ops_params[] = {
	{"op", GPUVM_PARAM_CHOICE, "alu|fma|imad|sfu|dp",
	 "class: IADD3/LOP, FFMA, IMAD, MUFU (rcp), DFMA"},
	{"insts", GPUVM_PARAM_U64, "1024", "instructions per thread"},
	{"ilp", GPUVM_PARAM_U64, "1", "independent chains they form (1: one dependent chain)"},
	{"blocks", GPUVM_PARAM_U64, "1", "CTAs"},
	{"block", GPUVM_PARAM_U64, "32", "threads per CTA"},
};

static const struct gpuvm_param_range ops_ranges[] = {
	GPUVM_RANGE("insts", 1, 1 << 24), GPUVM_RANGE("ilp", 1, 1 << 24), GPUVM_RANGE("blocks", 1, 1 << 20), GPUVM_RANGE("block", 1, 1024),
};

static int ops_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		      uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct ops_cfg c = {.insts = 1024, .ilp = 1, .blocks = 1, .block = 32};
	if (gpuvm_params_choice(p, "op", "alu|fma|imad|sfu|dp", &c.op, err) < 0 ||
	    gpuvm_params_u64(p, "insts", &c.insts, err) < 0 ||
	    gpuvm_params_u64(p, "ilp", &c.ilp, err) < 0 ||
	    gpuvm_params_u64(p, "blocks", &c.blocks, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0)
		return -1;
	if (c.ilp > c.insts)
		return gpuvm_fail(err, "--workload", 0, "ilp", "more chains than instructions");
	return calib_source("ubench-ops", ops_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_ops = {
	.name = "ubench-ops",
	.summary = "arithmetic of one class: a dependent chain (latency) or independent chains "
		   "on many warps (issue throughput per SM)",
	.working_set = "4 B x threads",
	.params = ops_params,
	.n_params = sizeof ops_params / sizeof ops_params[0],
	.ranges = ops_ranges,
	.n_ranges = sizeof ops_ranges / sizeof ops_ranges[0],
	.create = ops_create,
};

/* -------------------------------------------------------------- stream */

enum { STREAM_COPY, STREAM_TRIAD, STREAM_INIT, STREAM_READ, STREAM_SCALE, STREAM_READ2 };
#define STREAM_KERNELS "copy|triad|init|read|scale|read2"

struct stream_cfg {
	uint64_t elems, blocks_per_sm, block;
	unsigned kernel;     /* STREAM_* */
	unsigned persistent; /* 0 gpu-stream's shape, 1 one wave striding */
	uint32_t sms;
	uint64_t smem_bytes; /* per SM (smem.size) */
	bool has_carveouts;  /* a unified L1 / shared array (Volta on) */
	uint16_t carveouts_kib[GPUVM_MAX_SMS];
	uint32_t carveouts_len;
};

/* How the launch caps the CTAs resident per SM at blocks_per_sm, as
 * gpu-stream does (te42kyfo/gpu-benches gpu-stream/main.cu): a 768-double
 * __shared__ array (6 KiB) in every kernel and a preferred shared-memory
 * carve-out small enough that the carve-out the driver rounds it up to
 * holds blocks_per_sm of them. gpu-stream asks for 9 % (two blocks); on
 * V100 the percent below is that 9 (8.6 of 96 KiB rounds up to 16 KiB); on
 * A100 and H100 it is 5 and 4, where gpu-stream's 9 % would round up to 16
 * and 32 KiB (5 blocks on H100). The published rows state two blocks per
 * SM on all three, so the row keeps that occupancy. Parts without
 * carve-outs, or counts no carve-out gives with 6 KiB arrays, size the
 * array instead (at most CUDA's 48 KiB static limit). */
#define GPU_STREAM_SHARED_BYTES (768 * 8)
static void stream_cap(const struct stream_cfg *c, uint32_t *shared, int *carveout_percent)
{
	*carveout_percent = -1;
	const uint32_t n = c->carveouts_len;
	for (uint32_t i = 0; i < n && c->has_carveouts; i++) {
		uint64_t kib = c->carveouts_kib[i];
		if ((kib << 10) / GPU_STREAM_SHARED_BYTES != c->blocks_per_sm)
			continue;
		/* the least percent that rounds up past the carve-out below */
		uint64_t below = i ? c->carveouts_kib[i - 1] : 0, most = c->carveouts_kib[n - 1];
		*shared = GPU_STREAM_SHARED_BYTES;
		*carveout_percent = (int)(below * 100 / most + 1);
		return;
	}
	uint64_t s = c->smem_bytes / (c->blocks_per_sm + 1) + 1;
	*shared = (uint32_t)(s < 49152 ? s : 49152);
}

static int stream_host(struct simt_host *h, void *user)
{
	const struct stream_cfg *c = user;
	uint64_t bytes = c->elems * sizeof(double);
	double *a = simt_malloc(h, "a", bytes, GPUVM_ALLOC_DEVICE);
	double *b = simt_malloc(h, "b", bytes, GPUVM_ALLOC_DEVICE);
	bool two_inputs = c->kernel == STREAM_TRIAD || c->kernel == STREAM_READ2;
	double *cc = two_inputs ? simt_malloc(h, "c", bytes, GPUVM_ALLOC_DEVICE) : NULL;
	if (!a || !b || (two_inputs && !cc))
		return -1;
	for (uint64_t i = 0; i < c->elems; i++) {
		b[i] = (double)(i & 1023);
		if (cc)
			cc[i] = 0.5;
	}
	if (simt_upload(h, b, bytes) || (cc && simt_upload(h, cc, bytes)))
		return -1;
	/* gpu-stream (te42kyfo/gpu-benches gpu-stream/main.cu) launches one
	 * thread per element, elems / block + 1 CTAs, and keeps blocks_per_sm
	 * of them resident with a __shared__ array sized for it: occupancy is
	 * held by CTAs retiring and the next ones taking their slots, so each
	 * CTA's dispatch, launch and retire is in the bandwidth. persistent=1
	 * runs one wave of blocks_per_sm CTAs per SM striding the arrays
	 * instead (no CTA turnover). */
	struct calib_stream_args args = {a, b, cc, 3.0, (unsigned long long)c->elems};
	uint64_t ctas = c->persistent ? c->sms * c->blocks_per_sm : (c->elems + c->block - 1) / c->block;
	uint32_t shared = 0;
	int carveout_percent = -1;
	if (!c->persistent)
		stream_cap(c, &shared, &carveout_percent);
	if (carveout_percent >= 0)
		simt_prefer_carveout(h, (unsigned)carveout_percent);
	struct simt_dim3 grid = simt_dim3((uint32_t)ctas, 1, 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block, 1, 1);
	int rc;
	switch (c->kernel) {
	case STREAM_TRIAD:
		rc = SIMT_LAUNCH_SHARED(h, calib_triad, grid, block, shared, args);
		break;
	case STREAM_INIT:
		rc = SIMT_LAUNCH_SHARED(h, calib_stream_init, grid, block, shared, args);
		break;
	case STREAM_READ:
		rc = SIMT_LAUNCH_SHARED(h, calib_stream_read, grid, block, shared, args);
		break;
	case STREAM_SCALE:
		rc = SIMT_LAUNCH_SHARED(h, calib_stream_scale, grid, block, shared, args);
		break;
	case STREAM_READ2:
		rc = SIMT_LAUNCH_SHARED(h, calib_stream_read2, grid, block, shared, args);
		break;
	default:
		rc = SIMT_LAUNCH_SHARED(h, calib_copy, grid, block, shared, args);
		break;
	}
	if (rc)
		return -1;
	struct suite_opts o = {GPUVM_ALLOC_DEVICE, 0, 1};
	suite_result(h, &o, suite_digest(a, bytes < 65536 ? bytes : 65536), 1, 0, NULL);
	simt_work_items(h, c->elems);
	return 0;
}

static const struct gpuvm_param_def stream_params[] = {
	{"kernel", GPUVM_PARAM_CHOICE, STREAM_KERNELS,
	 "copy: a = b (16 B/elem); triad: a = b + q c (24 B/elem); init: a = 0.23 (8 B/elem, "
	 "stores only); read: loads b and compares it (8 B/elem); scale: a = 1.2 b (16 B/elem); "
	 "read2: loads b and c and compares their sum (16 B/elem, no store)"},
	{"elems", GPUVM_PARAM_U64, "8388608", "doubles per array"},
	{"blocks_per_sm", GPUVM_PARAM_U64, "2", "CTAs resident per SM (the occupancy)"},
	{"block", GPUVM_PARAM_U64, "1024", "threads per CTA"},
	{"persistent", GPUVM_PARAM_U64, "0",
	 "0: one thread per element, elems / block CTAs, blocks_per_sm resident at a time "
	 "(gpu-stream); 1: one wave of blocks_per_sm CTAs per SM striding the arrays"},
};

static const struct gpuvm_param_range stream_ranges[] = {
	GPUVM_RANGE("elems", 1, 1ull << 31), GPUVM_RANGE("blocks_per_sm", 1, 64),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("persistent", 0, 1),
};

static int stream_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct stream_cfg c = {.elems = 8388608, .blocks_per_sm = 2, .block = 1024};
	uint64_t persistent = 0;
	if (gpuvm_params_choice(p, "kernel", STREAM_KERNELS, &c.kernel, err) < 0 ||
	    gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_u64(p, "blocks_per_sm", &c.blocks_per_sm, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "persistent", &persistent, err) < 0)
		return -1;
	c.persistent = (unsigned)persistent;
	c.sms = cfg->sms;
	c.smem_bytes = cfg->smem_bytes;
	c.has_carveouts = cfg->l1_unified_bytes && cfg->smem_carveouts_len;
	c.carveouts_len = cfg->smem_carveouts_len;
	memcpy(c.carveouts_kib, cfg->smem_carveouts_kib, sizeof c.carveouts_kib);
	if (!c.persistent && (c.elems + c.block - 1) / c.block > UINT32_MAX)
		return gpuvm_fail(err, "--workload", 0, "elems", "more CTAs than a grid holds");
	return calib_source("ubench-stream", stream_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_stream = {
	.name = "ubench-stream",
	.summary = "STREAM copy, triad, init, read or scale over doubles, one thread per element with blocks_per_sm "
		   "CTAs resident per SM: bandwidth vs occupancy as gpu-benches gpu-stream",
	.working_set = "8 B (init, read), 16 B (copy, scale, read2) or 24 B (triad) x elems",
	.params = stream_params,
	.n_params = sizeof stream_params / sizeof stream_params[0],
	.ranges = stream_ranges,
	.n_ranges = sizeof stream_ranges / sizeof stream_ranges[0],
	.create = stream_create,
};

/* --------------------------------------------------------------- empty */

struct empty_cfg {
	uint64_t grid, block, launches;
};

static int empty_host(struct simt_host *h, void *user)
{
	const struct empty_cfg *c = user;
	struct calib_empty_args a = {0};
	for (uint64_t k = 0; k < c->launches; k++)
		if (SIMT_LAUNCH(h, calib_empty, simt_dim3((uint32_t)c->grid, 1, 1),
				simt_dim3((uint32_t)c->block, 1, 1), a))
			return -1;
	simt_result(h, "launches=%llu", (unsigned long long)c->launches);
	simt_work_items(h, c->launches);
	return 0;
}

static const struct gpuvm_param_def empty_params[] = {
	{"grid", GPUVM_PARAM_U64, "1", "CTAs per launch"},
	{"block", GPUVM_PARAM_U64, "32", "threads per CTA"},
	{"launches", GPUVM_PARAM_U64, "1", "back-to-back launches"},
};

static const struct gpuvm_param_range empty_ranges[] = {
	GPUVM_RANGE("grid", 1, 1 << 24), GPUVM_RANGE("block", 1, 1024), GPUVM_RANGE("launches", 1, 1 << 16),
};

static int empty_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct empty_cfg c = {.grid = 1, .block = 32, .launches = 1};
	if (gpuvm_params_u64(p, "grid", &c.grid, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "launches", &c.launches, err) < 0)
		return -1;
	return calib_source("ubench-empty", empty_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_empty = {
	.name = "ubench-empty",
	.summary = "empty kernels: launch, CTA dispatch and retire cost vs grid and block size",
	.working_set = "none",
	.params = empty_params,
	.n_params = sizeof empty_params / sizeof empty_params[0],
	.ranges = empty_ranges,
	.n_ranges = sizeof empty_ranges / sizeof empty_ranges[0],
	.create = empty_create,
};

/* -------------------------------------------------------------- atomic */

struct atomic_cfg {
	uint64_t steps, blocks, block;
	unsigned mode;
};

static int atomic_host(struct simt_host *h, void *user)
{
	const struct atomic_cfg *c = user;
	uint64_t threads = c->blocks * c->block;
	unsigned int *words = simt_malloc(h, "words", threads * 4, GPUVM_ALLOC_DEVICE);
	unsigned int *out = simt_malloc(h, "out", threads * 4, GPUVM_ALLOC_DEVICE);
	if (!words || !out)
		return -1;
	struct calib_atomic_args a = {words, out, (unsigned)c->steps, (int)c->mode};
	if (SIMT_LAUNCH(h, calib_atomic, simt_dim3((uint32_t)c->blocks, 1, 1),
			simt_dim3((uint32_t)c->block, 1, 1), a))
		return -1;
	simt_result(h, "word0=%u", words[0]);
	simt_work_items(h, c->mode ? threads * c->steps : c->steps);
	return 0;
}

static const struct gpuvm_param_def atomic_params[] = {
	{"mode", GPUVM_PARAM_CHOICE, "chain|own|same",
	 "chain: one thread's dependent atomicAdds (latency); own: each thread its word; same: "
	 "every thread one word"},
	{"steps", GPUVM_PARAM_U64, "256", "atomics per thread"},
	{"blocks", GPUVM_PARAM_U64, "1", "CTAs"},
	{"block", GPUVM_PARAM_U64, "32", "threads per CTA"},
};

static const struct gpuvm_param_range atomic_ranges[] = {
	GPUVM_RANGE("steps", 1, 1 << 20), GPUVM_RANGE("blocks", 1, 1 << 16), GPUVM_RANGE("block", 1, 1024),
};

static int atomic_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct atomic_cfg c = {.steps = 256, .blocks = 1, .block = 32};
	if (gpuvm_params_choice(p, "mode", "chain|own|same", &c.mode, err) < 0 ||
	    gpuvm_params_u64(p, "steps", &c.steps, err) < 0 ||
	    gpuvm_params_u64(p, "blocks", &c.blocks, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0)
		return -1;
	return calib_source("ubench-atomic", atomic_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_atomic = {
	.name = "ubench-atomic",
	.summary = "atomicAdd: a dependent chain of one thread (latency) or every thread on its "
		   "own word / one word (throughput)",
	.working_set = "4 B x threads",
	.params = atomic_params,
	.n_params = sizeof atomic_params / sizeof atomic_params[0],
	.ranges = atomic_ranges,
	.n_ranges = sizeof atomic_ranges / sizeof atomic_ranges[0],
	.create = atomic_create,
};

/* ---------------------------------------------------------------- link */

struct link_cfg {
	uint64_t bytes;
	unsigned mode; /* 0 copy (cudaMemcpy H2D), 1 zero-copy read of pinned memory, 2 copy-d2h */
	uint32_t sms;
};

static int link_host(struct simt_host *h, void *user)
{
	const struct link_cfg *c = user;
	if (c->mode == 2) {
		/* cudaMemcpy device to host alone: the device buffer's contents
		 * are whatever it holds (zeros), the copy's time is the point */
		unsigned char *buf = simt_malloc(h, "buf", c->bytes, GPUVM_ALLOC_DEVICE);
		if (!buf || simt_download(h, buf, c->bytes))
			return -1;
		simt_result(h, "copied=%llu", (unsigned long long)c->bytes);
	} else if (c->mode == 0) {
		unsigned char *buf = simt_malloc(h, "buf", c->bytes, GPUVM_ALLOC_DEVICE);
		if (!buf)
			return -1;
		for (uint64_t i = 0; i < c->bytes; i += 4096)
			buf[i] = (unsigned char)(i >> 12);
		if (simt_upload(h, buf, c->bytes))
			return -1;
		simt_result(h, "copied=%llu", (unsigned long long)c->bytes);
	} else {
		uint64_t n = c->bytes / 4;
		unsigned int *src = simt_malloc(h, "src", c->bytes, GPUVM_ALLOC_HOST_PINNED);
		uint64_t threads = (uint64_t)c->sms * 1024;
		unsigned int *out = simt_malloc(h, "out", threads * 4, GPUVM_ALLOC_DEVICE);
		if (!src || !out)
			return -1;
		for (uint64_t i = 0; i < n; i++)
			src[i] = (unsigned int)i;
		struct calib_read_args a = {src, out, (unsigned long long)n};
		if (SIMT_LAUNCH(h, calib_read, simt_dim3(c->sms * 4, 1, 1), simt_dim3(256, 1, 1), a))
			return -1;
		struct suite_opts o = {GPUVM_ALLOC_DEVICE, 0, 1};
		suite_result(h, &o, suite_digest(out, threads * 4), 1, 0, NULL);
	}
	simt_work_items(h, c->bytes);
	return 0;
}

static const struct gpuvm_param_def link_params[] = {
	{"mode", GPUVM_PARAM_CHOICE, "copy|zero-copy|copy-d2h",
	 "copy: cudaMemcpy host to device of pinned data; zero-copy: a kernel reads pinned host memory; "
	 "copy-d2h: cudaMemcpy device to host"},
	{"bytes", GPUVM_PARAM_SIZE, "64MiB", "transfer size"},
};

static const struct gpuvm_param_range link_ranges[] = {
	GPUVM_RANGE_STEP("bytes", 4, 64ull << 30, 4),
};

static int link_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		       uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct link_cfg c = {.bytes = 64ull << 20};
	if (gpuvm_params_choice(p, "mode", "copy|zero-copy|copy-d2h", &c.mode, err) < 0 ||
	    gpuvm_params_size(p, "bytes", &c.bytes, err) < 0)
		return -1;
	c.sms = cfg->sms;
	return calib_source("ubench-link", link_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_link = {
	.name = "ubench-link",
	.summary = "host-link bandwidth vs transfer size: a host-to-device cudaMemcpy or a "
		   "zero-copy kernel read of pinned memory",
	.working_set = "bytes",
	.params = link_params,
	.n_params = sizeof link_params / sizeof link_params[0],
	.ranges = link_ranges,
	.n_ranges = sizeof link_ranges / sizeof link_ranges[0],
	.create = link_create,
};

/* ------------------------------------------------------------------ l2 */

struct l2bw_cfg {
	uint64_t bytes, passes, blocks_per_sm, block, width, ctas;
	unsigned op; /* 0 read, 1 write (16-byte stores) */
	uint32_t sms;
};

static int l2bw_host(struct simt_host *h, void *user)
{
	const struct l2bw_cfg *c = user;
	uint64_t ctas = c->ctas ? c->ctas : c->sms * c->blocks_per_sm;
	uint64_t n = c->bytes / 4, threads = ctas * c->block;
	unsigned int *src = simt_malloc(h, "src", c->bytes, GPUVM_ALLOC_DEVICE);
	unsigned int *out = simt_malloc(h, "out", threads * 4, GPUVM_ALLOC_DEVICE);
	if (!src || !out)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		src[i] = (unsigned int)(i * 2654435761u);
	if (simt_upload(h, src, c->bytes))
		return -1;
	/* one wave: every SM holds blocks_per_sm CTAs for the whole run (or
	 * ctas CTAs, one per SM while there are SMs, as the hardware places
	 * them round-robin) */
	struct simt_dim3 grid = simt_dim3((uint32_t)ctas, 1, 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block, 1, 1);
	if (c->op == 1) {
		struct calib_l2write16_args a = {(calib_u4 *)src, (unsigned long long)(n / 4),
						 (unsigned)c->passes};
		if (SIMT_LAUNCH(h, calib_l2write16, grid, block, a))
			return -1;
	} else if (c->width == 16) {
		struct calib_l2read16_args a = {(const calib_u4 *)src, out,
						(unsigned long long)(n / 4), (unsigned)c->passes};
		if (SIMT_LAUNCH(h, calib_l2read16, grid, block, a))
			return -1;
	} else {
		struct calib_l2read_args a = {src, out, (unsigned long long)n, (unsigned)c->passes};
		if (SIMT_LAUNCH(h, calib_l2read, grid, block, a))
			return -1;
	}
	struct suite_opts o = {GPUVM_ALLOC_DEVICE, 0, 1};
	/* the stores' buffer, or the loads' sums */
	const void *res = c->op == 1 ? (const void *)src : (const void *)out;
	uint64_t res_bytes = c->op == 1 ? c->bytes : threads * 4;
	suite_result(h, &o, suite_digest(res, res_bytes < 65536 ? res_bytes : 65536), 1, 0, NULL);
	simt_work_items(h, c->bytes * c->passes);
	return 0;
}

static const struct gpuvm_param_def l2bw_params[] = {
	{"bytes", GPUVM_PARAM_SIZE, "1MiB", "buffer read (keep it below the L2, or its near partition)"},
	{"passes", GPUVM_PARAM_U64, "2", "reads of the whole buffer (the first one fills the L2)"},
	{"blocks_per_sm", GPUVM_PARAM_U64, "2", "CTAs per SM (one wave)"},
	{"block", GPUVM_PARAM_U64, "1024", "threads per CTA"},
	{"width", GPUVM_PARAM_CHOICE, "4|16", "bytes each thread loads at once: 4 or 16 (a uint4)"},
	{"ctas", GPUVM_PARAM_U64, "0", "CTAs in all, one per SM while there are SMs (0: blocks_per_sm "
				       "on every SM)"},
	{"op", GPUVM_PARAM_CHOICE, "read|write",
	 "read: the loads above; write: 16-byte stores over the buffer instead (width=16)"},
};

static const struct gpuvm_param_range l2bw_ranges[] = {
	GPUVM_RANGE("bytes", 4, 4ull << 30),
	GPUVM_RANGE("passes", 1, 1024),
	GPUVM_RANGE("blocks_per_sm", 1, 64),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("ctas", 0, 1u << 20),
};

static int l2bw_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		       uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct l2bw_cfg c = {.bytes = 1ull << 20, .passes = 2, .blocks_per_sm = 2, .block = 1024,
			     .width = 4};
	if (gpuvm_params_size(p, "bytes", &c.bytes, err) < 0 ||
	    gpuvm_params_u64(p, "passes", &c.passes, err) < 0 ||
	    gpuvm_params_u64(p, "blocks_per_sm", &c.blocks_per_sm, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "width", &c.width, err) < 0 ||
	    gpuvm_params_u64(p, "ctas", &c.ctas, err) < 0 ||
	    gpuvm_params_choice(p, "op", "read|write", &c.op, err) < 0)
		return -1;
	if (c.op == 1 && c.width != 16)
		return gpuvm_params_constraint(err, "op",
					       "write stores 16 bytes a thread: give width=16");
	if (c.bytes % c.width)
		return gpuvm_params_constraint(err, "bytes", "a multiple of width (%llu)",
					       (unsigned long long)c.width);
	c.sms = cfg->sms;
	return calib_source("ubench-l2", l2bw_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_l2 = {
	.name = "ubench-l2",
	.summary = "L2 read bandwidth: every SM's threads read an L2-resident buffer pass after "
		   "pass through the L2 only (__ldcg), or write it (op=write)",
	.working_set = "bytes",
	.params = l2bw_params,
	.n_params = sizeof l2bw_params / sizeof l2bw_params[0],
	.ranges = l2bw_ranges,
	.n_ranges = sizeof l2bw_ranges / sizeof l2bw_ranges[0],
	.create = l2bw_create,
	.constraints = "op=write needs width=16; bytes a multiple of width",
};
