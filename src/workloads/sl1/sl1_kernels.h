/* The S-L1 applications of Mokhtari's thesis (seeds/001, Table 5.1) as
 * SIMT kernel bodies (C and CUDA: cuda/sl1.cu). Every global access of
 * the main loops goes through SL1_LOAD / SL1_STORE (include/gpuvm/sl1.h):
 * with sl1.enabled = 0 they are plain LD / ST, the kernel the hardware
 * L1 (or no L1) runs; with 1 they are S-L1's accessThroughCache.
 *
 * The text applications give each thread one contiguous chunk of the
 * input (the thesis's Fig. 5.1: "The target data is partitioned into n
 * chunks with each chunk assigned to a thread"); a record (line) belongs
 * to the thread whose chunk holds its first byte.
 *
 * COMPUTE hints count the non-memory instructions of each loop body as
 * a compiler emits them (index update, compare-and-branch, address add,
 * the body's arithmetic); each is noted at its site. */
#ifndef GPUVM_SL1_KERNELS_H
#define GPUVM_SL1_KERNELS_H

#include "gpuvm/sl1.h"

#define SL1_GREP_MAX_PATTERN 16
#define SL1_KMEANS_DIMS 4 /* a point is one float4: one S-L1 line */

SIMT_DEVFN unsigned long long sl1_tid(SIMT_CTX_ int dummy)
{
	(void)dummy;
	return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

/* ---- upper: in -> out, lower case to upper case (2 data structures) */
struct sl1_upper_args {
	const char *in;
	char *out;
	unsigned long long n, chunk;
	struct sl1_cfg sl1;
};

SIMT_KERNEL(sl1_upper, struct sl1_upper_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 2);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RW);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	for (unsigned long long i = b; i < e; i++) {
		char ch = SL1_LOAD(c, 0, char, p.in, i);
		COMPUTE(6); /* i++, compare-branch, two range compares, subtract, select */
		SL1_STORE(c, 1, char, p.out, i, (char)(ch >= 'a' && ch <= 'z' ? ch - 32 : ch));
	}
	sl1_flush(SIMT_PASS_ & c);
}

/* ---- wc: words and lines of the thread's chunk (1 data structure in
 * the main loop; the two counts are stored once at the end) */
struct sl1_wc_args {
	const char *in;
	unsigned long long n, chunk;
	unsigned *words, *lines;
	struct sl1_cfg sl1;
	unsigned unroll; /* sl1=0: loads a group (the workload's unroll) */
};

/* The most loads of one unrolled group (the workload's unroll key). */
#define SL1_MAX_UNROLL 16u

SIMT_DEVFN int sl1_is_space(char ch)
{
	return ch == ' ' || ch == '\n' || ch == '\t';
}

SIMT_KERNEL(sl1_wc, struct sl1_wc_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 1);
	sl1_declare(&c, 0, SL1_RO);
	unsigned long long t = sl1_tid(SIMT_PASS_ 0);
	unsigned long long b = t * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	unsigned words = 0, lines = 0;
	int prev_space = 1;
	if (b > 0 && b < e)
		prev_space = sl1_is_space(SL1_LOAD(c, 0, char, p.in, b - 1));
	unsigned long long i = b;
	/* unroll > 1, plain loads only: the loop as nvcc -O3 compiles it when
	 * its trip count is known only at run time, unrolled with the group's
	 * loads independent of each other (its PTX of this loop: four
	 * ld.global.u8 an iteration), so they are in flight together and
	 * those of one 128 B line meet its fill in the L1. S-L1's accessor
	 * keeps its order: each access reads and may update the thread's
	 * lines in shared memory. */
	if (!p.sl1.enabled && p.unroll > 1) {
		for (; i + p.unroll <= e; i += p.unroll) {
			char q[SL1_MAX_UNROLL];
			for (unsigned k = 0; k < p.unroll; k++)
				q[k] = LD_INDEP(p.in, i + k);
			COMPUTE(2); /* i += unroll, compare-branch */
			for (unsigned k = 0; k < p.unroll; k++) {
				COMPUTE(5); /* 3 compares, 2 counter adds */
				int sp = sl1_is_space(q[k]);
				lines += q[k] == '\n';
				words += !sp && prev_space;
				prev_space = sp;
			}
		}
	}
	for (; i < e; i++) {
		char ch = SL1_LOAD(c, 0, char, p.in, i);
		COMPUTE(7); /* i++, compare-branch, 3 compares, 2 counter adds */
		int sp = sl1_is_space(ch);
		lines += ch == '\n';
		words += !sp && prev_space;
		prev_space = sp;
	}
	sl1_flush(SIMT_PASS_ & c);
	if (b < e) {
		ST(p.words, t, words);
		ST(p.lines, t, lines);
	}
}

/* ---- grep: flag the lines that match a pattern (literals, '.', 'x*';
 * Kernighan and Pike's recursive matcher). The text is in global memory,
 * the pattern in shared memory (Table 5.1: "2 (1 in shared memory)"). */
struct sl1_grep_args {
	const char *text;
	unsigned char *match; /* match[start of line] = 1 */
	unsigned long long n, chunk;
	char pattern[SL1_GREP_MAX_PATTERN + 1];
	int plen;
	struct sl1_cfg sl1;
};

SIMT_DEVFN int sl1_grep_here(SIMT_CTX_ struct sl1 *c, const char *re, int r,
			     const char *text, unsigned long long i);

SIMT_DEVFN int sl1_grep_star(SIMT_CTX_ struct sl1 *c, char ch, const char *re, int r,
			     const char *text, unsigned long long i)
{
	for (;;) {
		if (sl1_grep_here(SIMT_PASS_ c, re, r, text, i))
			return 1;
		char t = SL1_LOAD(*c, 0, char, text, i);
		COMPUTE(5); /* two compares, or, branch, i++ */
		if (t == '\n' || (t != ch && ch != '.'))
			return 0;
		i++;
	}
}

SIMT_DEVFN int sl1_grep_here(SIMT_CTX_ struct sl1 *c, const char *re, int r,
			     const char *text, unsigned long long i)
{
	char r0 = SLD(re, r);
	COMPUTE(3); /* end-of-pattern test, branch, next index */
	if (r0 == '\0')
		return 1;
	char r1 = SLD(re, r + 1);
	COMPUTE(2); /* '*' test, branch */
	if (r1 == '*')
		return sl1_grep_star(SIMT_PASS_ c, r0, re, r + 2, text, i);
	char t = SL1_LOAD(*c, 0, char, text, i);
	COMPUTE(5); /* newline test, two compares, or, branch */
	if (t != '\n' && (r0 == '.' || r0 == t))
		return sl1_grep_here(SIMT_PASS_ c, re, r + 1, text, i + 1);
	return 0;
}

SIMT_KERNEL(sl1_grep, struct sl1_grep_args, p)
{
	/* each thread writes the pattern (a kernel argument) into the
	 * block's shared copy itself: no barrier is needed, as every thread
	 * reads only what it wrote (all write the same bytes) */
	SHARED(char, pat, SL1_GREP_MAX_PATTERN + 2);
	for (int k = 0; k <= p.plen + 1; k++)
		SST(pat, k, k < p.plen ? p.pattern[k] : '\0');
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 2);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RW);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	unsigned long long s = b;
	if (b > 0 && b < e && SL1_LOAD(c, 0, char, p.text, b - 1) != '\n')
		while (s < p.n && SL1_LOAD(c, 0, char, p.text, s++) != '\n')
			COMPUTE(3); /* skip the line the previous thread owns */
	while (s < e) { /* a line starting at s */
		int hit = 0;
		unsigned long long i = s;
		for (;;) {
			COMPUTE(3); /* call, hit test, branch */
			if (sl1_grep_here(SIMT_PASS_ & c, pat, 0, p.text, i)) {
				hit = 1;
				break;
			}
			if (SL1_LOAD(c, 0, char, p.text, i) == '\n')
				break;
			i++;
		}
		if (hit)
			SL1_STORE(c, 1, unsigned char, p.match, s, 1);
		while (SL1_LOAD(c, 0, char, p.text, i) != '\n') { /* to the next line */
			COMPUTE(3);
			i++;
		}
		s = i + 1;
	}
	sl1_flush(SIMT_PASS_ & c);
}

/* ---- K-means: the assignment step (each point to its nearest centroid).
 * The block stages all SL1_KMEANS_K centroids in shared memory (Table
 * 5.1: "2 (1 in shared memory)"; 5.3.2: K-means "allocates much of the
 * shared memory for its own purposes"), the points (4 floats, one S-L1
 * line each) are read through S-L1 and the memberships written. */
#define SL1_KMEANS_K 256
struct sl1_f4 {
	float v[SL1_KMEANS_DIMS];
};
struct sl1_kmeans_args {
	const float *points;               /* n x SL1_KMEANS_DIMS */
	const struct sl1_f4 *centroids;    /* SL1_KMEANS_K */
	int *member;
	unsigned long long n, chunk;
	struct sl1_cfg sl1;
};

SIMT_KERNEL(sl1_kmeans, struct sl1_kmeans_args, p)
{
	SHARED(struct sl1_f4, cen, SL1_KMEANS_K);
	for (unsigned j = threadIdx.x; j < SL1_KMEANS_K; j += blockDim.x) {
		COMPUTE(3); /* j += blockDim, compare-branch, address */
		SST(cen, j, LD(p.centroids, j));
	}
	SYNCTHREADS();
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 2);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RW);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	for (unsigned long long i = b; i < e; i++) {
		float x[SL1_KMEANS_DIMS];
		for (int d = 0; d < SL1_KMEANS_DIMS; d++)
			x[d] = SL1_LOAD(c, 0, float, p.points, i * SL1_KMEANS_DIMS + d);
		int best = 0;
		float best_d = 0;
		for (int q = 0; q < SL1_KMEANS_K; q++) {
			struct sl1_f4 m = SLD(cen, q);
			float dist = 0;
			for (int d = 0; d < SL1_KMEANS_DIMS; d++)
				dist += (m.v[d] - x[d]) * (m.v[d] - x[d]);
			/* 4 FADD + 4 FFMA, compare, select, q++, branch */
			COMPUTE_CHAIN(2 * SL1_KMEANS_DIMS + 4, GPUVM_CLASS_FMA);
			if (q == 0 || dist < best_d) {
				best_d = dist;
				best = q;
			}
		}
		SL1_STORE(c, 1, int, p.member, i, best);
	}
	sl1_flush(SIMT_PASS_ & c);
}

/* ---- Page View Count: hits per URL of a web log (3 data structures:
 * the log, the URL table's keys, the counts, which atomics update and
 * S-L1 therefore never caches, 5.2.4) */
struct sl1_pvc_args {
	const char *log;
	const unsigned long long *keys; /* URL hash + 1 per slot, 0 = empty */
	unsigned *counts;
	unsigned long long n, chunk, slots; /* slots: a power of two */
	struct sl1_cfg sl1;
};

SIMT_KERNEL(sl1_pvc, struct sl1_pvc_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 3);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RO);
	sl1_declare(&c, 2, SL1_ATOMIC);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	unsigned long long s = b;
	if (b > 0 && b < e && SL1_LOAD(c, 0, char, p.log, b - 1) != '\n')
		while (s < p.n && SL1_LOAD(c, 0, char, p.log, s++) != '\n')
			COMPUTE(3);
	while (s < e) {
		/* the URL: the text between the first '/' and the next ' ' */
		unsigned long long i = s;
		while (SL1_LOAD(c, 0, char, p.log, i) != '/')
			i++, COMPUTE(3);
		unsigned long long h = 1469598103934665603ull; /* FNV-1a offset basis */
		for (char ch; (ch = SL1_LOAD(c, 0, char, p.log, i)) != ' '; i++) {
			COMPUTE(5); /* xor, 64-bit multiply (2), i++, compare-branch */
			h = (h ^ (unsigned char)ch) * 1099511628211ull; /* FNV-1a prime */
		}
		unsigned long long slot = h & (p.slots - 1);
		for (;;) {
			unsigned long long k = SL1_LOAD(c, 1, unsigned long long, p.keys, slot);
			COMPUTE(4); /* compare, branch, slot+1, mask */
			if (k == h + 1 || k == 0)
				break;
			slot = (slot + 1) & (p.slots - 1);
		}
		ATOMIC_ADD(p.counts, slot, 1u);
		while (SL1_LOAD(c, 0, char, p.log, i) != '\n')
			i++, COMPUTE(3);
		s = i + 1;
	}
	sl1_flush(SIMT_PASS_ & c);
}

/* ---- Matrix Multiply, naive (no shared memory): c = a x b, n x n
 * floats, one thread per element of c, 2-D blocks */
struct sl1_mm_args {
	const float *a, *b;
	float *c;
	int n;
	struct sl1_cfg sl1;
	unsigned unroll; /* sl1=0: k steps a group (the workload's unroll) */
};

SIMT_KERNEL(sl1_mm, struct sl1_mm_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 3);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RO);
	sl1_declare(&c, 2, SL1_RW);
	int row = (int)(blockIdx.y * blockDim.y + threadIdx.y);
	int col = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (row < p.n && col < p.n) {
		float sum = 0;
		int k = 0;
		/* unroll > 1, plain loads only: nvcc -O3's loop (its PTX of this
		 * loop: four k steps an iteration, their eight ld.global.f32 all
		 * independent, then the four fma in k order), so the group's
		 * loads are in flight together; the sum keeps its order */
		if (!p.sl1.enabled && p.unroll > 1) {
			for (; k + (int)p.unroll <= p.n; k += (int)p.unroll) {
				float x[SL1_MAX_UNROLL], y[SL1_MAX_UNROLL];
				for (unsigned u = 0; u < p.unroll; u++) {
					x[u] = LD_INDEP(p.a, (long long)row * p.n + k + (int)u);
					y[u] = LD_INDEP(p.b, (long long)(k + (int)u) * p.n + col);
				}
				COMPUTE(3); /* 2 address adds, k += unroll and branch */
				for (unsigned u = 0; u < p.unroll; u++) {
					COMPUTE_CHAIN(1, GPUVM_CLASS_FMA); /* FFMA */
					sum += x[u] * y[u];
				}
			}
		}
		for (; k < p.n; k++) {
			float x = SL1_LOAD(c, 0, float, p.a, (long long)row * p.n + k);
			float y = SL1_LOAD(c, 1, float, p.b, (long long)k * p.n + col);
			COMPUTE_CHAIN(4, GPUVM_CLASS_FMA); /* FFMA, 2 address adds, k++ and branch */
			sum += x * y;
		}
		SL1_STORE(c, 2, float, p.c, (long long)row * p.n + col, sum);
	}
	sl1_flush(SIMT_PASS_ & c);
}

/* ---- MasterCard Affinity: the merchants the customers of merchant X
 * visit (3 data structures: the transactions, the bitmap of X's
 * customers, the per-merchant counts; atomics update the last two, so
 * S-L1 never caches them, 5.2.4). Two kernels: mark X's customers, then
 * count every transaction of a marked customer. A transaction is two
 * words (customer, merchant). */
struct sl1_mca_args {
	const unsigned *txn; /* 2 x n words */
	unsigned *bitmap;    /* customers of X */
	unsigned *counts;    /* per merchant */
	unsigned long long n, chunk;
	unsigned target;
	struct sl1_cfg sl1;
};

SIMT_KERNEL(sl1_mca_mark, struct sl1_mca_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 3);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_ATOMIC);
	sl1_declare(&c, 2, SL1_ATOMIC);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	for (unsigned long long i = b; i < e; i++) {
		unsigned cu = SL1_LOAD(c, 0, unsigned, p.txn, 2 * i);
		unsigned me = SL1_LOAD(c, 0, unsigned, p.txn, 2 * i + 1);
		COMPUTE(5); /* i++, compare-branch, 2 address adds, merchant compare */
		if (me == p.target) {
			COMPUTE(3); /* word index, bit, shift */
			ATOMIC_OR(p.bitmap, cu >> 5, 1u << (cu & 31));
		}
	}
	sl1_flush(SIMT_PASS_ & c);
}

SIMT_KERNEL(sl1_mca_count, struct sl1_mca_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 3);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RO); /* read only in this kernel */
	sl1_declare(&c, 2, SL1_ATOMIC);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	for (unsigned long long i = b; i < e; i++) {
		unsigned cu = SL1_LOAD(c, 0, unsigned, p.txn, 2 * i);
		unsigned me = SL1_LOAD(c, 0, unsigned, p.txn, 2 * i + 1);
		unsigned w = SL1_LOAD(c, 1, unsigned, p.bitmap, cu >> 5);
		COMPUTE(7); /* i++, compare-branch, addresses, shift, and, branch */
		if (w >> (cu & 31) & 1u)
			ATOMIC_ADD(p.counts, me, 1u);
	}
	sl1_flush(SIMT_PASS_ & c);
}

/* ---- Inverted Index: (URL, document) pairs of the links of HTML-like
 * lines, a line being a document (3 data structures: the text, the
 * pairs' URL hashes and their documents; each thread writes its pairs
 * to its own region of cap entries, npairs[t] of them). */
struct sl1_ii_args {
	const char *text;
	unsigned long long *keys;
	unsigned *docs, *npairs;
	unsigned long long n, chunk, cap;
	struct sl1_cfg sl1;
};

SIMT_KERNEL(sl1_ii, struct sl1_ii_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 3);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RW);
	sl1_declare(&c, 2, SL1_RW);
	unsigned long long t = sl1_tid(SIMT_PASS_ 0);
	unsigned long long b = t * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	unsigned long long s = b, k = 0;
	const char *pat = "href=\"";
	if (b > 0 && b < e && SL1_LOAD(c, 0, char, p.text, b - 1) != '\n')
		while (s < p.n && SL1_LOAD(c, 0, char, p.text, s++) != '\n')
			COMPUTE(3);
	unsigned long long doc = s;
	int m = 0; /* characters of pat matched */
	for (unsigned long long i = s; s < e && i < p.n; i++) {
		char ch = SL1_LOAD(c, 0, char, p.text, i);
		COMPUTE(5); /* i++, bound, newline test, pattern compare, select */
		if (ch == '\n') {
			s = doc = i + 1;
			m = 0;
			continue;
		}
		m = ch == pat[m] ? m + 1 : (ch == pat[0] ? 1 : 0);
		if (m < 6)
			continue;
		unsigned long long h = 1469598103934665603ull; /* FNV-1a offset basis */
		for (i++; (ch = SL1_LOAD(c, 0, char, p.text, i)) != '"'; i++) {
			COMPUTE(5); /* xor, 64-bit multiply (2), i++, compare-branch */
			h = (h ^ (unsigned char)ch) * 1099511628211ull; /* FNV-1a prime */
		}
		if (k < p.cap) {
			SL1_STORE(c, 1, unsigned long long, p.keys, t * p.cap + k, h);
			SL1_STORE(c, 2, unsigned, p.docs, t * p.cap + k, (unsigned)doc);
		}
		k++;
		m = 0;
	}
	sl1_flush(SIMT_PASS_ & c);
	if (b < e)
		ST(p.npairs, t, (unsigned)k);
}

/* ---- Opinion Finder: the sentiment of the tweets (lines) that mention
 * the subject: positive minus negative words, looked up in an
 * open-addressing dictionary the word's FNV-1a hash indexes (4 data
 * structures: the text, the dictionary, its classes, the scores,
 * score[line start]).
 *
 * The dictionary holds words (of_keys=1, `words`): "Words from each
 * tweet ... are looked up in three dictionaries of positive, negative,
 * and adverb words" (thesis 4.4, seeds/001 line 935), the entries words
 * as the keys of the author's string-keyed tables are (rezafmk/
 * BRB_HashTable, MapReduce_WC/hashtable.cu containsKey: a char loop over
 * the stored key). The same lookup as BigKernel's Opinion Finder
 * (src/bigkernel/bk_kernels.h, bk_of_find): the hash picks the slot
 * (SL1_OF_KEY bytes, the word NUL-padded; an empty slot's first byte is
 * 0), an empty slot ends the lookup, else the slot's bytes are compared
 * with the word's up to the first difference, the terminator included,
 * and the next slot is probed on a difference. A slot is one 16-byte
 * S-L1 line. With `words` NULL (of_keys=0) the dictionary holds the
 * words' hashes (`keys`), one 8-byte compare a slot. */
#define SL1_OF_KEY 16
struct sl1_of_args {
	const char *text;
	const unsigned long long *keys; /* of_keys=0: hash + 1, 0 = empty */
	const unsigned char *cls;       /* 1 subject, 2 positive, 3 negative */
	signed char *score;
	unsigned long long n, chunk, slots;
	struct sl1_cfg sl1;
	const unsigned char *words; /* of_keys=1: slots x SL1_OF_KEY bytes, or NULL */
};

SIMT_KERNEL(sl1_of, struct sl1_of_args, p)
{
	struct sl1 c;
	SL1_SHARED_INIT(c, p.sl1, 4);
	sl1_declare(&c, 0, SL1_RO);
	sl1_declare(&c, 1, SL1_RO);
	sl1_declare(&c, 2, SL1_RO);
	sl1_declare(&c, 3, SL1_RW);
	unsigned long long b = sl1_tid(SIMT_PASS_ 0) * p.chunk;
	unsigned long long e = b + p.chunk < p.n ? b + p.chunk : p.n;
	unsigned long long s = b;
	if (b > 0 && b < e && SL1_LOAD(c, 0, char, p.text, b - 1) != '\n')
		while (s < p.n && SL1_LOAD(c, 0, char, p.text, s++) != '\n')
			COMPUTE(3);
	while (s < e) {
		int mention = 0, pos = 0, neg = 0;
		unsigned long long i = s;
		for (;;) { /* one word per pass */
			unsigned long long h = 1469598103934665603ull; /* FNV-1a offset basis */
			char ch;
			/* of_keys=1: the word's letters, kept as they are hashed for
			 * the compare (local memory in CUDA, not timed: registers
			 * to the executor, as bk_of's) */
			unsigned char wd[SL1_OF_KEY];
			unsigned int len = 0;
			while ((ch = SL1_LOAD(c, 0, char, p.text, i)) != ' ' && ch != '\n') {
				COMPUTE(6); /* 2 compares, xor, 64-bit multiply (2), i++ */
				h = (h ^ (unsigned char)ch) * 1099511628211ull; /* FNV-1a prime */
				if (p.words) {
					COMPUTE(3); /* bound compare, the letter's store, len++ */
					if (len < SL1_OF_KEY)
						wd[len] = (unsigned char)ch;
					len++;
				}
				i++;
			}
			unsigned long long slot = h & (p.slots - 1);
			int found = 0; /* slot holds the word */
			while (p.words) { /* the dictionary of words (bk_of_find) */
				unsigned long long at = slot * SL1_OF_KEY;
				unsigned char x = SL1_LOAD(c, 1, unsigned char, p.words, at);
				COMPUTE(3); /* slot address, empty-slot compare, branch */
				if (x == 0)
					break;
				int same = 1;
				for (unsigned int k = 0; same && k <= len && k < SL1_OF_KEY; k++) {
					if (k)
						x = SL1_LOAD(c, 1, unsigned char, p.words, at + k);
					same = x == (k < len ? wd[k] : 0);
					COMPUTE(4); /* the word's byte, compare, k++, branch */
				}
				if ((found = same))
					break;
				slot = (slot + 1) & (p.slots - 1);
				COMPUTE(2); /* probe step */
			}
			for (; !p.words;) {
				unsigned long long k = SL1_LOAD(c, 1, unsigned long long, p.keys, slot);
				COMPUTE(4); /* compare, branch, slot+1, mask */
				if ((found = k == h + 1) || k == 0)
					break;
				slot = (slot + 1) & (p.slots - 1);
			}
			if (found) {
				unsigned char v = SL1_LOAD(c, 2, unsigned char, p.cls, slot);
				COMPUTE(4); /* three compares and adds */
				mention |= v == 1;
				pos += v == 2;
				neg += v == 3;
			}
			if (ch == '\n')
				break;
			i++;
		}
		int sc = mention ? pos - neg : 0;
		COMPUTE(4); /* difference, clamp, select */
		SL1_STORE(c, 3, signed char, p.score, s, (signed char)(sc > 127 ? 127 : sc < -127 ? -127 : sc));
		s = i + 1;
	}
	sl1_flush(SIMT_PASS_ & c);
}

#endif
