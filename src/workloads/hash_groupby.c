/* hash-groupby: Karnagel et al. §2.2 (Fig. 1b). One kernel per 128 MB
 * input chunk; each thread walks its chunk grid-stride, reads a value over
 * PCIe (zero-copy), hashes it with Murmur3 and inserts it by linear
 * probing: atomicCAS on the bucket's value, then atomicAdd on its count.
 * The table is real (it is probed on the host as the warps run), so probe
 * sequences are exactly those of the algorithm on this input. */
#include "workloads/hash_groupby.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Warp-instruction estimates for the loop body's SASS (no published
 * kernel): index math and bound test; Murmur3 on 4 bytes (~12 integer
 * ops) plus a 32-bit modulo by the bucket count (~15: NVIDIA emulates
 * integer division); the probe loop's compare/advance. */
#define GB_INSTS_INDEX 4
#define GB_INSTS_HASH 27
#define GB_INSTS_PROBE 3

struct groupby {
	uint64_t table_base, input_base;
	uint64_t groups, buckets, input, chunk_elems, threads, seed;
	struct groupby_bucket *table;
	uint64_t n_chunks;
	struct gb_chunk *chunks;
};

struct gb_chunk {
	struct groupby *g;
	uint64_t first, count; /* input range of this launch */
	struct gpuvm_kernel kernel;
};

enum { GP_TOP, GP_LOAD, GP_HASH, GP_CAS, GP_ADD, GP_NEXT, GP_END };

struct gb_warp {
	uint64_t bucket[GPUVM_WARP_LANES];
	uint32_t value[GPUVM_WARP_LANES];
	uint64_t idx;       /* chunk-relative index of lane 0 this iteration */
	uint32_t mask;      /* lanes with an input this iteration */
	uint32_t probing;   /* lanes still looking for their bucket */
	uint32_t matched;   /* lanes whose CAS found their bucket */
	int phase;
};

uint64_t groupby_digest(const struct groupby_bucket *t, uint64_t buckets, uint64_t *groups_found,
			uint64_t *total)
{
	uint64_t d = 0, found = 0, sum = 0;
	for (uint64_t b = 0; b < buckets; b++)
		if (t[b].key) {
			d += splitmix64(t[b].key - 1) * t[b].count;
			found++;
			sum += t[b].count;
		}
	*groups_found = found;
	*total = sum;
	return d;
}

uint64_t groupby_reference(uint64_t seed, uint64_t input, uint64_t groups,
			   uint64_t *groups_found, uint64_t *total)
{
	uint32_t *count = calloc(groups, sizeof *count);
	if (!count)
		return 0;
	for (uint64_t i = 0; i < input; i++)
		count[groupby_input(seed, i, groups)]++;
	uint64_t d = 0, found = 0, sum = 0;
	for (uint64_t v = 0; v < groups; v++)
		if (count[v]) {
			d += splitmix64(v) * count[v];
			found++;
			sum += count[v];
		}
	free(count);
	*groups_found = found;
	*total = sum;
	return d;
}

static void gw_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct gb_warp *w = state;
	w->idx = (uint64_t)cta * k->block[0] + (uint64_t)warp * GPUVM_WARP_LANES;
	w->phase = GP_TOP;
}

static int gw_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	(void)err;
	struct gb_chunk *c = k->impl;
	struct groupby *g = c->g;
	struct gb_warp *w = state;
	uint32_t m;

	switch (w->phase) {
	case GP_TOP:
		w->mask = 0;
		for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
			if (w->idx + l < c->count)
				w->mask |= 1u << l;
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = GB_INSTS_INDEX;
		w->phase = w->mask ? GP_LOAD : GP_END;
		return 0;
	case GP_LOAD:
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_LOAD;
		it->bytes_per_lane = 4;
		it->active_mask = w->mask;
		for (m = w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			uint64_t i = c->first + w->idx + l;
			it->addr[l] = g->input_base + i * 4;
			w->value[l] = groupby_input(g->seed, i, g->groups);
		}
		w->phase = GP_HASH;
		return 0;
	case GP_HASH:
		for (m = w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			w->bucket[l] = groupby_home(w->value[l], g->buckets);
			/* The CAS comes after other warps ran: the host cache miss on
			 * the real table overlaps with their work. */
			__builtin_prefetch(&g->table[w->bucket[l]], 1);
		}
		w->probing = w->mask;
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = GB_INSTS_HASH;
		w->phase = GP_CAS;
		return 0;
	case GP_CAS:
		/* atomicCAS(&bucket.key, EMPTY, value): claims an empty bucket or
		 * finds the value's own; otherwise the lane probes on. */
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_ATOMIC;
		it->bytes_per_lane = 4;
		it->active_mask = w->probing;
		w->matched = 0;
		for (m = w->probing; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			struct groupby_bucket *b = &g->table[w->bucket[l]];
			it->addr[l] = g->table_base + w->bucket[l] * sizeof *b;
			if (b->key == 0)
				b->key = w->value[l] + 1;
			if (b->key == w->value[l] + 1)
				w->matched |= 1u << l;
			else if (++w->bucket[l] == g->buckets)
				w->bucket[l] = 0;
		}
		w->phase = w->matched ? GP_ADD : GP_NEXT;
		return 0;
	case GP_ADD:
		/* atomicAdd(&bucket.count, 1) for the lanes that found their bucket. */
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_ATOMIC;
		it->bytes_per_lane = 4;
		it->active_mask = w->matched;
		for (m = w->matched; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			it->addr[l] = g->table_base + w->bucket[l] * sizeof(struct groupby_bucket) + 4;
			g->table[w->bucket[l]].count++;
		}
		w->probing &= ~w->matched;
		w->phase = GP_NEXT;
		/* fall into GP_NEXT on the following call */
		return 0;
	case GP_NEXT:
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = GB_INSTS_PROBE;
		if (w->probing) {
			w->phase = GP_CAS;
		} else {
			w->idx += g->threads;
			w->phase = GP_TOP;
		}
		return 0;
	default:
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
}

static const struct gpuvm_kernel_ops groupby_ops = {
	.warp_state_bytes = sizeof(struct gb_warp),
	.warp_begin = gw_begin,
	.warp_next = gw_next,
};

static void groupby_result(void *impl, char *buf, size_t len)
{
	struct groupby *g = impl;
	uint64_t found, total;
	uint64_t d = groupby_digest(g->table, g->buckets, &found, &total);
	snprintf(buf, len, "groups=%" PRIu64 " rows=%" PRIu64 " digest=%016" PRIx64, found, total, d);
}

/* The table is probed at random, so back it with transparent huge pages
 * where the kernel allows: fewer page faults and host TLB misses. mmap'd
 * anonymous memory reads as zero (empty buckets) and costs RAM only where
 * touched. */
static struct groupby_bucket *table_alloc(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)0;
#endif
	return p;
}

static uint64_t groupby_items(void *impl)
{
	return ((struct groupby *)impl)->input;
}

static void groupby_destroy(void *impl)
{
	struct groupby *g = impl;
	if (g->table)
		munmap(g->table, g->buckets * sizeof *g->table);
	free(g->chunks);
	free(g);
}

static const struct gpuvm_param_def groupby_params[] = {
	{"groups", GPUVM_PARAM_U64, "16777216", "distinct values; table = 2 x groups buckets of 8 B"},
	{"region", GPUVM_PARAM_SIZE, NULL, "hash-table bytes instead of groups (groups = region / 16)"},
	{"input", GPUVM_PARAM_U64, "1610612736", "input values (Karnagel: 6 GB, about 1.6 billion)"},
	{"chunk", GPUVM_PARAM_SIZE, "128MiB", "input bytes per kernel launch (Karnagel: 128 MB)"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads per launch; default fills every warp slot"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
};

static int groupby_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	uint64_t groups = 1ull << 24, region = 0, input = 1610612736ull, chunk = 128ull << 20;
	uint64_t threads = fill_gpu_threads(cfg), block = 256;
	int has_groups, has_region;
	if ((has_groups = gpuvm_params_u64(p, "groups", &groups, err)) < 0 ||
	    (has_region = gpuvm_params_size(p, "region", &region, err)) < 0 ||
	    gpuvm_params_u64(p, "input", &input, err) < 0 ||
	    gpuvm_params_size(p, "chunk", &chunk, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &block, err) < 0)
		return -1;
	if (has_groups && has_region)
		return gpuvm_fail(err, "--workload", 0, "region", "give groups or region, not both");
	if (has_region)
		groups = region / (2 * sizeof(struct groupby_bucket));
	if (groups < 1 || groups > (1ull << 31))
		return gpuvm_fail(err, "--workload", 0, has_region ? "region" : "groups",
				  "needs between 1 and 2^31 groups (16 B of table per group)");
	if (!input)
		return gpuvm_fail(err, "--workload", 0, "input", "must be at least 1");
	if (chunk < 4 || chunk % 4)
		return gpuvm_fail(err, "--workload", 0, "chunk", "must be a positive multiple of 4 B");
	if (workload_check_launch(threads, block, err))
		return -1;

	threads = (threads + block - 1) / block * block; /* whole blocks run */
	uint64_t buckets = 2 * groups; /* fill factor 0.5 */
	uint64_t table_bytes = buckets * sizeof(struct groupby_bucket);
	/* The table is probed for real; refuse one that cannot fit in RAM. */
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psize > 0 && table_bytes > (uint64_t)pages * (uint64_t)psize / 4 * 3)
		return gpuvm_fail(err, "--workload", 0, has_region ? "region" : "groups",
				  "a %" PRIu64 "-byte hash table does not fit in this machine's memory",
				  table_bytes);

	struct groupby *g = calloc(1, sizeof *g);
	if (!g)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	g->groups = groups;
	g->buckets = buckets;
	g->input = input;
	g->chunk_elems = chunk / 4;
	g->threads = threads;
	g->seed = seed;
	g->n_chunks = (input + g->chunk_elems - 1) / g->chunk_elems;
	g->table = table_alloc(table_bytes);
	g->chunks = calloc(g->n_chunks, sizeof *g->chunks);
	if (!g->table || !g->chunks) {
		groupby_destroy(g);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory for the hash table");
	}

	struct op_list l = {.impl = g, .result = groupby_result,
			 .work_items = groupby_items, .destroy_impl = groupby_destroy};
	struct va_layout va;
	struct gpuvm_alloc a;
	va_layout_init(&va);
	g->table_base = va_layout_alloc(&va, &a, "hash_table", table_bytes, GPUVM_ALLOC_DEVICE);
	int rc = op_list_alloc(&l, &a);
	g->input_base = va_layout_alloc(&va, &a, "input_column", input * 4, GPUVM_ALLOC_HOST_PINNED);
	rc |= op_list_alloc(&l, &a);
	for (uint64_t i = 0; i < g->n_chunks; i++) {
		struct gb_chunk *c = &g->chunks[i];
		c->g = g;
		c->first = i * g->chunk_elems;
		c->count = input - c->first < g->chunk_elems ? input - c->first : g->chunk_elems;
		char name[48];
		snprintf(name, sizeof name, "groupby_chunk_%" PRIu64, i);
		workload_kernel_1d(&c->kernel, name, &groupby_ops, c, threads, block);
		rc |= op_list_kernel(&l, &c->kernel);
	}
	if (rc) {
		free(l.ops);
		groupby_destroy(g);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}
	return op_list_source(&l, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_hash_groupby = {
	.name = "hash-groupby",
	.summary = "Karnagel §2.2: Murmur3 linear-probing group-by, input zero-copy in 128 MB chunks (Fig. 1b)",
	.working_set = "16 B x groups (device table) + 4 B x input (pinned host, streamed)",
	.params = groupby_params,
	.n_params = sizeof groupby_params / sizeof groupby_params[0],
	.create = groupby_create,
};
