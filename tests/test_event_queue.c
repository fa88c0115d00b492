/* The engine's event order: the four-ary heap and the calendar queue in
 * front of it, each checked against a reference that scans for the
 * earliest (time, push order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/event_heap.h"
#include "engine/event_queue.h"

/* The reference both structures are checked against: every queued event,
 * scanned for the earliest (time, push order). */
enum { REF_CAP = 600 };
struct ref_event {
	double t;
	uint64_t order;
	uint32_t warp;
};
struct ref_queue {
	struct ref_event ev[REF_CAP];
	uint32_t n;
	uint64_t order;
};

static void ref_push(struct ref_queue *r, double t, uint32_t warp)
{
	r->ev[r->n++] = (struct ref_event){t, r->order++, warp};
}

/* Removes and returns the earliest event. */
static struct ref_event ref_pop(struct ref_queue *r)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i < r->n; i++)
		if (r->ev[i].t < r->ev[best].t ||
		    (r->ev[i].t == r->ev[best].t && r->ev[i].order < r->ev[best].order))
			best = i;
	struct ref_event e = r->ev[best];
	r->ev[best] = r->ev[--r->n];
	return e;
}

static void test_event_heap_orders_by_time_then_seq(void **state)
{
	(void)state;
	struct event_heap q;
	assert_int_equal(event_heap_init(&q, 8), 0);
	event_heap_insert(&q, (struct event){5.0, 0, 1});
	event_heap_insert(&q, (struct event){1.0, 1, 2});
	event_heap_insert(&q, (struct event){5.0, 2, 3});
	event_heap_insert(&q, (struct event){0.5, 3, 4});
	double t;
	assert_int_equal(event_heap_pop(&q, &t), 4);
	assert_int_equal(event_heap_pop(&q, &t), 2);
	assert_int_equal(event_heap_pop(&q, &t), 1); /* tie: lower seq first */
	assert_int_equal(event_heap_pop(&q, &t), 3);
	assert_true(event_heap_empty(&q));
	event_heap_free(&q);
}

/* Interleaved inserts and pops with many equal times, numbered in push
 * order as event_queue numbers them. */
static void test_event_heap_matches_reference(void **state)
{
	(void)state;
	enum { CAP = 300 };
	struct event_heap q;
	assert_int_equal(event_heap_init(&q, CAP), 0);
	static struct ref_queue ref;
	ref.n = 0;
	ref.order = 0;
	uint32_t next_warp = 0;
	uint64_t rng = 12345;
	for (int step = 0; step < 20000; step++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		bool push = ref.n == 0 || (ref.n < CAP && ((rng >> 33) % 3 != 0));
		if (push) {
			double t = (double)((rng >> 40) % 16); /* few distinct times: ties */
			event_heap_insert(&q, (struct event){t, (uint32_t)ref.order, next_warp});
			ref_push(&ref, t, next_warp++);
			continue;
		}
		struct ref_event e = ref_pop(&ref);
		double t;
		assert_int_equal(event_heap_pop(&q, &t), e.warp);
		assert_true(t == e.t);
	}
	event_heap_free(&q);
}

/* Times drawn to reach every path of the calendar: ties, near buckets
 * filled in and out of order, one crowded bucket (past EVQ_SORT_MAX, so
 * out-of-order pushes there go to the heap), events about and past the
 * horizon, events earlier than the last pop. Each warp has at most one
 * event, as in the engine; the counter starts below its wrap so the queue
 * renumbers mid-run. */
static void test_event_queue_matches_reference(void **state)
{
	(void)state;
	enum { CAP = REF_CAP };
	struct event_queue q;
	assert_int_equal(event_queue_init(&q, CAP), 0);
	q.seq = UINT32_MAX - 20000;
	static struct ref_queue ref;
	ref.n = 0;
	ref.order = 0;
	uint32_t free_warp[CAP], n_free = CAP;
	for (uint32_t i = 0; i < CAP; i++)
		free_warp[i] = CAP - 1 - i;
	uint64_t rng = 99;
	double now = 0;
	bool renumbered = false, used_heap = false, crowded = false;
	for (int step = 0; step < 200000; step++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t r = rng >> 24;
		bool push = ref.n == 0 || (ref.n < CAP && r % 3 != 0);
		if (push) {
			double t;
			switch ((r >> 4) % 9) {
			case 0: case 1: t = now + (double)((r >> 8) % 64); break;
			case 2: t = now; break;
			case 3: t = now + (double)((r >> 8) % 4096) / 8.0; break;
			case 4: t = now + 70000.0 + (double)((r >> 8) % 300000); break;
			case 5: t = now - (double)((r >> 8) % 100); break;
			case 6: /* about the horizon: the ring's positions must not alias */
				t = now + (double)(EVQ_BUCKETS << EVQ_BUCKET_SHIFT) - (double)((r >> 8) % 64);
				break;
			default: /* eight times within the first bucket of a 64-cycle
				  * step 37-100 cycles on, so it gets crowded */
				t = (double)((((int64_t)now + 100) >> 6) << 6) +
				    (double)((r >> 8) % 8) * (double)(1u << EVQ_BUCKET_SHIFT) / 8.0;
				break;
			}
			if (t < 0)
				t = 0;
			uint32_t w = free_warp[--n_free];
			event_queue_push(&q, t, w);
			ref_push(&ref, t, w);
			renumbered |= q.seq < 1000;
			used_heap |= !event_heap_empty(&q.far);
			crowded |= q.bucket[((uint64_t)t >> EVQ_BUCKET_SHIFT) & (EVQ_BUCKETS - 1)].count >
				   EVQ_SORT_MAX;
			continue;
		}
		struct ref_event e = ref_pop(&ref);
		assert_true(event_queue_front_time(&q) == e.t);
		assert_int_equal(event_queue_front_warp(&q), e.warp);
		double t;
		assert_int_equal(event_queue_pop(&q, &t), e.warp);
		assert_true(t == e.t);
		now = t;
		free_warp[n_free++] = e.warp;
	}
	assert_true(renumbered);
	assert_true(used_heap);
	assert_true(crowded);
	event_queue_free(&q);
}

/* A cleared queue is empty and orders what comes after as a new one. */
static void test_event_queue_clear(void **state)
{
	(void)state;
	struct event_queue q;
	assert_int_equal(event_queue_init(&q, 4), 0);
	event_queue_push(&q, 10.0, 0);
	event_queue_push(&q, 1e9, 1);
	event_queue_clear(&q);
	assert_true(event_queue_empty(&q));
	event_queue_push(&q, 12.0, 2);
	event_queue_push(&q, 11.0, 3);
	event_queue_push(&q, 11.0, 0);
	double t;
	assert_int_equal(event_queue_pop(&q, &t), 3);
	assert_int_equal(event_queue_pop(&q, &t), 0);
	assert_int_equal(event_queue_pop(&q, &t), 2);
	assert_true(t == 12.0 && event_queue_empty(&q));
	event_queue_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_heap_orders_by_time_then_seq),
		cmocka_unit_test(test_event_heap_matches_reference),
		cmocka_unit_test(test_event_queue_matches_reference),
		cmocka_unit_test(test_event_queue_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
