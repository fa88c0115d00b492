/* The fault handler's and the access-counter bottom half's batches: one
 * batched serial server each (struct uvm_batcher, uvm.h), which
 * uvm_fault.c asks when a request is taken.
 *
 * Owns: nothing but the batcher it is handed. May call: nothing.
 * Guarantees: a batch takes at most batch_max requests, and the server
 * starts a batch only once the one before is handled (unless polled). */
#include "uvm/uvm_impl.h"

/* When a request arriving at tf is taken by the batched serial server s
 * whose batches take latency each. Requests reach here in the order of
 * their warps' issue, but a translation can carry a later time than the
 * next one (an SM blocked until its own fault is served translates at
 * that time). One that arrived while the server was idle, before the
 * open batch began, is taken on arrival; it does not wait for a batch
 * that opened after it. polled: Zheng's handler, which does not wait for
 * the previous batch. */
double uvm_batch_take(struct uvm_batcher *s, double tf, double latency, bool polled,
		      uint32_t batch_max, uint64_t *batches)
{
	if (s->open && tf <= s->start && s->count < batch_max) {
		s->count++;
		double taken = polled || tf > s->before ? tf : s->before;
		return taken < s->start ? taken : s->start;
	}
	s->open = true;
	s->before = s->free;
	s->start = polled || tf > s->free ? tf : s->free;
	s->count = 1;
	(*batches)++;
	/* The handler is one serial server: the next batch starts once this
	 * one is handled; its DMA transfers queue on the lane meanwhile (the
	 * handler drains the fault queue while DMA proceeds, seeds/003 3.1). */
	s->free = s->start + latency;
	return s->start;
}
