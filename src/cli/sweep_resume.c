/* --resume: the rows an earlier run left in the CSV (or in CSV.partial,
 * the checkpoint a killed run leaves) are taken as results, so only the
 * missing and the failed points run again.
 *
 * A row is matched to its grid point by its parameters (gpu, every
 * varied value, the workload spec and the seed): first the point its
 * `point` index names, else any point of the grid with those parameters,
 * so a grid extended by more values, GPUs or seeds (which renumbers its
 * points) keeps every row it already had. A row whose parameters are no
 * point of this grid means a CSV of another sweep: refused, not mixed in. A
 * kept row becomes a result holding its metric cells (an empty cell is an
 * absent metric), in the CSV's column order, which is what the writer
 * needs to give the same columns as a fresh run. */
#include "sweep_internal.h"
#include "gpuvm/number.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The expected value of a fixed column at point i, into buf. */
static const char *expected(const struct sweep *s, size_t i, const char *col, char *buf,
			    size_t len)
{
	size_t g, vi[SWEEP_MAX_VARY];
	sweep_point_coords(s, i, &g, vi);
	if (strcmp(col, "gpu") == 0)
		return s->gpus[g];
	for (size_t k = 0; k < s->n_vary; k++) {
		if (strcmp(col, s->vary[k].key) == 0)
			return s->vary[k].values[vi[k]];
		size_t kl = strlen(s->vary[k].key);
		if (s->vary[k].is_size && strncmp(col, s->vary[k].key, kl) == 0 &&
		    strcmp(col + kl, "_bytes") == 0) {
			snprintf(buf, len, "%.0f", s->vary[k].num[vi[k]]);
			return buf;
		}
	}
	struct gpuvm_run_spec spec;
	char *owned[SWEEP_SPEC_OWNED];
	struct gpuvm_error e;
	buf[0] = 0;
	if (sweep_point_spec(s, i, &spec, owned, &e) == 0) {
		if (strcmp(col, "workload") == 0)
			snprintf(buf, len, "%s", spec.workload);
		else if (strcmp(col, "seed") == 0)
			snprintf(buf, len, "%llu", (unsigned long long)spec.seed);
		sweep_spec_free(owned);
	}
	return buf;
}

/* the fixed columns but `point` and `error`: the prefix, then the suffix's
 * first ns - 2 */
static size_t fixed_col(const struct sweep_csv *t, size_t np, size_t ns, size_t j)
{
	return j < np ? j : t->ncol - ns + (j - np);
}

/* Point i's parameters in the row's fixed columns, joined by the unit
 * separator, into a new string. */
static char *point_key(const struct sweep *s, size_t i, const struct sweep_csv *t, size_t np,
		       size_t ns)
{
	size_t cap = 256, n = 0;
	char *key = malloc(cap), buf[4096];
	for (size_t j = 0; key && j < np + ns - 2; j++) {
		const char *v = expected(s, i, t->head[fixed_col(t, np, ns, j)], buf, sizeof buf);
		size_t vl = strlen(v);
		if (n + vl + 2 > cap) {
			cap = 2 * (n + vl + 2);
			char *bigger = realloc(key, cap);
			if (!bigger) {
				free(key);
				key = NULL;
				break;
			}
			key = bigger;
		}
		memcpy(key + n, v, vl);
		n += vl;
		key[n++] = '\x1f';
	}
	if (!key) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	key[n] = 0;
	return key;
}

struct keyed_point {
	char *key;
	size_t point;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct keyed_point *)a)->key, ((const struct keyed_point *)b)->key);
}

/* Every point's key, sorted: built once, when a row is not where its
 * `point` index says (an extended grid). */
static struct keyed_point *index_points(const struct sweep *s, const struct sweep_csv *t,
					size_t np, size_t ns)
{
	struct keyed_point *idx = malloc(s->n_points * sizeof *idx);
	if (!idx) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < s->n_points; i++)
		idx[i] = (struct keyed_point){point_key(s, i, t, np, ns), i};
	qsort(idx, s->n_points, sizeof *idx, by_key);
	return idx;
}

/* The row's own fixed cells as a key. */
static char *row_key(char *const *row, const struct sweep_csv *t, size_t np, size_t ns)
{
	size_t len = 1;
	for (size_t j = 0; j < np + ns - 2; j++)
		len += strlen(row[fixed_col(t, np, ns, j)]) + 1;
	char *key = malloc(len);
	if (!key) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	size_t n = 0;
	for (size_t j = 0; j < np + ns - 2; j++) {
		const char *v = row[fixed_col(t, np, ns, j)];
		size_t vl = strlen(v);
		memcpy(key + n, v, vl);
		n += vl;
		key[n++] = '\x1f';
	}
	key[n] = 0;
	return key;
}

int sweep_resume_load(struct sweep *s, const char *path, size_t *loaded, struct gpuvm_error *err)
{
	*loaded = 0;
	/* a checkpoint, when there is one, holds the later state */
	size_t plen = strlen(path);
	char *partial = malloc(plen + 9);
	if (!partial) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	snprintf(partial, plen + 9, "%s.partial", path);
	const char *from = access(partial, F_OK) == 0 ? partial : path;
	struct stat st;
	if (stat(from, &st) != 0) {
		free(partial);
		return 0; /* nothing to resume: everything runs */
	}
	if (!S_ISREG(st.st_mode)) {
		/* a FIFO would block, a device holds no rows */
		gpuvm_fail(err, from, 0, NULL, "--resume: not a regular file (the rows to keep "
			   "are read from it)");
		free(partial);
		return -1;
	}
	struct sweep_csv t;
	if (sweep_csv_read(from, &t, err) != 0) {
		free(partial);
		return -1;
	}

	const char *names[2 * SWEEP_MAX_VARY + 8];
	char bytes[SWEEP_MAX_VARY][256];
	size_t np = sweep_csv_prefix(s, names, bytes, 2 * SWEEP_MAX_VARY + 1);
	size_t ns = sweep_csv_suffix(s, names + np, 4);
	int rc = 0;
	/* the fixed columns, in this sweep's order, at both ends */
	bool ok = t.ncol >= np + ns;
	for (size_t j = 0; ok && j < np; j++)
		ok = strcmp(t.head[j], names[j]) == 0;
	for (size_t j = 0; ok && j < ns; j++)
		ok = strcmp(t.head[t.ncol - ns + j], names[np + j]) == 0;
	if (!ok) {
		char want[1024] = "";
		for (size_t j = 0; j < np + ns; j++)
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s%s",
				 j ? "," : "", j == np ? "...," : "", names[j]);
		rc = gpuvm_fail(err, from, 1, NULL,
				"--resume: not a CSV of this sweep (its columns must be %s)", want);
	}
	size_t point_col = t.ncol - 2, error_col = t.ncol - 1;
	char buf[4096];
	struct keyed_point *idx = NULL; /* built on the first row out of place */
	for (size_t r = 0; r < t.nrows && !rc; r++) {
		char **row = t.rows[r];
		uint64_t i64;
		if (gpuvm_num_u64(row[point_col], strlen(row[point_col]), 0, UINT64_MAX, &i64)) {
			rc = gpuvm_fail(err, from, t.line[r], "point",
					"--resume: '%s' is not a point number", row[point_col]);
			break;
		}
		unsigned long long i = i64;
		/* where the row's index says, if it is that point's row */
		size_t bad = SIZE_MAX;
		for (size_t j = 0; i < s->n_points && j < np + ns - 2 && bad == SIZE_MAX; j++) {
			size_t c = fixed_col(&t, np, ns, j);
			if (strcmp(row[c], expected(s, (size_t)i, t.head[c], buf, sizeof buf)) != 0)
				bad = c;
		}
		if (i >= s->n_points || bad != SIZE_MAX) {
			/* else the point with the row's parameters: a grid extended
			 * since the row was written numbers its points anew */
			if (!idx)
				idx = index_points(s, &t, np, ns);
			struct keyed_point want = {row_key(row, &t, np, ns), 0};
			const struct keyed_point *hit = bsearch(&want, idx, s->n_points, sizeof *idx, by_key);
			free(want.key);
			if (hit) {
				i = hit->point;
			} else if (i < s->n_points) {
				rc = gpuvm_fail(err, from, t.line[r], t.head[bad],
						"--resume: point %llu has '%s' here and '%s' in this "
						"sweep, and no point of this sweep has the row's "
						"parameters (a CSV of another sweep?)", i, row[bad],
						expected(s, (size_t)i, t.head[bad], buf, sizeof buf));
				break;
			} else {
				rc = gpuvm_fail(err, from, t.line[r], "point",
						"--resume: point %llu is past this sweep's last (%zu), and no "
						"point of this sweep has the row's parameters (a CSV of "
						"another sweep?)", i, s->n_points - 1);
				break;
			}
		}
		if (!sweep_selected(s, (size_t)i)) {
			rc = gpuvm_fail(err, from, t.line[r], "point",
					"--resume: point %llu is not in shard %zu/%zu", i, s->shard_i,
					s->shard_n);
			break;
		}
		if (s->results[i]) {
			rc = gpuvm_fail(err, from, t.line[r], "point",
					"--resume: point %llu appears twice", i);
			break;
		}
		if (*row[error_col])
			continue; /* it failed: run it again */
		cJSON *res = cJSON_CreateObject();
		for (size_t c = np; c < t.ncol - ns && !rc; c++) {
			if (!*row[c])
				continue;
			double v;
			const char *end;
			if (gpuvm_scan_double(row[c], &end, -HUGE_VAL, HUGE_VAL, &v) || *end)
				rc = gpuvm_fail(err, from, t.line[r], t.head[c],
						"--resume: '%s' is not a number", row[c]);
			else
				cJSON_AddNumberToObject(res, t.head[c], v);
		}
		if (rc) {
			cJSON_Delete(res);
			break;
		}
		s->results[i] = res;
		++*loaded;
	}
	if (rc) {
		for (size_t i = 0; i < s->n_points; i++) {
			cJSON_Delete(s->results[i]);
			s->results[i] = NULL;
		}
		*loaded = 0;
	}
	if (idx) {
		for (size_t i = 0; i < s->n_points; i++)
			free(idx[i].key);
		free(idx);
	}
	sweep_csv_free(&t);
	free(partial);
	return rc;
}
