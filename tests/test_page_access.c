/* Page-access maps: the wrapper leaves the simulation unchanged, keeps
 * its memory bounded, and shows stream-triad as dense and sequential and
 * random sampling as uniform over pages and time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuvm/page_access.h"
#include "run_util.h"

static int wrap(void *ctx, struct gpuvm_source *src, struct gpuvm_error *err)
{
	return gpuvm_page_access_wrap(ctx, src, err);
}

static cJSON *run(const char *workload, struct gpuvm_page_access *pa)
{
	struct gpuvm_run_spec spec = {.gpu = "p100", .workload = workload, .seed = 3};
	if (pa) {
		spec.wrap_source = wrap;
		spec.wrap_ctx = pa;
	}
	return run_report(&spec);
}

static struct gpuvm_page_access *recorder(void)
{
	struct gpuvm_page_access *pa;
	struct gpuvm_error err = {{0}};
	struct gpuvm_page_access_opts o = {.time_buckets = 64, .max_rows = 128};
	if (gpuvm_page_access_create(&o, &pa, &err))
		fail_msg("%s", err.msg);
	return pa;
}

static size_t alloc_named(const struct gpuvm_page_access *pa, const char *name)
{
	for (size_t i = 0; i < gpuvm_page_access_allocs(pa); i++) {
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, i, &x);
		if (!strcmp(x.alloc.name, name))
			return i;
	}
	fail_msg("no allocation %s", name);
	return 0;
}

/* Per row: accesses, mean time bucket; summed check of the cells. */
struct row_stats {
	double mean_bucket[128];
	uint64_t acc[128];
	uint32_t rows;
	bool any_write;
};

static void rows_of(const struct gpuvm_page_access *pa, size_t ai, struct row_stats *rs)
{
	struct gpuvm_page_access_alloc x;
	gpuvm_page_access_alloc_info(pa, ai, &x);
	uint32_t nb = gpuvm_page_access_buckets(pa);
	assert_true(x.rows <= 128);
	memset(rs, 0, sizeof *rs);
	rs->rows = x.rows;
	uint64_t total = 0;
	for (uint32_t r = 0; r < x.rows; r++) {
		double sum_b = 0;
		for (uint32_t b = 0; b < nb; b++) {
			struct gpuvm_page_access_cell c;
			gpuvm_page_access_cell(pa, ai, r, b, &c);
			rs->acc[r] += c.accesses;
			sum_b += (double)b * (double)c.accesses;
			rs->any_write |= c.written;
		}
		rs->mean_bucket[r] = rs->acc[r] ? sum_b / (double)rs->acc[r] : NAN;
		total += rs->acc[r];
	}
	assert_int_equal(total, x.accesses);
}

static double correlation(const struct row_stats *rs)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	for (uint32_t r = 0; r < rs->rows; r++) {
		if (isnan(rs->mean_bucket[r]))
			continue;
		double x = r, y = rs->mean_bucket[r];
		n++;
		sx += x;
		sy += y;
		sxx += x * x;
		syy += y * y;
		sxy += x * y;
	}
	double cov = sxy / n - sx / n * sy / n;
	return cov / sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
}

static void test_wrapper_is_transparent(void **state)
{
	(void)state;
	const char *wl = "stream-triad:elems=262144,threads=16384";
	struct gpuvm_page_access *pa = recorder();
	cJSON *plain = run(wl, NULL), *wrapped = run(wl, pa);
	assert_true(report_num(plain, "sim_cycles") == report_num(wrapped, "sim_cycles"));
	assert_true(report_num(plain, "warp_instructions") == report_num(wrapped, "warp_instructions"));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(plain, "result")->valuestring,
			    cJSON_GetObjectItemCaseSensitive(wrapped, "result")->valuestring);
	/* every memory instruction was seen, in bounded buckets */
	uint64_t mem = gpuvm_page_access_mem_insts(pa);
	assert_true(mem > 0);
	assert_true(gpuvm_page_access_buckets(pa) <= 64);
	assert_true(gpuvm_page_access_buckets(pa) > 32);
	assert_int_equal(gpuvm_page_access_kernels(pa), 1);
	struct gpuvm_page_access_kernel k;
	gpuvm_page_access_kernel_info(pa, 0, &k);
	assert_int_equal(k.mem_insts, mem);
	assert_int_equal(gpuvm_page_access_unattributed(pa), 0);
	cJSON_Delete(plain);
	cJSON_Delete(wrapped);
	gpuvm_page_access_destroy(pa);
}

static void test_triad_dense_sequential(void **state)
{
	(void)state;
	struct gpuvm_page_access *pa = recorder();
	cJSON *o = run("stream-triad:elems=1048576,threads=32768", pa);
	const char *names[] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++) {
		struct row_stats rs;
		rows_of(pa, alloc_named(pa, names[i]), &rs);
		/* dense: every row accessed, evenly */
		for (uint32_t r = 0; r + 1 < rs.rows; r++) {
			assert_true(rs.acc[r] > 0);
			assert_true(rs.acc[r] * 10 > rs.acc[0] * 9 && rs.acc[r] * 9 < rs.acc[0] * 10);
		}
		/* sequential: later pages later in time */
		assert_true(correlation(&rs) > 0.95);
		assert_int_equal(rs.any_write, i == 0); /* only a is stored to */
	}
	cJSON_Delete(o);
	gpuvm_page_access_destroy(pa);
}

static void test_sampling_uniform(void **state)
{
	(void)state;
	struct gpuvm_page_access *pa = recorder();
	cJSON *o = run("random-sampling:region=64MiB,threads=4096,reads=64", pa);
	struct row_stats rs;
	rows_of(pa, alloc_named(pa, "region"), &rs);
	assert_false(rs.any_write);
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
	for (uint32_t r = 0; r < rs.rows; r++) {
		lo = rs.acc[r] < lo ? rs.acc[r] : lo;
		hi = rs.acc[r] > hi ? rs.acc[r] : hi;
		sum += rs.acc[r];
	}
	double mean = (double)sum / rs.rows;
	assert_true(lo > 0.8 * mean && hi < 1.2 * mean); /* uniform over pages */
	assert_true(fabs(correlation(&rs)) < 0.3);       /* no sweep over time */
	for (uint32_t r = 0; r < rs.rows; r++)           /* every row all along */
		assert_true(fabs(rs.mean_bucket[r] - rs.mean_bucket[0]) < 0.15 * gpuvm_page_access_buckets(pa));
	cJSON_Delete(o);
	gpuvm_page_access_destroy(pa);
}

static void test_outputs_written(void **state)
{
	(void)state;
	struct gpuvm_page_access *pa = recorder();
	cJSON *o = run("stream-triad:elems=65536,threads=8192", pa);
	char dir[] = "/tmp/gpuvm-pa-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char prefix[64], path[80];
	snprintf(prefix, sizeof prefix, "%s/map", dir);
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_page_access_write(pa, prefix, NULL, GPUVM_PAGE_MAP_AUTO, &err), 0);
	snprintf(path, sizeof path, "%s.csv", prefix);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[512];
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "allocation,alloc_index,kind,row,page_first,pages,bucket,"
				  "time_first,time_last,accesses,thread_accesses,accesses_per_page,"
				  "written,remote,fault,counter,prefetch,evict,decision\n");
	size_t rows = 0;
	while (fgets(line, sizeof line, f))
		rows++;
	fclose(f);
	assert_true(rows > 3);
	unlink(path);
	snprintf(path, sizeof path, "%s.json", prefix);
	f = fopen(path, "r");
	assert_non_null(f);
	char *text = calloc(1, 1 << 16);
	size_t n = fread(text, 1, (1 << 16) - 1, f);
	fclose(f);
	assert_true(n > 0);
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "allocations")), 3);
	cJSON_Delete(j);
	free(text);
	unlink(path);
	rmdir(dir);
	cJSON_Delete(o);
	gpuvm_page_access_destroy(pa);
}

/* The paging decisions reach the map: summed over its cells they equal
 * the run's counts, cells are placed where the pages are, and under
 * delayed migration the cold input of a sampling run is read remotely. */
static void test_decisions_recorded(void **state)
{
	(void)state;
	struct gpuvm_page_access *pa = recorder();
	struct gpuvm_uvm_observer obs;
	gpuvm_page_access_observer(pa, &obs);
	struct gpuvm_run_spec spec = {
		.gpu = "gtx1080ti-uvmsmart",
		.workload = "stream-triad:mem=managed,elems=262144,threads=16384",
		.seed = 3, .wrap_source = wrap, .wrap_ctx = pa, .uvm_observer = &obs,
		.sets = {"uvm.oversub_percent=125", "uvm.migration=adaptive"}, .n_sets = 2,
	};
	cJSON *o = run_report(&spec);
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "uvm");
	assert_non_null(u);
	static const char *const run_key[GPUVM_UVM_DECISIONS] = {
		"remote_accesses", "migrations_fault", "migrations_counter", "migrations_prefetch",
		"pages_evicted",
	};
	uint64_t sum[GPUVM_UVM_DECISIONS] = {0};
	uint32_t nb = gpuvm_page_access_buckets(pa);
	for (size_t i = 0; i < gpuvm_page_access_allocs(pa); i++) {
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, i, &x);
		for (uint32_t r = 0; r < x.rows; r++)
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, i, r, b, &c);
				for (int d = 0; d < GPUVM_UVM_DECISIONS; d++)
					sum[d] += c.decisions[d];
				int dec = gpuvm_page_access_cell_decision(&c);
				if (dec >= 0)
					assert_true(c.decisions[dec] > 0);
			}
	}
	for (int d = 0; d < GPUVM_UVM_DECISIONS; d++) {
		double want = cJSON_GetObjectItemCaseSensitive(u, run_key[d])->valuedouble;
		assert_true((double)sum[d] == want);
	}
	assert_true(sum[GPUVM_UVM_MIGRATE_FAULT] > 0);
	assert_true(sum[GPUVM_UVM_EVICT] > 0); /* 125 %: the triad evicts */
	assert_true(gpuvm_page_access_decisions(pa) > 0);
	/* per allocation, the run's JSON agrees with the map */
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(u, "allocations"), *a;
	assert_int_equal(cJSON_GetArraySize(al), 3);
	cJSON_ArrayForEach(a, al) {
		const char *name = cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring;
		size_t ai = alloc_named(pa, name);
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, ai, &x);
		uint64_t ev = 0;
		for (uint32_t r = 0; r < x.rows; r++)
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, ai, r, b, &c);
				ev += c.decisions[GPUVM_UVM_EVICT];
			}
		assert_true((double)ev == cJSON_GetObjectItemCaseSensitive(a, "pages_evicted")->valuedouble);
	}
	cJSON_Delete(o);
	gpuvm_page_access_destroy(pa);
}

/* A hand-made source: two allocations (A page-aligned and ending 256 B
 * into its 17th page; B at an unaligned base), one kernel of one warp
 * whose five memory instructions exercise every path of the recorder:
 * one page of A (coalesced), two pages of A in alternating lanes (a store),
 * one aligned 4 KiB frame that is two of B's pages, a partial mask over
 * A, B and no allocation, and A's last frame that the allocation ends
 * inside of. */
#define HAND_A 0x10000000ull
#define HAND_A_BYTES (65536ull + 256)
#define HAND_B 0x20000100ull
#define HAND_B_BYTES 16384ull

struct hand_source {
	struct gpuvm_kernel kernel;
	unsigned op;
};

/* what the inner kernel saw of the engine: the clock at each item, and
 * the prefetch hints passed on */
static double hand_clock[8];
static unsigned hand_prefetches;

static void hand_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	(void)k, (void)cta, (void)warp;
	*(unsigned *)state = 0;
}

static int hand_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		     struct gpuvm_error *err)
{
	(void)err;
	unsigned *i = state;
	hand_clock[*i < 8 ? *i : 7] = k->clock_cycles;
	memset(it->addr, 0, sizeof it->addr);
	it->kind = GPUVM_ITEM_MEM;
	it->space = GPUVM_SPACE_GLOBAL;
	it->op = GPUVM_OP_LOAD;
	it->bytes_per_lane = 4;
	it->active_mask = 0xffffffffu;
	for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++) {
		switch (*i) {
		case 0: it->addr[l] = HAND_A + 4096 + 4 * l; break;
		case 1: it->addr[l] = HAND_A + (l % 2 ? 8192 : 0) + 8 * l; break;
		case 2: it->addr[l] = 0x200010c0ull + 4 * l; break; /* B pages 0, 1 */
		case 3: it->addr[l] = l == 1 ? HAND_B : l == 2 ? 1 : HAND_A + 4096 + 4 * l; break;
		case 4: it->addr[l] = HAND_A + 65536 + 16 * l; break; /* lanes 16.. past A */
		default: it->kind = GPUVM_ITEM_END; break;
		}
	}
	if (*i == 1)
		it->op = GPUVM_OP_STORE;
	if (*i == 3)
		it->active_mask = 0xf;
	(*i)++;
	return 0;
}

static void hand_prefetch(struct gpuvm_kernel *k, const void *state)
{
	(void)k, (void)state;
	hand_prefetches++;
}

static const struct gpuvm_kernel_ops hand_ops = {
	.warp_state_bytes = sizeof(unsigned), .warp_begin = hand_begin, .warp_next = hand_next,
	.warp_prefetch = hand_prefetch,
};

static int hand_next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	(void)err;
	struct hand_source *h = s->impl;
	memset(op, 0, sizeof *op);
	switch (h->op++) {
	case 0:
		*op = (struct gpuvm_run_op){.kind = GPUVM_RUN_ALLOC,
					    .alloc = {.name = "A", .base = HAND_A, .bytes = HAND_A_BYTES}};
		break;
	case 1:
		*op = (struct gpuvm_run_op){.kind = GPUVM_RUN_ALLOC,
					    .alloc = {.name = "B", .base = HAND_B, .bytes = HAND_B_BYTES}};
		break;
	case 2:
		op->kind = GPUVM_RUN_KERNEL;
		op->kernel = &h->kernel;
		break;
	default:
		op->kind = GPUVM_RUN_END;
	}
	return 0;
}

static void hand_destroy(struct gpuvm_source *s) { (void)s; }

static const struct gpuvm_source_ops hand_source_ops = {
	.kind = "test", .next_op = hand_next_op, .destroy = hand_destroy,
};

/* Drives the wrapped source as the engine would (ops in order, the one
 * warp's items until its end). */
static void run_hand(struct gpuvm_page_access *pa)
{
	struct hand_source h = {.kernel = {.name = "hand", .grid = {1, 1, 1}, .block = {32, 1, 1},
					   .ops = &hand_ops}};
	struct gpuvm_source src = {.ops = &hand_source_ops, .impl = &h};
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_page_access_wrap(pa, &src, &err), 0);
	struct gpuvm_run_op op;
	unsigned state = 0;
	for (;;) {
		assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
		if (op.kind == GPUVM_RUN_END)
			break;
		if (op.kind != GPUVM_RUN_KERNEL)
			continue;
		struct gpuvm_kernel *k = op.kernel;
		assert_ptr_not_equal(k, &h.kernel); /* the wrapper's */
		assert_non_null(k->ops->warp_prefetch); /* the inner one has one */
		k->ops->warp_begin(k, &state, 0, 0);
		struct gpuvm_warp_item it;
		hand_prefetches = 0;
		unsigned n = 0;
		do {
			k->ops->warp_prefetch(k, &state);
			k->clock_cycles = 1000 + n++; /* as the engine sets it */
			assert_int_equal(k->ops->warp_next(k, &state, &it, &err), 0);
		} while (it.kind != GPUVM_ITEM_END);
		/* the inner kernel read the engine's clock and got its hints */
		assert_int_equal(hand_prefetches, n);
		for (unsigned i = 0; i < n && i < 8; i++)
			assert_true(hand_clock[i] == 1000 + i);
	}
	src.ops->destroy(&src);
}

/* Every pair and lane counted exactly, with and without the map's cells:
 * A 1 + 2 + 1 + 1 pairs over 32 + 32 + 2 + 16 lanes, B 2 + 1 over 33,
 * 17 lanes in no allocation. */
static void test_pairs_counted_exactly(void **state)
{
	(void)state;
	for (int totals_only = 0; totals_only < 2; totals_only++) {
		struct gpuvm_page_access *pa;
		struct gpuvm_error err = {{0}};
		struct gpuvm_page_access_opts o = {.time_buckets = 64, .max_rows = 128,
						   .totals_only = totals_only};
		assert_int_equal(gpuvm_page_access_create(&o, &pa, &err), 0);
		run_hand(pa);
		assert_int_equal(gpuvm_page_access_mem_insts(pa), 5);
		assert_int_equal(gpuvm_page_access_unattributed(pa), 17);
		struct gpuvm_page_access_alloc a, b;
		gpuvm_page_access_alloc_info(pa, alloc_named(pa, "A"), &a);
		gpuvm_page_access_alloc_info(pa, alloc_named(pa, "B"), &b);
		assert_int_equal(a.accesses, 5);
		assert_int_equal(a.thread_accesses, 82);
		assert_int_equal(a.first_time, 0);
		assert_int_equal(a.last_time, 4);
		assert_int_equal(b.accesses, 3);
		assert_int_equal(b.thread_accesses, 33);
		assert_int_equal(b.first_time, 2);
		assert_int_equal(b.last_time, 3);
		assert_int_equal(a.rows, 17); /* a row a page */
		struct gpuvm_page_access_cell c;
		gpuvm_page_access_cell(pa, alloc_named(pa, "A"), 2, 1, &c);
		if (totals_only) {
			assert_int_equal(c.accesses, 0); /* no cells */
		} else {
			/* the store's second page: one pair of 16 lanes, written */
			assert_int_equal(c.accesses, 1);
			assert_int_equal(c.thread_accesses, 16);
			assert_true(c.written);
			gpuvm_page_access_cell(pa, alloc_named(pa, "A"), 1, 0, &c);
			assert_int_equal(c.accesses, 1);
			assert_int_equal(c.thread_accesses, 32);
			assert_false(c.written);
			gpuvm_page_access_cell(pa, alloc_named(pa, "B"), 1, 2, &c);
			assert_int_equal(c.accesses, 1); /* 0x20001100.. is B's page 1 */
			assert_int_equal(c.thread_accesses, 16);
			struct row_stats rs;
			rows_of(pa, alloc_named(pa, "A"), &rs); /* the cells add up */
		}
		gpuvm_page_access_destroy(pa);
	}
}

static void test_bad_options(void **state)
{
	(void)state;
	struct gpuvm_page_access *pa;
	struct gpuvm_error err = {{0}};
	struct gpuvm_page_access_opts o = {.page_bytes = 3000};
	assert_int_equal(gpuvm_page_access_create(&o, &pa, &err), -1);
	assert_non_null(strstr(err.msg, "power of two"));
	o = (struct gpuvm_page_access_opts){.time_buckets = 7};
	assert_int_equal(gpuvm_page_access_create(&o, &pa, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrapper_is_transparent),
		cmocka_unit_test(test_triad_dense_sequential),
		cmocka_unit_test(test_sampling_uniform),
		cmocka_unit_test(test_outputs_written),
		cmocka_unit_test(test_decisions_recorded),
		cmocka_unit_test(test_pairs_counted_exactly),
		cmocka_unit_test(test_bad_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
