/* A GPU's driver and the system's thrashing detection (several GPUs,
 * uvm.thrashing = on; uvm/thrashing_shared.h): its MIGRATE events, and
 * the fault path's two questions (uvm_fault.c); uvm.h holds the
 * contract. */
#include "uvm/thrashing_shared.h"
#include "uvm/uvm_events.h"
#include "uvm/uvm_impl.h"

int uvm_thrash_mgpu_on_event(void *ctx, const struct uvm_event *ev)
{
	struct uvm *u = ctx;
	struct uvm_shared *sh = u->shared;
	/* a read-duplicated range is not tracked (uvm_perf_thrashing.c
	 * thrashing_event_cb resets it) */
	if (sh->n_read_mostly && uvm_shared_is_read_mostly(sh, ev->block->base))
		return 0;
	uvm_xthrash_event(sh->thrash, ev->block->base, ev->migrate.pages, ev->migrate.dst,
			  ev->t / u->spec.clock_hz, u->st);
	return sh->thrash->oom ? -1 : 0;
}

/* requester's hint for page p of b at t (cycles): the processor the page
 * would come from is its closest resident (uvm_shared_source) */
static enum uvm_thrash_hint hint(struct uvm *u, const struct uvm_block *b, uint32_t p, double t,
				 uint32_t *res, double *until_s)
{
	const struct uvm_shared_blk *s = uvm_shared_block(u->shared, b->base);
	uint32_t closest = s ? uvm_shared_source(s, p, u->proc) : UVM_PROC_CPU;
	return uvm_xthrash_hint(u->shared->thrash, b->base, p, u->proc, closest, t / u->spec.clock_hz, res,
				until_s, u->st);
}

double uvm_thrash_nap(struct uvm *u, const struct uvm_block *b, uint32_t p, double t)
{
	uint32_t res;
	double until_s;
	if (hint(u, b, p, t, &res, &until_s) == UVM_THRASH_THROTTLE && until_s * u->spec.clock_hz > t)
		return until_s * u->spec.clock_hz;
	return t;
}

bool uvm_thrash_pin_elsewhere(struct uvm *u, const struct uvm_block *b, uint32_t p, double t,
			      uint32_t *loc)
{
	uint32_t res = UVM_PROC_CPU;
	double until_s;
	if (!u->shared->thrash || hint(u, b, p, t, &res, &until_s) != UVM_THRASH_PIN ||
	    res == u->proc)
		return false;
	if (res != UVM_PROC_CPU && !(u->shared->reach[u->proc - 1] >> (res - 1) & 1))
		return false; /* not mapped from here */
	*loc = res;
	return true;
}
