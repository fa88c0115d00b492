/* cudaMemAdvise lives as long as its allocation: cudaFree of a managed
 * allocation drops the advice ranges it covered, as nvidia-uvm keeps a
 * range's policy (preferred location, accessed-by, read-mostly) in its
 * va_range and destroys it with the range (uvm_va_range.c
 * uvm_va_range_destroy). A program here frees an advised allocation x
 * and makes y at the same addresses (the SIMT host never reuses an
 * address, a trace or a library caller may): y must behave as if x had
 * had no advice.
 *  - several GPUs (uvm_shared_drop_ranges, src/system/multi_gpu.c
 *    free_op): GPU 1 reads y after x was advised preferred-location GPU 0,
 *    preferred-location CPU, accessed-by GPU 1 or read-mostly; each
 *    leaves GPU 1 faulting y in as after no advice (before the fix it
 *    mapped y remotely, read it in place, or duplicated it);
 *  - one GPU (uvm_host_drop_ranges, uvm_evict.c uvm_remove_alloc): after
 *    x was read-mostly, a CPU read of y migrates it back as after no
 *    advice (before the fix the CPU duplicated it). */
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
#include "gpuvm/stream.h"
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

#define BASE (1ull << 40)
#define BYTES (1ull << 20) /* 256 pages, one 2 MB VA block */
#define PAGES (BYTES >> 12)
#define LINES_PER_WARP 64u
#define WARPS_PER_CTA 4u

/* the advice on x before its free */
enum advice { NONE, PREF_GPU0, PREF_CPU, ACCESSED_BY_GPU1, READ_MOSTLY };

struct prog {
	enum advice adv;
	uint32_t reader; /* the GPU whose kernel reads y */
	bool cpu_read;   /* a CPU phase reads y after the kernel */
	int step;
	struct gpuvm_kernel k;
};

struct warp_st {
	uint64_t next, end;
};

/* each warp reads LINES_PER_WARP consecutive 128 B lines of y */
static void wb(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	(void)k;
	struct warp_st *w = state;
	w->next = BASE + ((uint64_t)cta * WARPS_PER_CTA + warp) * LINES_PER_WARP * 128;
	w->end = w->next + LINES_PER_WARP * 128;
}

static int wn(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
	      struct gpuvm_error *err)
{
	(void)k;
	(void)err;
	struct warp_st *w = state;
	memset(it, 0, sizeof *it);
	if (w->next >= w->end) {
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
	it->kind = GPUVM_ITEM_MEM;
	it->op = GPUVM_OP_LOAD;
	it->bytes_per_lane = 4;
	it->active_mask = 0xffffffffu;
	for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
		it->addr[l] = w->next + 4 * l;
	w->next += 128;
	return 0;
}

static const struct gpuvm_kernel_ops kops = {
	.warp_state_bytes = sizeof(struct warp_st), .warp_begin = wb, .warp_next = wn};

static void managed(struct gpuvm_run_op *op, const char *name)
{
	op->kind = GPUVM_RUN_ALLOC;
	snprintf(op->alloc.name, sizeof op->alloc.name, "%s", name);
	op->alloc.base = BASE;
	op->alloc.bytes = BYTES;
	op->alloc.kind = GPUVM_ALLOC_MANAGED;
}

/* alloc x, advise x, free x, alloc y at x's addresses, the reader's
 * kernel on y, a CPU read of y */
static int next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	(void)err;
	struct prog *p = s->impl;
	memset(op, 0, sizeof *op);
	switch (p->step++) {
	case 0:
		managed(op, "x");
		return 0;
	case 1:
		if (p->adv != NONE) {
			op->kind = GPUVM_RUN_ADVISE;
			op->copy_addr = BASE;
			op->copy_bytes = BYTES;
			op->advice = p->adv == READ_MOSTLY        ? GPUVM_ADVISE_READ_MOSTLY
				     : p->adv == ACCESSED_BY_GPU1 ? GPUVM_ADVISE_ACCESSED_BY
								  : GPUVM_ADVISE_PREFERRED_LOCATION;
			op->device = p->adv == ACCESSED_BY_GPU1 ? 1 : 0;
			op->prefetch_to_cpu = p->adv == PREF_CPU;
			return 0;
		}
		p->step++;
		/* fall through */
	case 2:
		op->kind = GPUVM_RUN_FREE;
		op->alloc.base = BASE;
		op->alloc.bytes = BYTES;
		op->alloc.kind = GPUVM_ALLOC_MANAGED;
		return 0;
	case 3:
		managed(op, "y");
		return 0;
	case 4:
		op->kind = GPUVM_RUN_KERNEL;
		op->device = p->reader;
		snprintf(p->k.name, sizeof p->k.name, "read_y");
		p->k.grid[0] = (uint32_t)(BYTES / (128 * LINES_PER_WARP * WARPS_PER_CTA));
		p->k.grid[1] = p->k.grid[2] = 1;
		p->k.block[0] = 32 * WARPS_PER_CTA;
		p->k.block[1] = p->k.block[2] = 1;
		p->k.ops = &kops;
		op->kernel = &p->k;
		return 0;
	case 5:
		if (p->cpu_read) {
			op->kind = GPUVM_RUN_HOST_ACCESS;
			op->copy_addr = BASE;
			op->copy_bytes = BYTES;
			return 0;
		}
		/* fall through */
	default:
		op->kind = GPUVM_RUN_END;
		return 0;
	}
}

static const struct gpuvm_source_ops sops = {.kind = "test", .next_op = next_op};

static void no_destroy(struct gpuvm_source *s)
{
	(void)s;
}

static const struct gpuvm_source_ops sops_system = {
	.kind = "test", .next_op = next_op, .destroy = no_destroy};

struct sys_run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

/* the program with advice adv on x, y read by GPU 1 of the two */
static struct sys_run *run_two(enum advice adv)
{
	struct sys_run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	struct prog p = {.adv = adv, .reader = 1};
	struct gpuvm_source src = {.ops = &sops_system, .impl = &p};
	struct gpuvm_error err = {{0}};
	if (system_run(&r->desc, r->cfg, r->stats, &r->out, 2, nvlinked, "two.ini", NULL, &src,
		       &err))
		fail_msg("run failed: %s", err.msg);
	return r;
}

static void release(struct sys_run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
	free(r);
}

static void test_freed_advice_gone_on_two_gpus(void **state)
{
	(void)state;
	struct sys_run *plain = run_two(NONE);
	/* without advice GPU 1 faults y in from the host */
	assert_true(plain->stats[1].uvm.pages_h2d == PAGES);
	assert_true(plain->stats[1].uvm.far_faults > 0);
	static const char *const names[] = {"none", "preferred location GPU 0",
					    "preferred location CPU", "accessed by GPU 1",
					    "read-mostly"};
	for (enum advice a = PREF_GPU0; a <= READ_MOSTLY; a++) {
		struct sys_run *r = run_two(a);
#define SAME(f)                                                                             \
	do {                                                                                \
		if (r->f != plain->f)                                                       \
			fail_msg("x freed after '%s': y's " #f " %llu, %llu without advice", \
				 names[a], (unsigned long long)r->f,                        \
				 (unsigned long long)plain->f);                             \
	} while (0)
		SAME(out.uvm_peer_pages);
		SAME(out.uvm_peer_remote_bytes);
		SAME(out.uvm_duplicated_pages);
		for (uint32_t d = 0; d < 2; d++) {
			SAME(stats[d].uvm.far_faults);
			SAME(stats[d].uvm.remote_map_faults);
			SAME(stats[d].uvm.remote_bytes);
			SAME(stats[d].uvm.pages_h2d);
			SAME(stats[d].sim_cycles);
		}
#undef SAME
		release(r);
	}
	release(plain);
}

/* one GPU: x read-mostly, freed; the CPU's read of y after the GPU's
 * kernel migrates y back (no duplicate) */
static void run_one(enum advice adv, struct gpuvm_stats *st)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err = {{0}};
	if (gpuvm_config_load(&cfg, "h100", &err) || gpuvm_config_finalize(&cfg, &err))
		fail_msg("config: %s", err.msg);
	struct prog p = {.adv = adv, .reader = 0, .cpu_read = true};
	struct gpuvm_source src = {.ops = &sops, .impl = &p};
	if (gpuvm_simulate(&cfg, &src, NULL, st, &err))
		fail_msg("simulate: %s", err.msg);
}

static void test_freed_read_mostly_gone_on_one_gpu(void **state)
{
	(void)state;
	struct gpuvm_stats plain, freed;
	run_one(NONE, &plain);
	run_one(READ_MOSTLY, &freed);
	assert_true(plain.uvm.cpu_fault_pages == PAGES); /* y migrates back */
	assert_true(plain.uvm.cpu_duplicated_pages == 0);
	if (freed.uvm.cpu_duplicated_pages != 0 || freed.uvm.cpu_fault_pages != PAGES)
		fail_msg("x read-mostly and freed: the CPU's read of y duplicated %llu pages and "
			 "took %llu back, want 0 and %llu (as without advice)",
			 (unsigned long long)freed.uvm.cpu_duplicated_pages,
			 (unsigned long long)freed.uvm.cpu_fault_pages, (unsigned long long)PAGES);
	assert_true(freed.sim_cycles == plain.sim_cycles);
	gpuvm_stats_release(&plain);
	gpuvm_stats_release(&freed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freed_advice_gone_on_two_gpus),
		cmocka_unit_test(test_freed_read_mostly_gone_on_one_gpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
