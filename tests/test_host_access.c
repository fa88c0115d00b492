/* CPU phases touching managed memory between kernels (simt_host_access,
 * src/uvm/uvm_host_access.c, src/system/host_access.c). Each test names
 * the mechanism it would catch missing:
 *  - a CPU write (and a CPU read) of pages a GPU holds migrates them back
 *    to CPU memory over the D2H lane, one CPU fault per 64 KB chunk, and
 *    the next kernel far-faults them again (uvm_host_access ->
 *    uvm_prefetch_to_host);
 *  - a CPU read of a read-mostly page copies it and the GPU keeps its own:
 *    the next kernel takes no far fault (read duplication);
 *  - the CPU touching device memory (cudaMalloc) is refused, naming the
 *    allocation (host_access_check);
 *  - several GPUs: the CPU takes each page from whichever GPU holds it
 *    (multi_gpu.c host_access_op asks every GPU's driver), and a CPU write
 *    drops the GPUs' read duplicates without a transfer (drop_copies). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/simt.h"
#include "gpuvm/sysdesc.h"

#define ELEMS (1u << 18) /* 1 MiB of floats: 256 pages, 16 chunks of 64 KB */
#define PAGES (ELEMS * 4u / 4096u)
#define BYTES (ELEMS * 4ull)

struct rw_args {
	float *x;
	float *out;
	unsigned lo, n;
};

/* out[i] = 2 x[i] over [lo, lo + n) */
SIMT_KERNEL_ANY_ORDER(read_kernel, struct rw_args, p)
{
	unsigned i = p.lo + blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.lo + p.n)
		ST(p.out, i, 2.0f * LD(p.x, i));
}

/* x[i] += 1 over [lo, lo + n) */
SIMT_KERNEL_ANY_ORDER(write_kernel, struct rw_args, p)
{
	unsigned i = p.lo + blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.lo + p.n)
		ST(p.x, i, LD(p.x, i) + 1.0f);
}

enum prog {
	PLAIN,       /* GPU writes x, GPU reads x */
	CPU_WRITE,   /* GPU writes x, the CPU updates its first half, GPU reads x */
	CPU_READ,    /* ... the CPU reads its first half */
	RM_PLAIN,    /* x read-mostly: GPU reads x twice */
	RM_CPU_READ, /* x read-mostly: GPU reads x, the CPU reads all of it, GPU reads x */
	DEVICE,      /* the CPU touches a device allocation */
	/* two GPUs */
	SPLIT_WRITE, /* GPU 0 reads x's first half, GPU 1 its second; the CPU writes x; GPU 0 reads x */
	SPLIT_PLAIN, /* the same without the CPU */
	RM_SPLIT_WRITE, /* x read-mostly: GPU 0 reads x, the CPU writes x, GPU 0 reads x */
	RM_SPLIT_PLAIN, /* x read-mostly: GPU 0 reads x twice */
};

struct ctx {
	enum prog k;
};

static int launch(struct simt_host *h, bool write, float *x, float *out, unsigned lo, unsigned n)
{
	struct rw_args a = {x, out, lo, n};
	struct simt_dim3 g = simt_dim3(n / 256, 1, 1), b = simt_dim3(256, 1, 1);
	return write ? SIMT_LAUNCH(h, write_kernel, g, b, a) : SIMT_LAUNCH(h, read_kernel, g, b, a);
}

static int program(struct simt_host *h, void *user)
{
	enum prog k = ((struct ctx *)user)->k;
	float *x = simt_malloc(h, "x", BYTES, GPUVM_ALLOC_MANAGED);
	float *o = simt_malloc(h, "out0", BYTES, GPUVM_ALLOC_DEVICE);
	if (!x || !o)
		return -1;
	for (unsigned i = 0; i < ELEMS; i++)
		x[i] = (float)(i & 255);
	bool rm = k == RM_PLAIN || k == RM_CPU_READ || k == RM_SPLIT_WRITE || k == RM_SPLIT_PLAIN;
	if (rm && simt_mem_advise(h, x, BYTES, SIMT_ADVISE_READ_MOSTLY, 0))
		return -1;
	if (k == DEVICE)
		return simt_host_access(h, o, 4096, SIMT_HOST_READ);
	if (k == SPLIT_WRITE || k == SPLIT_PLAIN) {
		if (simt_set_device(h, 1))
			return -1;
		float *o1 = simt_malloc(h, "out1", BYTES, GPUVM_ALLOC_DEVICE);
		if (!o1 || launch(h, false, x, o1, ELEMS / 2, ELEMS / 2) || simt_device_sync(h) ||
		    simt_set_device(h, 0) || launch(h, false, x, o, 0, ELEMS / 2) ||
		    simt_device_sync(h))
			return -1;
		if (k == SPLIT_WRITE &&
		    simt_host_access(h, x, BYTES, SIMT_HOST_READ | SIMT_HOST_WRITE))
			return -1;
		return launch(h, false, x, o, 0, ELEMS) || simt_device_sync(h) ? -1 : 0;
	}
	bool first_write = k == PLAIN || k == CPU_WRITE || k == CPU_READ;
	if (launch(h, first_write, x, o, 0, ELEMS) || simt_device_sync(h))
		return -1;
	if (k == CPU_WRITE || k == RM_SPLIT_WRITE) {
		uint64_t bytes = k == CPU_WRITE ? BYTES / 2 : BYTES;
		if (simt_host_access(h, x, bytes, SIMT_HOST_READ | SIMT_HOST_WRITE))
			return -1;
		for (uint64_t i = 0; i < bytes / 4; i++)
			x[i] += 1.0f;
	}
	if (k == CPU_READ && simt_host_access(h, x, BYTES / 2, SIMT_HOST_READ))
		return -1;
	if (k == RM_CPU_READ && simt_host_access(h, x, BYTES, SIMT_HOST_READ))
		return -1;
	return launch(h, false, x, o, 0, ELEMS) || simt_device_sync(h) ? -1 : 0;
}

/* ---- one GPU (p100) ------------------------------------------------------ */

static int run_one(enum prog k, struct gpuvm_stats *st, struct gpuvm_error *err)
{
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	if (gpuvm_config_load(cfg, "p100", err) || gpuvm_config_finalize(cfg, err))
		fail_msg("%s", err->msg);
	static struct ctx c;
	c.k = k;
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("host-access", program, &c, NULL, &src, err), 0);
	src.exec_threads = 0;
	int rc = gpuvm_simulate(cfg, &src, NULL, st, err);
	src.ops->destroy(&src);
	free(cfg);
	return rc;
}

static void run_one_ok(enum prog k, struct gpuvm_stats *st)
{
	struct gpuvm_error err = {{0}};
	if (run_one(k, st, &err))
		fail_msg("run failed: %s", err.msg);
}

/* the CPU's write takes half of x off the GPU and the last kernel faults it
 * back: PAGES / 2 more pages each way, one CPU fault per 64 KB */
static void check_migrated_back(enum prog k)
{
	struct gpuvm_stats plain, cpu;
	run_one_ok(PLAIN, &plain);
	run_one_ok(k, &cpu);
	const struct gpuvm_uvm_stats *p = &plain.uvm, *c = &cpu.uvm;
	printf("  far faults %llu -> %llu, h2d %llu -> %llu, d2h %llu -> %llu, cpu faults %llu\n",
	       (unsigned long long)p->far_faults, (unsigned long long)c->far_faults,
	       (unsigned long long)p->bytes_h2d, (unsigned long long)c->bytes_h2d,
	       (unsigned long long)p->bytes_d2h, (unsigned long long)c->bytes_d2h,
	       (unsigned long long)c->cpu_faults);
	assert_true(c->far_faults > p->far_faults);
	assert_true(c->bytes_h2d == p->bytes_h2d + PAGES / 2 * 4096ull); /* faulted back */
	assert_true(c->bytes_d2h == p->bytes_d2h + PAGES / 2 * 4096ull);
	assert_true(c->cpu_fault_pages == PAGES / 2);
	assert_true(c->cpu_faults == PAGES / 2 / 16);
	assert_true(c->cpu_duplicated_pages == 0);
	/* the CPU waited for its faults: one fault latency each at least
	 * (uvm.fault_latency_us: 20 us on the p100) */
	assert_true(cpu.sim_seconds - plain.sim_seconds >= (double)c->cpu_faults * 20e-6);
	gpuvm_stats_release(&plain);
	gpuvm_stats_release(&cpu);
}

static void test_cpu_write_migrates_back(void **state)
{
	(void)state;
	check_migrated_back(CPU_WRITE);
}

static void test_cpu_read_migrates_back(void **state)
{
	(void)state;
	check_migrated_back(CPU_READ);
}

/* read-mostly: the CPU's read copies x down and the GPU keeps its pages:
 * the last kernel takes no more far faults than without the CPU */
static void test_cpu_read_duplicates_read_mostly(void **state)
{
	(void)state;
	struct gpuvm_stats plain, cpu;
	run_one_ok(RM_PLAIN, &plain);
	run_one_ok(RM_CPU_READ, &cpu);
	const struct gpuvm_uvm_stats *p = &plain.uvm, *c = &cpu.uvm;
	printf("  far faults %llu -> %llu, duplicated %llu\n", (unsigned long long)p->far_faults,
	       (unsigned long long)c->far_faults, (unsigned long long)c->cpu_duplicated_pages);
	assert_true(c->far_faults == p->far_faults);
	assert_true(c->cpu_duplicated_pages == PAGES);
	assert_true(c->cpu_fault_pages == 0);
	assert_true(c->bytes_h2d == p->bytes_h2d);
	assert_true(c->bytes_d2h == p->bytes_d2h + PAGES * 4096ull); /* the copy */
	gpuvm_stats_release(&plain);
	gpuvm_stats_release(&cpu);
}

static void test_device_memory_refused(void **state)
{
	(void)state;
	struct gpuvm_stats st;
	struct gpuvm_error err = {{0}};
	assert_int_not_equal(run_one(DEVICE, &st, &err), 0);
	printf("  %s\n", err.msg);
	assert_non_null(strstr(err.msg, "'out0'"));
	assert_non_null(strstr(err.msg, "device memory"));
	gpuvm_stats_release(&st);
}

/* ---- two GPUs ------------------------------------------------------------ */

static const char two_gpus[] =
	"[system]\nname = two\ndescription = test\nsource = test\n"
	"[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"
	"[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"
	"[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"
	"[link.1]\nkind = pcie\nendpoints = gpu.1 cpu.0\nbandwidth_gb_s = 64\n"
	"[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\nbandwidth_gb_s = 100\ncount = 2\n";

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

static struct run *run_two(enum prog k)
{
	struct gpuvm_error err = {{0}};
	struct run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	assert_int_equal(gpuvm_sysdesc_parse(&r->desc, two_gpus, "two.ini", &err), 0);
	const struct gpuvm_config *cfgs[2];
	for (uint32_t d = 0; d < 2; d++) {
		assert_int_equal(gpuvm_sysdesc_gpu_config(&r->desc, d, &r->cfg[d], &err), 0);
		assert_int_equal(gpuvm_config_finalize(&r->cfg[d], &err), 0);
		cfgs[d] = &r->cfg[d];
	}
	static struct ctx c;
	c.k = k;
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("host-access-2", program, &c, NULL, &src, &err), 0);
	src.exec_threads = 0;
	r->out.gpu = r->stats;
	struct gpuvm_sim_options opt = {0};
	if (gpuvm_simulate_system(&r->desc, cfgs, &src, &opt, &r->out, &err))
		fail_msg("run failed: %s", err.msg);
	src.ops->destroy(&src);
	return r;
}

static void release(struct run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
	free(r);
}

/* each GPU hands the CPU its own half over its own host link; GPU 0 then
 * faults all of x from the host, nothing from GPU 1 */
static void test_two_gpus_cpu_takes_from_holder(void **state)
{
	(void)state;
	struct run *w = run_two(SPLIT_WRITE), *p = run_two(SPLIT_PLAIN);
	for (uint32_t d = 0; d < 2; d++) {
		const struct gpuvm_uvm_stats *u = &w->stats[d].uvm;
		printf("  GPU %u: cpu faults %llu, pages to the CPU %llu, d2h %llu\n", d,
		       (unsigned long long)u->cpu_faults, (unsigned long long)u->cpu_fault_pages,
		       (unsigned long long)u->bytes_d2h);
		assert_true(u->cpu_fault_pages == PAGES / 2);
		assert_true(u->bytes_d2h == PAGES / 2 * 4096ull);
	}
	assert_true(w->out.uvm_peer_pages == 0);  /* GPU 1's half went to the CPU first */
	assert_true(p->out.uvm_peer_pages == PAGES / 2); /* without it, GPU 0 takes it from GPU 1 */
	/* its half at first, then all of x from the host */
	assert_true(w->stats[0].uvm.bytes_h2d == (PAGES / 2 + PAGES) * 4096ull);
	release(w);
	release(p);
}

/* read-mostly: GPU 0's read of x from the host is a duplicate (the host
 * keeps its copy); the CPU's write drops GPU 0's copy without moving data,
 * and GPU 0 faults x again */
static void test_two_gpus_cpu_write_drops_copies(void **state)
{
	(void)state;
	struct run *w = run_two(RM_SPLIT_WRITE), *p = run_two(RM_SPLIT_PLAIN);
	const struct gpuvm_uvm_stats *u = &w->stats[0].uvm, *q = &p->stats[0].uvm;
	printf("  GPU 0: copies dropped %llu, d2h %llu, far faults %llu (%llu without the CPU)\n",
	       (unsigned long long)u->cpu_invalidated_copies, (unsigned long long)u->bytes_d2h,
	       (unsigned long long)u->far_faults, (unsigned long long)q->far_faults);
	assert_true(u->far_faults > q->far_faults);
	assert_true(u->bytes_h2d == 2 * PAGES * 4096ull);
	assert_true(u->bytes_d2h == 0);
	assert_true(u->cpu_invalidated_copies == PAGES);
	release(w);
	release(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_write_migrates_back),
		cmocka_unit_test(test_cpu_read_migrates_back),
		cmocka_unit_test(test_cpu_read_duplicates_read_mostly),
		cmocka_unit_test(test_device_memory_refused),
		cmocka_unit_test(test_two_gpus_cpu_takes_from_holder),
		cmocka_unit_test(test_two_gpus_cpu_write_drops_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
