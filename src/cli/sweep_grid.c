/* The sweep grid: --vary parsing (lists and ranges), point coordinates,
 * per-point run specs, and validation of every point before simulating. */
#include "sweep_internal.h"
#include "cli_options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/trace.h"
#include "gpuvm/units.h"
#include "gpuvm/workload.h"

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	return d;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	return d;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	return p;
}

static void push_value(struct sweep_vary *v, char *text)
{
	v->values = xrealloc(v->values, (v->n + 1) * sizeof *v->values);
	v->values[v->n++] = text;
}

static bool has_unit_suffix(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && isalpha((unsigned char)s[n - 1]);
}

/* "LO..HI*F" (geometric) or "LO..HI+STEP" (arithmetic); LO, HI and STEP
 * are sizes or plain integers. Values keep LO's style (64MiB or 4096). */
static int expand_range(struct sweep_vary *v, const char *tok, struct gpuvm_error *err)
{
	const char *dots = strstr(tok, "..");
	const char *op = strpbrk(dots + 2, "*+");
	if (!op)
		return gpuvm_fail(err, "--vary", 0, v->key,
				  "range '%s' needs a step: LO..HI*FACTOR or LO..HI+STEP", tok);
	char *lo_s = xstrndup(tok, (size_t)(dots - tok));
	char *hi_s = xstrndup(dots + 2, (size_t)(op - dots - 2));
	uint64_t lo, hi, step;
	int rc = 0;
	if (gpuvm_parse_size(lo_s, &lo) != 0)
		rc = gpuvm_fail(err, "--vary", 0, v->key, "range '%s': bad start '%s'", tok, lo_s);
	else if (gpuvm_parse_size(hi_s, &hi) != 0)
		rc = gpuvm_fail(err, "--vary", 0, v->key, "range '%s': bad end '%s'", tok, hi_s);
	else if (hi < lo)
		rc = gpuvm_fail(err, "--vary", 0, v->key, "range '%s': end is below start", tok);
	else if (*op == '*' && (gpuvm_parse_u64(op + 1, &step) != 0 || step < 2))
		rc = gpuvm_fail(err, "--vary", 0, v->key,
				"range '%s': factor must be an integer >= 2", tok);
	else if (*op == '+' && (gpuvm_parse_size(op + 1, &step) != 0 || step == 0))
		rc = gpuvm_fail(err, "--vary", 0, v->key,
				"range '%s': step must be a size or integer > 0", tok);
	else if (*op == '*' && lo == 0)
		rc = gpuvm_fail(err, "--vary", 0, v->key,
				"range '%s': a geometric range cannot start at 0", tok);
	bool sized = has_unit_suffix(lo_s) || has_unit_suffix(hi_s);
	free(lo_s);
	free(hi_s);
	if (rc)
		return rc;
	size_t count = 0;
	for (uint64_t x = lo;;) {
		if (++count > SWEEP_MAX_RANGE)
			return gpuvm_fail(err, "--vary", 0, v->key,
					  "range '%s' has more than %d values", tok, SWEEP_MAX_RANGE);
		char buf[40];
		if (sized)
			gpuvm_format_size(x, buf, sizeof buf);
		else
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)x);
		push_value(v, xstrdup(buf));
		uint64_t next;
		if (*op == '*') {
			if (x > UINT64_MAX / step)
				break;
			next = x * step;
		} else {
			if (x > UINT64_MAX - step)
				break;
			next = x + step;
		}
		if (next > hi)
			break;
		x = next;
	}
	return 0;
}

int sweep_vary_parse(struct sweep_vary *v, const char *arg, struct gpuvm_error *err)
{
	memset(v, 0, sizeof *v);
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return gpuvm_fail(err, "--vary", 0, NULL, "'%s': expected KEY=V1,V2,...", arg);
	v->key = xstrndup(arg, (size_t)(eq - arg));
	if (strncmp(v->key, "workload.", 9) == 0) {
		v->kind = VARY_WORKLOAD;
		v->param = v->key + 9;
		if (!*v->param)
			return gpuvm_fail(err, "--vary", 0, v->key, "missing parameter name");
	} else if (strcmp(v->key, "seed") == 0) {
		v->kind = VARY_SEED;
	} else if (strcmp(v->key, "gpus") == 0 || strcmp(v->key, "nvlink") == 0) {
		v->kind = VARY_SYSTEM; /* no config key has no dot */
	} else {
		v->kind = VARY_CONFIG;
	}
	const char *p = eq + 1;
	if (!*p)
		return gpuvm_fail(err, "--vary", 0, v->key, "no values given");
	while (true) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			return gpuvm_fail(err, "--vary", 0, v->key, "empty value in '%s'", eq + 1);
		char *tok = xstrndup(p, len);
		int rc = 0;
		if (strstr(tok, ".."))
			rc = expand_range(v, tok, err);
		else
			push_value(v, xstrdup(tok));
		free(tok);
		if (rc)
			return rc;
		if (!end)
			break;
		p = end + 1;
	}

	/* Sizes and numbers: for the *_bytes column and the figure's x axis. */
	v->num = xrealloc(NULL, v->n * sizeof *v->num);
	bool all_size = true, any_suffix = false, all_num = true;
	for (size_t i = 0; i < v->n; i++) {
		uint64_t b;
		double d;
		if (gpuvm_parse_size(v->values[i], &b) == 0) {
			any_suffix |= has_unit_suffix(v->values[i]);
			v->num[i] = (double)b;
		} else {
			all_size = false;
			if (gpuvm_parse_double(v->values[i], &d) == 0)
				v->num[i] = d;
			else
				all_num = false;
		}
	}
	size_t klen = strlen(v->key);
	bool bytes_key = klen > 6 && strcmp(v->key + klen - 6, "_bytes") == 0;
	v->is_size = all_size && (any_suffix || bytes_key);
	v->is_numeric = all_num;
	if (v->kind == VARY_SEED) {
		for (size_t i = 0; i < v->n; i++) {
			uint64_t s;
			if (gpuvm_parse_u64(v->values[i], &s) != 0)
				return gpuvm_fail(err, "--vary", 0, "seed",
						  "'%s' is not an unsigned integer", v->values[i]);
		}
		v->is_size = false;
	}
	return 0;
}

void sweep_vary_free(struct sweep_vary *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->values[i]);
	free(v->values);
	free(v->num);
	free(v->key);
	memset(v, 0, sizeof *v);
}

void sweep_point_coords(const struct sweep *s, size_t i, size_t *gpu, size_t *vi)
{
	for (size_t k = s->n_vary; k-- > 0;) {
		vi[k] = i % s->vary[k].n;
		i /= s->vary[k].n;
	}
	*gpu = i;
}

void sweep_point_label(const struct sweep *s, size_t i, char *buf, size_t len)
{
	size_t g, vi[SWEEP_MAX_VARY];
	sweep_point_coords(s, i, &g, vi);
	int w = snprintf(buf, len, "%s=%s", s->system ? "system" : "gpu", s->gpus[g]);
	for (size_t k = 0; k < s->n_vary && w >= 0 && (size_t)w < len; k++)
		w += snprintf(buf + w, len - (size_t)w, " %s=%s", s->vary[k].key,
			      s->vary[k].values[vi[k]]);
}

/* The --workload spec with PARAM=VALUE replaced or appended. */
static char *spec_with(const char *spec, const char *param, const char *value)
{
	size_t plen = strlen(param);
	const char *colon = strchr(spec, ':');
	size_t cap = strlen(spec) + plen + strlen(value) + 4;
	char *out = xrealloc(NULL, cap);
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	memcpy(out, spec, n);
	out[n] = 0;
	bool replaced = false, first = true;
	const char *p = colon ? colon + 1 : NULL;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		strcat(out, first ? ":" : ",");
		first = false;
		if (len > plen && strncmp(p, param, plen) == 0 && p[plen] == '=') {
			strcat(out, param);
			strcat(out, "=");
			strcat(out, value);
			replaced = true;
		} else {
			strncat(out, p, len);
		}
		if (!end)
			break;
		p = end + 1;
	}
	if (!replaced) {
		strcat(out, first ? ":" : ",");
		strcat(out, param);
		strcat(out, "=");
		strcat(out, value);
	}
	return out;
}

int sweep_point_spec(const struct sweep *s, size_t i, struct gpuvm_run_spec *spec,
		     char **owned, struct gpuvm_error *err)
{
	size_t g, vi[SWEEP_MAX_VARY];
	sweep_point_coords(s, i, &g, vi);
	memset(spec, 0, sizeof *spec);
	for (size_t k = 0; k < SWEEP_SPEC_OWNED; k++)
		owned[k] = NULL;
	size_t n_owned = 0;

	spec->gpu = s->system ? NULL : s->gpus[g];
	spec->seed = s->seed;
	spec->kernel_sampling = s->kernel_sampling;
	spec->threads = s->threads;
	spec->force = s->force;
	spec->kernel_sampling_tolerance = s->kernel_sampling_tolerance;
	for (int k = 0; k < s->n_sets; k++)
		spec->sets[spec->n_sets++] = s->sets[k];

	char *wl = xstrdup(s->workload);
	char *sys = s->system ? xstrdup(s->system) : NULL;
	for (size_t k = 0; k < s->n_vary; k++) {
		const struct sweep_vary *v = &s->vary[k];
		const char *val = v->values[vi[k]];
		if (v->kind == VARY_SYSTEM && sys) {
			char *next = spec_with(sys, v->key, val);
			free(sys);
			sys = next;
		} else if (v->kind == VARY_SYSTEM) {
			continue; /* refused by sweep_validate */
		} else if (v->kind == VARY_WORKLOAD) {
			char *next = spec_with(wl, v->param, val);
			free(wl);
			wl = next;
		} else if (v->kind == VARY_SEED) {
			gpuvm_parse_u64(val, &spec->seed); /* checked when parsed */
		} else {
			if (spec->n_sets >= GPUVM_MAX_SETS) {
				free(wl);
				free(sys);
				sweep_spec_free(owned);
				return gpuvm_fail(err, "--vary", 0, NULL,
						  "too many --set and --vary overrides (at most %d)",
						  GPUVM_MAX_SETS);
			}
			size_t len = strlen(v->key) + strlen(val) + 2;
			char *a = xrealloc(NULL, len);
			snprintf(a, len, "%s=%s", v->key, val);
			owned[n_owned++] = a;
			spec->sets[spec->n_sets++] = a;
		}
	}
	owned[n_owned++] = wl;
	spec->workload = wl;
	if (sys)
		spec->system = owned[n_owned++] = sys;
	return 0;
}

void sweep_spec_free(char **owned)
{
	for (size_t k = 0; k < SWEEP_SPEC_OWNED; k++) {
		free(owned[k]);
		owned[k] = NULL;
	}
}

/* GPU 0's configuration of system spec text (its --set and --vary come
 * after), and the system's GPU count in *n_gpus: what a point checks, as
 * run.c resolves it. */
static int system_gpu0_config(const char *text, struct gpuvm_config *cfg, uint32_t *n_gpus,
			      struct gpuvm_error *err)
{
	struct gpuvm_sysdesc *desc = xrealloc(NULL, sizeof *desc);
	int rc = gpuvm_sysdesc_load_spec(desc, text, err);
	if (!rc)
		rc = gpuvm_sysdesc_gpu_config(desc, 0, cfg, err);
	*n_gpus = rc ? 1 : desc->n_gpus;
	free(desc);
	return rc;
}

/* Prefixes err with the point it belongs to. */
static int point_fail(const struct sweep *s, size_t i, struct gpuvm_error *err)
{
	char label[512], msg[sizeof err->msg];
	sweep_point_label(s, i, label, sizeof label);
	snprintf(msg, sizeof msg, "%s", err->msg);
	snprintf(err->msg, sizeof err->msg, "point %zu of %zu (%.200s): %.500s", i + 1, s->n_points,
		 label, msg);
	return -1;
}

/* A --vary of a system modifier: only with --system, and each value
 * alone a system that loads, so a bad one is bad input, not a point. */
static int check_system_vary(const struct sweep *s, const struct sweep_vary *v,
			     struct gpuvm_error *err)
{
	if (!s->system)
		return gpuvm_fail(err, "--vary", 0, v->key, "a modifier of a system "
				  "(NAME:gpus=N,nvlink=on|off): it needs --system NAME");
	for (size_t j = 0; j < v->n; j++) {
		char *one = spec_with(s->system, v->key, v->values[j]);
		struct gpuvm_sysdesc *desc = xrealloc(NULL, sizeof *desc);
		int bad = gpuvm_sysdesc_load_spec(desc, one, err);
		free(desc);
		free(one);
		if (bad) {
			char why[sizeof err->msg];
			snprintf(why, sizeof why, "%s", err->msg);
			return gpuvm_fail(err, "--vary", 0, v->key, "%s", why);
		}
	}
	return 0;
}

int sweep_validate(struct sweep *s, struct gpuvm_error *err)
{
	/* Keys first, so a typo in --vary is named as such, not as a point. */
	const struct gpuvm_workload_def *def = NULL;
	struct gpuvm_params params;
	/* A trace ("trace:PATH", as in sim) is opened once here, so a missing
	 * or malformed one fails before any point runs; it has no parameters. */
	bool trace = gpuvm_trace_spec_is(s->workload);
	if (trace) {
		/* one trace per GPU ("trace:A;B") is opened by its system run */
		struct gpuvm_source src = {0};
		bool per_gpu = s->system && strchr(s->workload, ';');
		if (!per_gpu && gpuvm_trace_open_spec(s->workload, &src, err) != 0)
			return -1;
		if (src.ops)
			src.ops->destroy(&src);
	} else if (gpuvm_workload_parse(s->workload, &def, &params, err) != 0) {
		return -1;
	}
	for (size_t k = 0; k < s->n_vary; k++) {
		const struct sweep_vary *v = &s->vary[k];
		/* config keys are one key in any case (cli_options.h);
		 * workload parameters and seed are spelled exactly */
		for (size_t j = 0; j < k; j++) {
			const char *o = s->vary[j].key;
			bool same = v->kind == VARY_CONFIG && s->vary[j].kind == VARY_CONFIG
					    ? gpuvm_cli_same_key(o, strlen(o), v->key, strlen(v->key))
					    : strcmp(o, v->key) == 0;
			if (same)
				return gpuvm_fail(err, "--vary", 0, v->key, "varied twice ('%s', then "
						  "'%s')", o, v->key);
		}
		if (v->kind == VARY_SYSTEM && check_system_vary(s, v, err))
			return -1;
		if (v->kind == VARY_WORKLOAD && trace)
			return gpuvm_fail(err, "--vary", 0, v->key,
					  "a trace has no workload parameters (vary preset keys, "
					  "e.g. --vary tlb.l2.entries=32,64)");
		if (v->kind == VARY_WORKLOAD) {
			bool found = false;
			for (size_t p = 0; p < def->n_params && !found; p++)
				found = strcmp(def->params[p].key, v->param) == 0;
			if (!found) {
				char known[256] = "";
				for (size_t p = 0; p < def->n_params; p++)
					snprintf(known + strlen(known), sizeof known - strlen(known),
						 "%s%s", p ? ", " : "", def->params[p].key);
				return gpuvm_fail(err, "--vary", 0, v->key,
						  "workload '%s' has no parameter '%s' (it has: %s)",
						  def->name, v->param, known);
			}
		}
	}

	size_t first_failed = 0; /* 1 + the first point that failed */
	struct gpuvm_error first_msg = {{0}};
	struct gpuvm_config *base = xrealloc(NULL, s->n_gpus * sizeof *base);
	struct gpuvm_config *cfg = xrealloc(NULL, sizeof *cfg);
	int rc = 0;
	for (size_t g = 0; g < s->n_gpus && !rc; g++) {
		uint32_t n_gpus;
		rc = s->system ? system_gpu0_config(s->system, &base[g], &n_gpus, err)
			       : gpuvm_config_load(&base[g], s->gpus[g], err);
		struct gpuvm_config *with_sets = cfg;
		if (!rc)
			*with_sets = base[g];
		for (int k = 0; k < s->n_sets && !rc; k++)
			rc = gpuvm_config_set(with_sets, s->sets[k], "--set", err);
		/* Each --vary value alone, so a bad key or value is named plainly. */
		for (size_t k = 0; k < s->n_vary && !rc; k++) {
			const struct sweep_vary *v = &s->vary[k];
			for (size_t j = 0; j < v->n && !rc; j++) {
				if (v->kind == VARY_CONFIG) {
					char a[512];
					snprintf(a, sizeof a, "%s=%s", v->key, v->values[j]);
					struct gpuvm_config *one = xrealloc(NULL, sizeof *one);
					*one = *with_sets;
					rc = gpuvm_config_set(one, a, "--vary", err);
					free(one);
				} else if (v->kind == VARY_WORKLOAD && g == 0) {
					char *w = spec_with(s->workload, v->param, v->values[j]);
					rc = gpuvm_workload_parse(w, &def, &params, err);
					free(w);
				}
			}
		}
	}
	/* Every point is checked, a shard's or not, so that whether the whole
	 * grid is bad input does not depend on --shard. */
	size_t n_failed = 0;
	for (size_t i = 0; i < s->n_points && !rc; i++) {
		struct gpuvm_run_spec spec;
		char *owned[SWEEP_SPEC_OWNED];
		size_t g, vi[SWEEP_MAX_VARY];
		sweep_point_coords(s, i, &g, vi);
		if (sweep_point_spec(s, i, &spec, owned, err) != 0) {
			rc = -1;
			break;
		}
		*cfg = base[g];
		uint32_t n_gpus = 1;
		if (spec.system)
			rc = system_gpu0_config(spec.system, cfg, &n_gpus, err);
		for (int k = 0; k < spec.n_sets && !rc; k++)
			rc = gpuvm_config_set(cfg, spec.sets[k],
					      k < s->n_sets ? "--set" : "--vary", err);
		if (!rc)
			rc = gpuvm_config_finalize(cfg, err);
		cfg->system_gpus = n_gpus; /* mgpu workloads' gpus=0 default */
		if (!rc && !trace)
			rc = gpuvm_workload_parse(spec.workload, &def, &params, err);
		if (!rc && !trace)
			rc = gpuvm_run_check_work(&spec, cfg, def, &params, err);
		if (!rc && !trace && s->cost)
			s->cost[i] = sweep_point_cost(cfg, def, &params);
		sweep_spec_free(owned);
		if (rc && !s->fail_fast && !first_failed)
			first_failed = i + 1, first_msg = *err;
		if (rc && !sweep_selected(s, i) && !s->fail_fast) {
			n_failed++; /* another shard's to record */
			rc = 0;
			continue;
		}
		if (rc && !s->fail_fast && s->errors) {
			/* this point alone: recorded, the others go on */
			s->errors[i] = xstrdup(err->msg);
			n_failed++;
			rc = 0;
			continue;
		}
		if (rc && s->n_points > 1)
			point_fail(s, i, err);
	}
	if (!rc && n_failed && n_failed == s->n_points) {
		/* every point failed: that is bad input, not a sweep */
		*err = first_msg;
		if (s->n_points > 1)
			point_fail(s, first_failed - 1, err);
		rc = -1;
	}
	free(cfg);
	free(base);
	return rc;
}
