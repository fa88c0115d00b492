/* The engine's event order: the four-ary heap and the calendar queue in
 * front of it (bucket lists, the sorted run, the heap), each checked
 * against a reference that scans for the earliest (time, push order); the
 * queue's every push path and both ways of opening a bucket are counted
 * and must each be taken at least 1000 times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "event/event_heap.h"
#include "event/event_queue.h"

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

/* Which way a push goes, read from the queue's state before it (the same
 * tests event_queue_push makes), so the test can count each path. */
enum push_path {
	PP_LIST_NEW,     /* an empty bucket's list */
	PP_LIST_APPEND,  /* a bucket list that has events */
	PP_RUN_END,      /* the run, at its end */
	PP_RUN_DOWN,     /* the run's middle, the events before it moved down */
	PP_RUN_UP,       /* the run's middle, the events after it moved up */
	PP_RUN_FULL,     /* the run's middle with the run at the array's end */
	PP_HEAP_WINDOW,  /* the heap: past the ring's window */
	PP_HEAP_NO_BUCKET, /* the heap: a time with no bucket */
	PP_N
};

static enum push_path classify_push(const struct event_queue *q, double t)
{
	int64_t b;
	if (!evq_bucket_of(t, &b))
		return PP_HEAP_NO_BUCKET;
	if (q->rh < q->rn && b <= q->open) {
		if (q->run[q->rn - 1].t <= t && q->rn < q->cap)
			return PP_RUN_END;
		uint32_t p = q->rh;
		while (p < q->rn && q->run[p].t <= t)
			p++;
		if (q->rh && p - q->rh <= q->rn - p)
			return PP_RUN_DOWN;
		return q->rh && q->rn == q->cap ? PP_RUN_FULL : PP_RUN_UP;
	}
	if ((uint64_t)(b - q->base) >= EVQ_BUCKETS)
		return PP_HEAP_WINDOW;
	return q->bucket[(uint32_t)b & (EVQ_BUCKETS - 1)] ? PP_LIST_APPEND : PP_LIST_NEW;
}

struct mix {
	uint32_t cap;
	uint64_t seed;
	int steps;
	double bucket_cycles; /* 1 / EVQ_BUCKETS_PER_CYCLE */
	/* most pushes: 0 mixed, 1 within the bucket being drained or the
	 * next, 2 into crowded buckets */
	int mode;
};

/* Interleaved pushes and pops checked against the reference. Times drawn
 * to reach every path: ties, times a fraction of a bucket apart so that
 * pushes land in the run being drained, crowded buckets (opened past the
 * branch-free ranking's EVQ_RANK_MAX, so sorted), events about and past
 * the horizon, earlier than the last pop, negative (no bucket) and
 * infinite. Each warp has at most one event, as in the engine; the
 * counter starts below its wrap so the queue renumbers mid-run. counts:
 * pushes by path, then [PP_N] opens ranked, [PP_N + 1] opens sorted,
 * [PP_N + 2] pops from the heap, [PP_N + 3] renumberings. */
static void run_mix(const struct mix *mx, uint64_t counts[PP_N + 4])
{
	struct event_queue q;
	assert_int_equal(event_queue_init(&q, mx->cap), 0);
	q.seq = UINT32_MAX - 20000;
	static struct ref_queue ref;
	ref.n = 0;
	ref.order = 0;
	uint32_t free_warp[REF_CAP], n_free = mx->cap;
	for (uint32_t i = 0; i < mx->cap; i++)
		free_warp[i] = mx->cap - 1 - i;
	uint64_t rng = mx->seed;
	double now = 0, bc = mx->bucket_cycles;
	bool filling = true;
	double horizon = (double)EVQ_BUCKETS * bc;
	for (int step = 0; step < mx->steps; step++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t r = rng >> 24;
		bool push = ref.n == 0 || (ref.n < mx->cap && r % 3 != 0);
		if (mx->mode == 2) {
			/* fill to cap, drain to a quarter: buckets fill up
			 * before the pops reach them */
			if (ref.n == mx->cap)
				filling = false;
			else if (ref.n <= mx->cap / 4)
				filling = true;
			push = filling;
		}
		if (push) {
			double t;
			int kind = (int)((r >> 4) % 12);
			if (mx->mode && (r >> 4) % 5)
				kind = mx->mode == 1 ? 3 : 11;
			switch (kind) {
			case 0: case 1: t = now + (double)((r >> 8) % 64); break;
			case 2: t = now; break;
			case 3: case 4: /* within the bucket being drained or the next */
				t = now + (double)((r >> 8) % 16) * bc / 8.0;
				break;
			case 5: t = now + (double)((r >> 8) % 4096) / 8.0; break;
			case 6: t = now + horizon * 1.1 + (double)((r >> 8) % 300000); break;
			case 7: t = now - (double)((r >> 8) % 100); break;
			case 8: /* about the horizon: the ring's positions must not alias */
				t = now + horizon - (double)((r >> 8) % 64) * bc;
				break;
			case 9: /* no bucket */
				t = (r >> 8) % 5 ? -1.0 - (double)((r >> 8) % 7) : INFINITY;
				break;
			default: /* 24 times within the first bucket of a 64-cycle
				  * step 37-100 cycles on, so it gets crowded */
				t = (double)((((int64_t)now + 100) >> 6) << 6) +
				    (double)((r >> 8) % 24) * bc / 24.0;
				break;
			}
			uint32_t w = free_warp[--n_free];
			counts[classify_push(&q, t)]++;
			uint32_t seq0 = q.seq;
			event_queue_push(&q, t, w);
			ref_push(&ref, t, w);
			counts[PP_N + 3] += q.seq <= seq0;
			continue;
		}
		struct ref_event e = ref_pop(&ref);
		/* the front query opens the earliest bucket when the run is empty */
		if (q.rh == q.rn && q.n_list) {
			uint32_t n = 0;
			for (uint32_t w1 = q.bucket[(uint32_t)q.front & (EVQ_BUCKETS - 1)]; w1;
			     w1 = q.node[w1 - 1].next)
				n++;
			counts[n <= 16 ? PP_N : PP_N + 1]++;
		}
		assert_true(event_queue_front_time(&q) == e.t);
		assert_int_equal(event_queue_front_warp(&q), e.warp);
		bool from_heap = event_queue_front(&q) == &q.far.h[0];
		double t;
		assert_int_equal(event_queue_pop(&q, &t), e.warp);
		assert_true(t == e.t);
		counts[PP_N + 2] += from_heap;
		if (t > now && t < INFINITY)
			now = t;
		free_warp[n_free++] = e.warp;
	}
	/* drain: the rest leaves in order too */
	while (ref.n) {
		struct ref_event e = ref_pop(&ref);
		double t;
		assert_int_equal(event_queue_pop(&q, &t), e.warp);
		assert_true(t == e.t);
	}
	assert_true(event_queue_empty(&q));
	event_queue_free(&q);
}

static void test_event_queue_matches_reference(void **state)
{
	(void)state;
	uint64_t counts[PP_N + 4] = {0};
	/* a large queue: every path but the full run */
	struct mix big = {REF_CAP, 99, 400000, 1.0 / EVQ_BUCKETS_PER_CYCLE, 0};
	run_mix(&big, counts);
	/* a small one, its events mostly in one bucket: the run fills its array */
	uint64_t small_counts[PP_N + 4] = {0};
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct mix small = {6, seed, 20000, 1.0 / EVQ_BUCKETS_PER_CYCLE, 1};
		run_mix(&small, small_counts);
	}
	/* crowded buckets: opened with more events than the ranking takes */
	struct mix crowd = {64, 7, 200000, 1.0 / EVQ_BUCKETS_PER_CYCLE, 2};
	run_mix(&crowd, small_counts);
	for (int i = 0; i < PP_N + 4; i++)
		counts[i] += small_counts[i];
	static const char *const names[PP_N + 4] = {
		"list new", "list append", "run end", "run down", "run up", "run full",
		"heap window", "heap no bucket", "open ranked", "open sorted", "pop heap",
		"renumber"};
	for (int i = 0; i < PP_N + 4; i++)
		print_message("%s: %llu\n", names[i], (unsigned long long)counts[i]);
	for (int i = 0; i < PP_N + 3; i++)
		assert_true(counts[i] >= 1000);
	assert_true(counts[PP_N + 3] >= 1);
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
