/* Managed memory on a system of several GPUs (src/system/multi_gpu.c,
 * src/uvm/uvm_shared.h): one residency shared by the GPUs' drivers. Each
 * test names the mechanism it would catch missing:
 *  - a far fault on GPU 1 for a page GPU 0 holds migrates it over NVLink,
 *    not over GPU 1's host link (the peer source of uvm_migrate_pages);
 *  - without a GPU-GPU link the page is staged through host memory;
 *  - GPU 0 loses the pages GPU 1 took and faults them back
 *    (uvm_invalidate_taken);
 *  - kernels of two GPUs on managed memory do not overlap (the
 *    serialisation of multi_gpu.c kernel_op);
 *  - cudaMemPrefetchAsync to a GPU moves the pages before the kernel, over
 *    the peer route from the GPU holding them, and to the CPU takes them
 *    off the GPU (simt_prefetch);
 *  - cudaMemAdviseSetReadMostly: GPU 1 reads a copy and GPU 0 keeps its
 *    own (read duplication), and a write collapses the page to the writer
 *    (simt_mem_advise);
 *  - cudaMemAdviseSetAccessedBy: GPU 1 reads x in GPU 0's memory over
 *    NVLink, without a fault or a migration (peer mapping);
 *  - cudaMemAdviseSetPreferredLocation (uvm_fault.c preferred_elsewhere,
 *    preferred_map_fault): GPU 1's faults map x in GPU 0's memory, its
 *    preferred location, instead of migrating it; x on the host is moved
 *    to GPU 0 first (multi_gpu.c managed_place); the CPU as the location
 *    keeps x in host memory; without a GPU-GPU link GPU 1 cannot map GPU
 *    0's memory and migrates x as without the advice; with accessed-by
 *    as well GPU 1 takes no fault;
 *  - access counters per GPU (uvm.migration = always, uvm_fault.c
 *    in_place): GPU 1 reading x in place twice reaches the threshold and
 *    migrates x to itself (with counter notices, reading the pages on
 *    their way from GPU 0); GPU 0's own reads do not count for GPU 1; a
 *    preferred location elsewhere keeps x there; without advice the
 *    delayed migration reads only host pages remotely. */
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
#include "sanitized_env.h"
#include "system_run.h"

#define SYS_HEAD "[system]\nname = two\ndescription = test\nsource = test\n"                  \
		 "[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"                             \
		 "[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"                          \
		 "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"         \
		 "[link.1]\nkind = pcie\nendpoints = gpu.1 cpu.0\nbandwidth_gb_s = 64\n"
/* two h100 joined by 2 x 100 GB/s NVLink per direction, or by nothing */
static const char nvlinked[] = SYS_HEAD "[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\n"
					"bandwidth_gb_s = 100\ncount = 2\n";
static const char unlinked[] = SYS_HEAD;

/* x: 4 MiB of floats, 1024 pages in 2 VA blocks. Under the sanitizers
 * (tests/sanitized_env.h) a quarter, 256 pages of one block: each page
 * moves, maps or is duplicated as at the full size and the counters'
 * threshold is per 64 KB region, so every assertion holds; what only the
 * full size runs (TLB entries beyond a 2 MB block, a kernel of more CTAs
 * than the GPU holds at once) the ASan pass runs in other tests. */
#define FULL_ELEMS (1u << 20)
#define SANITIZED_ELEMS (1u << 18)
static unsigned elems = FULL_ELEMS, pages;

struct read_args {
	const float *x;
	float *out;
	unsigned n;
};

SIMT_KERNEL_ANY_ORDER(read_kernel, struct read_args, p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n)
		ST(p.out, i, 2.0f * LD(p.x, i));
}

struct write_args {
	float *x;
	unsigned n;
};

SIMT_KERNEL_ANY_ORDER(write_kernel, struct write_args, p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n)
		ST(p.x, i, 1.0f);
}

enum prog {
	ZERO_THEN_ONE,     /* GPU 0 reads x, then GPU 1 */
	ZERO_ONE_ZERO,     /* ... then GPU 0 again */
	BACK_TO_BACK,      /* GPU 0 and GPU 1 launched without a sync between */
	PREFETCH_ONE,      /* GPU 0 reads x; x prefetched to GPU 1; GPU 1 reads it */
	PREFETCH_CPU,      /* GPU 0 reads x; x prefetched to the CPU; GPU 1 reads it */
	RM_ZERO_ONE_ZERO,  /* ZERO_ONE_ZERO with x read-mostly */
	RM_WRITE,          /* read-mostly: GPU 0, GPU 1 read, GPU 1 writes x, GPU 0 reads */
	ACCESSED_BY,       /* x prefetched to GPU 0, accessed by GPU 1, which reads it */
	PREF_ZERO_ONE_ZERO, /* ZERO_ONE_ZERO with x preferring GPU 0 */
	PREF_ONE,          /* x preferring GPU 0; GPU 1 reads it (x on the host) */
	PREF_CPU,          /* x preferring the CPU; GPU 0 reads it, then GPU 1 */
	PREF_ACCESSED_BY,  /* x preferring GPU 0, accessed by GPU 1: GPU 0, then GPU 1 */
	AC_ONE_TWICE,      /* x prefetched to GPU 0, accessed by GPU 1, which reads it twice */
	AC_ZERO_ONE,       /* ... GPU 0 reads it, then GPU 1 once */
	AC_PREF_ONE_TWICE, /* AC_ONE_TWICE with x preferring GPU 0 */
	AC_FAULT_ONE,      /* x prefetched to GPU 0; GPU 1 reads it (no advice) */
	PREF_RM,           /* PREF_ZERO_ONE_ZERO with x read-mostly as well */
};

struct ctx {
	enum prog k;
};

static int launch_read(struct simt_host *h, const float *x, float *out)
{
	struct read_args a = {x, out, elems};
	return SIMT_LAUNCH(h, read_kernel, simt_dim3(elems / 256, 1, 1), simt_dim3(256, 1, 1), a);
}

static int program(struct simt_host *h, void *user)
{
	enum prog k = ((struct ctx *)user)->k;
	float *x = simt_malloc(h, "x", elems * 4ull, GPUVM_ALLOC_MANAGED);
	float *o0 = simt_malloc(h, "o0", elems * 4ull, GPUVM_ALLOC_DEVICE);
	if (!x || !o0 || simt_set_device(h, 1))
		return -1;
	float *o1 = simt_malloc(h, "o1", elems * 4ull, GPUVM_ALLOC_DEVICE);
	if (!o1 || simt_set_device(h, 0))
		return -1;
	for (unsigned i = 0; i < elems; i++)
		x[i] = (float)(i & 255);
	if ((k == RM_ZERO_ONE_ZERO || k == RM_WRITE) &&
	    simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_READ_MOSTLY, 0))
		return -1;
	if (k == ACCESSED_BY)
		return simt_prefetch(h, x, elems * 4ull, 0) ||
		       simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_ACCESSED_BY, 1) ||
		       simt_set_device(h, 1) || launch_read(h, x, o1) ? -1 : 0;
	if (k == AC_ONE_TWICE || k == AC_ZERO_ONE || k == AC_PREF_ONE_TWICE) {
		if (simt_prefetch(h, x, elems * 4ull, 0) ||
		    simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_ACCESSED_BY, 1) ||
		    (k == AC_PREF_ONE_TWICE &&
		     simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_PREFERRED_LOCATION, 0)) ||
		    (k == AC_ZERO_ONE && (launch_read(h, x, o0) || simt_device_sync(h))) ||
		    simt_set_device(h, 1) || launch_read(h, x, o1))
			return -1;
		return k != AC_ZERO_ONE && (simt_device_sync(h) || launch_read(h, x, o1)) ? -1 : 0;
	}
	if (k == AC_FAULT_ONE)
		return simt_prefetch(h, x, elems * 4ull, 0) || simt_set_device(h, 1) ||
		       launch_read(h, x, o1) ? -1 : 0;
	if (k == PREF_RM && simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_READ_MOSTLY, 0))
		return -1;
	if ((k == PREF_ZERO_ONE_ZERO || k == PREF_ONE || k == PREF_ACCESSED_BY || k == PREF_RM) &&
	    simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_PREFERRED_LOCATION, 0))
		return -1;
	if (k == PREF_CPU &&
	    simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_PREFERRED_LOCATION, SIMT_CPU_DEVICE))
		return -1;
	if (k == PREF_ACCESSED_BY && simt_mem_advise(h, x, elems * 4ull, SIMT_ADVISE_ACCESSED_BY, 1))
		return -1;
	if (k == PREF_ONE)
		return simt_set_device(h, 1) || launch_read(h, x, o1) ? -1 : 0;
	if (launch_read(h, x, o0))
		return -1;
	if (k != BACK_TO_BACK && simt_device_sync(h))
		return -1;
	if (k == PREFETCH_ONE && simt_prefetch(h, x, elems * 4ull, 1))
		return -1;
	if (k == PREFETCH_CPU && simt_prefetch(h, x, elems * 4ull, SIMT_CPU_DEVICE))
		return -1;
	if (simt_set_device(h, 1) || launch_read(h, x, o1))
		return -1;
	if ((k == ZERO_ONE_ZERO || k == RM_ZERO_ONE_ZERO || k == PREF_ZERO_ONE_ZERO ||
	     k == PREF_RM) &&
	    (simt_device_sync(h) || simt_set_device(h, 0) || launch_read(h, x, o0)))
		return -1;
	struct write_args w = {x, elems};
	if (k == RM_WRITE &&
	    (simt_device_sync(h) ||
	     SIMT_LAUNCH(h, write_kernel, simt_dim3(elems / 256, 1, 1), simt_dim3(256, 1, 1), w) ||
	     simt_device_sync(h) || simt_set_device(h, 0) || launch_read(h, x, o0)))
		return -1;
	return 0;
}

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

/* settings for both GPUs' presets (NULL-terminated; NULL: none), for the
 * next run */
static const char *const *extra_settings;

static int run_prog(struct run *r, const char *sys, enum prog k, struct gpuvm_error *err)
{
	memset(r, 0, sizeof *r);
	static struct ctx c;
	c.k = k;
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("multi-uvm", program, &c, NULL, &src, err), 0);
	return system_run(&r->desc, r->cfg, r->stats, &r->out, 2, sys, "two.ini", extra_settings,
			  &src, err);
}

static struct run *run_ok(const char *sys, enum prog k)
{
	struct gpuvm_error err = {{0}};
	struct run *r = malloc(sizeof *r);
	assert_non_null(r);
	if (run_prog(r, sys, k, &err))
		fail_msg("run failed: %s", err.msg);
	return r;
}

static void release(struct run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
	free(r);
}

/* A run several tests compare against (ZERO_THEN_ONE on nvlinked in five,
 * RM_ZERO_ONE_ZERO in two), run once and kept until the group ends: the
 * runs are deterministic, so a second run repeats the first's counters
 * and only costs its time. Without settings only; not to be released. */
#define N_PROGS (PREF_RM + 1)
static struct run *kept[2][N_PROGS];

static const struct run *run_kept(const char *sys, enum prog k)
{
	struct run **r = &kept[sys == nvlinked][k];
	assert_null(extra_settings);
	if (!*r)
		*r = run_ok(sys, k);
	return *r;
}

static int release_kept(void **state)
{
	(void)state;
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < N_PROGS; k++)
			if (kept[l][k]) {
				release(kept[l][k]);
				kept[l][k] = NULL;
			}
	return 0;
}

static double kernel_s(const struct run *r, uint32_t d, size_t i, bool end)
{
	const struct gpuvm_kernel_stats *k = &r->stats[d].kernel_list[i];
	return (end ? k->end_cycle : k->start_cycle) / (r->cfg[d].clock_mhz * 1e6);
}

/* GPU 1's faults take GPU 0's pages over NVLink, nothing over its PCIe */
static void test_fault_migrates_gpu_to_gpu(void **state)
{
	(void)state;
	const struct run *r = run_kept(nvlinked, ZERO_THEN_ONE);
	assert_true(r->out.managed);
	if (r->out.uvm_peer_pages != pages || r->out.uvm_peer_nvlink_bytes != pages * 4096ull)
		fail_msg("GPU to GPU: %llu pages, %llu bytes over NVLink; want %u pages",
			 (unsigned long long)r->out.uvm_peer_pages,
			 (unsigned long long)r->out.uvm_peer_nvlink_bytes, pages);
	assert_true(r->stats[0].uvm.bytes_h2d == pages * 4096ull); /* from the host, once */
	if (r->stats[1].uvm.bytes_h2d != 0)
		fail_msg("GPU 1 moved %llu bytes over its host link",
			 (unsigned long long)r->stats[1].uvm.bytes_h2d);
	assert_true(r->stats[1].uvm.far_faults > 0);
	assert_true(r->out.uvm_peer_host_bytes == 0);
}

/* no GPU-GPU link: the same migration is staged through host memory */
static void test_fault_staged_without_link(void **state)
{
	(void)state;
	struct run *r = run_ok(unlinked, ZERO_THEN_ONE);
	assert_true(r->out.uvm_peer_pages == pages);
	assert_true(r->out.uvm_peer_nvlink_bytes == 0);
	assert_true(r->out.uvm_peer_host_bytes == pages * 4096ull);
	const struct run *l = run_kept(nvlinked, ZERO_THEN_ONE);
	if (!(r->out.sim_seconds > l->out.sim_seconds))
		fail_msg("staged %g s, over NVLink %g s", r->out.sim_seconds, l->out.sim_seconds);
	release(r);
}

/* GPU 0 lost the pages to GPU 1: its third kernel faults them back */
static void test_taken_pages_invalidated(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, ZERO_ONE_ZERO);
	assert_int_equal(r->stats[0].n_kernel_list, 2);
	if (r->out.uvm_peer_pages != 2 * pages)
		fail_msg("%llu pages GPU to GPU, want %u (there and back)",
			 (unsigned long long)r->out.uvm_peer_pages, 2 * pages);
	/* GPU 0 dropped all at its second kernel, GPU 1 all at the end */
	assert_true(r->out.uvm_invalidated_pages == 2 * pages);
	const struct run *once = run_kept(nvlinked, ZERO_THEN_ONE);
	if (!(r->stats[0].uvm.far_faults > once->stats[0].uvm.far_faults))
		fail_msg("GPU 0: %llu far faults reading x twice, %llu once",
			 (unsigned long long)r->stats[0].uvm.far_faults,
			 (unsigned long long)once->stats[0].uvm.far_faults);
	release(r);
}

/* kernels of two GPUs on managed memory run one after the other */
static void test_managed_kernels_serialised(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, BACK_TO_BACK);
	double end0 = kernel_s(r, 0, 0, true), start1 = kernel_s(r, 1, 0, false);
	if (start1 < end0)
		fail_msg("GPU 1's kernel starts at %g s, GPU 0's ends at %g s", start1, end0);
	assert_true(r->out.managed_serialized_kernels == 1);
	assert_true(r->out.uvm_peer_pages == pages);
	release(r);
}

/* cudaMemPrefetchAsync(x, 1): GPU 1's kernel finds x there (no faults),
 * moved GPU 0 -> GPU 1 over NVLink */
static void test_prefetch_to_gpu(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREFETCH_ONE);
	assert_true(r->out.uvm_peer_pages == pages);
	assert_true(r->out.uvm_peer_nvlink_bytes == pages * 4096ull);
	if (r->stats[1].uvm.far_faults != 0)
		fail_msg("GPU 1 took %llu far faults after the prefetch",
			 (unsigned long long)r->stats[1].uvm.far_faults);
	const struct run *f = run_kept(nvlinked, ZERO_THEN_ONE);
	double pre = kernel_s(r, 1, 0, true) - kernel_s(r, 1, 0, false);
	double flt = kernel_s(f, 1, 0, true) - kernel_s(f, 1, 0, false);
	if (!(pre < flt))
		fail_msg("GPU 1's kernel: %g s after a prefetch, %g s faulting", pre, flt);
	release(r);
}

/* cudaMemPrefetchAsync(x, cudaCpuDeviceId): GPU 0 writes the pages back
 * over its host link; GPU 1 then faults them from the host */
static void test_prefetch_to_cpu(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREFETCH_CPU);
	assert_true(r->out.uvm_peer_pages == 0);
	assert_true(r->stats[0].uvm.bytes_d2h == pages * 4096ull);
	assert_true(r->stats[1].uvm.bytes_h2d == pages * 4096ull);
	release(r);
}

/* read-mostly: GPU 1 gets a copy from GPU 0, which keeps its own: GPU 0
 * reads x again without a fault (ZERO_ONE_ZERO migrates it back) */
static void test_read_mostly_duplicates(void **state)
{
	(void)state;
	const struct run *r = run_kept(nvlinked, RM_ZERO_ONE_ZERO);
	const struct run *once = run_kept(nvlinked, ZERO_THEN_ONE);
	if (r->out.uvm_peer_pages != pages)
		fail_msg("%llu pages GPU to GPU, want %u (one copy)",
			 (unsigned long long)r->out.uvm_peer_pages, pages);
	assert_true(r->out.uvm_duplicated_pages == 2 * pages); /* GPU 0's from the host, GPU 1's */
	assert_true(r->out.uvm_invalidated_pages == 0);
	if (r->stats[0].uvm.far_faults != once->stats[0].uvm.far_faults)
		fail_msg("GPU 0 faulted reading its copy again: %llu far faults, %llu reading once",
			 (unsigned long long)r->stats[0].uvm.far_faults,
			 (unsigned long long)once->stats[0].uvm.far_faults);
}

/* read-mostly: GPU 1's write collapses every page to it; GPU 0 then faults
 * x back from GPU 1 */
static void test_write_collapses_duplicates(void **state)
{
	(void)state;
	struct run *w = run_ok(nvlinked, RM_WRITE);
	const struct run *r = run_kept(nvlinked, RM_ZERO_ONE_ZERO);
	if (w->out.uvm_collapsed_pages != pages)
		fail_msg("%llu pages collapsed, want %u", (unsigned long long)w->out.uvm_collapsed_pages,
			 pages);
	assert_true(w->out.uvm_invalidated_pages >= pages); /* GPU 0's copies */
	assert_true(w->out.uvm_peer_pages == 2 * pages);     /* the copy, then back to GPU 0 */
	if (!(w->stats[0].uvm.far_faults > r->stats[0].uvm.far_faults))
		fail_msg("GPU 0 after GPU 1's write: %llu far faults, %llu without the write",
			 (unsigned long long)w->stats[0].uvm.far_faults,
			 (unsigned long long)r->stats[0].uvm.far_faults);
	release(w);
}

/* accessed-by: GPU 1 reads x where it is, in GPU 0's memory */
static void test_accessed_by_reads_in_place(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, ACCESSED_BY);
	if (r->out.uvm_peer_pages != 0)
		fail_msg("%llu pages migrated GPU to GPU under accessed-by",
			 (unsigned long long)r->out.uvm_peer_pages);
	if (r->out.uvm_peer_remote_bytes != elems * 4ull)
		fail_msg("%llu bytes read in GPU 0's memory, want %u",
			 (unsigned long long)r->out.uvm_peer_remote_bytes, elems * 4u);
	assert_true(r->out.uvm_peer_nvlink_bytes == elems * 4ull);
	assert_true(r->stats[1].uvm.far_faults == 0);
	assert_true(r->stats[1].uvm.bytes_h2d == 0);
	assert_true(r->stats[1].uvm.remote_accesses > 0);
	release(r);
}

/* preferred location GPU 0: GPU 1 maps x there (a fault per page, no
 * migration) and GPU 0 keeps it, reading it again without a fault. GPU
 * 0's first touch of each 2 MB block of x, its preferred location, brings
 * the whole block (the tree-driver prefetcher's first-touch rule,
 * nvidia-uvm uvm_perf_prefetch.c): one far fault a block in all. */
static void test_preferred_maps_remotely(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREF_ZERO_ONE_ZERO);
	const uint64_t blocks = (pages + 511) / 512;
	if (r->out.uvm_peer_pages != 0)
		fail_msg("%llu pages migrated GPU to GPU with GPU 0 preferred",
			 (unsigned long long)r->out.uvm_peer_pages);
	assert_true(r->out.uvm_invalidated_pages == 0);
	if (r->stats[1].uvm.remote_map_faults != pages)
		fail_msg("GPU 1: %llu mapping faults, want %u (one per page)",
			 (unsigned long long)r->stats[1].uvm.remote_map_faults, pages);
	assert_true(r->out.uvm_peer_remote_bytes == elems * 4ull);
	assert_true(r->stats[1].uvm.bytes_h2d == 0);
	assert_true(r->stats[0].uvm.bytes_h2d == pages * 4096ull);
	if (r->stats[0].uvm.far_faults != blocks)
		fail_msg("GPU 0: %llu far faults reading x twice, want %llu (one a block, its first "
			 "touch)", (unsigned long long)r->stats[0].uvm.far_faults,
			 (unsigned long long)blocks);
	release(r);
}

/* preferred location GPU 0, x on the host, GPU 1 reads first: the driver
 * moves each page to GPU 0 (over GPU 0's host link) and GPU 1 maps it
 * there, reading over NVLink */
static void test_preferred_places_first(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREF_ONE);
	if (r->stats[0].uvm.bytes_h2d != pages * 4096ull)
		fail_msg("GPU 0 took %llu bytes from the host, want x's %u",
			 (unsigned long long)r->stats[0].uvm.bytes_h2d, pages * 4096u);
	assert_true(r->stats[1].uvm.bytes_h2d == 0);
	assert_true(r->stats[1].uvm.remote_bytes == 0); /* nothing read over its host link */
	assert_true(r->out.uvm_peer_remote_bytes == elems * 4ull);
	assert_true(r->out.uvm_peer_pages == 0);
	release(r);
}

/* preferred location the CPU: both GPUs read x in host memory over their
 * host links after a mapping fault per page; nothing migrates */
static void test_preferred_cpu_stays_on_host(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREF_CPU);
	for (uint32_t d = 0; d < 2; d++) {
		if (r->stats[d].uvm.bytes_h2d != 0 || r->stats[d].uvm.remote_map_faults != pages)
			fail_msg("GPU %u: %llu bytes migrated, %llu mapping faults (want 0, %u)", d,
				 (unsigned long long)r->stats[d].uvm.bytes_h2d,
				 (unsigned long long)r->stats[d].uvm.remote_map_faults, pages);
		assert_true(r->stats[d].uvm.remote_bytes >= elems * 4ull);
	}
	assert_true(r->out.uvm_peer_pages == 0);
	release(r);
}

/* without a GPU-GPU link GPU 1 cannot map GPU 0's memory: its faults
 * migrate x as without the advice (staged through the host) */
static void test_preferred_unreachable_migrates(void **state)
{
	(void)state;
	struct run *r = run_ok(unlinked, PREF_ZERO_ONE_ZERO);
	if (r->out.uvm_peer_pages != 2 * pages)
		fail_msg("%llu pages GPU to GPU, want %u (there and back)",
			 (unsigned long long)r->out.uvm_peer_pages, 2 * pages);
	assert_true(r->stats[1].uvm.remote_map_faults == 0);
	release(r);
}

/* preferred location GPU 0 and accessed-by GPU 1: GPU 1's mapping is kept,
 * it reads x in GPU 0's memory without a fault */
static void test_preferred_with_accessed_by(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREF_ACCESSED_BY);
	if (r->stats[1].uvm.far_faults != 0)
		fail_msg("GPU 1 took %llu far faults", (unsigned long long)r->stats[1].uvm.far_faults);
	assert_true(r->out.uvm_peer_pages == 0);
	assert_true(r->out.uvm_peer_remote_bytes == elems * 4ull);
	release(r);
}

/* read-mostly and a preferred location: read duplication comes first,
 * GPU 1 reads a copy of its own */
static void test_read_mostly_before_preferred(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, PREF_RM);
	if (r->out.uvm_duplicated_pages != 2 * pages || r->stats[1].uvm.remote_map_faults != 0)
		fail_msg("%llu pages duplicated, %llu mapping faults on GPU 1; want %u, 0",
			 (unsigned long long)r->out.uvm_duplicated_pages,
			 (unsigned long long)r->stats[1].uvm.remote_map_faults, 2 * pages);
	release(r);
}

/* access counters, t_s between one pass over a 64 KB block (512 warp
 * loads of a 128 B line) and two */
static const char *const counters[] = {"uvm.migration=always", "uvm.access_counter_threshold=768",
				       "uvm.counter_migration=fault", NULL};

/* GPU 1 reads x in GPU 0's memory twice: its counters reach the threshold
 * in the second pass and migrate x to GPU 1 over NVLink */
static void test_counters_migrate_to_reader(void **state)
{
	(void)state;
	extra_settings = counters;
	struct run *r = run_ok(nvlinked, AC_ONE_TWICE);
	extra_settings = NULL;
	if (r->out.uvm_peer_pages != pages || r->stats[1].uvm.migrations_counter == 0)
		fail_msg("%llu pages GPU to GPU, %llu counter migrations on GPU 1; want %u, > 0",
			 (unsigned long long)r->out.uvm_peer_pages,
			 (unsigned long long)r->stats[1].uvm.migrations_counter, pages);
	assert_true(r->out.uvm_peer_nvlink_bytes >= pages * 4096ull);
	assert_true(r->stats[1].uvm.bytes_h2d == 0);
	release(r);
}

/* the same with counter notices (uvm.counter_migration = async): GPU 1
 * reads the pages on their way from GPU 0 over NVLink, never over its
 * host link */
static void test_counter_notices_read_from_peer(void **state)
{
	(void)state;
	static const char *const notices[] = {"uvm.migration=always",
					      "uvm.access_counter_threshold=768",
					      "uvm.counter_migration=async", NULL};
	extra_settings = notices;
	struct run *r = run_ok(nvlinked, AC_ONE_TWICE);
	extra_settings = NULL;
	if (r->out.uvm_peer_pages != pages || r->stats[1].uvm.counter_notices == 0)
		fail_msg("%llu pages GPU to GPU, %llu counter notices on GPU 1; want %u, > 0",
			 (unsigned long long)r->out.uvm_peer_pages,
			 (unsigned long long)r->stats[1].uvm.counter_notices, pages);
	if (r->stats[1].uvm.remote_bytes != 0)
		fail_msg("GPU 1 read %llu bytes over its host link", (unsigned long long)r->stats[1].uvm.remote_bytes);
	release(r);
}

/* GPU 0's local reads count in GPU 0's counters only: GPU 1's one pass
 * stays below the threshold and nothing migrates */
static void test_counters_per_gpu(void **state)
{
	(void)state;
	extra_settings = counters;
	struct run *r = run_ok(nvlinked, AC_ZERO_ONE);
	extra_settings = NULL;
	if (r->out.uvm_peer_pages != 0)
		fail_msg("%llu pages migrated to GPU 1 after one pass of its own",
			 (unsigned long long)r->out.uvm_peer_pages);
	assert_true(r->out.uvm_peer_remote_bytes == elems * 4ull);
	release(r);
}

/* a preferred location elsewhere: the counters' migration goes there, so
 * GPU 1 reading twice leaves x on GPU 0 */
static void test_counters_keep_preferred(void **state)
{
	(void)state;
	extra_settings = counters;
	struct run *r = run_ok(nvlinked, AC_PREF_ONE_TWICE);
	extra_settings = NULL;
	assert_true(r->out.uvm_peer_pages == 0);
	assert_true(r->out.uvm_peer_remote_bytes == 2 * elems * 4ull);
	release(r);
}

/* access counters and no advice: the delayed migration reads host memory
 * remotely, not a page another GPU holds; GPU 1 faults x from GPU 0 */
static void test_counters_fault_from_peer(void **state)
{
	(void)state;
	extra_settings = counters;
	struct run *r = run_ok(nvlinked, AC_FAULT_ONE);
	extra_settings = NULL;
	if (r->out.uvm_peer_pages != pages || r->stats[1].uvm.remote_bytes != 0)
		fail_msg("%llu pages GPU to GPU, %llu bytes read remotely over GPU 1's host link; "
			 "want %u, 0", (unsigned long long)r->out.uvm_peer_pages,
			 (unsigned long long)r->stats[1].uvm.remote_bytes, pages);
	release(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_migrates_gpu_to_gpu),
		cmocka_unit_test(test_fault_staged_without_link),
		cmocka_unit_test(test_taken_pages_invalidated),
		cmocka_unit_test(test_managed_kernels_serialised),
		cmocka_unit_test(test_prefetch_to_gpu),
		cmocka_unit_test(test_prefetch_to_cpu),
		cmocka_unit_test(test_read_mostly_duplicates),
		cmocka_unit_test(test_write_collapses_duplicates),
		cmocka_unit_test(test_accessed_by_reads_in_place),
		cmocka_unit_test(test_preferred_maps_remotely),
		cmocka_unit_test(test_preferred_places_first),
		cmocka_unit_test(test_preferred_cpu_stays_on_host),
		cmocka_unit_test(test_preferred_unreachable_migrates),
		cmocka_unit_test(test_preferred_with_accessed_by),
		cmocka_unit_test(test_counters_migrate_to_reader),
		cmocka_unit_test(test_counter_notices_read_from_peer),
		cmocka_unit_test(test_counters_per_gpu),
		cmocka_unit_test(test_counters_keep_preferred),
		cmocka_unit_test(test_read_mostly_before_preferred),
		cmocka_unit_test(test_counters_fault_from_peer),
	};
	if (test_sanitized())
		elems = SANITIZED_ELEMS;
	pages = elems * 4u / 4096u;
	return cmocka_run_group_tests(tests, NULL, release_kept);
}
