/* allgather-mgpu: a ring all-gather over GPUs. Each GPU fills its chunk
 * of a buffer of gpus chunks with a kernel; then in gpus - 1 steps every
 * GPU g sends the chunk it got last (at step s, chunk (g - s) mod gpus)
 * to GPU g + 1 by a peer copy, so that each ends with every chunk (the
 * ring algorithm of NCCL's AllGather; step s + 1 forwards what step s
 * brought). The copies of one step go on disjoint links and overlap; a
 * step waits for the one before it on its source GPU. The result checks
 * every GPU's buffer against the values the chunks' owners wrote. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/allgather_kernels.h"
#include "workloads/suite/mgpu.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct ag_cfg {
	uint64_t chunk, threads, block;
	uint32_t gpus;
};

static int ag_host(struct simt_host *h, void *user)
{
	const struct ag_cfg *c = user;
	uint32_t n = c->gpus;
	uint64_t chunk_bytes = c->chunk * sizeof(unsigned);
	unsigned *buf[GPUVM_RUN_MAX_DEVICES];
	for (uint32_t g = 0; g < n; g++) {
		char name[32];
		snprintf(name, sizeof name, "gather%u", g);
		if (simt_set_device(h, g))
			return -1;
		buf[g] = simt_malloc(h, name, chunk_bytes * n, GPUVM_ALLOC_DEVICE);
		if (!buf[g])
			return -1;
		struct ag_fill_args a = {buf[g] + (uint64_t)g * c->chunk, c->chunk, g};
		if (SIMT_LAUNCH(h, ag_fill_kernel, simt_dim3(suite_div_up(c->threads, c->block), 1, 1),
				simt_dim3((uint32_t)c->block, 1, 1), a))
			return -1;
	}
	for (uint32_t s = 0; s + 1 < n; s++)
		for (uint32_t g = 0; g < n; g++) {
			uint32_t k = (g + n - s) % n, next = (g + 1) % n;
			if (simt_memcpy_peer_async(h, buf[next] + (uint64_t)k * c->chunk,
						   buf[g] + (uint64_t)k * c->chunk, chunk_bytes))
				return -1;
		}
	uint64_t bad = 0, digest = 14695981039346656037ull;
	for (uint32_t g = 0; g < n; g++) {
		if (simt_set_device(h, g) || simt_device_sync(h) ||
		    simt_download(h, buf[g], chunk_bytes * n))
			return -1;
		for (uint32_t k = 0; k < n; k++)
			for (uint64_t i = 0; i < c->chunk; i++) {
				unsigned v = buf[g][(uint64_t)k * c->chunk + i];
				bad += v != ag_value(k, i);
				if (g == 0) {
					digest ^= v;
					digest *= 1099511628211ull;
				}
			}
	}
	simt_result(h, "digest=%016llx gpus=%u gathered=%s", (unsigned long long)digest, n,
		    bad ? "FAIL" : "pass");
	simt_work_items(h, c->chunk * n * (n - 1));
	return 0;
}

static const struct gpuvm_param_def ag_params[] = {
	{"chunk", GPUVM_PARAM_U64, "4194304", "elements (4-byte) each GPU contributes"},
	{"threads", GPUVM_PARAM_U64, "65536", "threads of the fill kernel (grid-stride)"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	MGPU_GPUS_PARAM,
};

static int ag_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		     uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct ag_cfg c = {.chunk = 1ull << 22, .threads = 65536, .block = 256};
	if (gpuvm_params_u64(p, "chunk", &c.chunk, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 || mgpu_gpus(cfg, p, &c.gpus, err))
		return -1;
	if (workload_check_launch(c.threads, c.block, err))
		return -1;
	struct ag_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("allgather-mgpu", ag_host, u, free, out, err);
}

static const struct gpuvm_param_range ag_ranges[] = {
	GPUVM_RANGE("chunk", 1, 4294967296.0),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	MGPU_GPUS_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_allgather_mgpu = {
	.name = "allgather-mgpu",
	.summary = "ring all-gather of one chunk per GPU by peer copies (NCCL's ring pattern)",
	.working_set = "4 B x chunk x gpus per GPU",
	.params = ag_params,
	.n_params = sizeof ag_params / sizeof ag_params[0],
	GPUVM_WORKLOAD_RANGES(ag_ranges),
	.constraints = "gpus at most the system's",
	.create = ag_create,
};
