/* scalarprod: the CUDA samples' scalarProd, vectorN dot products of
 * elementN floats in 128 CTAs of 256 threads (scalarprod_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/scalarprod_kernels.h"
#include "workloads/suite/suite.h"

struct scalarprod_cfg {
	uint64_t vectors, elements;
	struct suite_opts o;
};

static int scalarprod_host(struct simt_host *h, void *user)
{
	const struct scalarprod_cfg *c = user;
	uint64_t n = c->vectors * c->elements, bytes = n * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *B = simt_malloc(h, "B", bytes, c->o.mem);
	float *C = simt_malloc(h, "C", c->vectors * sizeof(float), c->o.mem);
	if (!A || !B || !C)
		return -1;
	/* the sample fills both with RandFloat(0, 1); a fixed pattern here */
	for (uint64_t i = 0; i < n; i++) {
		A[i] = (float)(i % 1009) / 1009.0f;
		B[i] = (float)(i % 997) / 997.0f;
	}
	float *ref = c->o.verify ? malloc(c->vectors * sizeof *ref) : NULL;
	if (c->o.verify && !ref)
		return simt_fail(h, "out of memory for the reference");
	if (ref) /* the sample's scalarProdCPU, in double */
		for (uint64_t v = 0; v < c->vectors; v++) {
			double s = 0;
			for (uint64_t e = 0; e < c->elements; e++)
				s += (double)A[v * c->elements + e] * B[v * c->elements + e];
			ref[v] = (float)s;
		}
	struct scalarprod_args a = {A, B, C, (int)c->vectors, (int)c->elements};
	int rc = simt_upload(h, A, bytes) || simt_upload(h, B, bytes) ||
		 SIMT_LAUNCH_SHARED(h, scalarprod_kernel, simt_dim3(128, 1, 1), simt_dim3(256, 1, 1),
				    SCALARPROD_ACCUM_N * sizeof(float), a) ||
		 simt_download(h, C, c->vectors * sizeof(float));
	if (!rc) {
		/* the sample accepts an L1 error of 1e-6 against its double
		 * CPU sums; per vector here, relative */
		double err = ref ? suite_max_rel_err_f32(C, ref, c->vectors) : 0;
		suite_result(h, &c->o, suite_digest(C, c->vectors * sizeof(float)), err < 1e-5, err,
			     NULL);
		simt_work_items(h, n);
	}
	free(ref);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def scalarprod_params[] = {
	{"vectors", GPUVM_PARAM_U64, "256", "vector pairs (the sample's VECTOR_N: 256)"},
	{"elements", GPUVM_PARAM_U64, "4096", "floats per vector (the sample's ELEMENT_N: 4096)"},
	SUITE_COMMON_PARAMS,
};

static int scalarprod_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			     uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct scalarprod_cfg c = {.vectors = 256, .elements = 4096};
	if (gpuvm_params_u64(p, "vectors", &c.vectors, err) < 0 ||
	    gpuvm_params_u64(p, "elements", &c.elements, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (c.vectors * c.elements > (1ull << 31))
		return gpuvm_fail(err, "--workload", 0, "elements",
				  "vectors x elements must stay below 2^31 (the kernel's int indices)");
	struct scalarprod_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("scalarprod", scalarprod_host, u, free, out, err);
}

static const struct gpuvm_param_range scalarprod_ranges[] = {
	GPUVM_RANGE("vectors", 1, 1u << 20),
	GPUVM_RANGE("elements", 1, 1u << 24),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_scalarprod = {
	.name = "scalarprod",
	.summary = "CUDA samples' scalarProd: vector-pair dot products, 1024 shared accumulators per CTA",
	.working_set = "8 B x vectors x elements + 4 B x vectors",
	.params = scalarprod_params,
	.n_params = sizeof scalarprod_params / sizeof scalarprod_params[0],
	GPUVM_WORKLOAD_RANGES(scalarprod_ranges),
	.create = scalarprod_create,
};
