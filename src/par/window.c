/* The lookahead window from a preset (window.h). Every answer that crosses
 * from the memory side to an SM travels one of these paths; the window is
 * the shortest:
 *  - data: the crossbar out (load_base / 2, sm.c), the L2's hit latency,
 *    the crossbar back (memsys.h: memsys_after_l2): load_base + l2 hit
 *    (p100 173 + 120 = 293: GPGPU-Sim's -gpgpu_l2_rop_latency and the
 *    measured L2 load latency the preset cites);
 *  - translation: a TLB level whose instance serves SMs of more than one
 *    partition (its share domain wider than the partition, an explicit
 *    map, or a peer scheme that probes other instances) answers after the levels before it missed (their hit latency and
 *    miss penalty, xlat.c: translate_level) plus its own hit latency; the
 *    data may then come from the SM's own L1 (its hit latency) or, with no
 *    L1, over the L2 path;
 *  - the walker (memory side) with a page-walk-cache hit after every TLB
 *    level missed, then the L1 or the L2 path.
 * Zero-copy (crossbar + PCIe), far faults and DRAM are longer than the L2
 * path by construction and are not candidates. */
#include "par/window.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "core/env_knob.h"

const char *par_scope_name(enum par_scope s)
{
	return s == PAR_SCOPE_GPC ? "gpc" : "tpc";
}

/* Does one instance of a level with this domain serve SMs of two
 * partitions of this scope? */
static bool crosses(const struct gpuvm_tlb_level_config *lc, enum par_scope scope)
{
	/* a sharing scheme probes other instances, which may be anywhere */
	if (lc->peer[0] && strcmp(lc->peer, "none"))
		return true;
	switch (lc->share) {
	case GPUVM_SHARE_SM:
	case GPUVM_SHARE_TPC:
		return false;
	case GPUVM_SHARE_GPC:
		return scope == PAR_SCOPE_TPC;
	default: /* GPU-wide, or a map that may join any SMs */
		return true;
	}
}

void par_window_of(const struct gpuvm_config *cfg, enum par_scope scope, struct par_window *w)
{
	*w = (struct par_window){0};
	w->partitions = scope == PAR_SCOPE_GPC ? cfg->gpcs : cfg->gpcs * cfg->tpcs_per_gpc;
	double l2 = cfg->load_base_latency_cycles + cfg->l2_hit_latency_cycles;
	/* after a translation, the data from the SM's own L1 when it has one */
	double data = cfg->l1_bytes ? cfg->l1_hit_latency_cycles : l2;
	w->l2_round_trip_cycles = l2;
	w->cycles = l2;
	snprintf(w->limit, sizeof w->limit, "L2 hit round trip: load_base %.0f + l2 hit %.0f",
		 cfg->load_base_latency_cycles, cfg->l2_hit_latency_cycles);
	double reach = 0; /* until level i is asked: the levels before it missed */
	for (uint32_t i = 0; i < cfg->tlb_levels; i++) {
		const struct gpuvm_tlb_level_config *lc = &cfg->tlb[i];
		if (crosses(lc, scope) && !w->shared_tlb_cycles) {
			w->shared_tlb_cycles = reach + lc->hit_latency_cycles + data;
			if (w->shared_tlb_cycles < w->cycles) {
				w->cycles = w->shared_tlb_cycles;
				snprintf(w->limit, sizeof w->limit,
					 "tlb.l%u (share %s) beyond the %s: levels before it missing %.0f "
					 "+ its hit %.0f + %s %.0f",
					 i + 1, gpuvm_share_domain_name(lc->share), par_scope_name(scope),
					 reach, lc->hit_latency_cycles, cfg->l1_bytes ? "L1 hit" : "L2 path",
					 data);
			}
		}
		reach += lc->hit_latency_cycles + lc->miss_penalty_cycles;
	}
	if (cfg->tlb_levels) {
		double walk = cfg->pwc_entries ? cfg->pwc_hit_walk_latency_cycles
					       : cfg->walk_latency_cycles;
		w->walker_cycles = reach + walk + data;
		if (w->walker_cycles < w->cycles) {
			w->cycles = w->walker_cycles;
			snprintf(w->limit, sizeof w->limit,
				 "walker: every TLB level missing %.0f + walk %.0f + data %.0f", reach,
				 walk, data);
		}
	}
}

enum window_threads window_threads_knob(void)
{
	static const char *const words[] = {"barrier", "partitions", "all"};
	return (enum window_threads)env_knob_word("GPUVM_WINDOW_THREADS", words, 3,
						  WINDOW_THREADS_BARRIER);
}
