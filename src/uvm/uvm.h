/* The unified-memory layer: page state of managed allocations, far faults
 * (replayable with far-fault MSHRs, or blocking), fault batches, the
 * migration engine over one serial PCIe lane per direction, eviction and
 * prefetching through the policy modules.
 *
 * Two requests reach it: uvm_translate after a page walk of a managed
 * address (the miss path only; the system builder's page port hands its
 * struct uvm_translation to the translation layer), and
 * uvm_access_sector / uvm_access_counted_sector for every sector of
 * managed memory (bookkeeping the eviction policies need: UVMSmart
 * refreshes LRU on every access; answered by struct uvm_sector_rsp,
 * which also carries the page's stale-L2 stamps). The sector the SM
 * serves right after a walk comes with the walk (uvm_translate_sector,
 * one request for both), so a far-faulting load enters the driver once. With c2c.coherent the
 * run loop also tells it of the host's first touch of system-allocated
 * memory (uvm_host_touch; docs/systems.md "Grace Hopper memory"). Each
 * answer travels in its response; nothing is read back from struct uvm
 * by a caller. Time is
 * in SM cycles; like the rest of the engine, requests are timed eagerly,
 * roughly in time order.
 *
 * Contract (the driver as a whole; uvm_fault.c, uvm_migrate.c,
 * uvm_evict.c and uvm_lane.c state their own parts):
 *  - Owns: struct uvm: the block table and every block's page state, the
 *    frames, the far-fault MSHRs and batches, the policies' state, the
 *    driver events, the UVM counters of gpuvm_uvm_stats; and its spec
 *    (struct uvm_spec), which uvm_init sets and seals and no request
 *    writes (core/spec_seal.h: uvm_spec_intact, checked by uvm_free in
 *    checking builds).
 *  - May call: the host link's lanes it is handed (link/link_lane.h:
 *    link_lane_init/_free for lanes of its own without a link; the
 *    bookings are uvm_lane.c's), mem/long_pool.h (the far-fault MSHRs),
 *    and, through struct uvm_hooks wired by the system builder, the
 *    translation layer's shootdown and the memory partitions' L2 clock
 *    (function pointers, not includes: no request carries a time). The
 *    policy modules are its own (src/uvm/prefetch_*.c, evict_*.c,
 *    migrate_*.c; listed in the registry, src/core/module_registry.c),
 *    their parameter values the config's (src/config:
 *    gpuvm_module_params).
 *  - Guarantees: a page's state (per page per processor) changes only by
 *    the transitions of uvm_page_state.h, through uvm_pages_transition
 *    (the states, the legal transitions, the function making each and
 *    the invariants of each state are listed there); the page-state
 *    invariants U1-U10 (uvm.c) hold between requests; a returned time is
 *    never before the request's. */
#ifndef GPUVM_UVM_INTERNAL_H
#define GPUVM_UVM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/uvm.h"
#include "mem/long_pool.h"
#include "link/link_lane.h"
#include "mem/server_pool.h"
#include "uvm/evict.h"
#include "uvm/migrate.h"
#include "uvm/block_arena.h"
#include "uvm/thrashing.h"
#include "uvm/uvm_events.h"
#include "uvm/uvm_map.h"
#include "uvm/prefetch.h"
#include "uvm/uvm_page.h"
#include "uvm/uvm_shared.h"

/* What the paging layer asks of the rest of the GPU model. */
struct uvm_hooks {
	/* Drops cached translations of [addr, addr + bytes) (TLB shootdown). */
	void (*shootdown)(void *ctx, uint64_t addr, uint64_t bytes);
	/* The L2's use clock now (the stamp its last access got; NULL: no
	 * L2 to keep coherent). */
	uint32_t (*l2_clock)(void *ctx);
	/* the host link's lanes, [0] host to device, [1] device to host,
	 * shared with zero-copy packets and copies (link/link.h); NULL: lanes
	 * of its own */
	struct link_lane *lanes[2];
	void *ctx;
	/* told of each decision (NULL: no one listens) */
	struct gpuvm_uvm_observer observer;
	/* a system of several GPUs: the residency they share and this GPU's
	 * processor id in it (uvm_shared.h); NULL on a system of one */
	struct uvm_shared *shared;
	uint32_t proc;
};

/* cudaMemAdvise hints of an allocation (uvm.preferred_location = host,
 * uvm.accessed_by = gpu, for the allocations uvm.advise_allocations names) */
#define UVM_ADVISE_HOST 1u        /* preferred location host: never migrates to the GPU */
#define UVM_ADVISE_ACCESSED_BY 2u /* the GPU keeps a mapping: remote access without a fault */
/* system-allocated memory (GPUVM_ALLOC_SYSTEM, c2c.coherent): malloc
 * memory in the system page table. A page the host touched first is in
 * CPU memory and read over the link without a fault (as accessed-by,
 * until the access counters migrate it); one the GPU touches first is
 * placed in device memory (uvm_ats.c uvm_system_first_touch). */
#define UVM_ADVISE_SYSTEM 4u

struct uvm_range {
	uint64_t base, bytes;
	uint32_t advise; /* UVM_ADVISE_* */
	uint32_t stat;   /* its entry in st->allocs */
	/* UVM_ADVISE_SYSTEM: a bit per 4 KiB page the host touched first
	 * (uvm_host_touch); NULL: none */
	uint64_t *host_touched;
};

/* A serial server that takes requests in batches: a request arriving
 * before the open batch began joins it (up to batch_max); otherwise the
 * next batch opens once the server is free (uvm_batch.c uvm_batch_take). */
struct uvm_batcher {
	bool open;
	uint32_t count;
	double start;  /* when the open batch began */
	double free;   /* when the server is next free */
	double before; /* free before the open batch began */
};

/* The driver's spec (the block headed "configuration" before it was a
 * struct): set by uvm_init and never written by a request (sealed there,
 * core/spec_seal.h; uvm_free checks the seal in checking builds). The
 * prefetcher in use is not in it: the first eviction switches it to
 * prefetch_oversub (uvm_evict.c), so it is state. */
struct uvm_spec {
	double clock_hz, fault_latency_cycles, replay_cycles;
	bool posthoc, blocking, curve, wb_dirty;
	/* uvm.preferred_location = gpu on a system of one GPU (the
	 * prefetcher's first-touch rule); on several GPUs the range's advice
	 * decides instead (uvm_migrate.c preferred_here) */
	bool preferred_gpu;
	uint32_t batch_max, sms;
	double bandwidth_gb_s, buffer_frac, oversub_pct;
	double migration_gb_s; /* uvm.migration_gb_s; 0 = the link's rate */
	uint64_t device_bytes, max_entry_bytes;
	/* the prefetcher once oversubscribed (NULL: the same) and its
	 * parameter values (gpuvm_module_params), in row order */
	const struct uvm_prefetch_ops *prefetch_oversub;
	double prefetch_oversub_params[GPUVM_MODULE_PARAMS_EACH];
	const struct uvm_evict_ops *evict;
};

struct uvm {
	struct uvm_spec spec;
	/* the prefetcher in use and its parameter values: uvm.prefetcher's,
	 * then spec.prefetch_oversub's once eviction has started */
	const struct uvm_prefetch_ops *prefetch;
	double prefetch_params[GPUVM_MODULE_PARAMS_EACH];
	void *evict_state; /* spec.evict's */

	/* page state */
	struct uvm_space sp;
	uint32_t blocks_cap;
	struct uvm_map blocks; /* block number -> struct uvm_block * */
	struct uvm_block *last;
	struct block_arena arena; /* the blocks and their per-page stamps */
	/* Residency summary for TLB fills wider than 2 MB: per aligned group
	 * of group_blocks VA blocks (the widest TLB entry, at most 64 blocks),
	 * a bit per block that is managed but not fully resident. Built
	 * lazily, kept exact on every residency change, dropped when the
	 * allocations change. */
	uint32_t group_blocks, group_shift;
	struct uvm_map groups; /* group number -> bit i: block i not fully resident */
	struct uvm_range *allocs;
	uint32_t n_allocs, cap_allocs;
	uint32_t range_last; /* allocs[] index of the last uvm_range_of hit */
	size_t cap_alloc_stats;
	uint64_t managed_bytes;

	/* fault handling and the link */
	struct long_pool *ff_mshr; /* [sms] far-fault MSHRs */
	double *blocked_until;       /* [sms] blocking model: the TLB takes nothing new */
	double *blocked_since;       /* [sms] until then, from when its fault was raised */
	bool polled; /* Zheng's handler: no wait for the previous batch */
	struct uvm_batcher faults;  /* the replayable-fault handler */
	/* the access-counter notifications' own bottom half (nvidia-uvm
	 * uvm_gpu_isr.c access_counters_isr_bottom_half), used when a counter
	 * migration does not stall the access (uvm.counter_migration = async) */
	struct uvm_batcher notices;
	bool counter_async;
	/* uvm.remote_tlb_hits = local (remote_tlb.h): rtlb_words of SM bits
	 * per page, 0 when off */
	uint32_t rtlb_words;
	/* uvm.remote_tlb_fill = return: an entry serves from its read's return */
	bool rtlb_at_return;
	/* the PCIe lanes, one serial server per direction (uvm_lane.c): the
	 * host link's (uvm_hooks.lanes), or its own without a link */
	struct link_lane *h2d, *d2h;
	struct link_lane own_h2d, own_d2h;
	double last_lane_start; /* start of the last uvm_lane_transfer */
	bool evicting;               /* oversubscribed: eviction has started */
	bool sync_writeback;         /* uvm.device_sync = writeback (UVMSmart) */
	uint64_t rng;
	bool oom;                    /* an allocation failed; the run reports it */

	struct gpuvm_uvm_stats *st;
	struct uvm_hooks hooks;

	/* delayed migration (seeds/004 IV) and thrashing detection; with
	 * first-touch and an eviction that reads no counters, ac_on and
	 * thrash_on are false and uvm_access takes the path it always took */
	const struct uvm_migrate_ops *migrate;
	bool ac_on, thrash_on;
	bool advise_on; /* some allocation carries a UVM_ADVISE_* hint */
	uint32_t ts, penalty, sector_bytes;
	uint64_t ac_last_line; /* the access last counted: its 128 B line and time */
	double ac_last_t;
	double remote_latency, remote_cycles_per_byte;
	/* c2c.coherent: the link is NVLink-C2C and system-allocated ranges
	 * (UVM_ADVISE_SYSTEM) may exist: their pages are sys_page_pages
	 * pages wide and read remotely a line_bytes line at a time; rl_*:
	 * the line last read remotely, its time and when it was back (the
	 * sectors of one line one instruction reads travel as one) */
	bool c2c;
	uint32_t sys_page_pages, line_bytes;
	/* the driver's prefetch of a GPU first touch of system memory
	 * (uvm_ats.c): the threshold of uvm.prefetcher tree-driver, in
	 * percent; 0: off (another prefetcher) */
	double ats_prefetch_threshold_percent;
	uint64_t rl_line;
	double rl_t, rl_done;
	/* uvm.remote_read_hold_cycles (0: off): what one remote read holds
	 * the host-to-device lane; rq_*: the 128 B line last read so, its
	 * time and when it was back (its other sectors share the hold) */
	double remote_hold;
	uint64_t rq_line;
	double rq_t, rq_done;
	struct uvm_thrash thrash;
	struct uvm_events events; /* the policies' subscriptions (uvm_events.h) */
	uint32_t fault_cause;     /* mode of the fault being served, for MIGRATE events */
	/* several GPUs (uvm_hooks.shared): the residency they share, this
	 * GPU's processor id; NULL: one GPU, and no path below consults it */
	struct uvm_shared *shared;
	uint32_t proc;
	/* one GPU: cudaMemAdviseSetReadMostly ranges, read by the CPU's
	 * accesses alone (uvm_host_access.c); several GPUs: shared's */
	struct uvm_host_ranges *host_read_mostly;
	bool collapse_on; /* shared has read-mostly ranges: stores may collapse copies */
	bool peer_map_on; /* shared has accessed-by ranges: pages may be used in place */
	uint64_t spec_seal; /* core/spec_seal.h, taken at init */
};

int uvm_init(struct uvm *u, const struct gpuvm_config *cfg, struct gpuvm_uvm_stats *st,
	     const struct uvm_hooks *hooks);
void uvm_free(struct uvm *u);
/* Whether u's spec is what init set (tests; checking builds check it in
 * uvm_free). */
bool uvm_spec_intact(const struct uvm *u);

/* A managed allocation [base, base + bytes) appears, with its
 * UVM_ADVISE_* hints (an allocation with hints makes accesses go through
 * uvm_access_counted) / goes away (its frames are released). */
int uvm_add_alloc(struct uvm *u, const char *name, uint64_t base, uint64_t bytes,
		  uint32_t advise);
void uvm_remove_alloc(struct uvm *u, uint64_t base);
/* The host writes [addr, addr + bytes) of a system-allocated range
 * (UVM_ADVISE_SYSTEM) before a kernel: each system page of it not yet
 * touched is placed in CPU memory (first touch by the CPU; Linux's
 * default NUMA policy, Schieffer et al. ICPP'24). Pages already in
 * device memory stay there. Several GPUs: recorded in the residency they
 * share, on cpu.0 (uvm_shared_cpu_place), where no processor placed the
 * page. Returns -1 out of memory. */
int uvm_host_touch(struct uvm *u, uint64_t addr, uint64_t bytes);
/* Whether addr lies in a system-allocated range. */
bool uvm_is_system(const struct uvm *u, uint64_t addr);
/* cudaDeviceSynchronize of the program at t (uvm.device_sync); returns
 * when its write-backs are done (t under `keep`). */
double uvm_device_sync(struct uvm *u, double t);

/* Per-allocation accounting (alloc_stats.c). uvm_alloc_stats_open gives
 * a new allocation its st->allocs entry (-1: out of memory); the notes
 * count a decision at the allocation holding each page and tell the
 * observer: one page or sector at addr, or the pages of mask in b;
 * uvm_alloc_classify reads the access counters over r's range into its
 * entry (at free and at the end); uvm_alloc_rank then sets each entry's
 * class against the run's mean (at the end). */
int uvm_alloc_stats_open(struct uvm *u, struct uvm_range *r, const char *name);
void uvm_note(struct uvm *u, uint64_t addr, uint64_t bytes, enum gpuvm_uvm_decision d);
void uvm_note_mask(struct uvm *u, const struct uvm_block *b, const uint64_t *mask,
		   enum gpuvm_uvm_decision d);
void uvm_note_thrashed(struct uvm *u, uint64_t addr);
void uvm_alloc_classify(struct uvm *u, const struct uvm_range *r);
void uvm_alloc_rank(struct uvm *u);

/* The driver's answer to a finished walk (uvm_translate): when the
 * translation is usable, and the largest aligned range around the
 * address that is entirely resident (UINT64_MAX: no limit), so a TLB
 * entry covering more is not kept. */
struct uvm_translation {
	double ready;
	uint64_t fill_max_bytes;
};

/* After a walk of managed addr by SM sm, done at t: when the translation
 * is usable (a far fault if the page is not resident; with delayed
 * migration, a page a read would leave in host memory is mapped remotely
 * instead, 4 KB wide, and uvm_access decides), answered by value (the
 * system builder's page port hands it to the translation layer). */
struct uvm_translation uvm_translate(struct uvm *u, uint32_t sm, uint64_t addr, double t);

/* A sector of managed memory is accessed at t (its translation ready):
 * returns when its page is there. Only while uvm_counts(u) is false. The
 * time part of uvm_access_sector (the SM layer's request; the unit tests
 * call this one). */
double uvm_access(struct uvm *u, uint32_t sm, uint64_t addr, bool write, double t);

/* uvm_access while access counters or thrashing detection are on: every
 * access counts, and a read of a page that stays in host memory is
 * served over the PCIe link instead: *remote is set and the result is
 * when the sector has arrived (the caller skips the L2 and DRAM, as for
 * zero-copy memory). may_stay: the access may be served remotely below
 * the threshold (loads, and atomics, which UVMSmart decodes as loads:
 * GPGPU-Sim cuda-sim.cc "case ATOM_OP: op = LOAD_OP", so its migration
 * decision sees a read; PCIe carries atomics to host memory). Stores
 * always migrate (seeds/004 II-C). */
double uvm_access_counted(struct uvm *u, uint32_t sm, uint64_t addr, bool write, bool may_stay,
			  double t, bool *remote);

/* Whether accesses must go through uvm_access_counted (counters,
 * thrashing detection, an allocation with hints, or, several GPUs, a
 * read-mostly range whose duplicates a store collapses). */
static inline bool uvm_counts(const struct uvm *u)
{
	return u->ac_on || u->thrash_on || u->advise_on || u->collapse_on || u->peer_map_on;
}

/* An explicit host-to-device copy (cudaMemcpy) into managed memory,
 * running on the link from t to end: as the driver does, the copy leaves
 * its pages resident on the GPU (its copy engine writes through the GPU's
 * mapping and faults the pages in; see docs/uvm.md), evicting for room.
 * No far faults. Returns when the pages are in (end, or later when
 * write-backs had to free frames first). */
double uvm_copy_in(struct uvm *u, uint64_t addr, uint64_t bytes, double t, double end);

/* cudaMemPrefetchAsync of [addr, addr + bytes) of managed memory to this
 * GPU from t: the pages not resident move now, without far faults, from
 * the host over the host link or (several GPUs) from the GPU holding them
 * over the peer route, evicting for room; returns when they are in.
 * uvm_prefetch_to_host: to the CPU: the pages resident here go back over
 * the host link (all of them: the host's copy is stale), returning when
 * they are out. */
double uvm_prefetch_range(struct uvm *u, uint64_t addr, uint64_t bytes, double t);
double uvm_prefetch_to_host(struct uvm *u, uint64_t addr, uint64_t bytes, double t);

/* A CPU phase of the program touches [addr, addr + bytes) of managed
 * memory at t (simt_host_access; nvidia-uvm uvm_va_block.c
 * block_cpu_fault_locked): each 64 KB chunk holding pages resident on
 * this GPU takes one CPU fault (uvm.fault_latency_us), then, the CPU
 * waiting, its pages move to CPU memory over the host link's D2H lane
 * (shootdown, L2 lines stale, the GPU's next touch far-faults them); a
 * read of a read-mostly page duplicates it instead (the GPU keeps its
 * copy), a write invalidates this GPU's read duplicates of pages another
 * processor owns (no transfer). In-place: a system-allocated range on a
 * coherent NVLink-C2C system: the CPU reaches the GPU-resident pages
 * over C2C, nothing moves, no fault. Returns when the CPU has the data.
 * uvm_host_read_mostly records a read-mostly range on a system of one
 * GPU (0, or -1 out of memory); uvm_host_drop_ranges takes a freed
 * allocation's addresses out of those ranges (uvm_remove_alloc; the
 * advice goes with its allocation, uvm_shared_drop_ranges on several
 * GPUs). */
enum uvm_host_how { UVM_HOST_READ, UVM_HOST_WRITE };
double uvm_host_access(struct uvm *u, uint64_t addr, uint64_t bytes, enum uvm_host_how how,
		       double t);
int uvm_host_read_mostly(struct uvm *u, uint64_t addr, uint64_t bytes);
void uvm_host_drop_ranges(struct uvm *u, uint64_t addr, uint64_t bytes);
void uvm_host_free(struct uvm *u); /* from uvm_free */

/* Several GPUs (u->shared): drops the resident pages another GPU has
 * taken since (uvm_shared.h), without a write-back: the data went with
 * them. The engine calls it before this GPU's kernels, copies and
 * synchronisations; nothing when none was taken. */
void uvm_invalidate_taken(struct uvm *u);

/* Duration of an explicit copy of bytes on the link model. */
double uvm_copy_cycles(const struct uvm *u, uint64_t bytes);

/* End of run: pages prefetched and never touched are counted. */
void uvm_finish(struct uvm *u);

/* L2 lines of managed memory whose page left device memory since they
 * were last used are stale: in hardware they belong to the old frame (the
 * L2 is physically tagged) and a page brought back lands in a new one;
 * the model tags the L2 by virtual address, so the engine drops a line
 * last used at or before the L2 clock value *page_through (the page's
 * last eviction). Returns the latest such value over addr's block, a
 * filter the L2 checks first (0: nothing of the block ever left, and
 * *page_through is not set). */
uint32_t uvm_l2_stale_through(struct uvm *u, uint64_t addr, const uint32_t **page_through);

/* The driver's answer to one managed sector's access (the SM layer's one
 * request a sector, uvm_access_sector): when the data may be read
 * (ready), whether it was served remotely over the link (remote: then
 * nothing else applies) and, for the memory partitions, the page's stale
 * L2 stamps (uvm_l2_stale_through; block_through 0: nothing of its block
 * is stale, page_through NULL). */
struct uvm_sector_rsp {
	double ready;
	bool remote;
	uint32_t block_through;
	const uint32_t *page_through;
};

/* uvm_access (uvm_counts(u) false) or uvm_access_counted (true; may_stay
 * as there), then uvm_l2_stale_through unless served remotely, answered
 * in one response. */
struct uvm_sector_rsp uvm_access_sector(struct uvm *u, uint32_t sm, uint64_t addr, bool write,
					double t);
struct uvm_sector_rsp uvm_access_counted_sector(struct uvm *u, uint32_t sm, uint64_t addr,
						bool write, bool may_stay, double t);

/* A managed sector the SM serves right after its page's walk: the
 * request (sector_addr; write: a store or atomic) and room for the
 * answer. The SM layer owns it and names it in its translation request
 * (the translation layer carries it to the page port unread). booked:
 * served with the walk, rsp as uvm_access_sector's but for its ready,
 * the page's arrival (the data is there at the later of it and the SM's
 * time); false: nothing done, rsp not written. */
struct uvm_sector_slot {
	uint64_t sector_addr;
	bool write;
	bool booked;
	struct uvm_sector_rsp rsp;
};

/* uvm_translate, then the access of slot's sector: uvm_access_sector's
 * bookkeeping (a prefetched page used, dirty, the eviction policy's
 * on_access) and stale-L2 stamps, when the sector's page is resident
 * (slot->booked). Only while uvm_counts(u) is false. The same state as
 * uvm_translate followed by uvm_access_sector: the access's bookkeeping
 * does not depend on its time (access_resident's only use of it is the
 * answer, the later of the arrival and that time, which the SM takes),
 * and nothing reaches the driver between the walk's end and the sector.
 * A sector whose page is not resident is left to uvm_access_sector,
 * whose fault depends on the time. */
struct uvm_translation uvm_translate_sector(struct uvm *u, uint32_t sm, uint64_t addr, double t,
					    struct uvm_sector_slot *slot);

/* A hint that addr is about to be translated: starts loading the host
 * cache lines of its page's state (block header, residency word, arrival
 * time). Under thrashing nearly every access of managed memory walks,
 * and each walk's read of these is a host cache miss; an instruction's
 * lanes fetch them together rather than one after another. Changes no
 * state and no result (a page whose block does not exist yet is left). */
static inline void uvm_prefetch_page(const struct uvm *u, uint64_t addr)
{
	const struct uvm_map_entry *x = uvm_map_find(&u->blocks, addr >> UVM_BLOCK_SHIFT);
	if (!x)
		return;
	const struct uvm_block *b = (const struct uvm_block *)(uintptr_t)x->val;
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	__builtin_prefetch(b);
	__builtin_prefetch(&b->resident[p >> 6]);
	__builtin_prefetch(&b->arrive[p]);
}

/* Blocking model: when SM sm's TLB takes requests again. */
static inline double uvm_sm_blocked_until(const struct uvm *u, uint32_t sm)
{
	return u->blocked_until[sm];
}

/* Checks the page-state invariants numbered at the top of uvm.c: 0 when
 * they hold, else the number of the first one violated, with why (may be
 * NULL) saying where. Walks every block: for tests and debug builds. */
int uvm_check(const struct uvm *u, char *why, size_t len);

#endif
