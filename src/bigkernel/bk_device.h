/* BigKernel's GPU side (Mokhtari's thesis, seeds/001, chapter 4): the
 * types and device functions shared by the address-generation kernel
 * (bk_addrgen.h), the application kernels (bk_kernels.h) and the host
 * (bk_runtime.c, cuda/bigkernel.cu); C and CUDA:
 *
 *  - the mapped-data accessor BK_LD every application kernel reads its
 *    input through: in the original layout it loads the record's field
 *    from the chunk as transferred (single / double buffering, unified
 *    memory); in BigKernel's layout it loads the thread's next prefetched
 *    element from the data buffer, interleaved so that the lanes of a warp
 *    read adjacent data (Fig. 4.8: dataBuf[counter++][tid], in 16-byte
 *    pieces as the reference code lays it out: bk_piece_slot); with
 *    S-L1 on (Fig. 5.14: BigKernel combined with S-L1, 5.3.3) BK_LD reads
 *    through the thread's S-L1 state instead (include/gpuvm/sl1.h);
 *  - the record templates stage 1 generates addresses from, and the
 *    pattern detector of 4.3.1 with the format of what it sends;
 *  - the record layouts of the applications. */
#ifndef GPUVM_BK_DEVICE_H
#define GPUVM_BK_DEVICE_H

#include "gpuvm/simt.h"
#include "gpuvm/sl1.h"

enum bk_layout {
	BK_ORIGINAL = 0,    /* the chunk's bytes as they are in host memory */
	BK_INTERLEAVED = 1, /* BigKernel's data buffer (bk_piece_slot) */
	BK_COMPACT = 2,     /* only the data read, each thread's elements together
			     * (Fig. 4.12's volume reduction without interleaving) */
};

/* The mapped data as a kernel sees it. */
struct bk_map {
	const void *data;            /* the chunk (original) or the data buffer */
	unsigned long long threads;  /* threads of the launch (interleaving stride) */
	int layout;                  /* enum bk_layout */
	unsigned long long kmax;     /* compact: elements per thread */
	/* S-L1 (Fig. 5.14; enabled only with BK_INTERLEAVED): the cache's
	 * configuration, and the per-thread state kept from one chunk's launch
	 * to the next (bk_sl1_restore) */
	struct sl1_cfg sl1;
	unsigned long long *sl1_keep;
};

/* The chunk's records and their split over the launch's threads. */
struct bk_range {
	unsigned long long nrec, per; /* records in the chunk, per thread */
};

/* A thread's cursor into the mapped data: its id and the number of
 * mapped elements it has read (the counter of Fig. 4.8); with S-L1, the
 * thread's S-L1 state mapped reads go through (NULL: plain loads). */
struct bk_cur {
	unsigned long long tid, k;
	struct sl1 *s;
};

SIMT_DEVFN unsigned long long bk_tid(SIMT_CTX_ int dummy)
{
	(void)dummy;
	return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

/* BigKernel's data buffer is interleaved in 16-byte pieces, a warp's
 * lanes side by side (copyMethodPattern in the BigKernel pipeline of each
 * application's main.cu in rezafmk/BRB_HashTable, the thesis author's
 * code): element k of thread t (elem bytes each)
 * is element k mod (16 / elem) of piece k / (16 / elem) x threads + t.
 * A warp's lanes then read one 512-byte span, and a lane's next elements
 * come from the same piece (sectors fetched once serve 16 / elem loads).
 * Shared with the host's data assembly. */
#define BK_PIECE 16
#ifdef __CUDACC__
#define BK_HOST_DEVFN __host__ __device__ static inline
#else
#define BK_HOST_DEVFN static inline
#endif
BK_HOST_DEVFN unsigned long long bk_piece_slot(unsigned long long k, unsigned long long t,
					    unsigned long long threads, unsigned long long elem)
{
	unsigned long long per = BK_PIECE / elem;
	return (k / per * threads + t) * per + k % per;
}

/* Element index of a mapped read at byte offset `off` of the chunk. In
 * BigKernel's layout the offset is not used: the compiler drops the
 * address arithmetic of mapped reads from the computation (Fig. 4.8). */
SIMT_DEVFN unsigned long long bk_slot(SIMT_CTX_ const struct bk_map *m, struct bk_cur *c,
				      unsigned long long off, unsigned long long elem)
{
	unsigned long long i;
	if (m->layout == BK_ORIGINAL) {
		i = off / elem;
		COMPUTE(1); /* the address add */
	} else if (m->layout == BK_COMPACT) {
		i = c->tid * m->kmax + c->k;
		COMPUTE(2); /* multiply-add, counter increment */
	} else {
		/* dataBuf[counter++][tid] (Fig. 4.8): the piece index's
		 * multiply-add, the shift-and-mask of the piece split (one
		 * funnel instruction), the counter increment */
		i = bk_piece_slot(c->k, c->tid, m->threads, elem);
		COMPUTE(3);
	}
	c->k++;
	return i;
}

/* var = the thread's next mapped element, of type T (at byte offset off
 * of the chunk in the original layout). A statement, not a function, so
 * that the load sits at the kernel's own source line: the executor zips
 * a warp's lanes into instructions by source line (docs/simt.md), and a
 * load inside a shared helper would run ahead of the kernel's other
 * loads in divergent code. */
#define BK_LD(var, T, m, c, off)                                                         \
	do {                                                                             \
		unsigned long long bk_i_ = bk_slot(SIMT_PASS_ & (m), &(c), (off), sizeof(T)); \
		const T *bk_d_ = (const T *)(m).data;                                    \
		if ((c).s)                                                               \
			(var) = SL1_LOAD(*(c).s, 0, T, bk_d_, bk_i_);                    \
		else                                                                     \
			(var) = LD(bk_d_, bk_i_);                                        \
	} while (0)

/* A load (BK_SL1_LD) or store (BK_SL1_ST) of a[i] of an application's
 * GPU-resident data structure d through S-L1 when the thread has it on
 * (sp != NULL), else a plain access. */
#define BK_SL1_LD(var, sp, d, T, a, i)                                                   \
	do {                                                                             \
		if (sp)                                                                  \
			(var) = SL1_LOAD(*(sp), (d), T, (a), (i));                       \
		else                                                                     \
			(var) = LD((a), (i));                                            \
	} while (0)
#define BK_SL1_ST(sp, d, T, a, i, v)                                                     \
	do {                                                                             \
		if (sp)                                                                  \
			SL1_STORE(*(sp), (d), T, (a), (i), (v));                         \
		else                                                                     \
			ST((a), (i), (v));                                               \
	} while (0)

/* ---- S-L1 in the computation kernel (Fig. 5.14) --------------------- */

/* The thesis runs BigKernel as one persistent kernel, so a thread's S-L1
 * state (the monitoring counters, then the decision of what to cache:
 * registers, 5.2.3) lives from one chunk to the next and the 300-access
 * monitoring phase (5.2.2) runs once per thread. Here every chunk is a
 * launch, so the state is saved at a launch's end and restored at the
 * next one's start, in 3 words per thread (word j of thread t at
 * j x threads + t: coalesced) that the host zeroes before each pass:
 *   word 0: bit 63 saved, bit 62 monitoring, bits 0-15 accesses
 *           monitored, bits 16-47 slot + 1 of data structures 0-3;
 *   words 1, 2 (while monitoring): the monitored hits and accesses per
 *           data structure, 16 bits each.
 * The loads and stores are timed accesses; unpacking costs
 * BK_SL1_UNPACK_COST instructions (our count: a shift and mask per
 * field). Lines are not kept (the buffer holds another chunk's data). */
#define BK_SL1_KEEP_WORDS 3
#define BK_SL1_UNPACK_COST 4
#define BK_SL1_SAVED (1ull << 63)
#define BK_SL1_MONITORING (1ull << 62)

SIMT_DEVFN void bk_sl1_restore(SIMT_CTX_ struct sl1 *s, const struct bk_map *m, unsigned long long tid)
{
	if (!s->enabled || !m->sl1_keep)
		return;
	unsigned long long w0 = LD(m->sl1_keep, tid);
	if (!(w0 & BK_SL1_SAVED))
		return;
	COMPUTE(BK_SL1_UNPACK_COST);
	s->monitoring = (w0 & BK_SL1_MONITORING) != 0;
	s->monitored = (unsigned)(w0 & 0xffffu);
	for (int d = 0; d < SL1_MAX_DS; d++)
		s->slot[d] = (signed char)((int)(w0 >> (16 + 8 * d) & 0xffu) - 1);
	if (s->monitoring) {
		unsigned long long hw = LD(m->sl1_keep, m->threads + tid);
		unsigned long long aw = LD(m->sl1_keep, 2 * m->threads + tid);
		COMPUTE(BK_SL1_UNPACK_COST);
		for (int d = 0; d < SL1_MAX_DS; d++) {
			s->mon_hits[d] = (unsigned)(hw >> (16 * d) & 0xffffu);
			s->mon_acc[d] = (unsigned)(aw >> (16 * d) & 0xffffu);
		}
	}
}

/* The end of a chunk's computation: dirty lines written back (5.2.2's
 * flush), the state saved for the next chunk. */
SIMT_DEVFN void bk_sl1_end(SIMT_CTX_ struct sl1 *s, const struct bk_map *m, unsigned long long tid)
{
	if (!s->enabled)
		return;
	sl1_flush(SIMT_PASS_ s);
	if (!m->sl1_keep)
		return;
	unsigned long long w0 = BK_SL1_SAVED | (s->monitoring ? BK_SL1_MONITORING : 0) |
				(unsigned long long)(s->monitored & 0xffffu);
	for (int d = 0; d < SL1_MAX_DS; d++)
		w0 |= (unsigned long long)(unsigned)(s->slot[d] + 1) << (16 + 8 * d);
	COMPUTE(BK_SL1_UNPACK_COST);
	ST(m->sl1_keep, tid, w0);
	if (s->monitoring) {
		unsigned long long hw = 0, aw = 0;
		for (int d = 0; d < SL1_MAX_DS; d++) {
			hw |= (unsigned long long)(s->mon_hits[d] & 0xffffu) << (16 * d);
			aw |= (unsigned long long)(s->mon_acc[d] & 0xffffu) << (16 * d);
		}
		COMPUTE(BK_SL1_UNPACK_COST);
		ST(m->sl1_keep, m->threads + tid, hw);
		ST(m->sl1_keep, 2 * m->threads + tid, aw);
	}
}

/* A computation kernel's S-L1 prologue: the thread's state st over nds
 * data structures (the caller declares their kinds), c.s set when S-L1
 * is on, the state of the previous chunk restored. Data structure 0 is
 * the mapped data (read only). */
#define BK_SL1_BEGIN(st, c, m, nds)                                                      \
	struct sl1 st;                                                                   \
	SL1_SHARED_INIT(st, (m).sl1, (nds));                                             \
	sl1_declare(&(st), 0, SL1_RO);                                                   \
	(c).s = (m).sl1.enabled ? &(st) : 0;                                             \
	bk_sl1_restore(SIMT_PASS_ & (st), &(m), (c).tid)

/* ---- stage 1: address generation ------------------------------------ */

/* The mapped reads of one record, as the slice sees them: runs of
 * `run_n` elements of `elem` bytes from byte `run_off` of the record.
 *
 * What one address of stage 1 names (4.4.4: "depends on the granularity
 * of the data being accessed"): with addr_per_run 0, every element the
 * kernel reads, as the thesis says of K-means ("one address is sent for
 * each double variable") and Word Count ("one address has to be sent for
 * each required character"); with 1, a run, the field the CPU then copies
 * whole, as the author's own prediction threads do for Netflix and DNA
 * Assembly (rezafmk/BRB_HashTable @449bded, Netflix/main.cu and
 * DNAAssembly/main.cu: one ptr_t per record, `&data[i * RECORD_SIZE]`
 * and `&data[i * RECORD_SIZE + READLOCATION]`, expanded by the CPU's
 * copyMethodPattern into the record's bytes). The data buffer's layout
 * and the computation's reads are the same either way. */
#define BK_MAX_RUNS 4
struct bk_template {
	unsigned long long rec_bytes; /* 0: records are located by an index */
	unsigned int elem, nruns;
	unsigned int run_off[BK_MAX_RUNS], run_n[BK_MAX_RUNS];
	unsigned int addr_per_run;
};

/* Pattern recognition (4.3.1): the deltas between a thread's successive
 * addresses, run-length encoded into segments (stride, count); a pattern
 * is a cycle of at most BK_PAT_SEGS segments that every segment repeats,
 * or a stream of at most BK_PAT_SEGS segments in all. The detector keeps
 * the first 2 x BK_PAT_SEGS segments in registers (the thesis's "private
 * temporary address buffer" of a few tens of bytes). */
#define BK_PAT_SEGS 4
/* words per thread in the pattern buffer: count, base, period, then
 * (stride, count) per segment */
#define BK_PAT_WORDS (3 + 2 * BK_PAT_SEGS)
/* Word j of thread t in the pattern buffer: interleaved over the threads,
 * like the address buffer, so the 32 lanes' stores of one word are one
 * coalesced 256 B write over PCIe; per-thread blocks would scatter every
 * store instruction over 32 sectors, and zero-copy writes cost link time. */
#define BK_PAT_AT(j, threads, t) ((unsigned long long)(j) * (threads) + (t))
#define BK_PAT_FLAG (1ull << 63) /* in word 0: the thread sent a pattern */

struct bk_pat {
	unsigned long long base, last, n;
	long long stride[2 * BK_PAT_SEGS];
	unsigned long long count[2 * BK_PAT_SEGS];
	long long cur_stride;
	unsigned long long cur_count;
	int nclosed, period, failed;
};

SIMT_DEVFN void bk_pat_close(struct bk_pat *p)
{
	int i = p->nclosed++;
	if (p->period) {
		int j = i % p->period;
		if (p->stride[j] != p->cur_stride || p->count[j] != p->cur_count)
			p->failed = 1;
		return;
	}
	if (i >= 2 * BK_PAT_SEGS) {
		p->failed = 1;
		return;
	}
	p->stride[i] = p->cur_stride;
	p->count[i] = p->cur_count;
	/* a cycle of q segments once segments [q, 2q) repeat [0, q) */
	if ((i + 1) % 2 == 0) {
		int q = (i + 1) / 2, same = 1;
		for (int s = 0; s < q; s++)
			same &= p->stride[s] == p->stride[q + s] && p->count[s] == p->count[q + s];
		if (same)
			p->period = q;
	}
}

SIMT_DEVFN void bk_pat_push(struct bk_pat *p, unsigned long long a)
{
	if (p->n == 0) {
		p->base = a;
	} else {
		long long d = (long long)(a - p->last);
		if (p->cur_count && d == p->cur_stride) {
			p->cur_count++;
		} else {
			if (p->cur_count)
				bk_pat_close(p);
			p->cur_stride = d;
			p->cur_count = 1;
		}
	}
	p->last = a;
	p->n++;
}

/* After the last address: 1 if the stream is a pattern. The open
 * segment may be a cycle's partial last segment. */
SIMT_DEVFN int bk_pat_finish(struct bk_pat *p)
{
	if (p->failed)
		return 0;
	/* No delta at all (one address or none): no pattern. The thesis's
	 * pattern is "a base address and a number of strides between
	 * subsequent addresses" (4.3.1), so a stream of fewer than two
	 * addresses has none to find, and "if no pattern is found, then the
	 * addresses collected in the temporary buffer are copied to the
	 * CPU-side address buffer": the thread sends its address (and its
	 * count), 2 words, where a pattern would take 3 + 2 x period. */
	if (!p->cur_count)
		return 0;
	if (p->period) {
		int j = p->nclosed % p->period;
		return p->stride[j] == p->cur_stride && p->cur_count <= p->count[j];
	}
	if (p->nclosed + 1 > BK_PAT_SEGS)
		return 0;
	/* the literal segment list is the pattern (one cycle) */
	p->stride[p->nclosed] = p->cur_stride;
	p->count[p->nclosed] = p->cur_count;
	p->period = p->nclosed + 1;
	return 1;
}

struct bk_ag_args {
	struct bk_template tp;
	struct bk_range g;
	unsigned long long threads;
	unsigned long long chunk_base;        /* byte offset of record 0 of the chunk */
	const unsigned long long *index;      /* indexed records: byte offset of each */
	unsigned long long *addr;             /* host-pinned: [k x threads + t] */
	unsigned long long *pat;              /* host-pinned: [BK_PAT_AT(word, threads, t)] */
	int detect;                           /* pattern recognition on */
};

/* FNV-1a (Fowler, Noll, Vo) 64-bit offset basis and prime: the hash of
 * words and fragments. Record layouts of the applications (bk_kernels.h
 * describes each). */
#define BK_FNV_BASIS 0xcbf29ce484222325ull
#define BK_FNV_PRIME 0x100000001b3ull
#define BK_KM_K 8
#define BK_KM_DIMS 4
#define BK_KM_REC 64
#define BK_KM_CID_OFF 32 /* the cluster id's field */
#define BK_NF_REC 64
#define BK_NF_USERS 256
#define BK_WC_REC 64
#define BK_WC_KEY 16 /* a table slot's word: gen_text's are at most 12 letters (bigdata/gen.h) */
#define BK_DNA_REC 128
#define BK_DNA_READ_OFF 32
#define BK_DNA_BASES 46
#define BK_OF_REC 128
#define BK_OF_TEXT 94
enum { BK_OF_NONE = 0, BK_OF_SUBJECT, BK_OF_POS, BK_OF_NEG, BK_OF_ADVERB };
/* Opinion Finder's word sets, in dict_keys: the subject's keywords and the
 * thesis's three dictionaries (4.4) */
enum bk_of_dict { BK_OF_D_SUBJECT = 0, BK_OF_D_POS, BK_OF_D_NEG, BK_OF_D_ADVERB, BK_OF_DICTS };
#define BK_MCA_BLOCK 1024
#define BK_MCA_CUSTOMERS (1u << 20)
#define BK_MCA_MERCHANTS 4096u
#define BK_MCA_TARGET 0u /* merchant X: the most visited (Zipf rank 1) */

#endif
