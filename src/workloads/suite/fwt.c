/* fwt: the CUDA samples' fastWalshTransform, a dyadic convolution of
 * 2^log2data floats with a kernel of 2^log2kernel (zero-padded to the
 * data's length) by three fast Walsh-Hadamard transforms and a
 * modulation, launched as the sample's fwtBatchGPU and modulateGPU do. */
#include <math.h>
#include <stdlib.h>

#include "workloads/suite/fwt_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct fwt_cfg {
	uint64_t log2data, log2kernel, seed;
	struct suite_opts o;
};

/* fwtBatchGPU(d, 1, log2n): global radix-4 passes down to 2^11, then one
 * block per segment in shared memory. The passes' grid is the one the
 * sample computes once, before its loop. */
static int fwt_gpu(struct simt_host *h, float *d, int log2n)
{
	int n = 1 << log2n, m = 1;
	struct simt_dim3 grid = simt_dim3((uint32_t)((1u << log2n) / (4 * FWT_THREADS)), 1, 1);
	for (; log2n > FWT_ELEMENTARY_LOG2SIZE; log2n -= 2, n >>= 2, m <<= 2) {
		struct fwt_args a = {d, d, 0, n / 4};
		if (SIMT_LAUNCH(h, fwt_batch2_kernel, grid, simt_dim3(FWT_THREADS, 1, 1), a))
			return -1;
	}
	struct fwt_args a = {d, d, log2n, 0};
	return SIMT_LAUNCH_SHARED(h, fwt_batch1_kernel, simt_dim3((uint32_t)m, 1, 1),
				  simt_dim3((uint32_t)(n / 4), 1, 1), (size_t)n * sizeof(float), a);
}

/* The reference: the same three transforms on the CPU in double (the
 * sample's dyadicConvolutionCPU is O(N K): 2^34 operations at its
 * largest listed size). */
static void fwt_cpu(double *x, uint64_t n)
{
	for (uint64_t h = 1; h < n; h <<= 1)
		for (uint64_t i = 0; i < n; i += 2 * h)
			for (uint64_t j = i; j < i + h; j++) {
				double a = x[j], b = x[j + h];
				x[j] = a + b;
				x[j + h] = a - b;
			}
}

static int fwt_host(struct simt_host *h, void *user)
{
	const struct fwt_cfg *c = user;
	uint64_t n = 1ull << c->log2data, k = 1ull << c->log2kernel, bytes = n * sizeof(float);
	float *data = simt_malloc(h, "d_Data", bytes, c->o.mem);
	float *kern = simt_malloc(h, "d_Kernel", bytes, c->o.mem);
	if (!data || !kern)
		return -1;
	/* the sample: rand() / RAND_MAX for the kernel's k values and the
	 * data, d_Kernel zeroed past them */
	for (uint64_t i = 0; i < n; i++) {
		data[i] = (float)(splitmix64(c->seed + i) >> 40) / (float)(1 << 24);
		kern[i] = i < k ? (float)(splitmix64(c->seed + n + i) >> 40) / (float)(1 << 24) : 0;
	}
	double *ref = NULL;
	if (c->o.verify) {
		ref = malloc(2 * n * sizeof *ref);
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		for (uint64_t i = 0; i < n; i++) {
			ref[i] = data[i];
			ref[n + i] = kern[i];
		}
		fwt_cpu(ref, n);
		fwt_cpu(ref + n, n);
		for (uint64_t i = 0; i < n; i++)
			ref[i] *= ref[n + i] / (double)n;
		fwt_cpu(ref, n);
	}
	struct fwt_modulate_args m = {data, kern, (int)n};
	int rc = simt_upload(h, kern, bytes) || simt_upload(h, data, bytes) ||
		 fwt_gpu(h, data, (int)c->log2data) || fwt_gpu(h, kern, (int)c->log2data) ||
		 SIMT_LAUNCH(h, fwt_modulate_kernel, simt_dim3(128, 1, 1), simt_dim3(256, 1, 1), m) ||
		 fwt_gpu(h, data, (int)c->log2data) || simt_download(h, data, bytes);
	if (!rc) {
		/* the sample's test: the L2 norm of the difference over the
		 * reference's below 1e-6 (here against double transforms) */
		double d2 = 0, r2 = 0;
		if (ref)
			for (uint64_t i = 0; i < n; i++) {
				double d = ref[i] - data[i];
				d2 += d * d;
				r2 += ref[i] * ref[i];
			}
		double l2 = ref && r2 > 0 ? sqrt(d2 / r2) : 0;
		suite_result(h, &c->o, suite_digest(data, bytes), l2 < 1e-6, l2, NULL);
		simt_work_items(h, n);
	}
	free(ref);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def fwt_params[] = {
	{"log2data", GPUVM_PARAM_U64, "23", "log2 of the data's length (the sample's log2Data: 23)"},
	{"log2kernel", GPUVM_PARAM_U64, "7",
	 "log2 of the kernel's length, at most log2data (the sample's log2Kernel: 7; the GPU "
	 "transforms the padded kernel, so only the data's length sets the work)"},
	SUITE_COMMON_PARAMS,
};

static int fwt_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct fwt_cfg c = {.log2data = 23, .log2kernel = 7, .seed = seed};
	if (gpuvm_params_u64(p, "log2data", &c.log2data, err) < 0 ||
	    gpuvm_params_u64(p, "log2kernel", &c.log2kernel, err) < 0 ||
	    suite_opts_parse(p, &c.o, err))
		return -1;
	if (c.log2kernel > c.log2data)
		return gpuvm_params_constraint(err, "log2kernel", "at most log2data (%llu)",
					       (unsigned long long)c.log2data);
	struct fwt_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("fwt", fwt_host, u, free, out, err);
}

static const struct gpuvm_param_range fwt_ranges[] = {
	/* below 2^10 the passes' grid is empty (the sample's too) */
	GPUVM_RANGE("log2data", 10, 30),
	GPUVM_RANGE("log2kernel", 0, 30),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_fwt = {
	.name = "fwt",
	.summary = "CUDA samples' fastWalshTransform: dyadic convolution by three fast Walsh-Hadamard "
		   "transforms (global radix-4 passes, shared-memory blocks) and a modulation",
	.working_set = "8 B x 2^log2data",
	.params = fwt_params,
	.n_params = sizeof fwt_params / sizeof fwt_params[0],
	GPUVM_WORKLOAD_RANGES(fwt_ranges),
	.constraints = "log2kernel at most log2data",
	.create = fwt_create,
};
