/* System-allocated memory (mem=system) on a system of two GH200s
 * (src/system/multi_gpu.c system_alloc, src/uvm/uvm_shared.h, uvm_fault.c
 * system_in_place / system_on_cpu, uvm_ats.c placed_elsewhere): a page is
 * placed once by its first toucher, in the residency the GPUs share, and
 * used in place by the others. Each test names the mechanism it would
 * catch missing (docs/mutations.md, "System-allocated memory on several
 * GPUs"):
 *  - GPU 1 reads the pages GPU 0 first-touched where they are, over
 *    NVLink, without a far fault or a migration (system_in_place);
 *  - each GPU's first touch places its pages in its own HBM, none twice
 *    (system_untouched asks the shared residency);
 *  - GPU 1's ATS prefetch skips the pages GPU 0 placed (placed_elsewhere);
 *  - GPU 0 reads the host's pages (on cpu.0) over its own C2C link, as on
 *    one GPU; GPU 1's access to them, whose route the system file does not
 *    describe, stops the run naming it (system_on_cpu); so does a CPU phase
 *    reaching GPU 1's HBM from cpu.0 (uvm_host_access.c in_place), and
 *    GPU 1's access to GPU 0's HBM where no NVLink joins them
 *    (system_in_place).
 * The system is systems/2xgh200.ini's (its GPU-GPU NVLink and both C2C
 * links), inline so that the test does not read the source tree. */
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
#include "system_run.h"

static const char two_gh200[] =
	"[system]\nname = 2xgh200\ndescription = test\nsource = systems/2xgh200.ini\n"
	"[gpu.0]\npreset = h100\nmemory_bytes = 96000000000\n"
	"[gpu.1]\npreset = h100\nmemory_bytes = 96000000000\n"
	"[cpu.0]\nmodel = grace\nmemory_bytes = 480000000000\nbandwidth_gb_s = 546\n"
	"page_sizes = 4KiB 64KiB\npage_bytes = 64KiB\n"
	"[cpu.1]\nmodel = grace\nmemory_bytes = 480000000000\nbandwidth_gb_s = 546\n"
	"page_sizes = 4KiB 64KiB\npage_bytes = 64KiB\n"
	"[link.0]\nkind = nvlink-c2c\nendpoints = cpu.0 gpu.0\nbandwidth_gb_s = 450\n"
	"[link.1]\nkind = nvlink-c2c\nendpoints = cpu.1 gpu.1\nbandwidth_gb_s = 450\n"
	"[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\nbandwidth_gb_s = 25\ncount = 18\n";
/* two Hoppers on one Grace, each over a C2C link of its own, and no
 * GPU-GPU link (a description, not a product: the route between the GPUs
 * is through the CPU alone) */
static const char one_grace[] =
	"[system]\nname = one-grace\ndescription = test\nsource = test\n"
	"[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"
	"[cpu.0]\nmodel = grace\nmemory_bytes = 480000000000\nbandwidth_gb_s = 546\n"
	"page_sizes = 4KiB 64KiB\npage_bytes = 64KiB\n"
	"[link.0]\nkind = nvlink-c2c\nendpoints = cpu.0 gpu.0\nbandwidth_gb_s = 450\n"
	"[link.1]\nkind = nvlink-c2c\nendpoints = cpu.0 gpu.1\nbandwidth_gb_s = 450\n";

/* x: 2 MiB of floats, one VA block: 512 pages of 4 KiB, 32 system pages
 * of 64 KiB (cpu.0's page_bytes). Small enough for the sanitizers. */
#define ELEMS (1u << 19)
#define X_BYTES (ELEMS * 4ull)
#define PAGES (X_BYTES / 4096)

struct rw_args {
	float *x;
	float *out;
	unsigned lo, hi;
};

SIMT_KERNEL_ANY_ORDER(read_kernel, struct rw_args, p)
{
	unsigned i = p.lo + blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.hi)
		ST(p.out, i, 2.0f * LD(p.x, i));
}

SIMT_KERNEL_ANY_ORDER(write_kernel, struct rw_args, p)
{
	unsigned i = p.lo + blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.hi)
		ST(p.x, i, 1.0f);
}

enum prog {
	ZERO_WRITES_ONE_READS, /* GPU 0 writes x (its first touch), GPU 1 reads it */
	HALVES,                /* GPU 0 writes x's first half, then GPU 1 writes all of x */
	ATS_SKIP,              /* GPU 0 writes x's first 256 KiB, GPU 1 reads all of x */
	HOST_ZERO_READS,       /* the host uploads x (cpu.0's first touch), GPU 0 reads it */
	HOST_ONE_READS,        /* ... GPU 1 reads it */
	ONE_WRITES_HOST_READS, /* GPU 1 writes x, then a CPU phase reads it */
	ZERO_WRITES_HOST_READS, /* GPU 0 writes x, then a CPU phase reads it */
};

#define ATS_GPU0_ELEMS (65536u) /* 256 KiB: 4 system pages */

static int launch(struct simt_host *h, bool write, float *x, float *out, unsigned lo, unsigned hi)
{
	struct rw_args a = {x, out, lo, hi};
	struct simt_dim3 grid = simt_dim3((hi - lo + 255) / 256, 1, 1), block = simt_dim3(256, 1, 1);
	return write ? SIMT_LAUNCH(h, write_kernel, grid, block, a)
		     : SIMT_LAUNCH(h, read_kernel, grid, block, a);
}

static int program(struct simt_host *h, void *user)
{
	enum prog k = *(enum prog *)user;
	float *x = simt_malloc(h, "x", X_BYTES, GPUVM_ALLOC_SYSTEM);
	float *o0 = simt_malloc(h, "o0", X_BYTES, GPUVM_ALLOC_DEVICE);
	if (!x || !o0 || simt_set_device(h, 1))
		return -1;
	float *o1 = simt_malloc(h, "o1", X_BYTES, GPUVM_ALLOC_DEVICE);
	if (!o1 || simt_set_device(h, 0))
		return -1;
	switch (k) {
	case ZERO_WRITES_ONE_READS:
		return launch(h, true, x, o0, 0, ELEMS) || simt_device_sync(h) ||
		       simt_set_device(h, 1) || launch(h, false, x, o1, 0, ELEMS);
	case HALVES:
		return launch(h, true, x, o0, 0, ELEMS / 2) || simt_device_sync(h) ||
		       simt_set_device(h, 1) || launch(h, true, x, o1, 0, ELEMS);
	case ATS_SKIP:
		return launch(h, true, x, o0, 0, ATS_GPU0_ELEMS) || simt_device_sync(h) ||
		       simt_set_device(h, 1) || launch(h, false, x, o1, 0, ELEMS);
	case HOST_ZERO_READS:
	case HOST_ONE_READS:
		for (unsigned i = 0; i < ELEMS; i++)
			x[i] = (float)(i & 255);
		if (simt_upload(h, x, X_BYTES))
			return -1;
		if (k == HOST_ONE_READS)
			return simt_set_device(h, 1) || launch(h, false, x, o1, 0, ELEMS);
		return launch(h, false, x, o0, 0, ELEMS);
	case ONE_WRITES_HOST_READS:
		return simt_set_device(h, 1) || launch(h, true, x, o1, 0, ELEMS) ||
		       simt_device_sync(h) || simt_host_access(h, x, X_BYTES, SIMT_HOST_READ);
	case ZERO_WRITES_HOST_READS:
		return launch(h, true, x, o0, 0, ELEMS) || simt_device_sync(h) ||
		       simt_host_access(h, x, X_BYTES, SIMT_HOST_READ);
	}
	return -1;
}

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

/* Runs k on two_gh200 with settings on both GPUs; the status, err set on
 * failure. */
static const char *sys_text = two_gh200;

static int run_prog(struct run *r, enum prog k, const char *const *settings,
		    struct gpuvm_error *err)
{
	memset(r, 0, sizeof *r);
	static enum prog pk;
	pk = k;
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("multi-system", program, &pk, NULL, &src, err), 0);
	return system_run(&r->desc, r->cfg, r->stats, &r->out, 2, sys_text, "2xgh200.ini",
			  settings, &src, err);
}

static struct run *run_ok(enum prog k, const char *const *settings)
{
	struct gpuvm_error err = {{0}};
	struct run *r = malloc(sizeof *r);
	assert_non_null(r);
	if (run_prog(r, k, settings, &err))
		fail_msg("run failed: %s", err.msg);
	return r;
}

static void release(struct run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
	free(r);
}

static const char *const no_prefetch[] = {"uvm.prefetcher=none", NULL};

/* GPU 1 reads every page GPU 0 placed where it is, over NVLink: no far
 * fault, no page moved into GPU 1's HBM, x's bytes on the peer route. */
static void test_peer_read_in_place(void **state)
{
	(void)state;
	struct run *r = run_ok(ZERO_WRITES_ONE_READS, no_prefetch);
	if (r->stats[1].uvm.far_faults || r->stats[1].uvm.pages_copied_in || r->out.uvm_peer_pages)
		fail_msg("GPU 1 took %llu far faults, placed %llu pages, %llu migrated GPU to GPU; "
			 "want none (GPU 0's pages read in place)",
			 (unsigned long long)r->stats[1].uvm.far_faults,
			 (unsigned long long)r->stats[1].uvm.pages_copied_in,
			 (unsigned long long)r->out.uvm_peer_pages);
	assert_int_equal(r->stats[0].uvm.pages_copied_in, PAGES); /* GPU 0's first touch */
	/* every float of x read once, a 32 B sector at a time */
	if (r->out.uvm_peer_remote_bytes < X_BYTES || r->out.uvm_peer_nvlink_bytes < X_BYTES)
		fail_msg("%llu bytes read in place, %llu over NVLink; want x's %llu at least",
			 (unsigned long long)r->out.uvm_peer_remote_bytes,
			 (unsigned long long)r->out.uvm_peer_nvlink_bytes,
			 (unsigned long long)X_BYTES);
	assert_int_equal(r->stats[1].uvm.remote_bytes, 0); /* nothing over GPU 1's C2C */
	release(r);
}

/* Each GPU's first touch places in its own HBM, and a page one GPU placed
 * is not placed again by the other (GPU 1 writes GPU 0's half in place). */
static void test_first_touch_each_own(void **state)
{
	(void)state;
	struct run *r = run_ok(HALVES, no_prefetch);
	if (r->stats[0].uvm.pages_copied_in != PAGES / 2 ||
	    r->stats[1].uvm.pages_copied_in != PAGES / 2 || r->out.uvm_invalidated_pages)
		fail_msg("GPU 0 placed %llu pages, GPU 1 %llu, %llu invalidated; want %llu each, "
			 "none invalidated",
			 (unsigned long long)r->stats[0].uvm.pages_copied_in,
			 (unsigned long long)r->stats[1].uvm.pages_copied_in,
			 (unsigned long long)r->out.uvm_invalidated_pages,
			 (unsigned long long)(PAGES / 2));
	assert_true(r->out.uvm_peer_remote_bytes >= X_BYTES / 2); /* GPU 1's stores to GPU 0's half */
	release(r);
}

/* GPU 1's ATS prefetch (uvm.prefetcher = tree-driver) widens its faults
 * over the block, and skips the 4 system pages GPU 0 placed. */
static void test_ats_prefetch_skips_peer_pages(void **state)
{
	(void)state;
	struct run *r = run_ok(ATS_SKIP, NULL);
	assert_string_equal(r->cfg[1].uvm_prefetcher, "tree-driver");
	uint64_t gpu1_pages = PAGES - ATS_GPU0_ELEMS * 4ull / 4096;
	if (r->stats[1].uvm.pages_copied_in != gpu1_pages || r->out.uvm_invalidated_pages)
		fail_msg("GPU 1 placed %llu pages (%llu invalidated on GPU 0); want its %llu, "
			 "GPU 0's skipped",
			 (unsigned long long)r->stats[1].uvm.pages_copied_in,
			 (unsigned long long)r->out.uvm_invalidated_pages,
			 (unsigned long long)gpu1_pages);
	assert_true(r->stats[1].uvm.far_faults < 28); /* the prefetch ran: fewer faults than pages */
	assert_true(r->out.uvm_peer_remote_bytes >= ATS_GPU0_ELEMS * 4ull);
	release(r);
}

/* The host's upload places x on cpu.0; GPU 0 reads it over its C2C link
 * without faults, as on one GH200. */
static void test_gpu0_reads_cpu0_over_c2c(void **state)
{
	(void)state;
	struct run *r = run_ok(HOST_ZERO_READS, NULL);
	assert_int_equal(r->stats[0].uvm.far_faults, 0);
	assert_int_equal(r->stats[0].uvm.pages_copied_in, 0);
	assert_true(r->stats[0].uvm.remote_bytes >= X_BYTES);
	assert_int_equal(r->out.uvm_peer_remote_bytes, 0);
	release(r);
}

/* GPU 1 reading cpu.0's memory: the files describe no route (Grace-Grace,
 * or NVLink to GPU 0 and its C2C): the run stops naming it. */
static void test_gpu1_to_cpu0_stops(void **state)
{
	(void)state;
	struct run r;
	struct gpuvm_error err = {{0}};
	int rc = run_prog(&r, HOST_ONE_READS, NULL, &err);
	gpuvm_stats_release(&r.stats[0]);
	gpuvm_stats_release(&r.stats[1]);
	if (rc == 0)
		fail_msg("GPU 1 read cpu.0's memory and the run went on");
	if (!strstr(err.msg, "no route from gpu.1 to cpu.0"))
		fail_msg("message '%s' does not name the route", err.msg);
}

/* A CPU phase (on cpu.0) reading pages GPU 1 placed: no route either;
 * the same phase over GPU 0's pages reads them over C2C 0. */
static void test_cpu0_to_gpu1_stops(void **state)
{
	(void)state;
	struct run r;
	struct gpuvm_error err = {{0}};
	int rc = run_prog(&r, ONE_WRITES_HOST_READS, NULL, &err);
	gpuvm_stats_release(&r.stats[0]);
	gpuvm_stats_release(&r.stats[1]);
	if (rc == 0)
		fail_msg("cpu.0 read GPU 1's HBM and the run went on");
	if (!strstr(err.msg, "no route from cpu.0 to gpu.1"))
		fail_msg("message '%s' does not name the route", err.msg);
	struct run *ok = run_ok(ZERO_WRITES_HOST_READS, NULL);
	assert_int_equal(ok->stats[0].uvm.cpu_remote_bytes, X_BYTES);
	release(ok);
}

/* Without a GPU-GPU link GPU 1 has no route to GPU 0's HBM (a staged copy
 * is no load or store path): the run stops naming it. The Grace both GPUs
 * reach over their own C2C links is read by either (HOST_ONE_READS runs). */
static void test_unjoined_gpus_stop(void **state)
{
	(void)state;
	sys_text = one_grace;
	struct run *ok = run_ok(HOST_ONE_READS, NULL);
	assert_true(ok->stats[1].uvm.remote_bytes >= X_BYTES); /* cpu.0 over GPU 1's C2C */
	release(ok);
	struct run r;
	struct gpuvm_error err = {{0}};
	int rc = run_prog(&r, ZERO_WRITES_ONE_READS, no_prefetch, &err);
	sys_text = two_gh200;
	gpuvm_stats_release(&r.stats[0]);
	gpuvm_stats_release(&r.stats[1]);
	if (rc == 0)
		fail_msg("GPU 1 read GPU 0's HBM without a GPU-GPU link and the run went on");
	if (!strstr(err.msg, "no NVLink or NVSwitch route joins gpu.1 and gpu.0"))
		fail_msg("message '%s' does not name the route", err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_read_in_place),
		cmocka_unit_test(test_first_touch_each_own),
		cmocka_unit_test(test_ats_prefetch_skips_peer_pages),
		cmocka_unit_test(test_gpu0_reads_cpu0_over_c2c),
		cmocka_unit_test(test_gpu1_to_cpu0_stops),
		cmocka_unit_test(test_cpu0_to_gpu1_stops),
		cmocka_unit_test(test_unjoined_gpus_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
