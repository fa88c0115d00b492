/* S-L1: a level-1 cache implemented in software in shared memory
 * (Mokhtari's thesis, seeds/001, chapter 5), as an accessor for SIMT
 * kernel bodies. It compiles as C (run on the SIMT executor: every
 * instruction it adds is a COMPUTE hint, every shared-memory and global
 * access it makes is a timed access) and as CUDA (plain code).
 *
 * Design, as chapter 5.2 describes it:
 *   - private cache segments: each thread owns CLN lines of the CTA's
 *     shared memory (line s of thread t at (s * blockDim + t) * 16);
 *   - 16-byte lines (5.2.1: the widest load/store, one access per fill),
 *     direct mapped, one line per cached data structure (5.2.1: "a
 *     separate cache line is assigned to each");
 *   - selective caching decided at run time by a monitoring phase
 *     (5.2.2, Fig. 5.8): for its first SL1_MONITOR_ACCESSES accesses a
 *     thread accesses memory directly and simulates one line per data
 *     structure, counting hits; then (calculateWhatToCache) the data
 *     structures with a hit rate above 50 % are ranked, read-only first
 *     (a read-write one wins only with twice the hits), and the top CLN
 *     get a line; atomically accessed data structures are never cached;
 *   - accessThroughCache (Fig. 5.9): not cached -> the memory address;
 *     cached -> tag check, on a miss write back the dirty bytes (a byte
 *     bitmap in a register, so threads caching one line never overwrite
 *     each other's bytes) and load the 16-byte line; the access is then
 *     served from the shared-memory line;
 *   - sl1_flush at the end of the kernel (5.2.2) writes dirty lines back.
 *
 * CLN (5.2.1) = (shared memory per SM left by the application / threads
 * per SM) / 16, computed by the host (sl1_cln()) and passed in
 * struct sl1_cfg; the launch declares CLN x 16 x blockDim bytes more
 * shared memory, which limits resident CTAs as any shared memory does.
 *
 * Usage in a kernel body (the type is spelled out so C and CUDA agree):
 *   struct sl1 c;
 *   SL1_SHARED_INIT(c, p.sl1, 2);              // 2 data structures
 *   sl1_declare(&c, 0, SL1_RO);  sl1_declare(&c, 1, SL1_RW);
 *   char ch = SL1_LOAD(c, 0, char, p.in, i);
 *   SL1_STORE(c, 1, char, p.out, i, ch);
 *   sl1_flush(SIMT_PASS_ &c);
 * With cfg.enabled = 0 the accessors are plain LD / ST (the baseline
 * kernels, run with the hardware L1 on or off). */
#ifndef GPUVM_SL1_H
#define GPUVM_SL1_H

#include <string.h>

#include "gpuvm/simt.h"

/* 5.2.1: "the cache-line size is, at 16B". */
#define SL1_LINE 16
/* Table 5.1: the applications use at most 4 data structures in their
 * main loop. */
#define SL1_MAX_DS 4
/* 5.2.2: "This pre-defined threshold is set to 300 in our current
 * implementation" (simulateCache calls per thread). */
#define SL1_MONITOR_ACCESSES 300

/* Instruction costs, in warp instructions per access, of the code
 * S-L1 inserts (our count of what Figs. 5.8 / 5.9 compile to; the
 * memory instructions they make are timed accesses on top):
 *   NOT_CACHED 4: 5.2.3, "the execution of four extra machine
 *     instructions" (load the data-structure id register, compare,
 *     branch, return the address);
 *   MONITOR 6: Fig. 5.8 (shift, compare, branch, add or move) plus the
 *     monitoring slice's counter (add, compare-and-branch);
 *   HIT 9: the 4 above, then alreadyCached (shift, compare, branch) and
 *     the in-line address (and, add);
 *   STORE_EXTRA 2: the write bitmap (shift, or), read-write lines only;
 *   MISS 8: beyond HIT: dirty test and branch, line address, tag and
 *     bitmap update, shared-slot address;
 *   WRITEBACK 4 per store instruction it issues (address, mask test,
 *     extract, branch);
 *   DECIDE 6 per data structure: calculateWhatToCache's compare-and-rank
 *     ("negligible", 5.2.3). */
#define SL1_COST_NOT_CACHED 4
#define SL1_COST_MONITOR 6
#define SL1_COST_HIT 9
#define SL1_COST_STORE_EXTRA 2
#define SL1_COST_MISS 8
#define SL1_COST_WRITEBACK 4
#define SL1_COST_DECIDE 6

/* Data-structure kinds (5.2.2, 5.2.4). */
#define SL1_RO 1     /* read only in the kernel */
#define SL1_RW 2     /* written: lines keep a dirty-byte bitmap */
#define SL1_ATOMIC 4 /* accessed by atomics: never cached (5.2.4) */

/* Totals over all threads (the simulator's instrumentation, not part of
 * the simulated kernel: updated directly, not through accessors; NULL
 * in CUDA builds). */
struct sl1_stats {
	unsigned long long hits, misses;  /* accesses to cached data structures */
	unsigned long long uncached;      /* accesses after monitoring, not cached */
	unsigned long long monitored;     /* accesses during the monitoring phase */
	unsigned long long writeback_bytes, fills;
	unsigned long long threads_caching; /* threads that cached >= 1 data structure */
	unsigned long long ds_cached[SL1_MAX_DS]; /* threads that cached data structure d */
};

/* What the host passes in the kernel's arguments. */
struct sl1_cfg {
	int enabled;            /* 0: SL1_LOAD / SL1_STORE are plain LD / ST */
	int cln;                /* cache lines per thread (5.2.1's CLN) */
	struct sl1_stats *stats;
};

/* One thread's S-L1 state: in the thesis's registers (5.2.3), here in
 * the thread's locals. */
struct sl1 {
	int enabled, cln, nds, monitoring;
	unsigned monitored;
	unsigned char *lines;                       /* this CTA's S-L1 segment */
	unsigned tid, block;
	unsigned char kind[SL1_MAX_DS];
	signed char slot[SL1_MAX_DS];               /* cache line, -1: not cached */
	unsigned short dirty[SL1_MAX_DS];           /* dirty-byte bitmap */
	unsigned long long tag[SL1_MAX_DS];         /* line address + 1, 0: empty */
	unsigned long long mon_tag[SL1_MAX_DS];     /* Fig. 5.8's simulated line */
	unsigned mon_hits[SL1_MAX_DS], mon_acc[SL1_MAX_DS];
	unsigned long long hits, misses, uncached, mon, wb_bytes, fills;
	struct sl1_stats *stats;
};

#define SL1_TID_                                                                         \
	(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))
#define SL1_BLOCK_ (blockDim.x * blockDim.y * blockDim.z)
#ifdef __CUDACC__
#define SL1_REC_G(p, n, op) ((void)0)
#define SL1_REC_S(p, n, op) ((void)0)
#define SL1_COST(n) ((void)0)
#define SL1_SHARED_INIT(c, cfg, nds)                                                          \
	extern __shared__ unsigned char sl1_segment_[];                                      \
	sl1_init(&(c), (cfg), (nds), sl1_segment_, SL1_TID_, SL1_BLOCK_)
#else
#define SL1_REC_G(p, n, op) simt_access(simt_t_, (p), (n), (op), __LINE__)
#define SL1_REC_S(p, n, op) simt_shared_access(simt_t_, (p), (n), (op), __LINE__)
#define SL1_COST(n) COMPUTE(n)
/* The segment is the last SHARED array of the kernel (the application's
 * own come first, as its static __shared__ arrays do). */
#define SL1_SHARED_INIT(c, cfg, nds)                                                          \
	sl1_init(&(c), (cfg), (nds),                                                         \
		 (cfg).enabled && (cfg).cln > 0                                              \
			 ? (unsigned char *)simt_shared(simt_t_,                             \
							(size_t)(cfg).cln * SL1_LINE * SL1_BLOCK_, \
							SL1_LINE)                            \
			 : (unsigned char *)0,                                               \
		 SL1_TID_, SL1_BLOCK_)
#endif

/* The thread's state before its first access (no instructions: the
 * registers' initial values). */
#ifdef __CUDACC__
__device__
#endif
static inline void sl1_init(struct sl1 *c, struct sl1_cfg cfg, int nds, unsigned char *segment,
			    unsigned tid, unsigned block)
{
	memset(c, 0, sizeof *c);
	c->enabled = cfg.enabled;
	c->cln = cfg.cln < 0 ? 0 : cfg.cln;
	c->nds = nds > SL1_MAX_DS ? SL1_MAX_DS : nds;
	c->monitoring = 1;
	c->lines = segment;
	c->stats = cfg.stats;
	c->tid = tid;
	c->block = block;
	if (!segment)
		c->cln = 0;
	for (int d = 0; d < SL1_MAX_DS; d++)
		c->slot[d] = -1;
}

#ifdef __CUDACC__
__device__
#endif
static inline void sl1_declare(struct sl1 *c, int ds, int kind)
{
	if (ds >= 0 && ds < SL1_MAX_DS)
		c->kind[ds] = (unsigned char)kind;
}

/* calculateWhatToCache (5.2.2): hit rate above 50 %, read-only first (a
 * read-write structure ranks with half its hits), top CLN. */
SIMT_DEVFN void sl1_decide(SIMT_CTX_ struct sl1 *c)
{
	int taken = 0;
	SL1_COST(SL1_COST_DECIDE * c->nds);
	c->monitoring = 0;
	while (taken < c->cln) {
		int best = -1;
		double best_score = 0;
		for (int d = 0; d < c->nds; d++) {
			if (c->slot[d] >= 0 || (c->kind[d] & SL1_ATOMIC) || !c->mon_acc[d])
				continue;
			if (2 * c->mon_hits[d] <= c->mon_acc[d]) /* "a cache hit rate above 50%" */
				continue;
			double score = (c->kind[d] & SL1_RW) ? c->mon_hits[d] / 2.0 : c->mon_hits[d];
			if (score > best_score) {
				best_score = score;
				best = d;
			}
		}
		if (best < 0)
			break;
		c->slot[best] = (signed char)taken++;
	}
}

/* The line of slot s of this thread inside the CTA's segment. */
#ifdef __CUDACC__
__device__
#endif
static inline unsigned char *sl1_line(const struct sl1 *c, int s)
{
	return c->lines + ((size_t)s * c->block + c->tid) * SL1_LINE;
}

/* Writes back the dirty bytes of data structure d's line: one 16-byte
 * store when all are dirty, else a 4-byte store per dirty word and a
 * byte store per dirty byte of a partly dirty word (the bitmap of 5.2.2). */
SIMT_DEVFN void sl1_writeback(SIMT_CTX_ struct sl1 *c, int d)
{
	unsigned short m = c->dirty[d];
	if (!m || !c->tag[d])
		return;
	unsigned char *line = sl1_line(c, c->slot[d]);
	unsigned char *mem = (unsigned char *)(size_t)((c->tag[d] - 1) * SL1_LINE);
	SL1_REC_S(line, SL1_LINE, SIMT_LOAD); /* read the line out of shared memory */
	if (m == 0xffff) {
		SL1_COST(SL1_COST_WRITEBACK);
		SL1_REC_G(mem, SL1_LINE, SIMT_STORE);
		memcpy(mem, line, SL1_LINE);
		c->wb_bytes += SL1_LINE;
	} else {
		for (int w = 0; w < SL1_LINE / 4; w++) {
			unsigned wm = (m >> (4 * w)) & 15u;
			if (!wm)
				continue;
			if (wm == 15u) {
				SL1_COST(SL1_COST_WRITEBACK);
				SL1_REC_G(mem + 4 * w, 4, SIMT_STORE);
				memcpy(mem + 4 * w, line + 4 * w, 4);
				c->wb_bytes += 4;
				continue;
			}
			for (int b = 0; b < 4; b++)
				if (wm >> b & 1u) {
					SL1_COST(SL1_COST_WRITEBACK);
					SL1_REC_G(mem + 4 * w + b, 1, SIMT_STORE);
					mem[4 * w + b] = line[4 * w + b];
					c->wb_bytes += 1;
				}
		}
	}
	c->dirty[d] = 0;
}

/* accessThroughCache (Fig. 5.9), and the monitoring slice (Fig. 5.8)
 * before it: returns where the caller reads or writes `bytes`. The
 * access may not cross a 16-byte line (natural alignment of 1-16 B). */
SIMT_DEVFN void *sl1_access(SIMT_CTX_ struct sl1 *c, int d, void *addr, unsigned bytes, int store)
{
	unsigned long long a = (unsigned long long)(size_t)addr;
	unsigned long long line = a / SL1_LINE;
	if (!c->enabled) { /* the baseline kernel: a plain LD / ST */
		SL1_REC_G(addr, bytes, store ? SIMT_STORE : SIMT_LOAD);
		return addr;
	}
	if (c->monitoring) {
		SL1_COST(SL1_COST_MONITOR);
		SL1_REC_G(addr, bytes, store ? SIMT_STORE : SIMT_LOAD);
		c->mon++;
		if (d >= 0 && d < c->nds) {
			c->mon_acc[d]++;
			if (c->mon_tag[d] == line + 1)
				c->mon_hits[d]++;
			else
				c->mon_tag[d] = line + 1;
		}
		if (++c->monitored >= SL1_MONITOR_ACCESSES)
			sl1_decide(SIMT_PASS_ c);
		return addr;
	}
	if (d < 0 || d >= c->nds || c->slot[d] < 0 || (a % SL1_LINE) + bytes > SL1_LINE) {
		SL1_COST(SL1_COST_NOT_CACHED);
		SL1_REC_G(addr, bytes, store ? SIMT_STORE : SIMT_LOAD);
		c->uncached++;
		return addr;
	}
	unsigned char *l = sl1_line(c, c->slot[d]);
	SL1_COST(SL1_COST_HIT + (store ? SL1_COST_STORE_EXTRA : 0));
	if (c->tag[d] != line + 1) {
		SL1_COST(SL1_COST_MISS);
		sl1_writeback(SIMT_PASS_ c, d);
		unsigned char *src = (unsigned char *)(size_t)(line * SL1_LINE);
		SL1_REC_G(src, SL1_LINE, SIMT_LOAD); /* one 16 B load (5.2.1) */
		SL1_REC_S(l, SL1_LINE, SIMT_STORE);
		memcpy(l, src, SL1_LINE);
		c->tag[d] = line + 1;
		c->misses++;
		c->fills++;
	} else {
		c->hits++;
	}
	unsigned off = (unsigned)(a % SL1_LINE);
	SL1_REC_S(l + off, bytes, store ? SIMT_STORE : SIMT_LOAD);
	if (store)
		c->dirty[d] |= (unsigned short)(((1u << bytes) - 1u) << off);
	return l + off;
}

/* flush() (5.2.2, 5.2.4): dirty lines back to memory, lines invalidated;
 * then the thread's counts go to the host's totals. */
SIMT_DEVFN void sl1_flush(SIMT_CTX_ struct sl1 *c)
{
	for (int d = 0; d < c->nds; d++) {
		if (c->slot[d] < 0)
			continue;
		sl1_writeback(SIMT_PASS_ c, d);
		c->tag[d] = 0;
	}
#ifndef __CUDACC__
	int any = 0;
	for (int d = 0; d < c->nds; d++)
		any |= c->slot[d] >= 0;
	struct sl1_stats *s = c->stats;
	if (s) {
		s->hits += c->hits;
		s->misses += c->misses;
		s->uncached += c->uncached;
		s->monitored += c->mon;
		s->writeback_bytes += c->wb_bytes;
		s->fills += c->fills;
		s->threads_caching += (unsigned long long)any;
		for (int d = 0; d < c->nds; d++)
			s->ds_cached[d] += c->slot[d] >= 0;
	}
#endif
	c->hits = c->misses = c->uncached = c->mon = c->wb_bytes = c->fills = 0;
}

/* A load or store of a[i] (of type T) through data structure d's line. A
 * store evaluates its value first, then makes its access (as simt.h's ST:
 * the value's own loads come before the store, and the two are not
 * unsequenced operands of one assignment). */
#define SL1_LOAD(c, d, T, a, i)                                                        \
	(*(const T *)sl1_access(SIMT_PASS_ & (c), (d), (void *)&(a)[i], sizeof(T), 0))
#define SL1_STORE(c, d, T, a, i, v)                                                    \
	__extension__({                                                                \
		T sl1_store_v_ = (T)(v);                                               \
		*(T *)sl1_access(SIMT_PASS_ & (c), (d), (void *)&(a)[i], sizeof(T), 1) =  \
			sl1_store_v_;                                                  \
	})

#endif
