/* The applications of Table 4.1 (Mokhtari's thesis, seeds/001, 4.4) as
 * SIMT kernel bodies (C and CUDA: cuda/bigkernel.cu), each written once
 * and reading its mapped input through BK_LD (bk_device.h), so that
 * single / double buffering, unified memory and BigKernel run the same
 * kernel. Work split (Fig. 4.4): thread t of a chunk's launch processes
 * the chunk's records [t x per, (t + 1) x per). COMPUTE hints count the
 * non-memory instructions a compiler emits for each loop body; each is
 * noted at its site.
 *
 * S-L1 (Fig. 5.14, BigKernel combined with S-L1, thesis 5.3.3): the
 * applications that are in both BigKernel's Table 4.1 and S-L1's Table
 * 5.1 (K-means, Word Count, Opinion Finder, DNA Assembly, MasterCard
 * Affinity) open the thread's S-L1 state (BK_SL1_BEGIN: data structure 0
 * is the mapped data) and route their GPU-resident, non-atomic data
 * structures of the main loop through it too; with map.sl1.enabled = 0
 * every such access is the plain LD / ST it was. Atomically updated
 * tables are never cached (5.2.4) and are not declared. */
#ifndef GPUVM_BK_KERNELS_H
#define GPUVM_BK_KERNELS_H

#include "bk_device.h"

/* One attempt at a slot's spin lock (0 -> 1); defined last, at a line
 * past every kernel line (see there). */
SIMT_DEVFN int bk_try_lock(SIMT_CTX_ int *locks, unsigned long long i);

#ifdef __CUDACC__
#define BK_FENCE() __threadfence()
#else
#define BK_FENCE() ((void)0) /* the executor runs each access at once, in order */
#endif

/* An open-addressed count table in GPU memory (keys != 0): DNA Assembly's
 * fragment counts, lock-free (the slot claimed with CAS, the count an
 * atomic add; 4.4's DNA text names a hash table, no synchronization). */
SIMT_DEVFN void bk_table_add(SIMT_CTX_ unsigned long long *keys, unsigned int *counts,
			     unsigned long long mask, unsigned long long key, unsigned int v)
{
	unsigned long long s = key & mask;
	for (;;) {
		unsigned long long old = ATOMIC_CAS(keys, s, 0ull, key);
		COMPUTE(3); /* compare twice, branch */
		if (old == 0 || old == key) {
			ATOMIC_ADD(counts, s, v);
			return;
		}
		s = (s + 1) & mask;
		COMPUTE(2); /* probe step */
	}
}

/* A claimed slot's key: the word's len bytes NUL-padded to BK_WC_KEY,
 * stored in 8-byte words (the author's key copy, hashtable.cu). */
SIMT_DEVFN void bk_key_store(SIMT_CTX_ unsigned char *keystr, unsigned long long s, const unsigned char *word,
			     unsigned int len)
{
	unsigned long long *w = (unsigned long long *)(void *)(keystr + s * BK_WC_KEY);
	for (unsigned int j = 0; j < BK_WC_KEY / 8; j++) {
		unsigned long long x = 0;
		for (unsigned int b = 0; b < 8 && 8 * j + b < len; b++)
			x |= (unsigned long long)word[8 * j + b] << (8 * b);
		COMPUTE(8); /* the word's bytes shifted and or-ed in */
		ST(w, j, x);
	}
}

/* Word Count's "centralized hash table to store word counts, requiring
 * synchronization with attendant overheads" (thesis 4.4.1, seeds/001
 * around line 980): the same open-addressed slots, each with a spin lock
 * in GPU memory; the key is compared and stored and the count read and
 * written under the slot's lock, then the lock is released. That is the
 * insert of the author's word count table (rezafmk/BRB_HashTable,
 * MapReduce_WC/hashtable.cu addToHashtable: atomicExch(lock, 1) until
 * the old value is 0, the bucket's key compared, the count combined or
 * the entry added, atomicExch(lock, 0)); its chained buckets are open
 * addressing here (one lock per probed slot: a slot's key and count are
 * written only under its own lock). The slot's key is the word itself
 * (keystr: BK_WC_KEY bytes per slot, the word NUL-padded), compared byte
 * by byte with the thread's word up to the first difference, the
 * terminator included, and written in 8-byte words when the slot is
 * claimed: the author's containsKey (a char loop over the bucket's
 * stored key) and its key copy (ALIGNMET-byte words). The word's 64-bit
 * hash picks the slot and is stored beside it (keys) so the result
 * checks exactly against the CPU reference's table. keystr NULL
 * (wc_keys=0): the hash is the key, one 8-byte compare, as before.
 * The loop is the deadlock-free form of sepo_dev.h: the critical
 * section first, the try last, at the highest line. */
SIMT_DEVFN void bk_table_add_locked(SIMT_CTX_ unsigned long long *keys, unsigned int *counts, int *locks,
				    unsigned long long mask, unsigned long long key, unsigned int v,
				    unsigned char *keystr, const unsigned char *word, unsigned int len)
{
	if (!locks) { /* wc_lock=0: the lock-free table, for comparison */
		bk_table_add(SIMT_PASS_ keys, counts, mask, key, v);
		return;
	}
	unsigned long long s = key & mask;
	int held = 0;
	for (;;) {
		if (held) {
			unsigned long long k = LD(keys, s);
			COMPUTE(3); /* compare twice, branch */
			int same = k == key;
			if (k && keystr) { /* containsKey: the stored word's bytes, in its slot */
				same = 1;
				for (unsigned int i = 0; same && i <= len && i < BK_WC_KEY; i++) {
					unsigned char b = LD(keystr, s * BK_WC_KEY + i);
					same = b == (i < len ? word[i] : 0);
					COMPUTE(4); /* the word's byte, compare, i++, branch */
				}
			}
			if (k == 0 || same) {
				if (k == 0)
					ST(keys, s, key);
				if (k == 0 && keystr)
					bk_key_store(SIMT_PASS_ keystr, s, word, len);
				unsigned int c = LD(counts, s);
				ST(counts, s, c + v);
				BK_FENCE();
				ATOMIC_EXCH(locks, s, 0);
				return;
			}
			BK_FENCE();
			ATOMIC_EXCH(locks, s, 0); /* another word's slot: probe on */
			s = (s + 1) & mask;
			held = 0;
			COMPUTE(2); /* probe step */
			continue;
		}
		/* the try and the critical section: at most 6 accesses and
		 * the key's len + 1 bytes, run without the executor
		 * suspending the thread in between (simt_reserve); a lane
		 * then never finds a lock held */
		SIMT_RESERVE(6 + (keystr ? len + 1 : 0));
		held = bk_try_lock(SIMT_PASS_ locks, s);
	}
}

/* Opinion Finder's dictionaries as dictionaries of words (of_keys=1,
 * bk_of_in): "Words from each tweet ... are looked up in three
 * dictionaries of positive, negative, and adverb words" (thesis 4.4,
 * seeds/001 line 935), the entries words, as the keys of the author's
 * string-keyed tables are (rezafmk/BRB_HashTable, e.g.
 * MapReduce_WC/hashtable.cu containsKey: a char loop over the stored
 * key; no Opinion Finder code is in that repository). Table d of dict
 * (dict_mask + 1 slots of BK_WC_KEY bytes, the word NUL-padded; an empty
 * slot's first byte is 0): the word's hash picks the slot, the slot's
 * word is compared with the thread's byte by byte up to the first
 * difference, the terminator included, and the next slot is probed on a
 * difference. One slot is one 16-byte S-L1 line (data structure 1). */
SIMT_DEVFN int bk_of_find(SIMT_CTX_ const unsigned char *dict, unsigned long long dict_mask, struct sl1 *sp, int d,
			  unsigned long long h, const unsigned char *word, unsigned int len)
{
	unsigned long long s = h & dict_mask;
	COMPUTE(3); /* table base multiply-add, slot mask */
	for (;;) {
		unsigned long long at = ((unsigned long long)d * (dict_mask + 1) + s) * BK_WC_KEY;
		unsigned char b;
		BK_SL1_LD(b, sp, 1, unsigned char, dict, at);
		COMPUTE(3); /* slot address, empty-slot compare, branch */
		if (b == 0)
			return 0;
		int same = 1;
		for (unsigned int i = 0; same && i <= len && i < BK_WC_KEY; i++) {
			if (i)
				BK_SL1_LD(b, sp, 1, unsigned char, dict, at + i);
			same = b == (i < len ? word[i] : 0);
			COMPUTE(4); /* the word's byte, compare, i++, branch */
		}
		if (same)
			return 1;
		s = (s + 1) & dict_mask;
		COMPUTE(2); /* probe step */
	}
}

/* The kernels below keep the source lines they had before the lines
 * above were added (the executor zips lanes by line, docs/simt.md;
 * S-L1's accessor lines 227-300 sit among them), so that only Word
 * Count's timing changes with its lock. */
#line 42
SIMT_DEVFN void bk_range_of(SIMT_CTX_ const struct bk_range *g, unsigned long long t,
			    unsigned long long *r0, unsigned long long *r1)
{
	*r0 = t * g->per;
	*r1 = *r0 + g->per < g->nrec ? *r0 + g->per : g->nrec;
	COMPUTE(4); /* range multiply, add, min */
}

/* K-means (assignment step, Fig. 4.3): 64-byte particles, four double
 * coordinates read (50 % of the record, Table 4.1), the cluster id
 * written to the output array (8 B: 12 %). Centroids are kernel
 * arguments (constant memory). */
struct bk_kmeans_args {
	struct bk_map m;
	struct bk_range g;
	double cent[BK_KM_K * BK_KM_DIMS];
	unsigned long long *cid; /* per record of the chunk */
};

SIMT_KERNEL(bk_kmeans, struct bk_kmeans_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	BK_SL1_BEGIN(s1, c, p.m, 2);
	sl1_declare(&s1, 1, SL1_RW); /* cluster ids */
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	for (unsigned long long r = r0; r < r1; r++) {
		double x[BK_KM_DIMS];
		for (int d = 0; d < BK_KM_DIMS; d++)
			BK_LD(x[d], double, p.m, c, r * BK_KM_REC + 8 * (unsigned long long)d);
		int best = 0;
		double bd = 0;
		for (int k = 0; k < BK_KM_K; k++) {
			double s = 0;
			for (int d = 0; d < BK_KM_DIMS; d++) {
				double e = x[d] - p.cent[k * BK_KM_DIMS + d];
				s += e * e;
			}
			if (k == 0 || s < bd) {
				bd = s;
				best = k;
			}
		}
		/* per centroid: 4 subtracts, 4 FMAs (FP64), compare, select */
		COMPUTE_CHAIN(BK_KM_K * (2 * BK_KM_DIMS + 2), GPUVM_CLASS_DP);
		BK_SL1_ST(c.s, 1, unsigned long long, p.cid, r, (unsigned long long)best);
	}
	bk_sl1_end(SIMT_PASS_ & s1, &p.m, c.tid);
}

/* Netflix (4.4): 64-byte rating records; movie, user A, rate A, user B,
 * rate B (5 x 4 B = 31 % of the record, Table 4.1: 30 %) read; the
 * pair's similarity score (+10 equal rates, +2 one apart, -5 otherwise:
 * the Netflix/ application of rezafmk/BRB_HashTable) added to a
 * users x users table in GPU memory. */
struct bk_netflix_args {
	struct bk_map m;
	struct bk_range g;
	int *score; /* [userA x USERS + userB] */
	unsigned int *movies; /* ratings per movie */
	unsigned int nmovies;
};

SIMT_KERNEL(bk_netflix, struct bk_netflix_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	for (unsigned long long r = r0; r < r1; r++) {
		unsigned long long o = r * BK_NF_REC;
		unsigned int movie, ua, ra, ub, rb;
		BK_LD(movie, unsigned int, p.m, c, o);
		BK_LD(ua, unsigned int, p.m, c, o + 4);
		BK_LD(ra, unsigned int, p.m, c, o + 8);
		BK_LD(ub, unsigned int, p.m, c, o + 12);
		BK_LD(rb, unsigned int, p.m, c, o + 16);
		int s = ra == rb ? 10 : (ra + 1 == rb || rb + 1 == ra) ? 2 : -5;
		COMPUTE(8); /* three compares, selects, index multiply-add */
		ATOMIC_ADD(p.score, (ua % BK_NF_USERS) * BK_NF_USERS + ub % BK_NF_USERS, s);
		ATOMIC_ADD(p.movies, movie % p.nmovies, 1u);
	}
}

/* The arguments of Word Count and DNA Assembly (their count tables). */
struct bk_count_args {
	struct bk_map m;
	struct bk_range g;
	unsigned long long *keys;
	unsigned int *counts;
	unsigned long long mask;
	int *locks; /* Word Count: a spin lock per slot (bk_table_add_locked) */
	unsigned char *keystr; /* Word Count: each slot's word (BK_WC_KEY bytes), or NULL */
};

/* Word Count (4.4): 64-byte lines of text (all bytes read, Table 4.1),
 * each word counted in the locked table (bk_table_add_locked). */
SIMT_KERNEL(bk_wc, struct bk_count_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	BK_SL1_BEGIN(s1, c, p.m, 1);
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	for (unsigned long long r = r0; r < r1; r++) {
		unsigned long long h = BK_FNV_BASIS;
		unsigned int len = 0;
		unsigned char word[BK_WC_KEY]; /* the key (registers here; local memory in CUDA) */
		for (unsigned int i = 0; i < BK_WC_REC; i++) {
			unsigned char ch;
			BK_LD(ch, unsigned char, p.m, c, r * BK_WC_REC + i);
			COMPUTE(5); /* i++, compare-branch, letter range compare, branch */
			if (ch >= 'a' && ch <= 'z') {
				h = (h ^ ch) * BK_FNV_PRIME;
				word[len++ % BK_WC_KEY] = ch; /* a longer word fails table_check */
				COMPUTE(4); /* xor, 64-bit multiply (3 IMADs) */
			} else if (len) {
				bk_table_add_locked(SIMT_PASS_ p.keys, p.counts, p.locks, p.mask, h | 1, 1u, p.keystr, word, len);
				h = BK_FNV_BASIS;
				len = 0;
			}
		}
	}
	bk_sl1_end(SIMT_PASS_ & s1, &p.m, c.tid);
}
#line 163

/* DNA Assembly, first stage (4.4): 128-byte FASTQ-like fragments (id
 * line, 48-base read, '+', quality); a 46-base portion of the read is
 * hashed (36 % of the record, Table 4.1) and counted in a hash table, so
 * identical fragments are counted and noisy ones can be dropped. */
SIMT_KERNEL(bk_dna, struct bk_count_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	BK_SL1_BEGIN(s1, c, p.m, 1);
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	for (unsigned long long r = r0; r < r1; r++) {
		unsigned long long h = BK_FNV_BASIS;
		for (unsigned int i = 0; i < BK_DNA_BASES; i++) {
			unsigned char ch;
			BK_LD(ch, unsigned char, p.m, c, r * BK_DNA_REC + BK_DNA_READ_OFF + i);
			h = (h ^ ch) * BK_FNV_PRIME;
			COMPUTE(6); /* i++, compare-branch, xor, 64-bit multiply */
		}
		bk_table_add(SIMT_PASS_ p.keys, p.counts, p.mask, h | 1, 1u);
	}
	bk_sl1_end(SIMT_PASS_ & s1, &p.m, c.tid);
}

/* Opinion Finder (4.4): 128-byte tweet records, the first 94 bytes text
 * (73 % of the record, Table 4.1), then a time stamp and other values.
 * "Words from each tweet that mention the given subject are looked up in
 * three dictionaries of positive, negative, and adverb words. Based on
 * the identified words and their precedence, an overall sentiment score
 * is calculated" (4.4): every word is looked up in the subject's keywords,
 * the words of a tweet that mentions it in the positive, the negative and
 * the adverb dictionary in turn (until one has it): +1 per positive, -1
 * per negative word, doubled after an adverb. Four open-addressed sets. */
struct bk_of_args {
	struct bk_map m;
	struct bk_range g;
	const unsigned long long *dict_keys; /* of_keys=0: BK_OF_DICTS sets of hashes (enum bk_of_dict) */
	const unsigned char *dict_words;     /* or NULL; the sets of words (bk_of_find) */
	unsigned long long dict_mask;        /* slots per set, less one */
	unsigned long long *score; /* [0]: the sum over mentioning tweets (two's complement) */
	unsigned int *mentions;    /* [0]: tweets that mention the subject */
};
/* Whether set d has the word w (len letters, hashed h); sp: S-L1 or NULL */
SIMT_DEVFN int bk_of_in(SIMT_CTX_ const struct bk_of_args *p, struct sl1 *sp, int d, unsigned long long h,
			const unsigned char *w, unsigned int len)
{
	if (p->dict_words)
		return bk_of_find(SIMT_PASS_ p->dict_words, p->dict_mask, sp, d, h, w, len);
	unsigned long long base = (unsigned long long)d * (p->dict_mask + 1), s = h & p->dict_mask;
	COMPUTE(3); /* table base multiply-add, slot mask */
	for (;;) {
		unsigned long long k;
		BK_SL1_LD(k, sp, 1, unsigned long long, p->dict_keys, base + s);
		COMPUTE(3); /* two compares, branch */
		if (k == h)
			return 1;
		if (k == 0)
			return 0;
		s = (s + 1) & p->dict_mask;
		COMPUTE(2); /* probe step */
	}
}

SIMT_KERNEL(bk_of, struct bk_of_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	BK_SL1_BEGIN(s1, c, p.m, 2);
	sl1_declare(&s1, 1, SL1_RO); /* the dictionaries */
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	long long total = 0;
	unsigned int mentions = 0;
	for (unsigned long long r = r0; r < r1; r++) {
		/* the tweet's words for the second step (at most one per two
		 * bytes): hash, place and length, and its lower-cased letters;
		 * local memory in CUDA, not timed (registers to the executor) */
		unsigned long long words[BK_OF_TEXT / 2 + 1];
		unsigned char text[BK_OF_TEXT], at[BK_OF_TEXT / 2 + 1], wl[BK_OF_TEXT / 2 + 1];
		unsigned long long h = BK_FNV_BASIS;
		unsigned int nw = 0, len = 0;
		int mention = 0;
		for (unsigned int i = 0; i <= BK_OF_TEXT; i++) {
			unsigned char ch = ' ';
			if (i < BK_OF_TEXT)
				BK_LD(ch, unsigned char, p.m, c, r * BK_OF_REC + i);
			COMPUTE(9); /* i++, bound, case folding, letter / apostrophe / hash-tag classes */
			if (ch >= 'A' && ch <= 'Z')
				ch = (unsigned char)(ch + 32);
			if ((ch >= 'a' && ch <= 'z') || ch == '\'') {
				h = (h ^ ch) * BK_FNV_PRIME;
				text[i] = ch;
				len++;
				COMPUTE(4); /* xor, 64-bit multiply */
				continue;
			}
			if (!len)
				continue;
			mention |= bk_of_in(SIMT_PASS_ & p, c.s, BK_OF_D_SUBJECT, h | 1, text + i - len, len);
			at[nw] = (unsigned char)(i - len), wl[nw] = (unsigned char)len;
			words[nw++] = h | 1;
			COMPUTE(3); /* or, word store, count */
			h = BK_FNV_BASIS;
			len = 0;
		}
		if (!mention)
			continue;
		long long s = 0;
		int adverb = 0;
		for (unsigned int k = 0; k < nw; k++) {
			int w = adverb ? 2 : 1;
			adverb = 0;
			if (bk_of_in(SIMT_PASS_ & p, c.s, BK_OF_D_POS, words[k], text + at[k], wl[k]))
				s += w;
			else if (bk_of_in(SIMT_PASS_ & p, c.s, BK_OF_D_NEG, words[k], text + at[k], wl[k]))
				s -= w;
			else
				adverb = bk_of_in(SIMT_PASS_ & p, c.s, BK_OF_D_ADVERB, words[k], text + at[k], wl[k]);
			COMPUTE(6); /* precedence: weight select, add, loop */
		}
		total += s;
		mentions++;
	}
	bk_sl1_end(SIMT_PASS_ & s1, &p.m, c.tid);
	if (mentions) {
		ATOMIC_ADD(p.score, 0, (unsigned long long)total);
		ATOMIC_ADD(p.mentions, 0, mentions);
	}
}

/* Source lines: the executor zips a warp's lanes at the earliest
 * __LINE__ any lane waits at (docs/simt.md), and S-L1's accessor records
 * its accesses at include/gpuvm/sl1.h's lines 227-300. A kernel access
 * in divergent code of the main loop must come before them, or the lanes
 * that skip it run ahead to the next iteration's S-L1 access and the warp
 * never reconverges (measured on mca before this directive: 7.4x the warp
 * instructions of BigKernel without S-L1). The kernels above sit below
 * line 227; MasterCard Affinity's (plain and indexed, a uniform shift that
 * leaves their order and timing without S-L1 unchanged) are renumbered
 * from here. Compiler messages for the rest of this file name these
 * numbers. */
#line 130
/* MasterCard Affinity (4.4): '\n'-terminated purchase records of
 * variable length: card number (16 digits) at byte 0, '|', terminal id
 * (6), '|', merchant id at byte 24 ("M" and 7 digits), '|', then amount,
 * date and other values; each record is padded with spaces to whole
 * 8-byte words, so the indexed fields are word aligned. Pass 0 marks the
 * customers (the card's last 15 digits) who bought from merchant X, pass
 * 1 counts the merchants those customers bought from.
 *
 * Plain: records are found by scanning every byte ("the variable-length
 * records force the computation to go over all of the data", 4.4.1);
 * the input is cut into BK_MCA_BLOCK-byte blocks that no record spans
 * (padded with '\n'), a block per record of the range.
 * Indexed: an index (not mapped) gives each record's offset; the kernel
 * reads the card's two words and the merchant's word (25 %). */
struct bk_mca_args {
	struct bk_map m;
	struct bk_range g;
	const unsigned long long *index;  /* indexed: byte offset of each record */
	unsigned long long chunk_base;    /* indexed: byte offset of the chunk */
	unsigned int *bitmap;             /* customers of X */
	unsigned int *counts;             /* per merchant */
	unsigned int target, pass;
};

/* sp: the thread's S-L1 state (NULL: plain loads); the customer bitmap
 * is its data structure 1 (read only in pass 1, atomic in pass 0). */
SIMT_DEVFN void bk_mca_record(SIMT_CTX_ const struct bk_mca_args *p, struct sl1 *sp, unsigned int cust,
			      unsigned int merch)
{
	COMPUTE(4); /* pass and target compares, bit index */
	if (p->pass == 0) {
		if (merch == p->target)
			ATOMIC_OR(p->bitmap, cust >> 5, 1u << (cust & 31));
		return;
	}
	unsigned int w;
	BK_SL1_LD(w, sp, 1, unsigned int, p->bitmap, cust >> 5);
	if (w >> (cust & 31) & 1u)
		ATOMIC_ADD(p->counts, merch % BK_MCA_MERCHANTS, 1u);
}

SIMT_KERNEL(bk_mca, struct bk_mca_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	BK_SL1_BEGIN(s1, c, p.m, 2);
	sl1_declare(&s1, 1, p.pass == 0 ? SL1_ATOMIC : SL1_RO); /* customer bitmap */
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	for (unsigned long long r = r0; r < r1; r++) {
		unsigned int cust = 0, merch = 0, pos = 0;
		for (unsigned int i = 0; i < BK_MCA_BLOCK; i++) {
			unsigned char ch;
			BK_LD(ch, unsigned char, p.m, c, r * BK_MCA_BLOCK + i);
			COMPUTE(6); /* i++, compare-branch, newline / digit / field compares */
			if (ch == '\n') {
				if (pos >= 32)
					bk_mca_record(SIMT_PASS_ & p, c.s, cust % BK_MCA_CUSTOMERS, merch);
				cust = merch = pos = 0;
				continue;
			}
			if (pos >= 1 && pos < 16)
				cust = cust * 10 + (unsigned int)(ch - '0');
			else if (pos >= 25 && pos < 32)
				merch = merch * 10 + (unsigned int)(ch - '0');
			pos++;
			COMPUTE(3); /* digit multiply-add, pos++ */
		}
	}
	bk_sl1_end(SIMT_PASS_ & s1, &p.m, c.tid);
}

/* The digits of bytes [from, to) of a little-endian word. */
SIMT_DEVFN unsigned int bk_digits(unsigned long long w, unsigned int v, int from, int to)
{
	for (int b = from; b < to; b++)
		v = v * 10 + (unsigned int)((w >> (8 * b) & 0xff) - '0');
	return v;
}

SIMT_KERNEL(bk_mca_indexed, struct bk_mca_args, p)
{
	struct bk_cur c = {bk_tid(SIMT_PASS_ 0), 0, 0};
	unsigned long long r0, r1;
	bk_range_of(SIMT_PASS_ & p.g, c.tid, &r0, &r1);
	for (unsigned long long r = r0; r < r1; r++) {
		unsigned long long o = 0;
		if (p.m.layout == BK_ORIGINAL)
			o = LD(p.index, r) - p.chunk_base;
		unsigned long long w0, w1, w3;
		BK_LD(w0, unsigned long long, p.m, c, o);
		BK_LD(w1, unsigned long long, p.m, c, o + 8);
		BK_LD(w3, unsigned long long, p.m, c, o + 24);
		unsigned int cust = bk_digits(w1, bk_digits(w0, 0, 1, 8), 0, 8);
		unsigned int merch = bk_digits(w3, 0, 1, 8);
		COMPUTE(4 * 22); /* 22 digits: shift, mask, subtract, multiply-add */
		bk_mca_record(SIMT_PASS_ & p, 0, cust % BK_MCA_CUSTOMERS, merch);
	}
}

/* Last in the file, numbered past every kernel line, S-L1's accessor
 * lines and the renumbered MasterCard Affinity kernels: the one place a
 * lane spins (Word Count's slot locks). The executor issues the earliest
 * line any lane of a warp waits at, and a lock holder may have buffered
 * accesses at any later line of its loop, so a retry at a lower line
 * would be issued for ever ahead of the holder's release (docs/sepo.md,
 * "Forward progress on the SIMT executor"; sepo_try_lock is at 65000). */
#line 64000
SIMT_DEVFN int bk_try_lock(SIMT_CTX_ int *locks, unsigned long long i)
{
	return ATOMIC_EXCH(locks, i, 1) == 0;
}

#endif
