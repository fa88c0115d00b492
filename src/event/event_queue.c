#include "event/event_queue.h"

#include <stdlib.h>
#include <string.h>

int event_queue_init(struct event_queue *q, uint32_t cap)
{
	memset(q, 0, sizeof *q);
	q->cap = cap ? cap : 1;
	q->node = calloc(q->cap, sizeof *q->node);
	q->bucket = calloc(EVQ_BUCKETS, sizeof *q->bucket);
	q->nonempty = calloc(EVQ_BUCKETS / 64, sizeof *q->nonempty);
	q->run = malloc(q->cap * sizeof *q->run);
	q->scratch = malloc(q->cap * sizeof *q->scratch);
	q->sort_tmp = malloc(q->cap * sizeof *q->sort_tmp);
	if (!q->node || !q->bucket || !q->nonempty || !q->run || !q->scratch || !q->sort_tmp ||
	    event_heap_init(&q->far, q->cap)) {
		event_queue_free(q);
		return -1;
	}
	return 0;
}

void event_queue_free(struct event_queue *q)
{
	free(q->node);
	free(q->bucket);
	free(q->nonempty);
	free(q->run);
	free(q->scratch);
	free(q->sort_tmp);
	event_heap_free(&q->far);
	memset(q, 0, sizeof *q);
}

void event_queue_clear(struct event_queue *q)
{
	memset(q->bucket, 0, EVQ_BUCKETS * sizeof *q->bucket);
	memset(q->nonempty, 0, EVQ_BUCKETS / 64 * sizeof *q->nonempty);
	q->n_list = 0;
	q->rh = q->rn = 0;
	event_heap_clear(&q->far);
}

/* Every bucket list lies in [from, base + EVQ_BUCKETS), which the ring
 * holds once each, so the first set bit from from's position on is the
 * earliest bucket. */
int64_t event_queue_next_bucket(const struct event_queue *q, int64_t from)
{
	for (int64_t b = from;;) {
		uint32_t pos = (uint32_t)b & (EVQ_BUCKETS - 1);
		uint64_t bits = q->nonempty[pos >> 6] >> (pos & 63);
		if (bits)
			return b + __builtin_ctzll(bits);
		b += 64 - (pos & 63);
	}
}

/* Sorts ev[0..n) by (time, seq): insertion sorts of short blocks, then
 * merges through tmp[0..n). */
enum { EVQ_SORT_BLOCK = 16, EVQ_RANK_MAX = 16 };

static void insertion_sort(struct event *ev, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct event x = ev[i];
		uint32_t j = i;
		while (j && evq_before(&x, &ev[j - 1])) {
			ev[j] = ev[j - 1];
			j--;
		}
		ev[j] = x;
	}
}

static void sort_events(struct event *ev, struct event *tmp, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += EVQ_SORT_BLOCK)
		insertion_sort(ev + i, n - i < EVQ_SORT_BLOCK ? n - i : EVQ_SORT_BLOCK);
	struct event *from = ev, *to = tmp;
	for (uint32_t width = EVQ_SORT_BLOCK; width < n; width *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * width) {
			uint32_t mid = lo + width < n ? lo + width : n;
			uint32_t hi = mid + width < n ? mid + width : n;
			uint32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				to[k++] = evq_before(&from[j], &from[i]) ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		struct event *x = from;
		from = to;
		to = x;
	}
	if (from != ev)
		memcpy(ev, from, n * sizeof *ev);
}

/* The run is empty and a bucket list exists: the earliest bucket's events
 * become the run. Every other list lies after it, so it is the open
 * bucket, and base moves up to it. A bucket's list runs newest first, so
 * an event's place is the number of older events no later than it plus
 * newer ones earlier than it: for a short bucket counted pair by pair
 * without a branch (an insertion sort's data-dependent exits mispredicted
 * about once an event, most of its cost), for a long one sorted. */
void event_queue_open(struct event_queue *q)
{
	int64_t b = q->front;
	uint32_t pos = (uint32_t)b & (EVQ_BUCKETS - 1);
	struct event *ev = q->sort_tmp;
	uint32_t m = 0;
	for (uint32_t w1 = q->bucket[pos]; w1; m++) {
		const struct evq_node *n = &q->node[w1 - 1];
		ev[m] = (struct event){n->t, n->seq, w1 - 1};
		w1 = n->next;
	}
	if (m <= EVQ_RANK_MAX) {
		uint32_t rank[EVQ_RANK_MAX];
		for (uint32_t i = 0; i < m; i++) {
			/* ev[j], j < i, is newer than ev[i]: i goes first on a tie */
			uint32_t r = 0;
			for (uint32_t j = 0; j < i; j++) {
				uint32_t c = ev[i].t <= ev[j].t;
				rank[j] += c;
				r += c ^ 1;
			}
			rank[i] = r;
		}
		for (uint32_t i = 0; i < m; i++)
			q->run[rank[i]] = ev[i];
	} else {
		memcpy(q->run, ev, m * sizeof *ev);
		sort_events(q->run, ev, m);
	}
	q->bucket[pos] = 0;
	q->nonempty[pos >> 6] &= ~(1ull << (pos & 63));
	q->n_list -= m;
	if (q->n_list)
		q->front = event_queue_next_bucket(q, b + 1);
	q->open = b;
	q->base = b;
	q->rh = 0;
	q->rn = m;
}

/* ev goes into the run after every event before it (binary search), the
 * shorter side moved by one to make room: the events before it one down
 * (when the run does not start at 0) or those after it one up. The run
 * holds at most cap - 1 events here (each warp has at most one event), so
 * one side has room. */
void event_queue_run_insert(struct event_queue *q, struct event ev)
{
	uint32_t lo = q->rh, hi = q->rn;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (evq_before(&ev, &q->run[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	uint32_t p = lo;
	if (q->rh && (p - q->rh <= q->rn - p || q->rn == q->cap)) {
		memmove(&q->run[q->rh - 1], &q->run[q->rh], (p - q->rh) * sizeof ev);
		q->rh--;
		q->run[p - 1] = ev;
	} else {
		memmove(&q->run[p + 1], &q->run[p], (q->rn - p) * sizeof ev);
		q->rn++;
		q->run[p] = ev;
	}
}

/* Drains the queue in order and pushes it back numbered from 0. The drain
 * moves base forward; it is put back so the events return to the
 * calendar where they were. */
void event_queue_renumber(struct event_queue *q)
{
	int64_t base = q->base;
	uint32_t n = 0;
	while (!event_queue_empty(q)) {
		struct event *ev = &q->scratch[n++];
		ev->warp = event_queue_pop(q, &ev->t);
	}
	q->base = base;
	q->seq = 0;
	for (uint32_t i = 0; i < n; i++)
		event_queue_push(q, q->scratch[i].t, q->scratch[i].warp);
}
