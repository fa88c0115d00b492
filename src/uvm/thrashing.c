/* The driver's thrashing detection: see thrashing.h. */
#include "uvm/thrashing.h"

#include <stdlib.h>
#include <string.h>

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

int uvm_thrash_init(struct uvm_thrash *t, double clock_hz, struct gpuvm_uvm_stats *st)
{
	memset(t, 0, sizeof *t);
	t->lapse = UVM_THRASH_LAPSE_US * 1e-6 * clock_hz;
	t->nap = UVM_THRASH_NAP_LAPSES * t->lapse;
	t->epoch = UVM_THRASH_EPOCH_LAPSES * t->lapse;
	t->pin = UVM_THRASH_PIN_LAPSES * t->lapse;
	t->st = st;
	return 0;
}

void uvm_thrash_free(struct uvm_thrash *t)
{
	for (uint32_t i = 0; i < t->cap; i++)
		free(t->blocks[i]);
	free(t->blocks);
	memset(t, 0, sizeof *t);
}

static struct uvm_thrash_block *block_state(struct uvm_thrash *t, uint32_t index)
{
	if (index >= t->cap) {
		uint32_t cap = t->cap ? t->cap : 64;
		while (cap <= index)
			cap *= 2;
		struct uvm_thrash_block **p = realloc(t->blocks, cap * sizeof *p);
		if (!p)
			return NULL;
		memset(p + t->cap, 0, (cap - t->cap) * sizeof *p);
		t->blocks = p;
		t->cap = cap;
	}
	if (!t->blocks[index])
		t->blocks[index] = calloc(1, sizeof(struct uvm_thrash_block));
	return t->blocks[index];
}

int uvm_thrash_event(struct uvm_thrash *t, uint32_t index, const uint64_t *mask, uint32_t proc, double now)
{
	struct uvm_thrash_block *s = block_state(t, index);
	if (!s)
		return -1;
	t->st->thrash_events++;
	if (s->has_event && now - s->epoch_start > t->epoch && s->resets < UVM_THRASH_MAX_RESETS) {
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
		if (s->count[p] >= UVM_THRASH_THRESHOLD && !mask_test(s->thrashing, p)) {
			mask_set(s->thrashing, p);
			t->st->thrashing_pages++;
		}
	}
	return 0;
}

enum uvm_thrash_hint uvm_thrash_hint(struct uvm_thrash *t, uint32_t index, uint32_t p, double now,
				     double *until)
{
	if (index >= t->cap || !t->blocks[index])
		return UVM_THRASH_NONE;
	struct uvm_thrash_block *s = t->blocks[index];
	if (s->pinned_until[p] > now)
		return UVM_THRASH_PIN;
	if (!mask_test(s->thrashing, p))
		return UVM_THRASH_NONE;
	if (s->throttles[p] >= UVM_THRASH_PIN_THRESHOLD) {
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

bool uvm_thrash_pinned(const struct uvm_thrash *t, uint32_t index, uint32_t p, double now)
{
	return index < t->cap && t->blocks[index] && t->blocks[index]->pinned_until[p] > now;
}
