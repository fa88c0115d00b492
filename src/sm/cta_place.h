/* CTA placement: which SM takes a launch's next CTA. A policy is an ops
 * table (cta_place_*.c style, listed in cta_place.c's table by name,
 * chosen by gpu.cta_placement), so it can be registered with the policy
 * registry later without touching the SM layer or the run loop.
 *
 * Contract:
 *  - A policy decides only where CTAs go: it calls sm_can_take and
 *    sm_place_cta (sm.h) and keeps its own state in struct cta_placer;
 *    the SM layer owns the slots.
 *  - launch places the launch's first CTAs at t until no SM takes one
 *    (occupancy) or none is left; a pinned kernel (k->pin) only on its
 *    SM. slot_freed is called when SM smi freed a CTA slot at t and CTAs
 *    are left: the hardware's block scheduler refills at once.
 *  - Both place CTAs in increasing CTA id order (sm_place_cta takes the
 *    launch's next one).
 *  - May call: the SM layer only (sm.h: sm_can_take, sm_place_cta), its
 *    own component. */
#ifndef GPUVM_SM_CTA_PLACE_H
#define GPUVM_SM_CTA_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sm/sm.h"

struct cta_placer;

struct cta_place_ops {
	const char *name;
	const char *help;
	void (*launch)(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l, double t);
	void (*slot_freed)(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l,
			   uint32_t smi, double t);
};

struct cta_placer {
	const struct cta_place_ops *ops;
	bool after_last;          /* gpu.cta_issue = after-last */
	uint32_t last_issued_sm;  /* the SM that took the last CTA */
};

/* The policy named name, NULL if none is. */
const struct cta_place_ops *cta_place_find(const char *name);
/* The policies, NULL-terminated (help and config lists). */
extern const struct cta_place_ops *const cta_place_policies[];

void cta_placer_init(struct cta_placer *p, const struct gpuvm_config *cfg);

/* Places one CTA of l on smi and remembers smi (every policy's way to
 * place). */
void cta_place_on(struct cta_placer *p, struct sm_layer *s, struct sm_launch *l, uint32_t smi,
		  double t);

#endif
