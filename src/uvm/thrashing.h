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
 * module predicts no change on capacity thrashing (docs/uvm.md).
 *
 * The tunables are the module's parameter rows (thrashing.c, keys
 * uvm.thrashing.driver.*), with the driver's module-parameter defaults. */
#ifndef GPUVM_UVM_THRASHING_H
#define GPUVM_UVM_THRASHING_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/module.h"
#include "gpuvm/uvm.h"
#include "uvm/uvm_page.h"

/* its descriptor (parameter rows), selected by uvm.thrashing = on */
extern const struct gpuvm_module gpuvm_module_thrashing_driver;

enum uvm_thrash_hint { UVM_THRASH_NONE, UVM_THRASH_THROTTLE, UVM_THRASH_PIN };

struct uvm_thrash_block;

/* Per-block state lives in the block's slot (b->policy_data[UVM_SLOT_THRASHING]),
 * created at the block's first event; `owned` lists them for uvm_thrash_free. */
struct uvm_thrash {
	double lapse, nap, epoch, pin; /* cycles */
	uint32_t threshold, pin_threshold, max_resets; /* events, throttles, resets */
	struct uvm_thrash_block **owned;
	uint32_t n_owned, cap_owned;
	struct gpuvm_uvm_stats *st;
};

/* params: the module's values in row order (gpuvm_module_params of
 * gpuvm_module_thrashing_driver), NULL for the defaults. */
int uvm_thrash_init(struct uvm_thrash *t, double clock_hz, struct gpuvm_uvm_stats *st,
		    const double *params);
void uvm_thrash_free(struct uvm_thrash *t);
/* Pages of mask in block b migrated to processor proc at now.
 * -1: out of memory. */
int uvm_thrash_event(struct uvm_thrash *t, struct uvm_block *b, const uint64_t *mask, uint32_t proc,
		     double now);
/* The module's subscription to the driver's MIGRATE events
 * (uvm_events.h; ctx is the struct uvm_thrash): uvm_thrash_event of the
 * migrated pages to their destination. */
struct uvm_event;
int uvm_thrash_on_event(void *ctx, const struct uvm_event *ev);
/* What to do with a fault on page p of block b at now:
 * THROTTLE sets *until (the nap's end). */
enum uvm_thrash_hint uvm_thrash_hint(struct uvm_thrash *t, struct uvm_block *b, uint32_t p, double now,
				     double *until);

/* Whether page p of block b is pinned (mapped remotely) at now. */
bool uvm_thrash_pinned(const struct uvm_thrash *t, const struct uvm_block *b, uint32_t p, double now);

#endif
