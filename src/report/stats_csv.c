/* --stats-csv: a run's statistics in long ("tidy") form, one value per
 * row, so per-kernel and per-allocation numbers load into pandas or R as
 * they are (pd.read_csv, then pivot or groupby on scope/metric):
 *
 *   gpu,workload,seed,scope,index,name,kind,metric,value,unit
 *   p100,random-sampling:...,1,run,0,run,,sim_seconds,0.0012,s
 *   p100,random-sampling:...,1,kernel,0,random_sampling,,ipc,3.2,ratio
 *   p100,random-sampling:...,1,alloc,0,region,device,thread_accesses,16384,count
 *
 * scope run: every scalar of the sim JSON (config and lists aside; a TLB
 * level as tlb[I].NAME); kernel: each launch of JSON "kernels"; alloc:
 * each allocation the page-access recorder saw, and the paging of each
 * managed one (uvm.*, from JSON uvm.allocations). Metric names are the
 * registry's (gpuvm stats), units from it. */
#include "gpuvm/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/csv.h"
#include "gpuvm/page_access.h"
#include "gpuvm/stats_registry.h"

struct ctx {
	FILE *f;
	const char *gpu, *workload;
	double seed;
};

static void row(const struct ctx *c, const char *scope, long index, const char *name,
		const char *kind, const char *metric, double v, const char *lookup)
{
	char num[48], idx[24] = "";
	gpuvm_csv_number(v, num, sizeof num);
	if (index >= 0)
		snprintf(idx, sizeof idx, "%ld", index);
	const struct gpuvm_stat_info *s = gpuvm_stat_find(lookup ? lookup : metric);
	gpuvm_csv_field(c->f, c->gpu);
	fputc(',', c->f);
	gpuvm_csv_field(c->f, c->workload);
	fprintf(c->f, ",%.0f,%s,%s,", c->seed, scope, idx);
	gpuvm_csv_field(c->f, name ? name : "");
	fprintf(c->f, ",%s,", kind ? kind : "");
	gpuvm_csv_field(c->f, metric);
	fprintf(c->f, ",%s,%s\n", num, s ? s->unit : "");
}

/* Scalars of o under prefix; lists of objects by index, lists of numbers
 * left out (they are series: the JSON has them). */
static void walk(const struct ctx *c, const cJSON *o, const char *prefix, const char *scope,
		 long index, const char *name, const char *lookup_prefix, int depth)
{
	const cJSON *it;
	if (depth > 6)
		return;
	cJSON_ArrayForEach(it, o) {
		if (!it->string)
			continue;
		if (depth == 0 && (!strcmp(it->string, "config") || !strcmp(it->string, "kernels") ||
				   !strcmp(it->string, "seed")))
			continue;
		if (depth == 1 && !strcmp(prefix, "uvm.") && !strcmp(it->string, "allocations"))
			continue; /* alloc rows below */
		char path[256], lookup[512];
		snprintf(path, sizeof path, "%s%s", prefix, it->string);
		snprintf(lookup, sizeof lookup, "%s%s", lookup_prefix, path);
		if (cJSON_IsNumber(it)) {
			row(c, scope, index, name, NULL, path, it->valuedouble, lookup);
		} else if (cJSON_IsBool(it)) {
			row(c, scope, index, name, NULL, path, cJSON_IsTrue(it) ? 1 : 0, lookup);
		} else if (cJSON_IsObject(it)) {
			char sub[300];
			snprintf(sub, sizeof sub, "%s.", path);
			walk(c, it, sub, scope, index, name, lookup_prefix, depth + 1);
		} else if (cJSON_IsArray(it)) {
			const cJSON *e;
			int i = 0;
			cJSON_ArrayForEach(e, it) {
				char sub[300];
				if (cJSON_IsObject(e)) {
					snprintf(sub, sizeof sub, "%s[%d].", path, i);
					walk(c, e, sub, scope, index, name, lookup_prefix, depth + 1);
				} else if (cJSON_IsNumber(e) && (!strcmp(it->string, "grid") ||
								 !strcmp(it->string, "block"))) {
					char l2[600];
					snprintf(sub, sizeof sub, "%s[%d]", path, i);
					snprintf(l2, sizeof l2, "%s%s", lookup_prefix, sub);
					row(c, scope, index, name, NULL, sub, e->valuedouble, l2);
				}
				i++;
			}
		}
	}
}

static const char *kind_name(enum gpuvm_alloc_kind k)
{
	switch (k) {
	case GPUVM_ALLOC_DEVICE:
		return "device";
	case GPUVM_ALLOC_MANAGED:
		return "managed";
	case GPUVM_ALLOC_HOST_PINNED:
		return "host";
	case GPUVM_ALLOC_SYSTEM:
		return "system";
	case GPUVM_ALLOC_PEER:
		return "peer";
	}
	return "?";
}

/* The paging of each managed allocation (JSON uvm.allocations), as alloc
 * rows uvm.NAME; the index is the page-access recorder's for the same
 * base, so the rows join with the recorder's, or its place in the list. */
static void uvm_alloc_rows(const struct ctx *c, const cJSON *run, const struct gpuvm_page_access *pa)
{
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "uvm"),
							   "allocations");
	const cJSON *a;
	long i = 0;
	cJSON_ArrayForEach(a, al) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(a, "name");
		const cJSON *base = cJSON_GetObjectItemCaseSensitive(a, "base");
		const cJSON *cls = cJSON_GetObjectItemCaseSensitive(a, "class");
		long ix = i++;
		for (size_t k = 0; pa && cJSON_IsNumber(base) && k < gpuvm_page_access_allocs(pa); k++) {
			struct gpuvm_page_access_alloc in;
			gpuvm_page_access_alloc_info(pa, k, &in);
			if ((double)in.alloc.base == base->valuedouble)
				ix = (long)k;
		}
		const char *name = cJSON_IsString(nm) ? nm->valuestring : "";
		const cJSON *v;
		cJSON_ArrayForEach(v, a) {
			if (!v->string || !cJSON_IsNumber(v) || !strcmp(v->string, "base") ||
			    !strcmp(v->string, "bytes"))
				continue; /* those are rows of the recorder's already */
			char metric[96], lookup[112];
			snprintf(metric, sizeof metric, "uvm.%s", v->string);
			snprintf(lookup, sizeof lookup, "alloc.%s", metric);
			row(c, "alloc", ix, name, "managed", metric, v->valuedouble, lookup);
		}
		if (cJSON_IsString(cls) && (!strcmp(cls->valuestring, "hot") || !strcmp(cls->valuestring, "cold")))
			row(c, "alloc", ix, name, "managed", "uvm.hot", !strcmp(cls->valuestring, "hot"),
			    "alloc.uvm.hot");
	}
}

int gpuvm_report_stats_csv(FILE *f, const cJSON *run, const struct gpuvm_page_access *pa,
			   const char *path, struct gpuvm_error *err)
{
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(run, "gpu");
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(run, "workload");
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(run, "seed");
	struct ctx c = {f, cJSON_IsString(gpu) ? gpu->valuestring : "",
			cJSON_IsString(wl) ? wl->valuestring : "",
			cJSON_IsNumber(seed) ? seed->valuedouble : 0};
	fputs("gpu,workload,seed,scope,index,name,kind,metric,value,unit\n", f);
	/* a run is one element: index 0, name "run" (an empty field reads as
	 * NaN in pandas, and groupby/pivot_table drop NaN keys) */
	walk(&c, run, "", "run", 0, "run", "", 0);
	const cJSON *kl = cJSON_GetObjectItemCaseSensitive(run, "kernels"), *k;
	long i = 0;
	cJSON_ArrayForEach(k, kl) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "name");
		walk(&c, k, "", "kernel", i++, cJSON_IsString(nm) ? nm->valuestring : "",
		     "kernels[].", 1);
	}
	if (pa) {
		uint64_t total = 0;
		size_t n = gpuvm_page_access_allocs(pa);
		for (size_t a = 0; a < n; a++) {
			struct gpuvm_page_access_alloc in;
			gpuvm_page_access_alloc_info(pa, a, &in);
			total += in.thread_accesses;
		}
		for (size_t a = 0; a < n; a++) {
			struct gpuvm_page_access_alloc in;
			gpuvm_page_access_alloc_info(pa, a, &in);
			const char *kn = kind_name(in.alloc.kind);
			const char *nm = in.alloc.name;
			long ix = (long)a;
			row(&c, "alloc", ix, nm, kn, "bytes", (double)in.alloc.bytes, "alloc.bytes");
			row(&c, "alloc", ix, nm, kn, "base", (double)in.alloc.base, "alloc.base");
			row(&c, "alloc", ix, nm, kn, "pages", (double)in.pages, "alloc.pages");
			row(&c, "alloc", ix, nm, kn, "accesses", (double)in.accesses, "alloc.accesses");
			row(&c, "alloc", ix, nm, kn, "thread_accesses", (double)in.thread_accesses,
			    "alloc.thread_accesses");
			row(&c, "alloc", ix, nm, kn, "share_of_thread_accesses",
			    total ? (double)in.thread_accesses / (double)total : 0,
			    "alloc.share_of_thread_accesses");
			if (in.accesses) {
				row(&c, "alloc", ix, nm, kn, "first_access", (double)in.first_time,
				    "alloc.first_access");
				row(&c, "alloc", ix, nm, kn, "last_access", (double)in.last_time,
				    "alloc.last_access");
			}
		}
	}
	uvm_alloc_rows(&c, run, pa);
	if (ferror(f))
		return gpuvm_fail(err, "--stats-csv", 0, NULL, "%s: write error", path);
	return 0;
}
