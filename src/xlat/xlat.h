/* Address translation: the configured TLB levels (each with its sharing
 * map and MSHRs) in front of the page-walk unit (walkers in flight, an
 * optional page-walk cache). translate() returns when the translation of
 * an address requested by an SM at time t is available.
 *
 * Contract:
 *  - Owns: every TLB level's instances (their TLBs, MSHRs and counts),
 *    the sharing schemes' state (peer.h), the walkers and the page-walk
 *    cache; and its spec (struct xlat_spec, each level's struct
 *    xlat_level_spec), which xlat_init sets and seals and no request
 *    writes (core/spec_seal.h: xlat_spec_intact, checked by xlat_free
 *    in checking builds).
 *  - May call: src/mem/server_pool.h (MSHRs and walkers as calendars)
 *    and, through the two ports below it that the system builder
 *    connects (structs of a function and its context, fixed at build
 *    time; not includes or calls the check sees), the memory partitions
 *    for a walk's leaf read (struct xlat_pte_port: system.c
 *    walk_pte_read) and the paging layer for a finished walk (struct
 *    xlat_page_port: system.c page_walk_done, the UVM driver). Akita's
 *    TLB and its bottom port are the model: xlat sends a typed request
 *    and never knows what is below; the answer is the response's value.
 *  - Results travel in responses: a port's answer is the struct it
 *    returns (struct xlat_walk_rsp, the PTE read's cycles), and a level's
 *    answer to the level above is a struct returned by value (xlat.c
 *    struct level_rsp: when the translation is ready, when the level
 *    below answered, the widest entry it allows). Nothing is left in
 *    struct xlat to be read back by a caller or another level.
 *  - Guarantees: xlat_translate answers a request for (sm, addr) at t
 *    with a time no earlier than t; an SM's request touches only the
 *    level instances its SM id maps to (tlb.lN.share), except through a
 *    sharing scheme (probe_remote, after_translate). Each level is
 *    entered once going down and left once coming up per request, and
 *    nothing re-enters xlat while a request is below it: an eviction's
 *    shootdown during a walk comes back in the walk's response
 *    (struct xlat_walk_rsp's invalidate ranges); xlat_invalidate_range
 *    is for shootdowns outside a walk. */
#ifndef GPUVM_XLAT_H
#define GPUVM_XLAT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/stats.h"
#include "mem/server_pool.h"
#include "xlat/peer.h"
#include "xlat/tlb.h"

/* One instance of a level (one per sharing domain): its TLB, its MSHRs and
 * its counts. Counted here and added to the level's stats by
 * xlat_sync_stats: one increment a lookup instead of four (lookups, hits
 * or misses, the instance's). */
struct xlat_instance {
	struct tlb tlb;
	struct server_pool mshr;
	uint64_t hits, misses;
};

/* A level's spec: set by xlat_init and never written by a request. It
 * sits first, where shift, hit_cycles, miss_penalty_cycles and instances
 * sat before they were a struct (peer_ops, read on the slow path only,
 * moved up into the padding they left: the spec is 32 bytes, as the four
 * were, and inst stays at offset 32). */
struct xlat_level_spec {
	unsigned shift;               /* log2(entry_bytes) */
	uint32_t instances;
	double hit_cycles, miss_penalty_cycles;
	/* inter-TLB sharing scheme (src/xlat/peer.h); NULL: none */
	const struct xlat_peer_ops *peer_ops;
};

struct xlat_level {
	struct xlat_level_spec spec;
	struct xlat_instance *inst;    /* [instances] */
	struct xlat_instance **of_sm;  /* [sms]: the instance each SM uses */
	struct gpuvm_tlb_level_stats *stats;
	uint64_t pending_hits;
	double cycles;                 /* translation cycles since the last sync */
	void *peer;                    /* the sharing scheme's state */
};

/* ---- the ports below the TLBs (connected by the system builder) ---- */

/* A finished walk of addr for SM sm, done at t (the miss path only),
 * sent to the layer that owns the pages, with what the requester knew of
 * the page (struct xlat_req: whether its allocation is managed, so the
 * port need not look it up again). */
struct xlat_walk_req {
	uint32_t sm;
	uint64_t addr;
	double t;
	bool managed_known; /* false: the port looks the allocation up */
	bool managed;
	/* NULL, or the sector the requester serves right after the
	 * translation, for the page port to serve with the walk (struct
	 * xlat_req's access) */
	void *access;
};

/* A virtual range whose cached translations are to be dropped. */
struct xlat_range {
	uint64_t addr;
	uint64_t bytes;
};

/* Its answer: when the translation is usable (no earlier than the
 * request's t; later when the page must first be brought in), the
 * largest entry range that may be kept (UINT64_MAX: any; TLB levels with
 * larger entries drop this one) and the ranges the paging layer shot
 * down while it served the walk (an eviction that made room for the
 * page: n_invalidate ranges at invalidate, in the order shot, owned by
 * the port and valid until its next request). The translation layer
 * drops them as soon as the port returns, before it touches a TLB again:
 * the paging layer never reads a TLB, so this is the state the shootdown
 * would have left had it re-entered xlat while the walk was below. */
struct xlat_walk_rsp {
	double ready;
	uint64_t fill_max_bytes;
	const struct xlat_range *invalidate;
	uint32_t n_invalidate;
};

/* The port to the paging layer. walk_done NULL: every walk succeeds at
 * its end (no unified memory). */
struct xlat_page_port {
	struct xlat_walk_rsp (*walk_done)(void *ctx, const struct xlat_walk_req *req);
	void *ctx;
};

/* A walk's read of the leaf page-table entry of addr's page at t. */
struct xlat_pte_req {
	uint64_t addr;
	double t;
};

/* The port to the memory hierarchy for the leaf read: answers the cycles
 * the read adds beyond the walk latency (which already holds a read that
 * hits the L2). read NULL: the walk latency holds the entry reads. */
struct xlat_pte_port {
	double (*read)(void *ctx, const struct xlat_pte_req *req);
	void *ctx;
};

/* The translation layer's spec: set by xlat_init and never written by a
 * request (sealed with the levels' specs, core/spec_seal.h; xlat_free
 * checks the seal in checking builds). */
struct xlat_spec {
	uint32_t levels;
	unsigned pwc_shift;
	double walk_cycles, pwc_walk_cycles;
	int pwc_on;                   /* 0: no page-walk cache */
	/* Some level has a sharing scheme, or the sharing analysis is on:
	 * translations take level_step's variant with the schemes' calls
	 * (xlat.c), the one without otherwise. */
	bool slow;
	/* tlb.l1_in_flight = miss: at the first level an entry counts only
	 * once filled (lookups, the sharing analysis); slow path only */
	bool l1_in_flight_miss;
	/* tlb.future_fill = peek: a last-level lookup earlier than its
	 * entry's fill request reads the walkers' calendar, books no walk */
	bool future_peek;
};

struct xlat {
	struct xlat_spec spec;
	struct xlat_level level[GPUVM_MAX_TLB_LEVELS];
	struct server_pool walkers;
	struct tlb pwc;               /* spec.pwc_on == 0: no page-walk cache */
	struct gpuvm_stats *stats;
	uint64_t walks, pwc_hits;     /* since the last xlat_sync_stats */
	/* the ports below, set by the system builder (xlat_connect_*): the
	 * PTE port at build time, the page port when the first managed
	 * allocation turns the driver on (between kernels) */
	struct xlat_page_port page;
	struct xlat_pte_port pte;
	struct gpuvm_tlb_sharing_stats *sharing; /* NULL: analysis off */
	/* system-allocated memory (c2c.coherent): addresses in [sys_lo,
	 * sys_lo + sys_span) are translated through the system page table,
	 * one entry per system page of 1 << sys_shift bytes at every level
	 * (xlat_tag), apart from the GPU's own entries; sys_span 0: none.
	 * Not spec: the system builder widens the range at each system
	 * allocation (xlat_set_system_range), between kernels. */
	uint64_t sys_lo, sys_span;
	unsigned sys_shift;
	uint64_t spec_seal; /* of spec and every level's spec, taken at init */
};

/* The TLB tag of addr at level xl: its entry of the level's size, or,
 * for system memory, its system page, marked by the top bit so the two
 * never meet. The shift of the entry is set in *shift. */
static inline uint64_t xlat_tag_known(const struct xlat *x, const struct xlat_level *xl,
				      uint64_t addr, bool system, unsigned *shift)
{
	if (__builtin_expect(system, 0)) {
		*shift = x->sys_shift;
		return (addr >> x->sys_shift) | (1ull << 63);
	}
	*shift = xl->spec.shift;
	return addr >> xl->spec.shift;
}

/* xlat_tag_known with the system-memory test made here (the fast
 * translation path makes it once a request, for every level). */
static inline uint64_t xlat_tag(const struct xlat *x, const struct xlat_level *xl, uint64_t addr,
				unsigned *shift)
{
	return xlat_tag_known(x, xl, addr, addr - x->sys_lo < x->sys_span, shift);
}

/* System-allocated memory lies in [lo, lo + bytes), translated in pages
 * of page_bytes (the system builder, at each system allocation: the
 * range grows to cover them all). */
void xlat_set_system_range(struct xlat *x, uint64_t lo, uint64_t bytes, uint64_t page_bytes);

int xlat_init(struct xlat *x, const struct gpuvm_config *cfg, struct gpuvm_stats *stats);
void xlat_free(struct xlat *x);
/* Whether x's spec and its levels' are what init set (tests; checking
 * builds check it in xlat_free). */
bool xlat_spec_intact(const struct xlat *x);

/* The system builder connects the ports below the TLBs: the PTE port
 * when it builds the translation layer, the page port at the first
 * managed allocation (never while a translation is under way). */
void xlat_connect_page_port(struct xlat *x, struct xlat_page_port port);
void xlat_connect_pte_port(struct xlat *x, struct xlat_pte_port port);

/* Whether a translation sends nothing below the TLBs (no port
 * connected): the window's barrier may then translate ahead. */
static inline bool xlat_self_contained(const struct xlat *x)
{
	return !x->page.walk_done && !x->pte.read;
}

/* A translation request: SM sm asks for addr's translation at t. The
 * requester may say whether addr's allocation is managed (managed_known:
 * the SM layer looks each sector's allocation up once and hands it on),
 * which travels to the page port in the walk's request. */
struct xlat_req {
	uint32_t sm;
	uint64_t addr;
	double t;
	bool managed_known;
	bool managed;
	/* NULL, or the paging layer's slot for a sector the requester
	 * serves right after the translation (uvm.h struct uvm_sector_slot:
	 * the sector, and room for the answer): a walk's page port may serve
	 * its access with the walk, so the paging layer takes one request,
	 * not two, and answers there, as Akita's RspTo names where an answer
	 * goes. Opaque here: xlat carries it to the port and never reads it. */
	void *access;
};

/* Time at which the request's translation is available. Updates TLB
 * state and statistics. */
double xlat_translate_req(struct xlat *x, const struct xlat_req *req);

/* xlat_translate_req for (sm, addr) at t with nothing known of the
 * page's allocation (the page port looks it up). */
double xlat_translate(struct xlat *x, uint32_t sm, uint64_t addr, double t);

/* Adds the counts kept since the last call to the statistics (every
 * counter of stats->tlb[], walks, pwc_hits). Call before reading them;
 * xlat_free does it a last time. */
void xlat_sync_stats(struct xlat *x);

/* Drops cached entries covering [addr, addr + bytes) at every level and
 * instance (a TLB shootdown after eviction). */
void xlat_invalidate_range(struct xlat *x, uint64_t addr, uint64_t bytes);

#endif
