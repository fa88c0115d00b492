/* cpu-gpu-phases: iterations of a GPU kernel updating an array, each
 * followed by a CPU phase touching a part of it, as a CUDA program with
 * cudaMallocManaged data does between kernels (issue 78: "CPU phases that
 * touch shared data between kernels"). The kernel relaxes x toward 2y
 * (x = x/2 + y); the CPU phase then reads the first `touch` percent of x
 * (cpu=read: a reduction whose sums are part of the result) or updates
 * it (cpu=write: x += 1 there, a host-side source term). At the end the
 * CPU reads all of x (the checksum).
 *
 * With mem=managed the CPU phases are CPU accesses to managed memory
 * (simt_host_access): the touched pages the GPU holds fault back to the
 * CPU and the next kernel far-faults them again, so far faults and paging
 * bytes grow with touch; advise=1 marks x read-mostly
 * (cudaMemAdviseSetReadMostly) first, and a CPU *read* then duplicates
 * the pages instead of taking them from the GPU; prefetch=1 sends the
 * touched part back to the GPU after each CPU phase with
 * cudaMemPrefetchAsync (simt_prefetch), as a tuned program does, so the
 * next kernel finds it resident instead of far-faulting it. Both apply
 * to managed memory only (refused otherwise). With mem=device the
 * program copies the touched part down (and, cpu=write, up again), as a
 * program without unified memory must; with mem=pinned the CPU reads its
 * own memory. verify=1 replays the same arithmetic on plain arrays.
 *
 * On a system of several GPUs (gpuvm sim --system) gpus=2 or more (0:
 * every GPU, as the -mgpu workloads read it; 1 by default) runs kernel k
 * on GPU k mod gpus: each kernel far-faults the pages the CPU phase and
 * the previous GPU left elsewhere, and the CPU phase takes them from
 * whichever GPU holds them; prefetch=1 sends the touched part to the next
 * kernel's GPU. mem=device is refused there (x and y live on GPU 0). */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/cpu_gpu_phases_kernels.h"
#include "workloads/suite/mgpu.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct phases_cfg {
	uint64_t elems, iters, touch_pct, threads, block;
	bool cpu_write, advise, prefetch;
	uint32_t gpus; /* kernel k on GPU k mod gpus */
	struct suite_opts o;
};

/* The CPU's touch of x[0, m) (bytes of it) as the allocation kind asks,
 * before its loop (done false) and after it (done true): managed or
 * system memory is touched in place, device memory is copied down before
 * and, written, up after. */
static int cpu_touch(struct simt_host *h, const struct phases_cfg *c, double *x, uint64_t bytes,
		     bool write, bool done)
{
	if (c->o.mem == GPUVM_ALLOC_MANAGED || c->o.mem == GPUVM_ALLOC_SYSTEM)
		return done ? 0 /* touched in place: nothing to copy back */
			    : simt_host_access(h, x, bytes, write ? SIMT_HOST_READ | SIMT_HOST_WRITE
								  : SIMT_HOST_READ);
	if (c->o.mem != GPUVM_ALLOC_DEVICE)
		return 0;
	return done ? simt_upload(h, x, bytes) : simt_download(h, x, bytes);
}

/* The plain reference of the whole program: the final x's sum and the
 * CPU phases' sums. */
static void reference(const struct phases_cfg *c, uint64_t m, double *out_sum, double *out_phase)
{
	double *x = malloc(c->elems * sizeof *x);
	*out_sum = *out_phase = -1;
	if (!x)
		return;
	for (uint64_t i = 0; i < c->elems; i++)
		x[i] = (double)(i & 1023);
	double phase = 0, sum = 0;
	for (uint64_t k = 0; k < c->iters; k++) {
		for (uint64_t i = 0; i < c->elems; i++)
			x[i] = x[i] * 0.5 + (double)((i >> 3) & 255);
		for (uint64_t i = 0; i < m; i++) {
			if (c->cpu_write)
				x[i] += 1.0;
			else
				phase += x[i];
		}
	}
	for (uint64_t i = 0; i < c->elems; i++)
		sum += x[i];
	*out_sum = sum;
	*out_phase = phase;
	free(x);
}

static int phases_host(struct simt_host *h, void *user)
{
	const struct phases_cfg *c = user;
	uint64_t n = c->elems, bytes = n * sizeof(double);
	uint64_t m = (n * c->touch_pct + 99) / 100; /* the CPU's part, rounded up */
	double *x = simt_malloc(h, "x", bytes, c->o.mem);
	double *y = simt_malloc(h, "y", bytes, c->o.mem);
	if (!x || !y)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		x[i] = (double)(i & 1023);
		y[i] = (double)((i >> 3) & 255);
	}
	if (simt_upload(h, x, bytes) || simt_upload(h, y, bytes))
		return -1;
	if (c->advise && simt_mem_advise(h, x, bytes, SIMT_ADVISE_READ_MOSTLY, 0))
		return -1;
	struct phases_args args = {x, y, n};
	struct simt_dim3 grid = simt_dim3(suite_div_up(c->threads, c->block), 1, 1);
	double phase = 0;
	for (uint64_t k = 0; k < c->iters; k++) {
		/* one GPU: no device calls at all, the run as it always was */
		if (c->gpus > 1 && simt_set_device(h, (uint32_t)(k % c->gpus)))
			return -1;
		if (SIMT_LAUNCH(h, phases_kernel, grid, simt_dim3((uint32_t)c->block, 1, 1), args))
			return -1;
		if (!m)
			continue;
		if (cpu_touch(h, c, x, m * sizeof(double), c->cpu_write, false))
			return -1;
		for (uint64_t i = 0; i < m; i++) {
			if (c->cpu_write)
				x[i] += 1.0;
			else
				phase += x[i];
		}
		if (c->cpu_write && cpu_touch(h, c, x, m * sizeof(double), true, true))
			return -1;
		if (c->prefetch && k + 1 < c->iters &&
		    simt_prefetch(h, x, m * sizeof(double), (int)((k + 1) % c->gpus)))
			return -1;
	}
	if (cpu_touch(h, c, x, bytes, false, false)) /* the final read of the result */
		return -1;
	double sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += x[i];
	char v[64] = "";
	if (c->o.verify) {
		double rs, rp;
		reference(c, m, &rs, &rp);
		snprintf(v, sizeof v, " verify=%s", rs == sum && rp == phase ? "pass" : "FAIL");
	}
	simt_result(h, "checksum=%.17g phase_sum=%.17g touched=%llu%s", sum, phase,
		    (unsigned long long)m, v);
	simt_work_items(h, n * c->iters);
	return 0;
}

static const struct gpuvm_param_def phases_params[] = {
	{"elems", GPUVM_PARAM_U64, "4194304", "elements of x and y (doubles); working set 16 B each"},
	{"iters", GPUVM_PARAM_U64, "4", "GPU kernels, each followed by a CPU phase"},
	{"touch", GPUVM_PARAM_U64, "25", "percent of x (its start) each CPU phase touches"},
	{"cpu", GPUVM_PARAM_CHOICE, "write|read",
	 "the CPU phase: write (x += 1 on its part, a host update) or read (a reduction)"},
	{"advise", GPUVM_PARAM_U64, "0",
	 "1: cudaMemAdviseSetReadMostly on x first (mem=managed): a CPU read duplicates"},
	{"prefetch", GPUVM_PARAM_U64, "0",
	 "1: cudaMemPrefetchAsync of the touched part back to the GPU after each CPU phase "
	 "(mem=managed)"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads (grid-stride); default fills every warp slot"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	/* 1 by default, unlike the -mgpu workloads: the workload's runs on a
	 * system stay what they were, and its default mem=device is one GPU's */
	{"gpus", GPUVM_PARAM_U64, "1",
	 "GPUs whose kernels take turns (kernel k on GPU k mod gpus; managed or pinned memory); "
	 "0: every GPU of the system (--system)"},
	SUITE_COMMON_PARAMS,
};

static int phases_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct phases_cfg c = {.elems = 4194304, .iters = 4, .touch_pct = 25,
			       .threads = fill_gpu_threads(cfg), .block = 256, .cpu_write = true};
	uint64_t advise = 0, prefetch = 0, gpus = 1;
	unsigned cpu = 0;
	if (gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_u64(p, "iters", &c.iters, err) < 0 ||
	    gpuvm_params_u64(p, "touch", &c.touch_pct, err) < 0 ||
	    gpuvm_params_u64(p, "advise", &advise, err) < 0 ||
	    gpuvm_params_u64(p, "prefetch", &prefetch, err) < 0 ||
	    gpuvm_params_choice(p, "cpu", "write|read", &cpu, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "gpus", &gpus, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	/* one GPU unless asked (mgpu_gpus reads 0 as every GPU, and checks
	 * the count against the system's) */
	c.gpus = 1;
	if (gpus != 1 && mgpu_gpus(cfg, p, &c.gpus, err))
		return -1;
	if (workload_check_launch(c.threads, c.block, err))
		return -1;
	c.cpu_write = cpu == 0;
	c.advise = advise != 0;
	c.prefetch = prefetch != 0;
	/* a hint about managed memory has nothing to act on in other memory:
	 * refused rather than ignored */
	if ((c.advise || c.prefetch) && c.o.mem != GPUVM_ALLOC_MANAGED)
		return gpuvm_params_constraint(err, c.advise ? "advise" : "prefetch",
					       "applies to mem=managed only");
	if (c.gpus > 1 && c.o.mem == GPUVM_ALLOC_DEVICE)
		return gpuvm_params_constraint(err, "gpus",
					       "%u GPUs with mem=device: x and y live on GPU 0, which "
					       "the other GPUs' kernels cannot reach; use mem=managed "
					       "or mem=pinned, or gpus=1", c.gpus);
	struct phases_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("cpu-gpu-phases", phases_host, u, free, out, err);
}

static const struct gpuvm_param_range phases_ranges[] = {
	GPUVM_RANGE("elems", 1, 1ull << 36),
	GPUVM_RANGE("iters", 1, 4096),
	GPUVM_RANGE("touch", 0, 100),
	GPUVM_RANGE("advise", 0, 1),
	GPUVM_RANGE("prefetch", 0, 1),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	MGPU_GPUS_RANGE,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_cpu_gpu_phases = {
	.name = "cpu-gpu-phases",
	.summary = "GPU kernels updating a managed array, each followed by a CPU phase reading or "
		   "updating part of it (CPU faults migrate pages back; issue 78)",
	.working_set = "16 B x elems",
	.params = phases_params,
	.n_params = sizeof phases_params / sizeof phases_params[0],
	GPUVM_WORKLOAD_RANGES(phases_ranges),
	.create = phases_create,
};
