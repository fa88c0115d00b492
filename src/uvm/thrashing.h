/* The NVIDIA driver's thrashing detection (uvm_perf_thrashing.c, r535:
 * thrashing_event_cb, uvm_perf_thrashing_get_hint), as a module any
 * migration policy can be run with (uvm.thrashing = on).
 *
 * Events are migrations caused by a far fault, an access counter or a
 * prefetch, to a destination processor; eviction migrations are not
 * events. Per-page tracking of a 2 MB block starts only when two
 * consecutive events on the block come from different processors within
 * one lapse. A tracked page's event within a lapse of its previous one
 * counts; at `threshold` events the page is thrashing. The response is to
 * throttle (the faulting processor naps) and, after `pin_threshold`
 * throttles, to pin the page where it is and map it remotely for `pin`.
 * Block state older than `epoch` is reset, at most `max_resets` times.
 * On one GPU every event goes to the GPU, so tracking never starts: the
 * module predicts no change on capacity thrashing (docs/uvm.md). */
#ifndef GPUVM_UVM_THRASHING_H
#define GPUVM_UVM_THRASHING_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/uvm.h"
#include "uvm/uvm_page.h"

/* uvm_perf_thrashing.c defaults (module parameters, l.244-316) */
#define UVM_THRASH_THRESHOLD 3       /* uvm_perf_thrashing_threshold */
#define UVM_THRASH_PIN_THRESHOLD 10  /* uvm_perf_thrashing_pin_threshold */
#define UVM_THRASH_LAPSE_US 500.0    /* uvm_perf_thrashing_lapse_usec */
#define UVM_THRASH_NAP_LAPSES 1.0    /* uvm_perf_thrashing_nap: 1 x lapse */
#define UVM_THRASH_EPOCH_LAPSES 2000.0 /* uvm_perf_thrashing_epoch: 2000 x lapse */
#define UVM_THRASH_PIN_LAPSES 300.0  /* uvm_perf_thrashing_pin: 300 x lapse */
#define UVM_THRASH_MAX_RESETS 4u     /* uvm_perf_thrashing_max_resets */

enum uvm_thrash_hint { UVM_THRASH_NONE, UVM_THRASH_THROTTLE, UVM_THRASH_PIN };

struct uvm_thrash_block;

struct uvm_thrash {
	double lapse, nap, epoch, pin; /* cycles */
	struct uvm_thrash_block **blocks; /* [cap], by block index, lazily */
	uint32_t cap;
	struct gpuvm_uvm_stats *st;
};

int uvm_thrash_init(struct uvm_thrash *t, double clock_hz, struct gpuvm_uvm_stats *st);
void uvm_thrash_free(struct uvm_thrash *t);
/* Pages of mask in block `index` migrated to processor proc at now.
 * -1: out of memory. */
int uvm_thrash_event(struct uvm_thrash *t, uint32_t index, const uint64_t *mask, uint32_t proc, double now);
/* What to do with a fault on page p of block `index` at now:
 * THROTTLE sets *until (the nap's end). */
enum uvm_thrash_hint uvm_thrash_hint(struct uvm_thrash *t, uint32_t index, uint32_t p, double now,
				     double *until);

/* Whether page p of block `index` is pinned (mapped remotely) at now. */
bool uvm_thrash_pinned(const struct uvm_thrash *t, uint32_t index, uint32_t p, double now);

#endif
