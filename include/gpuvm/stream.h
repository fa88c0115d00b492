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

#include "gpuvm/error.h"

/* lanes of a warp (every GPU gpuvm models) */
#define GPUVM_WARP_LANES 32

enum gpuvm_alloc_kind {
	GPUVM_ALLOC_DEVICE = 0,   /* cudaMalloc: device memory */
	GPUVM_ALLOC_MANAGED,      /* cudaMallocManaged: unified memory */
	GPUVM_ALLOC_HOST_PINNED,  /* cudaHostAlloc: zero-copy over PCIe */
	/* malloc memory reached through the system page table over a
	 * coherent link (Grace Hopper, c2c.coherent = on): pages placed where
	 * they are first touched; the UVM driver keeps them (docs/systems.md
	 * "Grace Hopper memory") */
	GPUVM_ALLOC_SYSTEM,
	/* device memory of another GPU, mapped by peer access
	 * (cudaDeviceEnablePeerAccess): an entry of the accessing GPU's own
	 * table only, its owner in peer_device; each access crosses the
	 * NVLink / NVSwitch route between them (docs/systems.md "Peer
	 * access") */
	GPUVM_ALLOC_PEER,
};

struct gpuvm_alloc {
	char name[48];
	uint64_t base;   /* GPU virtual address */
	uint64_t bytes;
	enum gpuvm_alloc_kind kind;
	/* an address extent, not a cudaMalloc of the program: an allocation
	 * inferred from an Accel-Sim trace's accesses and copies (its span may
	 * overstate, and the trace ran on its own board), or probe's chase
	 * regions (which reach past the board to find the last TLB level, as
	 * hardware cannot: Karnagel et al. DaMoN'17 4.1). gpu.memory does not
	 * bound it. */
	bool extent_only;
	uint32_t peer_device; /* GPUVM_ALLOC_PEER: the GPU whose device memory it is */
};

enum gpuvm_mem_op { GPUVM_OP_LOAD = 0, GPUVM_OP_STORE, GPUVM_OP_ATOMIC };

enum gpuvm_item_kind {
	GPUVM_ITEM_END = 0,  /* the warp has exited */
	GPUVM_ITEM_COMPUTE,  /* non-memory instructions */
	GPUVM_ITEM_MEM,      /* one memory instruction (global, local or shared) */
	GPUVM_ITEM_BARRIER,  /* BAR.SYNC / __syncthreads: waits for the CTA's warps */
};

/* Memory spaces of a MEM item. Local addresses are per-thread offsets
 * (as LDL/STL carry them); the engine lays them out in device memory,
 * interleaved across lanes as the hardware does. Shared addresses are
 * byte offsets in the CTA's shared memory (only their banks matter). */
enum gpuvm_mem_space { GPUVM_SPACE_GLOBAL = 0, GPUVM_SPACE_LOCAL, GPUVM_SPACE_SHARED };

/* Cache operators of global loads (PTX ld.ca/.cg/.cs/.cv, SASS .CG/.CS/
 * .CV/.SYS qualifiers): where a line may be kept. */
enum gpuvm_cache_op {
	GPUVM_CACHE_DEFAULT = 0, /* the part's default (L1 where it caches globals) */
	GPUVM_CACHE_ALL,         /* .CA / read-only (LDG.CONSTANT, __ldg): L1 and L2 */
	GPUVM_CACHE_GLOBAL,      /* .CG: L2 only */
	GPUVM_CACHE_STREAMING,   /* .CS: allocate evict-first */
	GPUVM_CACHE_VOLATILE,    /* .CV / .SYS / .STRONG.GPU: bypass L1, fetch again */
};

/* Functional-unit classes of non-memory instructions: each has a
 * dependent-issue latency and an initiation interval per scheduler in the
 * preset ([core]). */
enum gpuvm_op_class {
	GPUVM_CLASS_ALU = 0, /* integer / logic / FP32 add-compare, moves */
	GPUVM_CLASS_FMA,     /* FP32 FFMA/FMUL/FADD */
	GPUVM_CLASS_IMAD,    /* 32-bit integer multiply(-add) */
	GPUVM_CLASS_SFU,     /* MUFU: rcp, rsqrt, sin, ex2, ... */
	GPUVM_CLASS_DP,      /* FP64 */
	GPUVM_CLASS_TENSOR,  /* HMMA/IMMA/... */
	GPUVM_CLASS_BRANCH,  /* BRA, EXIT, SYNC, BSSY, ... */
	GPUVM_CLASS_MEMISSUE, /* address/issue stage of memory instructions */
	GPUVM_OP_CLASSES
};

/* Register operands for the per-warp scoreboard: ids 0..255 general
 * registers (255 = RZ, never a dependency), 256.. predicates, uniform
 * registers; see gpuvm_reg_id(). */
#define GPUVM_REGS 352
#define GPUVM_REG_NONE 0xffff
#define GPUVM_ITEM_MAX_DST 4
#define GPUVM_ITEM_MAX_SRC 4

struct gpuvm_warp_item {
	enum gpuvm_item_kind kind;
	uint32_t compute_insts;     /* COMPUTE: warp instructions in the gap */
	/* COMPUTE: length of the longest dependent chain inside the gap (the
	 * gap takes at least chain_insts x the class latency); 0 means every
	 * instruction of the gap depends on the one before. */
	uint32_t chain_insts;
	uint8_t op_class;           /* COMPUTE: enum gpuvm_op_class */
	uint8_t space;              /* MEM: enum gpuvm_mem_space */
	uint8_t cache_op;           /* MEM: enum gpuvm_cache_op */
	/* MEM loads of an item without registers: 1 when it does not wait for
	 * the loads issued since the last other item (SIMT LD_INDEP: the
	 * compiled kernel issues them back to back); the next other item
	 * waits for them all */
	uint8_t load_indep;
	/* Register operands (traces): the item reads src[] before it issues
	 * and writes dst[] when it completes. With has_regs false the engine
	 * uses the implicit chain every generator assumes: a load's or an
	 * atomic's value is used by the warp's next item. */
	uint8_t has_regs, n_dst, n_src;
	/* MEM, optional: what the source knows of the active lanes' order
	 * (enum gpuvm_lanes_order), so the engine need not scan the lanes;
	 * 0 (unknown, the engine's reset) makes it scan them. */
	uint8_t lanes_order;
	uint16_t dst[GPUVM_ITEM_MAX_DST], src[GPUVM_ITEM_MAX_SRC];
	enum gpuvm_mem_op op;       /* MEM */
	uint32_t bytes_per_lane;    /* MEM: 1, 2, 4, 8 or 16 */
	uint32_t active_mask;       /* MEM: bit i = lane i takes part */
	uint64_t addr[GPUVM_WARP_LANES]; /* MEM: valid for active lanes */
};

/* An item's lanes_order: set only when it holds exactly (the engine's
 * results depend on it). */
enum gpuvm_lanes_order {
	GPUVM_LANES_UNKNOWN = 0,
	/* the active lanes' addresses never decrease from lane to lane
	 * (unsigned, no wrap) */
	GPUVM_LANES_ASCENDING,
	/* and, all 32 lanes active, each lane's address is where the one
	 * before it ends (lane l - 1's plus bytes_per_lane) */
	GPUVM_LANES_CONTIGUOUS,
};

/* Resets the fields a source that knows only kinds, gaps and addresses
 * never sets (the engine does this before each warp_next). */
static inline void gpuvm_item_reset_timing(struct gpuvm_warp_item *it)
{
	it->chain_insts = 0;
	it->op_class = GPUVM_CLASS_ALU;
	it->space = GPUVM_SPACE_GLOBAL;
	it->cache_op = GPUVM_CACHE_DEFAULT;
	it->load_indep = 0;
	it->has_regs = 0;
	it->lanes_order = GPUVM_LANES_UNKNOWN;
}

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
	/* Optional hint: the warp is the engine's next event, so warp_next
	 * may soon be called for it; start loading what that call reads
	 * (prefetches only: it must change nothing). The engine calls it
	 * one event ahead, after prefetching the state itself one further. */
	void (*warp_prefetch)(struct gpuvm_kernel *k, const void *state);
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
	/* Shared memory one CTA allocates (static + dynamic); with
	 * smem.size it limits the CTAs resident per SM. 0 = none. */
	uint32_t smem_bytes_per_cta;
	/* Optional (parts with a unified L1 / shared array): the program's
	 * preferred shared-memory carve-out in percent of the largest one
	 * (CUDA's cudaFuncAttributePreferredSharedMemoryCarveout). Unset, the
	 * driver picks the carve-out for occupancy (kernel_run.c). */
	bool smem_carveout_preferred;
	uint8_t smem_carveout_percent;
	/* Set by the engine just before each warp_next call: the cycle at which
	 * the warp asks for its next item, and no earlier than its previous
	 * load (on the implicit chain) returned: the sim analogue of a clock64()
	 * that follows the use of the loaded value (the TLB probe times hops
	 * with it). */
	double clock_cycles;
	/* Set by a source whose warp_next reads clock_cycles: with core.window
	 * the engine then asks for a warp's next item only once the loads its
	 * clock waits for are applied. */
	bool reads_clock;
	/* Set by a source whose warp_begin, warp_next and warp_end touch only
	 * the warp's own state, data nobody writes, and totals whose value does
	 * not depend on the order they are added in (atomics on integers):
	 * with core.window and --threads the warps of different SM partitions
	 * then run side by side on threads (src/system/partition.h). Unset,
	 * the partitions run one after another on the engine's thread, with
	 * the same results. */
	bool warps_independent;
	/* Set by a source whose items are made ahead on worker threads
	 * (--threads N: the SIMT executor's any-order kernels): those threads
	 * have the cores, so core.window = lagged serves its windows on the
	 * engine's thread (the same results). */
	bool items_ahead;
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
	GPUVM_RUN_DEVICE_SYNC, /* cudaDeviceSynchronize (uvm.device_sync) */
	/* cudaMemcpyAsync on the direction's copy stream, then
	 * cudaEventRecord(event) when event != 0: the copy runs beside the
	 * kernels, the host goes on at once (link/copy_stream.h) */
	GPUVM_RUN_COPY_H2D_ASYNC, /* copy_addr, copy_bytes, event */
	GPUVM_RUN_COPY_D2H_ASYNC,
	/* cudaMemcpyPeer(Async): copy_bytes from peer_addr on GPU peer_device
	 * to copy_addr on GPU device, both device allocations; the
	 * synchronous one returns to the host when the copy is done. A
	 * system of several GPUs only (src/system/multi_gpu.c). */
	GPUVM_RUN_COPY_PEER,      /* copy_addr, peer_addr, copy_bytes, device, peer_device */
	GPUVM_RUN_COPY_PEER_ASYNC,
	/* cudaMemPrefetchAsync of copy_bytes of managed memory at copy_addr
	 * to GPU device, or to the CPU when prefetch_to_cpu (then in GPU
	 * device's stream); the host goes on at once, the GPU's next work
	 * waits for it */
	GPUVM_RUN_PREFETCH,       /* copy_addr, copy_bytes, device, prefetch_to_cpu */
	/* cudaMemAdvise of copy_bytes of managed memory at copy_addr:
	 * advice, one of GPUVM_ADVISE_* */
	GPUVM_RUN_ADVISE,         /* copy_addr, copy_bytes, advice */
	/* a CPU phase reads (or, host_write, writes) copy_bytes of managed
	 * memory at copy_addr between kernels (simt_host_access): its pages
	 * resident on a GPU fault back to the CPU (src/uvm/uvm_host_access.c);
	 * the host waits. Device memory is refused. */
	GPUVM_RUN_HOST_ACCESS,    /* copy_addr, copy_bytes, host_write */
	/* cudaDeviceEnablePeerAccess(peer_device) on GPU device: its later
	 * kernels load and store peer_device's device allocations in place.
	 * A system of several GPUs only (src/system/peer_access.c). */
	GPUVM_RUN_PEER_ACCESS,    /* device, peer_device */
};

/* cudaMemAdvise's advice (GPUVM_RUN_ADVISE) */
#define GPUVM_ADVISE_READ_MOSTLY 1u /* cudaMemAdviseSetReadMostly: read duplication */
#define GPUVM_ADVISE_ACCESSED_BY 2u /* cudaMemAdviseSetAccessedBy(device): used in place */
/* cudaMemAdviseSetPreferredLocation(device, or the CPU when to_cpu):
 * where the pages live; other processors map them there */
#define GPUVM_ADVISE_PREFERRED_LOCATION 3u

/* GPUs of one run at most (cudaSetDevice's range; systems hold up to
 * GPUVM_SYS_MAX_GPUS, gpuvm/sysdesc.h) */
#define GPUVM_RUN_MAX_DEVICES 64

/* Events of asynchronous copies: ids 1 .. GPUVM_RUN_EVENTS - 1. */
#define GPUVM_RUN_EVENTS 16

struct gpuvm_run_op {
	enum gpuvm_run_op_kind kind;
	struct gpuvm_alloc alloc;
	uint64_t copy_addr, copy_bytes;
	struct gpuvm_kernel *kernel;
	/* asynchronous copies: the event the copy records (0 = none);
	 * kernels: the event it waits for before starting
	 * (cudaStreamWaitEvent; 0 = none) */
	uint32_t event, wait_event;
	/* the GPU the operation is for (cudaSetDevice; 0 on a system of one),
	 * and a peer copy's source GPU and address */
	uint32_t device, peer_device;
	uint64_t peer_addr;
	/* GPUVM_RUN_PREFETCH, GPUVM_RUN_ADVISE's preferred location: to the
	 * CPU (cudaCpuDeviceId) instead of GPU device */
	bool prefetch_to_cpu;
	uint32_t advice;      /* GPUVM_RUN_ADVISE: GPUVM_ADVISE_* */
	bool host_write;      /* GPUVM_RUN_HOST_ACCESS: the CPU writes (else reads) */
};

/* A workload or trace: yields run operations in program order. */
struct gpuvm_source {
	const struct gpuvm_source_ops *ops;
	void *impl;
	/* Set by the engine before each next_op call: the simulated time at
	 * which the previous operation ended (a host program's clock). */
	double now_seconds;
	/* Set by the caller before the first next_op (gpuvm sim --threads):
	 * threads the source may use to execute kernels ahead of the engine;
	 * 0 or 1 = the engine's thread alone. The items are the same. */
	uint32_t exec_threads;
	/* Set by the engine: when each event's last recorded copy ended, in
	 * simulated seconds, once known (after an operation waited for it);
	 * negative before. */
	double event_seconds[GPUVM_RUN_EVENTS];
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
