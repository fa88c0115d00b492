/* The host side of pattern recognition (4.3.1): a thread's addresses
 * read back from what stage 1 wrote, a pattern expanded or the address
 * list walked (bk_device.h has the format). Plain inline C, shared by
 * the runtime (bk_runtime.c) and the CUDA host code (cuda/bigkernel.cu). */
#ifndef GPUVM_BK_PATTERN_H
#define GPUVM_BK_PATTERN_H

#include <stdint.h>
#include <string.h>

#include "bk_device.h"

struct bk_addr_iter {
	const unsigned long long *pat, *addr;
	uint64_t threads, t, n, k, a, left;
	unsigned period, seg;
	int pattern;
};

/* Word j of the thread's pattern (BK_PAT_AT's layout). */
static inline unsigned long long bk_pat_word(const struct bk_addr_iter *it, unsigned j)
{
	return it->pat[BK_PAT_AT(j, it->threads, it->t)];
}

static inline void bk_iter_init(struct bk_addr_iter *it, const unsigned long long *pat,
				const unsigned long long *addr, uint64_t threads, uint64_t t)
{
	memset(it, 0, sizeof *it);
	it->pat = pat;
	it->addr = addr;
	it->threads = threads;
	it->t = t;
	it->pattern = (bk_pat_word(it, 0) & BK_PAT_FLAG) != 0;
	it->n = bk_pat_word(it, 0) & ~BK_PAT_FLAG;
	if (it->pattern) {
		it->period = (unsigned)bk_pat_word(it, 2);
		if (!it->period || it->period > BK_PAT_SEGS)
			it->n = 0; /* not a pattern the detector writes */
		it->a = bk_pat_word(it, 1);
		it->left = it->period ? bk_pat_word(it, 4) : 0;
	}
}

/* The thread's next address; 0 at the end (or on a malformed pattern). */
static inline int bk_iter_next(struct bk_addr_iter *it, uint64_t *a)
{
	if (it->k >= it->n)
		return 0;
	if (!it->pattern) {
		*a = it->addr[it->k++ * it->threads + it->t];
		return 1;
	}
	if (it->k > 0) {
		while (!it->left) {
			it->seg = (it->seg + 1) % it->period;
			it->left = bk_pat_word(it, 4 + 2 * it->seg);
			if (!it->left)
				return 0; /* the detector never writes empty segments */
		}
		it->a += bk_pat_word(it, 3 + 2 * it->seg);
		it->left--;
	}
	it->k++;
	*a = it->a;
	return 1;
}

#endif
