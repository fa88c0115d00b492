/* SM-side partitions (partition.h holds the contract). */
#include <stdlib.h>
#include <string.h>

#include "core/cache_line.h"
#include "par/fork_join.h"
#include "system/partition.h"
#include "par/window.h"

int sm_partitions_init(struct sm_partitions *ps, struct sm_layer *sl)
{
	const struct gpuvm_config *cfg = sl->cfg;
	uint32_t n = cfg->gpcs ? cfg->gpcs : 1;
	if (n > cfg->sms)
		n = cfg->sms;
	ps->n = n;
	ps->threads_wanted = window_threads_knob() != WINDOW_THREADS_BARRIER;
	ps->part = gpuvm_calloc_lines(n, sizeof *ps->part);
	ps->of_sm = calloc(cfg->sms, sizeof *ps->of_sm);
	if (!ps->part || !ps->of_sm)
		return -1;
	uint32_t warps = cfg->sms * cfg->max_warps_per_sm;
	for (uint32_t i = 0; i < n; i++) {
		struct sm_partition *p = &ps->part[i];
		/* SMs [first, end): n near-equal ranges */
		uint32_t first = (uint32_t)((uint64_t)cfg->sms * i / n);
		uint32_t end = (uint32_t)((uint64_t)cfg->sms * (i + 1) / n);
		for (uint32_t s = first; s < end; s++) {
			ps->of_sm[s] = i;
			sl->sm[s].events = &p->own_events;
		}
		if (event_queue_init(&p->own_events, warps))
			return -1;
		p->own_sl.parked_warps =
			malloc((size_t)(end - first) * cfg->max_warps_per_sm * sizeof(uint32_t));
		if (!p->own_sl.parked_warps)
			return -1;
		p->sl = &p->own_sl;
		p->events = &p->own_events;
		p->launch = &p->own_launch;
		p->defer_refill = true;
		/* nothing else is written inside a window (placement, the
		 * memory side and the link run at the barrier on the
		 * system's statistics), so only these fields are merged and
		 * cleared: merging every row at every barrier cost 20 % more
		 * instructions on a windowed pagerank, as clearing the whole
		 * shard had cost 5 % */
		p->n_shard_plan = gpuvm_counters_plan(sl->stats_rows, GPUVM_CTR_SHARD,
						      p->shard_plan, SM_PARTITION_SHARD_FIELDS);
		if (p->n_shard_plan > SM_PARTITION_SHARD_FIELDS)
			return -1; /* more rows flagged than room: raise the room */
	}
	return 0;
}

void sm_partitions_free(struct sm_partitions *ps)
{
	fork_join_free(ps->pool);
	if (ps->part)
		for (uint32_t i = 0; i < ps->n; i++) {
			struct sm_partition *p = &ps->part[i];
			event_queue_free(&p->own_events);
			free(p->own_sl.parked_warps);
			free(p->own_sl.req);
			free(p->own_sl.req_out);
			free(p->freed);
		}
	free(ps->part);
	free(ps->of_sm);
	memset(ps, 0, sizeof *ps);
}

void sm_partitions_sync(struct sm_partitions *ps, const struct sm_layer *sl,
			const struct sm_launch *kr)
{
	for (uint32_t i = 0; i < ps->n; i++) {
		struct sm_partition *p = &ps->part[i];
		struct sm_layer *c = &p->own_sl;
		/* what the partition keeps of its own */
		struct sm_request *req = c->req;
		size_t n_req = c->n_req, cap_req = c->cap_req;
		struct sm_request *req_out = c->req_out;
		size_t n_req_out = c->n_req_out, cap_req_out = c->cap_req_out;
		uint64_t req_seq = c->req_seq;
		uint32_t *parked = c->parked_warps, n_parked = c->n_parked;
		bool oom = c->window_oom;
		*c = *sl;
		c->stats = &p->own_stats;
		c->req = req;
		c->n_req = n_req;
		c->cap_req = cap_req;
		c->req_out = req_out;
		c->n_req_out = n_req_out;
		c->cap_req_out = cap_req_out;
		c->req_seq = req_seq;
		c->req_key = NULL; /* the barrier's, on the system's layer */
		c->cap_key = 0;
		c->parked_warps = parked;
		c->n_parked = n_parked;
		c->window_oom = oom;
		c->pipe = NULL;
		if (kr)
			p->own_launch = *kr;
	}
}

void sm_partition_merge_stats(struct sm_partition *p, struct gpuvm_stats *s)
{
	/* by the counter rows (gpuvm/counters.h), as the window's pipe and
	 * the split SM layer merge theirs, not a hand list: a counter the SM
	 * side starts to write inside a window is flagged on its row */
	gpuvm_counters_merge_plan(p->shard_plan, p->n_shard_plan, s, &p->own_stats);
}
