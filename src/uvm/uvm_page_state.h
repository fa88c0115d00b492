/* The life cycle of a managed page, per page and per processor: its
 * states, the transitions between them, the function that performs each,
 * and what is true in each state (SQLite's pager.c states its pager's
 * life cycle the same way). docs/uvm.md "A page's life cycle" has the
 * same diagram and table.
 *
 * A page's state on processor `proc` is five bits, one from each mask of
 * proc's record in the page's block (struct uvm_proc_pages, uvm_page.h):
 * R resident, P prefetched, D dirty, E evicted, M mapped remotely. The
 * legal combinations are the states below; the others break U6-U8.
 *
 *                (a block is made at its first touch: every page HOST)
 *                                      |
 *           MAP_REMOTE                 v                WRITE_BACK (device sync),
 *      +---------------------- +----------------+ <--- FREE (cudaFree) --------+
 *      |                       |      HOST      |                               |
 *      v                       |  (+evicted)    | <--- EVICT (sets evicted) --+ |
 *  +----------------+          +----------------+                             | |
 *  |     REMOTE     |                  |                                      | |
 *  | (+evicted)     |                  | FAULT_IN, PREFETCH_IN, COPY_IN       | |
 *  +----------------+                  v                                      | |
 *      |   FAULT_IN,   +---------------------------------------------------+  | |
 *      |   PREFETCH_IN,|  RESIDENT (a frame here; IN FLIGHT while          |--+ |
 *      +-------------->|  arrive[p] > now, and faults on it coalesce)      |----+
 *         COPY_IN      |                                                   |
 *         (keeps M)    |   PREFETCHED --TOUCH--> clean --WRITE--> DIRTY     |
 *                      |        \_______________WRITE_______________^      |
 *                      |   each may be +remote: NOTICE_KEEP sets it (a     |
 *                      |   counter notice's page keeps its mapping on its  |
 *                      |   way), ARRIVED clears it                         |
 *                      +---------------------------------------------------+
 *
 * Fault pending and evicting are not stored: the model times a request
 * eagerly, so the call that takes a far fault (uvm_fault.c far_fault_mode:
 * MSHR, batch, handler) also migrates the page, which is RESIDENT from
 * then on and in flight until arrive[p]; and drop_pages (uvm_evict.c)
 * takes a page out at once, returning when its write-back has freed the
 * frame. In flight is a time, RESIDENT with arrive[p] > now.
 *
 * The states (bits set; the invariants of uvm.c that hold in each):
 *
 *  HOST (none)           Not on proc and not mapped by it; the host holds
 *                        it. A touch raises a far fault, or, when a policy
 *                        leaves the page on the host (access counters
 *                        below the threshold, a preferred location, a
 *                        thrashing pin), maps it remotely. Holds no frame
 *                        (U4, U5); neither prefetched nor dirty (U6, U7).
 *  HOST+evicted (E)      HOST, having left by EVICT and not come back: a
 *                        fault on it is a refault (thrashed_pages, the
 *                        THRASHING event, pages_returned). U8.
 *  REMOTE (M, or M+E)    Mapped remotely: its reads cross the link
 *                        (remote_access), the data stays on the host; a
 *                        preferred-host page is mapped once by a fault
 *                        (remote_map_fault). No frame, not P or D.
 *  RESIDENT (R)          A frame on proc, counted in resident_count and
 *                        sp.resident_pages (U4, U5), inside the managed
 *                        span (U3), arriving at arrive[p] <= arrive_max
 *                        (U9); never evicted (U8). The block is fully
 *                        resident when every managed page is (U10).
 *  PREFETCHED (R+P)      RESIDENT, moved by the prefetcher with another
 *                        page's fault and not touched since (U6:
 *                        prefetched_count); counted used or unused when
 *                        it leaves the state.
 *  DIRTY (R+D, R+P+D)    RESIDENT and written since it arrived (a store,
 *                        an atomic, a copy into managed memory); written
 *                        back when it leaves (U7). R+P+D: a copy wrote a
 *                        prefetched page no warp has touched.
 *  +remote (R+M ...)     RESIDENT and still mapped remotely: a counter
 *                        notice's page on its way (its reads stay remote
 *                        until it arrives), or a page copied in over a
 *                        remote mapping; the next access after arrival
 *                        drops the mapping.
 *
 * The transitions (op: from -> to; performed by):
 *
 *  FAULT_IN     not R -> R (E, M dropped)  uvm_migrate_pages: the faulted page
 *  PREFETCH_IN  not R -> R+P (E, M dropped) uvm_migrate_pages: the prefetcher's
 *  COPY_IN      not R -> R+D (E dropped,    uvm_copy_in: a cudaMemcpy into
 *                              M kept)      managed memory
 *  TOUCH        R+P -> R                    access_resident (uvm_fault.c)
 *  WRITE        R -> R+D                    access_resident on a store;
 *                                           uvm_copy_in over resident pages
 *  MAP_REMOTE   not R, not M -> +M          remote_access, remote_map_fault
 *  NOTICE_KEEP  not M -> +M                 counter_notice: the pages it
 *                                           migrates keep their mapping
 *  ARRIVED      R+M -> R                    access_counted: the first access
 *                                           after a noticed page arrived
 *  EVICT        R -> E (P, D, M dropped)    drop_pages for room (uvm_evict.c)
 *  WRITE_BACK   R+D -> HOST (P, M dropped)  drop_pages at a device sync
 *  FREE         R -> not R (P, D dropped)   uvm_remove_alloc
 *  MIGRATE_IN   not R -> R (E, M dropped)  uvm_prefetch_range: an explicit
 *                                           prefetch (cudaMemPrefetchAsync)
 *  MIGRATE_OUT  R -> HOST (P, D, M dropped) the page left with its data:
 *                                           uvm_invalidate_taken (several
 *                                           GPUs: another GPU took it),
 *                                           uvm_prefetch_to_host (to the CPU;
 *                                           also for a CPU fault,
 *                                           uvm_host_access)
 *
 * Every change of a page's state is one of these, made by
 * uvm_pages_transition (or uvm_page_transition for one page). In builds
 * with GPUVM_CHECK_INVARIANTS (Debug, or GPUVM_SANITIZE) it first checks
 * the transition is legal from each page's state and that the per-page
 * invariants of the destination hold (U3, U6-U9), and aborts, naming
 * page, block, processor and rule, when not; U1, U2, U4, U5 and U10
 * concern the block table and its counts, which callers update after
 * the masks, and are checked by uvm_check at kernel boundaries. In
 * Release it is the plain stores.
 *
 * Per processor: GPU0's record is inline in the block (the masks every
 * access reads); the CPU's and further GPUs' records live in
 * uvm_block.others, made when a second processor first keeps state in
 * the block. With one GPU the host keeps no record: a page is on the host
 * exactly when GPU0 does not hold it (no read duplication yet), and a
 * transition named for a processor without a record is refused. */
#ifndef GPUVM_UVM_PAGE_STATE_H
#define GPUVM_UVM_PAGE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "uvm/uvm_page.h"

/* A page's state on one processor: these bits. */
enum {
	UVM_PG_R = 1u << 0, /* resident */
	UVM_PG_P = 1u << 1, /* prefetched, untouched */
	UVM_PG_D = 1u << 2, /* dirty */
	UVM_PG_E = 1u << 3, /* evicted, not back yet */
	UVM_PG_M = 1u << 4, /* mapped remotely */
	UVM_PG_STATES = 1u << 5,
};

enum uvm_page_op {
	UVM_OP_FAULT_IN,
	UVM_OP_PREFETCH_IN,
	UVM_OP_COPY_IN,
	UVM_OP_TOUCH,
	UVM_OP_WRITE,
	UVM_OP_MAP_REMOTE,
	UVM_OP_NOTICE_KEEP,
	UVM_OP_ARRIVED,
	UVM_OP_EVICT,
	UVM_OP_WRITE_BACK,
	UVM_OP_FREE,
	UVM_OP_MIGRATE_IN,
	UVM_OP_MIGRATE_OUT,
	UVM_PAGE_OPS
};

/* A transition: legal from a state holding every bit of need and none of
 * forbid; it clears clear, then sets set. */
struct uvm_page_rule {
	uint8_t need, forbid, clear, set;
};

static inline __attribute__((always_inline)) struct uvm_page_rule uvm_page_rule(enum uvm_page_op op)
{
	enum { R = UVM_PG_R, P = UVM_PG_P, D = UVM_PG_D, E = UVM_PG_E, M = UVM_PG_M };
	switch (op) {
	case UVM_OP_FAULT_IN:    return (struct uvm_page_rule){0, R, E | M, R};
	case UVM_OP_PREFETCH_IN: return (struct uvm_page_rule){0, R, E | M, R | P};
	case UVM_OP_COPY_IN:     return (struct uvm_page_rule){0, R, E, R | D};
	case UVM_OP_TOUCH:       return (struct uvm_page_rule){R | P, 0, P, 0};
	case UVM_OP_WRITE:       return (struct uvm_page_rule){R, 0, 0, D};
	case UVM_OP_MAP_REMOTE:  return (struct uvm_page_rule){0, R | M, 0, M};
	case UVM_OP_NOTICE_KEEP: return (struct uvm_page_rule){0, M, 0, M};
	case UVM_OP_ARRIVED:     return (struct uvm_page_rule){R | M, 0, M, 0};
	case UVM_OP_EVICT:       return (struct uvm_page_rule){R, 0, R | P | D | M, E};
	case UVM_OP_WRITE_BACK:  return (struct uvm_page_rule){R | D, 0, R | P | D | M, 0};
	case UVM_OP_FREE:        return (struct uvm_page_rule){R, 0, R | P | D, 0};
	case UVM_OP_MIGRATE_IN:  return (struct uvm_page_rule){0, R, E | M, R};
	case UVM_OP_MIGRATE_OUT: return (struct uvm_page_rule){R, 0, R | P | D | M, 0};
	case UVM_PAGE_OPS:       break;
	}
	return (struct uvm_page_rule){0xff, 0xff, 0, 0}; /* legal from no state */
}

/* Whether bits s are a state (U6, U7: P and D only with R; U8: E only
 * without). */
static inline int uvm_page_state_legal(uint32_t s)
{
	return s & UVM_PG_R ? !(s & UVM_PG_E) : !(s & (UVM_PG_P | UVM_PG_D));
}

/* Page p's state on processor proc. The host without a record of its
 * own holds a page exactly when GPU0 does not. */
static inline uint32_t uvm_page_state_of(const struct uvm_block *b, uint32_t proc, uint32_t p)
{
	const struct uvm_proc_pages *m = uvm_proc_pages_of((struct uvm_block *)(uintptr_t)b, proc);
	if (!m)
		return proc == UVM_PROC_CPU && !mask_test(b->resident, p) ? UVM_PG_R : 0;
	return (uint32_t)mask_test(m->resident, p) * UVM_PG_R |
	       (uint32_t)mask_test(m->prefetched, p) * UVM_PG_P |
	       (uint32_t)mask_test(m->dirty, p) * UVM_PG_D | (uint32_t)mask_test(m->evicted, p) * UVM_PG_E |
	       (uint32_t)mask_test(m->remote, p) * UVM_PG_M;
}

/* The stores of op on the pages `bits` of mask word w: what Release
 * builds do (an op known at compile time leaves only its own). */
static inline __attribute__((always_inline)) void uvm_pages_apply(struct uvm_proc_pages *m,
								  enum uvm_page_op op, uint32_t w,
								  uint64_t bits)
{
	struct uvm_page_rule r = uvm_page_rule(op);
	if (r.clear & UVM_PG_R) m->resident[w] &= ~bits;
	if (r.clear & UVM_PG_P) m->prefetched[w] &= ~bits;
	if (r.clear & UVM_PG_D) m->dirty[w] &= ~bits;
	if (r.clear & UVM_PG_E) m->evicted[w] &= ~bits;
	if (r.clear & UVM_PG_M) m->remote[w] &= ~bits;
	if (r.set & UVM_PG_R) m->resident[w] |= bits;
	if (r.set & UVM_PG_P) m->prefetched[w] |= bits;
	if (r.set & UVM_PG_D) m->dirty[w] |= bits;
	if (r.set & UVM_PG_E) m->evicted[w] |= bits;
	if (r.set & UVM_PG_M) m->remote[w] |= bits;
}

/* Why uvm_page_transition_legal refused (0: legal). */
enum uvm_page_refusal {
	UVM_PT_LEGAL = 0,
	UVM_PT_NO_RECORD,   /* proc keeps no record in the block, or op unknown */
	UVM_PT_CORRUPT,     /* a page's state is no state (U6-U8 already broken) */
	UVM_PT_NOT_FROM,    /* op is not a transition of a page's state */
	UVM_PT_DESTINATION, /* the destination breaks a per-page invariant (U3, U9) */
};

/* Whether op may change the pages `bits` of word w of b on proc: 0, or
 * why not (enum uvm_page_refusal), with why (may be NULL) naming the
 * first page refused, its state, the rule and the invariant. Reads only. */
int uvm_page_transition_legal(const struct uvm_block *b, uint32_t proc, enum uvm_page_op op,
			      uint32_t w, uint64_t bits, char *why, size_t len);

/* Told of a refused transition (checked builds): NULL, the default,
 * prints why and aborts, as an assert would; a test sets a hook that
 * records it, and the pages are then left as they were. */
extern void (*uvm_page_refusal_hook)(int refusal, const char *why);

/* Checks op on the pages `bits` of word w of b (proc) and applies it
 * when legal (0); otherwise reports to uvm_page_refusal_hook and
 * returns the refusal, the pages unchanged. */
int uvm_pages_transition_checked(struct uvm_block *b, uint32_t proc, enum uvm_page_op op,
				 uint32_t w, uint64_t bits);

const char *uvm_page_op_name(enum uvm_page_op op);
/* "resident+prefetched+dirty", "host+evicted+remote", ...: s's bits. */
void uvm_page_state_name(uint32_t s, char *buf, size_t len);

/* The one way a page's state changes: op on the pages `bits` of mask
 * word w of b, on processor proc. */
static inline __attribute__((always_inline)) void uvm_pages_transition(struct uvm_block *b,
								       uint32_t proc,
								       enum uvm_page_op op,
								       uint32_t w, uint64_t bits)
{
#ifdef GPUVM_CHECK_INVARIANTS
	(void)uvm_pages_transition_checked(b, proc, op, w, bits);
#else
	uvm_pages_apply(uvm_proc_pages_of(b, proc), op, w, bits);
#endif
}

/* uvm_pages_transition of page p alone. */
static inline __attribute__((always_inline)) void uvm_page_transition(struct uvm_block *b,
								      uint32_t proc,
								      enum uvm_page_op op, uint32_t p)
{
	uvm_pages_transition(b, proc, op, p >> 6, 1ull << (p & 63));
}

#endif
