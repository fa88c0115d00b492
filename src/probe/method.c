/* The probe methodology, once for every backend: the (stride x size) grid
 * of the property benchmark, knee refinement, and the sharing benchmark's
 * (fill, disrupt, measure) runs for each level the analysis found. */
#include "gpuvm/probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe/probe_internal.h"
#include "core/vec.h"

void gpuvm_probe_plan_defaults(struct gpuvm_probe_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	/* E2 target (issue 3): entry sizes 4 KiB .. 64 MiB; X/2 and 2X around them. */
	plan->min_stride_bytes = 0; /* backend's */
	plan->max_stride_bytes = 0;
	plan->min_hops = 2;
	/* 4096 entries (E2's largest) at X/2 knee at 8192 hops; the rest is
	 * room for a set-associative ramp and the plateau after it. */
	plan->max_hops = 12288;
	plan->hop_ratio = 1.189207115; /* 2^(1/4): 4 points per doubling */
	plan->refine = true;
	plan->sharing = GPUVM_PROBE_SHARING_AUTO;
}

uint64_t gpuvm_probe_chain_offset(uint64_t i, uint64_t stride_bytes)
{
	/* 64-byte lines (CPU), 4 KiB pages: the cache-set bits that stay
	 * inside a page. A smaller stride keeps the offset inside its block. */
	uint64_t span = stride_bytes < 4096 ? stride_bytes : 4096;
	if (span < 128)
		return 0;
	return (i * 64) % span & ~(uint64_t)7;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int probe_add_point(struct gpuvm_probe_result *res, uint64_t stride, uint32_t hops, double lat)
{
	return VEC_PUSH(res->points, res->n_points, res->cap_points,
			((struct gpuvm_probe_point){stride, hops, lat}));
}

int probe_add_cell(struct gpuvm_probe_result *res, const struct gpuvm_probe_share_cell *c)
{
	return VEC_PUSH(res->cells, res->n_cells, res->cap_cells, *c);
}

static int cmp_point(const void *a, const void *b)
{
	const struct gpuvm_probe_point *p = a, *q = b;
	if (p->stride_bytes != q->stride_bytes)
		return p->stride_bytes < q->stride_bytes ? -1 : 1;
	return (p->hops > q->hops) - (p->hops < q->hops);
}

void probe_sort_points(struct gpuvm_probe_result *res)
{
	if (res->n_points)
		qsort(res->points, res->n_points, sizeof *res->points, cmp_point);
}

void gpuvm_probe_result_free(struct gpuvm_probe_result *res)
{
	free(res->points);
	free(res->cells);
	memset(res, 0, sizeof *res);
}

/* Largest hop count of a curve at this stride: the plan's, kept inside the
 * data cache (half its lines, so hashed or physically indexed sets do not
 * overflow) and the backend's memory. */
static uint32_t max_hops_at(const struct gpuvm_probe_backend *b, const struct gpuvm_probe_plan *plan,
			    uint64_t stride)
{
	uint64_t h = plan->max_hops;
	if (b->data_cache_lines && b->data_cache_lines / 2 < h)
		h = b->data_cache_lines / 2;
	if (b->max_bytes && b->max_bytes / stride < h)
		h = b->max_bytes / stride;
	if (b->max_hops && b->max_hops < h)
		h = b->max_hops;
	return (uint32_t)h;
}

static int measure(struct gpuvm_probe_backend *b, struct gpuvm_probe_result *res, uint64_t stride,
		   uint32_t hops, double *lat, struct gpuvm_error *err)
{
	if (b->ops->chase(b, stride, hops, lat, err))
		return -1;
	res->measurements++;
	if (probe_add_point(res, stride, hops, *lat))
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	return 0;
}

/* Measures hops[0..n) at one stride, in one backend run where it can. */
static int measure_many(struct gpuvm_probe_backend *b, struct gpuvm_probe_result *res, uint64_t stride,
			const uint32_t *hops, size_t n, struct gpuvm_error *err)
{
	if (!b->ops->chase_batch) {
		for (size_t j = 0; j < n; j++) {
			double lat;
			if (measure(b, res, stride, hops[j], &lat, err))
				return -1;
		}
		return 0;
	}
	double *lat = malloc((n ? n : 1) * sizeof *lat);
	if (!lat)
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	int rc = b->ops->chase_batch(b, stride, hops, n, lat, err);
	for (size_t j = 0; j < n && !rc; j++) {
		res->measurements++;
		if (probe_add_point(res, stride, hops[j], lat[j]))
			rc = gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	}
	free(lat);
	return rc;
}

/* Bisects every rise that starts a step (the last point of a flat run and
 * the first point above it) down to adjacent hop counts, so the knee is
 * exact: the largest hop count that still fits. */
/* The smallest change that counts as a rise at this latency. */
static double noise_at(const struct gpuvm_probe_backend *b, double latency)
{
	return b->noise + b->noise_rel * latency;
}

static int refine_stride(struct gpuvm_probe_backend *b, struct gpuvm_probe_result *res,
			 size_t first, size_t count, struct gpuvm_error *err)
{
	/* Copy the curve: measuring appends to res->points. */
	struct gpuvm_probe_point *c = malloc(count * sizeof *c);
	if (!c)
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	memcpy(c, res->points + first, count * sizeof *c);
	int rc = 0;
	/* On a noisy host, bisection would follow the noise: only the
	 * splitting below runs there. */
	for (size_t j = 0; j + 1 < count && !rc && b->deterministic; j++) {
		double noise = noise_at(b, c[j].latency);
		bool flat_before = j == 0 || fabs(c[j].latency - c[j - 1].latency) <= noise;
		if (!flat_before || c[j + 1].latency - c[j].latency <= noise)
			continue;
		uint32_t lo = c[j].hops, hi = c[j + 1].hops;
		double lo_lat = c[j].latency;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			double lat;
			if (measure(b, res, c[j].stride_bytes, mid, &lat, err)) {
				rc = -1;
				break;
			}
			if (lat - lo_lat > noise)
				hi = mid;
			else
				lo = mid;
		}
	}
	free(c);
	if (rc)
		return -1;
	/* Then split every interval that rises until neighbours are within 4 %
	 * of each other: a short plateau between two close knees (a ramp of
	 * one set-associative level, then the next level) keeps points of its
	 * own instead of merging two steps into one. */
	for (int round = 0; round < 16; round++) {
		size_t n = res->n_points - first;
		qsort(res->points + first, n, sizeof *res->points, cmp_point);
		uint32_t *mids = malloc(n * sizeof *mids);
		if (!mids)
			return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
		size_t nm = 0;
		for (size_t j = first; j + 1 < first + n; j++) {
			const struct gpuvm_probe_point *lo = &res->points[j], *hi = &res->points[j + 1];
			if (hi->latency - lo->latency > noise_at(b, lo->latency) && hi->hops - lo->hops > 1 &&
			    (double)hi->hops > 1.04 * lo->hops)
				mids[nm++] = (uint32_t)lround(sqrt((double)lo->hops * hi->hops));
		}
		uint64_t stride = res->points[first].stride_bytes;
		rc = measure_many(b, res, stride, mids, nm, err);
		free(mids);
		if (rc)
			return -1;
		if (!nm)
			break;
	}
	return 0;
}

static int run_grid(struct gpuvm_probe_backend *b, const struct gpuvm_probe_plan *plan,
		    struct gpuvm_probe_result *res, struct gpuvm_error *err)
{
	uint64_t smin = plan->min_stride_bytes ? plan->min_stride_bytes : b->min_stride_bytes;
	uint64_t smax = plan->max_stride_bytes ? plan->max_stride_bytes : b->max_stride_bytes;
	for (uint64_t s = smin; s && s <= smax; s *= 2) {
		uint32_t hmax = max_hops_at(b, plan, s);
		if (hmax < plan->min_hops + 2)
			continue;
		size_t first = res->n_points;
		uint32_t last = 0, *grid = NULL;
		size_t n_grid = 0, cap_grid = 0;
		for (double x = plan->min_hops;; x *= plan->hop_ratio) {
			uint32_t h = x >= hmax ? hmax : (uint32_t)lround(x);
			if (h > last) {
				if (VEC_PUSH(grid, n_grid, cap_grid, h)) {
					free(grid);
					return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
				}
				last = h;
			}
			if (h >= hmax)
				break;
		}
		int grc = measure_many(b, res, s, grid, n_grid, err);
		free(grid);
		if (grc)
			return -1;
		if (plan->refine && refine_stride(b, res, first, res->n_points - first, err))
			return -1;
		if (plan->progress)
			fprintf(stderr, "\r  property benchmark: stride %-10llu %zu points",
				(unsigned long long)s, res->n_points);
	}
	if (plan->progress)
		fputc('\n', stderr);
	/* Later passes re-time every point of the first, in the same order;
	 * each point keeps its lowest latency. */
	for (uint32_t pass = 1; pass < b->passes && !b->deterministic; pass++) {
		for (size_t i = 0; i < res->n_points; i++) {
			struct gpuvm_probe_point *p = &res->points[i];
			double lat;
			if (b->ops->chase(b, p->stride_bytes, p->hops, &lat, err))
				return -1;
			res->measurements++;
			if (lat < p->latency)
				p->latency = lat;
		}
		if (plan->progress)
			fprintf(stderr, "\r  property benchmark: pass %u of %u done", pass + 1, b->passes);
	}
	if (plan->progress && b->passes > 1 && !b->deterministic)
		fputc('\n', stderr);
	return 0;
}

/* The sharing benchmark of level l: baseline and every disrupting SM for
 * each filling SM (full), or only for the first SM of each group not yet
 * found (groups: sharing is a partition, so the rest follows). */
static int run_sharing_level(struct gpuvm_probe_backend *b, const struct gpuvm_probe_plan *plan,
			     struct gpuvm_probe_result *res, uint32_t l, struct gpuvm_error *err)
{
	struct gpuvm_probe_level *lv = &res->level[l];
	uint64_t stride;
	uint32_t hops, per_entry;
	if (gpuvm_probe_share_params(res, l, &stride, &hops, &per_entry))
		return 0;
	uint32_t sms = b->sms;
	bool full = plan->sharing == GPUVM_PROBE_SHARING_FULL ||
		    (plan->sharing == GPUVM_PROBE_SHARING_AUTO && sms <= 64);
	uint32_t *list = malloc((sms + 1) * sizeof *list);
	double *lat = malloc((sms + 1) * sizeof *lat);
	bool *assigned = calloc(sms, sizeof *assigned);
	int rc = 0;
	if (!list || !lat || !assigned) {
		rc = gpuvm_fail(err, "probe", 0, NULL, "out of memory");
		goto out;
	}
	double threshold = 0.5 * lv->miss_cost / per_entry;
	for (uint32_t i = 0; i < sms; i++) {
		if (!full && assigned[i])
			continue;
		size_t n = 0;
		list[n++] = GPUVM_PROBE_NO_SM;
		for (uint32_t k = 0; k < sms; k++)
			if (full || !assigned[k])
				list[n++] = k;
		if (b->ops->share(b, stride, hops, i, list, n, lat, err)) {
			rc = -1;
			goto out;
		}
		res->measurements += n;
		for (size_t j = 0; j < n; j++) {
			struct gpuvm_probe_share_cell c = {stride, hops, i, list[j], lat[j]};
			if (probe_add_cell(res, &c)) {
				rc = gpuvm_fail(err, "probe", 0, NULL, "out of memory");
				goto out;
			}
			if (j && lat[j] - lat[0] > threshold)
				assigned[list[j]] = true;
		}
		assigned[i] = true;
		if (plan->progress)
			fprintf(stderr, "\r  sharing benchmark: level %u, SM %u/%u", l + 1, i + 1, sms);
	}
	if (plan->progress)
		fputc('\n', stderr);
out:
	free(list);
	free(lat);
	free(assigned);
	return rc;
}

int gpuvm_probe_run(struct gpuvm_probe_backend *b, const struct gpuvm_probe_plan *plan,
		    struct gpuvm_probe_result *res, struct gpuvm_error *err)
{
	memset(res, 0, sizeof *res);
	double t0 = wall_now();
	snprintf(res->target, sizeof res->target, "%s", b->target);
	snprintf(res->unit, sizeof res->unit, "%s", b->unit);
	snprintf(res->notes, sizeof res->notes, "%s", b->notes);
	res->sms = b->sms;
	res->noise = b->noise;
	res->noise_rel = b->noise_rel;
	res->deterministic = b->deterministic;
	res->min_entry_bytes = b->min_entry_bytes;
	int rc = -1;
	if (!b->ops->chase) {
		for (size_t i = 0; i < b->n_recorded; i++)
			if (probe_add_point(res, b->recorded[i].stride_bytes, b->recorded[i].hops,
					    b->recorded[i].latency))
				goto oom;
		for (size_t i = 0; i < b->n_recorded_cells; i++)
			if (probe_add_cell(res, &b->recorded_cells[i]))
				goto oom;
		probe_sort_points(res);
		rc = gpuvm_probe_analyze(res, b->noise, err);
		goto done;
	}
	if (run_grid(b, plan, res, err))
		goto done;
	probe_sort_points(res);
	if (gpuvm_probe_analyze(res, b->noise, err))
		goto done;
	if (b->ops->share && b->sms && plan->sharing != GPUVM_PROBE_SHARING_OFF) {
		for (uint32_t l = 0; l < res->levels; l++)
			if (run_sharing_level(b, plan, res, l, err))
				goto done;
		if (gpuvm_probe_analyze(res, b->noise, err))
			goto done;
	}
	rc = 0;
	goto done;
oom:
	gpuvm_fail(err, "probe", 0, NULL, "out of memory");
done:
	res->wall_seconds = wall_now() - t0;
	if (rc)
		gpuvm_probe_result_free(res);
	return rc;
}

void gpuvm_probe_backend_free(struct gpuvm_probe_backend *b)
{
	if (b->ops && b->ops->destroy)
		b->ops->destroy(b);
	free(b->recorded);
	free(b->recorded_cells);
	memset(b, 0, sizeof *b);
}
