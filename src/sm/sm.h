/* The SM layer: the streaming multiprocessors of the GPU, each with its
 * warp slots and CTA slots, warp schedulers and their functional units,
 * the per-warp scoreboard, barriers, shared memory (banks), local memory,
 * its L1 data cache and the coalescer that turns a warp's lanes into
 * translation units, sectors and lines.
 *
 * Contract:
 *  - Owns: every SM's slots, schedulers, scoreboard, L1 (src/mem/l1_cache.h),
 *    shared-memory and L1 pipeline stages, the warp records and the
 *    coalescer. An SM's state is indexed by its SM id and touched only on
 *    behalf of a warp of that SM (sm_step_item) or by CTA placement
 *    (sm_place_cta, sm_warp_finished, cta_place.h).
 *  - May call (struct sm_ports, wired by the system builder): the
 *    translation layer (xlat_translate_req: SM-side TLB levels and
 *    everything behind them, a request with a start time and the
 *    address's allocation kind, answered by a ready time; a managed
 *    sector served next is named in it, and a walk's driver may serve
 *    it, answering in the SM layer's booked slot),
 *    the memory partitions (memsys.h: memsys_access*, a sector request
 *    with a time answered by a completion time), the host link (link.h:
 *    link_zero_copy*), the UVM driver for a managed sector
 *    (uvm_access_sector, uvm_access_counted_sector: one request a sector
 *    not served with its walk
 *    with a time, answered by struct uvm_sector_rsp: when the page is
 *    there, whether it was read remotely, its stale L2 stamps), a peer
 *    GPU's device memory after peer access (link/peer_port.h: a sector
 *    request with a time, answered by a time) and the allocation table
 *    (mem/alloc_table.h, read only).
 *    Its own parts come from src/mem (mem/l1_cache.h, mem/server_pool.h,
 *    mem/smem_banks.h), sm/coalescer.h and event/event_queue.h; with
 *    core.window and --threads, the helper threads and the window of
 *    src/par (par/fork_join.h, par/window.h). Each call into the four
 *    components above is a request that names a time and gets a time
 *    back, the seam a parallel engine turns into a message; a held store
 *    (sm_sector.h: access_sector, memsys_store_held) gets what held it in
 *    its answer (struct memsys_store_rsp). Known exception: the split
 *    barrier reads the partitions' n_parts and routing (memsys_route).
 *  - The run loop drives it: sm_step_item issues one item of a warp whose
 *    operands are ready and says when the warp may issue again; the SM
 *    pushes its warps' next events into its queue (sm_state.events: the
 *    system's, or with core.window its partition's). With
 *    core.window the global and local memory instructions are recorded
 *    at issue and applied by sm_window_apply at the window's barrier, in
 *    (issue cycle, SM, sequence) order, through the same code; until
 *    then what they write reads as pending (docs/parallel.md). With
 *    core.window = lagged a window's barrier is served while the next
 *    window runs (sm_window_take, _serve_begin, _serve_end).
 *  - Guarantees: a warp issues in order, on its scheduler, at most one
 *    warp instruction per scheduler interval (core.dispatch_units of a
 *    warp's independent ones) and per unit's initiation interval; its
 *    result is ready after its class's latency or when its last sector is
 *    back (an atomic: plus the L2 atomic unit's cycles, and its turn
 *    behind the atomics to its address, memsys_atomic_address); stores
 *    retire at issue. */
#ifndef GPUVM_SM_SM_H
#define GPUVM_SM_SM_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm/coalescer.h"
#include "event/event_queue.h"
#include "gpuvm/config.h"
#include "gpuvm/stats.h"
#include "gpuvm/stream.h"
#include "link/peer_port.h"
#include "mem/l1_cache.h"
#include "uvm/uvm.h"
#include "mem/server_pool.h"

struct alloc_table;
struct host_link;
struct memsys;
struct sm_req_key;
struct uvm;
struct warp_sched_ops;
struct xlat;

/* One warp scheduler's issue slot and units: what an issuing warp reads
 * and writes, in one place (a warp points at its scheduler's). */
struct sched_state {
	double free;                          /* next cycle it can issue */
	double unit_free[GPUVM_OP_CLASSES];   /* next cycle each unit takes one */
	/* core.warp_scheduler's words (src/sm/warp_sched.h): only the
	 * policy writes them; sm_launch_begin clears them */
	uint32_t last;      /* the warp slot it issued last (UINT32_MAX: none) */
	uint32_t n_wait;    /* warps in wait[] */
	double last_at;     /* when the last-issued warp's next event is queued
			     * (INFINITY: it is not queued) */
	uint32_t *wait;     /* [max_warps_per_sm]: warps ready to issue, queued
			     * to compete for its next slot (NULL: no policy needs it) */
};

struct sm_state {
	struct sched_state *sched; /* [schedulers] */
	/* the queue its warps' events go to: the system's, or with
	 * core.window its partition's (src/system/partition.h) */
	struct event_queue *events;
	double l1_free;           /* the L1's tag/data stage */
	/* l2.sm_port_bytes_per_cycle: the SM's port to the L2, one server
	 * passing a read sector per sm_layer.l2_port_cycles (unused at 0) */
	struct server_pool l2_port;
	/* l2.sm_port_write_bytes_per_cycle: the port's store direction, one
	 * server passing a store sector per sm_layer.l2_store_port_cycles */
	struct server_pool l2_store_port;
	double smem_free;         /* shared-memory banks */
	uint64_t smem_used;       /* shared memory of resident CTAs */
	uint32_t warps_used, ctas_used;
	uint32_t *free_warp_slots, n_free_warp_slots;
	uint32_t *free_cta_slots, n_free_cta_slots;
};

struct warp_rt {
	uint32_t sm, cta_slot;
	struct sched_state *sched; /* its SM's scheduler that issues it */
	unsigned char *state;
	/* the implicit chain (items without registers): when the last
	 * load's or atomic's value is there */
	double implicit_ready;
	double drain;             /* latest result of any of its instructions */
	/* the latest result of the LD_INDEP loads since the last other item
	 * (0: none): the next other item waits for it too */
	double implicit_loads;
	double barrier_at;        /* when it arrived at the barrier it waits at */
	bool holding;             /* held[slot] is its next item */
	bool implicit_mem, regs_used;
	/* core.window: its memory instructions not applied yet (a register or
	 * the implicit chain they write reads as pending: negative, minus the
	 * request's sequence number), its LD_INDEP loads among them, and why
	 * and since when it waits for the window's barrier */
	uint32_t pending, loads_pending;
	uint8_t park;             /* enum sm_park */
	double park_at;
	/* its age on the SM: placements so far when it was placed (GPGPU-Sim's
	 * dynamic warp id, shader.cc shader_core_ctx::init_warps; the
	 * greedy-then-oldest scheduler's "oldest", src/sm/warp_sched_gto.c) */
	uint64_t age;
	bool sched_waiting;       /* in its scheduler's wait[] (the policy's) */
	double sched_at;          /* ... since when it is ready there (the policy's) */
};

/* core.window: why a warp waits for the window's barrier. */
enum sm_park {
	SM_PARK_NONE = 0,
	SM_PARK_OPERANDS, /* its held item reads a pending result */
	SM_PARK_END,      /* it ended with results pending (its end is their latest) */
	SM_PARK_NEXT,     /* its kernel reads the clock, which needs the pending loads */
};

/* core.window: a global or local memory instruction issued in the window,
 * applied at its barrier. */
struct sm_request {
	double start;     /* when it issued (sm_step_item's start) */
	uint64_t seq;     /* issue order (its pending mark) */
	uint32_t sm, wslot;
	/* core.window = lagged: what serving it gave (sm_serve_memory's
	 * result and the store ack), kept until the engine delivers it */
	double result, ack;
	struct gpuvm_warp_item item;
};

/* The key the barrier applies a window's instructions in (sm_window.c):
 * no thread count, host order or warp slot in it. */
struct sm_req_key {
	double start;
	uint64_t seq;
	uint32_t sm;
	struct sm_request *r;
};

/* core.window with --threads: the barrier in two stages on two threads
 * (sm_window.c). The first coalesces and translates each instruction, in
 * key order, and hands its sectors over as a plan; the second serves them,
 * in the same order, through the L1, the L2 port, the memory partitions
 * and the host link. A translated sector: */
struct sm_plan_sector {
	uint64_t addr;
	double tx; /* when its translation is ready */
};
/* One memory instruction's sectors (a local instruction: one part per
 * 4-byte word of its lanes). */
struct sm_plan_part {
	double start;  /* its issue, after the L1 stage's wait */
	double stage;  /* cycles it held the L1's tag and data stages */
	uint64_t instr; /* mem_instr_seq: names it on the host link */
	uint32_t first, n; /* its sectors in sm_plan.sec */
	uint8_t l1mode;
	bool runs;     /* a load's L2 misses gathered into DRAM runs */
};
struct sm_plan {
	struct sm_plan_sector *sec;
	size_t n_sec, cap_sec;
	struct sm_plan_part *part;
	size_t n_part, cap_part;
	/* the first stage's counts (sectors, lines, translation units), added
	 * to the run's at the barrier's end: its thread never writes the
	 * counters the second stage's does */
	struct gpuvm_stats *counts;
};
struct sm_pipe;
struct sm_split;

struct cta_rt {
	uint32_t warps_left;
	uint32_t arrived;         /* warps waiting at the barrier */
	uint32_t *parked;         /* [max_warps_per_sm] their slots */
	double arrive_last;
};

/* The components an SM sends requests to (wired by the system builder;
 * uvm is NULL until managed memory exists). */
struct sm_ports {
	struct xlat *xlat;
	struct memsys *mem;
	struct host_link *link;
	struct uvm *uvm;
	struct alloc_table *allocs;
	struct event_queue *events;
	/* a peer's device memory (GPUVM_ALLOC_PEER sectors); NULL until peer
	 * access is enabled on a system of several GPUs */
	struct peer_port *peer;
};

/* One kernel launch as the SMs see it. */
struct sm_launch {
	struct gpuvm_kernel *k;
	uint64_t ctas, next_cta;
	uint32_t warps_per_cta;
	uint32_t ctas_per_sm; /* occupancy limit for this kernel */
	uint64_t smem_cap;    /* shared memory an SM offers this kernel */
	double end;
	uint64_t ctas_done;
};

struct gpuvm_counter_section;

struct sm_layer {
	const struct gpuvm_config *cfg;
	struct gpuvm_stats *stats;
	/* the rows of *stats (the run's counter tree, which the system
	 * builder hands in): the windowed engine's threads count into copies
	 * of struct gpuvm_stats and merge them by these rows */
	const struct gpuvm_counter_section *stats_rows;
	struct sm_ports port;
	bool uvm_blocking;  /* uvm.fault_model = blocking */
	bool uvm_counts;    /* access counters, thrashing detection or hints */
	/* a managed sector's access the driver served with its page's walk
	 * (sm_issue.c translate_kind names it in the translation's request;
	 * sm_sector.h access_managed_sector takes it): the reply slot of the
	 * one instruction served at a time (the driver is on: no two SMs'
	 * instructions are served at once, sm_barrier_stages_apart) */
	struct uvm_sector_slot booked;

	struct coalescer co;
	/* a count of memory instructions: names the instruction a zero-copy
	 * sector belongs to (link_req.instr; serve_instr below) */
	uint64_t mem_instr_seq;
	bool l1_on, l1_global;
	bool l1_fill_line; /* l1.fill = line: a load miss fetches the whole line */
	double l1_hit, l1_cycles_per_line;
	/* l1.tags_per_cycle (0: off): cycles per distinct line in the tag
	 * stage and per sector in the data stage */
	double l1_cycles_per_tag, l1_cycles_per_sector;
	double smem_latency;
	uint32_t smem_banks;
	double smem_wavefront_cycles; /* smem.wavefront_cycles, 0 read as 1 */
	double crossbar_cycles; /* SM to the memory side (load_base / 2) */
	/* cycles a read sector holds its SM's L2 port (0: no port limit) */
	double l2_port_cycles;
	/* cycles a store sector holds its SM's port (0: no limit) */
	double l2_store_port_cycles;
	/* l2.writeback_stall: when the stores of the instruction being
	 * served have left the SM (their sectors' write-back waits in the
	 * memory partitions, memsys_store_rsp.held, past their leaving) */
	bool store_held;
	/* gpu.warp_exit_waits_stores: a warp's end waits for the L2's ack of
	 * its stores (store_ack below) */
	bool exit_waits_stores;
	/* the memory partitions bank their DRAM (memsys.dram_banked, read
	 * here so the barrier's first stage reads nothing of the second's) */
	bool dram_banked;
	/* core.busy_unit = yield: a warp whose unit is busy waits for it in
	 * the event queue, leaving its scheduler to other warps (the run
	 * loop, src/system/kernel_run.c; sm_unit_wait) */
	bool busy_unit_yield;
	/* core.warp_scheduler: the policy's hooks (src/sm/warp_sched.h), NULL
	 * for first-ready, which needs none (the run loop's event order is
	 * that policy) */
	const struct warp_sched_ops *wsched;
	uint64_t warp_seq;        /* warps placed so far (warp_rt.age) */
	uint32_t sector_bytes;

	/* SM core: schedulers, unit classes, the scoreboard */
	uint32_t schedulers;
	double sched_interval;     /* cycles between one scheduler's issues */
	double cls_latency[GPUVM_OP_CLASSES], cls_step[GPUVM_OP_CLASSES];
	double cls_interval[GPUVM_OP_CLASSES];
	/* core.dispatch_units: instructions a scheduler issues together from
	 * one warp when they are independent (1: single issue) */
	uint32_t dispatch_units;
	/* l2.atomic_latency_cycles: the L2 atomic unit's read-modify-write */
	double l2_atomic_cycles;
	/* l2.atomic_address_cycles: an atomic's turn at its address in the
	 * atomic unit, where atomics to one address queue (0: none) */
	double atomic_address_cycles;

	/* core.window = on: the window's length (sm_window_cycles), the
	 * memory instructions issued in it and the warps waiting for its
	 * barrier (in the order they parked): a partition's copy of the layer
	 * holds its own lists (src/system/partition.h), the system's layer
	 * the barrier's sort keys */
	bool windowed;
	double window_cycles;
	struct sm_request *req;     /* a partition's (src/system/partition.h) */
	size_t n_req, cap_req;
	/* core.window = lagged: the previous window's requests, served while
	 * this one runs (a partition's: sm_window_take swaps them with req),
	 * and on the system's layer how many of its keys are outstanding */
	bool window_lag;
	struct sm_request *req_out;
	size_t n_req_out, cap_req_out;
	size_t n_out;
	bool out_on_thread;         /* being served by the pipe's thread */
	uint64_t out_units0;        /* xlat_units when they were handed over */
	uint64_t lag_rounds;        /* windows asked about (the sampling's count;
				     * GPUVM_WINDOW_THREADS=all: which way) */
	/* where lagged windows are served (sm_window.c lag_on_thread): host
	 * ns a request took served on this thread (a running mean) */
	double lag_ns_per_request;
	uint32_t lag_here_run;      /* windows served here in a row */
	bool items_ahead;           /* the launch's gpuvm_kernel.items_ahead */
	struct sm_req_key *req_key; /* the barrier's sort keys, on the system's layer */
	size_t cap_key;
	uint64_t req_seq;
	uint32_t *parked_warps;
	uint32_t n_parked;
	bool window_oom; /* a request found no memory (the run fails) */
	/* --threads N > 1: the barrier's two stages on two threads when
	 * nothing couples them (no paging, page-table reads in the walk
	 * latency: sm_window.c); pipe made at the first such barrier */
	uint32_t threads;
	struct sm_pipe *pipe;
	double window_units_per_request; /* the last barrier's translations */
	/* GPUVM_WINDOW_THREADS=all: every window that may goes to two
	 * threads, whatever its translations (tests: every path of the
	 * second stage on the thread; the results are the same) */
	bool pipe_every_window;
	/* --threads N > 1 with memory partitions: the barrier's memory side
	 * served a partition per task, the SMs' data side a group of SMs per
	 * task (sm_split.c), made at its first use */
	struct sm_split *split;
	/* GPUVM_WINDOW_SPLIT: 1 every window that may, 0 never (not even
	 * when profiled), else -1 (sm_window.c split_now; the results are
	 * the same either way) */
	int split_mode;
	uint64_t split_rounds; /* GPUVM_WINDOW_THREADS=all: which way */

	/* the GPU's block scheduler (gpu.cta_dispatch_cycles): the next cycle
	 * it can dispatch a CTA, whichever SM takes it */
	double cta_dispatch_free;

	struct sm_state *sm;        /* [sms] */
	struct warp_rt *warp;       /* [sms * max_warps_per_sm] */
	struct cta_rt *cta;         /* [sms * max_ctas_per_sm] */
	unsigned char *warp_state;  /* backing store for warp states */
	size_t warp_state_cap;      /* bytes per slot currently allocated */
	double *reg_ready;          /* [warp slots x GPUVM_REGS], made at the first use */
	uint8_t *reg_mem;           /* the value comes from memory */
	uint32_t *parked_store;     /* backing of cta_rt.parked */
	/* per warp slot: the item fetched but not yet issued (its operands
	 * were not ready; the warp waits in the queue, so the SM's schedulers
	 * are claimed in time order) */
	struct gpuvm_warp_item *held;

	/* What serving a memory instruction writes, the SMs' L1 and the
	 * fields below, starts on a cache line of its own: with --threads the
	 * barrier's second stage writes them while the first writes the
	 * fields above (sm_window.c). */
	_Alignas(64) struct l1_cache l1;
	/* the instruction being served (mem_instr_seq at its issue, or the
	 * plan's): names its zero-copy sectors on the link */
	uint64_t serve_instr;
	/* l2.writeback_stall: when the stores of the instruction being
	 * served have left the SM (their sectors' write-back waits in the
	 * memory partitions, memsys_store_rsp.held, past their leaving) */
	double store_left;
	/* the store direction's rates (l2.sm_port_write_bytes_per_cycle,
	 * l2.slice_write_bytes_per_cycle): when the item being issued had
	 * its last store sector past its SM's port and taken by its slice;
	 * its warp issues on no earlier (0: none held). With core.window the
	 * stores are served at the barrier, after their warps issued on, and
	 * the hold reaches the warp's end only (docs/timing.md) */
	double store_issue_hold;
	/* gpu.warp_exit_waits_stores: the latest ack of the item being
	 * issued (its device and managed store sectors; 0: none) */
	double store_ack;
	/* core.window: results that came back before their window's end:
	 * none when the window is no longer than sm_window_cycles (tests
	 * check it) */
	uint64_t window_early;
};

int sm_layer_init(struct sm_layer *s, const struct gpuvm_config *cfg, struct gpuvm_stats *stats,
		  const struct sm_ports *ports);
void sm_layer_free(struct sm_layer *s);
/* Room for warp states of `bytes` each (a kernel's warp_state_bytes). */
int sm_ensure_warp_state(struct sm_layer *s, size_t bytes);
/* The scoreboard's registers, made at the first item that names them. */
int sm_ensure_regs(struct sm_layer *s);

/* A launch's first CTA dispatch at t (after the kernel's front-end,
 * gpu.kernel_frontend_cycles, which the kernel runner charges):
 * schedulers, stages and the block scheduler free, the L1 sized for the
 * launch's shared-memory carve-out (or emptied). */
void sm_launch_begin(struct sm_layer *s, const struct sm_launch *l, double t);
/* Whether SM smi has room for one more CTA of the launch. */
bool sm_can_take(const struct sm_layer *s, const struct sm_launch *l, uint32_t smi);
/* Places the launch's next CTA on SM smi at t: its slot is taken at t,
 * its warps' first events pushed when the block scheduler dispatches it
 * (one CTA per gpu.cta_dispatch_cycles, in the order of the calls) plus
 * gpu.cta_launch_cycles. Both 0: at t. */
void sm_place_cta(struct sm_layer *s, struct sm_launch *l, uint32_t smi, double t);
/* Warp wslot has ended at t; returns its SM when that freed a CTA slot
 * (the placement policy may give it the next CTA, gpu.cta_retire_cycles
 * plus gpu.cta_release_cycles_per_warp per warp after t), else
 * UINT32_MAX. A CTA's retire cost counts in l->end, its release not. */
uint32_t sm_warp_finished(struct sm_layer *s, struct sm_launch *l, uint32_t wslot, double t);
/* Warp wslot arrives at its CTA's barrier at now (parked until the last
 * live warp of the CTA arrives). */
void sm_barrier_arrive(struct sm_layer *s, uint32_t wslot, double now);

/* core.window: the shortest time from a global or local memory
 * instruction's issue to any result it gives its warp (a load's or
 * atomic's value): the L1's hit latency when the SMs have an L1, else the
 * L2 round trip (crossbar out and back, load_base, plus the L2 hit);
 * every other path is longer (TLB misses, DRAM, the host link). At least
 * one cycle. */
double sm_window_cycles(const struct gpuvm_config *cfg);
/* core.window: applies the window's memory instructions (the window ends
 * at window_end), recorded in the layers from[0 .. n_from) (the
 * partitions' copies of s), in the order of (issue cycle, SM, sequence),
 * each as sm_step_item would have at its issue, and writes their results
 * where their pending marks are; the lists are then empty. The parked
 * warps are the run loop's (it wakes them). Out of memory for the keys:
 * s->window_oom, nothing applied. */
void sm_window_apply(struct sm_layer *s, double window_end, struct sm_layer *const *from,
		     uint32_t n_from);
/* core.window = lagged: a window's barrier is served while the next
 * window runs (docs/parallel.md, "Lagged barriers"). sm_window_take moves
 * the requests recorded in from[0 .. n_from) out of the partitions' lists
 * (which take the next window's), sorts them in key order and returns
 * how many there are (s->n_out), the earliest issue among them in
 * *first_start; sm_window_serve_begin hands them to the pipe's thread
 * when nothing the window's run reads is written by serving them (no
 * paging, no page-table reads through the L2, --threads N > 1, no SIMT
 * workers making the items) and serving them is measured to take long
 * enough, else they wait for sm_window_serve_end, which serves them here if they were
 * not, then writes every result where its pending mark is (key order)
 * and counts those due before last_end (the end of the last window that
 * ran without them) as early. Out of memory: s->window_oom. */
size_t sm_window_take(struct sm_layer *s, struct sm_layer *const *from, uint32_t n_from,
		      double *first_start);
void sm_window_serve_begin(struct sm_layer *s);
void sm_window_serve_end(struct sm_layer *s, struct sm_layer *const *from, uint32_t n_from,
			 double last_end);
/* core.window: records warp w's global or local memory instruction,
 * issued at start, for the barrier, and marks what it writes pending
 * (minus its sequence number: sm_operands_ready reads a negative time as
 * not there yet). 0, or -1 when out of memory (window_oom set: nothing
 * recorded, and the barrier fails the run). sm_window.c */
int sm_defer_instruction(struct sm_layer *s, struct warp_rt *w, uint32_t wslot,
			 const struct gpuvm_warp_item *it, double start);
/* Serves a global or local memory instruction of warp w issued at start
 * (sm_issue.c; what sm_step_item does at issue without the window):
 * returns when its last sector is back (stores: when they have left). */
double sm_serve_memory(struct sm_layer *s, struct warp_rt *w, uint32_t wslot,
		       const struct gpuvm_warp_item *it, double start);
/* core.window on threads, the barrier's first stage (sm_issue.c): plans
 * the memory instruction sm_serve_memory would serve, appending its parts
 * and sectors to plan, which must have room for them
 * (sm_plan_sectors_max: the most sectors, *parts the most parts). */
size_t sm_plan_sectors_max(const struct sm_layer *s, const struct gpuvm_warp_item *it,
			  size_t *parts);
/* sm_plan_sectors_max summed over the barrier's first n keys
 * (s->req_key): the most sectors, *parts the most parts. */
size_t sm_plan_room(const struct sm_layer *s, size_t n, size_t *parts);
/* Room in plan for secs sectors and parts parts; 0, or -1 when out of
 * memory (the plan unchanged but for its capacity). */
int sm_plan_reserve(struct sm_plan *plan, size_t secs, size_t parts);
void sm_plan_memory(struct sm_layer *s, struct warp_rt *w, uint32_t wslot,
		    const struct gpuvm_warp_item *it, double start, struct sm_plan *plan);
/* The second stage: serves the instruction's parts [first, end) of the
 * plan as sm_serve_memory would have at start; the same result. */
double sm_serve_plan(struct sm_layer *s, uint32_t sm, const struct gpuvm_warp_item *it,
		     double start, const struct sm_plan *plan, size_t first, size_t end);
/* Ends the barrier's second-stage thread (sm_layer_free calls it). */
void sm_window_pipe_free(struct sm_layer *s);
/* A memory instruction's result applied at the barrier where its issue
 * left its marks (sm_window.c): ack is its stores' latest L2 ack. */
void sm_deliver(struct sm_layer *s, struct warp_rt *w, uint32_t wslot,
		const struct gpuvm_warp_item *it, uint64_t seq, double result, double ack);
/* Whether a barrier's translations and its sectors' data share no state
 * (sm_window.c): no paging (no driver moves pages or blocks an SM's
 * translations), no translation hook, page-table reads in the walk latency
 * rather than through the L2. What the two stages, the lagged barriers and
 * the memory side's split each need before they run apart. */
bool sm_barrier_stages_apart(const struct sm_layer *s);
/* core.window on threads with memory partitions (sm_split.c): whether the
 * barrier's memory side can be served a partition per task (more than one
 * partition, no near and far halves, no paging, no page-table reads
 * through the L2), and the barrier so served, its SMs' L1s and ports a
 * task per SM group too: the window's n instructions
 * of s->req_key, in key order, with the same results as sm_serve_memory
 * gives them one by one. false when out of memory before anything was
 * served (the caller serves them itself: the same results). */
bool sm_split_fits(const struct sm_layer *s);
bool sm_window_apply_split(struct sm_layer *s, size_t n, double window_end);
void sm_split_free(struct sm_layer *s);
/* core.window: warp wslot waits for the barrier at now (why: sm_park). */
static inline void sm_park(struct sm_layer *s, uint32_t wslot, enum sm_park why, double now)
{
	struct warp_rt *w = &s->warp[wslot];
	w->park = (uint8_t)why;
	w->park_at = now;
	s->parked_warps[s->n_parked++] = wslot;
}
/* Whether warp w's implicit chain waits for a memory instruction not yet
 * applied (core.window). */
static inline bool sm_implicit_pending(const struct warp_rt *w)
{
	return w->implicit_ready < 0 || w->loads_pending;
}

/* Whether item it is an LD_INDEP load (the flag counts on loads only: a
 * corrupt trace's flag on another item changes nothing). */
static inline bool sm_item_load_indep(const struct gpuvm_warp_item *it)
{
	return it->load_indep && it->kind == GPUVM_ITEM_MEM && it->op == GPUVM_OP_LOAD;
}

/* The unit an item issues to: its op class's pipe, or for a memory
 * instruction the load/store unit's issue port. */
static inline uint32_t sm_item_class(const struct gpuvm_warp_item *it)
{
	if (it->kind == GPUVM_ITEM_MEM)
		return GPUVM_CLASS_MEMISSUE;
	return it->op_class < GPUVM_OP_CLASSES ? it->op_class : GPUVM_CLASS_ALU;
}

/* core.busy_unit = yield: the cycle warp w's item, its operands there
 * at t0, should come back to its scheduler: when its unit frees, if that
 * is later than t0 and than the scheduler's own next free cycle (the
 * scheduler is idle meanwhile, free for other warps' ready instructions);
 * else t0 (it issues at once, or behind the instructions its scheduler
 * is issuing, as sm_step_item books it). An empty gap issues nothing. */
static inline double sm_unit_wait(const struct warp_rt *w, const struct gpuvm_warp_item *it,
				  double t0)
{
	if (it->kind != GPUVM_ITEM_MEM && !it->compute_insts)
		return t0;
	double unit_free = w->sched->unit_free[sm_item_class(it)];
	if (unit_free > t0 && unit_free > w->sched->free)
		return unit_free;
	return t0;
}

/* When the item's source operands are there: the registers it reads, or
 * the implicit chain; *from_mem says whether the last comes from memory. */
static inline double sm_operands_ready(const struct sm_layer *s, const struct warp_rt *w,
				       uint32_t wslot, const struct gpuvm_warp_item *it,
				       bool *from_mem)
{
	if (!it->has_regs) {
		*from_mem = w->implicit_mem;
		/* core.window: a result not applied yet (never before the
		 * window's barrier) */
		if (__builtin_expect(w->implicit_ready < 0, 0) ||
		    (__builtin_expect(w->loads_pending != 0, 0) && !sm_item_load_indep(it)))
			return INFINITY;
		/* an LD_INDEP load waits for what the group's first one does;
		 * anything else for the group too */
		if (w->implicit_ready >= w->implicit_loads || sm_item_load_indep(it))
			return w->implicit_ready;
		return w->implicit_loads;
	}
	const double *rr = s->reg_ready + (size_t)wslot * GPUVM_REGS;
	const uint8_t *rm = s->reg_mem + (size_t)wslot * GPUVM_REGS;
	double ops = 0;
	*from_mem = false;
	for (uint32_t i = 0; i < it->n_src && i < GPUVM_ITEM_MAX_SRC; i++) {
		uint16_t r = it->src[i];
		if (r >= GPUVM_REGS)
			continue;
		if (__builtin_expect(rr[r] < 0, 0))
			return INFINITY; /* core.window: pending */
		if (rr[r] > ops) {
			ops = rr[r];
			*from_mem = rm[r];
		}
	}
	return ops;
}

/* Issues one compute or memory item of warp w whose operands are ready
 * by t0; returns when the warp may issue its next item. */
double sm_step_item(struct sm_layer *s, struct warp_rt *w, uint32_t wslot,
		    const struct gpuvm_warp_item *it, double t0);

#endif
