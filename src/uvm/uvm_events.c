/* Driver events: see uvm_events.h. */
#include "uvm/uvm_events.h"

int uvm_events_subscribe(struct uvm_events *e, uint32_t mask, uvm_event_cb cb, void *ctx)
{
	if (e->n == UVM_EVENT_SUBSCRIBERS || !cb)
		return -1;
	e->sub[e->n].mask = mask;
	e->sub[e->n].cb = cb;
	e->sub[e->n].ctx = ctx;
	e->n++;
	e->any |= mask;
	return 0;
}

int uvm_events_deliver(const struct uvm_events *e, const struct uvm_event *ev)
{
	int rc = 0;
	for (uint32_t i = 0; i < e->n; i++)
		if ((e->sub[i].mask >> ev->type) & 1u)
			rc |= e->sub[i].cb(e->sub[i].ctx, ev);
	return rc ? -1 : 0;
}
