/* hash-groupby: Karnagel et al. §2.2 (Fig. 1b). One kernel per 128 MB
 * input chunk; each thread walks its chunk grid-stride, reads a value over
 * PCIe (zero-copy), hashes it with Murmur3 and inserts it by linear
 * probing: atomicCAS on the bucket's value, then atomicAdd on its count.
 * The table is real (it is probed on the host as the warps run), so probe
 * sequences are exactly those of the algorithm on this input; past 64 MiB
 * it holds only the buckets the probes reached (gb_bucket).
 *
 * With scope=S (Karnagel §5.3, Fig. 11) the table is split into S-byte TLB
 * scopes and each chunk is processed in one pass per scope; a row belongs
 * to the scope of its home bucket (its probe sequence may run past the
 * scope's end, as on the GPU). scoped=naive re-reads the chunk zero-copy
 * in every pass; scoped=copy reads it zero-copy once, in pass 0, writes
 * every row to a chunk-sized device buffer, and later passes read that
 * buffer (rows of scope 0 are skipped there by the same scope test). */
#include "workloads/hash_groupby.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/u64map.h"
#include "gpuvm/units.h"
#include "workloads/scope_model.h"

/* Warp-instruction estimates for the loop body's SASS (no published
 * kernel): index math and bound test; Murmur3 on 4 bytes (~12 integer
 * ops, 4 of them multiplies) plus a 32-bit modulo by the bucket count
 * (~15: NVIDIA emulates integer division, 3 multiplies in the quotient
 * estimate and its correction); the probe loop's compare/advance. The
 * 7 multiplies cost gpu.imul32_issue_slots each. */
#define GB_INSTS_INDEX 4
#define GB_INSTS_HASH_OTHER 20
#define GB_IMULS_HASH 7
#define GB_INSTS_PROBE 3
/* The scope test of a scoped pass: divide the home bucket by the scope's
 * bucket count (a shift for power-of-two scopes), compare, branch. */
#define GB_INSTS_SCOPE_TEST 3
/* Karnagel §2.2: fill factor 0.5; linear probing then needs on average
 * (1 + 1/(1 - 0.5)) / 2 = 1.5 probes (CAS) per insert of a present key
 * (Knuth, successful search), plus the atomicAdd: for the scope model. */
#define GB_MODEL_RANDOM_INSTS 2.5

enum gb_scoped { GB_SCOPED_NAIVE, GB_SCOPED_COPY };

struct groupby {
	uint64_t table_base, input_base, buffer_base;
	uint64_t groups, buckets, input, chunk_elems, threads, seed;
	uint32_t hash_insts; /* GB_INSTS_HASH_OTHER + the multiplies on this GPU */
	/* the buckets on the host, each one word (gb_key, gb_count): a flat
	 * array, or NULL and sparse maps bucket index -> word */
	uint64_t *table;
	struct u64map sparse;
	uint64_t n_chunks;
	struct gb_chunk *chunks; /* [n_chunks x passes], chunk-major */
	struct scope_plan plan;
	uint64_t scope_buckets;  /* buckets per scope (all when unscoped) */
	enum gb_scoped scoped;
};

/* One launch: a chunk of the input in one scope's pass. */
struct gb_chunk {
	struct groupby *g;
	uint64_t first, count; /* input range of this launch */
	uint32_t pass;
	struct gpuvm_kernel kernel;
};

enum { GP_TOP, GP_LOAD, GP_HASH, GP_BUFFER, GP_CAS, GP_ADD, GP_NEXT, GP_END };

struct gb_warp {
	uint64_t bucket[GPUVM_WARP_LANES];
	uint32_t value[GPUVM_WARP_LANES];
	uint64_t idx;       /* chunk-relative index of lane 0 this iteration */
	uint32_t mask;      /* lanes with an input this iteration */
	uint32_t probing;   /* lanes still looking for their bucket */
	uint32_t matched;   /* lanes whose CAS found their bucket */
	int phase;
};

/* A table past GB_FLAT_MAX_BYTES is kept sparse: a map (core/u64map.h)
 * from bucket index to bucket that holds only the buckets a probe reached,
 * so host memory follows the rows inserted, not the table's size. (Flat, a
 * 4 GiB table of 1 Mi random rows had every 2 MiB page of it written, and
 * the kernel zeroed each: 4 GiB a run, more system than user time in
 * test_fidelity_e3.) A bucket no probe reached reads empty either way: the
 * CAS that reaches it claims it. */
#define GB_FLAT_MAX_BYTES (64ull << 20)
#define GB_SPARSE_FIRST_SLOTS (1u << 16)

/* A bucket's host word: struct groupby_bucket's key (value + 1, 0 =
 * empty) in the low half, its count in the high half, so that the sparse
 * table holds it as a u64map value */
static inline uint32_t gb_key(uint64_t w) { return (uint32_t)w; }
static inline uint32_t gb_count(uint64_t w) { return (uint32_t)(w >> 32); }
#define GB_COUNT_ONE (1ull << 32)

/* Bucket b's word, empty if no probe reached it before; NULL: out of
 * memory */
static uint64_t *gb_bucket(struct groupby *g, uint64_t b)
{
	if (g->table)
		return &g->table[b];
	struct u64map_entry *x = u64map_find(&g->sparse, b);
	if (!x)
		x = u64map_insert(&g->sparse, b, 0);
	return x ? &x->val : NULL;
}

/* where gb_bucket(g, b) will look first, for a prefetch */
static const void *gb_bucket_line(const struct groupby *g, uint64_t b)
{
	if (g->table)
		return &g->table[b];
	return &g->sparse.e[u64map_hash(b) & g->sparse.mask];
}

static void digest_add(uint64_t w, uint64_t *d, uint64_t *found, uint64_t *sum)
{
	if (gb_key(w)) {
		*d += splitmix64(gb_key(w) - 1) * gb_count(w);
		++*found;
		*sum += gb_count(w);
	}
}

uint64_t groupby_digest(const uint64_t *t, uint64_t buckets, uint64_t *groups_found,
			uint64_t *total)
{
	uint64_t d = 0, found = 0, sum = 0;
	for (uint64_t b = 0; b < buckets; b++)
		digest_add(t[b], &d, &found, &sum);
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
	case GP_LOAD: {
		/* Later passes of the copy variant read the device buffer the
		 * first pass wrote; everything else reads the pinned input. */
		int from_buffer = g->scoped == GB_SCOPED_COPY && c->pass > 0;
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_LOAD;
		it->bytes_per_lane = 4;
		it->active_mask = w->mask;
		/* fast-forward (k->functional) needs the values, not addresses */
		for (m = w->mask; m && !k->functional; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			it->addr[l] = from_buffer ? g->buffer_base + (w->idx + l) * 4
						  : g->input_base + (c->first + w->idx + l) * 4;
		}
		for (m = w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			w->value[l] = groupby_input(g->seed, c->first + w->idx + l, g->groups);
		}
		w->phase = GP_HASH;
		return 0;
	}
	case GP_HASH: {
		int scoped = g->plan.passes > 1;
		w->probing = 0;
		for (m = w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			w->bucket[l] = groupby_home(w->value[l], g->buckets);
			/* (a 64-bit division per row: only scoped runs pay it) */
			if (scoped && w->bucket[l] / g->scope_buckets != c->pass)
				continue; /* another pass inserts it */
			w->probing |= 1u << l;
			/* The CAS comes after other warps ran: the host cache miss on
			 * the real table overlaps with their work. */
			__builtin_prefetch(gb_bucket_line(g, w->bucket[l]), 1);
		}
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = g->hash_insts + (g->plan.passes > 1 ? GB_INSTS_SCOPE_TEST : 0);
		if (g->scoped == GB_SCOPED_COPY && g->plan.passes > 1 && c->pass == 0)
			w->phase = GP_BUFFER;
		else
			w->phase = w->probing ? GP_CAS : GP_NEXT;
		return 0;
	}
	case GP_BUFFER:
		/* copy variant, pass 0: buffer[i] = value, coalesced, for the
		 * later passes (Karnagel Fig. 9) */
		it->kind = GPUVM_ITEM_MEM;
		it->op = GPUVM_OP_STORE;
		it->bytes_per_lane = 4;
		it->active_mask = w->mask;
		for (m = k->functional ? 0 : w->mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			it->addr[l] = g->buffer_base + (w->idx + l) * 4;
		}
		w->phase = w->probing ? GP_CAS : GP_NEXT;
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
			uint64_t *b = gb_bucket(g, w->bucket[l]);
			if (!b)
				return gpuvm_fail(err, "--workload", 0, NULL,
						  "out of memory for the hash table's buckets");
			if (!k->functional)
				it->addr[l] = g->table_base +
					      w->bucket[l] * sizeof(struct groupby_bucket);
			if (gb_key(*b) == 0)
				*b |= (uint64_t)w->value[l] + 1;
			if (gb_key(*b) == w->value[l] + 1)
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
			if (!k->functional)
				it->addr[l] = g->table_base +
					      w->bucket[l] * sizeof(struct groupby_bucket) + 4;
			*gb_bucket(g, w->bucket[l]) += GB_COUNT_ONE; /* the CAS placed it */
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

/* groupby_digest over the sparse table's buckets: the same sum, whatever
 * their order */
static uint64_t sparse_digest(const struct u64map *m, uint64_t *groups_found, uint64_t *total)
{
	uint64_t d = 0, found = 0, sum = 0;
	for (uint32_t i = u64map_next(m, 0); i < u64map_slots(m); i = u64map_next(m, i + 1))
		digest_add(m->e[i].val, &d, &found, &sum);
	*groups_found = found;
	*total = sum;
	return d;
}

static void groupby_result(void *impl, char *buf, size_t len)
{
	struct groupby *g = impl;
	uint64_t found, total;
	uint64_t d = g->table ? groupby_digest(g->table, g->buckets, &found, &total)
			      : sparse_digest(&g->sparse, &found, &total);
	int n = snprintf(buf, len, "groups=%" PRIu64 " rows=%" PRIu64 " digest=%016" PRIx64, found,
			 total, d);
	if (n < 0 || (size_t)n >= len)
		return;
	if (g->plan.passes > 1) {
		char sc[32];
		gpuvm_format_size(g->plan.scope_bytes, sc, sizeof sc);
		snprintf(buf + n, len - (size_t)n, " scope=%s%s passes=%u scoped=%s", sc,
			 g->plan.automatic ? "(auto)" : "", g->plan.passes,
			 g->scoped == GB_SCOPED_COPY ? "copy" : "naive");
	} else if (g->plan.automatic) {
		snprintf(buf + n, len - (size_t)n, " scope=none(auto)");
	}
}

/* A flat table is probed at random, so back it with transparent huge pages
 * where the kernel allows: fewer page faults and host TLB misses. mmap'd
 * anonymous memory reads as zero (empty buckets) and costs RAM only where
 * touched. */
static uint64_t *table_alloc(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: fine if refused */
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
	u64map_free(&g->sparse);
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
	{"scope", GPUVM_PARAM_TEXT, "none",
	 "TLB scope of the hash table (Karnagel §5.3): one pass per scope and chunk, e.g. 2GiB; "
	 "auto = the scope the model predicts fastest on this GPU"},
	{"scoped", GPUVM_PARAM_TEXT, "copy",
	 "how passes after the first get the chunk: copy (device buffer written in pass 0) "
	 "or naive (zero-copy again)"},
};

struct gb_args {
	uint64_t groups, input, chunk, threads, block;
	uint32_t hash_insts;
	int has_region;
	enum gb_scoped scoped;
};

static int groupby_read_params(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			       struct gb_args *a, struct gpuvm_error *err)
{
	uint64_t region = 0;
	int has_groups;
	a->groups = 1ull << 24;
	a->input = 1610612736ull;
	a->chunk = 128ull << 20;
	a->threads = fill_gpu_threads(cfg);
	a->block = 256;
	a->hash_insts = GB_INSTS_HASH_OTHER + workload_imul_insts(cfg, GB_IMULS_HASH);
	if ((has_groups = gpuvm_params_u64(p, "groups", &a->groups, err)) < 0 ||
	    (a->has_region = gpuvm_params_size(p, "region", &region, err)) < 0 ||
	    gpuvm_params_u64(p, "input", &a->input, err) < 0 ||
	    gpuvm_params_size(p, "chunk", &a->chunk, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &a->threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &a->block, err) < 0)
		return -1;
	if (has_groups && a->has_region)
		return gpuvm_fail(err, "--workload", 0, "region", "give groups or region, not both");
	if (a->has_region)
		a->groups = region / (2 * sizeof(struct groupby_bucket));
	if (a->groups < 1 || a->groups > (1ull << 31))
		return gpuvm_params_constraint(err, a->has_region ? "region" : "groups",
					       "needs between 1 and 2^31 groups (16 B of table per "
					       "group)");
	if (workload_check_launch(a->threads, a->block, err))
		return -1;
	a->threads = (a->threads + a->block - 1) / a->block * a->block; /* whole blocks run */
	const char *v = gpuvm_params_text(p, "scoped");
	if (!v || !strcmp(v, "copy"))
		a->scoped = GB_SCOPED_COPY;
	else if (!strcmp(v, "naive"))
		a->scoped = GB_SCOPED_NAIVE;
	else
		return gpuvm_fail(err, "--workload", 0, "scoped", "'%s': expected copy or naive", v);
	return 0;
}

static void groupby_profile_of(const struct gb_args *a, struct scope_profile *prof)
{
	uint64_t chunk_elems = a->chunk / 4;
	uint64_t n_chunks = (a->input + chunk_elems - 1) / chunk_elems;
	memset(prof, 0, sizeof *prof);
	prof->workload = "hash-groupby";
	prof->region_bytes = 2 * a->groups * sizeof(struct groupby_bucket);
	prof->threads = (double)a->threads;
	prof->launches = (double)n_chunks;
	/* the model's launches are all full; the input's total is what counts */
	prof->iters = (double)a->input / (double)n_chunks / (double)a->threads;
	prof->compute_insts = GB_INSTS_INDEX + a->hash_insts + GB_INSTS_PROBE;
	prof->scope_insts = GB_INSTS_SCOPE_TEST;
	prof->random_insts = GB_MODEL_RANDOM_INSTS;
	/* an atomic on a bucket missing L2 fetches its sector and later
	 * writes it back */
	prof->random_sectors = 2;
	prof->stream_bytes = 4;
	prof->stream = a->scoped == GB_SCOPED_COPY ? SCOPE_STREAM_COPY : SCOPE_STREAM_NAIVE;
}

int groupby_scope_profile(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  struct scope_profile *prof, struct gpuvm_error *err)
{
	struct gb_args a;
	if (groupby_read_params(cfg, p, &a, err))
		return -1;
	groupby_profile_of(&a, prof);
	return 0;
}

static int groupby_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct gb_args a;
	struct scope_profile prof;
	struct scope_plan plan;
	if (groupby_read_params(cfg, p, &a, err))
		return -1;
	groupby_profile_of(&a, &prof);
	if (scope_plan_parse(cfg, p, &prof, &plan, err))
		return -1;

	uint64_t buckets = 2 * a.groups; /* fill factor 0.5 */
	uint64_t table_bytes = buckets * sizeof(struct groupby_bucket);
	/* The table is probed for real; refuse one whose host memory cannot
	 * fit in RAM: a flat table's bytes, a sparse one's slots (sized for
	 * the buckets the rows' probes may reach, about 1.5 a row at the
	 * table's fill factor, section 2.2 above, at most half full, so that
	 * it need not grow in the common case). */
	uint64_t reach = a.input + a.input / 2 < buckets ? a.input + a.input / 2 : buckets, cap = 1;
	while (cap < 2 * reach || cap < GB_SPARSE_FIRST_SLOTS)
		cap *= 2;
	int flat = table_bytes <= GB_FLAT_MAX_BYTES;
	uint64_t host_bytes = flat ? table_bytes : cap * sizeof(struct u64map_entry);
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if ((!flat && cap > U64MAP_MAX_SLOTS) ||
	    (pages > 0 && psize > 0 && host_bytes > (uint64_t)pages * (uint64_t)psize / 4 * 3))
		return gpuvm_fail(err, "--workload", 0, flat ? (a.has_region ? "region" : "groups") : "input",
				  "a %" PRIu64 "-byte hash table of %" PRIu64 " rows needs %" PRIu64
				  " bytes of host memory, more than this machine has",
				  table_bytes, a.input, host_bytes);

	struct groupby *g = calloc(1, sizeof *g);
	if (!g)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	g->groups = a.groups;
	g->buckets = buckets;
	g->input = a.input;
	g->chunk_elems = a.chunk / 4;
	g->threads = a.threads;
	g->seed = seed;
	g->hash_insts = a.hash_insts;
	g->plan = plan;
	g->scoped = a.scoped;
	g->scope_buckets = plan.passes > 1 ? plan.scope_bytes / sizeof(struct groupby_bucket)
					   : buckets;
	g->n_chunks = (a.input + g->chunk_elems - 1) / g->chunk_elems;
	int no_table = flat ? !(g->table = table_alloc(table_bytes))
			    : u64map_init(&g->sparse, (uint32_t)cap);
	g->chunks = calloc(g->n_chunks * plan.passes, sizeof *g->chunks);
	if (no_table || !g->chunks) {
		groupby_destroy(g);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory for the hash table");
	}

	struct op_list l = {.impl = g, .result = groupby_result,
			 .work_items = groupby_items, .destroy_impl = groupby_destroy};
	struct va_layout va;
	struct gpuvm_alloc al;
	va_layout_init(&va);
	g->table_base = va_layout_alloc(&va, &al, "hash_table", table_bytes, GPUVM_ALLOC_DEVICE);
	int rc = op_list_alloc(&l, &al);
	g->input_base = va_layout_alloc(&va, &al, "input_column", a.input * 4,
					GPUVM_ALLOC_HOST_PINNED);
	rc |= op_list_alloc(&l, &al);
	if (g->scoped == GB_SCOPED_COPY && plan.passes > 1) {
		/* Karnagel §5.3: only one chunk's rows need to live on the GPU */
		uint64_t rows = a.input < g->chunk_elems ? a.input : g->chunk_elems;
		g->buffer_base = va_layout_alloc(&va, &al, "scope_buffer", rows * 4,
						 GPUVM_ALLOC_DEVICE);
		rc |= op_list_alloc(&l, &al);
	}
	for (uint64_t i = 0; i < g->n_chunks; i++) {
		for (uint32_t ps = 0; ps < plan.passes; ps++) {
			struct gb_chunk *c = &g->chunks[i * plan.passes + ps];
			c->g = g;
			c->pass = ps;
			c->first = i * g->chunk_elems;
			c->count = a.input - c->first < g->chunk_elems ? a.input - c->first
								     : g->chunk_elems;
			char name[64];
			if (plan.passes > 1)
				snprintf(name, sizeof name, "scoped_groupby_chunk_%" PRIu64 "_pass_%u",
					 i, ps);
			else
				snprintf(name, sizeof name, "groupby_chunk_%" PRIu64, i);
			workload_kernel_1d(&c->kernel, name, &groupby_ops, c, a.threads, a.block);
			/* Kernel sampling: every chunk of a pass does the same work on
			 * fresh rows of one input distribution (the last chunk may be
			 * shorter: per warp instruction it is alike), so chunks stand
			 * for one another once the table and TLBs are warm. Passes
			 * differ (pass 0 of scoped=copy also writes the buffer, later
			 * passes read it and insert other scopes): one class each. */
			c->kernel.sampleable = true;
			c->kernel.sample_class = ps;
			rc |= op_list_kernel(&l, &c->kernel);
		}
	}
	if (rc) {
		free(l.ops);
		groupby_destroy(g);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}
	return op_list_source(&l, out, err);
}

/* At least a read, a compare-and-swap and an add per input value (more
 * with probe collisions and naive scoped passes): a lower bound. */
static int groupby_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			    uint64_t *thread_accesses, struct gpuvm_error *err)
{
	struct gb_args a;
	if (groupby_read_params(cfg, p, &a, err))
		return -1;
	*thread_accesses = workload_mul_sat(a.input, 3);
	return 0;
}

/* 2^32 threads and 1024 per block: CUDA's limits */
static const struct gpuvm_param_range groupby_params_ranges[] = {
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("input", 1, 1099511627776.0),
	GPUVM_RANGE_STEP("chunk", 4, 562949953421312.0, 4),
	GPUVM_RANGE("groups", 1, 2147483648.0),
	GPUVM_RANGE("region", 16, 34359738368.0),
};

const struct gpuvm_workload_def gpuvm_workload_hash_groupby = {
	.name = "hash-groupby",
	.summary = "Karnagel §2.2/§5.3: Murmur3 linear-probing group-by, input zero-copy in "
		   "128 MB chunks, optionally in TLB-scoped passes (Fig. 1b, 11)",
	.working_set = "16 B x groups (device table) + 4 B x input (pinned host, streamed)"
		       " + one chunk (device buffer, scoped=copy)",
	.params = groupby_params,
	.n_params = sizeof groupby_params / sizeof groupby_params[0],
	.ranges = groupby_params_ranges,
	.n_ranges = sizeof groupby_params_ranges / sizeof groupby_params_ranges[0],
	.create = groupby_create,
	.estimate = groupby_estimate,
};
