/* lud: Rodinia lud, blocked in-place LU decomposition of an n x n matrix
 * (Rodinia's generated matrix: a[i][j] = 10 exp(-0.001 |i - j|)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/lud_kernels.h"
#include "workloads/suite/suite.h"

struct lud_cfg {
	uint64_t n;
	struct suite_opts o;
};

/* Plain CPU LU without pivoting (Doolittle, unit lower L stored below the
 * diagonal, U on and above), in double. */
static void lud_reference(double *a, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		for (uint64_t i = k + 1; i < n; i++) {
			double l = a[i * n + k] /= a[k * n + k];
			for (uint64_t j = k + 1; j < n; j++)
				a[i * n + j] -= l * a[k * n + j];
		}
}

static int lud_host(struct simt_host *h, void *user)
{
	const struct lud_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *m = simt_malloc(h, "m", bytes, c->o.mem);
	float *coe = malloc((2 * n - 1) * sizeof(float));
	if (!m || !coe) {
		free(coe);
		return m ? simt_fail(h, "out of memory") : -1;
	}
	/* Rodinia common.c create_matrix (a symmetric Toeplitz matrix; in
	 * float, as there) */
	const float lamda = -0.001f;
	for (uint64_t i = 0; i < n; i++) {
		float coe_i = (float)(10 * exp(lamda * (float)i));
		coe[n - 1 + i] = coe_i;
		coe[n - 1 - i] = coe_i;
	}
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			m[i * n + j] = coe[n - 1 - i + j];
	free(coe);
	double *ref = NULL;
	if (c->o.verify) {
		ref = malloc(n * n * sizeof(double));
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		for (uint64_t i = 0; i < n * n; i++)
			ref[i] = m[i];
	}
	if (simt_upload(h, m, bytes)) {
		free(ref);
		return -1;
	}
	int dim = (int)n, i = 0;
	int rc = 0;
	for (i = 0; i < dim - LUD_BLOCK && !rc; i += LUD_BLOCK) {
		struct lud_args a = {m, dim, i};
		uint32_t nb = (uint32_t)((dim - i) / LUD_BLOCK - 1);
		rc = SIMT_LAUNCH_SHARED(h, lud_diagonal, simt_dim3(1, 1, 1), simt_dim3(LUD_BLOCK, 1, 1),
					LUD_TILE_BYTES, a) ||
		     SIMT_LAUNCH_SHARED(h, lud_perimeter, simt_dim3(nb, 1, 1),
					simt_dim3(2 * LUD_BLOCK, 1, 1), 3 * LUD_TILE_BYTES, a) ||
		     SIMT_LAUNCH_SHARED(h, lud_internal, simt_dim3(nb, nb, 1),
					simt_dim3(LUD_BLOCK, LUD_BLOCK, 1), 2 * LUD_TILE_BYTES, a);
	}
	struct lud_args last = {m, dim, i};
	if (rc || SIMT_LAUNCH_SHARED(h, lud_diagonal, simt_dim3(1, 1, 1), simt_dim3(LUD_BLOCK, 1, 1),
					  LUD_TILE_BYTES, last) ||
	    simt_download(h, m, bytes)) {
		free(ref);
		return -1;
	}
	double err = 0, berr = 0;
	char extra[64] = "";
	if (ref) {
		/* backward error: max |(L U)_ij - A_ij| / max |A| (A is ref before
		 * factoring; max |A| = 10 on the diagonal) */
		for (uint64_t r = 0; r < n; r++)
			for (uint64_t col = 0; col < n; col++) {
				double sum = 0;
				uint64_t kmax = r < col ? r : col;
				for (uint64_t k = 0; k <= kmax; k++)
					sum += (k == r ? 1.0 : (double)m[r * n + k]) * (double)m[k * n + col];
				double d = fabs(sum - ref[r * n + col]);
				berr = d > berr || isnan(d) ? d : berr;
			}
		berr /= 10.0;
		lud_reference(ref, n);
		for (uint64_t k = 0; k < n * n; k++) {
			double d = fabs((double)m[k] - ref[k]), s = fabs(ref[k]);
			d /= s > 1 ? s : 1;
			err = d > err || isnan(d) ? d : err;
		}
		free(ref);
		snprintf(extra, sizeof extra, "backward_err=%.3g", berr);
	}
	/* Two checks. (1) Against a plain double LU: 1e-2 relative (absolute
	 * below 1). The factors are float and each pivot, about
	 * 10 (1 - e^-0.002) = 0.02, is a difference of numbers near 10, so
	 * float rounding of 10-sized values (~1e-6) divided by the pivot shows
	 * as ~5e-4 in L (measured 2.5e-4 at n=32 up to 4.2e-4 at n=512).
	 * (2) The backward error max |L U - A| / max |A| must be below 1e-5
	 * (measured 3.3e-7 at n=32 to 4.4e-7 at n=1024). */
	suite_result(h, &c->o, suite_digest(m, bytes), err < 1e-2 && berr < 1e-5, err,
		     c->o.verify ? extra : NULL);
	simt_work_items(h, n * n);
	return 0;
}

static const struct gpuvm_param_def lud_params[] = {
	{"n", GPUVM_PARAM_U64, "256", "matrix side, a multiple of 16 (>= 32); Rodinia run: -s 256"},
	SUITE_COMMON_PARAMS,
};

static int lud_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed; /* the input matrix is deterministic, as in Rodinia */
	struct lud_cfg c = {.n = 256};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct lud_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("lud", lud_host, u, free, out, err);
}

static const struct gpuvm_param_range lud_ranges[] = {
	GPUVM_RANGE_STEP("n", 32, 1u << 16, LUD_BLOCK),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_lud = {
	.name = "lud",
	.summary = "Rodinia lud: blocked LU (diagonal, perimeter, internal kernels per 16 columns)",
	.working_set = "4 B x n^2 (n=256: 256 KiB; n=46352: 8 GiB)",
	.params = lud_params,
	.n_params = sizeof lud_params / sizeof lud_params[0],
	GPUVM_WORKLOAD_RANGES(lud_ranges),
	.create = lud_create,
};
