/* The DRAM side of a warp's load as workloads (kernels in
 * calib_dram_kernels.h), measured on boards by cuda/hwbench.cu's warpload and
 * loaded sections (docs/hardware.md, "The DRAM side of a warp's load"):
 *   ubench-warpload  one warp's dependent loads of fresh DRAM lines by the
 *                    sectors each touches: what a coalesced load waits for
 *                    past its first sector (calibrate's warp_load rows)
 *   ubench-loaded    a pointer chase while the other warps stream reads
 *                    or a copy: DRAM latency under load
 *                    (scripts/loaded-latency.sh) */
#include <stdlib.h>

#include "gpuvm/config.h"
#include "workloads/calib/calib_internal.h"
#include "workloads/calib/calib_dram_kernels.h"
#include "workloads/suite/suite.h"

/* -------------------------------------------------------------- loaded */

struct loaded_cfg {
	uint64_t warps, stream_bytes, elems, footprint, steps;
	unsigned writes, four;
	uint32_t sms;
};

/* Two CTAs per SM of `warps` warps; warp 0 of CTA 0 chases `steps` nodes
 * of a shuffled chain over `footprint` (128 B apart, calib_chase's cycle),
 * every other warp streams `stream_bytes` in all over a buffer of `elems`
 * doubles. stream=0 runs the chase alone, steps=0 the stream alone. */
static int loaded_host(struct simt_host *h, void *user)
{
	const struct loaded_cfg *c = user;
	const uint64_t stride = 128, wpn = stride / 4;
	unsigned int *next = simt_malloc(h, "chain", c->footprint, GPUVM_ALLOC_DEVICE);
	double *buf = simt_malloc(h, "buf", c->elems * 8, GPUVM_ALLOC_DEVICE);
	unsigned int *out = simt_malloc(h, "out", 8, GPUVM_ALLOC_DEVICE);
	if (!next || !buf || !out)
		return -1;
	uint64_t nodes = c->footprint / stride;
	uint32_t *ord = calib_order(nodes, true, 1);
	if (!ord)
		return simt_fail(h, "out of memory for %llu chase nodes", (unsigned long long)nodes);
	calib_link_cycle(next, ord, c->steps ? c->steps : 1, wpn);
	free(ord);
	for (uint64_t i = 0; i < c->elems; i++)
		buf[i] = (double)(i & 1023);
	if (simt_upload(h, next, c->footprint) || simt_upload(h, buf, c->elems * 8))
		return -1;
	uint64_t threads = (uint64_t)c->sms * 2 * 32 * c->warps - 32;
	uint64_t per_group = c->writes ? 16 : 32; /* bytes a thread moves per group */
	struct calib_loaded_args a = {next, (unsigned)c->steps, buf, (unsigned long long)c->elems,
				      (unsigned long long)(c->stream_bytes / (threads * per_group)),
				      (int)c->writes, !c->four, out};
	if (SIMT_LAUNCH(h, calib_loaded_chase, simt_dim3(c->sms * 2, 1, 1),
			simt_dim3(32 * (uint32_t)c->warps, 1, 1), a))
		return -1;
	struct suite_opts o = {GPUVM_ALLOC_DEVICE, 0, 1};
	suite_result(h, &o, out[0], 1, 0, NULL);
	simt_work_items(h, c->steps + a.iters * threads);
	return 0;
}

static const struct gpuvm_param_def loaded_params[] = {
	{"warps", GPUVM_PARAM_U64, "8", "warps per CTA, two CTAs per SM (the load's intensity)"},
	{"stream", GPUVM_PARAM_SIZE, "512MiB", "bytes the streaming warps move in all (0: the chase alone)"},
	{"elems", GPUVM_PARAM_U64, "134217728", "doubles in the streamed buffer (a power of two)"},
	{"mode", GPUVM_PARAM_CHOICE, "read|copy|copyl2|copyfroml2",
	 "read: four independent loads a thread per group; copy: a load and a store; copyl2: "
	 "the copy's stores into 2 MiB (L2-resident); copyfroml2: its loads from 2 MiB (L2 "
	 "hits), so DRAM sees the writes alone"},
	{"order", GPUVM_PARAM_CHOICE, "pairs|four",
	 "read: pairs issues a group's loads two and two with the first pair's sum between, as "
	 "ptxas builds cuda/hwbench.cu's loaded_chase for sm_90 (cuobjdump -sass); four: all "
	 "four back to back"},
	{"footprint", GPUVM_PARAM_SIZE, "512MiB", "bytes the chase's chain spans (128 B nodes)"},
	{"steps", GPUVM_PARAM_U64, "8192", "the chase's dependent loads (0: the stream alone)"},
};

static const struct gpuvm_param_range loaded_ranges[] = {
	GPUVM_RANGE("warps", 1, 32), GPUVM_RANGE("stream", 0, 64ull << 30), GPUVM_RANGE_POW2("elems", 2, 1ull << 33),
	GPUVM_RANGE("footprint", 128, 64ull << 30), GPUVM_RANGE("steps", 0, 1ull << 26),
};

static int loaded_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct loaded_cfg c = {.warps = 8, .stream_bytes = 512ull << 20, .elems = 1ull << 27,
			       .footprint = 512ull << 20, .steps = 8192};
	if (gpuvm_params_u64(p, "warps", &c.warps, err) < 0 ||
	    gpuvm_params_size(p, "stream", &c.stream_bytes, err) < 0 ||
	    gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_choice(p, "mode", "read|copy|copyl2|copyfroml2", &c.writes, err) < 0 ||
	    gpuvm_params_choice(p, "order", "pairs|four", &c.four, err) < 0 ||
	    gpuvm_params_size(p, "footprint", &c.footprint, err) < 0 ||
	    gpuvm_params_u64(p, "steps", &c.steps, err) < 0)
		return -1;
	if (c.writes >= 2 && c.elems * 4 < LOADED_L2_WINDOW_BYTES)
		return gpuvm_params_constraint(err, "elems",
				  "mode=%s needs halves of at least 2 MiB (elems >= %llu)",
				  c.writes == 2 ? "copyl2" : "copyfroml2", LOADED_L2_WINDOW_BYTES / 4);
	uint64_t nodes = c.footprint / 128;
	if (calib_chain_fits(c.footprint, 128, err))
		return -1;
	if (c.steps > nodes)
		return gpuvm_fail(err, "--workload", 0, "steps", "more than the %llu nodes",
				  (unsigned long long)nodes);
	c.sms = cfg->sms;
	return calib_source("ubench-loaded", loaded_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_loaded = {
	.name = "ubench-loaded",
	.summary = "DRAM latency under load: one thread's pointer chase while the other warps "
		   "stream reads or a copy (Intel MLC's loaded-latency curve)",
	.working_set = "footprint + 8 B x elems",
	.params = loaded_params,
	.n_params = sizeof loaded_params / sizeof loaded_params[0],
	.ranges = loaded_ranges,
	.n_ranges = sizeof loaded_ranges / sizeof loaded_ranges[0],
	.create = loaded_create,
	.constraints = "mode=copyl2 or copyfroml2 needs elems >= 2 MiB / 4",
};

/* ------------------------------------------------------------ warpload */

struct warpload_cfg {
	uint64_t warps, steps, lane_stride;
	unsigned two;
};

/* `warps` CTAs of one warp, each walking its own region of steps x 4 KiB
 * (calib_warp_load); with one warp per SM of the part they run side by
 * side as cuda/hwbench.cu's warpload rows do. */
static int warpload_host(struct simt_host *h, void *user)
{
	const struct warpload_cfg *c = user;
	uint64_t region_words = c->steps * 512 + 32 * 4;
	uint64_t bytes = region_words * 8 * c->warps;
	unsigned long long *buf = simt_malloc(h, "buf", bytes, GPUVM_ALLOC_DEVICE);
	unsigned long long *buf2 =
		c->two ? simt_malloc(h, "buf2", bytes, GPUVM_ALLOC_DEVICE) : NULL;
	unsigned long long *out = simt_malloc(h, "out", c->warps * 32 * 8, GPUVM_ALLOC_DEVICE);
	if (!buf || (c->two && !buf2) || !out)
		return -1;
	/* zero-filled as the device's cudaMemset: the values never matter */
	if (simt_upload(h, buf, bytes) || (buf2 && simt_upload(h, buf2, bytes)))
		return -1;
	struct calib_warp_load_args a = {buf, buf2 ? buf2 : buf, (unsigned long long)region_words,
					 (unsigned)c->lane_stride, (int)c->two, (unsigned)c->steps,
					 out};
	if (SIMT_LAUNCH(h, calib_warp_load, simt_dim3((uint32_t)c->warps, 1, 1),
			simt_dim3(32, 1, 1), a))
		return -1;
	struct suite_opts o = {GPUVM_ALLOC_DEVICE, 0, 1};
	suite_result(h, &o, suite_digest(out, c->warps * 32 * 8), 1, 0, NULL);
	simt_work_items(h, c->steps * c->warps);
	return 0;
}

static const struct gpuvm_param_def warpload_params[] = {
	{"sectors", GPUVM_PARAM_CHOICE, "1|8|16|32",
	 "sectors a step's load touches: one (every lane the same word), 8 (8 B a lane), "
	 "16 (8 B a lane from two arrays), 32 (32 B a lane)"},
	{"steps", GPUVM_PARAM_U64, "256", "dependent loads per warp"},
	{"warps", GPUVM_PARAM_U64, "1", "warps (one CTA each) walking side by side"},
};

static const struct gpuvm_param_range warpload_ranges[] = {
	GPUVM_RANGE("steps", 1, 1u << 20), GPUVM_RANGE("warps", 1, 65536),
};

static int warpload_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct warpload_cfg c = {.warps = 1, .steps = 256};
	unsigned sectors = 0;
	if (gpuvm_params_choice(p, "sectors", "1|8|16|32", &sectors, err) < 0 ||
	    gpuvm_params_u64(p, "steps", &c.steps, err) < 0 ||
	    gpuvm_params_u64(p, "warps", &c.warps, err) < 0)
		return -1;
	static const uint64_t lane_stride[] = {0, 1, 1, 4};
	c.lane_stride = lane_stride[sectors];
	c.two = sectors == 2;
	return calib_source("ubench-warpload", warpload_host, &c, sizeof c, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_ubench_warpload = {
	.name = "ubench-warpload",
	.summary = "one warp's dependent DRAM loads by the sectors each touches (1, 8, 16 in two "
		   "arrays, 32): the latency of a coalesced load against a chase's",
	.working_set = "warps x steps x 4 KiB (twice with sectors=16)",
	.params = warpload_params,
	.n_params = sizeof warpload_params / sizeof warpload_params[0],
	.ranges = warpload_ranges,
	.n_ranges = sizeof warpload_ranges / sizeof warpload_ranges[0],
	.create = warpload_create,
};
