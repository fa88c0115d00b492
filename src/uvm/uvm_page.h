/* Page state of managed memory: 4 KB pages in 64 KB basic blocks in 2 MB
 * VA blocks (nvidia-uvm uvm_va_block_types.h; UVMSmart abstract_hardware_model.h:
 * the driver's and UVMSmart's geometry). A VA block exists only once a page of it is touched, so
 * memory grows with the pages touched, not with the allocations. */
#ifndef GPUVM_UVM_PAGE_H
#define GPUVM_UVM_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UVM_PAGE_SHIFT 12
#define UVM_PAGE_BYTES (1u << UVM_PAGE_SHIFT)
#define UVM_BLOCK_SHIFT 21
#define UVM_BLOCK_PAGES 512u     /* 2 MB / 4 KB */
#define UVM_CHUNK_PAGES 16u      /* 64 KB basic block / big page */
#define UVM_BLOCK_CHUNKS 32u
#define UVM_MASK_WORDS 8u        /* 512 bits */

typedef uint64_t uvm_mask[UVM_MASK_WORDS];

/* Processors of the unified address space, numbered as nvidia-uvm's
 * uvm_processor_id_t (uvm_processor_mask.h: UVM_ID_CPU = 0, GPUs from 1;
 * uvm_events.h's migrate.dst uses the same ids). A one-GPU system has
 * the host and UVM_PROC_GPU0; UVM_MAX_PROCS bounds a system of several
 * GPUs (issue 78: eight, a DGX H100, and the CPU). */
#define UVM_PROC_CPU 0u
#define UVM_PROC_GPU0 1u
#define UVM_MAX_PROCS 9u

/* One processor's state of the pages of one block, a bit per page in
 * each mask (the life cycle and its transitions: uvm_page_state.h). */
struct uvm_proc_pages {
	uvm_mask resident;   /* a frame here: on the processor or on its way (see arrive) */
	uvm_mask dirty;      /* written since it arrived */
	uvm_mask prefetched; /* arrived by prefetch, not touched yet */
	uvm_mask evicted;    /* evicted and not back yet (thrash detection) */
	uvm_mask remote;     /* mapped remotely: read remotely since it was last non-resident */
};

/* Per-block policy slots (nvidia-uvm uvm_va_block_t.perf_modules_data[],
 * indexed by uvm_perf_module_type_t): a policy module keeps its per-block
 * state behind its slot, allocated when it first needs it and freed by
 * the module, instead of fields in this shared struct. */
enum uvm_policy_slot {
	UVM_SLOT_THRASHING = 0, /* thrashing.c: struct uvm_thrash_block */
	UVM_POLICY_SLOTS,
};

struct uvm_block {
	/* what every access reads first, in one host cache line (the arena
	 * aligns blocks to 64 bytes) */
	uint64_t base;              /* VA of the 2 MB block */
	double arrive_max;          /* no page arrives later (an upper bound) */
	uint32_t index;             /* dense id, stable */
	uint16_t first_page, end_page; /* managed pages of the block: [first, end) */
	uint32_t resident_count;
	uint32_t prefetched_count;  /* pages set in prefetched */
	uint32_t l2_evicted_at;     /* latest L2 clock at which a page of it left, 0 = never */
	uint32_t *page_l2_evicted_at; /* [512] per page, allocated at the block's first eviction */
	/* UVM_PROC_GPU0's page state, inline: the masks every access reads,
	 * under their own names and as that processor's record (the same
	 * storage; uvm_proc_pages_of). Only uvm_pages_transition writes them. */
	union {
		struct {
			uvm_mask resident, dirty, prefetched, evicted, remote;
		};
		struct uvm_proc_pages gpu0;
	};
	/* delayed migration (uvm.migration other than first-touch, or an
	 * eviction that reads the counters; NULL otherwise): */
	uint32_t *ac;               /* [32] access counters of the 64 KB chunks (migrate.h) */
	uint64_t *rtlb;             /* [512 x words] SMs whose TLB holds a remote entry of the page
				     * (uvm.remote_tlb_hits = local, remote_tlb.h); NULL otherwise */
	double *rtlb_at;            /* [512 x words x 64] when each such entry starts serving
				     * (uvm.remote_tlb_fill = return); NULL otherwise */
	uint8_t advise;             /* UVM_ADVISE_* of its allocation, if one allocation's */
	bool advise_mixed;          /* allocations with different hints share the block */
	/* cycle each resident page arrives; inline, so that a translation
	 * can fetch its entry, the header and the mask word at once (under
	 * thrashing each is a host cache miss, 3 in a row with a pointer) */
	double arrive[UVM_BLOCK_PAGES];
	void *policy_data[UVM_POLICY_SLOTS]; /* enum uvm_policy_slot; NULL until a module sets it */
	/* the records of the other processors (the CPU's and further GPUs',
	 * [uvm_proc_slot(proc)], UVM_MAX_PROCS - 1 of them), allocated when a
	 * second processor first keeps state of its own in the block; NULL
	 * until then, so memory grows with the blocks several processors
	 * touch. One GPU: always NULL (the host's state is derived). */
	struct uvm_proc_pages *others;
};

/* the masks' names and GPU0's record are the same storage */
_Static_assert(offsetof(struct uvm_block, resident) == offsetof(struct uvm_block, gpu0.resident) &&
		       offsetof(struct uvm_block, remote) == offsetof(struct uvm_block, gpu0.remote) &&
		       sizeof(struct uvm_proc_pages) == 5 * sizeof(uvm_mask),
	       "uvm_block: the inline masks and gpu0 differ");

/* A processor's index in uvm_block.others (GPU0's record is inline). */
static inline uint32_t uvm_proc_slot(uint32_t proc)
{
	return proc == UVM_PROC_CPU ? 0 : proc - 1;
}

/* proc's record of b's pages, NULL when it keeps none in b. */
static inline struct uvm_proc_pages *uvm_proc_pages_of(struct uvm_block *b, uint32_t proc)
{
	if (__builtin_expect(proc == UVM_PROC_GPU0, 1))
		return &b->gpu0;
	return b->others && proc < UVM_MAX_PROCS ? &b->others[uvm_proc_slot(proc)] : NULL;
}

static inline bool mask_test(const uint64_t *m, uint32_t i) { return (m[i >> 6] >> (i & 63)) & 1; }
static inline void mask_set(uint64_t *m, uint32_t i) { m[i >> 6] |= 1ull << (i & 63); }
static inline void mask_clear(uint64_t *m, uint32_t i) { m[i >> 6] &= ~(1ull << (i & 63)); }

static inline uint32_t mask_count(const uint64_t *m)
{
	uint32_t n = 0;
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		n += (uint32_t)__builtin_popcountll(m[w]);
	return n;
}

/* Pages [lo, hi) set in m, a word at a time. */
static inline uint32_t mask_count_range(const uint64_t *m, uint32_t lo, uint32_t hi)
{
	uint32_t n = 0;
	while (lo < hi) {
		uint32_t word_end = (lo | 63) + 1, end = word_end < hi ? word_end : hi;
		uint64_t bits = m[lo >> 6] >> (lo & 63);
		if (end - lo < 64)
			bits &= (1ull << (end - lo)) - 1;
		n += (uint32_t)__builtin_popcountll(bits);
		lo = end;
	}
	return n;
}

static inline void mask_set_range(uint64_t *m, uint32_t lo, uint32_t hi)
{
	while (lo < hi) {
		uint32_t word_end = (lo | 63) + 1, end = word_end < hi ? word_end : hi;
		uint64_t bits = end - lo < 64 ? (1ull << (end - lo)) - 1 : ~0ull;
		m[lo >> 6] |= bits << (lo & 63);
		lo = end;
	}
}

/* First page >= i whose bit in m equals set, or UVM_BLOCK_PAGES. */
static inline uint32_t mask_next(const uint64_t *m, uint32_t i, bool set)
{
	while (i < UVM_BLOCK_PAGES) {
		uint64_t w = set ? m[i >> 6] : ~m[i >> 6];
		w &= ~0ull << (i & 63);
		if (w)
			return (i & ~63u) + (uint32_t)__builtin_ctzll(w);
		i = (i | 63) + 1;
	}
	return UVM_BLOCK_PAGES;
}

static inline bool mask_empty(const uint64_t *m)
{
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		if (m[w])
			return false;
	return true;
}

#endif
