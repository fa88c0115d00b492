/* The presets' cudaMemAdvise keys on a system of several GPUs
 * (src/system/multi_gpu.c preset_advice): each managed allocation takes
 * each GPU preset's uvm.accessed_by and uvm.preferred_location as if the
 * program had called cudaMemAdvise for that GPU on it right after
 * allocating it, GPU 0 first. Each test names the mechanism it would
 * catch missing:
 *  - uvm.accessed_by = gpu on GPU 1's preset gives the counters of the
 *    program's simt_mem_advise(ACCESSED_BY, 1) on both allocations: GPU 1
 *    reads x and y in GPU 0's memory over NVLink, nothing migrates GPU to
 *    GPU (the hints of GPU 1, and of every allocation, not the first);
 *  - uvm.preferred_location = host keeps x and y in host memory: each
 *    GPU maps them remotely (a mapping fault a page) and migrates nothing,
 *    as the program's SetPreferredLocation(cudaCpuDeviceId);
 *  - presets that disagree: the last GPU's preferred location wins (host
 *    on GPU 0 and gpu on GPU 1: GPU 1's memory; gpu on GPU 0 and host on
 *    GPU 1: the host), as the program's two calls in GPU order;
 *  - uvm.advise_allocations names the allocations the keys apply to;
 *  - the prefetcher's first-touch rule (tree-driver: the whole 2 MB
 *    block when nothing of it is resident) follows the range's preferred
 *    location, whichever preset or call set it: on the GPU the range
 *    prefers, not on a GPU whose preset says gpu for another range, and
 *    not once another GPU holds a page of the block (nvidia-uvm
 *    uvm_perf_prefetch.c: va_block->resident empty and the new residency
 *    policy->preferred_location). */
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

/* two h100 on PCIe to one CPU, joined by 2 x 100 GB/s NVLink per direction */
static const char nvlinked[] =
	"[system]\nname = two\ndescription = test\nsource = test\n"
	"[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"
	"[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"
	"[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"
	"[link.1]\nkind = pcie\nendpoints = gpu.1 cpu.0\nbandwidth_gb_s = 64\n"
	"[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\nbandwidth_gb_s = 100\ncount = 2\n";

/* the same without a GPU-GPU link: neither GPU maps the other's memory */
static const char unlinked[] =
	"[system]\nname = two\ndescription = test\nsource = test\n"
	"[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"
	"[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"
	"[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"
	"[link.1]\nkind = pcie\nendpoints = gpu.1 cpu.0\nbandwidth_gb_s = 64\n";

#define ELEMS (1u << 18) /* 1 MiB of floats: 256 pages an array */
#define PAGES (ELEMS * 4u / 4096u)

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

/* the program's own cudaMemAdvise calls on x and y, right after allocating */
enum prog_advice {
	NONE,
	ACCESSED_BY_1, /* SetAccessedBy(GPU 1) */
	PREF_CPU,      /* SetPreferredLocation(cudaCpuDeviceId) */
	PREF_CPU_THEN_1, /* SetPreferredLocation(cudaCpuDeviceId), then (GPU 1) */
	PREF_0_THEN_CPU, /* SetPreferredLocation(GPU 0), then (cudaCpuDeviceId) */
};

static int advise(struct simt_host *h, const float *p, enum prog_advice k)
{
	uint64_t b = ELEMS * 4ull;
	switch (k) {
	case NONE:
		return 0;
	case ACCESSED_BY_1:
		return simt_mem_advise(h, p, b, SIMT_ADVISE_ACCESSED_BY, 1);
	case PREF_CPU:
		return simt_mem_advise(h, p, b, SIMT_ADVISE_PREFERRED_LOCATION, SIMT_CPU_DEVICE);
	case PREF_CPU_THEN_1:
		return simt_mem_advise(h, p, b, SIMT_ADVISE_PREFERRED_LOCATION, SIMT_CPU_DEVICE) ||
		       simt_mem_advise(h, p, b, SIMT_ADVISE_PREFERRED_LOCATION, 1);
	case PREF_0_THEN_CPU:
		return simt_mem_advise(h, p, b, SIMT_ADVISE_PREFERRED_LOCATION, 0) ||
		       simt_mem_advise(h, p, b, SIMT_ADVISE_PREFERRED_LOCATION, SIMT_CPU_DEVICE);
	}
	return -1;
}

static int launch_read(struct simt_host *h, const float *x, float *out)
{
	struct read_args a = {x, out, ELEMS};
	return SIMT_LAUNCH(h, read_kernel, simt_dim3(ELEMS / 256, 1, 1), simt_dim3(256, 1, 1), a);
}

/* managed x and y; GPU 0 reads both, then GPU 1 */
static int program(struct simt_host *h, void *user)
{
	enum prog_advice k = *(const enum prog_advice *)user;
	float *x = simt_malloc(h, "x", ELEMS * 4ull, GPUVM_ALLOC_MANAGED);
	if (!x || advise(h, x, k))
		return -1;
	float *y = simt_malloc(h, "y", ELEMS * 4ull, GPUVM_ALLOC_MANAGED);
	if (!y || advise(h, y, k))
		return -1;
	float *o0 = simt_malloc(h, "o0", ELEMS * 4ull, GPUVM_ALLOC_DEVICE);
	if (!o0 || simt_set_device(h, 1))
		return -1;
	float *o1 = simt_malloc(h, "o1", ELEMS * 4ull, GPUVM_ALLOC_DEVICE);
	if (!o1 || simt_set_device(h, 0))
		return -1;
	for (unsigned i = 0; i < ELEMS; i++)
		x[i] = y[i] = (float)(i & 255);
	return launch_read(h, x, o0) || launch_read(h, y, o0) || simt_device_sync(h) ||
			       simt_set_device(h, 1) || launch_read(h, x, o1) ||
			       launch_read(h, y, o1) || simt_device_sync(h)
		       ? -1
		       : 0;
}

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

/* program k with g0's settings on GPU 0's preset and g1's on GPU 1's
 * (NULL-terminated; NULL: none) */
static struct run *run_ok(enum prog_advice k, const char *const *g0, const char *const *g1)
{
	static enum prog_advice kk;
	kk = k;
	struct gpuvm_error err = {{0}};
	struct run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("advise-keys", program, &kk, NULL, &src, &err), 0);
	const char *const *per_gpu[2] = {g0, g1};
	if (system_run_gpus(&r->desc, r->cfg, r->stats, &r->out, 2, nvlinked, "two.ini", NULL,
			    per_gpu, &src, &err))
		fail_msg("run failed: %s", err.msg);
	return r;
}

static void release(struct run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
	free(r);
}

/* the counters the advice decides, equal in a and b */
static void same_counters(const struct run *a, const struct run *b)
{
#define SAME(f)                                                                         \
	do {                                                                            \
		if (a->f != b->f)                                                       \
			fail_msg(#f ": %llu with the presets' keys, %llu with the program's " \
				 "advice", (unsigned long long)a->f, (unsigned long long)b->f); \
	} while (0)
	SAME(out.uvm_peer_pages);
	SAME(out.uvm_peer_nvlink_bytes);
	SAME(out.uvm_peer_remote_bytes);
	SAME(out.uvm_invalidated_pages);
	for (uint32_t d = 0; d < 2; d++) {
		SAME(stats[d].uvm.far_faults);
		SAME(stats[d].uvm.remote_map_faults);
		SAME(stats[d].uvm.remote_accesses);
		SAME(stats[d].uvm.remote_bytes);
		SAME(stats[d].uvm.bytes_h2d);
		SAME(stats[d].uvm.pages_h2d);
		SAME(stats[d].sim_cycles);
	}
#undef SAME
}

/* accessed-by on GPU 1's preset: GPU 1 reads x and y where GPU 0 put
 * them, as under the program's SetAccessedBy(1) on both */
static void test_accessed_by_key_is_the_advice(void **state)
{
	(void)state;
	static const char *const ab[] = {"uvm.accessed_by=gpu", NULL};
	struct run *keys = run_ok(NONE, NULL, ab);
	struct run *prog = run_ok(ACCESSED_BY_1, NULL, NULL);
	struct run *plain = run_ok(NONE, NULL, NULL);
	if (keys->out.uvm_peer_pages != 0)
		fail_msg("%llu pages migrated GPU to GPU with GPU 1's preset accessed-by",
			 (unsigned long long)keys->out.uvm_peer_pages);
	assert_true(keys->out.uvm_peer_remote_bytes == 2ull * ELEMS * 4);
	assert_true(keys->stats[1].uvm.far_faults == 0);
	assert_true(plain->out.uvm_peer_pages == 2ull * PAGES); /* without: both migrate */
	same_counters(keys, prog);
	release(keys);
	release(prog);
	release(plain);
}

/* uvm.advise_allocations = y: only y is accessed by GPU 1, x migrates */
static void test_advise_allocations_names_them(void **state)
{
	(void)state;
	static const char *const ab[] = {"uvm.accessed_by=gpu", "uvm.advise_allocations=y", NULL};
	struct run *r = run_ok(NONE, NULL, ab);
	if (r->out.uvm_peer_pages != PAGES || r->out.uvm_peer_remote_bytes != ELEMS * 4ull)
		fail_msg("%llu pages migrated, %llu bytes read in place: want x's %u pages, y's %u "
			 "bytes", (unsigned long long)r->out.uvm_peer_pages,
			 (unsigned long long)r->out.uvm_peer_remote_bytes, PAGES, ELEMS * 4u);
	release(r);
}

/* preferred location host on both presets: x and y stay in host memory,
 * each GPU maps them, as under the program's SetPreferredLocation(CPU) */
static void test_preferred_host_key_stays_on_host(void **state)
{
	(void)state;
	static const char *const host[] = {"uvm.preferred_location=host", NULL};
	struct run *keys = run_ok(NONE, host, host);
	struct run *prog = run_ok(PREF_CPU, NULL, NULL);
	for (uint32_t d = 0; d < 2; d++) {
		if (keys->stats[d].uvm.bytes_h2d != 0 ||
		    keys->stats[d].uvm.remote_map_faults != 2ull * PAGES)
			fail_msg("GPU %u: %llu bytes migrated, %llu mapping faults (want 0, %u)", d,
				 (unsigned long long)keys->stats[d].uvm.bytes_h2d,
				 (unsigned long long)keys->stats[d].uvm.remote_map_faults, 2 * PAGES);
		assert_true(keys->stats[d].uvm.remote_bytes >= 2ull * ELEMS * 4);
	}
	assert_true(keys->out.uvm_peer_pages == 0);
	same_counters(keys, prog);
	release(keys);
	release(prog);
}

/* host on GPU 0's preset, gpu on GPU 1's: GPU 1's advice comes last and
 * wins; x and y live on GPU 1, which takes them from the host when GPU
 * 0 faults, and GPU 0 maps them there */
static void test_disagreeing_presets_last_gpu_wins(void **state)
{
	(void)state;
	static const char *const host[] = {"uvm.preferred_location=host", NULL};
	static const char *const gpu[] = {"uvm.preferred_location=gpu", NULL};
	struct run *keys = run_ok(NONE, host, gpu);
	struct run *prog = run_ok(PREF_CPU_THEN_1, NULL, NULL);
	if (keys->stats[1].uvm.bytes_h2d != 2ull * PAGES * 4096 ||
	    keys->stats[0].uvm.bytes_h2d != 0)
		fail_msg("host then GPU 1: GPU 1 took %llu bytes from the host, GPU 0 %llu (want "
			 "%u, 0: GPU 1's advice last)",
			 (unsigned long long)keys->stats[1].uvm.bytes_h2d,
			 (unsigned long long)keys->stats[0].uvm.bytes_h2d, 2 * PAGES * 4096);
	assert_true(keys->stats[0].uvm.remote_map_faults == 2ull * PAGES);
	assert_true(keys->out.uvm_peer_remote_bytes == 2ull * ELEMS * 4);
	same_counters(keys, prog);
	release(keys);
	release(prog);
	/* the other way round: the host, last, wins */
	keys = run_ok(NONE, gpu, host);
	prog = run_ok(PREF_0_THEN_CPU, NULL, NULL);
	for (uint32_t d = 0; d < 2; d++)
		if (keys->stats[d].uvm.bytes_h2d != 0)
			fail_msg("GPU 0 then host: GPU %u took %llu bytes from the host (want 0: the "
				 "host's advice last)", d,
				 (unsigned long long)keys->stats[d].uvm.bytes_h2d);
	same_counters(keys, prog);
	release(keys);
	release(prog);
}

/* One page of x read by GPU 0 and then one by GPU 1 (UINT32_MAX: that
 * GPU reads none), after the program's SetPreferredLocation(pref_gpu) on
 * x (-1: none). */
struct touch {
	int pref_gpu;
	uint32_t page[2];
};

static int touch_program(struct simt_host *h, void *user)
{
	const struct touch *t = user;
	float *x = simt_malloc(h, "x", ELEMS * 4ull, GPUVM_ALLOC_MANAGED);
	if (!x || (t->pref_gpu >= 0 && simt_mem_advise(h, x, ELEMS * 4ull,
						       SIMT_ADVISE_PREFERRED_LOCATION,
						       (unsigned)t->pref_gpu)))
		return -1;
	float *y = simt_malloc(h, "y", ELEMS * 4ull, GPUVM_ALLOC_MANAGED);
	if (!y)
		return -1;
	for (unsigned i = 0; i < ELEMS; i++)
		x[i] = (float)(i & 255);
	for (unsigned d = 0; d < 2; d++) {
		if (t->page[d] == UINT32_MAX)
			continue;
		float *o = simt_set_device(h, d) ? NULL : simt_malloc(h, "o", 4096, GPUVM_ALLOC_DEVICE);
		struct read_args a = {x + t->page[d] * 1024u, o, 1024};
		if (!o || SIMT_LAUNCH(h, read_kernel, simt_dim3(4, 1, 1), simt_dim3(256, 1, 1), a) ||
		    simt_device_sync(h))
			return -1;
	}
	return 0;
}

/* The pages GPU d took from the host or another GPU in touch program t
 * on sys, with g0's settings on GPU 0's preset and g1's on GPU 1's. */
static uint64_t touch_pages(const char *sys, struct touch t, uint32_t d, const char *const *g0,
			    const char *const *g1)
{
	static struct touch tt;
	tt = t;
	struct gpuvm_error err = {{0}};
	struct run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("touch", touch_program, &tt, NULL, &src, &err), 0);
	const char *const *per_gpu[2] = {g0, g1};
	if (system_run_gpus(&r->desc, r->cfg, r->stats, &r->out, 2, sys, "two.ini", NULL, per_gpu,
			    &src, &err))
		fail_msg("run failed: %s", err.msg);
	uint64_t pages = r->stats[d].uvm.pages_h2d;
	release(r);
	return pages;
}

/* h100's tree-driver prefetcher on a fault of one page of an untouched
 * block: its 64 KB big page (16 pages), or the block's 256 pages of x when
 * the faulting GPU is the range's preferred location */
#define BIG_PAGE_PAGES 16u
static void test_preferred_gpu_prefetch_follows_range(void **state)
{
	(void)state;
	static const char *const gpu[] = {"uvm.preferred_location=gpu", NULL};
	static const char *const gpu_y[] = {"uvm.preferred_location=gpu", "uvm.advise_allocations=y",
					    NULL};
	uint64_t n;
	/* the program prefers GPU 1: GPU 1's first touch takes the block */
	n = touch_pages(nvlinked, (struct touch){1, {UINT32_MAX, 0}}, 1, NULL, NULL);
	if (n != PAGES)
		fail_msg("x prefers GPU 1 (the program's advice): GPU 1's first touch took %llu "
			 "pages, want the block's %u", (unsigned long long)n, PAGES);
	/* as GPU 1's preset key does */
	n = touch_pages(nvlinked, (struct touch){-1, {UINT32_MAX, 0}}, 1, NULL, gpu);
	assert_int_equal(n, PAGES);
	/* GPU 0's preset says gpu for y only: x prefers nothing, GPU 0's
	 * first touch of x takes its big page */
	n = touch_pages(nvlinked, (struct touch){-1, {0, UINT32_MAX}}, 0, gpu_y, NULL);
	if (n != BIG_PAGE_PAGES)
		fail_msg("x prefers nothing (GPU 0's key names y): GPU 0 took %llu pages, want "
			 "%u", (unsigned long long)n, BIG_PAGE_PAGES);
	/* GPU 0's and GPU 1's presets say gpu: x prefers GPU 1 (the last);
	 * GPU 0, which cannot map GPU 1's memory, faults x in without the
	 * rule */
	n = touch_pages(unlinked, (struct touch){-1, {0, UINT32_MAX}}, 0, gpu, gpu);
	if (n != BIG_PAGE_PAGES)
		fail_msg("x prefers GPU 1 (the last key): GPU 0 took %llu pages, want %u",
			 (unsigned long long)n, BIG_PAGE_PAGES);
	/* x prefers GPU 1, GPU 0 holds a page of the block: GPU 1's fault is
	 * no first touch */
	n = touch_pages(unlinked, (struct touch){1, {0, 128}}, 1, NULL, NULL);
	if (n != BIG_PAGE_PAGES)
		fail_msg("GPU 0 holds part of the block: GPU 1 took %llu pages, want %u",
			 (unsigned long long)n, BIG_PAGE_PAGES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessed_by_key_is_the_advice),
		cmocka_unit_test(test_advise_allocations_names_them),
		cmocka_unit_test(test_preferred_host_key_stays_on_host),
		cmocka_unit_test(test_disagreeing_presets_last_gpu_wins),
		cmocka_unit_test(test_preferred_gpu_prefetch_follows_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
