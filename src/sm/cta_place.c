/* CTA placement policies (cta_place.h holds the contract).
 *
 * round-robin: NVIDIA documents only that the block scheduler hands
 * blocks to SMs with free resources (CUDA C++ Programming Guide,
 * "Hardware Implementation": "the blocks of the grid are enumerated and
 * distributed to multiprocessors with available execution capacity");
 * GPGPU-Sim, which Accel-Sim validates against hardware, issues a
 * launch's first CTAs breadth first, one per SM in turn (gpu-sim.cc,
 * gpgpu_sim::issue_block2core), and refills an SM the moment a CTA ends.
 * gpu.cta_issue says where the turn starts: SM 0 each launch, or the SM
 * after the last one that took a CTA (GPGPU-Sim's m_last_cluster_issue,
 * kept across launches).
 *
 * fill: depth first, an SM takes CTAs up to its occupancy before the next
 * gets any: consecutive CTAs share an SM's L1 and TLBs, the far end of
 * the block CTA scheduling of Lee et al., "Improving GPGPU resource
 * utilization through alternative thread block scheduling", HPCA 2014
 * (BCS: consecutive CTAs to one core); with fewer CTAs than the GPU holds
 * it leaves SMs idle, as that paper's lazy scheduling does on purpose. */
#include "sm/cta_place.h"

#include <string.h>

void cta_place_on(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l, uint32_t smi,
		  double t)
{
	p->last_issued_sm = smi;
	sm_place_cta(s, l, smi, t);
}

/* The freed slot takes the next CTA once the CTA that held it has
 * retired (gpu.cta_retire_cycles; 0: at once) and its warps' resources
 * are released (gpu.cta_release_cycles_per_warp per warp), as the
 * hardware's block scheduler does (both policies). The release is not in
 * the kernel's duration: an empty kernel of one CTA takes the same time
 * whatever its block size (docs/launch.md). */
static void refill(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l, uint32_t smi,
		   double t)
{
	if (l->next_cta < l->ctas && sm_can_take(s, l, smi))
		cta_place_on(p, s, l, smi,
			     t + s->cfg->cta_retire_cycles +
				     s->cfg->cta_release_cycles_per_warp * l->warps_per_cta);
}

static void round_robin_launch(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l,
			       double t)
{
	uint32_t sms = s->cfg->sms;
	const struct gpuvm_kernel *k = l->k;
	uint32_t first_sm = p->after_last ? (p->last_issued_sm + 1) % sms : 0;
	for (bool placed = true; placed && l->next_cta < l->ctas;) {
		placed = false;
		for (uint32_t i = 0; i < sms && l->next_cta < l->ctas; i++) {
			uint32_t smi = (first_sm + i) % sms;
			if ((!k->pin || smi == k->pin_sm) && sm_can_take(s, l, smi)) {
				cta_place_on(p, s, l, smi, t);
				placed = true;
			}
		}
	}
}

static void fill_launch(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l, double t)
{
	uint32_t sms = s->cfg->sms;
	const struct gpuvm_kernel *k = l->k;
	uint32_t first_sm = p->after_last ? (p->last_issued_sm + 1) % sms : 0;
	for (uint32_t i = 0; i < sms && l->next_cta < l->ctas; i++) {
		uint32_t smi = (first_sm + i) % sms;
		if (k->pin && smi != k->pin_sm)
			continue;
		while (l->next_cta < l->ctas && sm_can_take(s, l, smi))
			cta_place_on(p, s, l, smi, t);
	}
}

static const struct cta_place_ops round_robin_ops = {
	.name = "round-robin",
	.help = "a launch's first CTAs one per SM in turn, then each freed slot refilled "
		"(GPGPU-Sim issue_block2core)",
	.launch = round_robin_launch,
	.slot_freed = refill,
};

static const struct cta_place_ops fill_ops = {
	.name = "fill",
	.help = "each SM takes CTAs up to its occupancy before the next SM gets any "
		"(block CTA scheduling, Lee et al. HPCA 2014)",
	.launch = fill_launch,
	.slot_freed = refill,
};

const struct cta_place_ops *const cta_place_policies[] = {&round_robin_ops, &fill_ops, NULL};

const struct cta_place_ops *cta_place_find(const char *name)
{
	for (size_t i = 0; cta_place_policies[i]; i++)
		if (!strcmp(cta_place_policies[i]->name, name))
			return cta_place_policies[i];
	return NULL;
}

void cta_placer_init(struct cta_placer *p, const struct gpuvm_config *cfg)
{
	memset(p, 0, sizeof *p);
	p->ops = cta_place_policies[cfg->cta_placement < 2 ? cfg->cta_placement : 0];
	p->after_last = cfg->cta_issue_after_last != 0;
	/* GPGPU-Sim starts its pointer at cluster 0 (gpu-sim.cc,
	 * gpgpu_sim::gpgpu_sim: m_last_cluster_issue = 0), so with
	 * after-last the first CTA of a run goes to SM 1. */
	p->last_issued_sm = 0;
}
