/* The host side of the SIMT executor: a host program (plain sequential C:
 * allocate, initialise, copy, launch, read results, loop) runs as a
 * coroutine on the engine's thread; every allocation, copy and launch is
 * handed to the engine as one run operation. Deterministic, and the
 * program sees each kernel's real results before deciding what to do
 * next.
 *
 * Alone, the program posts one operation and waits until the engine asks
 * for the next. With worker threads (simt_par.c) it runs ahead of the
 * timing, so that the workers can start the next launch while the engine
 * still times this one (a launch's first chunks were the engine's waits:
 * docs/parallel.md): it queues operations whose end it does not look at
 * (allocations, copies, syncs), and after a launch the workers run it
 * waits only until they have run every thread of it, when its memory is
 * as the engine will leave it; the engine's thread then resumes it
 * mid-kernel (simt_host_run_ahead). It waits for the engine itself before
 * it reads the clock (simt_now_seconds, simt_event_seconds), at a launch
 * that runs on the engine's thread, when the queue is full, and for a
 * launch slot. The engine gets the same operations in the same order
 * either way, and the clock the program reads is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/host_memory.h"
#include "simt/simt_internal.h"
#include "simt/simt_par.h"

struct simt_host {
	struct simt_program p; /* the handle is the program */
};

static struct simt_program *prog(struct simt_host *h)
{
	return &h->p;
}

/* What a waiting program waits for (simt_program.waits). */
enum simt_host_wait {
	HOST_RUNS,  /* not waiting */
	HOST_DRAIN, /* the engine to have run every operation posted */
	HOST_LAUNCH, /* the workers to have run the newest launch */
	HOST_SLOT,  /* the engine to give up the next launch slot */
};

/* Gives the engine's thread back until what `why` names has come
 * (sp_next and simt_host_run_ahead decide); -1 when the run is torn down
 * or the program failed meanwhile. */
static int wait_for(struct simt_program *p, enum simt_host_wait why)
{
	p->waits = why;
	coro_yield(&p->host);
	p->waits = HOST_RUNS;
	return p->aborting || p->failed ? -1 : 0;
}

/* Queues op for the engine (slot: its launch slot, -1 none), and waits
 * as `why` says: for HOST_RUNS only when the queue is full. */
static int post_slot(struct simt_program *p, const struct gpuvm_run_op *op, int slot,
		     enum simt_host_wait why)
{
	if (p->aborting || p->failed)
		return -1;
	uint32_t i = (p->queue_head + p->queue_n++) % SIMT_HOST_QUEUE;
	p->queue[i] = *op;
	p->queue_slot[i] = slot;
	p->clock_fresh = 0;
	/* alone, every operation is waited for, as the engine asks */
	if (p->exec_threads <= 1 || (why == HOST_RUNS && p->queue_n == SIMT_HOST_QUEUE))
		why = HOST_DRAIN;
	return why == HOST_RUNS ? 0 : wait_for(p, why);
}

/* An operation whose end the program does not see: queued. */
static int post(struct simt_program *p, const struct gpuvm_run_op *op)
{
	return post_slot(p, op, -1, HOST_RUNS);
}

int simt_fail(struct simt_host *h, const char *fmt, ...)
{
	struct simt_program *p = prog(h);
	if (p->failed)
		return -1;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->failed = 1;
	return gpuvm_fail(&p->err, p->name, 0, NULL, "%s", msg);
}

/* Room for one more buffer of `bytes` in the program's table, within
 * the host-memory bound (gpuvm/host_memory.h) over all its buffers;
 * -1 when the program failed or has failed now. */
static int buffer_room(struct simt_host *h, const char *name, uint64_t bytes)
{
	struct simt_program *p = prog(h);
	if (p->aborting || p->failed)
		return -1;
	if (p->nbufs == p->bufs_cap) {
		size_t cap = p->bufs_cap ? 2 * p->bufs_cap : 8;
		struct simt_buffer *n = realloc(p->bufs, cap * sizeof *n);
		if (!n)
			return simt_fail(h, "out of memory");
		p->bufs = n;
		p->bufs_cap = cap;
	}
	p->host_bytes += bytes;
	if (p->host_bytes > gpuvm_host_memory_bound()) {
		char driver[400];
		const char *spec = gpuvm_host_memory_context();
		snprintf(driver, sizeof driver, "'%s' (its buffers, '%s' the last)",
			 *spec ? spec : p->name, name);
		struct gpuvm_error e;
		gpuvm_host_memory_check(p->host_bytes, "--workload", 0, driver, &e);
		return simt_fail(h, "%s", e.msg + strlen("--workload: "));
	}
	return 0;
}

/* mem, of at least max(bytes, 1) bytes, becomes the program's allocation
 * `name` (buffer_room said there is room); NULL when the run is being
 * torn down (mem is then freed with the program). */
static void *buffer_add(struct simt_program *p, unsigned char *mem, const char *name,
			uint64_t bytes, enum gpuvm_alloc_kind kind)
{
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_ALLOC;
	struct simt_buffer *b = &p->bufs[p->nbufs++];
	b->host = mem;
	b->bytes = bytes;
	b->kind = kind;
	b->device = op.device = p->device;
	b->va = va_layout_alloc(&p->va, &op.alloc, name, bytes ? bytes : 1, kind);
	snprintf(b->name, sizeof b->name, "%s", op.alloc.name);
	if (post(p, &op))
		return NULL;
	return mem;
}

void *simt_malloc(struct simt_host *h, const char *name, uint64_t bytes,
		  enum gpuvm_alloc_kind kind)
{
	if (buffer_room(h, name, bytes))
		return NULL;
	/* calloc of large sizes maps zero pages lazily: an 8 GiB working set
	 * costs host memory only where the program touches it. */
	unsigned char *mem = calloc(1, bytes ? bytes : 1);
	if (!mem) {
		simt_fail(h, "cannot allocate %llu bytes of host memory for '%s'",
			  (unsigned long long)bytes, name);
		return NULL;
	}
	return buffer_add(prog(h), mem, name, bytes, kind);
}

void *simt_adopt(struct simt_host *h, const char *name, void *mem, uint64_t bytes,
		 enum gpuvm_alloc_kind kind)
{
	if (!mem) { /* the caller's malloc failed: its data is not there */
		simt_fail(h, "out of host memory for '%s'", name);
		return NULL;
	}
	if (buffer_room(h, name, bytes)) {
		free(mem);
		return NULL;
	}
	return buffer_add(prog(h), mem, name, bytes, kind);
}

int simt_free(struct simt_host *h, void *mem)
{
	struct simt_program *p = prog(h);
	for (size_t i = 0; i < p->nbufs; i++)
		if (p->bufs[i].host == mem) {
			struct gpuvm_run_op op;
			memset(&op, 0, sizeof op);
			op.kind = GPUVM_RUN_FREE;
			op.alloc.base = p->bufs[i].va;
			op.alloc.bytes = p->bufs[i].bytes;
			op.alloc.kind = p->bufs[i].kind;
			op.device = p->bufs[i].device;
			free(p->bufs[i].host);
			p->bufs[i] = p->bufs[--p->nbufs];
			p->last_buf = 0;
			return post(p, &op);
		}
	return simt_fail(h, "simt_free of a pointer that is not an allocation");
}

static int copy_ev(struct simt_host *h, const void *mem, uint64_t bytes,
		   enum gpuvm_run_op_kind kind, uint32_t event)
{
	struct simt_program *p = prog(h);
	const struct simt_buffer *b = simt_find_buffer(p, mem, bytes);
	if (!b)
		return simt_fail(h, "copy of %llu bytes outside every allocation",
				 (unsigned long long)bytes);
	/* an upload to system-allocated memory is the host writing its own
	 * memory (its first touch places the pages in CPU memory; the run
	 * loop times it on the CPU's memory); a download of it is the host
	 * reading it, which the model leaves out */
	bool host_touch = b->kind == GPUVM_ALLOC_SYSTEM && kind == GPUVM_RUN_COPY_H2D;
	if ((b->kind != GPUVM_ALLOC_DEVICE && !host_touch) || !bytes)
		return p->aborting || p->failed ? -1 : 0;
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = kind;
	op.copy_addr = simt_buffer_va(b, mem);
	op.copy_bytes = bytes;
	op.event = event;
	op.device = b->device; /* the copy runs on its GPU's link */
	return post(p, &op);
}

static int copy(struct simt_host *h, const void *mem, uint64_t bytes, enum gpuvm_run_op_kind kind)
{
	return copy_ev(h, mem, bytes, kind, 0);
}

static int async_copy(struct simt_host *h, const void *mem, uint64_t bytes,
		      enum gpuvm_run_op_kind kind, unsigned event)
{
	const struct simt_buffer *b = simt_find_buffer(prog(h), mem, bytes);
	if (event >= GPUVM_RUN_EVENTS)
		return simt_fail(h, "event %u out of range (1..%d)", event, GPUVM_RUN_EVENTS - 1);
	if (b && b->kind != GPUVM_ALLOC_DEVICE)
		return simt_fail(h, "an asynchronous copy must be to or from a device allocation");
	return copy_ev(h, mem, bytes, kind, event);
}

int simt_upload_async(struct simt_host *h, const void *mem, uint64_t bytes, unsigned event)
{
	return async_copy(h, mem, bytes, GPUVM_RUN_COPY_H2D_ASYNC, event);
}

int simt_download_async(struct simt_host *h, const void *mem, uint64_t bytes, unsigned event)
{
	return async_copy(h, mem, bytes, GPUVM_RUN_COPY_D2H_ASYNC, event);
}

int simt_wait_event(struct simt_host *h, unsigned event)
{
	if (event >= GPUVM_RUN_EVENTS)
		return simt_fail(h, "event %u out of range (1..%d)", event, GPUVM_RUN_EVENTS - 1);
	prog(h)->wait_event = event;
	return 0;
}

/* The clock after every operation posted: waits for the engine to have
 * run them when the program ran ahead. */
static void clock_now(struct simt_program *p)
{
	if (!p->clock_fresh)
		wait_for(p, HOST_DRAIN);
}

double simt_event_seconds(struct simt_host *h, unsigned event)
{
	if (!event || event >= GPUVM_RUN_EVENTS)
		return -1;
	clock_now(prog(h));
	return prog(h)->event_seconds[event];
}

int simt_upload(struct simt_host *h, const void *mem, uint64_t bytes)
{
	return copy(h, mem, bytes, GPUVM_RUN_COPY_H2D);
}

int simt_download(struct simt_host *h, const void *mem, uint64_t bytes)
{
	return copy(h, mem, bytes, GPUVM_RUN_COPY_D2H);
}

int simt_device_sync(struct simt_host *h)
{
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_DEVICE_SYNC;
	op.device = prog(h)->device;
	return post(prog(h), &op);
}

int simt_set_device(struct simt_host *h, unsigned device)
{
	if (device >= GPUVM_RUN_MAX_DEVICES)
		return simt_fail(h, "cudaSetDevice(%u): at most %d GPUs", device,
				 GPUVM_RUN_MAX_DEVICES);
	prog(h)->device = device;
	return prog(h)->aborting || prog(h)->failed ? -1 : 0;
}

unsigned simt_get_device(struct simt_host *h)
{
	return prog(h)->device;
}

int simt_enable_peer_access(struct simt_host *h, unsigned peer_device)
{
	struct simt_program *p = prog(h);
	if (peer_device >= GPUVM_RUN_MAX_DEVICES || peer_device == p->device)
		return simt_fail(h, "cudaDeviceEnablePeerAccess(%u) on GPU %u: the peer is another "
				 "GPU, 0-%d", peer_device, p->device, GPUVM_RUN_MAX_DEVICES - 1);
	if (p->peer_on[p->device] >> peer_device & 1)
		return simt_fail(h, "cudaDeviceEnablePeerAccess(%u) on GPU %u: already enabled "
				 "(cudaErrorPeerAccessAlreadyEnabled)", peer_device, p->device);
	if (p->aborting || p->failed)
		return -1;
	p->peer_on[p->device] |= 1ull << peer_device;
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_PEER_ACCESS;
	op.device = p->device;
	op.peer_device = peer_device;
	return post(p, &op);
}

static int memcpy_peer(struct simt_host *h, void *dst, const void *src, uint64_t bytes,
		       enum gpuvm_run_op_kind kind)
{
	struct simt_program *p = prog(h);
	const struct simt_buffer *d = simt_find_buffer(p, dst, bytes);
	/* copied now: the buffer table may be searched again below */
	struct simt_buffer db = d ? *d : (struct simt_buffer){0};
	const struct simt_buffer *s = simt_find_buffer(p, src, bytes);
	if (!d || !s)
		return simt_fail(h, "peer copy of %llu bytes outside every allocation",
				 (unsigned long long)bytes);
	if (db.kind != GPUVM_ALLOC_DEVICE || s->kind != GPUVM_ALLOC_DEVICE)
		return simt_fail(h, "a peer copy is between device allocations");
	if (p->aborting || p->failed)
		return -1;
	memmove(dst, src, bytes); /* the data moves now; the engine times it */
	if (!bytes)
		return 0;
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = kind;
	op.copy_addr = db.va + (uint64_t)((unsigned char *)dst - db.host);
	op.peer_addr = s->va + (uint64_t)((const unsigned char *)src - s->host);
	op.copy_bytes = bytes;
	op.device = db.device;
	op.peer_device = s->device;
	return post(p, &op);
}

int simt_memcpy_peer(struct simt_host *h, void *dst, const void *src, uint64_t bytes)
{
	return memcpy_peer(h, dst, src, bytes, GPUVM_RUN_COPY_PEER);
}

int simt_memcpy_peer_async(struct simt_host *h, void *dst, const void *src, uint64_t bytes)
{
	return memcpy_peer(h, dst, src, bytes, GPUVM_RUN_COPY_PEER_ASYNC);
}

int simt_prefetch(struct simt_host *h, const void *mem, uint64_t bytes, int device)
{
	struct simt_program *p = prog(h);
	const struct simt_buffer *b = simt_find_buffer(p, mem, bytes);
	if (!b || b->kind != GPUVM_ALLOC_MANAGED)
		return simt_fail(h, "cudaMemPrefetchAsync of %llu bytes outside every managed "
				 "allocation", (unsigned long long)bytes);
	if (device != SIMT_CPU_DEVICE && (device < 0 || device >= GPUVM_RUN_MAX_DEVICES))
		return simt_fail(h, "cudaMemPrefetchAsync to device %d: a GPU 0-%d or "
				 "SIMT_CPU_DEVICE", device, GPUVM_RUN_MAX_DEVICES - 1);
	if (p->aborting || p->failed)
		return -1;
	if (!bytes)
		return 0;
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_PREFETCH;
	op.copy_addr = simt_buffer_va(b, mem);
	op.copy_bytes = bytes;
	op.prefetch_to_cpu = device == SIMT_CPU_DEVICE;
	op.device = op.prefetch_to_cpu ? p->device : (uint32_t)device;
	return post(p, &op);
}

int simt_host_access(struct simt_host *h, const void *mem, uint64_t bytes, unsigned how)
{
	struct simt_program *p = prog(h);
	const struct simt_buffer *b = simt_find_buffer(p, mem, bytes);
	if (!b)
		return simt_fail(h, "simt_host_access of %llu bytes outside every allocation",
				 (unsigned long long)bytes);
	if (!how || how & ~(SIMT_HOST_READ | SIMT_HOST_WRITE))
		return simt_fail(h, "simt_host_access how %u: SIMT_HOST_READ, SIMT_HOST_WRITE "
				 "or both", how);
	if (p->aborting || p->failed)
		return -1;
	if (!bytes)
		return 0;
	/* the engine checks the allocation's kind: it knows its name */
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_HOST_ACCESS;
	op.copy_addr = simt_buffer_va(b, mem);
	op.copy_bytes = bytes;
	op.host_write = how & SIMT_HOST_WRITE;
	op.device = p->device;
	return post(p, &op);
}

int simt_mem_advise(struct simt_host *h, const void *mem, uint64_t bytes, int advice, int device)
{
	struct simt_program *p = prog(h);
	const struct simt_buffer *b = simt_find_buffer(p, mem, bytes);
	if (!b || b->kind != GPUVM_ALLOC_MANAGED)
		return simt_fail(h, "cudaMemAdvise of %llu bytes outside every managed allocation",
				 (unsigned long long)bytes);
	if (advice != SIMT_ADVISE_READ_MOSTLY && advice != SIMT_ADVISE_ACCESSED_BY &&
	    advice != SIMT_ADVISE_PREFERRED_LOCATION)
		return simt_fail(h, "cudaMemAdvise advice %d: only SIMT_ADVISE_READ_MOSTLY, "
				 "SIMT_ADVISE_ACCESSED_BY and SIMT_ADVISE_PREFERRED_LOCATION are "
				 "modelled (issue 78)", advice);
	if (advice == SIMT_ADVISE_ACCESSED_BY && (device < 0 || device >= GPUVM_RUN_MAX_DEVICES))
		return simt_fail(h, "cudaMemAdviseSetAccessedBy of device %d: a GPU 0-%d", device,
				 GPUVM_RUN_MAX_DEVICES - 1);
	bool to_cpu = advice == SIMT_ADVISE_PREFERRED_LOCATION && device == SIMT_CPU_DEVICE;
	if (advice == SIMT_ADVISE_PREFERRED_LOCATION && !to_cpu &&
	    (device < 0 || device >= GPUVM_RUN_MAX_DEVICES))
		return simt_fail(h, "cudaMemAdviseSetPreferredLocation of device %d: a GPU 0-%d or "
				 "SIMT_CPU_DEVICE", device, GPUVM_RUN_MAX_DEVICES - 1);
	if (p->aborting || p->failed)
		return -1;
	if (!bytes)
		return 0;
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_ADVISE;
	op.copy_addr = simt_buffer_va(b, mem);
	op.copy_bytes = bytes;
	op.advice = advice == SIMT_ADVISE_ACCESSED_BY	     ? GPUVM_ADVISE_ACCESSED_BY
		    : advice == SIMT_ADVISE_PREFERRED_LOCATION ? GPUVM_ADVISE_PREFERRED_LOCATION
							       : GPUVM_ADVISE_READ_MOSTLY;
	op.prefetch_to_cpu = to_cpu;
	op.device = advice == SIMT_ADVISE_READ_MOSTLY || to_cpu ? p->device : (uint32_t)device;
	return post(p, &op);
}

int simt_launch(struct simt_host *h, const char *name, simt_body_fn body, struct simt_dim3 grid,
		struct simt_dim3 block, const void *args, size_t args_bytes)
{
	return simt_launch_shared(h, name, body, grid, block, 0, args, args_bytes);
}

/* body's slot in the program's table (a new one replaces the oldest) */
static struct simt_zip_stats *zip_stats(struct simt_program *p, simt_body_fn body)
{
	uint32_t n = p->zip_n < SIMT_ZIP_BODIES ? p->zip_n : SIMT_ZIP_BODIES;
	for (uint32_t i = 0; i < n; i++)
		if (p->zip[i].body == body)
			return &p->zip[i];
	struct simt_zip_stats *z = &p->zip[p->zip_n++ % SIMT_ZIP_BODIES];
	z->body = body;
	z->insts = z->lanes = 0;
	return z;
}

void simt_prefer_carveout(struct simt_host *h, unsigned percent)
{
	prog(h)->next_carveout_percent = percent > 100 ? 100 : (int)percent;
}

int simt_launch_shared(struct simt_host *h, const char *name, simt_body_fn body,
		       struct simt_dim3 grid, struct simt_dim3 block, uint32_t shared_bytes,
		       const void *args, size_t args_bytes)
{
	return simt_launch_flags(h, name, body, grid, block, shared_bytes, 0, args, args_bytes);
}

int simt_launch_flags(struct simt_host *h, const char *name, simt_body_fn body,
		      struct simt_dim3 grid, struct simt_dim3 block, uint32_t shared_bytes,
		      unsigned flags, const void *args, size_t args_bytes)
{
	struct simt_program *p = prog(h);
	if (p->aborting || p->failed)
		return -1;
	uint64_t threads = (uint64_t)block.x * block.y * block.z;
	if (!grid.x || !grid.y || !grid.z || !threads || threads > 1024)
		return simt_fail(h, "%s: bad launch <<<(%u,%u,%u), (%u,%u,%u)>>>", name, grid.x,
				 grid.y, grid.z, block.x, block.y, block.z);
	if (shared_bytes > SIMT_SHARED_BYTES)
		return simt_fail(h, "%s: %u bytes of shared memory per block (max %u, CUDA's static limit)",
				 name, shared_bytes, SIMT_SHARED_BYTES);
	if (args_bytes > SIMT_MAX_ARGS_BYTES)
		return simt_fail(h, "%s: %zu bytes of arguments (max %d)", name, args_bytes,
				 SIMT_MAX_ARGS_BYTES);
	/* a launch slot the engine does not hold */
	while (p->slot_busy[p->slot_next])
		if (wait_for(p, HOST_SLOT))
			return -1;
	uint32_t slot = p->slot_next;
	struct simt_launch *l = &p->launches[slot];
	simt_launch_reset(l);
	snprintf(l->k.name, sizeof l->k.name, "%s", name);
	l->k.grid[0] = grid.x;
	l->k.grid[1] = grid.y;
	l->k.grid[2] = grid.z;
	l->k.block[0] = block.x;
	l->k.block[1] = block.y;
	l->k.block[2] = block.z;
	l->k.ops = &simt_kernel_ops;
	l->k.impl = l;
	l->prog = p;
	l->device = p->device;
	l->peers = p->peer_on[p->device];
	l->body = body;
	l->no_yield = (flags & SIMT_NO_YIELD) != 0;
	memcpy(l->args, args, args_bytes);
	l->threads_per_cta = (uint32_t)threads;
	l->shared_bytes = shared_bytes;
	l->k.smem_bytes_per_cta = shared_bytes;
	l->k.smem_carveout_preferred = p->next_carveout_percent >= 0;
	l->k.smem_carveout_percent = (uint8_t)(p->next_carveout_percent >= 0 ? p->next_carveout_percent : 0);
	p->next_carveout_percent = -1;
	l->failed = 0;
	l->zip = zip_stats(p, body);
	l->red = &p->red;
	simt_red_order_begin(&p->red);
	/* any order: its threads may run on the workers (same results), and
	 * the program goes on once they have run them all */
	int on_workers = (flags & SIMT_ANY_ORDER) && p->exec_threads > 1 &&
			 simt_par_launch(p, l, slot) == 0;
	p->slot_busy[slot] = 1;
	p->launches_ahead += (uint64_t)p->mid_kernel;
	p->slot_next = (slot + 1) % SIMT_LAUNCH_SLOTS;
	struct gpuvm_run_op op;
	memset(&op, 0, sizeof op);
	op.kind = GPUVM_RUN_KERNEL;
	op.kernel = &l->k;
	op.device = p->device;
	op.wait_event = p->wait_event;
	p->wait_event = 0;
	return post_slot(p, &op, (int)slot, on_workers ? HOST_LAUNCH : HOST_DRAIN);
}

void simt_result(struct simt_host *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prog(h)->result, sizeof prog(h)->result, fmt, ap);
	va_end(ap);
}

double simt_now_seconds(struct simt_host *h)
{
	clock_now(prog(h));
	return prog(h)->now_seconds;
}

void simt_work_items(struct simt_host *h, uint64_t items)
{
	prog(h)->work_items = items;
}

/* ---- the source ----------------------------------------------------- */

static void host_entry(void *arg)
{
	struct simt_program *p = arg;
	p->host_rc = p->fn((struct simt_host *)p, p->user);
}

/* Resumes the program where it waits (the engine's thread only). */
static void resume(struct simt_program *p)
{
	p->host_started = 1;
	coro_resume(&p->host);
	if (p->host.finished && p->host_rc < 0 && !p->failed) {
		p->failed = 1;
		gpuvm_fail(&p->err, p->name, 0, NULL, "host program failed");
	}
}

/* Whether the program may go on before the engine has run what it
 * posted: it waits for the workers, and they have run the launch, or
 * for a launch slot, and the engine has given it up. */
static int may_go_on(struct simt_program *p)
{
	if (!p->host_started || p->host.finished || p->failed || p->aborting)
		return 0;
	if (p->waits == HOST_SLOT)
		return !p->slot_busy[p->slot_next];
	return p->waits == HOST_LAUNCH && p->par && simt_par_ahead_done(p->par);
}

/* Lets a program that may go on run to its next wait: each turn posts
 * something or waits for something else. */
static void go_on(struct simt_program *p)
{
	for (int turns = 0; turns < 4 && may_go_on(p); turns++)
		resume(p);
}

void simt_host_run_ahead(struct simt_program *p)
{
	p->mid_kernel = 1;
	go_on(p);
	p->mid_kernel = 0;
}

static int sp_next(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct simt_program *p = s->impl;
	memset(op, 0, sizeof *op);
	if (p->engine_slot >= 0) { /* the engine is done with that launch */
		simt_launch_reset(&p->launches[p->engine_slot]);
		p->slot_busy[p->engine_slot] = 0;
		p->engine_slot = -1;
	}
	p->exec_threads = s->exec_threads;
	if (!p->queue_n) {
		/* the engine has run everything posted: the clock is the
		 * program's to read, and it goes on whatever it waits for */
		p->now_seconds = s->now_seconds;
		memcpy(p->event_seconds, s->event_seconds, sizeof p->event_seconds);
		p->clock_fresh = 1;
		if (!p->host.finished && !p->failed)
			resume(p);
	} else {
		go_on(p);
	}
	if (p->queue_n) { /* a failure after these ends the run after them, as alone */
		*op = p->queue[p->queue_head];
		p->engine_slot = p->queue_slot[p->queue_head];
		p->queue_head = (p->queue_head + 1) % SIMT_HOST_QUEUE;
		p->queue_n--;
		return 0;
	}
	if (p->failed) {
		*err = p->err;
		return -1;
	}
	if (p->host.finished) {
		op->kind = GPUVM_RUN_END;
		return 0;
	}
	/* waiting with nothing posted, the engine idle: cannot happen */
	return gpuvm_fail(err, p->name, 0, NULL, "host program waits with no operation posted");
}

static void sp_result(struct gpuvm_source *s, char *buf, size_t len)
{
	struct simt_program *p = s->impl;
	snprintf(buf, len, "%s", p->result);
}

static uint64_t sp_work(struct gpuvm_source *s)
{
	return ((struct simt_program *)s->impl)->work_items;
}

static void sp_destroy(struct gpuvm_source *s)
{
	struct simt_program *p = s->impl;
	if (!p)
		return;
	/* A run torn down mid-program: let the program see -1 and return. */
	p->aborting = 1;
	simt_par_free(p->par); /* the workers run on the program's buffers */
	p->par = NULL;
	p->exec_threads = 1;
	for (int tries = 0; p->host_started && !p->host.finished && tries < 1000; tries++)
		coro_resume(&p->host);
	for (int i = 0; i < SIMT_LAUNCH_SLOTS; i++)
		simt_launch_reset(&p->launches[i]);
	simt_red_order_free(&p->red);
	simt_pool_free(p);
	if (p->user_free)
		p->user_free(p->user);
	for (size_t i = 0; i < p->nbufs; i++)
		free(p->bufs[i].host);
	free(p->bufs);
	coro_free(&p->host);
	free(p);
	s->impl = NULL;
}

static const struct gpuvm_source_ops simt_source_ops = {
	.kind = "workload",
	.next_op = sp_next,
	.result = sp_result,
	.work_items = sp_work,
	.destroy = sp_destroy,
};

int simt_program_source(const char *name, simt_host_fn fn, void *user, void (*user_free)(void *),
			struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct simt_host *h = calloc(1, sizeof *h);
	struct simt_program *p = h ? &h->p : NULL;
	if (!p || simt_red_order_init(&p->red)) {
		free(h);
		if (user_free)
			user_free(user);
		return gpuvm_fail(err, name, 0, NULL, "out of memory");
	}
	if (coro_init(&p->host, SIMT_HOST_STACK_BYTES, host_entry, p)) {
		simt_red_order_free(&p->red);
		free(h);
		if (user_free)
			user_free(user);
		return gpuvm_fail(err, name, 0, NULL, "out of memory");
	}
	snprintf(p->name, sizeof p->name, "%s", name);
	va_layout_init(&p->va);
	p->fn = fn;
	p->user = user;
	p->next_carveout_percent = -1;
	p->engine_slot = -1;
	p->user_free = user_free;
	/* exec_threads 0 until the caller says (tests leave *out uninitialised) */
	*out = (struct gpuvm_source){.ops = &simt_source_ops, .impl = p};
	return 0;
}
