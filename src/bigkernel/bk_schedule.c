/* List scheduling of the pipeline's tasks (bk_schedule.h). */
#include "bigkernel/bk_schedule.h"

#include <stdlib.h>

const enum bk_resource bk_stage_resource[BK_STAGES] = {
	[BK_ST_INDEX] = BK_RES_H2D,    [BK_ST_ADDRGEN] = BK_RES_GPU, [BK_ST_ASSEMBLE] = BK_RES_CPU,
	[BK_ST_H2D] = BK_RES_H2D,      [BK_ST_COMPUTE] = BK_RES_GPU, [BK_ST_D2H] = BK_RES_D2H,
};

const char *const bk_stage_names[BK_STAGES] = {"index", "addrgen", "assemble", "h2d", "compute", "d2h"};

static enum bk_resource resource(int stage, int ag_concurrent)
{
	return stage == BK_ST_ADDRGEN && ag_concurrent ? BK_RES_GPU_AG : bk_stage_resource[stage];
}

double bk_schedule(const double *dur, size_t chunks, unsigned buffers, struct bk_task *out)
{
	return bk_schedule_ag(dur, chunks, buffers, 0, out);
}

double bk_schedule_ag(const double *dur, size_t chunks, unsigned buffers, int ag_concurrent,
		      struct bk_task *out)
{
	if (!buffers || !dur || !out)
		return -1;
	size_t n = chunks * BK_STAGES;
	unsigned char *done = calloc(n ? n : 1, 1);
	if (!done)
		return -1;
	double free_at[BK_RESOURCES] = {0};
	double makespan = 0;
	/* the stage whose end frees chunk i's buffer set for chunk i + buffers */
	int release = buffers == 1 ? BK_STAGES - 1 : BK_ST_COMPUTE;
	for (size_t step = 0; step < n; step++) {
		size_t best = n;
		double best_start = 0;
		for (size_t c = 0; c < chunks; c++) {
			/* a chunk's next stage: the first not yet placed */
			int s = 0;
			while (s < BK_STAGES && done[c * BK_STAGES + s])
				s++;
			if (s == BK_STAGES)
				continue;
			double ready = 0;
			if (s > 0) {
				ready = out[c * BK_STAGES + s - 1].end_s;
			} else if (c >= buffers) {
				size_t prev = (c - buffers) * BK_STAGES + (size_t)release;
				if (!done[prev])
					continue;
				ready = out[prev].end_s;
			}
			double d = dur[c * BK_STAGES + s];
			double start = ready;
			enum bk_resource res = resource(s, ag_concurrent);
			if (d > 0 && free_at[res] > start)
				start = free_at[res];
			if (best == n || start < best_start) {
				best = c * BK_STAGES + (size_t)s;
				best_start = start;
			}
		}
		if (best == n)
			break; /* cannot happen: chunk 0 is always ready */
		int s = (int)(best % BK_STAGES);
		double d = dur[best] > 0 ? dur[best] : 0;
		out[best].start_s = best_start;
		out[best].end_s = best_start + d;
		if (d > 0)
			free_at[resource(s, ag_concurrent)] = out[best].end_s;
		if (out[best].end_s > makespan)
			makespan = out[best].end_s;
		done[best] = 1;
	}
	free(done);
	return makespan;
}
