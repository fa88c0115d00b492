/* random-4kb: UVMSmart Random-4KB (-eviction_policy 3): one resident page
 * chosen uniformly at random (UVMSmart gpu-sim.cc page_eviction_procedure).
 *
 * The page is the k-th resident one (k uniform below the resident count)
 * in block order, then page order. The blocks' resident counts are kept
 * in a Fenwick tree, updated at the fills and evictions the policy hears
 * of (every change of a resident count comes with one), so a pick finds the block in O(log blocks) instead of walking every
 * block for each page it evicts, and the page by word counts. */
#include "uvm/evict.h"
#include "gpuvm/module.h"

#include <stdlib.h>
#include <string.h>

#include "uvm/prefetch.h"

struct random_4kb {
	uint32_t *cnt; /* [cap] resident pages per block index */
	uint32_t *fw;  /* [cap] Fenwick tree over cnt (1-based positions i + 1) */
	uint32_t cap;  /* a power of two, or 0 */
};

static int random_create(void **st)
{
	*st = calloc(1, sizeof(struct random_4kb));
	return *st ? 0 : -1;
}

static void random_destroy(void *st)
{
	struct random_4kb *r = st;
	if (r) {
		free(r->cnt);
		free(r->fw);
	}
	free(r);
}

static void fw_add(struct random_4kb *r, uint32_t i, int64_t v)
{
	for (i++; i <= r->cap; i += i & -i)
		r->fw[i - 1] = (uint32_t)((int64_t)r->fw[i - 1] + v);
}

/* Room for block indices below n; the tree is rebuilt from cnt. */
static int reserve(struct random_4kb *r, uint32_t n)
{
	if (n <= r->cap)
		return 0;
	uint32_t cap = r->cap ? r->cap : 64;
	while (cap < n)
		cap *= 2;
	uint32_t *c = realloc(r->cnt, cap * sizeof *c);
	if (!c)
		return -1;
	r->cnt = c;
	memset(c + r->cap, 0, (cap - r->cap) * sizeof *c);
	uint32_t *f = realloc(r->fw, cap * sizeof *f);
	if (!f)
		return -1;
	r->fw = f;
	r->cap = cap;
	/* O(n) build: each position passes its sum to its parent */
	memcpy(f, c, cap * sizeof *f);
	for (uint32_t i = 1; i <= cap; i++) {
		uint32_t up = i + (i & -i);
		if (up <= cap)
			f[up - 1] += f[i - 1];
	}
	return 0;
}

/* Block b's resident count changed: the tree follows it (the count, not
 * the mask, which the walk this replaces read too). */
static void recount(struct random_4kb *r, const struct uvm_block *b)
{
	int64_t d = (int64_t)b->resident_count - r->cnt[b->index];
	r->cnt[b->index] = b->resident_count;
	if (d)
		fw_add(r, b->index, d);
}

static int random_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	struct random_4kb *r = st;
	if (reserve(r, sp->n > b->index ? sp->n : b->index + 1))
		return -1;
	recount(r, b);
	return 0;
}

static void random_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	struct random_4kb *r = st;
	if (b->index < r->cap) /* else never filled: nothing counted */
		recount(r, b);
}

/* Index of the block holding resident page number k (counting in block
 * order), and k within it in *rest; r->cap when k is past the total. */
static uint32_t block_of(const struct random_4kb *r, uint64_t k, uint64_t *rest)
{
	uint32_t pos = 0;
	for (uint32_t step = r->cap; step; step >>= 1)
		if (pos + step <= r->cap && r->fw[pos + step - 1] <= k) {
			pos += step;
			k -= r->fw[pos - 1];
		}
	*rest = k;
	return pos;
}

static struct uvm_block *random_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct random_4kb *r = st;
	if (!sp->resident_pages)
		return NULL;
	uint64_t k = splitmix64_next(sp->rng) % sp->resident_pages;
	uint32_t i = block_of(r, k, &k);
	if (i >= sp->n || i >= r->cap)
		return NULL;
	struct uvm_block *b = sp->blocks[i];
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
		uint64_t bits = b->resident[w];
		uint32_t n = (uint32_t)__builtin_popcountll(bits);
		if (k >= n) {
			k -= n;
			continue;
		}
		for (; k; k--)
			bits &= bits - 1; /* drop the k lowest set pages */
		mask_set(mask, w * 64 + (uint32_t)__builtin_ctzll(bits));
		return b;
	}
	return NULL;
}

static const struct uvm_evict_ops ops = {
	.create = random_create,
	.destroy = random_destroy,
	.on_fill = random_fill,
	.on_evicted = random_evicted,
	.pick = random_pick,
};

const struct gpuvm_module gpuvm_module_evict_random_4kb = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "random-4kb",
	.help = "UVMSmart Random-4KB: one resident 4 KB page chosen at random",
	.ops = &ops,
};
