/* Probe outputs: curves and sharing cells as CSV (pandas-ready), the JSON
 * object and the summary table. */
#include "gpuvm/probe.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

struct sbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->n + (size_t)w < b->cap) {
			b->n += (size_t)w;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + (size_t)w + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
}

static char *sb_take(struct sbuf *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	if (!b->s)
		b->s = calloc(1, 1);
	return b->s;
}

char *gpuvm_probe_curves_csv(const struct gpuvm_probe_result *res)
{
	struct sbuf b = {0};
	sb_printf(&b, "target,stride_bytes,size_bytes,hops,latency_%s\n", res->unit);
	for (size_t i = 0; i < res->n_points; i++) {
		const struct gpuvm_probe_point *p = &res->points[i];
		sb_printf(&b, "%s,%llu,%llu,%u,%.4f\n", res->target, (unsigned long long)p->stride_bytes,
			  (unsigned long long)(p->stride_bytes * p->hops), p->hops, p->latency);
	}
	return sb_take(&b);
}

/* The level a cell belongs to (by its chase), or -1. */
static int level_of_cell(const struct gpuvm_probe_result *res, const struct gpuvm_probe_share_cell *c)
{
	for (uint32_t l = 0; l < res->levels; l++)
		if (res->level[l].sharing_measured && res->level[l].share_stride_bytes == c->stride_bytes &&
		    res->level[l].share_hops == c->hops)
			return (int)l;
	return -1;
}

char *gpuvm_probe_sharing_csv(const struct gpuvm_probe_result *res)
{
	struct sbuf b = {0};
	sb_printf(&b, "target,level,stride_bytes,hops,sm_fill,sm_disrupt,latency_%s,increase_%s,shared\n",
		  res->unit, res->unit);
	for (size_t i = 0; i < res->n_cells; i++) {
		const struct gpuvm_probe_share_cell *c = &res->cells[i];
		if (c->sm_disrupt == GPUVM_PROBE_NO_SM)
			continue;
		int l = level_of_cell(res, c);
		double base = 0;
		for (size_t j = 0; j < res->n_cells; j++)
			if (res->cells[j].sm_disrupt == GPUVM_PROBE_NO_SM &&
			    res->cells[j].sm_fill == c->sm_fill && res->cells[j].hops == c->hops &&
			    res->cells[j].stride_bytes == c->stride_bytes)
				base = res->cells[j].latency;
		double inc = c->latency - base;
		int shared = l >= 0 && inc > res->level[l].share_threshold;
		sb_printf(&b, "%s,%d,%llu,%u,%u,%u,%.4f,%.4f,%d\n", res->target, l + 1,
			  (unsigned long long)c->stride_bytes, c->hops, c->sm_fill, c->sm_disrupt,
			  c->latency, inc, shared);
	}
	return sb_take(&b);
}

static void groups_text(const struct gpuvm_probe_level *lv, uint32_t sms, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (uint32_t g = 0; g < lv->groups && n + 8 < len; g++) {
		n += (size_t)snprintf(buf + n, len - n, "%s{", g ? " " : "");
		bool first = true;
		for (uint32_t i = 0; i < sms && n + 8 < len; i++)
			if (lv->group_of_sm[i] == g) {
				n += (size_t)snprintf(buf + n, len - n, "%s%u", first ? "" : ",", i);
				first = false;
			}
		if (n + 2 < len)
			n += (size_t)snprintf(buf + n, len - n, "}");
	}
}

cJSON *gpuvm_probe_result_json(const struct gpuvm_probe_result *res)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "target", res->target);
	cJSON_AddStringToObject(o, "unit", res->unit);
	cJSON_AddNumberToObject(o, "baseline_latency", res->baseline_latency);
	cJSON_AddNumberToObject(o, "sms", res->sms);
	cJSON_AddNumberToObject(o, "measurements", (double)res->measurements);
	cJSON_AddNumberToObject(o, "wall_seconds", res->wall_seconds);
	cJSON_AddStringToObject(o, "notes", res->notes);
	cJSON *levels = cJSON_AddArrayToObject(o, "levels");
	for (uint32_t l = 0; l < res->levels; l++) {
		const struct gpuvm_probe_level *lv = &res->level[l];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "level", l + 1);
		cJSON_AddNumberToObject(j, "entries", lv->entries);
		cJSON_AddNumberToObject(j, "entry_bytes", (double)lv->entry_bytes);
		cJSON_AddNumberToObject(j, "reach_bytes", (double)lv->reach_bytes);
		cJSON_AddNumberToObject(j, "miss_cost", lv->miss_cost);
		cJSON_AddNumberToObject(j, "below_latency", lv->below_latency);
		cJSON_AddBoolToObject(j, "half_step_seen", lv->half_step_seen);
		cJSON_AddBoolToObject(j, "double_step_seen", lv->double_step_seen);
		cJSON_AddBoolToObject(j, "sharing_measured", lv->sharing_measured);
		if (lv->sharing_measured) {
			cJSON_AddNumberToObject(j, "share_stride_bytes", (double)lv->share_stride_bytes);
			cJSON_AddNumberToObject(j, "share_hops", lv->share_hops);
			cJSON_AddNumberToObject(j, "share_threshold", lv->share_threshold);
			cJSON_AddNumberToObject(j, "groups", lv->groups);
			cJSON *g = cJSON_AddArrayToObject(j, "group_of_sm");
			for (uint32_t i = 0; i < res->sms; i++)
				cJSON_AddItemToArray(g, cJSON_CreateNumber(lv->group_of_sm[i]));
		}
		cJSON_AddItemToArray(levels, j);
	}
	return o;
}

void gpuvm_probe_print_summary(FILE *out, const struct gpuvm_probe_result *res)
{
	fprintf(out, "TLB probe of %s: %u level%s found, baseline %.1f %s per hop\n", res->target,
		res->levels, res->levels == 1 ? "" : "s", res->baseline_latency, res->unit);
	fprintf(out, "(%llu measurements, %.1f s)\n\n", (unsigned long long)res->measurements,
		res->wall_seconds);
	fprintf(out, "level  entries  entry size      reach  miss cost  X/2 step  2X step   sharing groups\n");
	for (uint32_t l = 0; l < res->levels; l++) {
		const struct gpuvm_probe_level *lv = &res->level[l];
		char es[32], rs[32], grp[64];
		gpuvm_format_size(lv->entry_bytes, es, sizeof es);
		gpuvm_format_size(lv->reach_bytes, rs, sizeof rs);
		if (lv->sharing_measured)
			snprintf(grp, sizeof grp, "%u", lv->groups);
		else
			snprintf(grp, sizeof grp, "not measured");
		fprintf(out, "L%-5u %7u  %10s %10s  %6.1f %-6s %-8s  %-8s  %s\n", l + 1, lv->entries, es,
			rs, lv->miss_cost, res->unit, lv->half_step_seen ? "seen" : "inferred",
			lv->double_step_seen ? "seen" : "past end", grp);
	}
	for (uint32_t l = 0; l < res->levels; l++) {
		const struct gpuvm_probe_level *lv = &res->level[l];
		if (!lv->sharing_measured)
			continue;
		char buf[4096];
		groups_text(lv, res->sms, buf, sizeof buf);
		fprintf(out, "\nL%u sharing domains (logical SM ids): %s\n", l + 1, buf);
	}
	if (res->notes[0])
		fprintf(out, "\n%s\n", res->notes);
}
