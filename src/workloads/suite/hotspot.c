/* hotspot: Rodinia hotspot, transient chip temperature on an n x n grid
 * (pyramid-blocked: `pyramid` time steps per launch, `iters` in all). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/hotspot_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct hs_cfg {
	uint64_t n, pyramid, iters, seed;
	struct suite_opts o;
};

/* Rodinia hotspot.cu chip constants (computed in the same precision). */
struct hs_coef {
	float Cap, Rx, Ry, Rz, step;
};

static struct hs_coef hs_coefficients(uint64_t rows, uint64_t cols)
{
	const float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f;
	const double factor_chip = 0.5, spec_heat_si = 1.75e6, max_pd = 3.0e6, precision = 0.001;
	const int k_si = 100;
	float grid_height = chip_height / (float)rows, grid_width = chip_width / (float)cols;
	struct hs_coef c;
	c.Cap = (float)(factor_chip * spec_heat_si * t_chip * grid_width * grid_height);
	c.Rx = (float)(grid_width / (2.0 * k_si * t_chip * grid_height));
	c.Ry = (float)(grid_height / (2.0 * k_si * t_chip * grid_width));
	c.Rz = t_chip / ((float)k_si * grid_height * grid_width);
	float max_slope = (float)(max_pd / (factor_chip * t_chip * spec_heat_si));
	c.step = (float)(precision / max_slope);
	return c;
}

/* Plain CPU reference: `iters` explicit steps of the same update, the
 * neighbours of edge cells clamped to the cell itself as in the kernel. */
static void hs_reference(float *t, float *tmp, const float *pw, uint64_t n, uint64_t iters,
			 struct hs_coef k)
{
	float sdc = k.step / k.Cap, Rx_1 = 1 / k.Rx, Ry_1 = 1 / k.Ry, Rz_1 = 1 / k.Rz;
	for (uint64_t s = 0; s < iters; s++) {
		for (uint64_t r = 0; r < n; r++)
			for (uint64_t c = 0; c < n; c++) {
				uint64_t N = r ? r - 1 : r, S = r + 1 < n ? r + 1 : r;
				uint64_t W = c ? c - 1 : c, E = c + 1 < n ? c + 1 : c;
				float v = t[r * n + c];
				tmp[r * n + c] =
					(float)(v + sdc * (pw[r * n + c] +
							   (t[S * n + c] + t[N * n + c] - 2.0 * v) * Ry_1 +
							   (t[r * n + E] + t[r * n + W] - 2.0 * v) * Rx_1 +
							   (80.0f - v) * Rz_1));
			}
		memcpy(t, tmp, n * n * sizeof(float));
	}
}

static int hs_host(struct simt_host *h, void *user)
{
	const struct hs_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *temp[2], *power = simt_malloc(h, "power", bytes, c->o.mem);
	temp[0] = simt_malloc(h, "temp0", bytes, c->o.mem);
	temp[1] = simt_malloc(h, "temp1", bytes, c->o.mem);
	if (!power || !temp[0] || !temp[1])
		return -1;
	/* Rodinia reads temp_N / power_N files; these are seeded values in
	 * the same ranges (temperatures ~323-343 K, power < 1 mW a cell). */
	for (uint64_t i = 0; i < n * n; i++) {
		temp[0][i] = 323.0f + 20.0f * (float)(splitmix64(c->seed + 2 * i) >> 40) / (float)(1 << 24);
		power[i] = 1e-3f * (float)(splitmix64(c->seed + 2 * i + 1) >> 40) / (float)(1 << 24);
	}
	float *ref = NULL;
	if (c->o.verify) {
		ref = malloc(3 * bytes); /* result, scratch, initial temperatures */
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		memcpy(ref, temp[0], bytes);
		memcpy(ref + 2 * n * n, temp[0], bytes);
	}
	if (simt_upload(h, temp[0], bytes) || simt_upload(h, power, bytes)) {
		free(ref);
		return -1;
	}
	struct hs_coef k = hs_coefficients(n, n);
	int border = (int)c->pyramid; /* EXPAND_RATE 2: one halo cell per step and side */
	uint64_t small = HS_BLOCK - 2 * c->pyramid;
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, small), suite_div_up(n, small), 1);
	int src = 1, dst = 0;
	for (uint64_t t = 0; t < c->iters; t += c->pyramid) {
		int s = src;
		src = dst;
		dst = s;
		uint64_t left = c->iters - t;
		struct hs_args a = {power, temp[src], temp[dst],
				    (int)(c->pyramid < left ? c->pyramid : left), (int)n, (int)n,
				    border, border, k.Cap, k.Rx, k.Ry, k.Rz, k.step};
		if (SIMT_LAUNCH_SHARED(h, hs_calculate_temp, grid, simt_dim3(HS_BLOCK, HS_BLOCK, 1),
				       HS_SHARED_BYTES, a)) {
			free(ref);
			return -1;
		}
	}
	if (simt_download(h, temp[dst], bytes)) {
		free(ref);
		return -1;
	}
	double err = 0, dmax = 0;
	char extra[48] = "";
	if (ref) {
		hs_reference(ref, ref + n * n, power, n, c->iters, k);
		/* error relative to the largest temperature change: temperatures
		 * sit near 330 K, so a plain relative error would hide errors in
		 * the updates */
		for (uint64_t i = 0; i < n * n; i++) {
			double d = fabs((double)temp[dst][i] - ref[i]);
			double ch = fabs((double)ref[i] - ref[2 * n * n + i]);
			err = d > err || isnan(d) ? d : err;
			dmax = ch > dmax ? ch : dmax;
		}
		err = dmax > 0 ? err / dmax : err;
		free(ref);
		snprintf(extra, sizeof extra, "max_change_K=%.3g", dmax);
	}
	/* Same float/double expression in the same order as the kernel, so
	 * the CPU executor matches to the bit. Tolerance 1e-3 of the largest
	 * change (max_change_K: 13 K at the default size, 0.05-0.4 K in the
	 * tests): an ulp at ~330 K is 3e-5 K, so FMA contraction elsewhere
	 * (an ulp or two per step) stays below it, while a wrong neighbour
	 * or coefficient moves cells by a sizeable part of the change. */
	suite_result(h, &c->o, suite_digest(temp[dst], bytes), err < 1e-3, err,
		     c->o.verify ? extra : NULL);
	simt_work_items(h, n * n * c->iters);
	return 0;
}

static const struct gpuvm_param_def hs_params[] = {
	{"n", GPUVM_PARAM_U64, "1024", "grid side (grid_rows = grid_cols); UVMSmart: 1024"},
	{"pyramid", GPUVM_PARAM_U64, "2", "pyramid height: time steps per launch (1-7); UVMSmart: 2"},
	{"iters", GPUVM_PARAM_U64, "8", "time steps in all (sim_time); UVMSmart: 8"},
	SUITE_COMMON_PARAMS,
};

static int hs_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct hs_cfg c = {.n = 1024, .pyramid = 2, .iters = 8, .seed = seed};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "pyramid", &c.pyramid, err) < 0 ||
	    gpuvm_params_u64(p, "iters", &c.iters, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct hs_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("hotspot", hs_host, u, free, out, err);
}

static const struct gpuvm_param_range hotspot_ranges[] = {
	GPUVM_RANGE("n", 2, 1u << 15),
	GPUVM_RANGE("pyramid", 1, HS_BLOCK / 2 - 1),
	GPUVM_RANGE("iters", 1, 1u << 20),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_hotspot = {
	.name = "hotspot",
	.summary = "Rodinia hotspot: thermal stencil, shared-memory pyramid (temporal blocking) with barriers",
	.working_set = "12 B x n^2 (n=1024: 12 MiB; n=26755: 8 GiB)",
	.params = hs_params,
	.n_params = sizeof hs_params / sizeof hs_params[0],
	GPUVM_WORKLOAD_RANGES(hotspot_ranges),
	.create = hs_create,
};
