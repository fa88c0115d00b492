/* gpuvm sweep: the time left that its progress lines print. The points of
 * a grid differ in cost: in `make demo` (experiments/karnagel_fig1.sh)
 * random-sampling on the p100 makes 4.3x the thread accesses of the k80
 * (it fills 56 SMs against 13), and past the TLB reach each access costs
 * more (walks simulated; hash-groupby's table is real and lives in host
 * memory): the p100's sampling point at 8 GiB took 3.3x its 32 MiB one,
 * the group-by at 4 GiB 2.2x its 32 MiB one (the CSVs in docs/data/fig1/,
 * wall_seconds). Counting points alike, the group-by sweep's time left grew
 * from 5.5 to 14.5 minutes as the large tables came; so the time left is
 * the wall time so far scaled by the expected cost of the points left over
 * that of the points done.
 *
 * A point's expected cost: the workload's estimate of its thread accesses
 * (gpuvm_workload_def.estimate) times 1 + 0.5 log2(1 + W / 1 GiB), W its
 * working set (working_set_bytes; the factor is 1.02 at 32 MiB, 1.5 at
 * 1 GiB, 2.2 at 4 GiB, 2.6 at 8 GiB, a fit to the wall times above). A
 * point without an estimate (a trace, a workload without the hook) weighs
 * the mean of the points with one, or 1 when none has: equal weights.
 *
 * Owns: nothing beyond struct sweep_eta. May call: the workload's estimate
 * hooks. Guarantees: no time left until a point is done; never negative. */
#include "sweep_internal.h"

#include <math.h>

#include "gpuvm/workload.h"

double sweep_point_cost(const struct gpuvm_config *cfg, const struct gpuvm_workload_def *def,
			const struct gpuvm_params *params)
{
	uint64_t accesses = 0, ws = 0;
	struct gpuvm_error scratch = {{0}};
	if (!def->estimate || def->estimate(cfg, params, &accesses, &scratch) != 0 || !accesses)
		return 0;
	if (def->working_set_bytes && def->working_set_bytes(cfg, params, &ws, &scratch) != 0)
		ws = 0;
	return (double)accesses * (1 + 0.5 * log2(1 + (double)ws / (double)(1ull << 30)));
}

/* The cost point i weighs: its own, else the mean of the known ones. */
static double weight(const struct sweep_eta *e, const struct sweep *s, size_t i)
{
	double c = s->cost ? s->cost[i] : 0;
	return c > 0 ? c : e->unknown_weight;
}

void sweep_eta_init(struct sweep_eta *e, const struct sweep *s, const size_t *todo, size_t n_todo)
{
	double known = 0;
	size_t n_known = 0;
	for (size_t t = 0; t < n_todo; t++)
		if (s->cost && s->cost[todo[t]] > 0)
			known += s->cost[todo[t]], n_known++;
	e->unknown_weight = n_known ? known / (double)n_known : 1;
	e->left = 0;
	for (size_t t = 0; t < n_todo; t++)
		e->left += weight(e, s, todo[t]);
	e->done = 0;
}

void sweep_eta_point_done(struct sweep_eta *e, const struct sweep *s, size_t i)
{
	double w = weight(e, s, i);
	e->done += w;
	e->left = e->left > w ? e->left - w : 0;
}

double sweep_eta_left_s(const struct sweep_eta *e, double spent_s)
{
	if (e->done <= 0 || spent_s <= 0)
		return 0;
	return spent_s / e->done * e->left;
}
