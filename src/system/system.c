/* The system builder (system.h holds the contract): a config turned
 * into the components, and the ports that connect them: the translation
 * layer's two ports below it (the leaf PTE read to the memory partitions,
 * a finished walk to the UVM driver) and the driver's callbacks (the
 * shootdown, the L2 clock). */
#include "system/system.h"

#include "core/req_trace.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/counters.h"

/* ---- page-table reads -------------------------------------------------- */

/* Page tables live in device memory: a walk's leaf entry (8 B per page of
 * the first TLB level's entry size, the page the hardware maps) is a
 * sector read through the L2, competing with data for L2 lines and DRAM.
 * The walk latency of a preset is measured with entries the L2 holds
 * (Karnagel's probes touch few pages), so a hit adds nothing and a miss
 * adds its DRAM time. The tables sit below the local-memory window: 2^37
 * pages of 4 KiB x 8 B = 1 TiB at most. */
#define PAGE_TABLE_VA_BASE 0x3e0000000000ull
#define PTE_BYTES 8

static double walk_pte_read(void *ctx, const struct xlat_pte_req *req)
{
	struct system *sys = ctx;
	REQ_TRACE_DOWN("system", "walk_pte_read");
	uint64_t pte = PAGE_TABLE_VA_BASE + (req->addr >> sys->pte_page_shift) * PTE_BYTES;
	uint64_t sector = pte & ~(uint64_t)(sys->mem.sector_bytes - 1);
	double cycles = memsys_pte_read(&sys->mem, sector, req->t);
	REQ_TRACE_UP("system", "walk_pte_read");
	return cycles;
}

/* ---- unified memory -------------------------------------------------- */

/* The translation layer's page port: a finished walk of a managed page
 * goes to the driver (uvm_translate's response is the port's, with the
 * shootdowns its evictions made meanwhile, uvm_shootdown), and with it
 * the sector the SM serves next where the request names one
 * (uvm_translate_sector: the driver answers both in one request); any
 * other walk succeeds at its end. */
static struct xlat_walk_rsp page_walk_done(void *ctx, const struct xlat_walk_req *req)
{
	struct system *sys = ctx;
	REQ_TRACE_DOWN("system", "page_walk_done");
	struct xlat_walk_rsp rsp = {.ready = req->t, .fill_max_bytes = UINT64_MAX};
	bool managed = req->managed_known ? req->managed
					  : alloc_table_kind(&sys->allocs, req->addr) == GPUVM_ALLOC_MANAGED;
	if (managed) {
		sys->in_walk = true;
		sys->n_shot = 0;
		struct uvm_translation tr =
			req->access ? uvm_translate_sector(&sys->uvm, req->sm, req->addr, req->t,
							   req->access)
				    : uvm_translate(&sys->uvm, req->sm, req->addr, req->t);
		sys->in_walk = false;
		rsp = (struct xlat_walk_rsp){.ready = tr.ready, .fill_max_bytes = tr.fill_max_bytes,
					     .invalidate = sys->shot, .n_invalidate = sys->n_shot};
	}
	REQ_TRACE_UP("system", "page_walk_done");
	return rsp;
}

/* The driver's shootdown hook. Outside a walk, a request to the
 * translation layer; during one (an eviction making room for the walk's
 * page), the range joins the walk's response, so the translation layer,
 * whose request is below, is not re-entered (xlat.h: it drops the ranges
 * when the port returns, before touching a TLB again, which leaves every
 * TLB as the re-entry did). */
static void uvm_shootdown(void *ctx, uint64_t addr, uint64_t bytes)
{
	struct system *sys = ctx;
	REQ_TRACE_DOWN("system", "uvm_shootdown");
	if (sys->in_walk) {
		if (sys->n_shot == sys->cap_shot) {
			uint32_t cap = sys->cap_shot ? 2 * sys->cap_shot : 16;
			struct xlat_range *r = realloc(sys->shot, cap * sizeof *r);
			if (!r) {
				/* no room to defer: re-entered in order, as before
				 * (the same TLBs) */
				for (uint32_t i = 0; i < sys->n_shot; i++)
					xlat_invalidate_range(&sys->xlat, sys->shot[i].addr,
							      sys->shot[i].bytes);
				sys->n_shot = 0;
				xlat_invalidate_range(&sys->xlat, addr, bytes);
				REQ_TRACE_UP("system", "uvm_shootdown");
				return;
			}
			sys->shot = r;
			sys->cap_shot = cap;
		}
		sys->shot[sys->n_shot++] = (struct xlat_range){.addr = addr, .bytes = bytes};
	} else {
		xlat_invalidate_range(&sys->xlat, addr, bytes);
	}
	REQ_TRACE_UP("system", "uvm_shootdown");
}

static uint32_t uvm_l2_clock(void *ctx)
{
	struct system *sys = ctx;
	return memsys_l2_epoch(&sys->mem);
}

bool system_advise_applies(const struct gpuvm_config *cfg, const char *name)
{
	const char *list = cfg->uvm_advise_allocations;
	if (!*list)
		return true;
	char pat[GPUVM_UVM_ADVISE_LIST];
	while (*list) {
		list += strspn(list, " ");
		size_t n = strcspn(list, ",");
		snprintf(pat, sizeof pat, "%.*s", (int)n, list);
		if (fnmatch(pat, name, 0) == 0)
			return true;
		list += n + (list[n] == ',');
	}
	return false;
}

/* The cudaMemAdvise hints (UVM_ADVISE_*) of the managed allocation named
 * name on a system of one GPU: the preset's uvm.preferred_location = host
 * and uvm.accessed_by = gpu, where system_advise_applies. On several GPUs
 * none: multi_gpu.c gives each GPU's hints to the residency the GPUs
 * share, as the program's cudaMemAdvise would. */
static uint32_t alloc_advise(const struct system *sys, const char *name)
{
	const struct gpuvm_config *cfg = sys->cfg;
	uint32_t adv = (cfg->uvm_preferred_location == GPUVM_UVM_PREFERRED_HOST ? UVM_ADVISE_HOST : 0) |
		       (cfg->uvm_accessed_by ? UVM_ADVISE_ACCESSED_BY : 0);
	if (!adv || sys->uvm_shared)
		return 0;
	return system_advise_applies(cfg, name) ? adv : 0;
}

/* The paging layer exists only once managed memory does, so runs without
 * it pay nothing. */
int system_track_managed(struct system *sys, const struct gpuvm_alloc *a)
{
	if (!sys->uvm_on) {
		/* the driver's migrations and write-backs book the host link's
		 * lanes, where zero-copy packets and copies go too */
		struct uvm_hooks hooks = {.shootdown = uvm_shootdown, .l2_clock = uvm_l2_clock, .ctx = sys,
					  .lanes = {&sys->link.lane[LINK_H2D], &sys->link.lane[LINK_D2H]}};
		if (sys->uvm_observer)
			hooks.observer = *sys->uvm_observer;
		hooks.shared = sys->uvm_shared;
		hooks.proc = sys->uvm_proc;
		if (uvm_init(&sys->uvm, sys->cfg, &sys->stats->uvm, &hooks))
			return -1;
		sys->uvm_on = true;
		sys->sms.port.uvm = &sys->uvm;
		sys->sms.uvm_blocking = sys->cfg->uvm_fault_model == GPUVM_UVM_BLOCKING;
		sys->sms.uvm_counts = uvm_counts(&sys->uvm);
		xlat_connect_page_port(&sys->xlat,
				       (struct xlat_page_port){.walk_done = page_walk_done, .ctx = sys});
	}
	bool system_mem = a->kind == GPUVM_ALLOC_SYSTEM;
	uint32_t advise = system_mem ? UVM_ADVISE_SYSTEM : alloc_advise(sys, a->name);
	if (uvm_add_alloc(&sys->uvm, a->name, a->base, a->bytes, advise))
		return -1;
	if (system_mem)
		xlat_set_system_range(&sys->xlat, a->base, a->bytes, sys->cfg->c2c_system_page_bytes);
	sys->sms.uvm_counts = uvm_counts(&sys->uvm); /* hints of this allocation may turn it on */
	return 0;
}

/* ---- building -------------------------------------------------------- */

int system_init(struct system *sys, const struct gpuvm_config *cfg, struct gpuvm_stats *stats,
		const struct gpuvm_sim_options *opt)
{
	memset(sys, 0, sizeof *sys);
	sys->cfg = cfg;
	sys->stats = stats;
	/* a bare opt->progress (no reporter) draws the live terminal line */
	sys->progress_fn = opt ? opt->progress_fn : NULL;
	sys->progress_ctx = opt ? opt->progress_ctx : NULL;
	if (opt && opt->progress && !sys->progress_fn) {
		gpuvm_progress_init(&sys->live_progress, GPUVM_PROGRESS_LIVE, 0, stderr, NULL);
		sys->progress_fn = gpuvm_progress_report;
		sys->progress_ctx = &sys->live_progress;
	}
	sys->progress = sys->progress_fn != NULL;
	sys->uvm_observer = opt ? opt->uvm_observer : NULL;
	if (xlat_init(&sys->xlat, cfg, stats))
		return -1;
	if (cfg->pte_reads == GPUVM_PTE_READS_L2) {
		xlat_connect_pte_port(&sys->xlat,
				      (struct xlat_pte_port){.read = walk_pte_read, .ctx = sys});
	}
	uint64_t page = cfg->tlb[0].entry_bytes;
	for (uint32_t l = 1; l < cfg->tlb_levels; l++)
		if (cfg->tlb[l].entry_bytes < page)
			page = cfg->tlb[l].entry_bytes;
	sys->pte_page_shift = (unsigned)__builtin_ctzll(page);
	if (memsys_init(&sys->mem, cfg, stats))
		return -1;
	alloc_table_init(&sys->allocs);
	if (kernel_sampler_init(&sys->ks, opt, stats))
		return -1;
	if (link_init(&sys->link, cfg, stats))
		return -1;
	copy_stream_init(&sys->cs, sys->link.spec.latency_cycles);
	if (event_queue_init(&sys->events, cfg->sms * cfg->max_warps_per_sm))
		return -1;
	struct sm_ports ports = {.xlat = &sys->xlat, .mem = &sys->mem, .link = &sys->link,
				 .uvm = NULL, .allocs = &sys->allocs, .events = &sys->events};
	if (sm_layer_init(&sys->sms, cfg, stats, &ports))
		return -1;
	sys->sms.stats_rows = &gpuvm_run_section; /* its threads' copies merge by the rows */
	sys->sms.threads = opt && opt->threads > 1 ? opt->threads : 1;
	if (sys->sms.windowed && sm_partitions_init(&sys->parts, &sys->sms))
		return -1;
	cta_placer_init(&sys->placer, cfg);
	return 0;
}

void system_free(struct system *sys)
{
	if (sys->uvm_on)
		uvm_free(&sys->uvm);
	xlat_free(&sys->xlat);
	kernel_sampler_free(&sys->ks);
	memsys_free(&sys->mem);
	alloc_table_free(&sys->allocs);
	link_free(&sys->link);
	copy_stream_free(&sys->cs);
	event_queue_free(&sys->events);
	sm_partitions_free(&sys->parts);
	sm_layer_free(&sys->sms);
	free(sys->shot);
}
