/* Asynchronous copies on the copy engines (copy_stream.h). */
#include "link/copy_stream.h"

#include <stdlib.h>
#include <string.h>

void copy_stream_init(struct copy_stream *cs, double latency_cycles)
{
	memset(cs, 0, sizeof *cs);
	cs->latency = latency_cycles;
}

void copy_stream_free(struct copy_stream *cs)
{
	free(cs->spans);
	cs->spans = NULL;
	cs->n_spans = cs->cap_spans = 0;
}

int copy_stream_issue(struct copy_stream *cs, int dir, double t, double cycles, uint32_t event)
{
	if (cs->n[dir] == COPY_STREAM_PENDING || event >= GPUVM_RUN_EVENTS)
		return -1;
	cs->used = true;
	struct copy_pending *p = &cs->pend[dir][(cs->head[dir] + cs->n[dir]) % COPY_STREAM_PENDING];
	cs->n[dir]++;
	p->issue = t;
	p->cycles = cycles;
	p->event = event;
	p->gen = 0;
	if (event) {
		/* cudaEventRecord: the event now stands for this copy */
		p->gen = ++cs->event_gen[event];
		cs->event_pending[event] = true;
		cs->event_dir[event] = (uint8_t)dir;
	}
	return 0;
}

/* When a copy of `cycles` starting at `start` on lane dir ends, given the
 * lane time the recorded kernels' own traffic took. */
static double copy_end(const struct copy_stream *cs, int dir, double start, double cycles)
{
	double pos = start, rem = cycles;
	for (size_t i = 0; i < cs->n_spans && rem > 0; i++) {
		const struct copy_span *s = &cs->spans[i];
		if (s->end <= pos)
			continue;
		if (s->start > pos) { /* the lane is the copy's before the kernel */
			double gap = s->start - pos;
			if (rem <= gap)
				return pos + rem;
			rem -= gap;
			pos = s->start;
		}
		double len = s->end - s->start;
		double rate = len > 0 ? 1.0 - s->busy[dir] / len : 1.0;
		if (rate <= 0)
			rate = 0;
		double avail = (s->end - pos) * rate;
		if (rem <= avail)
			return pos + rem / rate;
		rem -= avail;
		pos = s->end;
	}
	return pos + rem;
}

/* Resolves the oldest unresolved copy of dir. */
static void resolve_one(struct copy_stream *cs, int dir)
{
	struct copy_pending *p = &cs->pend[dir][cs->head[dir]];
	double start = p->issue > cs->lane_free[dir] ? p->issue : cs->lane_free[dir];
	double end = copy_end(cs, dir, start, p->cycles) + cs->latency;
	cs->lane_free[dir] = end;
	if (p->event && cs->event_gen[p->event] == p->gen) {
		cs->event_end[p->event] = end;
		cs->event_pending[p->event] = false;
	}
	cs->head[dir] = (cs->head[dir] + 1) % COPY_STREAM_PENDING;
	cs->n[dir]--;
	if (!copy_stream_pending(cs))
		cs->n_spans = 0; /* no copy left to overlap them */
}

double copy_stream_event_end(struct copy_stream *cs, uint32_t event)
{
	if (!event || event >= GPUVM_RUN_EVENTS)
		return 0;
	int dir = cs->event_dir[event];
	while (cs->event_pending[event] && cs->n[dir])
		resolve_one(cs, dir);
	return cs->event_end[event];
}

double copy_stream_drain(struct copy_stream *cs, int dir)
{
	while (cs->n[dir])
		resolve_one(cs, dir);
	return cs->lane_free[dir];
}

int copy_stream_span(struct copy_stream *cs, double start, double end, double busy_h2d,
		     double busy_d2h)
{
	if (cs->n_spans == cs->cap_spans) {
		size_t cap = cs->cap_spans ? 2 * cs->cap_spans : 64;
		struct copy_span *n = realloc(cs->spans, cap * sizeof *n);
		if (!n)
			return -1;
		cs->spans = n;
		cs->cap_spans = cap;
	}
	cs->spans[cs->n_spans++] = (struct copy_span){start, end, {busy_h2d, busy_d2h}};
	return 0;
}
