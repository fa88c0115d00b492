/* backprop: Rodinia backprop, one training step of an in x 16 x 1
 * network: layerforward on the GPU, the small hidden/output layers on
 * the host, then adjust_weights on the GPU. Allocations follow UVMSmart's
 * port (a second copy input_weights2 is the one adjusted). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/backprop_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

#define BP_HID 16 /* n_hidden, fixed in Rodinia */
#define BP_OUT 1  /* n_out, fixed */

struct bp_cfg {
	uint64_t in, seed;
	struct suite_opts o;
};

static float bp_rand(uint64_t seed, uint64_t i)
{
	return (float)(splitmix64(seed + i) >> 40) / (float)(1 << 24);
}

static float bp_squash(float x)
{
	return (float)(1.0 / (1.0 + exp(-x)));
}

/* Rodinia backprop.c host routines (plain C, float as there). */
static void bp_layerforward(float *l1, float *l2, const float *conn, int n1, int n2)
{
	l1[0] = 1.0f;
	for (int j = 1; j <= n2; j++) {
		float sum = 0.0f;
		for (int k = 0; k <= n1; k++)
			sum += conn[(uint64_t)k * (n2 + 1) + j] * l1[k];
		l2[j] = bp_squash(sum);
	}
}

static void bp_adjust(const float *delta, int ndelta, float *ly, int nly, float *w, float *oldw)
{
	ly[0] = 1.0f;
	for (int j = 1; j <= ndelta; j++)
		for (int k = 0; k <= nly; k++) {
			uint64_t i = (uint64_t)k * (ndelta + 1) + j;
			float new_dw = (float)((BP_ETA * delta[j] * ly[k]) + (BP_MOMENTUM * oldw[i]));
			w[i] += new_dw;
			oldw[i] = new_dw;
		}
}

/* The host part between the kernels: output layer, errors, hidden deltas. */
struct bp_small {
	float hidden[BP_HID + 1], output[BP_OUT + 1], target[BP_OUT + 1];
	float out_delta[BP_OUT + 1], hid_delta[BP_HID + 1];
	float hw[(BP_HID + 1) * (BP_OUT + 1)], hw_prev[(BP_HID + 1) * (BP_OUT + 1)];
};

static void bp_small_init(struct bp_small *s, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < (BP_HID + 1) * (BP_OUT + 1); i++)
		s->hw[i] = bp_rand(seed ^ 0x5bd1e995ull, (uint64_t)i);
	for (int i = 0; i <= BP_OUT; i++)
		s->target[i] = 0.1f; /* bpnn_randomize_row */
}

static void bp_small_step(struct bp_small *s)
{
	bp_layerforward(s->hidden, s->output, s->hw, BP_HID, BP_OUT);
	for (int j = 1; j <= BP_OUT; j++) { /* bpnn_output_error */
		float o = s->output[j], t = s->target[j];
		s->out_delta[j] = (float)(o * (1.0 - o) * (t - o));
	}
	for (int j = 1; j <= BP_HID; j++) { /* bpnn_hidden_error */
		float h = s->hidden[j], sum = 0.0f;
		for (int k = 1; k <= BP_OUT; k++)
			sum += s->out_delta[k] * s->hw[j * (BP_OUT + 1) + k];
		s->hid_delta[j] = (float)(h * (1.0 - h) * sum);
	}
	bp_adjust(s->out_delta, BP_OUT, s->hidden, BP_HID, s->hw, s->hw_prev);
}

static int bp_host(struct simt_host *h, void *user)
{
	const struct bp_cfg *c = user;
	int in = (int)c->in, hid = BP_HID;
	uint64_t nw = (c->in + 1) * (BP_HID + 1), blocks = c->in / BP_HEIGHT;
	uint64_t wbytes = nw * sizeof(float), ubytes = (c->in + 1) * sizeof(float);
	float *units = simt_malloc(h, "input_units", ubytes, c->o.mem);
	float *w = simt_malloc(h, "input_weights", wbytes, c->o.mem);
	float *w2 = simt_malloc(h, "input_weights2", wbytes, c->o.mem);
	float *prev = simt_malloc(h, "input_prev_weights", wbytes, c->o.mem);
	float *out_hidden = simt_malloc(h, "output_hidden", (BP_HID + 1) * sizeof(float), c->o.mem);
	float *partial = simt_malloc(h, "hidden_partial_sum", blocks * BP_WIDTH * sizeof(float),
				     c->o.mem);
	float *hdelta = simt_malloc(h, "hidden_delta", (BP_HID + 1) * sizeof(float), c->o.mem);
	if (!units || !w || !w2 || !prev || !out_hidden || !partial || !hdelta)
		return -1;
	/* bpnn_create + load: weights and inputs rand()/RAND_MAX, a copy
	 * for the adjusted weights, zero previous changes */
	for (uint64_t i = 0; i < nw; i++)
		w[i] = w2[i] = bp_rand(c->seed, i);
	for (uint64_t i = 1; i <= c->in; i++)
		units[i] = bp_rand(c->seed ^ 0x9e3779b97f4a7c15ull, i);
	float *ref = NULL;
	if (c->o.verify) { /* inputs of the reference: units, then weights */
		ref = malloc(ubytes + 2 * wbytes);
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		memcpy(ref, units, ubytes);
		memcpy(ref + c->in + 1, w, wbytes);
		memset(ref + c->in + 1 + nw, 0, wbytes);
	}
	struct bp_forward_args fa = {units, w, partial, in, hid};
	struct simt_dim3 grid = simt_dim3(1, (uint32_t)blocks, 1);
	struct simt_dim3 block = simt_dim3(BP_WIDTH, BP_HEIGHT, 1);
	if (simt_upload(h, units, ubytes) || simt_upload(h, w, wbytes) ||
	    SIMT_LAUNCH_SHARED(h, bpnn_layerforward_CUDA, grid, block, BP_FORWARD_SHARED_BYTES, fa) ||
	    simt_device_sync(h) || /* UVMSmart's managed backprop.cu syncs after each kernel */
	    simt_download(h, partial, blocks * BP_WIDTH * sizeof(float))) {
		free(ref);
		return -1;
	}
	struct bp_small s;
	bp_small_init(&s, c->seed);
	for (int j = 1; j <= hid; j++) { /* finish the hidden sums on the host */
		float sum = 0.0f;
		for (uint64_t k = 0; k < blocks; k++)
			sum += partial[k * hid + j - 1];
		sum += w[j];
		s.hidden[j] = bp_squash(sum);
	}
	bp_small_step(&s);
	memcpy(hdelta, s.hid_delta, sizeof s.hid_delta);
	struct bp_adjust_args aa = {hdelta, units, w2, prev, hid, in};
	if (simt_upload(h, hdelta, sizeof s.hid_delta) || simt_upload(h, prev, wbytes) ||
	    simt_upload(h, w2, wbytes) || SIMT_LAUNCH(h, bpnn_adjust_weights_cuda, grid, block, aa) ||
	    simt_device_sync(h) || simt_download(h, w2, wbytes) || simt_download(h, prev, wbytes)) {
		free(ref);
		return -1;
	}
	double err = 0;
	int ok = 1;
	if (ref) {
		/* (1) layerforward's in-place tree sums, redone block by block in
		 * the kernel's order: exact. */
		float *ru = ref, *rw = ref + c->in + 1, *rprev = rw + nw;
		float hsum[BP_HID + 1] = {0};
		for (uint64_t b = 0; b < blocks; b++)
			for (int col = 0; col < BP_WIDTH; col++) {
				float m[BP_HEIGHT];
				for (int r = 0; r < BP_HEIGHT; r++)
					m[r] = rw[(b * BP_HEIGHT + r + 1) * (BP_HID + 1) + col + 1] *
					       ru[b * BP_HEIGHT + r + 1];
				for (int step = 2; step <= BP_HEIGHT; step *= 2)
					for (int r = 0; r < BP_HEIGHT; r += step)
						m[r] = m[r] + m[r + step / 2];
				if (m[0] != partial[b * BP_WIDTH + col])
					ok = 0;
				for (int r = 0; r < BP_HEIGHT; r++) /* what the levels left in row r */
					if (m[r] != w[(b * BP_HEIGHT + r + 1) * (BP_HID + 1) + col + 1])
						ok = 0;
				hsum[col + 1] += m[0];
			}
		/* (2) Rodinia's CPU training step (bpnn_train: output layer,
		 * errors, bpnn_adjust_weights) on the original weights, the
		 * hidden sums associated as on the GPU (block sums in order, then
		 * the bias): near-saturated hidden units make h * (1 - h) too
		 * sensitive to compare across summation orders. */
		struct bp_small r;
		bp_small_init(&r, c->seed);
		for (int j = 1; j <= hid; j++)
			r.hidden[j] = bp_squash(hsum[j] + rw[j]);
		bp_small_step(&r);
		bp_adjust(r.hid_delta, hid, ru, in, rw, rprev);
		double e1 = suite_max_rel_err_f32(w2, rw, nw), dmax = 0, e2 = 0;
		for (uint64_t i = 0; i < nw; i++) { /* weight changes: relative to the largest */
			double d = fabs((double)prev[i] - rprev[i]);
			e2 = d > e2 || isnan(d) ? d : e2;
			dmax = fabs((double)rprev[i]) > dmax ? fabs((double)rprev[i]) : dmax;
		}
		e2 = dmax > 0 ? e2 / dmax : e2;
		err = e1 > e2 ? e1 : e2;
		if (!(dmax > 0) && c->in <= 64)
			ok = 0; /* small nets must learn something */
		free(ref);
	}
	/* Tolerance 1e-5: the kernel adds the weight change to w in double
	 * where bpnn_adjust_weights first rounds it to float (one ulp of w);
	 * the changes themselves match to the bit here. */
	suite_result(h, &c->o, suite_digest(w2, wbytes), ok && err < 1e-5, err, NULL);
	simt_work_items(h, c->in * BP_HID);
	return 0;
}

static const struct gpuvm_param_def bp_params[] = {
	{"in", GPUVM_PARAM_U64, "131056",
	 "input units, a multiple of 16; UVMSmart: 131056 (CUDA's gridDim.y limit "
	 "caps a real GPU at 1048560)"},
	SUITE_COMMON_PARAMS,
};

static int bp_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct bp_cfg c = {.in = 131056, .seed = seed};
	if (gpuvm_params_u64(p, "in", &c.in, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct bp_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("backprop", bp_host, u, free, out, err);
}

static const struct gpuvm_param_range backprop_ranges[] = {
	GPUVM_RANGE_STEP("in", 16, 1u << 26, BP_HEIGHT),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_backprop = {
	.name = "backprop",
	.summary = "Rodinia backprop: layerforward (shared-memory tree sums) + adjust_weights",
	.working_set = "212 B x in (3 weight arrays of 68 B, units, partial sums; in=131056: "
		       "26.5 MiB; in=40518560: 8 GiB)",
	.params = bp_params,
	.n_params = sizeof bp_params / sizeof bp_params[0],
	GPUVM_WORKLOAD_RANGES(backprop_ranges),
	.create = bp_create,
};
