/* Internals shared by the SIMT executor (simt_exec.c: CTAs, lanes,
 * zipping) and the host-program source (simt_host.c). */
#ifndef GPUVM_SIMT_INTERNAL_H
#define GPUVM_SIMT_INTERNAL_H

#include <stdint.h>

#include "gpuvm/simt.h"
#include "simt/coro.h"
#include "workloads/workload_util.h"

/* A thread runs ahead of the engine by at most this many recorded
 * accesses before it is suspended (barrier-free kernels); 64 x 16 B per
 * lane keeps a resident warp's buffers at 32 KiB worst case, and a
 * coroutine switch per 64 accesses costs little. */
#define SIMT_RUNAHEAD 64
/* CUDA's static shared-memory limit per block. */
#define SIMT_SHARED_BYTES (48u << 10)
/* Per-thread stacks: kernel bodies are shallow; sanitizer builds need
 * more room for redzones. */
#if defined(__SANITIZE_ADDRESS__)
#define SIMT_STACK_BYTES (64u << 10)
#else
#define SIMT_STACK_BYTES (32u << 10)
#endif
#define SIMT_HOST_STACK_BYTES (8u << 20)
#define SIMT_MAX_ARGS_BYTES 512

struct simt_entry {
	uint64_t va;       /* shared accesses: the offset in the CTA's shared memory */
	uint32_t compute;  /* COMPUTE hints before this access */
	uint16_t site;     /* source line of the accessor */
	uint8_t op, bytes; /* op: enum simt_access_op, or SIMT_OP_BARRIER */
	uint8_t attr;      /* enum gpuvm_mem_space | enum gpuvm_cache_op << 4 */
	uint8_t chain_class;
	uint16_t chain;    /* of compute, a dependent chain (saturating) */
};

/* A barrier is an entry too, so the zipper emits it in program order. */
#define SIMT_OP_BARRIER 3

enum lane_state { LANE_IDLE, LANE_RUNNING, LANE_FULL, LANE_BARRIER, LANE_DONE, LANE_ABORTED };

struct simt_cta;

/* A warp's buffered accesses, lane-major (e[lane * cap + slot]): each
 * lane fills its own row from head to tail, so a lane's consecutive
 * accesses share cache lines whether or not the other lanes are running
 * (a warp left with one lane in a long loop touches one line per four
 * accesses, not one per access). head_key caches each non-empty lane's
 * next entry as (site << 16 | op << 8 | bytes), so choosing the next
 * instruction reads 128 bytes, not one entry per lane. */
struct simt_wbuf {
	uint32_t cap; /* slots per lane */
	/* lanes with buffered accesses (head != tail), and lanes whose thread
	 * has not finished: the zipper visits only these bits, so a warp
	 * left with one long-running lane (a hub vertex's edge loop) costs
	 * one lane per instruction, not 32 */
	uint32_t nonempty, live;
	uint32_t head[GPUVM_WARP_LANES], tail[GPUVM_WARP_LANES];
	uint32_t head_key[GPUVM_WARP_LANES];
	struct simt_entry *e;
};

static inline struct simt_entry *simt_wb_at(const struct simt_wbuf *wb, uint32_t lane,
					    uint32_t slot)
{
	return &wb->e[(size_t)lane * wb->cap + slot];
}

static inline uint32_t simt_entry_key(const struct simt_entry *e)
{
	return (uint32_t)e->site << 16 | (uint32_t)e->op << 8 | e->bytes;
}

struct simt_lane {
	struct simt_thread t; /* first: the accessors' handle */
	struct simt_cta *cta;
	struct simt_wbuf *wb;
	uint32_t lane;         /* column in wb */
	uint32_t tail_compute; /* COMPUTE hints after the last access */
	uint32_t tail_chain;
	uint8_t tail_class;
	enum lane_state state;
	struct coro *co;
};

struct simt_launch;

struct simt_cta {
	struct simt_launch *launch;
	uint32_t id, nthreads, warps_live;
	int eager; /* hit a barrier: run to completion, buffers unbounded */
	unsigned char *shared;
	struct simt_lane *lanes;
	struct simt_wbuf *wbufs; /* one per warp */
	struct simt_cta *prev, *next;
};

struct simt_buffer {
	unsigned char *host;
	uint64_t bytes, va;
	enum gpuvm_alloc_kind kind;
};

struct simt_program;

struct simt_launch {
	struct gpuvm_kernel k;
	struct simt_program *prog;
	simt_body_fn body;
	_Alignas(16) unsigned char args[SIMT_MAX_ARGS_BYTES];
	uint32_t threads_per_cta;
	uint32_t shared_bytes; /* SHARED arrays per CTA, as the launch declared */
	struct simt_cta *live, *last;
	int failed;
	char errmsg[256];
};

struct simt_program {
	char name[64];
	struct simt_buffer *bufs;
	size_t nbufs, bufs_cap, last_buf;
	struct va_layout va;

	struct coro host;
	simt_host_fn fn;
	void *user;
	void (*user_free)(void *);
	int host_rc, host_started, aborting, failed;
	struct gpuvm_run_op op;
	struct gpuvm_error err;

	struct simt_launch launch;
	struct coro **pool; /* idle thread stacks */
	struct coro_stack run_stack; /* the threads' shared stack (copying mode) */
	size_t pool_n, pool_cap;

	/* gpuvm_source.exec_threads: > 1 runs SIMT_ANY_ORDER kernels on that
	 * many workers (simt_par.c), started at the first such launch */
	uint32_t exec_threads;
	struct simt_par *par;

	char result[256];
	uint64_t work_items;
	double now_seconds; /* simulated time when the last operation ended */
};

extern const struct gpuvm_kernel_ops simt_kernel_ops;

/* Frees the launch's remaining CTAs (after the kernel or on teardown). */
void simt_launch_reset(struct simt_launch *l);
void simt_pool_free(struct simt_program *p);
/* The buffer holding [p, p + bytes), or NULL. */
const struct simt_buffer *simt_find_buffer(struct simt_program *prog, const void *p,
					   uint64_t bytes);

#endif
