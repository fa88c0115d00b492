/* The driver's thrashing detection: see thrashing.h. */
#include "uvm/thrashing.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/module.h"
#include "uvm/uvm_events.h"

/* nvidia-uvm uvm_perf_thrashing.c module parameters and their defaults
 * (UVM_PERF_THRASHING_THRESHOLD_DEFAULT etc., checked in
 * uvm_perf_thrashing_load: out-of-range values fall back to the default;
 * here they are refused with the key named). Row order = enum below. */
enum { P_THRESHOLD, P_PIN_THRESHOLD, P_LAPSE_US, P_NAP, P_EPOCH, P_PIN, P_MAX_RESETS, P_COUNT };
static const struct gpuvm_module_param thrash_params[P_COUNT] = {
	{.key = "threshold", .def = 3, .min = 1, .max = 255, .integer = true, .unit = "events",
	 .help = "events on a page within a lapse each that make it thrashing "
		 "(uvm_perf_thrashing_threshold, default 3; at most 255 here, the per-page counter's width)"},
	{.key = "pin_threshold", .def = 10, .min = 1, .max = 255, .integer = true, .unit = "throttles",
	 .help = "throttles of a page before it is pinned (uvm_perf_thrashing_pin_threshold, default 10)"},
	{.key = "lapse_us", .def = 500, .min = 1, .max = 1e6, .unit = "us",
	 .help = "time within which two events count as consecutive (uvm_perf_thrashing_lapse_usec, "
		 "default 500)"},
	{.key = "nap", .def = 1, .min = 1, .max = 100, .unit = "lapses",
	 .help = "a throttled processor's nap (uvm_perf_thrashing_nap, default 1 x lapse)"},
	{.key = "epoch", .def = 2000, .min = 1, .max = 1e6, .unit = "lapses",
	 .help = "block state older than this is reset (uvm_perf_thrashing_epoch, default 2000 x lapse)"},
	{.key = "pin", .def = 300, .min = 1, .max = 1e6, .unit = "lapses",
	 .help = "how long a pinned page stays mapped remotely (uvm_perf_thrashing_pin, default 300 x lapse)"},
	{.key = "max_resets", .def = 4, .min = 0, .max = 255, .integer = true, .unit = "resets",
	 .help = "epoch resets of a block at most (uvm_perf_thrashing_max_resets, default 4)"},
};

/* selected by uvm.thrashing = on; uvm.c runs it */
const struct gpuvm_module gpuvm_module_thrashing_driver = {
	.kind = GPUVM_MODULE_THRASHING,
	.name = "driver",
	.help = "the NVIDIA driver's thrashing detection: per-page events within a lapse, throttle, "
		"then pin (uvm_perf_thrashing.c)",
	.params = thrash_params,
	.n_params = P_COUNT,
	.ops = NULL,
};

struct uvm_thrash_block {
	double last_time, epoch_start;
	uint32_t last_proc, resets;
	bool tracking, has_event;
	uint8_t count[UVM_BLOCK_PAGES];
	uint8_t throttles[UVM_BLOCK_PAGES];
	double page_last[UVM_BLOCK_PAGES];
	double pinned_until[UVM_BLOCK_PAGES];
	uvm_mask thrashing;
};

int uvm_thrash_init(struct uvm_thrash *t, double clock_hz, struct gpuvm_uvm_stats *st,
		    const double *params)
{
	double v[P_COUNT];
	for (int i = 0; i < P_COUNT; i++)
		v[i] = params ? params[i] : thrash_params[i].def;
	memset(t, 0, sizeof *t);
	t->lapse = v[P_LAPSE_US] * 1e-6 * clock_hz;
	t->nap = v[P_NAP] * t->lapse;
	t->epoch = v[P_EPOCH] * t->lapse;
	t->pin = v[P_PIN] * t->lapse;
	t->threshold = (uint32_t)v[P_THRESHOLD];
	t->pin_threshold = (uint32_t)v[P_PIN_THRESHOLD];
	t->max_resets = (uint32_t)v[P_MAX_RESETS];
	t->st = st;
	return 0;
}

void uvm_thrash_free(struct uvm_thrash *t)
{
	for (uint32_t i = 0; i < t->n_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	memset(t, 0, sizeof *t);
}

/* b's state in its slot, created at its first event */
static struct uvm_thrash_block *block_state(struct uvm_thrash *t, struct uvm_block *b)
{
	struct uvm_thrash_block *s = b->policy_data[UVM_SLOT_THRASHING];
	if (s)
		return s;
	if (t->n_owned == t->cap_owned) {
		uint32_t cap = t->cap_owned ? 2 * t->cap_owned : 64;
		struct uvm_thrash_block **p = realloc(t->owned, cap * sizeof *p);
		if (!p)
			return NULL;
		t->owned = p;
		t->cap_owned = cap;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	t->owned[t->n_owned++] = s;
	b->policy_data[UVM_SLOT_THRASHING] = s;
	return s;
}

int uvm_thrash_on_event(void *ctx, const struct uvm_event *ev)
{
	return uvm_thrash_event(ctx, ev->block, ev->migrate.pages, ev->migrate.dst, ev->t);
}

int uvm_thrash_event(struct uvm_thrash *t, struct uvm_block *b, const uint64_t *mask, uint32_t proc,
		     double now)
{
	struct uvm_thrash_block *s = block_state(t, b);
	if (!s)
		return -1;
	t->st->thrash_events++;
	if (s->has_event && now - s->epoch_start > t->epoch && s->resets < t->max_resets) {
		/* epoch over: the block's history starts again */
		uint32_t resets = s->resets + 1;
		memset(s, 0, sizeof *s);
		s->resets = resets;
	}
	if (!s->has_event)
		s->epoch_start = now;
	/* tracking starts with two events from different processors within a lapse */
	if (!s->tracking && s->has_event && s->last_proc != proc && now - s->last_time <= t->lapse)
		s->tracking = true;
	s->has_event = true;
	s->last_proc = proc;
	s->last_time = now;
	if (!s->tracking)
		return 0;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p + 1, true)) {
		if (s->count[p] && now - s->page_last[p] <= t->lapse) {
			if (s->count[p] < UINT8_MAX)
				s->count[p]++;
		} else {
			s->count[p] = 1;
		}
		s->page_last[p] = now;
		if (s->count[p] >= t->threshold && !mask_test(s->thrashing, p)) {
			mask_set(s->thrashing, p);
			t->st->thrashing_pages++;
		}
	}
	return 0;
}

enum uvm_thrash_hint uvm_thrash_hint(struct uvm_thrash *t, struct uvm_block *b, uint32_t p, double now,
				     double *until)
{
	struct uvm_thrash_block *s = b->policy_data[UVM_SLOT_THRASHING];
	if (!s)
		return UVM_THRASH_NONE;
	if (s->pinned_until[p] > now)
		return UVM_THRASH_PIN;
	if (!mask_test(s->thrashing, p))
		return UVM_THRASH_NONE;
	if (s->throttles[p] >= t->pin_threshold) {
		s->throttles[p] = 0;
		s->pinned_until[p] = now + t->pin;
		t->st->thrash_pins++;
		return UVM_THRASH_PIN;
	}
	s->throttles[p]++;
	t->st->thrash_throttles++;
	*until = now + t->nap;
	return UVM_THRASH_THROTTLE;
}

bool uvm_thrash_pinned(const struct uvm_thrash *t, const struct uvm_block *b, uint32_t p, double now)
{
	(void)t;
	const struct uvm_thrash_block *s = b->policy_data[UVM_SLOT_THRASHING];
	return s && s->pinned_until[p] > now;
}
