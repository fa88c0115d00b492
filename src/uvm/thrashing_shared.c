/* Thrashing detection across processors (thrashing_shared.h holds the
 * contract). Function and field names follow nvidia-uvm
 * uvm_perf_thrashing.c (open-gpu-kernel-modules, kernel-open/nvidia-uvm). */
#include "uvm/thrashing_shared.h"

#include <stdlib.h>
#include <string.h>

#include "uvm/uvm_shared.h"

#define NO_PROC 0xffu

/* page_thrashing_info_t; processor masks hold bit proc (bit 0: the CPU) */
struct xpage {
	double last_s;          /* its last event (0: none yet) */
	double throttle_end_s;  /* the current throttling period's end */
	double pin_deadline_s;  /* pinned_page_t.deadline */
	uint64_t processors;    /* processors that migrated or faulted it */
	uint64_t throttled;     /* throttled_processors */
	uint8_t events;         /* num_thrashing_events */
	uint8_t throttling_count;
	uint8_t pinned_residency; /* pinned_residency_id; NO_PROC: not pinned */
	uint8_t dnt;            /* do_not_throttle_processor_id */
};

/* block_thrashing_info_t */
struct uvm_xthrash_blk {
	double last_s, last_thrashing_s;
	uint32_t last_proc, resets;
	struct xpage *pages; /* NULL until thrashing may happen in the block */
};

/* the rows of thrashing.c's parameter table */
enum { P_THRESHOLD, P_PIN_THRESHOLD, P_LAPSE_US, P_NAP, P_EPOCH, P_PIN, P_MAX_RESETS, P_COUNT };

int uvm_xthrash_init(struct uvm_xthrash *x, const struct uvm_shared *sh, const double *params)
{
	/* the driver's defaults (UVM_PERF_THRASHING_*_DEFAULT), as thrashing.c */
	static const double def[P_COUNT] = {3, 10, 500, 1, 2000, 300, 4};
	const double *v = params ? params : def;
	memset(x, 0, sizeof *x);
	x->sh = sh;
	x->lapse_s = v[P_LAPSE_US] * 1e-6;
	/* nap, epoch and pin are multiples of the lapse
	 * (va_space_thrashing_info_init_params) */
	x->nap_s = v[P_NAP] * x->lapse_s;
	x->epoch_s = v[P_EPOCH] * x->lapse_s;
	x->pin_s = v[P_PIN] * x->lapse_s;
	x->threshold = (uint32_t)v[P_THRESHOLD];
	x->pin_threshold = (uint32_t)v[P_PIN_THRESHOLD];
	x->max_resets = (uint32_t)v[P_MAX_RESETS];
	return uvm_map_init(&x->blocks, 64);
}

void uvm_xthrash_free(struct uvm_xthrash *x)
{
	for (uint32_t i = u64map_next(&x->blocks, 0); i < u64map_slots(&x->blocks);
	     i = u64map_next(&x->blocks, i + 1)) {
		struct uvm_xthrash_blk *s = (struct uvm_xthrash_blk *)(uintptr_t)x->blocks.e[i].val;
		free(s->pages);
		free(s);
	}
	uvm_map_free(&x->blocks);
}

static struct uvm_xthrash_blk *blk_find(const struct uvm_xthrash *x, uint64_t base)
{
	const struct uvm_map_entry *e = uvm_map_find(&x->blocks, base >> UVM_BLOCK_SHIFT);
	return e ? (struct uvm_xthrash_blk *)(uintptr_t)e->val : NULL;
}

/* thrashing_info_get_create */
static struct uvm_xthrash_blk *blk_get(struct uvm_xthrash *x, uint64_t base)
{
	struct uvm_xthrash_blk *s = blk_find(x, base);
	if (s)
		return s;
	s = calloc(1, sizeof *s);
	if (!s || !uvm_map_insert(&x->blocks, base >> UVM_BLOCK_SHIFT, (uint64_t)(uintptr_t)s)) {
		free(s);
		x->oom = true;
		return NULL;
	}
	s->last_proc = NO_PROC;
	return s;
}

static void page_reset(struct xpage *pg)
{
	memset(pg, 0, sizeof *pg);
	pg->pinned_residency = NO_PROC;
	pg->dnt = NO_PROC;
}

static inline uint64_t bit(uint32_t proc)
{
	return 1ull << proc;
}

/* va_space->accessible_from[to]: the processors that map to's memory:
 * every GPU maps system memory; a GPU's memory is mapped by the GPUs
 * joined to it by NVLink / NVSwitch (uvm_shared.reach). The CPU faults on
 * nothing here (kernels are the only accessors), so its own bit is kept
 * only for the CPU. */
static uint64_t accessible_from(const struct uvm_xthrash *x, uint32_t to)
{
	if (to == UVM_PROC_CPU)
		return ~0ull;
	uint64_t m = bit(to);
	for (uint32_t a = 0; a < x->sh->n_gpus && a < 63; a++)
		if (x->sh->reach[a] >> (to - 1) & 1)
			m |= bit(a + 1);
	return m;
}

/* va_space->can_access[id]: the memories processor id maps */
static uint64_t can_access(const struct uvm_xthrash *x, uint32_t id)
{
	if (id == UVM_PROC_CPU)
		return bit(UVM_PROC_CPU);
	return bit(UVM_PROC_CPU) | bit(id) | x->sh->reach[id - 1] << 1;
}

/* thrashing_processors_can_access */
static bool procs_can_access(const struct uvm_xthrash *x, const struct xpage *pg, uint32_t to)
{
	return to != NO_PROC && (pg->processors & ~accessible_from(x, to)) == 0;
}

/* thrashing_processors_have_fast_access_to: NVLink (native atomics
 * assumed with it) to a GPU; no GPU of these systems has a fast link to
 * the CPU's memory (a PCIe host link) */
static bool procs_fast_access(const struct uvm_xthrash *x, const struct xpage *pg, uint32_t to)
{
	if (to == NO_PROC)
		return false;
	uint64_t fast = to == UVM_PROC_CPU ? bit(UVM_PROC_CPU) : accessible_from(x, to);
	return (pg->processors & ~fast) == 0;
}

/* thrashing_processors_common_locations, then
 * uvm_processor_mask_find_closest_id: the requester itself, else a GPU it
 * reaches by NVLink, else the CPU; NO_PROC when none is common. */
static uint32_t common_closest(const struct uvm_xthrash *x, const struct xpage *pg, uint32_t requester)
{
	uint64_t common = ~0ull;
	for (uint32_t id = 0; id < 64; id++)
		if (pg->processors >> id & 1)
			common &= can_access(x, id);
	if (!pg->processors || !common)
		return NO_PROC;
	if (common & bit(requester))
		return requester;
	uint64_t peers = common & (requester != UVM_PROC_CPU ? x->sh->reach[requester - 1] << 1 : 0);
	if (peers)
		return (uint32_t)__builtin_ctzll(peers);
	if (common & bit(UVM_PROC_CPU))
		return UVM_PROC_CPU;
	return (uint32_t)__builtin_ctzll(common);
}

void uvm_xthrash_event(struct uvm_xthrash *x, uint64_t base, const uint64_t *mask, uint32_t proc,
		       double now_s, struct gpuvm_uvm_stats *st)
{
	struct uvm_xthrash_blk *s = blk_get(x, base);
	if (!s)
		return;
	if (!s->pages) {
		/* per-page tracking only once two consecutive events of the
		 * block come from different processors within a lapse */
		if (s->last_proc == NO_PROC || s->last_proc == proc || now_s - s->last_s > x->lapse_s)
			goto done;
		s->pages = malloc(UVM_BLOCK_PAGES * sizeof *s->pages);
		if (!s->pages) {
			x->oom = true;
			goto done;
		}
		for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++)
			page_reset(&s->pages[p]);
	}
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p + 1, true)) {
		struct xpage *pg = &s->pages[p];
		if (pg->pinned_residency != NO_PROC)
			continue; /* moved to its pin (is_migration_pinned_pages_update) */
		double last = pg->last_s;
		pg->processors |= bit(proc);
		pg->last_s = now_s;
		if (last == 0)
			continue;
		if (now_s - last <= x->lapse_s) {
			if (pg->events < UINT8_MAX)
				pg->events++;
			if (pg->events == x->threshold)
				st->thrashing_pages++; /* thrashing_detected */
			if (pg->events >= x->threshold)
				s->last_thrashing_s = now_s;
		} else if (pg->events >= x->threshold && pg->pinned_residency == NO_PROC) {
			page_reset(pg); /* thrashing_reset_page: its time too */
		}
	}
done:
	s->last_s = now_s;
	s->last_proc = proc;
}

/* thrashing_throttle_update: a new throttling period when the last one
 * is over, alternating the processor that is not throttled */
static void throttle_update(const struct uvm_xthrash *x, struct xpage *pg, uint32_t proc, double now_s)
{
	if (now_s > pg->throttle_end_s) {
		pg->throttle_end_s = now_s + x->nap_s;
		pg->dnt = pg->dnt == proc ? NO_PROC : (uint8_t)proc;
	} else if (pg->dnt == NO_PROC) {
		pg->dnt = (uint8_t)proc;
	}
}

/* get_hint_for_migration_thrashing, its branches in the driver's order */
static enum uvm_thrash_hint migration_hint(const struct uvm_xthrash *x, const struct xpage *pg,
					   uint32_t requester, uint32_t closest, uint32_t preferred,
					   uint32_t *res)
{
	bool pinned = pg->pinned_residency != NO_PROC;
	if (procs_can_access(x, pg, preferred)) {
		*res = preferred;
		return UVM_THRASH_PIN;
	}
	if (!(preferred != NO_PROC && (pg->processors >> preferred & 1)) &&
	    procs_fast_access(x, pg, closest)) {
		/* every thrashing processor has a fast link to where it is */
		if (closest == UVM_PROC_CPU && procs_can_access(x, pg, requester)) {
			*res = requester;
			return requester != UVM_PROC_CPU ? UVM_THRASH_PIN : UVM_THRASH_NONE;
		}
		*res = closest;
		return UVM_THRASH_PIN;
	}
	if (requester == preferred) {
		if (pinned) {
			*res = preferred;
			return pg->pinned_residency == preferred || pg->dnt == preferred ? UVM_THRASH_PIN
											: UVM_THRASH_THROTTLE;
		}
		if (pg->dnt != preferred)
			return UVM_THRASH_THROTTLE;
		*res = preferred;
		return pg->throttling_count >= x->pin_threshold ? UVM_THRASH_PIN : UVM_THRASH_NONE;
	}
	if (pinned) {
		if (requester == pg->dnt) {
			/* to the requester if all reach it, else a common
			 * location closest to it, else the requester anyway */
			uint32_t c = procs_can_access(x, pg, requester) ? requester
									: common_closest(x, pg, requester);
			*res = c == NO_PROC ? requester : c;
			return UVM_THRASH_PIN;
		}
		if (accessible_from(x, pg->pinned_residency) & bit(requester)) {
			*res = pg->pinned_residency;
			return UVM_THRASH_PIN;
		}
		return UVM_THRASH_THROTTLE;
	}
	if (requester != pg->dnt)
		return UVM_THRASH_THROTTLE;
	*res = requester;
	return pg->throttling_count >= x->pin_threshold ? UVM_THRASH_PIN : UVM_THRASH_NONE;
}

/* The epoch reset of uvm_perf_thrashing_get_hint: a block thrashing no
 * more for an epoch, none of its pages pinned, starts again. */
static bool epoch_reset(const struct uvm_xthrash *x, struct uvm_xthrash_blk *s, double now_s)
{
	if (s->last_thrashing_s == 0 || now_s - s->last_thrashing_s <= x->epoch_s ||
	    s->resets >= x->max_resets)
		return false;
	for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++)
		if (s->pages[p].pinned_residency != NO_PROC)
			return false;
	s->resets++;
	free(s->pages);
	s->pages = NULL;
	s->last_proc = NO_PROC;
	s->last_s = s->last_thrashing_s = 0;
	return true;
}

enum uvm_thrash_hint uvm_xthrash_hint(struct uvm_xthrash *x, uint64_t base, uint32_t p,
				      uint32_t requester, uint32_t closest, double now_s,
				      uint32_t *residency, double *until_s,
				      struct gpuvm_uvm_stats *st)
{
	struct uvm_xthrash_blk *s = blk_find(x, base);
	if (!s || !s->pages || epoch_reset(x, s, now_s))
		return UVM_THRASH_NONE;
	struct xpage *pg = &s->pages[p];
	if (pg->pinned_residency != NO_PROC && now_s >= pg->pin_deadline_s) {
		/* the unpin work: the page's history starts again */
		page_reset(pg);
		return UVM_THRASH_NONE;
	}
	if (pg->events < x->threshold)
		return UVM_THRASH_NONE;
	if (pg->throttled & bit(requester)) {
		if (now_s < pg->throttle_end_s && requester != pg->dnt) {
			*until_s = pg->throttle_end_s;
			return UVM_THRASH_THROTTLE;
		}
		pg->throttled &= ~bit(requester); /* thrashing_throttle_end_processor */
	}
	if (now_s - pg->last_s > x->lapse_s && pg->pinned_residency == NO_PROC)
		return UVM_THRASH_NONE; /* no longer thrashing */
	pg->processors |= bit(requester);
	throttle_update(x, pg, requester, now_s);
	uint32_t preferred = uvm_shared_preferred(x->sh, base + ((uint64_t)p << UVM_PAGE_SHIFT));
	if (preferred == UVM_SHARED_NO_PREF)
		preferred = NO_PROC;
	uint32_t res = NO_PROC;
	enum uvm_thrash_hint h = migration_hint(x, pg, requester, closest, preferred, &res);
	if (h == UVM_THRASH_PIN) {
		/* thrashing_pin_page */
		if (pg->pinned_residency == NO_PROC) {
			pg->pin_deadline_s = now_s + x->pin_s;
			pg->throttling_count = 0;
			pg->throttled = 0;
			st->thrash_pins++;
		}
		pg->pinned_residency = (uint8_t)res;
		*residency = res;
	} else if (h == UVM_THRASH_THROTTLE) {
		/* thrashing_throttle_processor: counted once per period */
		if (!(pg->throttled & bit(requester))) {
			pg->throttled |= bit(requester);
			if (pg->pinned_residency == NO_PROC && pg->throttling_count < UINT8_MAX)
				pg->throttling_count++;
			st->thrash_throttles++;
		}
		*until_s = pg->throttle_end_s;
	}
	return h;
}
