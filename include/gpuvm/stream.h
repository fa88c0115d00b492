/* The warp-instruction stream: the one interface every workload source
 * (generated kernels, trace readers) implements and the engine consumes.
 *
 * A run is a lazy sequence of operations in program order: allocations,
 * host<->device copies and kernel launches. A kernel hands out warps on
 * demand (CTA by CTA, as the engine places them); a warp is a lazy sequence
 * of items, each a compute gap or one memory instruction with per-lane
 * addresses. Nothing is materialised: memory is O(resident warps). */
#ifndef GPUVM_STREAM_H
#define GPUVM_STREAM_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"

enum gpuvm_alloc_kind {
	GPUVM_ALLOC_DEVICE = 0,   /* cudaMalloc: device memory */
	GPUVM_ALLOC_MANAGED,      /* cudaMallocManaged: unified memory */
	GPUVM_ALLOC_HOST_PINNED,  /* cudaHostAlloc: zero-copy over PCIe */
};

struct gpuvm_alloc {
	char name[48];
	uint64_t base;   /* GPU virtual address */
	uint64_t bytes;
	enum gpuvm_alloc_kind kind;
};

enum gpuvm_mem_op { GPUVM_OP_LOAD = 0, GPUVM_OP_STORE, GPUVM_OP_ATOMIC };

enum gpuvm_item_kind {
	GPUVM_ITEM_END = 0,  /* the warp has exited */
	GPUVM_ITEM_COMPUTE,  /* non-memory instructions */
	GPUVM_ITEM_MEM,      /* one global memory instruction */
};

struct gpuvm_warp_item {
	enum gpuvm_item_kind kind;
	uint32_t compute_insts;     /* COMPUTE: warp instructions in the gap */
	enum gpuvm_mem_op op;       /* MEM */
	uint32_t bytes_per_lane;    /* MEM: 1, 2, 4, 8 or 16 */
	uint32_t active_mask;       /* MEM: bit i = lane i takes part */
	uint64_t addr[GPUVM_WARP_LANES]; /* MEM: valid for active lanes */
};

struct gpuvm_kernel;

/* A kernel's warps. The engine owns warp_state_bytes of storage per
 * resident warp and calls warp_begin once, warp_next until END. */
struct gpuvm_kernel_ops {
	size_t warp_state_bytes;
	void (*warp_begin)(struct gpuvm_kernel *k, void *state, uint32_t cta,
			   uint32_t warp_in_cta);
	/* Fills *item with the warp's next item. Must return END forever after
	 * the first END. May return -1 with err set (a bad trace line). */
	int (*warp_next)(struct gpuvm_kernel *k, void *state,
			 struct gpuvm_warp_item *item, struct gpuvm_error *err);
	/* Called when the warp ends (optional). */
	void (*warp_end)(struct gpuvm_kernel *k, void *state);
};

struct gpuvm_kernel {
	char name[96];
	uint32_t grid[3], block[3];
	const struct gpuvm_kernel_ops *ops;
	void *impl;  /* the source's own data */
	/* Optional: place every CTA of this kernel on logical SM pin_sm (the
	 * sim analogue of a CUDA block that checks %smid and exits elsewhere;
	 * the TLB probe's sharing benchmark uses it). */
	bool pin;
	uint32_t pin_sm;
	/* Set by the engine just before each warp_next call: the cycle at which
	 * the warp asks for its next item, i.e. when its previous load returned
	 * (the sim analogue of clock64(); the TLB probe times hops with it). */
	double clock_cycles;
	/* Optional kernel sampling (gpuvm_sim_options.kernel_sampling): a
	 * source sets sampleable only on launches that are statistically alike
	 * to the others of their class (same ops, grid, block and
	 * sample_class), so that timing measured on a few of them stands for
	 * the rest, which the engine then only drives functionally. Off by
	 * default: trace replays and SIMT kernels (bfs levels, iterative
	 * solvers) do different work per launch and must not be conflated.
	 * sample_class separates launches of one ops/grid that behave
	 * differently (hash-groupby's scoped passes: pass 0 writes the buffer
	 * later passes read). */
	bool sampleable;
	uint32_t sample_class;
	/* Set by the engine while it fast-forwards this kernel: it reads only
	 * an item's kind, compute_insts and active_mask, so a source may skip
	 * filling addr[] (the functional state must still advance). */
	bool functional;
};

static inline uint64_t gpuvm_kernel_ctas(const struct gpuvm_kernel *k)
{
	return (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
}
static inline uint32_t gpuvm_kernel_warps_per_cta(const struct gpuvm_kernel *k)
{
	uint64_t t = (uint64_t)k->block[0] * k->block[1] * k->block[2];
	return (uint32_t)((t + GPUVM_WARP_LANES - 1) / GPUVM_WARP_LANES);
}

enum gpuvm_run_op_kind {
	GPUVM_RUN_END = 0,
	GPUVM_RUN_ALLOC,      /* alloc */
	GPUVM_RUN_FREE,       /* alloc.base */
	GPUVM_RUN_COPY_H2D,   /* copy_dst, copy_bytes */
	GPUVM_RUN_COPY_D2H,
	GPUVM_RUN_KERNEL,     /* kernel: valid until the next next_op call */
};

struct gpuvm_run_op {
	enum gpuvm_run_op_kind kind;
	struct gpuvm_alloc alloc;
	uint64_t copy_addr, copy_bytes;
	struct gpuvm_kernel *kernel;
};

/* A workload or trace: yields run operations in program order. */
struct gpuvm_source {
	const struct gpuvm_source_ops *ops;
	void *impl;
};

struct gpuvm_source_ops {
	const char *kind; /* "workload", "accelsim", ... */
	int (*next_op)(struct gpuvm_source *s, struct gpuvm_run_op *op,
		       struct gpuvm_error *err);
	/* Writes a short functional result ("sum=...") for the report; may be NULL. */
	void (*result)(struct gpuvm_source *s, char *buf, size_t len);
	/* The workload's own unit of work done (sampled reads, grouped rows),
	 * for items_per_sim_second; may be NULL. */
	uint64_t (*work_items)(struct gpuvm_source *s);
	void (*destroy)(struct gpuvm_source *s);
};

#endif
