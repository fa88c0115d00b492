/* Kernel sampling's fast-forward of a launch and the progress samples of
 * a launch (kernel_ff.h). */
#include "system/kernel_ff.h"

#include "system/system.h"

void kernel_show_progress(struct system *sys, const struct sm_launch *kr, double cycles, bool final)
{
	struct gpuvm_progress_sample p = {
		.kernel_index = sys->kernel_index, .kernel = kr->k->name,
		.ctas_done = kr->ctas_done, .ctas = kr->ctas,
		.warp_insts = sys->stats->warp_insts, .thread_accesses = sys->stats->thread_accesses,
		.sim_cycles = cycles, .launch_end = final,
	};
	sys->progress_fn(sys->progress_ctx, &p);
}

/* run_kernel admits blocks of up to gpu.max_warps_per_sm warps, which
 * config_keys.c bounds by 1024 */
#define FF_MAX_WARPS_PER_CTA 1024

/* Kernel sampling's fast-forward: drives every warp of the launch
 * functionally, CTA by CTA (its warps round robin, an item each, so warps
 * that wait on one another still progress), with no timing model and no
 * TLB, L2 or DRAM state touched. Work counters stay exact; time is the
 * class's cycles per warp instruction, the other counters its rates per
 * thread access (kernel_sampling.c). */
int kernel_fast_forward(struct system *sys, struct sm_launch *kr, const struct ks_class *cls,
			double t, struct gpuvm_error *err)
{
	struct gpuvm_kernel *k = kr->k;
	struct gpuvm_stats *s = sys->stats;
	const struct gpuvm_kernel_ops *ops = k->ops;
	uint64_t insts0 = s->warp_insts, accesses0 = s->thread_accesses;
	uint32_t wpc = kr->warps_per_cta;
	double cpi = cls->cycles_per_warp_inst;
	unsigned char live[FF_MAX_WARPS_PER_CTA];
	struct gpuvm_warp_item item;
	uint64_t steps = 0;
	k->functional = true;
	for (; kr->next_cta < kr->ctas; kr->next_cta++) {
		s->ctas++;
		for (uint32_t wi = 0; wi < wpc; wi++) {
			ops->warp_begin(k, sys->sms.warp_state + (size_t)wi * sys->sms.warp_state_cap,
					(uint32_t)kr->next_cta, wi);
			live[wi] = 1;
			s->warps++;
		}
		for (uint32_t alive = wpc; alive;) {
			for (uint32_t wi = 0; wi < wpc; wi++) {
				if (!live[wi])
					continue;
				unsigned char *state = sys->sms.warp_state + (size_t)wi * sys->sms.warp_state_cap;
				/* the clock a warp reads: the estimate of time so far */
				k->clock_cycles = t + (double)(s->warp_insts - insts0) * cpi;
				gpuvm_item_reset_timing(&item);
				if (ops->warp_next(k, state, &item, err) < 0) {
					k->functional = false;
					return -1;
				}
				if (item.kind == GPUVM_ITEM_COMPUTE) {
					s->warp_insts += item.compute_insts;
				} else if (item.kind == GPUVM_ITEM_BARRIER) {
					s->warp_insts++;
					s->barriers++;
				} else if (item.kind == GPUVM_ITEM_MEM && item.space != GPUVM_SPACE_GLOBAL) {
					s->warp_insts++;
					*(item.space == GPUVM_SPACE_LOCAL ? &s->local_insts : &s->shared_insts) += 1;
				} else if (item.kind == GPUVM_ITEM_MEM) {
					s->warp_insts++;
					s->mem_insts++;
					s->thread_accesses += (uint32_t)__builtin_popcount(item.active_mask);
				} else {
					if (ops->warp_end)
						ops->warp_end(k, state);
					live[wi] = 0;
					alive--;
				}
			}
		}
		kr->ctas_done++;
		if (sys->progress && (++steps & 0xff) == 0)
			kernel_show_progress(sys, kr, t + (double)(s->warp_insts - insts0) * cpi, false);
	}
	k->functional = false;
	if (sys->progress)
		kernel_show_progress(sys, kr, t + (double)(s->warp_insts - insts0) * cpi, true);
	kernel_sampler_charge(&sys->ks, cls, s->thread_accesses - accesses0);
	kr->end = t + (double)(s->warp_insts - insts0) * cpi;
	return 0;
}
