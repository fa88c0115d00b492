/* srad: Rodinia srad_v2, speckle-reducing anisotropic diffusion of a
 * rows x cols image; per iteration the host takes the speckle region's
 * statistics (q0sqr) and launches srad_cuda_1 and srad_cuda_2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/srad_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct srad_cfg {
	uint64_t rows, cols, iters, roi, seed;
	double lambda;
	struct suite_opts o;
};

/* q0sqr over the speckle region [0, roi) x [0, roi), in float as Rodinia. */
static float srad_q0sqr(const float *J, uint64_t cols, uint64_t r2, uint64_t c2)
{
	float sum = 0, sum2 = 0;
	for (uint64_t i = 0; i < r2; i++)
		for (uint64_t j = 0; j < c2; j++) {
			float tmp = J[i * cols + j];
			sum += tmp;
			sum2 += tmp * tmp;
		}
	float size_r = (float)(r2 * c2);
	float mean = sum / size_r, var = (sum2 / size_r) - mean * mean;
	return var / (mean * mean);
}

/* Plain CPU srad (Rodinia's sequential srad: clamped neighbour indices). */
static void srad_reference(float *J, float *buf, uint64_t rows, uint64_t cols, float q0sqr,
			   float lambda)
{
	uint64_t sz = rows * cols;
	float *dN = buf, *dS = buf + sz, *dW = buf + 2 * sz, *dE = buf + 3 * sz, *C = buf + 4 * sz;
	for (uint64_t i = 0; i < rows; i++)
		for (uint64_t j = 0; j < cols; j++) {
			uint64_t k = i * cols + j;
			uint64_t iN = i ? i - 1 : 0, iS = i + 1 < rows ? i + 1 : i;
			uint64_t jW = j ? j - 1 : 0, jE = j + 1 < cols ? j + 1 : j;
			float Jc = J[k];
			dN[k] = J[iN * cols + j] - Jc;
			dS[k] = J[iS * cols + j] - Jc;
			dW[k] = J[i * cols + jW] - Jc;
			dE[k] = J[i * cols + jE] - Jc;
			float G2 = (dN[k] * dN[k] + dS[k] * dS[k] + dW[k] * dW[k] + dE[k] * dE[k]) /
				   (Jc * Jc);
			float L = (dN[k] + dS[k] + dW[k] + dE[k]) / Jc;
			float num = (float)((0.5 * G2) - ((1.0 / 16.0) * (L * L)));
			float den = (float)(1 + (.25 * L));
			float qsqr = num / (den * den);
			den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
			float c = (float)(1.0 / (1.0 + den));
			C[k] = c < 0 ? 0 : (c > 1 ? 1 : c);
		}
	for (uint64_t i = 0; i < rows; i++)
		for (uint64_t j = 0; j < cols; j++) {
			uint64_t k = i * cols + j;
			uint64_t iS = i + 1 < rows ? i + 1 : i, jE = j + 1 < cols ? j + 1 : j;
			float cN = C[k], cS = C[iS * cols + j], cW = C[k], cE = C[i * cols + jE];
			float D = cN * dN[k] + cS * dS[k] + cW * dW[k] + cE * dE[k];
			J[k] = (float)(J[k] + 0.25 * lambda * D);
		}
}

static int srad_host(struct simt_host *h, void *user)
{
	const struct srad_cfg *c = user;
	uint64_t rows = c->rows, cols = c->cols, bytes = rows * cols * sizeof(float);
	float *J = simt_malloc(h, "J", bytes, c->o.mem);
	float *C = simt_malloc(h, "C", bytes, c->o.mem);
	float *E = simt_malloc(h, "E_C", bytes, c->o.mem);
	float *W = simt_malloc(h, "W_C", bytes, c->o.mem);
	float *S = simt_malloc(h, "S_C", bytes, c->o.mem);
	float *N = simt_malloc(h, "N_C", bytes, c->o.mem);
	if (!J || !C || !E || !W || !S || !N)
		return -1;
	/* Rodinia: I = rand()/RAND_MAX, J = exp(I) */
	for (uint64_t k = 0; k < rows * cols; k++)
		J[k] = (float)exp((double)(splitmix64(c->seed + k) >> 40) / (double)(1 << 24));
	float *ref = NULL, *buf = NULL;
	if (c->o.verify) {
		ref = malloc(bytes);
		buf = malloc(5 * bytes);
		if (!ref || !buf) {
			free(ref);
			free(buf);
			return simt_fail(h, "out of memory for the reference");
		}
		memcpy(ref, J, bytes);
	}
	uint64_t r2 = c->roi < rows ? c->roi : rows, c2 = c->roi < cols ? c->roi : cols;
	struct simt_dim3 grid = simt_dim3((uint32_t)(cols / SRAD_BLOCK), (uint32_t)(rows / SRAD_BLOCK), 1);
	struct simt_dim3 block = simt_dim3(SRAD_BLOCK, SRAD_BLOCK, 1);
	int rc = 0;
	for (uint64_t it = 0; it < c->iters && !rc; it++) {
		float q0sqr = srad_q0sqr(J, cols, r2, c2);
		struct srad_args a = {E, W, N, S, J, C, (int)cols, (int)rows, (float)c->lambda, q0sqr};
		/* Rodinia srad_v2 copies J in and out around every iteration;
		 * UVMSmart's managed srad (benchmarks/Managed/srad_v2/srad.cu)
		 * calls cudaDeviceSynchronize there instead */
		rc = simt_upload(h, J, bytes) || SIMT_LAUNCH_SHARED(h, srad_cuda_1, grid, block, SRAD_1_SHARED_BYTES, a) ||
		     SIMT_LAUNCH_SHARED(h, srad_cuda_2, grid, block, SRAD_2_SHARED_BYTES, a) ||
		     simt_device_sync(h) || simt_download(h, J, bytes);
		if (ref && !rc)
			srad_reference(ref, buf, rows, cols, srad_q0sqr(ref, cols, r2, c2),
				       (float)c->lambda);
	}
	free(buf);
	if (rc) {
		free(ref);
		return -1;
	}
	double err = 0;
	if (ref) {
		err = suite_max_rel_err_f32(J, ref, rows * cols);
		free(ref);
	}
	/* The reference spells out the kernels' float/double expressions in
	 * the same order (bit-identical here); 1e-5 relative allows for FMA
	 * contraction by another compiler over a few iterations. */
	suite_result(h, &c->o, suite_digest(J, bytes), err < 1e-5, err, NULL);
	simt_work_items(h, rows * cols * c->iters);
	return 0;
}

static const struct gpuvm_param_def srad_params[] = {
	{"rows", GPUVM_PARAM_U64, "1024", "image rows, a multiple of 16 (>= 32); UVMSmart: 1024"},
	{"cols", GPUVM_PARAM_U64, "1024", "image columns, a multiple of 16 (>= 32); UVMSmart: 1024"},
	{"iters", GPUVM_PARAM_U64, "2", "iterations (niter); UVMSmart run script: 2"},
	{"roi", GPUVM_PARAM_U64, "128", "speckle region side: rows/cols 0..roi-1 (run script: 0 127)"},
	{"lambda", GPUVM_PARAM_DOUBLE, "0.5", "diffusion rate lambda in (0, 1); run script: 0.5"},
	SUITE_COMMON_PARAMS,
};

static int srad_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		       struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct srad_cfg c = {.rows = 1024, .cols = 1024, .iters = 2, .roi = 128, .lambda = 0.5,
			     .seed = seed};
	if (gpuvm_params_u64(p, "rows", &c.rows, err) < 0 ||
	    gpuvm_params_u64(p, "cols", &c.cols, err) < 0 ||
	    gpuvm_params_u64(p, "iters", &c.iters, err) < 0 ||
	    gpuvm_params_u64(p, "roi", &c.roi, err) < 0 ||
	    gpuvm_params_double(p, "lambda", &c.lambda, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (c.rows * c.cols > (1ull << 29))
		return gpuvm_params_constraint(err, "rows", "rows x cols at most 2^29");
	/* the table's range is closed: the ends are refused here */
	if (!(c.lambda > 0 && c.lambda < 1))
		return gpuvm_params_constraint(err, "lambda", "strictly between 0 and 1");
	struct srad_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("srad", srad_host, u, free, out, err);
}

static const struct gpuvm_param_range srad_ranges[] = {
	/* Rodinia requires multiples of 16 (one tile per thread block); the
	 * kernels' edge handling needs two tiles each way */
	GPUVM_RANGE_STEP("rows", 32, 1u << 16, SRAD_BLOCK),
	GPUVM_RANGE_STEP("cols", 32, 1u << 16, SRAD_BLOCK),
	GPUVM_RANGE("lambda", 0, 1),
	GPUVM_RANGE("iters", 1, 1u << 20),
	GPUVM_RANGE("roi", 1, 1u << 16),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_srad = {
	.name = "srad",
	.summary = "Rodinia srad_v2: anisotropic diffusion, 2 shared-memory tiled kernels per iteration",
	.working_set = "24 B x rows x cols (1024^2: 24 MiB; 18928^2: 8 GiB)",
	.params = srad_params,
	.n_params = sizeof srad_params / sizeof srad_params[0],
	GPUVM_WORKLOAD_RANGES(srad_ranges),
	.constraints = "rows x cols at most 2^29; lambda strictly between 0 and 1",
	.create = srad_create,
};
