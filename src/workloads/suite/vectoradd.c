/* vectoradd: the CUDA samples' vectorAdd on the SIMT executor: A and B
 * copied to the device, one kernel of ceil(n / block) blocks (launches=N:
 * N of them back to back), C copied back (the H100 PCIe measurements of
 * gpuvm validate time its kernel). */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/suite.h"
#include "workloads/suite/vectoradd_kernels.h"
#include "workloads/workload_util.h"

struct vectoradd_cfg {
	uint64_t n, block;
	struct suite_opts o;
};

static int vectoradd_host(struct simt_host *h, void *user)
{
	const struct vectoradd_cfg *c = user;
	uint64_t n = c->n, bytes = n * sizeof(float);
	float *a = simt_malloc(h, "A", bytes, c->o.mem);
	float *b = simt_malloc(h, "B", bytes, c->o.mem);
	float *cc = simt_malloc(h, "C", bytes, c->o.mem);
	if (!a || !b || !cc)
		return -1;
	/* the sample fills them with rand() / RAND_MAX; a fixed pattern
	 * here, with values that vary with i so a wrong index shows */
	for (uint64_t i = 0; i < n; i++) {
		a[i] = (float)(i % 1021) / 1021.0f;
		b[i] = (float)(i % 509) / 509.0f;
	}
	if (simt_upload(h, a, bytes) || simt_upload(h, b, bytes))
		return -1;
	struct vectoradd_args args = {a, b, cc, n};
	for (uint64_t r = 0; r < c->o.launches; r++)
		if (SIMT_LAUNCH(h, vectoradd_kernel, simt_dim3(suite_div_up(n, c->block), 1, 1),
				simt_dim3((uint32_t)c->block, 1, 1), args))
			return -1;
	if (simt_download(h, cc, bytes))
		return -1;
	int ok = 1;
	double max_err = 0;
	if (c->o.verify) {
		for (uint64_t i = 0; i < n; i++)
			if (cc[i] != a[i] + b[i] + 0.0f) {
				ok = 0;
				max_err = 1;
			}
	}
	suite_result(h, &c->o, suite_digest(cc, bytes), ok, max_err, NULL);
	simt_work_items(h, n * c->o.launches);
	return 0;
}

static const struct gpuvm_param_def vectoradd_params[] = {
	{"n", GPUVM_PARAM_U64, "50000", "elements (floats); the sample's default 50000"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block (the sample's 256)"},
	SUITE_COMMON_PARAMS,
	SUITE_LAUNCHES_PARAM,
};

static int vectoradd_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			    uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	(void)cfg;
	struct vectoradd_cfg c = {.n = 50000, .block = 256};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 || gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    suite_opts_parse(p, &c.o, err))
		return -1;
	if (workload_check_launch(suite_div_up(c.n, c.block) * c.block, c.block, err))
		return -1;
	struct vectoradd_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("vectoradd", vectoradd_host, u, free, out, err);
}

static const struct gpuvm_param_range vectoradd_ranges[] = {
	GPUVM_RANGE("n", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	SUITE_COMMON_RANGES,
	SUITE_LAUNCHES_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_vectoradd = {
	.name = "vectoradd",
	.summary = "CUDA samples' vectorAdd: C = A + B over n floats, one thread per element",
	.working_set = "12 B x n",
	.params = vectoradd_params,
	.n_params = sizeof vectoradd_params / sizeof vectoradd_params[0],
	GPUVM_WORKLOAD_RANGES(vectoradd_ranges),
	.constraints = "n rounded up to whole blocks at most 2^32 threads",
	.create = vectoradd_create,
};
