/* gpuvm sweep: the time left that its progress lines print. The points of
 * a grid differ in cost: in `make demo` (experiments/karnagel_fig1.sh)
 * random-sampling on the p100 makes 4.3x the thread accesses of the k80
 * (it fills 56 SMs against 13) and took 4-9x its wall time, so counting
 * points alike, the time left was off by 64 % on average over the sweep
 * (250 % at worst). The time left is the wall time so far scaled by the
 * expected cost of the points left over that of the points done; a point's
 * expected cost is the workload's estimate of its thread accesses
 * (gpuvm_workload_def.estimate), the estimate the work cap uses.
 *
 * Measured by replaying four recorded runs of the demo's two sweeps (each
 * point's wall_seconds, two workers taking points in grid order): the mean
 * error of the predicted total over a sweep was 29 % counting points, 16 %
 * weighting by thread accesses. A factor for the working set (TLB misses,
 * hash-groupby's real table in host memory: a 4 GiB table takes twice the
 * CPU of a 32 MiB one) did worse on those runs (18-23 %): on a loaded host
 * the per-point times vary more than it predicts. A point without an
 * estimate (a trace, a workload without the hook) weighs the mean of the
 * points with one, or 1 when none has: equal weights.
 *
 * Owns: nothing beyond struct sweep_eta. May call: the workload's estimate
 * hook. Guarantees: no time left until a point is done; never negative. */
#include "sweep_internal.h"

#include "gpuvm/workload.h"

double sweep_point_cost(const struct gpuvm_config *cfg, const struct gpuvm_workload_def *def,
			const struct gpuvm_params *params)
{
	uint64_t accesses = 0;
	struct gpuvm_error scratch = {{0}};
	if (!def->estimate || def->estimate(cfg, params, &accesses, &scratch) != 0)
		return 0;
	return (double)accesses;
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
