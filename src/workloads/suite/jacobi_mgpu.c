/* jacobi-mgpu: a 2D Jacobi stencil (5 points, n x n floats, fixed
 * border) split by blocks of rows over GPUs, the halo rows exchanged by
 * peer copies after every sweep: GPU g sends its first owned row up to
 * g-1's bottom halo and its last down to g+1's top halo
 * (cudaMemcpyPeerAsync; the next sweep on a GPU waits for its halos).
 * The pattern of NVIDIA's multi-GPU Jacobi samples. The result is the
 * digest of the final grid, the same for any gpus= (each point's sum in
 * the same order; verify=1 runs the CPU reference on the whole grid), and
 * sweep_seconds, the simulated span of the sweeps and exchanges alone
 * (uploads done to every GPU done), what the scaling experiment compares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/jacobi_kernels.h"
#include "workloads/suite/mgpu.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct jacobi_cfg {
	uint64_t n, iters, block_x, block_y;
	uint32_t gpus;
	int verify;
};

struct jpart {
	float *buf[2]; /* (rows + 2) x n: halo, rows, halo */
	uint64_t r0, rows;
};

/* The initial grid: a hot left border, the rest varying with the point. */
static float jacobi_init(uint64_t r, uint64_t j, uint64_t n)
{
	if (j == 0)
		return 100.0f;
	return (float)((r * 31 + j * 17) % 64) / 64.0f + (r == 0 || r == n - 1 ? 1.0f : 0.0f);
}

/* The whole grid on the CPU, the kernel's arithmetic in the same order. */
static float *jacobi_reference(uint64_t n, uint64_t iters)
{
	float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
	if (!a || !b) {
		free(a);
		free(b);
		return NULL;
	}
	for (uint64_t r = 0; r < n; r++)
		for (uint64_t j = 0; j < n; j++)
			a[r * n + j] = b[r * n + j] = jacobi_init(r, j, n);
	for (uint64_t it = 0; it < iters; it++) {
		for (uint64_t r = 1; r + 1 < n; r++)
			for (uint64_t j = 1; j + 1 < n; j++) {
				uint64_t k = r * n + j;
				float up = a[k - n], down = a[k + n], left = a[k - 1], right = a[k + 1];
				b[k] = 0.25f * (((up + down) + left) + right);
			}
		float *t = a;
		a = b;
		b = t;
	}
	free(b);
	return a;
}

static int jacobi_host(struct simt_host *h, void *user)
{
	const struct jacobi_cfg *c = user;
	uint64_t n = c->n, row_bytes = n * sizeof(float);
	struct jpart parts[GPUVM_RUN_MAX_DEVICES];
	for (uint32_t g = 0; g < c->gpus; g++) {
		struct jpart *pt = &parts[g];
		mgpu_split(n, c->gpus, g, &pt->r0, &pt->rows);
		uint64_t bytes = (pt->rows + 2) * row_bytes;
		if (simt_set_device(h, g))
			return -1;
		for (int k = 0; k < 2; k++) {
			char name[32];
			snprintf(name, sizeof name, "grid%c%u", k ? 'b' : 'a', g);
			pt->buf[k] = simt_malloc(h, name, bytes, GPUVM_ALLOC_DEVICE);
			if (!pt->buf[k])
				return -1;
		}
		/* owned rows and the halos the neighbours own, as they start */
		for (uint64_t li = 0; li < pt->rows + 2; li++) {
			uint64_t r = pt->r0 + li - 1;
			if ((li == 0 && pt->r0 == 0) || r >= n)
				continue;
			for (uint64_t j = 0; j < n; j++)
				pt->buf[0][li * n + j] = pt->buf[1][li * n + j] = jacobi_init(r, j, n);
		}
		if (simt_upload(h, pt->buf[0], bytes) || simt_upload(h, pt->buf[1], bytes))
			return -1;
	}
	int cur = 0;
	/* the sweeps' span: from the end of the uploads to every GPU done */
	double t0 = simt_now_seconds(h);
	for (uint64_t it = 0; it < c->iters; it++) {
		for (uint32_t g = 0; g < c->gpus; g++) {
			struct jpart *pt = &parts[g];
			struct jacobi_args a = {pt->buf[cur], pt->buf[!cur], (unsigned)pt->rows,
						(unsigned)n, (unsigned)pt->r0, (unsigned)n};
			if (simt_set_device(h, g) ||
			    SIMT_LAUNCH(h, jacobi_kernel,
					simt_dim3(suite_div_up(n, c->block_x),
						  suite_div_up(pt->rows, c->block_y), 1),
					simt_dim3((uint32_t)c->block_x, (uint32_t)c->block_y, 1), a))
				return -1;
		}
		/* halos: each GPU's edge rows of the new grid to its neighbours */
		for (uint32_t g = 0; g < c->gpus; g++) {
			struct jpart *pt = &parts[g];
			float *out = pt->buf[!cur];
			if (g > 0 && simt_memcpy_peer_async(h, parts[g - 1].buf[!cur] +
								   (parts[g - 1].rows + 1) * n,
							    out + n, row_bytes))
				return -1;
			if (g + 1 < c->gpus &&
			    simt_memcpy_peer_async(h, parts[g + 1].buf[!cur], out + pt->rows * n,
						   row_bytes))
				return -1;
		}
		cur = !cur;
	}
	for (uint32_t g = 0; g < c->gpus; g++)
		if (simt_set_device(h, g) || simt_device_sync(h))
			return -1;
	double sweep_seconds = simt_now_seconds(h) - t0;
	uint64_t digest = 14695981039346656037ull;
	float *ref = c->verify ? jacobi_reference(n, c->iters) : NULL;
	if (c->verify && !ref)
		return simt_fail(h, "out of memory for the reference grid");
	double max_err = 0;
	for (uint32_t g = 0; g < c->gpus; g++) {
		struct jpart *pt = &parts[g];
		if (simt_download(h, pt->buf[cur] + n, pt->rows * row_bytes))
			break;
		const unsigned char *b = (const unsigned char *)(pt->buf[cur] + n);
		for (uint64_t i = 0; i < pt->rows * row_bytes; i++) {
			digest ^= b[i];
			digest *= 1099511628211ull;
		}
		if (ref) {
			double e = suite_max_rel_err_f32(pt->buf[cur] + n, ref + pt->r0 * n,
							 pt->rows * n);
			max_err = e > max_err ? e : max_err;
		}
	}
	free(ref);
	struct suite_opts o = {.verify = c->verify};
	char extra[96];
	snprintf(extra, sizeof extra, "gpus=%u sweep_seconds=%.6g", c->gpus, sweep_seconds);
	suite_result(h, &o, digest, max_err == 0, max_err, extra);
	simt_work_items(h, (n - 2) * (n - 2) * c->iters);
	return 0;
}

static const struct gpuvm_param_def jacobi_params[] = {
	{"n", GPUVM_PARAM_U64, "4096", "grid side (n x n floats)"},
	{"iters", GPUVM_PARAM_U64, "10", "Jacobi sweeps, each followed by the halo exchange"},
	{"block_x", GPUVM_PARAM_U64, "32", "threads in x of a block"},
	{"block_y", GPUVM_PARAM_U64, "8", "threads in y of a block"},
	{"verify", GPUVM_PARAM_U64, "0", "1: compare with the CPU reference (exact)"},
	MGPU_GPUS_PARAM,
};

static int jacobi_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct jacobi_cfg c = {.n = 4096, .iters = 10, .block_x = 32, .block_y = 8};
	uint64_t verify = 0;
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "iters", &c.iters, err) < 0 ||
	    gpuvm_params_u64(p, "block_x", &c.block_x, err) < 0 ||
	    gpuvm_params_u64(p, "block_y", &c.block_y, err) < 0 ||
	    gpuvm_params_u64(p, "verify", &verify, err) < 0 || mgpu_gpus(cfg, p, &c.gpus, err))
		return -1;
	if (suite_check_block_2d(c.block_x, c.block_y, err))
		return -1;
	if (c.n < c.gpus)
		return gpuvm_params_constraint(err, "n", "fewer rows (%llu) than GPUs (%u)",
					       (unsigned long long)c.n, c.gpus);
	c.verify = (int)verify;
	struct jacobi_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("jacobi-mgpu", jacobi_host, u, free, out, err);
}

/* Five accesses a point and sweep. */
static int jacobi_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   uint64_t *thread_accesses, struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t n = 4096, iters = 10;
	if (gpuvm_params_u64(p, "n", &n, err) < 0 || gpuvm_params_u64(p, "iters", &iters, err) < 0)
		return -1;
	*thread_accesses = workload_mul_sat(workload_mul_sat(workload_mul_sat(n, n), 5), iters);
	return 0;
}

static const struct gpuvm_param_range jacobi_ranges[] = {
	GPUVM_RANGE("n", 3, 1u << 16),
	GPUVM_RANGE("iters", 1, 100000),
	GPUVM_RANGE("verify", 0, 1),
	GPUVM_RANGE("block_x", 1, 1024),
	GPUVM_RANGE("block_y", 1, 1024),
	MGPU_GPUS_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_jacobi_mgpu = {
	.name = "jacobi-mgpu",
	.summary = "2D Jacobi stencil split by rows over GPUs, halos exchanged by peer copies each sweep",
	.working_set = "8 B x n^2, split",
	.params = jacobi_params,
	.n_params = sizeof jacobi_params / sizeof jacobi_params[0],
	GPUVM_WORKLOAD_RANGES(jacobi_ranges),
	.constraints = "block_x x block_y at most 1024; n at least gpus; gpus at most the "
		       "system's",
	.create = jacobi_create,
	.estimate = jacobi_estimate,
};
