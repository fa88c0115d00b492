/* The SIMT executor: GPU kernels written once as per-thread bodies that
 * compile both as C (run here on real data, every global-memory access
 * recorded with its GPU virtual address for the engine) and as CUDA
 * (the cuda/ sources include the same body headers).
 *
 * Kernel body (a header included by the C workload and by cuda/NAME.cu):
 *
 *   struct saxpy_args { float *x, *y; float a; int n; };
 *   SIMT_KERNEL(saxpy, struct saxpy_args, p)
 *   {
 *       int i = blockIdx.x * blockDim.x + threadIdx.x;
 *       if (i >= p.n) return;
 *       float v = p.a * LD(p.x, i) + LD(p.y, i);
 *       COMPUTE(2);                     // cost hint: 2 non-memory warp insts
 *       ST(p.y, i, v);
 *   }
 *
 * Accessors (array, index[, value]); index expressions are evaluated
 * twice in C, so they must not have side effects:
 *   LD(a, i)  ST(a, i, v)
 *   ATOMIC_ADD / _MIN / _MAX / _EXCH / _OR / _XOR (a, i, v)
 *   ATOMIC_CAS(a, i, compare, v)      -- return the old value, as CUDA's
 *   RED_ADD(a, i, v)                  -- a float or double atomic add whose
 *                                        value is not used (CUDA's RED), on an
 *                                        element no thread of the launch reads:
 *                                        applied in thread order (below)
 *   ST_ORDERED(a, i, v)               -- a store (4- or 8-byte element) that
 *                                        several threads may make to one
 *                                        element no thread of the launch
 *                                        reads: the highest thread id's
 *                                        value is left (applied in order)
 *   ST_SAME(a, i, v)                  -- a store that threads of other CTAs
 *                                        may make to the same element in the
 *                                        launch, always with the same value
 *                                        (a flag raised, a BFS level): a
 *                                        plain store on the GPU, on the CPU
 *                                        a relaxed atomic one, so the worker
 *                                        threads running those CTAs at once
 *                                        do not race (C11 5.1.2.4)
 *   LDCG(a, i)  LDCA(a, i)            -- loads cached in L2 only (__ldcg) or
 *                                        also in L1 (__ldca) whatever the part
 * Only these are global-memory accesses; plain locals are registers.
 *   SLD(s, i)  SST(s, i, v) a timed shared-memory access (its banks and
 *                           latency); plain s[i] on a SHARED array is free
 *   COMPUTE(n)              n non-memory warp instructions (a cost hint)
 *   COMPUTE_CHAIN(n, cls)   n dependent instructions of class cls
 *                           (GPUVM_CLASS_FMA, ...): each waits for the last
 *   SHARED(type, name, n)   a per-CTA shared array of n elements
 *   SYNCTHREADS()           CTA barrier (timed: a warp waits for the CTA's)
 *   SIMT_RESERVE(n)         no access: on the CPU the thread first waits
 *                           until its warp has issued its buffered accesses
 *                           unless n more fit before it must (a lock's
 *                           critical section then runs without the thread
 *                           being suspended holding the lock); nothing in CUDA
 *   threadIdx, blockIdx, blockDim, gridDim (.x .y .z) as in CUDA
 *   SIMT_DEVFN, SIMT_CTX_, SIMT_PASS_  device helpers that access memory:
 *     SIMT_DEVFN float get(SIMT_CTX_ const float *a, int i) { return LD(a, i); }
 *     ... get(SIMT_PASS_ p.x, i) ...
 *
 * Semantics on the CPU (see docs/simt.md): each thread runs as a coroutine;
 * a warp's threads are zipped into warp instructions by program position:
 * the next instruction is the earliest source line (__LINE__) any live lane
 * is waiting at, and the lanes waiting there form its active mask (so lanes
 * that branched away or finished drop out and rejoin at reconvergence).
 * COMPUTE hints before an access become the compute gap before that
 * instruction (the maximum over its lanes). Atomics are performed at once,
 * in execution order, except RED_ADD (and ST_ORDERED): its additions
 * (stores) are logged and applied when the thread's CTA ends, in global
 * thread order (CTA id, thread in the CTA, program order;
 * src/simt/simt_red.h), so a float sum (the value left by racing stores)
 * does not depend on the order the timing model ran the warps in (nor on
 * --threads): the same bits on every preset. */
#ifndef GPUVM_SIMT_H
#define GPUVM_SIMT_H

#ifdef __CUDACC__
/* ---------------------------------------------------------------- CUDA */
#include <stdint.h>
#define SIMT_KERNEL(name, argt, p) __global__ void name(const argt p)
#define SIMT_KERNEL_ANY_ORDER(name, argt, p) SIMT_KERNEL(name, argt, p)
#define SIMT_KERNEL_NO_YIELD(name, argt, p) SIMT_KERNEL(name, argt, p)
#define SIMT_DEVFN __device__ static inline
#define SIMT_CTX_
#define SIMT_PASS_
#define LD(a, i) ((a)[i])
#define ST(a, i, v) ((a)[i] = (v))
#define ATOMIC_ADD(a, i, v) atomicAdd(&(a)[i], (v))
#define ATOMIC_MIN(a, i, v) atomicMin(&(a)[i], (v))
#define ATOMIC_MAX(a, i, v) atomicMax(&(a)[i], (v))
#define ATOMIC_EXCH(a, i, v) atomicExch(&(a)[i], (v))
#define ATOMIC_OR(a, i, v) atomicOr(&(a)[i], (v))
#define ATOMIC_XOR(a, i, v) atomicXor(&(a)[i], (v))
#define ATOMIC_CAS(a, i, c, v) atomicCAS(&(a)[i], (c), (v))
#define RED_ADD(a, i, v) ((void)atomicAdd(&(a)[i], (v)))
#define ST_ORDERED(a, i, v) ((a)[i] = (v))
#define ST_SAME(a, i, v) ((a)[i] = (v))
#define COMPUTE(n) ((void)0)
#define COMPUTE_CHAIN(n, cls) ((void)0)
#define SHARED(type, name, n) __shared__ type name[n]
#define SLD(a, i) ((a)[i])
#define SST(a, i, v) ((a)[i] = (v))
#define LDCG(a, i) __ldcg(&(a)[i])
#define LDCA(a, i) __ldca(&(a)[i])
#define LD_INDEP(a, i) ((a)[i])
#define LD_INDEP_IF(c, a, i) ((void)(c), (a)[i])
#define LDCG_INDEP(a, i) __ldcg(&(a)[i])
#define SYNCTHREADS() __syncthreads()
#define SIMT_RESERVE(n) ((void)0)

#else
/* ------------------------------------------------------------------- C */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpuvm/error.h"
#include "gpuvm/stream.h"

struct simt_dim3 {
	uint32_t x, y, z;
};

enum simt_access_op { SIMT_LOAD = GPUVM_OP_LOAD, SIMT_STORE = GPUVM_OP_STORE,
		      SIMT_ATOMIC = GPUVM_OP_ATOMIC };

/* Or'ed into simt_access_cached's cache_op (whose values are below 8):
 * the load is LD_INDEP's (gpuvm_warp_item.load_indep). */
#define SIMT_CACHE_INDEP 8u

/* One simulated GPU thread as the accessor macros see it. */
struct simt_thread {
	struct simt_dim3 thread_idx, block_idx, block_dim, grid_dim;
	uint32_t compute;      /* COMPUTE hints since the last access */
	uint32_t chain;        /* of them, a dependent chain (COMPUTE_CHAIN) */
	uint8_t chain_class;   /* its enum gpuvm_op_class */
	uint32_t shared_off;   /* bump offset into the CTA's shared memory */
};

typedef void (*simt_body_fn)(struct simt_thread *t, const void *args);

/* Records one access of `bytes` at host address p (which must lie in a
 * simt_malloc'd buffer); may switch to the engine before returning. */
void simt_access(struct simt_thread *t, const void *p, uint32_t bytes, enum simt_access_op op,
		 uint32_t site);
/* The same with a cache operator (enum gpuvm_cache_op). */
void simt_access_cached(struct simt_thread *t, const void *p, uint32_t bytes,
			enum simt_access_op op, uint32_t site, uint32_t cache_op);
/* A shared-memory access at p inside the CTA's shared memory. */
void simt_shared_access(struct simt_thread *t, const void *p, uint32_t bytes,
			enum simt_access_op op, uint32_t site);
void simt_barrier(struct simt_thread *t, uint32_t site);
void simt_reserve(struct simt_thread *t, uint32_t entries);
void *simt_shared(struct simt_thread *t, size_t bytes, size_t align);

/* Launch flags of a kernel (SIMT_LAUNCH passes its own). */
enum simt_launch_flags {
	/* The kernel's threads make the same accesses and leave the same
	 * memory whatever order its CTAs and warps run in: no thread reads
	 * what a thread of another CTA or warp writes in the launch (barriers
	 * aside), and atomics are only commutative updates (integer add, min,
	 * max, or, xor) whose returned value is not used, or RED_ADD and
	 * ST_ORDERED (applied in thread order whatever order the threads ran
	 * in); several CTAs' stores of one value to an element are ST_SAME.
	 * Float ATOMIC_ADDs, "last writer wins" plain stores, and reads
	 * of neighbours' fresh writes (bc's BFS claiming vertices, hash
	 * inserts) do not qualify. Such a kernel may run on worker threads
	 * ahead of the engine (gpuvm sim --threads N). */
	SIMT_ANY_ORDER = 1u << 0,
	/* The body never suspends its thread: no memory access, atomic,
	 * barrier, COMPUTE or SIMT_RESERVE (an empty kernel, whose cost is the
	 * launch and CTA dispatch alone). Its threads run on the executor's
	 * own stack, without a coroutine each: the same results, without a
	 * stack switch per thread (65536 CTAs of 128 threads are 8.4 M of
	 * them). A body so declared that suspends aborts the process. */
	SIMT_NO_YIELD = 1u << 1,
};

#define SIMT_KERNEL_FLAGS_(name, argt, p, flags)                                       \
	enum { name##_simt_flags_ = (flags) };                                         \
	static void name##_simt_body(struct simt_thread *simt_t_, argt p);             \
	static void name(struct simt_thread *simt_t_, const void *simt_a_)             \
	{                                                                              \
		name##_simt_body(simt_t_, *(const argt *)simt_a_);                     \
	}                                                                              \
	static void name##_simt_body(struct simt_thread *simt_t_, argt p)
#define SIMT_KERNEL(name, argt, p) SIMT_KERNEL_FLAGS_(name, argt, p, 0)
/* A kernel declared SIMT_ANY_ORDER (see there for what that promises). */
#define SIMT_KERNEL_ANY_ORDER(name, argt, p) SIMT_KERNEL_FLAGS_(name, argt, p, SIMT_ANY_ORDER)
/* A kernel whose body does nothing a thread suspends for (SIMT_NO_YIELD) */
#define SIMT_KERNEL_NO_YIELD(name, argt, p)                                            \
	SIMT_KERNEL_FLAGS_(name, argt, p, SIMT_ANY_ORDER | SIMT_NO_YIELD)
#define SIMT_DEVFN static inline
#define SIMT_CTX_ struct simt_thread *simt_t_,
#define SIMT_PASS_ simt_t_,

#define threadIdx (simt_t_->thread_idx)
#define blockIdx (simt_t_->block_idx)
#define blockDim (simt_t_->block_dim)
#define gridDim (simt_t_->grid_dim)

#define LD(a, i) (simt_access(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__), (a)[i])
/* The value first: a store whose value reads memory (ST(a, i, LD(b, i)))
 * issues after those reads, as compiled code does; the access is checked
 * (and recorded) before anything is written. */
#define ST(a, i, v)                                                                    \
	__extension__({                                                                \
		__typeof__((a)[i]) simt_st_v_ = (v);                                   \
		simt_access(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_STORE, __LINE__);   \
		(a)[i] = simt_st_v_;                                                   \
	})

/* ST's access, its value written as a relaxed atomic store (same-value
 * stores of several CTAs: the stop flags of the graph kernels) */
#define ST_SAME(a, i, v)                                                               \
	__extension__({                                                                \
		__typeof__((a)[i]) simt_st_v_ = (v);                                   \
		simt_access(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_STORE, __LINE__);   \
		__atomic_store(&(a)[i], &simt_st_v_, __ATOMIC_RELAXED);                \
	})

enum simt_atomic_kind { SIMT_AT_ADD, SIMT_AT_MIN, SIMT_AT_MAX, SIMT_AT_EXCH, SIMT_AT_OR,
			SIMT_AT_XOR, SIMT_AT_CAS };

/* Read-modify-write as one atomic step (kernels declared SIMT_ANY_ORDER
 * run on several threads at once; alone it succeeds at the first try);
 * returns the old value as CUDA's atomics do. */
#define SIMT_ATOMIC_DEF_(suffix, T, ORBODY, XORBODY)                                             \
	static inline T simt_atomic_##suffix(struct simt_thread *t, T *p, enum simt_atomic_kind k, \
					     T v, T cmp, uint32_t site)                 \
	{                                                                               \
		simt_access(t, p, sizeof *p, SIMT_ATOMIC, site);                        \
		T old, nv;                                                              \
		__atomic_load(p, &old, __ATOMIC_RELAXED);                               \
		do {                                                                    \
			nv = old;                                                       \
			switch (k) {                                                    \
			case SIMT_AT_ADD: nv = (T)(old + v); break;                     \
			case SIMT_AT_MIN: if (v < old) nv = v; break;                   \
			case SIMT_AT_MAX: if (v > old) nv = v; break;                   \
			case SIMT_AT_EXCH: nv = v; break;                               \
			case SIMT_AT_OR: ORBODY; break;                                 \
			case SIMT_AT_XOR: XORBODY; break;                               \
			case SIMT_AT_CAS: if (old == cmp) nv = v; break;                \
			}                                                               \
		} while (!__atomic_compare_exchange(p, &old, &nv, 0, __ATOMIC_RELAXED,  \
						    __ATOMIC_RELAXED));                 \
		return old;                                                             \
	}
SIMT_ATOMIC_DEF_(i32, int, nv = old | v, nv = old ^ v)
SIMT_ATOMIC_DEF_(u32, unsigned int, nv = old | v, nv = old ^ v)
SIMT_ATOMIC_DEF_(i64, long long, nv = old | v, nv = old ^ v)
SIMT_ATOMIC_DEF_(u64, unsigned long long, nv = old | v, nv = old ^ v)
SIMT_ATOMIC_DEF_(f32, float, (void)0, (void)0)
SIMT_ATOMIC_DEF_(f64, double, (void)0, (void)0)
#undef SIMT_ATOMIC_DEF_

#define SIMT_ATOMIC_(a, i, k, v, c)                                                     \
	_Generic((a)[0], int: simt_atomic_i32, unsigned int: simt_atomic_u32,          \
		 long long: simt_atomic_i64, unsigned long long: simt_atomic_u64,       \
		 float: simt_atomic_f32, double: simt_atomic_f64)(simt_t_, &(a)[i], k, (v), (c), \
								     __LINE__)
#define ATOMIC_ADD(a, i, v) SIMT_ATOMIC_(a, i, SIMT_AT_ADD, v, 0)
#define ATOMIC_MIN(a, i, v) SIMT_ATOMIC_(a, i, SIMT_AT_MIN, v, 0)
#define ATOMIC_MAX(a, i, v) SIMT_ATOMIC_(a, i, SIMT_AT_MAX, v, 0)
#define ATOMIC_EXCH(a, i, v) SIMT_ATOMIC_(a, i, SIMT_AT_EXCH, v, 0)
#define ATOMIC_OR(a, i, v) SIMT_ATOMIC_(a, i, SIMT_AT_OR, v, 0)
#define ATOMIC_XOR(a, i, v) SIMT_ATOMIC_(a, i, SIMT_AT_XOR, v, 0)
#define ATOMIC_CAS(a, i, c, v) SIMT_ATOMIC_(a, i, SIMT_AT_CAS, v, c)

/* RED_ADD: recorded as the atomic it is (the same timing as ATOMIC_ADD),
 * its addition logged and applied in thread order when the CTA ends
 * (src/simt/simt_red.h). Float and double only: integer adds are exact in
 * any order, so ATOMIC_ADD serves them. */
void simt_red_add(struct simt_thread *t, void *p, double v, int is_double, uint32_t site);
static inline void simt_red_f32(struct simt_thread *t, float *p, float v, uint32_t site)
{
	simt_red_add(t, p, v, 0, site);
}
static inline void simt_red_f64(struct simt_thread *t, double *p, double v, uint32_t site)
{
	simt_red_add(t, p, v, 1, site);
}
#define RED_ADD(a, i, v)                                                               \
	_Generic((a)[0], float: simt_red_f32, double: simt_red_f64)(simt_t_, &(a)[i], (v), \
								     __LINE__)

/* ST_ORDERED: recorded as the store it is, its bytes logged and written
 * in thread order when the CTA ends (simt_red.h): of several threads'
 * stores to one element, the highest thread id's is left. 4- and 8-byte
 * elements. */
void simt_st_ordered(struct simt_thread *t, void *p, uint32_t bytes, uint64_t bits, uint32_t site);
#define ST_ORDERED(a, i, v)                                                            \
	__extension__({                                                                \
		__typeof__((a)[i]) simt_so_v_ = (v);                                   \
		_Static_assert(sizeof simt_so_v_ == 4 || sizeof simt_so_v_ == 8,      \
			       "ST_ORDERED: 4- or 8-byte elements");                   \
		uint64_t simt_so_b_ = 0;                                               \
		memcpy(&simt_so_b_, &simt_so_v_, sizeof simt_so_v_);                   \
		simt_st_ordered(simt_t_, (void *)&(a)[i], sizeof simt_so_v_, simt_so_b_,  \
				__LINE__);                                             \
	})

#define COMPUTE(n) ((void)(simt_t_->compute += (uint32_t)(n)))
#define COMPUTE_CHAIN(n, cls)                                                          \
	((void)(simt_t_->compute += (uint32_t)(n), simt_t_->chain += (uint32_t)(n),     \
		simt_t_->chain_class = (uint8_t)(cls)))
#define SLD(a, i) (simt_shared_access(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__), (a)[i])
#define SST(a, i, v)                                                                   \
	__extension__({                                                                \
		__typeof__((a)[i]) simt_st_v_ = (v);                                   \
		simt_shared_access(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_STORE, __LINE__); \
		(a)[i] = simt_st_v_;                                                   \
	})
#define LDCG(a, i)                                                                     \
	(simt_access_cached(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__,          \
			    GPUVM_CACHE_GLOBAL), (a)[i])
#define LDCA(a, i)                                                                     \
	(simt_access_cached(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__,          \
			    GPUVM_CACHE_ALL), (a)[i])
/* A load whose address does not come from the loads issued since the last
 * COMPUTE or store, and whose value is not needed before the next one: the
 * compiled kernel issues such loads back to back (2DCONV's 3 x 3 window),
 * where LD waits for the load before it (the implicit chain, docs/timing.md
 * "Dependencies"). Only for loads that are independent in the source. */
#define LD_INDEP(a, i)                                                                 \
	(simt_access_cached(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__,          \
			    GPUVM_CACHE_DEFAULT | SIMT_CACHE_INDEP), (a)[i])
/* LD_INDEP when c is true, LD otherwise: a kernel that keeps the chained
 * issue reachable by a workload parameter (sssp's and bfs's loads=). */
#define LD_INDEP_IF(c, a, i)                                                           \
	(simt_access_cached(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__,          \
			    GPUVM_CACHE_DEFAULT | ((c) ? SIMT_CACHE_INDEP : 0u)), (a)[i])
/* LD_INDEP through the L2 only (__ldcg) */
#define LDCG_INDEP(a, i)                                                               \
	(simt_access_cached(simt_t_, &(a)[i], sizeof((a)[i]), SIMT_LOAD, __LINE__,          \
			    GPUVM_CACHE_GLOBAL | SIMT_CACHE_INDEP), (a)[i])
#define SHARED(type, name, n)                                                           \
	type *name = (type *)simt_shared(simt_t_, sizeof(type) * (size_t)(n), _Alignof(type))
#define SYNCTHREADS() simt_barrier(simt_t_, __LINE__)
#define SIMT_RESERVE(n) simt_reserve(simt_t_, (uint32_t)(n))

/* ----------------------------------------------------------- host side
 * A host program is a plain sequential function run as a coroutine: each
 * allocation, copy and launch below is handed to the engine as one run
 * operation, and the call returns when the engine asks for the next one
 * (so a launch returns after the kernel has run, and the program may read
 * its results). Calls return -1 / NULL once the run is being torn down
 * or on error; the program must then return -1 promptly. */
struct simt_host;
typedef int (*simt_host_fn)(struct simt_host *h, void *user);

/* Zeroed memory standing for a device / managed / pinned allocation:
 * kernels and the host program read and write it directly. */
void *simt_malloc(struct simt_host *h, const char *name, uint64_t bytes,
		  enum gpuvm_alloc_kind kind);
/* simt_malloc of memory the program filled itself: mem (from malloc, at
 * least `bytes` long) becomes the allocation, with its contents, and the
 * program owns it (simt_free, or freed with the program; freed here on
 * failure). An input built on the host then needs no second copy (a
 * graph's edge arrays: graph_input.c). NULL mem (the caller's malloc
 * failed) fails the program, as simt_malloc does when out of memory. */
void *simt_adopt(struct simt_host *h, const char *name, void *mem, uint64_t bytes,
		 enum gpuvm_alloc_kind kind);
int simt_free(struct simt_host *h, void *p);
/* cudaMemcpy of [p, p + bytes) inside a device allocation: the host has
 * written (upload) or will read (download) the data in place; this records
 * the transfer. Managed and pinned allocations are not copied (no-op). */
int simt_upload(struct simt_host *h, const void *p, uint64_t bytes);
int simt_download(struct simt_host *h, const void *p, uint64_t bytes);
/* cudaMemcpyAsync on the direction's copy stream followed, for event
 * 1..GPUVM_RUN_EVENTS-1, by cudaEventRecord(event); event 0 records none.
 * The copy runs on the link beside later kernels and the call returns at
 * once (in simulated time); the data must be in place (upload) when the
 * call is made, as with simt_upload. Device allocations only. */
int simt_upload_async(struct simt_host *h, const void *p, uint64_t bytes, unsigned event);
int simt_download_async(struct simt_host *h, const void *p, uint64_t bytes, unsigned event);
/* cudaStreamWaitEvent for the next launch: it starts no earlier than the
 * end of the event's last recorded copy. */
int simt_wait_event(struct simt_host *h, unsigned event);
/* When the event's last recorded copy ended, in simulated seconds, once
 * an operation has waited for it (the next launch); -1 before. */
double simt_event_seconds(struct simt_host *h, unsigned event);
/* cudaSetDevice: the GPU later allocations, launches and
 * synchronisations are for (0 at the start). Copies run on the GPU of
 * their device allocation. A kernel reaches the device memory of its own
 * GPU, and of the GPUs simt_enable_peer_access enabled for its GPU; an
 * access to another GPU's device memory stops the run naming the
 * allocation and both GPUs. A run whose program uses a GPU past 0 needs a
 * system of several (gpuvm sim --system). */
int simt_set_device(struct simt_host *h, unsigned device);
unsigned simt_get_device(struct simt_host *h);
/* cudaDeviceEnablePeerAccess(peer_device, 0) for the current GPU: its
 * later kernels load and store peer_device's device allocations in place,
 * each sector over the NVLink / NVSwitch route between the two GPUs (no
 * fault, no migration; docs/systems.md "Peer access"). One direction, as
 * CUDA's. -1 with a message when peer_device is the current GPU, out of
 * range or already enabled; the engine refuses a pair that no NVLink or
 * NVSwitch joins (peer access over PCIe is not modelled). */
int simt_enable_peer_access(struct simt_host *h, unsigned peer_device);
/* cudaMemcpyPeer / cudaMemcpyPeerAsync of bytes from src (a device
 * allocation of one GPU) to dst (of another, or the same): the data moves
 * at the call; the engine times it over the NVLink between the two GPUs,
 * or staged through host memory where none joins them
 * (src/system/multi_gpu.c). The synchronous one returns when it is done;
 * both are ordered after the work before them on both GPUs. */
int simt_memcpy_peer(struct simt_host *h, void *dst, const void *src, uint64_t bytes);
int simt_memcpy_peer_async(struct simt_host *h, void *dst, const void *src, uint64_t bytes);
/* cudaMemPrefetchAsync(p, bytes, device) of managed memory: its pages
 * move to GPU device (a GPU of the system; the stream is that GPU's), or
 * to the CPU with SIMT_CPU_DEVICE (the stream is the current GPU's),
 * without far faults: from the host over the GPU's host link, or from the
 * GPU holding them over the GPUs' link (src/system/multi_gpu.c). The host
 * goes on at once; the GPU's next kernel, copy or synchronisation waits
 * for it. Managed allocations only. */
#define SIMT_CPU_DEVICE (-1) /* cudaCpuDeviceId */
int simt_prefetch(struct simt_host *h, const void *p, uint64_t bytes, int device);
/* cudaMemAdvise(p, bytes, advice, device) of managed memory; advice
 * SIMT_ADVISE_ACCESSED_BY (below) or SIMT_ADVISE_READ_MOSTLY (cudaMemAdviseSetReadMostly; device unused):
 * on a system of several GPUs each GPU reading a page gets a copy of its
 * own and the others keep theirs; a write collapses the page to the
 * writer (docs/systems.md "Managed memory on several GPUs"). On one GPU
 * it changes only what a CPU read does (simt_host_access: it duplicates). */
#define SIMT_ADVISE_READ_MOSTLY 1
/* SIMT_ADVISE_ACCESSED_BY (cudaMemAdviseSetAccessedBy(device)): GPU
 * device keeps a mapping of the range and reads and writes a page where
 * it is (another GPU's memory over the GPUs' link, the host's over its
 * host link) instead of faulting it in. Several GPUs only (on one GPU:
 * the preset's uvm.accessed_by). */
#define SIMT_ADVISE_ACCESSED_BY 2
/* SIMT_ADVISE_PREFERRED_LOCATION (cudaMemAdviseSetPreferredLocation(device),
 * a GPU or SIMT_CPU_DEVICE): the pages live on device; a fault from
 * another processor that can reach device's memory (the CPU's always, a
 * GPU's over an NVLink / NVSwitch route) moves the page there if it is
 * elsewhere and maps it remotely instead of migrating it to the faulting
 * GPU (docs/systems.md "Managed memory on several GPUs"). On one GPU, a
 * GPU as the location changes nothing; the CPU is refused (the preset's
 * uvm.preferred_location = host). */
#define SIMT_ADVISE_PREFERRED_LOCATION 3
int simt_mem_advise(struct simt_host *h, const void *p, uint64_t bytes, int advice, int device);
/* A CPU phase of the program reads (SIMT_HOST_READ) or updates
 * (SIMT_HOST_WRITE, or both) bytes of managed memory at p between
 * kernels, as a host loop over a cudaMallocManaged array does: the pages
 * resident on a GPU take CPU faults and migrate back to CPU memory (the
 * GPU's next kernel far-faults them again); a read of a read-mostly page
 * duplicates it instead (the GPU keeps its copy). The host waits; its own
 * compute is not timed (docs/systems.md "CPU phases"). The program reads
 * or writes the buffer itself as it likes: this tells the model. Device
 * memory (cudaMalloc) is refused, naming the allocation. */
#define SIMT_HOST_READ 1u
#define SIMT_HOST_WRITE 2u
int simt_host_access(struct simt_host *h, const void *p, uint64_t bytes, unsigned how);
/* cudaDeviceSynchronize: the host waits for the GPU. What it does to
 * managed pages is the model's (uvm.device_sync); records it. */
int simt_device_sync(struct simt_host *h); /* the current GPU (simt_set_device) */
int simt_launch(struct simt_host *h, const char *name, simt_body_fn body, struct simt_dim3 grid,
		struct simt_dim3 block, const void *args, size_t args_bytes);
#define SIMT_LAUNCH(h, kern, grid, block, args)                                        \
	simt_launch_flags((h), #kern, (kern), (grid), (block), 0, kern##_simt_flags_, &(args), \
			  sizeof(args))
/* A launch whose kernel declares shared_bytes of SHARED arrays per block
 * (CUDA's static __shared__ size): the engine places no more blocks on an
 * SM than its shared memory holds (smem.size), and a kernel allocating
 * more than it declared fails. SIMT_LAUNCH declares none. */
int simt_launch_shared(struct simt_host *h, const char *name, simt_body_fn body,
		       struct simt_dim3 grid, struct simt_dim3 block, uint32_t shared_bytes,
		       const void *args, size_t args_bytes);
#define SIMT_LAUNCH_SHARED(h, kern, grid, block, shared_bytes, args)                   \
	simt_launch_flags((h), #kern, (kern), (grid), (block), (shared_bytes),           \
			  kern##_simt_flags_, &(args), sizeof(args))
/* cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
 * percent) for the next launch only: the engine rounds it up to the part's
 * next shared-memory carve-out (a part without carve-outs ignores it), so
 * that with the launch's declared shared bytes it caps the CTAs resident
 * per SM as on the hardware. percent 0-100. */
void simt_prefer_carveout(struct simt_host *h, unsigned percent);
/* simt_launch_shared with enum simt_launch_flags (SIMT_LAUNCH and
 * SIMT_LAUNCH_SHARED pass the kernel's declared ones). */
int simt_launch_flags(struct simt_host *h, const char *name, simt_body_fn body,
		      struct simt_dim3 grid, struct simt_dim3 block, uint32_t shared_bytes,
		      unsigned flags, const void *args, size_t args_bytes);
static inline struct simt_dim3 simt_dim3(uint32_t x, uint32_t y, uint32_t z)
{
	struct simt_dim3 d = {x, y, z};
	return d;
}
/* Functional result line for the report ("checksum=... verify=pass"). */
void simt_result(struct simt_host *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void simt_work_items(struct simt_host *h, uint64_t items);
/* Simulated seconds from the start of the run to the end of the last
 * operation (allocation, copy or launch) the program handed over. */
double simt_now_seconds(struct simt_host *h);
/* Fails the run with a message (origin: the workload); returns -1. */
int simt_fail(struct simt_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Wraps a host program as a run source. user_free(user) runs at destroy. */
int simt_program_source(const char *name, simt_host_fn fn, void *user, void (*user_free)(void *),
			struct gpuvm_source *out, struct gpuvm_error *err);

#endif /* __CUDACC__ */
#endif
