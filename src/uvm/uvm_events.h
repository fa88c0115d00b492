/* Driver events: what the UVM driver model (src/uvm/uvm*.c) tells the policies
 * that subscribe, in the shape of nvidia-uvm's uvm_perf_events.h (an
 * event enum, one payload union, a callback list per event type;
 * uvm_perf_event_notify) and uvm_perf_module.h (a module registers
 * callbacks for the events it needs and keeps its per-block state in the
 * block's slot, uvm_va_block_t.perf_modules_data[]).
 *
 * Contract:
 *  - the driver is the only emitter; it emits each event at one place, listed
 *    below with what the payload holds then. Subscribers see events in
 *    emission order, subscribers of one event in subscription order.
 *  - A subscriber may read the block and update its own slot
 *    (b->policy_data[its slot]) and its own state; it never changes the
 *    block's residency, masks or arrival times (those are the driver's).
 *    It returns 0, or -1 when out of memory (the run then ends with
 *    "out of memory", as any allocation failure of the driver).
 *  - With no subscriber of a type, emitting it costs one test of a mask:
 *    results are those of a driver without events.
 *
 * When each is emitted (uvm_fault.c, uvm_evict.c, uvm_migrate.c):
 *  FAULT          far_fault_mode(): a far fault on `page` of `block` by
 *                 `sm` is taken by the fault handler; t = when the fault
 *                 reached the handler (after replays and naps). `mode`:
 *                 0 migrates, 1 by access counter, 2 maps remotely.
 *  ACCESS_COUNTER far_fault_mode(), after FAULT: the fault was raised by an
 *                 access-counter notification (a page read remotely whose
 *                 64 KB block's count reached the threshold): `chunk`,
 *                 its `count`.
 *  EVICT          drop_pages() (uvm_evict.c) for room (not a device sync's write-back):
 *                 `pages` of `block` left device memory, already cleared
 *                 from block->resident; t = when the write-back began.
 *  MIGRATE        uvm_migrate_pages(): `pages` of `block` (the fault's page and what
 *                 the prefetcher added) moved to this GPU (`dst` its
 *                 processor id: 1 on one GPU; from the host or another
 *                 GPU) and are marked resident; t = when the transfers
 *                 began; `cause` the mode of the fault as in FAULT. The
 *                 driver's thrashing detection (thrashing.c; on several
 *                 GPUs also uvm_thrash_mgpu.c) is a subscriber.
 *  THRASHING      uvm_migrate_pages(), before MIGRATE: the faulted `page` of `block`
 *                 had been evicted and is back (UVMSmart's thrashed page,
 *                 stats uvm.thrashed_pages). */
#ifndef GPUVM_UVM_EVENTS_H
#define GPUVM_UVM_EVENTS_H

#include <stdint.h>

#include "uvm/uvm_page.h"

enum uvm_event_type {
	UVM_EVENT_FAULT = 0,
	UVM_EVENT_ACCESS_COUNTER,
	UVM_EVENT_EVICT,
	UVM_EVENT_MIGRATE,
	UVM_EVENT_THRASHING,
	UVM_EVENT_TYPES,
};

#define UVM_EVENT_BIT(type) (1u << (type))

struct uvm_event {
	enum uvm_event_type type;
	struct uvm_block *block;
	double t;
	union {
		struct { uint32_t page, sm, mode; } fault;
		struct { uint32_t chunk, count; } access_counter;
		struct { const uint64_t *pages; } evict;
		struct { const uint64_t *pages; uint32_t dst, cause; } migrate;
		struct { uint32_t page; } thrashing;
	};
};

typedef int (*uvm_event_cb)(void *ctx, const struct uvm_event *ev);

#define UVM_EVENT_SUBSCRIBERS 8

struct uvm_events {
	uint32_t any;  /* union of the subscribers' masks */
	uint32_t n;
	struct {
		uint32_t mask;
		uvm_event_cb cb;
		void *ctx;
	} sub[UVM_EVENT_SUBSCRIBERS];
};

/* Subscribes cb(ctx) to the event types of mask (UVM_EVENT_BIT()s).
 * 0, or -1 when every subscriber slot is taken. */
int uvm_events_subscribe(struct uvm_events *e, uint32_t mask, uvm_event_cb cb, void *ctx);

/* Delivers ev to its subscribers; -1 when one of them failed. */
int uvm_events_deliver(const struct uvm_events *e, const struct uvm_event *ev);

/* Whether anyone listens to type (the emitters' fast test). */
static inline int uvm_events_wanted(const struct uvm_events *e, enum uvm_event_type type)
{
	return (e->any >> type) & 1u;
}

#endif
