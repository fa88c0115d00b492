/* sweep --cache DIR: results kept by a hash of what determines them, so a
 * sweep that meets a point it (or any other sweep) has run before reads
 * the result instead of simulating it.
 *
 * The key of a point is FNV-1a 64 over: the resolved configuration's hash
 * (every key=value after the preset, --set and --vary; gpuvm_report_
 * config_hash), the --gpu argument as given (the result names it), the
 * workload spec, the seed, kernel sampling and its tolerance, and the gpuvm
 * version and commit (another build may simulate differently). The file
 * DIR/KEY.json holds the result as the JSON text a worker sends, so a
 * cached point gives the same CSV row as a fresh one (its wall-time
 * columns are those of the run that made it). Traces are not cached: a
 * trace file can change under the same path. A cache file that does not
 * parse is ignored and rewritten. A --system point's key has, in place of
 * the one configuration and --gpu, the --system spec of the point (its
 * gpus= and nvlink= included), every GPU's resolved configuration's
 * hash, and every link of the description (kind, ends, rate, count,
 * latency), so an edited system file is a new point. */
#include "sweep_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuvm/input_file.h"
#include "gpuvm/config.h"
#include "gpuvm/output_file.h"
#include "gpuvm/report.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/trace.h"
#include "gpuvm_version.h"

static void fnv(uint64_t *h, const char *s)
{
	for (;; s++) {
		*h ^= (unsigned char)*s;
		*h *= 1099511628211ull;
		if (!*s)
			break;
	}
}

/* Applies the point's --set to cfg, resolves it and adds its hash to the
 * key; false when it does not resolve. */
static bool hash_config(struct gpuvm_config *cfg, const struct gpuvm_run_spec *spec, uint64_t *h)
{
	struct gpuvm_error err;
	for (int k = 0; k < spec->n_sets; k++)
		if (gpuvm_config_set(cfg, spec->sets[k], "--set", &err) != 0)
			return false;
	if (gpuvm_config_finalize(cfg, &err) != 0)
		return false;
	char hash[17];
	gpuvm_report_config_hash(cfg, hash);
	fnv(h, hash);
	return true;
}

/* A system point's part of the key: the spec, each GPU's resolved
 * configuration, the links; false when it does not resolve. */
static bool system_key(const struct gpuvm_run_spec *spec, uint64_t *h)
{
	struct gpuvm_error err;
	struct gpuvm_sysdesc *desc = malloc(sizeof *desc);
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	bool ok = desc && cfg && gpuvm_sysdesc_load_spec(desc, spec->system, &err) == 0;
	if (ok)
		fnv(h, spec->system);
	for (uint32_t d = 0; ok && d < desc->n_gpus; d++)
		ok = gpuvm_sysdesc_gpu_config(desc, d, cfg, &err) == 0 && hash_config(cfg, spec, h);
	for (uint32_t l = 0; ok && l < desc->n_links; l++) {
		const struct gpuvm_sys_link *k = &desc->links[l];
		char num[96];
		snprintf(num, sizeof num, "%d %.17g %u %.17g", (int)k->kind, k->bandwidth_gb_s,
			 k->count, k->latency_ns);
		fnv(h, num);
		for (uint32_t e = 0; e < k->n_ends; e++) {
			snprintf(num, sizeof num, "%c%u", k->ends[e].cpu ? 'c' : 'g', k->ends[e].index);
			fnv(h, num);
		}
	}
	free(cfg);
	free(desc);
	return ok;
}

/* DIR/KEY.json of point i into path; false when it has none (a trace, or
 * a config that does not resolve: the run will say why). */
static bool cache_path(const struct sweep *s, size_t i, char *path, size_t len)
{
	if (gpuvm_trace_spec_is(s->workload))
		return false;
	struct gpuvm_run_spec spec;
	char *owned[SWEEP_SPEC_OWNED];
	struct gpuvm_error err;
	if (sweep_point_spec(s, i, &spec, owned, &err) != 0)
		return false;
	uint64_t h = 14695981039346656037ull;
	struct gpuvm_config *cfg = spec.system ? NULL : malloc(sizeof *cfg);
	bool ok = spec.system ? system_key(&spec, &h)
			      : cfg && gpuvm_config_load(cfg, spec.gpu, &err) == 0 &&
					hash_config(cfg, &spec, &h);
	if (ok) {
		char num[64];
		if (cfg)
			fnv(&h, spec.gpu);
		fnv(&h, spec.workload);
		snprintf(num, sizeof num, "%llu %d %.17g", (unsigned long long)spec.seed,
			 (int)spec.kernel_sampling, spec.kernel_sampling_tolerance);
		fnv(&h, num);
		fnv(&h, GPUVM_VERSION);
		fnv(&h, GPUVM_COMMIT);
		int n = snprintf(path, len, "%s/%016llx.json", s->cache, (unsigned long long)h);
		ok = n > 0 && (size_t)n < len;
	}
	free(cfg);
	sweep_spec_free(owned);
	return ok;
}

int sweep_cache_check(const struct sweep *s, struct gpuvm_error *err)
{
	struct stat st;
	if (stat(s->cache, &st) != 0) {
		if (errno != ENOENT)
			return gpuvm_fail(err, "--cache", 0, NULL, "%s: %s", s->cache, strerror(errno));
		if (gpuvm_output_mkdir(s->cache, err) != 0)
			return -1;
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return gpuvm_fail(err, "--cache", 0, NULL, "%s: not a directory", s->cache);
	/* its KEY.json files would land beside the system's top directories
	 * (issue 79: "sweep --cache /" wrote them there) */
	char real[PATH_MAX];
	if (realpath(s->cache, real) && !strcmp(real, "/"))
		return gpuvm_fail(err, "--cache", 0, NULL, "'%s' is the root directory; give the "
				  "cache a directory of its own (e.g. --cache sweep-cache)", s->cache);
	return 0;
}

size_t sweep_cache_load(struct sweep *s, bool *from_cache)
{
	size_t hits = 0;
	char path[4200];
	for (size_t i = 0; i < s->n_points; i++) {
		if (!sweep_selected(s, i) || s->results[i] || s->errors[i] ||
		    !cache_path(s, i, path, sizeof path))
			continue;
		struct gpuvm_error err;
		FILE *f = gpuvm_input_fopen_any(path, "cache file", 0, &err);
		if (!f)
			continue; /* a miss: the point runs */
		char *buf = NULL;
		size_t len = 0, cap = 0, r;
		do {
			if (cap - len < 65536) {
				char *b = realloc(buf, cap = cap ? 2 * cap : 65536);
				if (!b)
					break;
				buf = b;
			}
			r = fread(buf + len, 1, cap - len, f);
			len += r;
		} while (r > 0);
		fclose(f);
		cJSON *res = buf ? cJSON_ParseWithLength(buf, len) : NULL;
		free(buf);
		if (cJSON_IsObject(res)) {
			s->results[i] = res;
			from_cache[i] = true;
			hits++;
		} else {
			cJSON_Delete(res);
		}
	}
	return hits;
}

void sweep_cache_store(const struct sweep *s, const bool *from_cache)
{
	char path[4200];
	for (size_t i = 0; i < s->n_points; i++) {
		if (!s->results[i] || from_cache[i] || !sweep_selected(s, i) ||
		    !cache_path(s, i, path, sizeof path))
			continue;
		char *text = cJSON_PrintUnformatted(s->results[i]);
		struct gpuvm_error err = {{0}};
		if (text && gpuvm_output_write_text(path, text, &err) != 0)
			fprintf(stderr, "gpuvm sweep: note: --cache: %s\n", err.msg);
		free(text);
	}
}
