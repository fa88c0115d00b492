/* Internals shared by the SIMT executor (simt_exec.c: CTAs, lanes,
 * zipping) and the host-program source (simt_host.c). */
#ifndef GPUVM_SIMT_INTERNAL_H
#define GPUVM_SIMT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/simt.h"
#include "gpuvm/stats.h" /* GPUVM_RESULT_BYTES */
#include "simt/coro.h"
#include "simt/simt_red.h"
#include "simt/va_layout.h"

/* A thread runs ahead of the engine by at most this many recorded
 * accesses before it is suspended (between barriers too: only a CTA's
 * eager run, up to SIMT_EAGER_SLOTS, and a run to a barrier other
 * threads wait at, simt_cta_reach_barrier, go past it);
 * 64 x 16 B per lane keeps a resident warp's buffers at 32 KiB worst
 * case, and a coroutine switch per 64 accesses costs little. */
#define SIMT_RUNAHEAD 64
/* A CTA whose thread first reaches a barrier runs ahead at once, every
 * thread to each barrier in turn (simt_cta_run_eager: one coroutine
 * switch per thread and barrier, the CTA's threads back to back), while
 * each lane's column stays within this many slots: Rodinia's tiled
 * kernels end within it (their whole trace buffered, no thread left
 * suspended); a long phase (sl1's K-means loop over its points) stops at
 * it, 128 x 16 B = 2 KiB a lane, 64 KiB a warp (every resident warp
 * fills it at once: 256 slots took 0.6 GB more on a full h100-pcie),
 * and the CTA goes on lazily. */
#define SIMT_EAGER_SLOTS 128
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
/* operations a program may post ahead of the engine (simt_host.c) */
#define SIMT_HOST_QUEUE 8
/* launches a program may have in flight: the one the engine times and
 * two the workers ran meanwhile (pagerank's short second kernel would
 * hold the workers back from the next first kernel with one) */
#define SIMT_LAUNCH_SLOTS 3

/* One buffered access, 16 bytes (a warp holds 32 x SIMT_RUNAHEAD of
 * them, so their size is most of a resident thread's memory and of what
 * the zipper reads per instruction). */
struct simt_entry {
	uint64_t va;      /* shared accesses: the offset in the CTA's shared memory */
	uint32_t key;     /* site << 16 | (op | attr bits) << 8 | bytes: simt_entry_pack */
	uint32_t compute; /* COMPUTE hints before this access */
};

/* A barrier is an entry too, so the zipper emits it in program order. */
#define SIMT_OP_BARRIER 3

/* The op byte of an entry's key holds the op (2 bits), the memory space
 * (2 bits) and the cache operator (4 bits): attr is space | cache_op << 4
 * with space < 4 (enum gpuvm_mem_space). The zipper groups lanes by
 * site, op and bytes only (SIMT_KEY_GROUP), as it always has. */
#define SIMT_KEY_GROUP 0xffff03ffu
static inline uint32_t simt_entry_pack(uint32_t site, uint32_t op, uint32_t bytes, uint32_t attr)
{
	return (uint32_t)(uint16_t)site << 16 | (op | (attr & 3) << 2 | (attr & 0xf0)) << 8 |
	       (uint8_t)bytes;
}
static inline uint32_t simt_key_op(uint32_t key)
{
	return key >> 8 & 3;
}
static inline uint32_t simt_key_attr(uint32_t key)
{
	return (key >> 10 & 3) | (key >> 8 & 0xf0);
}
/* A COMPUTE_CHAIN's length (saturated to 16 bits) and class, 0 if none. */
static inline uint32_t simt_chain_pack(uint32_t chain, uint32_t cls)
{
	return chain ? (chain > 0xffff ? 0xffff : chain) | (cls & 0xff) << 16 : 0;
}

enum lane_state { LANE_IDLE, LANE_RUNNING, LANE_FULL, LANE_BARRIER, LANE_DONE, LANE_ABORTED };

struct simt_cta;

/* A lane's column of its warp's buffer: slots head..tail hold entries,
 * and the head entry (when head != tail) is kept decoded here, 32 bytes,
 * so a lane costs the zipper half a line plus its entry, and each entry
 * is read once, when its lane advances to it. */
struct simt_column {
	uint64_t va;
	uint32_t key; /* site << 16 | op << 8 | bytes: the grouping key */
	uint32_t gap; /* COMPUTE hints before it */
	uint32_t chain; /* simt_chain_pack */
	uint32_t head, tail;
	uint8_t attr;
};

/* One slot's row (slot-major layout): the lanes in match have at this
 * slot the entry key, compute, chain at base + lane * bytes (bytes: the
 * key's low byte), stored here once instead of in e[] (a coalesced access
 * of a converged warp: 32 B for the row against 512 B of entries, so the
 * zipper reads one line per instruction and a converged kernel allocates
 * no e[] at all); other lanes' entries are in e[]. A row is reset by the
 * first lane that writes it in a new generation (wbuf.gen: bumped when
 * the whole warp refills) or when no lane matches it. */
struct simt_row {
	uint64_t base;
	uint32_t key, compute, chain, match, gen;
};

/* A warp's buffered accesses: each lane fills its own column from head
 * to tail (laid out as simt_wb_slot says). */
struct simt_wbuf {
	_Alignas(64) uint32_t cap; /* slots per lane */
	int lane_major; /* the layout: simt_wb_slot */
	/* lanes with buffered accesses (head != tail), and lanes whose thread
	 * has not finished: the zipper visits only these bits, so a warp
	 * left with one long-running lane (a hub vertex's edge loop) costs
	 * one lane per instruction, not 32 */
	uint32_t nonempty, live;
	/* lockstep (slot-major only): every nonempty lane's next entry is at
	 * slot uhead, read straight from e[] for all of them at once; their
	 * columns hold only tails (heads 0, nothing decoded). Entered when the
	 * whole warp refills from empty, left (simt_wb_unlock) when its lanes
	 * reach different sites with entries left or a lane refills alone.
	 * utail: the smallest tail of the nonempty lanes (0: not yet known) */
	int lockstep;
	uint32_t uhead, utail;
	uint32_t gen;
	/* (the pointers on the header's line: a lockstep instruction then
	 * reads that line and its row, no column) */
	struct simt_row *row; /* cap rows (slot-major only) */
	struct simt_entry *e; /* allocated when first needed */
	/* COMPUTE_CHAIN per entry (simt_chain_pack), laid out as e; allocated
	 * when a lane of the warp first records one (few kernels do) */
	uint32_t *chain;
	struct simt_column col[GPUVM_WARP_LANES];
	/* over the warp's finished lanes: the most COMPUTE hints after a
	 * lane's last access, and the longest such chain (the lowest lane's
	 * of the longest: tail_lane) with its class; kept as lanes finish
	 * (simt_wb_lane_tail), so the warp's end reads no lane record (its
	 * scan of 32 records was 56 lines, missed: bfs's warps are short) */
	uint32_t tail_compute, tail_chain;
	uint8_t tail_class, tail_lane;
};

/* A lane finished with COMPUTE hints after its last access (compute, of
 * them a chain of class cls): the warp's final gap (struct simt_wbuf). */
static inline void simt_wb_lane_tail(struct simt_wbuf *wb, uint32_t lane, uint32_t compute,
				     uint32_t chain, uint8_t cls)
{
	if (compute > wb->tail_compute)
		wb->tail_compute = compute;
	if (chain > wb->tail_chain || (chain && chain == wb->tail_chain && lane < wb->tail_lane)) {
		wb->tail_chain = chain;
		wb->tail_class = cls;
		wb->tail_lane = (uint8_t)lane;
	}
}

/* Where lane's entry at slot lives. Slot-major (the 32 lanes' entries of
 * one slot side by side) while the warp's lanes run together: an
 * instruction of 32 lanes then reads 512 contiguous bytes, 8 lines of one
 * page, instead of a line on each of 8 pages (stream-triad-simt: 17 %
 * less CPU time), or only its row (struct simt_row) when coalesced, and
 * the warp can issue in lockstep. Lane-major while they run apart (graph kernels: 1-2
 * lanes per instruction): a lane's consecutive entries then share lines.
 * A warp chooses whenever its buffer is empty: under 8 lanes per
 * instruction since its last choice (for its first, the kernel body's
 * record, struct simt_zip_stats) means lane-major. */
static inline size_t simt_wb_slot(const struct simt_wbuf *wb, uint32_t lane, uint32_t slot)
{
	return wb->lane_major ? (size_t)lane * wb->cap + slot
			      : (size_t)slot * GPUVM_WARP_LANES + lane;
}

struct simt_lane {
	struct simt_thread t; /* first: the accessors' handle */
	struct simt_cta *cta;
	struct simt_wbuf *wb;
	uint32_t lane;         /* column in wb */
	enum lane_state state;
	/* barriers the thread has reached: it passes its n-th only once
	 * every live thread of the CTA reached its n-th (or ended) */
	uint32_t bars;
	struct coro *co;
};

struct simt_launch;

struct simt_cta {
	struct simt_launch *launch;
	uint32_t id, nthreads, warps_live;
	/* its threads are being run to a barrier (simt_cta_reach_barrier):
	 * a full column grows instead of waiting for the warp to drain it */
	int to_barrier;
	/* its threads run ahead at once (simt_cta_run_eager): a column grows
	 * up to SIMT_EAGER_SLOTS; tried once, at its first barrier */
	int eager, eager_tried;
	uint32_t reached; /* every live thread reached its reached-th barrier */
	unsigned char *shared;
	struct simt_lane *lanes;
	struct simt_wbuf *wbufs; /* one per warp */
	struct simt_red_log red; /* its threads' RED_ADDs / ST_ORDEREDs (simt_red.h) */
	struct simt_cta *prev, *next;
};

struct simt_buffer {
	unsigned char *host;
	uint64_t bytes, va;
	enum gpuvm_alloc_kind kind;
	uint32_t device; /* the GPU it was allocated on (simt_set_device) */
	char name[48];   /* the program's name for it (errors name it) */
};

/* The simulated address of host pointer p inside buffer b. */
static inline uint64_t simt_buffer_va(const struct simt_buffer *b, const void *p)
{
	return b->va + (uint64_t)((const unsigned char *)p - b->host);
}

struct simt_program;
#define SIMT_SITE_HINTS 64

/* Memory instructions the warps of a kernel body issued, over all its
 * launches, and their active lanes (counted when a warp's buffer empties
 * and when it ends): how a new warp lays out its buffer (simt_wb_slot). */
struct simt_zip_stats {
	simt_body_fn body;
	uint64_t insts, lanes;
};
#define SIMT_ZIP_BODIES 16

struct simt_launch {
	struct gpuvm_kernel k;
	struct simt_program *prog;
	uint32_t device; /* the GPU it runs on: its device memory only */
	uint64_t peers;  /* and bit g: GPU g's device memory (peer access, at the launch) */
	simt_body_fn body;
	bool no_yield; /* declared SIMT_NO_YIELD: threads run without a coroutine */
	_Alignas(16) unsigned char args[SIMT_MAX_ARGS_BYTES];
	uint32_t threads_per_cta;
	uint32_t shared_bytes; /* SHARED arrays per CTA, as the launch declared */
	struct simt_cta *live, *last;
	struct simt_zip_stats *zip; /* of this body: how CTAs lay out buffers */
	/* where its CTAs' RED_ADD / ST_ORDERED logs are applied in thread
	 * order (the program's; workers' copies of the launch share it) */
	struct simt_red_order *red;
	int failed;
	char errmsg[320];
};

struct simt_program {
	char name[64];
	struct simt_buffer *bufs;
	size_t nbufs, bufs_cap, last_buf;
	uint64_t host_bytes; /* all buffers asked for, against the host-memory bound */
	/* the buffer an access site last used (its index, checked before
	 * use): triad's three arrays alternate, which last_buf misses */
	uint32_t site_buf[SIMT_SITE_HINTS];
	struct va_layout va;
	/* [g] bit h: GPU g's kernels may access GPU h's device memory
	 * (simt_enable_peer_access) */
	uint64_t peer_on[GPUVM_RUN_MAX_DEVICES];

	struct coro host;
	simt_host_fn fn;
	void *user;
	void (*user_free)(void *);
	int host_rc, host_started, aborting, failed;
	/* simt_prefer_carveout's percent for the next launch, -1 none */
	int next_carveout_percent;
	struct gpuvm_error err;

	/* Operations posted and not yet handed to the engine, oldest first,
	 * with the launch slot of each kernel (-1 for other operations). With
	 * worker threads the program goes on past operations whose end it
	 * does not look at, and past a launch once the workers have run it
	 * (simt_host.c); alone it waits for the engine at each one. */
	struct gpuvm_run_op queue[SIMT_HOST_QUEUE];
	int queue_slot[SIMT_HOST_QUEUE];
	uint32_t queue_head, queue_n;
	int waits;       /* enum simt_host_wait: what the program waits for */
	int clock_fresh; /* now_seconds and event_seconds are after every op posted */
	/* Launches in flight: a slot is busy from the launch's post until
	 * the engine asks for the operation after it. */
	struct simt_launch launches[SIMT_LAUNCH_SLOTS];
	int slot_busy[SIMT_LAUNCH_SLOTS];
	uint32_t slot_next;
	int engine_slot; /* the slot of the operation the engine has, -1 none */
	int mid_kernel;  /* resumed by the engine mid-kernel (simt_host_run_ahead) */
	uint64_t launches_ahead; /* launches posted while the engine timed another */
	struct simt_red_order red;
	struct simt_zip_stats zip[SIMT_ZIP_BODIES];
	uint32_t zip_n;
	struct coro **pool; /* idle thread stacks */
	/* an ended CTA's RED_ADD / ST_ORDERED log, its blocks empty, for the
	 * next CTA that logs (simt_red.h) */
	struct simt_red_log red_spare;
	struct coro_stack run_stack; /* the threads' shared stack (copying mode) */
	size_t pool_n, pool_cap;

	/* gpuvm_source.exec_threads: > 1 runs SIMT_ANY_ORDER kernels on that
	 * many workers (simt_par.c), started at the first such launch */
	uint32_t exec_threads;
	struct simt_par *par;

	char result[GPUVM_RESULT_BYTES];
	uint64_t work_items;
	double now_seconds; /* simulated time when the last operation ended */
	double event_seconds[GPUVM_RUN_EVENTS]; /* gpuvm_source.event_seconds */
	uint32_t wait_event; /* the next launch waits for it (simt_wait_event) */
	uint32_t device;     /* the current GPU (simt_set_device) */
};

extern const struct gpuvm_kernel_ops simt_kernel_ops;

/* Frees the launch's remaining CTAs (after the kernel or on teardown). */
void simt_launch_reset(struct simt_launch *l);
/* The engine's thread, mid-kernel, when the workers have run the newest
 * launch: a program waiting for that (or for a launch slot) goes on to
 * its next operation now (simt_host.c). */
void simt_host_run_ahead(struct simt_program *p);
/* CTAs (simt_cta.c): a new CTA with its lanes and warp buffers, in the
 * launch's live list (NULL on out of memory); freed; every live thread
 * run up to its n-th barrier (or its end), for a thread at its n-th to
 * pass it: threads already there do not run, the others' buffers grow
 * by what they record on the way (the work of one barrier phase; none
 * when the engine held the warp at the barrier until every warp came,
 * as the timing model does); and its end once every warp has ended: its
 * logged RED_ADDs / ST_ORDEREDs go to the thread-order commit, then it is
 * freed (-1, the launch failed, on out of memory). */
struct simt_cta *simt_cta_new(struct simt_launch *l, uint32_t id);
void simt_cta_free(struct simt_cta *c);
void simt_cta_reach_barrier(struct simt_cta *c, uint32_t n);
/* A thread of the CTA reached its first barrier: every thread runs to
 * each barrier in turn, released as they all arrive, until they end or a
 * thread's column holds SIMT_EAGER_SLOTS (it waits there, FULL, for its
 * warp, and the CTA goes on lazily, barrier by barrier). */
void simt_cta_run_eager(struct simt_cta *c);
/* Whether a thread whose column is full grows it instead of waiting for
 * its warp to drain it: run to a barrier, or eagerly within the cap. */
static inline int simt_lane_grows(const struct simt_cta *c, const struct simt_wbuf *wb)
{
	return c->to_barrier || (c->eager && wb->cap < SIMT_EAGER_SLOTS);
}
int simt_cta_end(struct simt_cta *c);
/* The most slots per lane any warp buffer of the process reached since
 * the last call (simt_cta.c; noted as buffers grow, from any thread:
 * simt_note_peak_slots), then reset: SIMT_RUNAHEAD unless a thread ran
 * to a barrier, when it is what one phase recorded. Tests read it
 * (test_simt: a barrier then a long loop). */
uint32_t simt_buffer_peak_slots_take(void);
void simt_note_peak_slots(uint32_t cap);
/* A drained warp's buffers, grown past SIMT_RUNAHEAD while its lanes ran
 * to a barrier, freed (simt_cta.c): they grow again from nothing, so a
 * warp holds one phase's run while it lasts, not for the CTA's life. */
void simt_wbuf_shrink(struct simt_wbuf *wb);
/* Leaves a warp buffer's lockstep mode (simt_exec.c). */
void simt_wbuf_unlock(struct simt_wbuf *wb);
/* Frees the idle thread stacks and the spare log's blocks. */
void simt_pool_free(struct simt_program *p);
/* Runs a thread until it fills its buffer, reaches a barrier or ends
 * (simt_lane.c: takes a coroutine from the program's pool on the first
 * resume and returns it when the thread ends). */
void simt_lane_resume(struct simt_lane *ln);
/* The buffer holding [p, p + bytes), or NULL. */
const struct simt_buffer *simt_find_buffer(struct simt_program *prog, const void *p,
					   uint64_t bytes);

/* The warp's next issue when its earliest entry (lane `lane`, key
 * `barrier`) is a barrier: a barrier issues once per warp, when every lane
 * with entries is at it (the engine counts a warp's arrival once, as the
 * hardware counts a warp at a barrier once all its threads are there), so
 * while some lane is still before it, that lane's earliest entry issues
 * first, however late its source line. Returns the lane to lead: `lane`
 * when all are at the barrier. Without this, lanes that loop round to a
 * barrier (an earlier line) while one lane finishes the iteration's tail
 * (scalarProd: thread 0 stores the result after a pass's last barrier)
 * issued it as a group of their own, and lanes idle in a reduction's last
 * levels, holding several barrier entries, issued it again: warp 0 arrived
 * twice and the CTA's later barriers released out of step
 * (docs/validation.md, scalarProd). */
uint32_t simt_wbuf_before_barrier(const struct simt_wbuf *wb, uint32_t barrier, uint32_t lane);

#endif
