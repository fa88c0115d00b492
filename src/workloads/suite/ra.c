/* ra: HPCC RandomAccess, 4 x table-size XOR updates at random table
 * entries (hpcc RandomAccess/core_single_cpu.c sequence and starts); or,
 * with kind=lookup, the "ra" of GPGPU-Sim UVMSmart's benchmark set, which
 * Ganguly et al. ISCA'19 (seeds/004) measure: sparse random table lookups
 * without reuse. */
#include <stdlib.h>

#include "workloads/glibc_rand.h"

#include "workloads/suite/ra_kernels.h"
#include "workloads/suite/suite.h"

#define RA_PERIOD 1317624576693539401ll

struct ra_cfg {
	uint64_t elems, threads;
	unsigned kind; /* 0 hpcc, 1 lookup */
	uint64_t seed;
	struct suite_opts o;
};

/* HPCC_starts: the n-th value of the sequence, by repeated squaring. */
static uint64_t ra_starts(int64_t n)
{
	uint64_t m2[64], temp = 1, ran = 2;
	while (n < 0)
		n += RA_PERIOD;
	while (n > RA_PERIOD)
		n -= RA_PERIOD;
	if (n == 0)
		return 1;
	for (int i = 0; i < 64; i++) {
		m2[i] = temp;
		temp = (temp << 1) ^ ((int64_t)temp < 0 ? RA_POLY : 0);
		temp = (temp << 1) ^ ((int64_t)temp < 0 ? RA_POLY : 0);
	}
	int i;
	for (i = 62; i >= 0; i--)
		if ((n >> i) & 1)
			break;
	while (i > 0) {
		temp = 0;
		for (int j = 0; j < 64; j++)
			if ((ran >> j) & 1)
				temp ^= m2[j];
		ran = temp;
		i--;
		if ((n >> i) & 1)
			ran = (ran << 1) ^ ((int64_t)ran < 0 ? RA_POLY : 0);
	}
	return ran;
}

/* kind=lookup: UVMSmart's ra/main.cu with N = elems: input holds random
 * floats in [0, 1] (rand() / RAND_MAX, glibc's sequence for srand(seed)),
 * table[i] = i, and every 100th thread of N writes
 * output[frac(in) x N] = table[that] x in. */
static int ra_lookup_host(struct simt_host *h, const struct ra_cfg *c)
{
	unsigned n = (unsigned)c->elems;
	float *input = simt_malloc(h, "input", (uint64_t)n * 4, c->o.mem);
	float *output = simt_malloc(h, "output", (uint64_t)n * 4, c->o.mem);
	float *table = simt_malloc(h, "table", (uint64_t)n * 4, c->o.mem);
	if (!input || !output || !table)
		return -1;
	/* main.cu: input[i] = (float)rand() / (float)RAND_MAX without srand,
	 * so --seed 1 (the default) is the paper's very input */
	struct glibc_rand g;
	glibc_srand(&g, (uint32_t)c->seed);
	for (unsigned i = 0; i < n; i++) {
		input[i] = (float)glibc_rand(&g) / (float)GLIBC_RAND_MAX;
		table[i] = (float)i;
		output[i] = 0;
	}
	if (simt_upload(h, input, (uint64_t)n * 4) || simt_upload(h, table, (uint64_t)n * 4) ||
	    simt_upload(h, output, (uint64_t)n * 4))
		return -1;
	struct ra_lookup_args a = {input, table, output, n, 100};
	if (SIMT_LAUNCH(h, ra_lookup_kernel, simt_dim3(suite_div_up(n, 256), 1, 1),
			simt_dim3(256, 1, 1), a) ||
	    simt_download(h, output, (uint64_t)n * 4))
		return -1;
	int ok = 1;
	uint64_t lookups = 0;
	if (c->o.verify) {
		float *ref = calloc(n, sizeof *ref);
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		/* threads that hit the same index race in the kernel as on the
		 * GPU; in this executor the later thread's store lands last */
		for (unsigned i = 0; i < n; i += 100) {
			unsigned idx = (unsigned)((input[i] - (float)(int)input[i]) * (float)n);
			if (idx >= n)
				idx = n - 1;
			ref[idx] = table[idx] * input[i];
		}
		ok = suite_max_rel_err_f32(output, ref, n) == 0;
		free(ref);
	}
	lookups = (n + 99) / 100;
	suite_result(h, &c->o, suite_digest(output, (uint64_t)n * 4), ok, ok ? 0 : 1, NULL);
	simt_work_items(h, lookups);
	return 0;
}

static int ra_host(struct simt_host *h, void *user)
{
	const struct ra_cfg *c = user;
	if (c->kind == 1)
		return ra_lookup_host(h, c);
	uint64_t n = c->elems, updates = 4 * n, threads = c->threads;
	uint64_t per = updates / threads;
	unsigned long long *table = simt_malloc(h, "table", n * 8, c->o.mem);
	unsigned long long *starts = simt_malloc(h, "starts", threads * 8, c->o.mem);
	if (!table || !starts)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		table[i] = i;
	for (uint64_t t = 0; t < threads; t++)
		starts[t] = ra_starts((int64_t)(t * per));
	if (simt_upload(h, table, n * 8) || simt_upload(h, starts, threads * 8))
		return -1;
	struct ra_args a = {table, starts, n - 1, per, (unsigned)threads};
	if (SIMT_LAUNCH(h, ra_kernel, simt_dim3(suite_div_up(threads, 256), 1, 1),
			simt_dim3(256, 1, 1), a) ||
	    simt_download(h, table, n * 8))
		return -1;
	int ok = 1;
	if (c->o.verify) {
		/* HPCC's check: replay the updates (XOR is its own inverse) and
		 * count entries that do not return to their index. */
		uint64_t ran = 1, bad = 0;
		unsigned long long *ref = malloc(n * 8);
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		for (uint64_t i = 0; i < n; i++)
			ref[i] = table[i];
		ran = 1;
		for (uint64_t u = 0; u < per * threads; u++) {
			ran = (ran << 1) ^ ((int64_t)ran < 0 ? RA_POLY : 0);
			ref[ran & (n - 1)] ^= ran;
		}
		for (uint64_t i = 0; i < n; i++)
			bad += ref[i] != i;
		ok = bad == 0;
		free(ref);
	}
	suite_result(h, &c->o, suite_digest(table, n * 8), ok, ok ? 0 : 1, NULL);
	simt_work_items(h, per * threads);
	return 0;
}

static const struct gpuvm_param_def ra_params[] = {
	{"elems", GPUVM_PARAM_U64, "1048576",
	 "table entries (8 B, power of two); 4 x elems updates; UVMSmart: 2^20"},
	{"threads", GPUVM_PARAM_U64, "65536", "threads, each walking its stretch of the sequence (hpcc)"},
	{"kind", GPUVM_PARAM_CHOICE, "hpcc|lookup",
	 "hpcc: HPCC RandomAccess updates; lookup: UVMSmart's ra benchmark (the one Ganguly et al. "
	 "measure): every 100th of elems threads reads a random 4 B table entry and writes it to a "
	 "random output entry, no reuse; 3 arrays of 4 B x elems"},
	SUITE_COMMON_PARAMS,
};

static int ra_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct ra_cfg c = {.elems = 1u << 20, .threads = 65536, .seed = seed};
	if (gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_choice(p, "kind", "hpcc|lookup", &c.kind, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (c.kind == 1 && c.elems > 1u << 30)
		return gpuvm_params_constraint(err, "elems",
					       "kind=lookup takes at most 2^30 (32-bit indices)");
	if (c.threads > 4 * c.elems)
		c.threads = 4 * c.elems;
	struct ra_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("ra", ra_host, u, free, out, err);
}

static const struct gpuvm_param_range ra_ranges[] = {
	GPUVM_RANGE_POW2("elems", 2, 1ull << 36),
	GPUVM_RANGE("threads", 1, 1u << 30),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_ra = {
	.name = "ra",
	.summary = "HPCC RandomAccess: 4 x elems atomic XOR updates at LFSR-random table entries "
		   "(kind=lookup: UVMSmart's sparse ra lookups)",
	.working_set = "8 B x elems + 8 B x threads (elems=2^30: 8 GiB)",
	.params = ra_params,
	.n_params = sizeof ra_params / sizeof ra_params[0],
	GPUVM_WORKLOAD_RANGES(ra_ranges),
	.constraints = "elems at most 2^30 with kind=lookup",
	.create = ra_create,
};
