/* adi: PolyBench/GPU ADI (alternating direction implicit), n x n, tsteps
 * time steps of row sweeps (one thread per row) and column sweeps (one
 * launch per row, a thread per column). */
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/adi_kernels.h"
#include "workloads/suite/suite.h"

struct adi_cfg {
	uint64_t n, tsteps;
	struct suite_opts o;
};

/* PolyBench's sequential adi() (the kernels' statements in loop form). */
static void adi_reference(const float *A, float *B, float *X, uint64_t n, uint64_t tsteps)
{
	for (uint64_t t = 0; t < tsteps; t++) {
		for (uint64_t i1 = 0; i1 < n; i1++)
			for (uint64_t i2 = 1; i2 < n; i2++) {
				X[i1 * n + i2] = X[i1 * n + i2] -
						 X[i1 * n + i2 - 1] * A[i1 * n + i2] / B[i1 * n + i2 - 1];
				B[i1 * n + i2] = B[i1 * n + i2] -
						 A[i1 * n + i2] * A[i1 * n + i2] / B[i1 * n + i2 - 1];
			}
		for (uint64_t i1 = 0; i1 < n; i1++)
			X[i1 * n + n - 1] = X[i1 * n + n - 1] / B[i1 * n + n - 1];
		for (uint64_t i1 = 0; i1 < n; i1++)
			for (uint64_t i2 = 0; i2 + 2 < n; i2++)
				X[i1 * n + n - i2 - 2] = (X[i1 * n + n - 2 - i2] -
							  X[i1 * n + n - 2 - i2 - 1] * A[i1 * n + n - i2 - 3]) /
							 B[i1 * n + n - 3 - i2];
		for (uint64_t i1 = 1; i1 < n; i1++)
			for (uint64_t i2 = 0; i2 < n; i2++) {
				X[i1 * n + i2] = X[i1 * n + i2] -
						 X[(i1 - 1) * n + i2] * A[i1 * n + i2] / B[(i1 - 1) * n + i2];
				B[i1 * n + i2] = B[i1 * n + i2] -
						 A[i1 * n + i2] * A[i1 * n + i2] / B[(i1 - 1) * n + i2];
			}
		for (uint64_t i2 = 0; i2 < n; i2++)
			X[(n - 1) * n + i2] = X[(n - 1) * n + i2] / B[(n - 1) * n + i2];
		for (uint64_t i1 = 0; i1 + 2 < n; i1++)
			for (uint64_t i2 = 0; i2 < n; i2++)
				X[(n - 2 - i1) * n + i2] = (X[(n - 2 - i1) * n + i2] -
							    X[(n - i1 - 3) * n + i2] * A[(n - 3 - i1) * n + i2]) /
							   B[(n - 2 - i1) * n + i2];
	}
}

static int adi_host(struct simt_host *h, void *user)
{
	const struct adi_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *B = simt_malloc(h, "B", bytes, c->o.mem);
	float *X = simt_malloc(h, "X", bytes, c->o.mem);
	if (!A || !B || !X)
		return -1;
	for (uint64_t i = 0; i < n; i++) /* PolyBench init_array */
		for (uint64_t j = 0; j < n; j++) {
			X[i * n + j] = ((float)i * (float)(j + 1) + 1) / (float)n;
			A[i * n + j] = ((float)((int64_t)i - 1) * (float)(j + 4) + 2) / (float)n;
			B[i * n + j] = ((float)(i + 3) * (float)(j + 7) + 3) / (float)n;
		}
	float *rb = NULL;
	if (c->o.verify) {
		rb = malloc(2 * bytes);
		if (!rb)
			return simt_fail(h, "out of memory for the reference");
		memcpy(rb, B, bytes);
		memcpy(rb + n * n, X, bytes);
	}
	int rc = simt_upload(h, A, bytes) || simt_upload(h, B, bytes) || simt_upload(h, X, bytes);
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, ADI_BLOCK), 1, 1);
	struct simt_dim3 block = simt_dim3(ADI_BLOCK, 1, 1);
	int nn = (int)n;
	for (uint64_t t = 0; t < c->tsteps && !rc; t++) {
		struct adi_args a = {A, B, X, nn, 0};
		rc = SIMT_LAUNCH(h, adi_kernel1, grid, block, a) ||
		     SIMT_LAUNCH(h, adi_kernel2, grid, block, a) ||
		     SIMT_LAUNCH(h, adi_kernel3, grid, block, a);
		for (int i1 = 1; i1 < nn && !rc; i1++) {
			a.i1 = i1;
			rc = SIMT_LAUNCH(h, adi_kernel4, grid, block, a);
		}
		rc = rc || SIMT_LAUNCH(h, adi_kernel5, grid, block, a);
		for (int i1 = 0; i1 < nn - 2 && !rc; i1++) {
			a.i1 = i1;
			rc = SIMT_LAUNCH(h, adi_kernel6, grid, block, a);
		}
	}
	if (rc || simt_download(h, B, bytes) || simt_download(h, X, bytes)) {
		free(rb);
		return -1;
	}
	double err = 0;
	if (rb) {
		adi_reference(A, rb, rb + n * n, n, c->tsteps);
		double eb = suite_max_rel_err_f32(B, rb, n * n);
		err = suite_max_rel_err_f32(X, rb + n * n, n * n);
		err = eb > err ? eb : err;
		free(rb);
	}
	/* Each element goes through the same float operations in the same
	 * order as in PolyBench's CPU adi() (bit-identical here); 1e-5
	 * relative (absolute below 1) allows for FMA contraction elsewhere.
	 * PolyBench's own check allows 2.5 %. */
	suite_result(h, &c->o, suite_digest(X, bytes), err < 1e-5, err, NULL);
	simt_work_items(h, n * n * c->tsteps);
	return 0;
}

static const struct gpuvm_param_def adi_params[] = {
	{"n", GPUVM_PARAM_U64, "1024", "array side N (PolyBench/GPU STANDARD_DATASET: 1024)"},
	{"tsteps", GPUVM_PARAM_U64, "1", "time steps (PolyBench/GPU: 1); 2n+1 launches each"},
	SUITE_COMMON_PARAMS,
};

static int adi_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed; /* PolyBench's inputs are deterministic */
	struct adi_cfg c = {.n = 1024, .tsteps = 1};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "tsteps", &c.tsteps, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct adi_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("adi", adi_host, u, free, out, err);
}

static const struct gpuvm_param_range adi_ranges[] = {
	GPUVM_RANGE("n", 3, 1u << 16),
	GPUVM_RANGE("tsteps", 1, 1000),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_adi = {
	.name = "adi",
	.summary = "PolyBench/GPU ADI: row sweeps (thread per row) and per-row column-sweep launches",
	.working_set = "12 B x n^2 (n=1024: 12 MiB; n=26755: 8 GiB)",
	.params = adi_params,
	.n_params = sizeof adi_params / sizeof adi_params[0],
	GPUVM_WORKLOAD_RANGES(adi_ranges),
	.create = adi_create,
};
