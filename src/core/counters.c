/* Counter registration (gpuvm/counters.h): the generic half. Walks the
 * registered section tables to write JSON, to take the per-launch
 * snapshots whose differences make the kernel records, and to list every
 * row for the statistics registry. Nothing here names a counter. */
#include "gpuvm/counters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const void *element(const struct gpuvm_counter_section *sec, const void *parent, uint32_t i)
{
	return (const char *)parent + sec->offset + (size_t)i * sec->stride;
}

static uint32_t elements(const struct gpuvm_counter_section *sec, const struct gpuvm_stats *st)
{
	return sec->count ? sec->count(st) : 1;
}

/* The number a row of a plain type holds (FN rows: value()). */
static double row_number(const struct gpuvm_counter *r, const struct gpuvm_counter_ctx *c)
{
	const char *p = (const char *)c->base + r->offset;
	double v = 0;
	switch (r->type) {
	case GPUVM_CTR_U64: {
		uint64_t x;
		memcpy(&x, p, sizeof x);
		v = (double)x;
		break;
	}
	case GPUVM_CTR_U32: {
		uint32_t x;
		memcpy(&x, p, sizeof x);
		v = (double)x;
		break;
	}
	case GPUVM_CTR_F64:
		memcpy(&v, p, sizeof v);
		break;
	case GPUVM_CTR_BOOL: {
		bool x;
		memcpy(&x, p, sizeof x);
		v = x;
		break;
	}
	case GPUVM_CTR_FN:
		v = r->value(c);
		break;
	default:
		break;
	}
	return v;
}

static double scaled(const struct gpuvm_counter *r, double v, double hz)
{
	return (r->flags & GPUVM_CTR_SECONDS) ? v / hz : v;
}

static void emit_elements(cJSON *into, const struct gpuvm_counter_section *sec,
			  const struct gpuvm_counter_ctx *parent);

void gpuvm_counters_emit(cJSON *o, const struct gpuvm_counter_section *sec,
			 const struct gpuvm_counter_ctx *ctx)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (r->present && !r->present(ctx))
			continue;
		const char *p = (const char *)ctx->base + r->offset;
		switch (r->type) {
		case GPUVM_CTR_U64:
		case GPUVM_CTR_U32:
		case GPUVM_CTR_F64:
		case GPUVM_CTR_FN: {
			double v = row_number(r, ctx);
			if (isnan(v))
				cJSON_AddNullToObject(o, r->name);
			else
				cJSON_AddNumberToObject(o, r->name, scaled(r, v, ctx->hz));
			break;
		}
		case GPUVM_CTR_BOOL:
			cJSON_AddBoolToObject(o, r->name, row_number(r, ctx) != 0);
			break;
		case GPUVM_CTR_TEXT:
			cJSON_AddStringToObject(o, r->name, p);
			break;
		case GPUVM_CTR_TEXT_PTR: {
			const char *s;
			memcpy(&s, p, sizeof s);
			cJSON_AddStringToObject(o, r->name, s ? s : "none");
			break;
		}
		case GPUVM_CTR_EMIT:
			r->emit(o, ctx);
			break;
		case GPUVM_CTR_DOC:
			break;
		case GPUVM_CTR_SECTION:
			emit_elements(o, r->child, ctx);
			break;
		}
	}
}

/* A child section: an object member, or an array with an object per element. */
static void emit_elements(cJSON *into, const struct gpuvm_counter_section *sec,
			  const struct gpuvm_counter_ctx *parent)
{
	uint32_t n = elements(sec, parent->st);
	if (!sec->array && n == 0)
		return;
	cJSON *holder = sec->array ? cJSON_AddArrayToObject(into, sec->name) : NULL;
	for (uint32_t i = 0; i < (sec->array ? n : 1); i++) {
		struct gpuvm_counter_ctx c = *parent;
		c.base = element(sec, parent->base, i);
		c.index = i;
		cJSON *o;
		if (sec->array) {
			o = cJSON_CreateObject();
			cJSON_AddItemToArray(holder, o);
		} else {
			o = cJSON_AddObjectToObject(into, sec->name);
		}
		gpuvm_counters_emit(o, sec, &c);
	}
}

/* ---- a system's totals ---------------------------------------------- */

void gpuvm_counters_emit_totals(cJSON *o, const struct gpuvm_counter_section *sec,
				const struct gpuvm_counter_ctx *runs, uint32_t n)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (r->type == GPUVM_CTR_SECTION) {
			const struct gpuvm_counter_section *ch = r->child;
			bool any = false;
			for (uint32_t k = 0; k < n; k++)
				any |= elements(ch, runs[k].st) > 0;
			if (ch->array || !any)
				continue;
			struct gpuvm_counter_ctx *sub = malloc(n * sizeof *sub);
			cJSON *so = sub ? cJSON_CreateObject() : NULL;
			if (!so) {
				free(sub);
				continue; /* out of memory: the report goes without it */
			}
			for (uint32_t k = 0; k < n; k++) {
				sub[k] = runs[k];
				sub[k].base = element(ch, runs[k].base, 0);
			}
			gpuvm_counters_emit_totals(so, ch, sub, n);
			free(sub);
			if (so->child)
				cJSON_AddItemToObject(o, ch->name, so);
			else
				cJSON_Delete(so);
			continue;
		}
		if (!(r->flags & (GPUVM_CTR_SUM | GPUVM_CTR_TOTAL)) ||
		    (r->type != GPUVM_CTR_U64 && r->type != GPUVM_CTR_U32 &&
		     r->type != GPUVM_CTR_F64))
			continue;
		bool present = !r->present;
		double v = 0;
		for (uint32_t k = 0; k < n; k++) {
			present |= r->present && r->present(&runs[k]);
			v += scaled(r, row_number(r, &runs[k]), runs[k].hz);
		}
		if (present)
			cJSON_AddNumberToObject(o, r->name, v);
	}
}

/* ---- per-launch snapshots ------------------------------------------- */

static uint32_t max_elements(const struct gpuvm_counter_section *sec)
{
	if (!sec->count)
		return 1;
	return sec->max_count ? sec->max_count : 1;
}

/* Every SUM row of the tree in order; out (may be NULL) gets the values.
 * Returns how many. */
static size_t snap(const struct gpuvm_counter_section *sec, const struct gpuvm_counter_ctx *c,
		   double *out)
{
	size_t n = 0;
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (r->type == GPUVM_CTR_SECTION) {
			for (uint32_t e = 0; e < max_elements(r->child); e++) {
				struct gpuvm_counter_ctx cc = *c;
				cc.base = c->base ? element(r->child, c->base, e) : NULL;
				cc.index = e;
				n += snap(r->child, &cc, out ? out + n : NULL);
			}
		} else if (r->flags & GPUVM_CTR_SUM) {
			if (out)
				out[n] = row_number(r, c);
			n++;
		}
	}
	return n;
}

size_t gpuvm_counters_snapshot_len(const struct gpuvm_counter_section *root)
{
	struct gpuvm_counter_ctx c = {0};
	return snap(root, &c, NULL);
}

void gpuvm_counters_snapshot(const struct gpuvm_counter_section *root, const struct gpuvm_stats *st,
			     double *out)
{
	struct gpuvm_counter_ctx c = {.st = st, .base = st};
	snap(root, &c, out);
}

void gpuvm_counters_delta(const struct gpuvm_counter_section *root, const struct gpuvm_stats *st,
			  double *at)
{
	if (!at)
		return;
	size_t n = gpuvm_counters_snapshot_len(root);
	double now[GPUVM_COUNTERS_MAX];
	if (n > GPUVM_COUNTERS_MAX)
		return; /* test_counters fails long before a table grows this far */
	gpuvm_counters_snapshot(root, st, now);
	for (size_t i = 0; i < n; i++)
		at[i] = now[i] - at[i];
}

/* Writes the SUM rows of sec from d (advancing *pos over the section's
 * whole layout); KEY rows are taken from the run. Members the record has
 * already are left as they are. */
static void emit_delta(cJSON *o, const struct gpuvm_counter_section *sec, const double *d,
		       size_t *pos, const struct gpuvm_counter_ctx *run)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (r->type == GPUVM_CTR_SECTION) {
			const struct gpuvm_counter_section *ch = r->child;
			uint32_t n = elements(ch, run->st), max = max_elements(ch);
			struct gpuvm_counter_ctx probe = *run;
			probe.base = NULL;
			bool skip = cJSON_GetObjectItemCaseSensitive(o, ch->name) != NULL ||
				    (!ch->array && n == 0) || snap(ch, &probe, NULL) == 0;
			cJSON *holder = skip || !ch->array ? NULL : cJSON_AddArrayToObject(o, ch->name);
			for (uint32_t e = 0; e < max; e++) {
				struct gpuvm_counter_ctx cc = *run;
				cc.base = element(ch, run->base, e);
				cc.index = e;
				cJSON *into = NULL;
				if (!skip && e < (ch->array ? n : 1)) {
					into = cJSON_CreateObject();
					if (ch->array)
						cJSON_AddItemToArray(holder, into);
					else
						cJSON_AddItemToObject(o, ch->name, into);
				}
				if (into)
					emit_delta(into, ch, d, pos, &cc);
				else
					*pos += snap(ch, &cc, NULL);
			}
		} else if (r->flags & GPUVM_CTR_KEY) {
			cJSON_AddNumberToObject(o, r->name, row_number(r, run));
		} else if (r->flags & GPUVM_CTR_SUM) {
			double v = d[(*pos)++];
			if (!cJSON_GetObjectItemCaseSensitive(o, r->name))
				cJSON_AddNumberToObject(o, r->name, scaled(r, v, run->hz));
		}
	}
}

void gpuvm_counters_emit_delta(cJSON *o, const struct gpuvm_counter_section *root, const double *d,
			       const struct gpuvm_counter_ctx *run)
{
	size_t pos = 0;
	struct gpuvm_counter_ctx c = *run;
	c.base = run->st;
	emit_delta(o, root, d, &pos, &c);
}

/* ---- merging a thread's copy ------------------------------------------ */

/* One field: into += from, from = 0. A field two rows name is merged
 * once (the second finds it zero). */
static void merge_at(enum gpuvm_counter_type type, size_t offset, char *into, char *from)
{
	switch (type) {
	case GPUVM_CTR_U64: {
		uint64_t a, b;
		memcpy(&a, into + offset, sizeof a);
		memcpy(&b, from + offset, sizeof b);
		a += b;
		b = 0;
		memcpy(into + offset, &a, sizeof a);
		memcpy(from + offset, &b, sizeof b);
		break;
	}
	case GPUVM_CTR_U32: {
		uint32_t a, b;
		memcpy(&a, into + offset, sizeof a);
		memcpy(&b, from + offset, sizeof b);
		a += b;
		b = 0;
		memcpy(into + offset, &a, sizeof a);
		memcpy(from + offset, &b, sizeof b);
		break;
	}
	case GPUVM_CTR_F64: {
		double a, b;
		memcpy(&a, into + offset, sizeof a);
		memcpy(&b, from + offset, sizeof b);
		if (b != 0) /* x + 0.0 would turn a -0.0 into 0.0 */
			a += b;
		b = 0;
		memcpy(into + offset, &a, sizeof a);
		memcpy(from + offset, &b, sizeof b);
		break;
	}
	default:
		break;
	}
}

void gpuvm_counters_merge(const struct gpuvm_counter_section *sec, void *into, void *from)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (r->type == GPUVM_CTR_SECTION) {
			for (uint32_t e = 0; e < max_elements(r->child); e++)
				gpuvm_counters_merge(r->child, (void *)element(r->child, into, e),
						     (void *)element(r->child, from, e));
		} else {
			merge_at(r->type, r->offset, into, from);
		}
	}
}

static bool plain(enum gpuvm_counter_type t)
{
	return t == GPUVM_CTR_U64 || t == GPUVM_CTR_U32 || t == GPUVM_CTR_F64;
}

/* The plan's fields under sec, whose struct lies at base bytes into the
 * root's; all: sec's SECTION row carried the flag. */
static size_t plan(const struct gpuvm_counter_section *sec, size_t base, unsigned flag, bool all,
		   struct gpuvm_counter_field *out, size_t cap, size_t n)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		bool in = all || (r->flags & flag);
		if (r->type == GPUVM_CTR_SECTION) {
			for (uint32_t e = 0; e < max_elements(r->child); e++)
				n = plan(r->child,
					 base + r->child->offset + (size_t)e * r->child->stride, flag,
					 in, out, cap, n);
		} else if (in && plain(r->type)) {
			if (n < cap)
				out[n] = (struct gpuvm_counter_field){base + r->offset, r->type};
			n++;
		}
	}
	return n;
}

size_t gpuvm_counters_plan(const struct gpuvm_counter_section *sec, unsigned flag,
			   struct gpuvm_counter_field *out, size_t cap)
{
	return plan(sec, 0, flag, false, out, cap, 0);
}

void gpuvm_counters_merge_plan(const struct gpuvm_counter_field *f, size_t n, void *into,
			       void *from)
{
	for (size_t i = 0; i < n; i++)
		merge_at(f[i].type, f[i].offset, into, from);
}

/* ---- listing -------------------------------------------------------- */

static void visit(const struct gpuvm_counter_section *sec, const char *prefix,
		  gpuvm_counter_visit fn, void *arg)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		char path[256];
		if (r->type == GPUVM_CTR_SECTION) {
			snprintf(path, sizeof path, "%s%s%s", prefix, r->child->name,
				 r->child->array ? "[]." : ".");
			visit(r->child, path, fn, arg);
		} else if (r->help) {
			snprintf(path, sizeof path, "%s%s", prefix, r->name);
			fn(path, r, sec->scope, arg);
		}
	}
}

void gpuvm_counters_visit(const struct gpuvm_counter_section *sec, gpuvm_counter_visit fn, void *arg)
{
	char prefix[64] = "";
	if (sec->name[0])
		snprintf(prefix, sizeof prefix, "%s%s", sec->name, sec->array ? "[]." : ".");
	visit(sec, prefix, fn, arg);
}
