/* Run directories (include/gpuvm/run_dir.h). */
#include "gpuvm/run_dir.h"
#include "gpuvm/number.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuvm/output_file.h"

const char *const gpuvm_run_dir_names[GPUVM_RUN_DIR_FILES + 1] = {
	[GPUVM_RUN_DIR_JSON] = "report.json",
	[GPUVM_RUN_DIR_STATS] = "stats.txt",
	[GPUVM_RUN_DIR_CONFIG] = "config.ini",
	[GPUVM_RUN_DIR_LOG] = "log.txt",
};

int gpuvm_run_dir_path(const char *dir, enum gpuvm_run_dir_file f, char *buf, size_t len)
{
	size_t n = strlen(dir);
	bool slash = n && dir[n - 1] == '/';
	int w = snprintf(buf, len, "%s%s%s", dir, slash ? "" : "/", gpuvm_run_dir_names[f]);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* Did gpuvm make this directory? Its config.ini opens with the mark. An
 * empty directory is as good. */
static bool made_by_gpuvm(const char *dir)
{
	char path[4200];
	if (gpuvm_run_dir_path(dir, GPUVM_RUN_DIR_CONFIG, path, sizeof path))
		return false;
	FILE *f = fopen(path, "r");
	if (!f) {
		/* no config.ini: only an empty directory is ours to use */
		char probe[4200];
		for (int i = 0; i < GPUVM_RUN_DIR_FILES; i++) {
			struct stat st;
			gpuvm_run_dir_path(dir, (enum gpuvm_run_dir_file)i, probe, sizeof probe);
			if (lstat(probe, &st) == 0)
				return false;
		}
		return true;
	}
	char line[64] = "";
	bool ok = fgets(line, sizeof line, f) &&
		  !strncmp(line, GPUVM_RUN_DIR_MARK, strlen(GPUVM_RUN_DIR_MARK));
	fclose(f);
	return ok;
}

int gpuvm_run_dir_prepare(const char *dir, bool is_default, const char *what,
			  struct gpuvm_error *err)
{
	if (!*dir)
		return gpuvm_fail(err, what, 0, NULL, "empty directory name"), -1;
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return gpuvm_fail(err, what, 0, NULL, "'%s' exists and is not a directory",
					  dir), -1;
		if (is_default && !made_by_gpuvm(dir))
			return gpuvm_fail(err, what, 0, NULL,
					  "'%s' exists and was not made by gpuvm (it has files but no "
					  "gpuvm config.ini): not overwriting it; name an output "
					  "directory with --outdir DIR, or move it away", dir), -1;
	} else if (errno != ENOENT) {
		return gpuvm_fail(err, what, 0, NULL, "'%s': %s", dir, strerror(errno)), -1;
	} else if (gpuvm_output_mkdir(dir, err)) {
		return -1;
	}
	char path[4200];
	for (int i = 0; i < GPUVM_RUN_DIR_FILES; i++) {
		if (gpuvm_run_dir_path(dir, (enum gpuvm_run_dir_file)i, path, sizeof path))
			return gpuvm_fail(err, what, 0, NULL, "path too long: '%s'", dir), -1;
		if (gpuvm_output_check(path, what, false, err))
			return -1;
	}
	return 0;
}

/* Appends to a growing string; false when out of memory. */
struct text {
	char *s;
	size_t n, cap;
};

static bool put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool put(struct text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0)
			return false;
		if (t->s && t->n + (size_t)w < t->cap) {
			t->n += (size_t)w;
			return true;
		}
		size_t cap = (t->cap + (size_t)w + 1) * 2;
		char *s = realloc(t->s, cap);
		if (!s)
			return false;
		t->s = s;
		t->cap = cap;
	}
}

char *gpuvm_run_dir_config_ini(const cJSON *run, const char *command)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(run, "config");
	if (!cJSON_IsObject(cfg))
		return NULL;
	struct text t = {0};
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(cfg, "name");
	const cJSON *hash = cJSON_GetObjectItemCaseSensitive(run, "config_hash");
	bool ok = put(&t, "%s the resolved configuration of one run, as a preset\n"
			  "; preset %s, config_hash %s (the reloaded preset has the same hash)\n"
			  "; reproduce: %s\n",
		      GPUVM_RUN_DIR_MARK, cJSON_IsString(name) ? name->valuestring : "?",
		      cJSON_IsString(hash) ? hash->valuestring : "?", command ? command : "?");
	char section[128] = "";
	const cJSON *kv;
	cJSON_ArrayForEach(kv, cfg)
	{
		const char *dot = strrchr(kv->string, '.');
		if (!ok || !dot)
			continue; /* "name": the preset's name comes from the file */
		size_t sl = (size_t)(dot - kv->string);
		if (sl >= sizeof section)
			continue;
		if (strncmp(section, kv->string, sl) || section[sl]) {
			memcpy(section, kv->string, sl);
			section[sl] = 0;
			ok = put(&t, "\n[%s]\n", section);
		}
		if (!ok)
			break;
		if (cJSON_IsString(kv))
			ok = put(&t, "%s = %s\n", dot + 1, kv->valuestring);
		else if (cJSON_IsNumber(kv)) {
			/* the shortest of 15 or 17 digits that reads back exactly */
			char num[40];
			snprintf(num, sizeof num, "%.15g", kv->valuedouble);
			if (!gpuvm_num_reads_back(num, kv->valuedouble))
				snprintf(num, sizeof num, "%.17g", kv->valuedouble);
			ok = put(&t, "%s = %s\n", dot + 1, num);
		}
	}
	if (!ok) {
		free(t.s);
		return NULL;
	}
	return t.s;
}
