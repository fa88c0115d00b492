/* The probe's analysis, shared by every backend: latency steps per stride,
 * Karnagel's X / X/2 / 2X pattern (seeds/000 3.2, Fig. 2) across strides to
 * recover each level, and sharing groups from the fill/disrupt/measure
 * cells (3.3). */
#include "gpuvm/probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe_internal.h"

/* One latency step of one stride's curve. */
struct step {
	uint64_t stride;
	uint32_t knee_hops;   /* (host: where the curve crosses half the step) */   /* last hop count on the lower plateau (still fits) */
	uint64_t knee_bytes;  /* knee_hops x stride */
	double below, above, height;
};

struct curve {
	uint64_t stride;
	const struct gpuvm_probe_point *p;
	size_t n;
	struct step *steps;
	size_t n_steps;
	double base; /* lowest stable run: every level hitting */
};

/* Pattern tolerances. X/2 gives a step half as high as X's at the same
 * size (hops share entries two by two); 2X a step as high as X's at the
 * same size (set-associative, half the sets used) up to twice it (fully
 * associative). The margins absorb measurement noise on real hardware. */
#define SAME_SIZE_TOL 0.12
#define HALF_LO 0.3
#define HALF_HI 0.7
#define HALF_HI_HOST 0.9
#define FULL_TOL 0.25

/* A host's noise grows with the latency (noise_rel); the sim's is flat. */
static double noise_at(double noise, double noise_rel, double latency)
{
	return noise + noise_rel * latency;
}

static int find_steps(struct curve *c, double noise, double noise_rel)
{
	size_t n = c->n;
	double *y = malloc(n * sizeof *y);
	size_t *seg_first = malloc(n * sizeof *seg_first), *seg_last = malloc(n * sizeof *seg_last);
	double *seg_mean = malloc(n * sizeof *seg_mean);
	c->steps = malloc(n * sizeof *c->steps);
	if (!y || !seg_first || !seg_last || !seg_mean || !c->steps) {
		free(y);
		free(seg_first);
		free(seg_last);
		free(seg_mean);
		return -1;
	}
	/* Median of three: a single outlier (a timer interrupt on a host
	 * core) cannot make a step; monotone runs are unchanged. */
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || i + 1 == n) {
			y[i] = c->p[i].latency;
			continue;
		}
		double a = c->p[i - 1].latency, b = c->p[i].latency, d = c->p[i + 1].latency;
		y[i] = fmax(fmin(a, b), fmin(fmax(a, b), d));
	}
	/* Flat runs: points within noise of the run's mean. */
	size_t ns = 0;
	for (size_t i = 0; i < n;) {
		double sum = y[i];
		size_t j = i + 1;
		while (j < n && fabs(y[j] - sum / (double)(j - i)) <=
				       noise_at(noise, noise_rel, sum / (double)(j - i)))
			sum += y[j++];
		seg_first[ns] = i;
		seg_last[ns] = j - 1;
		seg_mean[ns] = sum / (double)(j - i);
		ns++;
		i = j;
	}
	/* A host's gradual rise has short flat stretches of noise: a run
	 * must span 30 % of sizes there to count as a plateau. */
	double min_span = noise_rel > 0 ? 1.3 : 1.1;
	/* Steps go from one stable run (two points or more, or an end of the
	 * curve) to the next; single points between them are the ramp of a
	 * set-associative level filling set by set. */
	c->n_steps = 0;
	c->base = NAN;
	size_t prev = 0;
	for (size_t s = 0; s < ns; s++)
		if (seg_last[s] > seg_first[s] &&
		    (double)c->p[seg_last[s]].hops / c->p[seg_first[s]].hops >= min_span &&
		    (isnan(c->base) || seg_mean[s] < c->base))
			c->base = seg_mean[s];
	for (size_t s = 1; s < ns; s++) {
		/* Stable: flat over a real range of sizes (a tenth or more), not
		 * two bisection points a hop apart inside a ramp. */
		double span = (double)c->p[seg_last[s]].hops / c->p[seg_first[s]].hops;
		bool stable = s + 1 == ns || (seg_last[s] > seg_first[s] && span >= min_span);
		if (!stable)
			continue;
		double h = seg_mean[s] - seg_mean[prev];
		if (h > noise_at(noise, noise_rel, seg_mean[prev])) {
			struct step *st = &c->steps[c->n_steps++];
			st->stride = c->stride;
			st->knee_hops = c->p[seg_last[prev]].hops;
			if (noise_rel > 0) {
				/* A host: the rise is gradual (replacement that is not
				 * LRU, a sibling thread sharing the TLB), so the knee is
				 * where the curve crosses half the step, interpolated
				 * in log(hops) between the points either side. In the
				 * simulator the rise is sharp and the knee is exact: the
				 * end of the lower run. */
				double mid = 0.5 * (seg_mean[prev] + seg_mean[s]);
				for (size_t k = seg_last[prev]; k < seg_first[s]; k++) {
					if (y[k] <= mid && y[k + 1] > mid) {
						double f = (mid - y[k]) / (y[k + 1] - y[k]);
						double lh = log((double)c->p[k].hops), hh = log((double)c->p[k + 1].hops);
						st->knee_hops = (uint32_t)lround(exp(lh + f * (hh - lh)));
					}
				}
			}
			st->knee_bytes = (uint64_t)st->knee_hops * c->stride;
			st->below = seg_mean[prev];
			st->above = seg_mean[s];
			st->height = h;
		}
		prev = s;
	}
	free(y);
	free(seg_first);
	free(seg_last);
	free(seg_mean);
	return 0;
}

static bool near(double a, double b, double tol)
{
	return fabs(a / b - 1) <= tol;
}

static int cmp_level(const void *a, const void *b)
{
	const struct gpuvm_probe_level *p = a, *q = b;
	return (p->reach_bytes > q->reach_bytes) - (p->reach_bytes < q->reach_bytes);
}

static int analyze_levels(struct gpuvm_probe_result *res, double noise, struct gpuvm_error *err)
{
	/* Split the sorted points into one curve per stride. */
	size_t nc = 0;
	struct curve *cv = calloc(res->n_points ? res->n_points : 1, sizeof *cv);
	if (!cv)
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	for (size_t i = 0; i < res->n_points;) {
		size_t j = i;
		while (j < res->n_points && res->points[j].stride_bytes == res->points[i].stride_bytes)
			j++;
		cv[nc++] = (struct curve){.stride = res->points[i].stride_bytes, .p = res->points + i,
					  .n = j - i};
		i = j;
	}
	int rc = 0;
	for (size_t q = 0; q < nc; q++)
		if (find_steps(&cv[q], noise, res->noise_rel)) {
			rc = gpuvm_fail(err, "probe", 0, NULL, "out of memory");
			goto out;
		}
	res->levels = 0;
	/* Every level hitting: each curve's first point, unless it stands
	 * above the curve's lowest stable run by more than the noise (misses
	 * only raise a curve): a GPU's chase of a few hops is slow (the first
	 * loads of the timed pass, H100: 410-467 cycles at 2 hops against a
	 * baseline of 298.6, docs/probe.md), and the run is the hit latency
	 * there. */
	double baseline = 0;
	size_t nb = 0;
	for (size_t q = 0; q < nc; q++) {
		if (cv[q].n) {
			double first = cv[q].p[0].latency, base = cv[q].base;
			bool slow_start = !isnan(base) &&
					  first > base + noise_at(noise, res->noise_rel, base);
			baseline += slow_start ? base : first;
			nb++;
		}
	}
	res->baseline_latency = nb ? baseline / (double)nb : 0;

	for (size_t q = 0; q + 1 < nc; q++) {
		/* Neighbouring strides must be exactly X/2 and 2X. */
		if (cv[q + 1].stride != 2 * cv[q].stride || cv[q].stride < res->min_entry_bytes)
			continue;
		bool have_half = q > 0 && cv[q - 1].stride * 2 == cv[q].stride;
		/* On a host, the X/2 step past a page walk is higher than half:
		 * the second hop of a pair, in the page just walked, is not a
		 * clean hit here (0.8 of the full step measured on this host's
		 * second-level TLB). A full step (1.0) is still rejected. */
		double half_hi = res->noise_rel > 0 ? HALF_HI_HOST : HALF_HI;
		for (size_t t = 0; t < cv[q].n_steps; t++) {
			const struct step *st = &cv[q].steps[t];
			double z = (double)st->knee_bytes;
			bool twice = false;
			for (size_t u = 0; u < cv[q + 1].n_steps && !twice; u++) {
				const struct step *s2 = &cv[q + 1].steps[u];
				twice = s2->knee_bytes >= (1 - SAME_SIZE_TOL) * z &&
					s2->knee_bytes <= (2 + 2 * SAME_SIZE_TOL) * z &&
					near(s2->height, st->height, FULL_TOL);
			}
			/* 2X never got to twice the size (the level's reach near the
			 * memory's end: H100's 64 GiB of 32 MiB entries on 80 GB):
			 * a fully associative level's 2X step is out of sight, and
			 * the X/2 half step alone (required below) decides. */
			uint64_t top2 = (uint64_t)cv[q + 1].p[cv[q + 1].n - 1].hops * cv[q + 1].stride;
			bool twice_out_of_range = !twice && (double)top2 < (2 + 2 * SAME_SIZE_TOL) * z;
			/* ... unless 2X steps there by clearly more: then X is not the
			 * entry size but a fraction of it (H100: 16 MiB's 35-cycle
			 * step under 32 MiB's 70, docs/probe.md) */
			for (size_t u = 0; u < cv[q + 1].n_steps && twice_out_of_range; u++) {
				const struct step *s2 = &cv[q + 1].steps[u];
				if (s2->knee_bytes >= (1 - SAME_SIZE_TOL) * z &&
				    s2->knee_bytes <= (2 + 2 * SAME_SIZE_TOL) * z &&
				    s2->height > (1 + FULL_TOL) * st->height)
					twice_out_of_range = false;
			}
			/* A level's step must stand well above the noise floor: on a
			 * host, slow drifts past the data cache make small ones. */
			if ((!twice && !twice_out_of_range) ||
			    st->height < 3 * noise_at(noise, res->noise_rel, st->below))
				continue;
			bool half_seen = false, half_out_of_range = !have_half;
			if (have_half) {
				const struct curve *h = &cv[q - 1];
				for (size_t u = 0; u < h->n_steps && !half_seen; u++)
					half_seen = near((double)h->steps[u].knee_bytes, z, SAME_SIZE_TOL) &&
						    h->steps[u].height >= HALF_LO * st->height &&
						    h->steps[u].height <= half_hi * st->height;
				/* X/2 never got past the knee: the pattern is undecided
				 * there, and the X/2x check above settles it. */
				uint64_t top = (uint64_t)h->p[h->n - 1].hops * h->stride;
				half_out_of_range = (double)top < (1 + SAME_SIZE_TOL) * z;
			}
			if (!half_seen && (!half_out_of_range || twice_out_of_range))
				continue;
			/* The same level seen twice (it cannot be, but noise can
			 * fake a pattern): keep the first, from the smaller stride. */
			bool dup = false;
			for (uint32_t l = 0; l < res->levels; l++)
				dup |= near((double)res->level[l].reach_bytes, z, SAME_SIZE_TOL);
			if (dup || res->levels == GPUVM_PROBE_MAX_LEVELS)
				continue;
			struct gpuvm_probe_level *lv = &res->level[res->levels++];
			memset(lv, 0, sizeof *lv);
			lv->entry_bytes = cv[q].stride;
			lv->entries = st->knee_hops;
			lv->reach_bytes = st->knee_bytes;
			lv->miss_cost = st->height;
			lv->below_latency = st->below;
			lv->half_step_seen = half_seen;
			lv->double_step_seen = twice;
		}
	}
	qsort(res->level, res->levels, sizeof res->level[0], cmp_level);
out:
	for (size_t q = 0; q < nc; q++)
		free(cv[q].steps);
	free(cv);
	return rc;
}

int gpuvm_probe_share_params(const struct gpuvm_probe_result *res, uint32_t l,
			     uint64_t *stride_bytes, uint32_t *hops, uint32_t *per_entry)
{
	const struct gpuvm_probe_level *lv = &res->level[l];
	uint32_t n = lv->entries;
	/* Karnagel's condition (cuda-gpu-tlb README, src/tlb_sharing.cu): one SM's pages fit the level
	 * (I <= N), two SMs' overflow it (2I > N). 0.7 N leaves margin both ways. */
	uint32_t iters = (7 * n + 5) / 10;
	if (2 * iters <= n)
		iters = n / 2 + 1;
	if (iters > n || iters == 0)
		return -1;
	/* Several hops per entry when the lower levels would otherwise hold the
	 * I pages and hide the level: they must thrash in every stage. */
	for (uint32_t m = 1; m <= 4096 && lv->entry_bytes / m >= 8; m *= 2) {
		uint64_t s = lv->entry_bytes / m;
		bool thrash = true;
		for (uint32_t j = 0; j < l; j++) {
			const struct gpuvm_probe_level *lj = &res->level[j];
			uint64_t distinct = s >= lj->entry_bytes ? (uint64_t)iters * m
				: (uint64_t)iters * lv->entry_bytes / lj->entry_bytes;
			/* LRU misses every access of a cyclic chase over more
			 * entries than it holds; 1.3x also overfills every set
			 * of a set-associative level of 4 ways or more. */
			thrash &= distinct * 10 >= 13ull * lj->entries;
		}
		if (thrash) {
			*stride_bytes = s;
			*hops = iters * m;
			*per_entry = m;
			return 0;
		}
	}
	return -1;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

static void analyze_sharing(struct gpuvm_probe_result *res, uint32_t l)
{
	struct gpuvm_probe_level *lv = &res->level[l];
	lv->sharing_measured = false;
	lv->groups = 0;
	uint64_t stride;
	uint32_t hops, per_entry;
	uint32_t sms = res->sms;
	if (!sms || sms > GPUVM_MAX_SMS || gpuvm_probe_share_params(res, l, &stride, &hops, &per_entry))
		return;
	lv->share_stride_bytes = stride;
	lv->share_hops = hops;
	lv->share_threshold = 0.5 * lv->miss_cost / per_entry;
	double base[GPUVM_MAX_SMS];
	bool have_base[GPUVM_MAX_SMS] = {false};
	uint32_t parent[GPUVM_MAX_SMS];
	for (uint32_t i = 0; i < sms; i++)
		parent[i] = i;
	for (size_t c = 0; c < res->n_cells; c++) {
		const struct gpuvm_probe_share_cell *cell = &res->cells[c];
		if (cell->stride_bytes == stride && cell->hops == hops &&
		    cell->sm_disrupt == GPUVM_PROBE_NO_SM && cell->sm_fill < sms) {
			base[cell->sm_fill] = cell->latency;
			have_base[cell->sm_fill] = true;
		}
	}
	bool any = false;
	for (size_t c = 0; c < res->n_cells; c++) {
		const struct gpuvm_probe_share_cell *cell = &res->cells[c];
		if (cell->stride_bytes != stride || cell->hops != hops || cell->sm_fill >= sms ||
		    cell->sm_disrupt >= sms || !have_base[cell->sm_fill])
			continue;
		any = true;
		if (cell->latency - base[cell->sm_fill] > lv->share_threshold) {
			uint32_t a = uf_find(parent, cell->sm_fill), b = uf_find(parent, cell->sm_disrupt);
			if (a != b)
				parent[a > b ? a : b] = a < b ? a : b;
		}
	}
	if (!any)
		return;
	lv->sharing_measured = true;
	uint32_t id_of_root[GPUVM_MAX_SMS];
	for (uint32_t i = 0; i < sms; i++)
		id_of_root[i] = UINT32_MAX;
	for (uint32_t i = 0; i < sms; i++) {
		uint32_t r = uf_find(parent, i);
		if (id_of_root[r] == UINT32_MAX)
			id_of_root[r] = lv->groups++;
		lv->group_of_sm[i] = (uint16_t)id_of_root[r];
	}
}

int gpuvm_probe_analyze(struct gpuvm_probe_result *res, double noise, struct gpuvm_error *err)
{
	if (analyze_levels(res, noise, err))
		return -1;
	for (uint32_t l = 0; l < res->levels; l++)
		analyze_sharing(res, l);
	return 0;
}
