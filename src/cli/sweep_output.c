/* Sweep output: results flattened into named numeric columns
 * ("tlb": [{"level":1,"hits":..}] -> tlb_l1_hits), then a table, CSV,
 * JSON, and a gnuplot figure. */
#include "gpuvm/utf8.h"
#include "gpuvm/number.h"
#include "sweep_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/plot.h"
#include "gpuvm/report.h"
#include "gpuvm/stats_registry.h"
#include "gpuvm_version.h"

/* ---- flattening ------------------------------------------------------ */

struct kv {
	char *name;
	double v;
};

struct flat {
	struct kv *kv;
	size_t n, cap;
};

static void die_oom(void)
{
	fprintf(stderr, "gpuvm sweep: out of memory\n");
	exit(1);
}

static void flat_add(struct flat *f, const char *name, double v)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->kv[i].name, name) == 0)
			return; /* first one wins */
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->kv = realloc(f->kv, f->cap * sizeof *f->kv);
		if (!f->kv)
			die_oom();
	}
	f->kv[f->n].name = strdup(name);
	if (!f->kv[f->n].name)
		die_oom();
	f->kv[f->n++].v = v;
}

static const struct kv *flat_get(const struct flat *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->kv[i].name, name) == 0)
			return &f->kv[i];
	return NULL;
}

static void flat_free(struct flat *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->kv[i].name);
	free(f->kv);
	f->kv = NULL;
	f->n = f->cap = 0;
}

static void flatten_item(const cJSON *it, const char *name, struct flat *f, int depth)
{
	if (depth > 8)
		return;
	if (cJSON_IsNumber(it)) {
		flat_add(f, name, it->valuedouble);
	} else if (cJSON_IsBool(it)) {
		flat_add(f, name, cJSON_IsTrue(it) ? 1 : 0);
	} else if (cJSON_IsObject(it)) {
		const cJSON *c;
		cJSON_ArrayForEach(c, it) {
			if (!c->string)
				continue;
			/* per-allocation paging stays in the JSON, like kernels */
			size_t nl = strlen(name);
			bool uvm = !strcmp(name, "uvm") || (!strncmp(name, "gpu_", 4) && nl > 4 &&
							    !strcmp(name + nl - 4, "_uvm"));
			if (depth == 0 && uvm && !strcmp(c->string, "allocations"))
				continue;
			char sub[256];
			snprintf(sub, sizeof sub, "%s_%s", name, c->string);
			flatten_item(c, sub, f, depth + 1);
		}
	} else if (cJSON_IsArray(it)) {
		const cJSON *c;
		int idx = 0;
		cJSON_ArrayForEach(c, it) {
			char sub[256];
			const cJSON *level = cJSON_IsObject(c) ?
				cJSON_GetObjectItemCaseSensitive(c, "level") : NULL;
			if (cJSON_IsNumber(level)) {
				/* {"level":1,"hits":..} -> NAME_l1_hits */
				const cJSON *e;
				cJSON_ArrayForEach(e, c) {
					if (!e->string || e == level)
						continue;
					snprintf(sub, sizeof sub, "%s_l%d_%s", name, level->valueint,
						 e->string);
					flatten_item(e, sub, f, depth + 1);
				}
			} else if (cJSON_IsObject(c)) {
				snprintf(sub, sizeof sub, "%s_%d", name, idx);
				flatten_item(c, sub, f, depth + 1);
			}
			/* Lists of plain numbers (per-instance counters) stay in the
			 * JSON; as columns they would drown the CSV. */
			idx++;
		}
	}
}

/* The members of one run's result, each column name after prefix. */
static void flatten_members(const cJSON *r, const char *prefix, struct flat *f)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, r) {
		/* per-launch results stay in the JSON: one column set per
		 * launch would drown the CSV (totals are columns already) */
		if (!c->string || strcmp(c->string, "config") == 0 ||
		    strcmp(c->string, "workload") == 0 || strcmp(c->string, "point") == 0 ||
		    (strcmp(c->string, "kernels") == 0 && cJSON_IsArray(c)))
			continue;
		/* a GPU's seed is the run's, its index in its columns' names */
		if (*prefix && (!strcmp(c->string, "seed") || !strcmp(c->string, "index")))
			continue;
		char name[256];
		snprintf(name, sizeof name, "%s%s", prefix, c->string);
		if (!*prefix && gpuvm_report_is_system(r) && strcmp(c->string, "gpu") == 0) {
			/* a system's GPUs: each as a run of its own, gpu_D_METRIC
			 * (the run's totals are the columns without a prefix) */
			const cJSON *g;
			int d = 0;
			cJSON_ArrayForEach(g, c) {
				snprintf(name, sizeof name, "gpu_%d_", d++);
				flatten_members(g, name, f);
			}
			continue;
		}
		flatten_item(c, name, f, 0);
	}
}

/* Numbers of one result, by column name; *_hit_ratio derived from each
 * *_hits / *_misses pair. Inputs (config, workload, point) are left out. */
static void flatten_result(const cJSON *r, struct flat *f)
{
	flatten_members(r, "", f);
	size_t n = f->n;
	for (size_t i = 0; i < n; i++) {
		const char *name = f->kv[i].name;
		size_t len = strlen(name);
		if (len <= 5 || strcmp(name + len - 5, "_hits") != 0)
			continue;
		char other[256], ratio[256];
		snprintf(other, sizeof other, "%.*s_misses", (int)(len - 5), name);
		snprintf(ratio, sizeof ratio, "%.*s_hit_ratio", (int)(len - 5), name);
		const struct kv *m = flat_get(f, other);
		if (!m)
			continue;
		/* No ratio without lookups: absent rather than NaN, so a
		 * column exists at a point exactly when its cell is not empty
		 * (what `sweep merge` and --resume rebuild the order from). */
		double hits = f->kv[i].v, total = hits + m->v;
		if (total > 0)
			flat_add(f, ratio, hits / total);
	}
}

bool sweep_has_metric(const cJSON *result, const char *metric)
{
	struct flat f = {0};
	flatten_result(result, &f);
	bool found = flat_get(&f, metric) != NULL;
	flat_free(&f);
	return found;
}

/* ---- columns ---------------------------------------------------------- */

static const char *const preferred[] = {
	"sim_cycles", "sim_seconds", "accesses_per_sim_second", "items_per_sim_second",
	"work_items", "warp_instructions",
	"thread_accesses", "wall_seconds", "walks", "dram_bytes", "pcie_h2d_bytes",
	"pcie_d2h_bytes",
};
#define N_PREFERRED (sizeof preferred / sizeof preferred[0])

size_t sweep_metric_rank(const char *name)
{
	for (size_t i = 0; i < N_PREFERRED; i++)
		if (strcmp(preferred[i], name) == 0)
			return i;
	return strncmp(name, "tlb_", 4) == 0 ? N_PREFERRED : N_PREFERRED + 1;
}

struct columns {
	char **name;
	size_t n;
	struct flat *flat; /* per point */
};

struct ranked {
	char *name;
	size_t rank, order;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *p = a, *q = b;
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return p->order < q->order ? -1 : p->order > q->order;
}

/* Is name one of the fixed (non-metric) columns? */
static bool fixed_column(const struct sweep *s, const char *name)
{
	if (strcmp(name, "gpu") == 0 || strcmp(name, "workload") == 0 ||
	    strcmp(name, "seed") == 0)
		return true;
	for (size_t k = 0; k < s->n_vary; k++) {
		size_t len = strlen(s->vary[k].key);
		if (strcmp(name, s->vary[k].key) == 0 ||
		    (strncmp(name, s->vary[k].key, len) == 0 && strcmp(name + len, "_bytes") == 0))
			return true;
	}
	return false;
}

static void columns_build(const struct sweep *s, struct columns *c)
{
	c->flat = calloc(s->n_points ? s->n_points : 1, sizeof *c->flat);
	if (!c->flat)
		die_oom();
	struct ranked *r = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < s->n_points; i++) {
		if (!s->results[i])
			continue;
		flatten_result(s->results[i], &c->flat[i]);
		for (size_t j = 0; j < c->flat[i].n; j++) {
			const char *name = c->flat[i].kv[j].name;
			bool seen = fixed_column(s, name);
			for (size_t k = 0; k < n && !seen; k++)
				seen = strcmp(r[k].name, name) == 0;
			if (seen)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				r = realloc(r, cap * sizeof *r);
				if (!r)
					die_oom();
			}
			r[n] = (struct ranked){(char *)name, sweep_metric_rank(name), n};
			n++;
		}
	}
	if (n)
		qsort(r, n, sizeof *r, cmp_ranked);
	c->name = calloc(n ? n : 1, sizeof *c->name);
	if (!c->name)
		die_oom();
	for (size_t k = 0; k < n; k++)
		c->name[k] = r[k].name; /* owned by flat[] */
	c->n = n;
	free(r);
}

static void columns_free(const struct sweep *s, struct columns *c)
{
	for (size_t i = 0; i < s->n_points; i++)
		flat_free(&c->flat[i]);
	free(c->flat);
	free(c->name);
}

/* ---- formatting ------------------------------------------------------- */

/* 1.23e9 rather than 1.23e+09. */
static void fmt_sci(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	char tmp[48];
	snprintf(tmp, sizeof tmp, "%.2e", v);
	char *e = strchr(tmp, 'e');
	if (!e) {
		snprintf(buf, len, "%s", tmp);
		return;
	}
	*e = 0;
	/* "%.2e" writes the exponent's sign, '+' too */
	const char *x = e + 1 + (e[1] == '+');
	int64_t exp = 0;
	gpuvm_scan_i64(x, NULL, -9999, 9999, &exp);
	snprintf(buf, len, "%.8se%d", tmp, (int)(exp % 1000));
}

/* ---- point annotation ------------------------------------------------- */

void sweep_annotate(const struct sweep *s, size_t i, cJSON *result)
{
	struct gpuvm_run_spec spec;
	char *owned[SWEEP_SPEC_OWNED];
	struct gpuvm_error err;
	if (sweep_point_spec(s, i, &spec, owned, &err) != 0)
		return;
	size_t g, vi[SWEEP_MAX_VARY];
	sweep_point_coords(s, i, &g, vi);
	cJSON *p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "index", (double)i);
	cJSON_AddStringToObject(p, "gpu", s->gpus[g]);
	if (spec.system) /* the point's own spec, its varied modifiers set */
		cJSON_AddStringToObject(p, "system", spec.system);
	cJSON_AddStringToObject(p, "workload", spec.workload);
	cJSON_AddNumberToObject(p, "seed", (double)spec.seed);
	cJSON *vary = cJSON_AddObjectToObject(p, "vary");
	for (size_t k = 0; k < s->n_vary; k++)
		cJSON_AddStringToObject(vary, s->vary[k].key, s->vary[k].values[vi[k]]);
	cJSON_DeleteItemFromObjectCaseSensitive(result, "point");
	cJSON_AddItemToObject(result, "point", p);
	/* which simulator made it, as in gpuvm sim's JSON */
	if (!cJSON_GetObjectItemCaseSensitive(result, "gpuvm_version")) {
		cJSON_AddStringToObject(result, "gpuvm_version", GPUVM_VERSION);
		cJSON_AddStringToObject(result, "gpuvm_commit", GPUVM_COMMIT);
	}
	sweep_spec_free(owned);
}

/* ---- CSV -------------------------------------------------------------- */

size_t sweep_csv_prefix(const struct sweep *s, const char **names, char (*buf)[256], size_t max)
{
	size_t n = 0;
	if (n < max)
		names[n++] = "gpu";
	for (size_t k = 0; k < s->n_vary && n < max; k++) {
		names[n++] = s->vary[k].key;
		if (s->vary[k].is_size && n < max) {
			snprintf(buf[k], 256, "%s_bytes", s->vary[k].key);
			names[n++] = buf[k];
		}
	}
	return n;
}

size_t sweep_csv_suffix(const struct sweep *s, const char **names, size_t max)
{
	bool seed_varied = false;
	for (size_t k = 0; k < s->n_vary; k++)
		seed_varied |= s->vary[k].kind == VARY_SEED;
	size_t n = 0;
	names[n++] = "workload";
	if (!seed_varied)
		names[n++] = "seed";
	names[n++] = "point";
	names[n++] = "error";
	(void)max;
	return n;
}

int sweep_write_csv(const struct sweep *s, FILE *f, struct gpuvm_error *err)
{
	struct columns c;
	columns_build(s, &c);
	const char *fixed[2 * SWEEP_MAX_VARY + 8];
	char bytes[SWEEP_MAX_VARY][256];
	size_t np = sweep_csv_prefix(s, fixed, bytes, 2 * SWEEP_MAX_VARY + 1);
	size_t ns = sweep_csv_suffix(s, fixed + np, 4);
	for (size_t j = 0; j < np; j++) {
		if (j)
			fputc(',', f);
		gpuvm_csv_field(f, fixed[j]);
	}
	for (size_t j = 0; j < c.n; j++) {
		fputc(',', f);
		gpuvm_csv_field(f, c.name[j]);
	}
	for (size_t j = 0; j < ns; j++) {
		fputc(',', f);
		gpuvm_csv_field(f, fixed[np + j]);
	}
	fputc('\n', f);
	bool seed_col = ns == 4;

	for (size_t i = 0; i < s->n_points; i++) {
		if (!s->results[i] && !(s->errors && s->errors[i]))
			continue; /* not run here (another shard), or not yet */
		size_t g, vi[SWEEP_MAX_VARY];
		char buf[64];
		sweep_point_coords(s, i, &g, vi);
		gpuvm_csv_field(f, s->gpus[g]);
		for (size_t k = 0; k < s->n_vary; k++) {
			fputc(',', f);
			gpuvm_csv_field(f, s->vary[k].values[vi[k]]);
			if (s->vary[k].is_size) {
				gpuvm_csv_number(s->vary[k].num[vi[k]], buf, sizeof buf);
				fprintf(f, ",%s", buf);
			}
		}
		for (size_t j = 0; j < c.n; j++) {
			const struct kv *kv = flat_get(&c.flat[i], c.name[j]);
			buf[0] = 0;
			if (kv)
				gpuvm_csv_number(kv->v, buf, sizeof buf);
			fprintf(f, ",%s", buf);
		}
		/* workload and seed as the point's spec has them */
		struct gpuvm_run_spec spec;
		char *owned[SWEEP_SPEC_OWNED];
		struct gpuvm_error e;
		fputc(',', f);
		if (sweep_point_spec(s, i, &spec, owned, &e) == 0) {
			gpuvm_csv_field(f, spec.workload);
			if (seed_col)
				fprintf(f, ",%llu", (unsigned long long)spec.seed);
			sweep_spec_free(owned);
		} else if (seed_col) {
			fputc(',', f);
		}
		fprintf(f, ",%zu,", i);
		if (s->errors && s->errors[i])
			gpuvm_csv_field(f, s->errors[i]);
		fputc('\n', f);
	}
	columns_free(s, &c);
	if (ferror(f))
		return gpuvm_fail(err, "--csv", 0, NULL, "%s: write error", s->csv);
	return 0;
}

/* ---- JSON ------------------------------------------------------------- */

int sweep_write_json(const struct sweep *s, FILE *f, struct gpuvm_error *err)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < s->n_points; i++) {
		if (s->results[i]) {
			cJSON_AddItemReferenceToArray(arr, s->results[i]);
		} else if (s->errors && s->errors[i]) {
			/* a failed point: its coordinates and why */
			cJSON *o = cJSON_CreateObject();
			sweep_annotate(s, i, o);
			cJSON_AddStringToObject(o, "error", s->errors[i]);
			cJSON_AddItemToArray(arr, o);
		}
	}
	char *raw = cJSON_Print(arr);
	cJSON_Delete(arr);
	/* valid UTF-8 whatever bytes names or paths carried (gpuvm/utf8.h) */
	char *text = raw ? gpuvm_utf8_repair(raw) : NULL;
	free(raw);
	if (!text)
		return gpuvm_fail(err, "--json", 0, NULL, "%s: out of memory", s->json);
	fputs(text, f);
	fputc('\n', f);
	free(text);
	if (ferror(f))
		return gpuvm_fail(err, "--json", 0, NULL, "%s: write error", s->json);
	return 0;
}

/* ---- table ------------------------------------------------------------ */

#define TABLE_MAX_COLS (SWEEP_MAX_VARY + 16)

void sweep_print_table(const struct sweep *s, FILE *out)
{
	struct columns c;
	columns_build(s, &c);
	int levels = 0;
	for (int l = 1; l <= 8; l++) {
		char name[32];
		snprintf(name, sizeof name, "tlb_l%d_hit_ratio", l);
		for (size_t j = 0; j < c.n; j++)
			if (strcmp(c.name[j], name) == 0)
				levels = l;
	}

	size_t ncol = 0;
	const char *head[TABLE_MAX_COLS];
	bool right[TABLE_MAX_COLS];
	head[ncol] = "gpu", right[ncol++] = false;
	for (size_t k = 0; k < s->n_vary; k++)
		head[ncol] = s->vary[k].key, right[ncol++] = s->vary[k].is_numeric;
	head[ncol] = "sim_s", right[ncol++] = true;
	head[ncol] = "acc/sim_s", right[ncol++] = true;
	head[ncol] = "items/sim_s", right[ncol++] = true;
	/* the TLB levels, named so that "L2" cannot be read as the L2 data
	 * cache (CSV tlb_l2_hit_ratio; the cache is l2_sector_*) */
	static const char *const lnames[] = {"TLB1 hit", "TLB2 hit", "TLB3 hit", "TLB4 hit",
					     "TLB5 hit", "TLB6 hit", "TLB7 hit", "TLB8 hit"};
	for (int l = 0; l < levels; l++)
		head[ncol] = lnames[l], right[ncol++] = true;
	head[ncol] = "walks", right[ncol++] = true;
	head[ncol] = "wall_s", right[ncol++] = true;

	size_t rows = 0, *idx = calloc(s->n_points ? s->n_points : 1, sizeof *idx);
	if (!idx)
		die_oom();
	for (size_t i = 0; i < s->n_points; i++)
		if (s->results[i] || (s->errors && s->errors[i]))
			idx[rows++] = i;
	char (*cell)[48] = calloc((rows ? rows : 1) * ncol, sizeof *cell);
	if (!cell)
		die_oom();
	size_t width[TABLE_MAX_COLS];
	for (size_t j = 0; j < ncol; j++)
		width[j] = strlen(head[j]);
	for (size_t r = 0; r < rows; r++) {
		size_t i = idx[r];
		size_t g, vi[SWEEP_MAX_VARY], j = 0;
		sweep_point_coords(s, i, &g, vi);
		char (*row)[48] = cell + r * ncol;
		snprintf(row[j++], 48, "%s", s->gpus[g]);
		for (size_t k = 0; k < s->n_vary; k++)
			snprintf(row[j++], 48, "%s", s->vary[k].values[vi[k]]);
		const struct flat *f = &c.flat[i];
		const struct kv *kv;
		kv = flat_get(f, "sim_seconds");
		if (s->errors && s->errors[i])
			snprintf(row[j], 48, "failed");
		else if (kv && isfinite(kv->v))
			snprintf(row[j], 48, "%.4g", kv->v);
		else
			snprintf(row[j], 48, "-");
		j++;
		kv = flat_get(f, "accesses_per_sim_second");
		fmt_sci(kv ? kv->v : NAN, row[j++], 48);
		kv = flat_get(f, "items_per_sim_second");
		fmt_sci(kv ? kv->v : NAN, row[j++], 48);
		for (int l = 1; l <= levels; l++) {
			char name[32];
			snprintf(name, sizeof name, "tlb_l%d_hit_ratio", l);
			kv = flat_get(f, name);
			if (kv && isfinite(kv->v))
				snprintf(row[j], 48, "%.2f%%", 100 * kv->v);
			else
				snprintf(row[j], 48, "-");
			j++;
		}
		kv = flat_get(f, "walks");
		if (kv && isfinite(kv->v))
			snprintf(row[j], 48, "%.0f", kv->v);
		else
			snprintf(row[j], 48, "-");
		j++;
		kv = flat_get(f, "wall_seconds");
		if (kv && isfinite(kv->v))
			snprintf(row[j], 48, "%.2f", kv->v);
		else
			snprintf(row[j], 48, "-");
		j++;
		for (j = 0; j < ncol; j++)
			if (strlen(row[j]) > width[j])
				width[j] = strlen(row[j]);
	}
	for (size_t i = 0; i <= rows; i++) {
		for (size_t j = 0; j < ncol; j++) {
			const char *text = i == 0 ? head[j] : cell[(i - 1) * ncol + j];
			if (j)
				fputs("  ", out);
			if (right[j])
				fprintf(out, "%*s", (int)width[j], text);
			else if (j + 1 < ncol)
				fprintf(out, "%-*s", (int)width[j], text);
			else
				fputs(text, out);
		}
		fputc('\n', out);
	}
	free(cell);
	free(idx);
	columns_free(s, &c);
}

/* ---- figure ----------------------------------------------------------- */

bool sweep_has_dimension(const struct sweep *s, const char *key)
{
	if (strcmp(key, "gpu") == 0)
		return true;
	for (size_t k = 0; k < s->n_vary; k++)
		if (strcmp(s->vary[k].key, key) == 0)
			return true;
	return false;
}

/* An axis label for a config key: the key, then what it is (its help up
 * to the first ':' or ';', when that reads as words) and the unit. */
static void config_label(const char *key, bool bytes, char *buf, size_t len)
{
	const char *help = gpuvm_config_key_help(key);
	size_t n = help ? strcspn(help, ":;(") : 0;
	if (n > 48 || (help && !isalpha((unsigned char)help[0])))
		n = 0;
	while (n && help[n - 1] == ' ')
		n--;
	const char *unit = bytes ? "bytes" : strstr(key, "percent") ? "%" :
			   strstr(key, "cycles") ? "cycles" : NULL;
	if (n && unit)
		snprintf(buf, len, "%s (%.*s, %s)", key, (int)n, help, unit);
	else if (n)
		snprintf(buf, len, "%s (%.*s)", key, (int)n, help);
	else if (unit)
		snprintf(buf, len, "%s (%s)", key, unit);
	else
		snprintf(buf, len, "%s", key);
}
/* The unit of a workload's work_items, for axis labels (the workloads'
 * work_items hooks count these: random_sampling.c sampled reads,
 * hash_groupby.c grouped input rows, stream_triad.c array elements);
 * NULL for others (the registry's generic "work items"). */
static const char *work_unit(const char *spec)
{
	static const struct {
		const char *name, *unit;
	} units[] = {{"random-sampling", "reads"}, {"hash-groupby", "rows"},
		     {"stream-triad", "elements"}};
	size_t n = strcspn(spec, ":");
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && !strncmp(spec, units[i].name, n))
			return units[i].unit;
	return NULL;
}



/* x: one dimension of the grid; one line per combination of the others. */
int sweep_write_plot(const struct sweep *s, const char *path, struct gpuvm_error *err)
{
	const char *xk = s->x ? s->x : s->n_vary ? s->vary[0].key : "gpu";
	const char *yk = s->y ? s->y : "accesses_per_sim_second";
	int xv = -1; /* index of the x dimension in vary[], -1 for gpu */
	for (size_t k = 0; k < s->n_vary; k++)
		if (strcmp(s->vary[k].key, xk) == 0)
			xv = (int)k;
	if (xv < 0 && strcmp(xk, "gpu") != 0)
		return gpuvm_fail(err, "--x", 0, NULL, "'%s' is not a varied key or 'gpu'", xk);
	const struct sweep_vary *xd = xv >= 0 ? &s->vary[xv] : NULL;
	size_t n_x = xd ? xd->n : s->n_gpus;
	size_t n_series = s->n_points / n_x;

	double *xs = malloc(s->n_points * sizeof *xs), *ys = malloc(s->n_points * sizeof *ys);
	char (*names)[256] = calloc(n_series, sizeof *names);
	struct gpuvm_plot_series *series = calloc(n_series, sizeof *series);
	if (!xs || !ys || !names || !series)
		die_oom();
	for (size_t i = 0; i < s->n_points; i++)
		xs[i] = ys[i] = NAN;

	bool other_dims = false;
	for (size_t k = 0; k < s->n_vary; k++)
		other_dims |= (int)k != xv && s->vary[k].n > 1;
	for (size_t i = 0; i < s->n_points; i++) {
		size_t g, vi[SWEEP_MAX_VARY];
		sweep_point_coords(s, i, &g, vi);
		/* Series id: mixed radix over every dimension but x, grid order. */
		size_t id = xd ? g : 0, xi = xd ? vi[xv] : g;
		for (size_t k = 0; k < s->n_vary; k++)
			if ((int)k != xv)
				id = id * s->vary[k].n + vi[k];
		size_t slot = id * n_x + xi;
		xs[slot] = xd ? (xd->is_numeric ? xd->num[xi] : (double)xi) : (double)xi;
		struct flat f = {0};
		if (s->results[i])
			flatten_result(s->results[i], &f);
		const struct kv *kv = flat_get(&f, yk);
		ys[slot] = kv ? kv->v : NAN;
		flat_free(&f);

		if (series[id].x)
			continue;
		char *name = names[id];
		size_t len = 0;
		if (xd && (s->n_gpus > 1 || !other_dims))
			len += (size_t)snprintf(name + len, 256 - len, "%s", s->gpus[g]);
		for (size_t k = 0; k < s->n_vary && len < 256; k++)
			if ((int)k != xv && s->vary[k].n > 1)
				len += (size_t)snprintf(name + len, 256 - len, "%s%s=%s",
							len ? ", " : "", s->vary[k].key,
							s->vary[k].values[vi[k]]);
		if (!len)
			snprintf(name, 256, "%s", yk);
		series[id] = (struct gpuvm_plot_series){
			.name = name, .x = xs + id * n_x, .y = ys + id * n_x, .n = n_x};
	}

	const char **cats = NULL;
	/* Labels with units (the stats registry's), the GPUs and the workload
	 * in the title whatever --title says. */
	char ylabel[256], xlabel[300], title[1024], gpus[512] = "", spec[600];
	const char *unit = work_unit(s->workload);
	if (unit && !strcmp(yk, "items_per_sim_second"))
		snprintf(ylabel, sizeof ylabel, "%s per simulated second (%s/s)", unit, unit);
	else if (unit && !strcmp(yk, "work_items"))
		snprintf(ylabel, sizeof ylabel, "%s", unit);
	else
		gpuvm_stat_axis_label(yk, ylabel, sizeof ylabel);
	gpuvm_plot_readable_spec(s->workload, spec, sizeof spec);
	if (!xd)
		snprintf(xlabel, sizeof xlabel, "GPU");
	else if (xd->kind == VARY_CONFIG)
		config_label(xd->key, xd->is_size, xlabel, sizeof xlabel);
	else
		/* a size axis's tics carry their units (32MiB, 4GiB) */
		snprintf(xlabel, sizeof xlabel, "%s%s",
			 xd->kind == VARY_WORKLOAD ? xd->param : xd->key,
			 xd->is_size ? " size" : "");
	for (size_t g = 0, len = 0; g < s->n_gpus && len < sizeof gpus; g++)
		len += (size_t)snprintf(gpus + len, sizeof gpus - len, "%s%s", g ? ", " : "",
					s->gpus[g]);
	/* one line: --title names the figure, the spec and GPUs what it
	 * ran (so a title need not repeat them) */
	int n = s->title ? snprintf(title, sizeof title, "%s: %s on %s", s->title, spec, gpus)
			 : snprintf(title, sizeof title, "%s on %s", spec, gpus);
	if (n >= (int)sizeof title) /* a title is one line: a long one is cut, marked */
		memcpy(title + sizeof title - 4, "...", 4);
	struct gpuvm_plot_opts o = {
		.title = title,
		.xlabel = xlabel,
		.ylabel = ylabel,
		.logx = s->logx || (xd && xd->is_size),
		.logy = s->logy,
		.x_bytes = xd && xd->is_size,
	};
	if (!xd || !xd->is_numeric) {
		cats = calloc(n_x, sizeof *cats);
		if (!cats)
			die_oom();
		for (size_t j = 0; j < n_x; j++)
			cats[j] = xd ? xd->values[j] : s->gpus[j];
		o.x_categories = cats;
		o.n_x_categories = n_x;
		o.logx = false;
	}
	int rc = gpuvm_plot_lines_opts(path, &o, series, n_series, err);
	free(cats);
	free(series);
	free(names);
	free(xs);
	free(ys);
	return rc;
}
