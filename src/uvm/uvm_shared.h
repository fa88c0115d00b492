/* The residency of managed pages shared by the GPUs of a system: which
 * processor holds each page (the CPU, or GPU g as nvidia-uvm's processor
 * id g + 1, uvm_page.h), consulted by every GPU's UVM driver on a system
 * of several GPUs (src/system/multi_gpu.c). A one-GPU run has none
 * (struct uvm.shared NULL) and takes no path of this file.
 *
 * Contract:
 *  - Owns: the owner of each managed page (a byte per 4 KiB page, per 2 MB
 *    VA block touched; a page of no block is on the CPU), the GPUs holding
 *    a read duplicate of it (cudaMemAdviseSetReadMostly ranges only), the
 *    read-mostly ranges, the set of GPUs whose own page records hold pages
 *    another GPU has since taken or a write collapsed (stale), the
 *    counters of migrations between GPUs, duplications and collapses.
 *  - Requests: uvm_shared_take (a GPU's driver made pages resident: a
 *    fault, a prefetch, a copy in), uvm_shared_release (its driver dropped
 *    them to the host: eviction, write-back, cudaFree), uvm_shared_owner
 *    (where a page the driver is about to migrate comes from). The
 *    transfer between two GPUs is the engine's (peer_copy, wired by
 *    multi_gpu.c to link/peer_link.h: NVLink / NVSwitch, or staged through
 *    host memory where no GPU-GPU link joins them).
 *  - Read duplication (nvidia-uvm's read-mostly, uvm_va_block.c): a GPU
 *    taking a page of a read-mostly range gets a copy and the holders keep
 *    theirs (copies); the source is the owner when it is a GPU, else the
 *    first GPU holding a copy, else the host. A write by a holder
 *    (uvm_shared_write) collapses the page to the writer: every other
 *    holder is marked stale.
 *  - Preferred location (cudaMemAdviseSetPreferredLocation, nvidia-uvm
 *    uvm_va_policy.h preferred_location): the processor a range's pages
 *    live on, the latest advice covering an address winning; which GPUs
 *    reach which GPU's memory (reach: a GPU-GPU route the driver maps
 *    peer memory over; the CPU's memory every GPU reaches); place, the
 *    engine's move of a page to its preferred location on another GPU's
 *    fault (wired by multi_gpu.c to the location's driver). The fault
 *    path reads them (uvm_fault.c preferred_elsewhere).
 *  - Advice lives as long as its allocation: cudaFree drops what the
 *    ranges held of it (uvm_shared_drop_ranges).
 *  - Guarantees: each page has one owner and, read-mostly, copies on other
 *    GPUs; a GPU that lost pages is marked stale until its driver drops
 *    them (uvm_invalidate_taken, uvm_evict.c), which the engine asks for
 *    before that GPU's next kernel, copy or synchronisation. Dropping them
 *    then rather than at the taking is exact only because kernels that
 *    may share managed pages do not overlap in time (multi_gpu.c
 *    serialises them; docs/systems.md "Managed memory on several GPUs").
 *  - System-allocated memory (mem=system, c2c.coherent on every GPU;
 *    docs/systems.md "System-allocated memory on several GPUs"): a page
 *    is placed once, by the first processor touching it, on that
 *    processor's memory node (a GPU's HBM: the owner byte; a Grace's
 *    LPDDR5X: the owner UVM_PROC_CPU and cpu_node, the Grace's index + 1;
 *    neither: no processor placed it). Each GPU's Grace is the CPU at the
 *    other end of its NVLink-C2C link (grace[]); an access by GPU g to a
 *    page on another Grace, or a CPU phase reaching a page in the HBM of a
 *    GPU whose Grace is not the host thread's (cpu.0), has no route the
 *    system files describe: the first such access is recorded (no_route)
 *    and the engine stops the run naming it.
 *  - May call: libc, the block map (uvm_map.h), thrashing_shared.h (to
 *    free the system's thrashing detection). */
#ifndef GPUVM_UVM_SHARED_H
#define GPUVM_UVM_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#include "uvm/uvm_map.h"
#include "uvm/uvm_page.h"

/* The shared state of one 2 MB VA block. */
struct uvm_shared_blk {
	uint8_t owner[UVM_BLOCK_PAGES]; /* processor id: UVM_PROC_CPU or a GPU's */
	uint64_t *copies; /* [UVM_BLOCK_PAGES] bit g: GPU g holds a read duplicate; NULL: none */
	/* processor id each page's last take came from (its source then):
	 * where a page on its way is still read from (a counter notice's) */
	uint8_t from[UVM_BLOCK_PAGES];
	/* system-allocated pages on the CPU (owner UVM_PROC_CPU): the Grace
	 * whose memory holds each, its index + 1; 0: no processor placed it */
	uint8_t cpu_node[UVM_BLOCK_PAGES];
};

struct uvm_shared_range {
	uint64_t base, end;
	uint64_t gpus; /* accessed-by: bit proc - 1 for each GPU mapping it */
	uint32_t proc; /* preferred location: a processor id */
};

/* uvm_shared_route: no Grace (a GPU without an NVLink-C2C link) */
#define UVM_SHARED_NO_GRACE 0xffu

/* Who reached whose memory without a described route. */
enum uvm_route_kind {
	UVM_ROUTE_GPU_TO_CPU, /* GPU gpu's load or store to Grace node's memory */
	UVM_ROUTE_CPU_TO_GPU, /* the CPU on Grace node reaching GPU gpu's HBM */
	UVM_ROUTE_GPU_TO_GPU, /* GPU gpu to GPU node's HBM, no GPU-GPU link joining them */
};

/* The first access whose route the system files do not describe
 * (system-allocated memory), at addr. */
struct uvm_shared_no_route {
	bool set;
	enum uvm_route_kind kind;
	uint32_t gpu, node;
	uint64_t addr;
};

/* uvm_shared_preferred: no preferred location */
#define UVM_SHARED_NO_PREF 0xffu

struct uvm_shared {
	uint32_t n_gpus;
	struct uvm_map blocks; /* VA block number -> struct uvm_shared_blk * */
	struct uvm_shared_range *read_mostly; /* cudaMemAdviseSetReadMostly ranges */
	uint32_t n_read_mostly, cap_read_mostly;
	struct uvm_shared_range *accessed_by; /* cudaMemAdviseSetAccessedBy ranges, gpus set */
	uint32_t n_accessed_by, cap_accessed_by;
	struct uvm_shared_range *preferred; /* cudaMemAdviseSetPreferredLocation ranges, proc set */
	uint32_t n_preferred, cap_preferred;
	/* [proc - 1]: bit q - 1 for each GPU processor q whose memory GPU
	 * proc maps over a GPU-GPU route (NVLink / NVSwitch) */
	uint64_t reach[64];
	uint64_t stale; /* bit proc - 1 (a GPU): its record holds pages another GPU took */
	/* a migration of bytes from processor src to dst (GPUs), ready at t
	 * seconds: when it is done (seconds) */
	double (*peer_copy)(void *ctx, uint32_t src, uint32_t dst, double t, uint64_t bytes);
	void *ctx;
	/* makes [addr, addr + bytes) resident on processor loc (its preferred
	 * location), ready at t seconds: when it is there (seconds) */
	double (*place)(void *ctx, uint32_t loc, uint64_t addr, uint64_t bytes, double t);
	uint64_t peer_pages, peer_transfers; /* migrated GPU to GPU */
	uint64_t invalidated_pages;          /* dropped from a GPU another took them from */
	uint64_t duplicated_pages;           /* read duplicates made (read-mostly) */
	uint64_t collapsed_pages;            /* duplicated pages a write collapsed */
	uint64_t peer_remote_bytes;          /* read or written over the peer route in place */
	/* thrashing detection across the GPUs (uvm.thrashing = on; made by
	 * the first GPU's driver, freed here); NULL: off */
	struct uvm_xthrash *thrash;
	/* [g]: the index of the Grace at the other end of GPU g's NVLink-C2C
	 * link (system/multi_gpu.c, from the system file), or
	 * UVM_SHARED_NO_GRACE */
	uint8_t grace[64];
	struct uvm_shared_no_route no_route;
	bool oom;
};

int uvm_shared_init(struct uvm_shared *sh, uint32_t n_gpus);
void uvm_shared_free(struct uvm_shared *sh);
/* The shared state of the block at base (NULL: none kept, every page the CPU's). */
static inline const struct uvm_shared_blk *uvm_shared_block(const struct uvm_shared *sh,
							    uint64_t base)
{
	const struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	return x ? (const struct uvm_shared_blk *)(uintptr_t)x->val : NULL;
}
/* Where processor proc gets page p of s from: the owner when it is
 * another GPU, else the first other GPU holding a copy, else the host
 * (UVM_PROC_CPU). */
static inline uint32_t uvm_shared_source(const struct uvm_shared_blk *s, uint32_t p, uint32_t proc)
{
	if (s->owner[p] != UVM_PROC_CPU && s->owner[p] != proc)
		return s->owner[p];
	uint64_t c = s->copies ? s->copies[p] & ~(1ull << (proc - 1)) : 0;
	return c ? (uint32_t)__builtin_ctzll(c) + 1 : UVM_PROC_CPU;
}
/* Where page p of the block at base, taken by a GPU, came from (its
 * source at the take); UVM_PROC_CPU when none is known. */
static inline uint32_t uvm_shared_from(const struct uvm_shared *sh, uint64_t base, uint32_t p)
{
	const struct uvm_shared_blk *s = uvm_shared_block(sh, base);
	return s ? s->from[p] : UVM_PROC_CPU;
}
/* Whether page p of s is proc's (its owner, or a copy's holder). */
static inline bool uvm_shared_holds(const struct uvm_shared_blk *s, uint32_t p, uint32_t proc)
{
	return s->owner[p] == proc || (s->copies && (s->copies[p] >> (proc - 1) & 1));
}
/* System-allocated page p of s: whether a processor placed it (its first
 * touch), and where: *gpu_proc the GPU holding it (0: none), else *node
 * the Grace whose memory holds it. */
static inline bool uvm_shared_placed(const struct uvm_shared_blk *s, uint32_t p,
				     uint32_t *gpu_proc, uint32_t *node)
{
	*gpu_proc = s ? s->owner[p] : UVM_PROC_CPU;
	*node = s && s->cpu_node[p] ? s->cpu_node[p] - 1u : 0;
	return s && (s->owner[p] != UVM_PROC_CPU || s->cpu_node[p]);
}
/* The CPU on Grace node touches the system-allocated pages of [addr, addr
 * + bytes): those no processor placed go to that Grace's memory (Linux's
 * first-touch placement); those placed stay where they are. */
void uvm_shared_cpu_place(struct uvm_shared *sh, uint64_t addr, uint64_t bytes, uint32_t node);
/* cudaFree of system-allocated [addr, addr + bytes): its pages are no
 * processor's (a later allocation there starts untouched). */
void uvm_shared_forget(struct uvm_shared *sh, uint64_t addr, uint64_t bytes);
/* Records an access without a described route (the first one kept). */
void uvm_shared_no_route(struct uvm_shared *sh, enum uvm_route_kind kind, uint32_t gpu,
			 uint32_t node, uint64_t addr);
/* cudaMemAdviseSetReadMostly of [addr, addr + bytes): 0, or -1 out of memory. */
int uvm_shared_read_mostly(struct uvm_shared *sh, uint64_t addr, uint64_t bytes);
/* cudaMemAdviseSetAccessedBy(GPU proc) of [addr, addr + bytes): proc keeps
 * a mapping, reading and writing the page where it is instead of
 * faulting it in (0, or -1 out of memory); whether addr is so for proc. */
int uvm_shared_accessed_by(struct uvm_shared *sh, uint64_t addr, uint64_t bytes, uint32_t proc);
bool uvm_shared_is_accessed_by(const struct uvm_shared *sh, uint64_t addr, uint32_t proc);
/* cudaFree of the managed allocation [addr, addr + bytes): the advice
 * ranges (read-mostly, accessed-by, preferred location) lose what they
 * held of it, as nvidia-uvm's policy goes with the freed va_range
 * (uvm_va_range_destroy), so an allocation made later at those addresses
 * starts with none; sh->oom when out of memory. */
void uvm_shared_drop_ranges(struct uvm_shared *sh, uint64_t addr, uint64_t bytes);
/* Whether addr lies in a read-mostly range. */
bool uvm_shared_is_read_mostly(const struct uvm_shared *sh, uint64_t addr);
/* cudaMemAdviseSetPreferredLocation(proc: a GPU, or UVM_PROC_CPU) of
 * [addr, addr + bytes): 0, or -1 out of memory; the preferred location
 * of addr, or UVM_SHARED_NO_PREF. */
int uvm_shared_set_preferred(struct uvm_shared *sh, uint64_t addr, uint64_t bytes, uint32_t proc);
uint32_t uvm_shared_preferred(const struct uvm_shared *sh, uint64_t addr);
/* A store by proc to page p of the block at base, which proc holds:
 * collapses a duplicated page to proc (the other holders turn stale);
 * true when it did (the writer's upgrade fault). */
bool uvm_shared_write(struct uvm_shared *sh, uint64_t base, uint32_t p, uint32_t proc);
/* proc now holds the pages of mask in the block at base: a copy beside
 * the others' of a read-mostly page, else the page alone (a GPU that held
 * it before, owner or copy, is marked stale). */
void uvm_shared_take(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc);
/* The pages of mask that proc holds go back to the CPU (system-allocated
 * ones: to proc's own Grace). */
void uvm_shared_release(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc);

#endif
