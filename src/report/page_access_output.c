/* Writing page-access maps: a long-format CSV of the non-empty cells, a
 * JSON summary, and the figure (one heat-map panel per allocation that
 * was accessed, Ganguly Fig. 2-3 style). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpuvm/output_file.h"
#include "gpuvm/page_access.h"
#include "gpuvm/plot.h"
#include "gpuvm/report.h"
#include "gpuvm/units.h"

static const char *kind_name(enum gpuvm_alloc_kind k)
{
	switch (k) {
	case GPUVM_ALLOC_MANAGED:
		return "managed";
	case GPUVM_ALLOC_HOST_PINNED:
		return "pinned";
	case GPUVM_ALLOC_SYSTEM:
		return "system";
	default:
		return "device";
	}
}

/* CSV fields are quoted when they could break the row. */
static void put_csv_name(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputc('"', f);
}

static uint64_t row_pages(const struct gpuvm_page_access_alloc *x, uint32_t r)
{
	uint64_t first = (uint64_t)r * x->pages_per_row;
	return x->pages - first < x->pages_per_row ? x->pages - first : x->pages_per_row;
}

static char *csv_text(const struct gpuvm_page_access *pa)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	uint32_t nb = gpuvm_page_access_buckets(pa);
	uint64_t width = gpuvm_page_access_bucket_width(pa), t_end = gpuvm_page_access_mem_insts(pa);
	fputs("allocation,alloc_index,kind,row,page_first,pages,bucket,time_first,time_last,"
	      "accesses,thread_accesses,accesses_per_page,written", f);
	for (int d = 0; d < GPUVM_UVM_DECISIONS; d++)
		fprintf(f, ",%s", gpuvm_uvm_decision_names[d]);
	fputs(",decision\n", f);
	for (size_t i = 0; i < gpuvm_page_access_allocs(pa); i++) {
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, i, &x);
		for (uint32_t r = 0; r < x.rows; r++)
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, i, r, b, &c);
				int dec = gpuvm_page_access_cell_decision(&c);
				if (!c.thread_accesses && dec < 0)
					continue;
				uint64_t t0 = (uint64_t)b * width, t1 = t0 + width;
				if (t1 > t_end)
					t1 = t_end;
				put_csv_name(f, x.alloc.name);
				fprintf(f, ",%zu,%s,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64
					   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6g,%d",
					i, kind_name(x.alloc.kind), r, (uint64_t)r * x.pages_per_row,
					row_pages(&x, r), b, t0, t1 - 1, c.accesses, c.thread_accesses,
					(double)c.accesses / (double)row_pages(&x, r), c.written ? 1 : 0);
				for (int d = 0; d < GPUVM_UVM_DECISIONS; d++)
					fprintf(f, ",%" PRIu64, c.decisions[d]);
				fprintf(f, ",%s\n", dec < 0 ? "" : gpuvm_uvm_decision_names[dec]);
			}
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static cJSON *summary_json(const struct gpuvm_page_access *pa)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "page_bytes", (double)gpuvm_page_access_page_bytes(pa));
	cJSON_AddStringToObject(o, "time_unit", "memory warp instructions pulled by the engine");
	cJSON_AddNumberToObject(o, "memory_instructions", (double)gpuvm_page_access_mem_insts(pa));
	cJSON_AddNumberToObject(o, "time_buckets", gpuvm_page_access_buckets(pa));
	cJSON_AddNumberToObject(o, "bucket_width", (double)gpuvm_page_access_bucket_width(pa));
	cJSON_AddNumberToObject(o, "unattributed_thread_accesses",
				(double)gpuvm_page_access_unattributed(pa));
	cJSON *allocs = cJSON_AddArrayToObject(o, "allocations");
	uint32_t nb = gpuvm_page_access_buckets(pa);
	for (size_t i = 0; i < gpuvm_page_access_allocs(pa); i++) {
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, i, &x);
		uint64_t rows_touched = 0, rows_written = 0, dec[GPUVM_UVM_DECISIONS] = {0};
		for (uint32_t r = 0; r < x.rows; r++) {
			bool touched = false, written = false;
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, i, r, b, &c);
				touched |= c.thread_accesses > 0;
				written |= c.written;
				for (int d = 0; d < GPUVM_UVM_DECISIONS; d++)
					dec[d] += c.decisions[d];
			}
			rows_touched += touched;
			rows_written += written;
		}
		cJSON *a = cJSON_CreateObject();
		cJSON_AddNumberToObject(a, "alloc_index", (double)i);
		cJSON_AddStringToObject(a, "name", x.alloc.name);
		cJSON_AddStringToObject(a, "kind", kind_name(x.alloc.kind));
		cJSON_AddNumberToObject(a, "base", (double)x.alloc.base);
		cJSON_AddNumberToObject(a, "bytes", (double)x.alloc.bytes);
		cJSON_AddNumberToObject(a, "pages", (double)x.pages);
		cJSON_AddNumberToObject(a, "pages_per_row", (double)x.pages_per_row);
		cJSON_AddNumberToObject(a, "rows", x.rows);
		cJSON_AddNumberToObject(a, "rows_touched", (double)rows_touched);
		cJSON_AddNumberToObject(a, "rows_written", (double)rows_written);
		cJSON_AddNumberToObject(a, "accesses", (double)x.accesses);
		cJSON_AddNumberToObject(a, "thread_accesses", (double)x.thread_accesses);
		cJSON_AddNumberToObject(a, "first_time", x.accesses ? (double)x.first_time : -1);
		cJSON_AddNumberToObject(a, "last_time", x.accesses ? (double)x.last_time : -1);
		cJSON *dj = cJSON_AddObjectToObject(a, "decisions");
		for (int d = 0; d < GPUVM_UVM_DECISIONS; d++)
			cJSON_AddNumberToObject(dj, gpuvm_uvm_decision_names[d], (double)dec[d]);
		cJSON_AddItemToArray(allocs, a);
	}
	cJSON *kernels = cJSON_AddArrayToObject(o, "kernels");
	for (size_t i = 0; i < gpuvm_page_access_kernels(pa); i++) {
		struct gpuvm_page_access_kernel k;
		gpuvm_page_access_kernel_info(pa, i, &k);
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "kernel_index", (double)i);
		cJSON_AddStringToObject(j, "name", k.name);
		cJSON_AddNumberToObject(j, "first_time", (double)k.first_time);
		cJSON_AddNumberToObject(j, "memory_instructions", (double)k.mem_insts);
		cJSON_AddItemToArray(kernels, j);
	}
	return o;
}

/* The figure: colour = log of accesses per page in the cell, from the
 * run's least (lightest) to its most (darkest); negative z for cells that
 * were only read (blues), positive for cells with a store or atomic
 * (reds). The lightest tint starts a little off white so that every
 * accessed cell shows. */
static double per_page_of(const struct gpuvm_page_access_alloc *x, uint32_t r,
			  const struct gpuvm_page_access_cell *c)
{
	return (double)(c->accesses ? c->accesses : 1) / (double)row_pages(x, r);
}

/* Colour by decision: category 0 for a cell accessed without a paging
 * decision, 1 + d for decision d most frequent in it. */
static const char *const decision_categories[1 + GPUVM_UVM_DECISIONS] = {
	"none", "remote", "fault", "counter",
	"prefetch", "evict",
};
static const char *const decision_colours[1 + GPUVM_UVM_DECISIONS] = {
	"#d9d9d9", "#2171b5", "#e6550d", "#31a354", "#fec44f", "#252525",
};

/* Whether cell c is drawn. */
static bool drawn(const struct gpuvm_page_access_cell *c, bool by_decision)
{
	return c->thread_accesses || (by_decision && gpuvm_page_access_cell_decision(c) >= 0);
}

/* The least and the most accesses per page of any accessed cell (the
 * colour scale's ends); *max stays 0 when no cell was accessed. */
static void per_page_range(const struct gpuvm_page_access *pa, double *min, double *max)
{
	size_t na = gpuvm_page_access_allocs(pa);
	uint32_t nb = gpuvm_page_access_buckets(pa);
	double pp_min = *min, pp_max = *max;
	for (size_t i = 0; i < na; i++) {
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, i, &x);
		for (uint32_t r = 0; r < x.rows && x.thread_accesses; r++)
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, i, r, b, &c);
				if (!c.thread_accesses)
					continue;
				double pp = per_page_of(&x, r, &c);
				pp_min = pp < pp_min ? pp : pp_min;
				pp_max = pp > pp_max ? pp : pp_max;
			}
	}
	*min = pp_min;
	*max = pp_max;
}

static int draw(const struct gpuvm_page_access *pa, const char *path, bool by_decision,
		struct gpuvm_error *err)
{
	size_t na = gpuvm_page_access_allocs(pa), nk = gpuvm_page_access_kernels(pa);
	uint32_t nb = gpuvm_page_access_buckets(pa);
	double width = (double)gpuvm_page_access_bucket_width(pa);
	struct gpuvm_plot_heatmap *panels = calloc(na ? na : 1, sizeof *panels);
	double *vlines = malloc((nk ? nk : 1) * sizeof *vlines);
	char (*titles)[160] = calloc(na ? na : 1, sizeof *titles);
	size_t np = 0;
	int rc = -1;
	double pp_min = INFINITY, pp_max = 0;
	if (!panels || !vlines || !titles) {
		gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nk; k++) {
		struct gpuvm_page_access_kernel ki;
		gpuvm_page_access_kernel_info(pa, k, &ki);
		vlines[k] = (double)ki.first_time;
	}
	per_page_range(pa, &pp_min, &pp_max);
	double lmin = pp_max > 0 ? log10(pp_min) : 0, span = pp_max > 0 ? log10(pp_max) - lmin : 0;
	if (span <= 0)
		span = 1;
	double offset = 0.08 * span; /* the least-accessed cells' tint */
	for (size_t i = 0; i < na; i++) {
		struct gpuvm_page_access_alloc x;
		gpuvm_page_access_alloc_info(pa, i, &x);
		if (!x.thread_accesses)
			continue;
		size_t cells = 0;
		for (uint32_t r = 0; r < x.rows; r++)
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, i, r, b, &c);
				cells += drawn(&c, by_decision);
			}
		double *d = malloc((cells ? cells : 1) * 5 * sizeof *d);
		if (!d) {
			gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
			goto out;
		}
		struct gpuvm_plot_heatmap *p = &panels[np++];
		p->x = d;
		p->y = d + cells;
		p->dx = d + 2 * cells;
		p->dy = d + 3 * cells;
		p->z = d + 4 * cells;
		bool any_write = false;
		size_t c_at = 0;
		for (uint32_t r = 0; r < x.rows; r++)
			for (uint32_t b = 0; b < nb; b++) {
				struct gpuvm_page_access_cell c;
				gpuvm_page_access_cell(pa, i, r, b, &c);
				if (!drawn(&c, by_decision))
					continue;
				double z = offset + log10(per_page_of(&x, r, &c)) - lmin;
				d[c_at] = ((double)b + 0.5) * width;
				d[cells + c_at] = ((double)r + 0.5) * (double)x.pages_per_row;
				d[2 * cells + c_at] = width / 2;
				d[3 * cells + c_at] = (double)x.pages_per_row / 2;
				d[4 * cells + c_at] = by_decision ? 1.0 + gpuvm_page_access_cell_decision(&c)
								  : c.written ? z : -z;
				any_write |= c.written;
				c_at++;
			}
		p->n = cells;
		p->ymax = (double)x.pages;
		p->vlines = vlines;
		p->n_vlines = nk <= 64 ? nk : 0;
		char size[32];
		gpuvm_format_size(x.alloc.bytes, size, sizeof size);
		snprintf(titles[np - 1], sizeof titles[0],
			 "%s (%s, %s, %" PRIu64 " pages): %" PRIu64 " page accesses, %s", x.alloc.name,
			 kind_name(x.alloc.kind), size, x.pages, x.accesses,
			 any_write ? "read-write" : "read-only");
		p->title = titles[np - 1];
	}
	if (!np) {
		gpuvm_fail(err, "--page-map", 0, NULL, "no allocation was accessed: nothing to draw");
		goto out;
	}
	/* colour-bar tics at the powers of ten between the least and the
	 * most accesses per page, both sides */
	double tv[24];
	char tl[24][24];
	const char *tlp[24];
	size_t nt = 0;
	for (int k = (int)ceil(lmin - 1e-9); nt + 2 <= 24 && k <= (int)floor(lmin + span + 1e-9); k++) {
		double v = offset + (double)k - lmin;
		snprintf(tl[nt], sizeof tl[0], "read %g", pow(10.0, k));
		tv[nt++] = -v;
		snprintf(tl[nt], sizeof tl[0], "r/w %g", pow(10.0, k));
		tv[nt++] = v;
	}
	for (size_t k = 0; k < nt; k++)
		tlp[k] = tl[k];
	/* the colour bar's unit: an access is a warp instruction's touch of
	 * a page (an access counter's view), per page of the cell's row */
	char page[32], ylabel[96], cblabel[128];
	gpuvm_format_size(gpuvm_page_access_page_bytes(pa) ? gpuvm_page_access_page_bytes(pa) : 4096,
			  page, sizeof page);
	snprintf(ylabel, sizeof ylabel, "page (%s each)", page);
	snprintf(cblabel, sizeof cblabel, "warp instructions per %s page (log)", page);
	struct gpuvm_plot_heatmap_opts o = {
		.title = "page accesses per allocation (blue: read-only, red: read-write; "
			 "dashed: kernel launches)",
		.xlabel = "time (memory warp instructions pulled)",
		.ylabel = ylabel,
		.cblabel = cblabel,
		.diverging = true,
		.cbtic_values = tv,
		.cbtic_labels = tlp,
		.n_cbtics = nt,
		.zmax = offset + span,
	};
	if (by_decision) {
		o = (struct gpuvm_plot_heatmap_opts){
			.title = "paging decision per cell: the most frequent of remote accesses "
				 "(sectors) and migrations, prefetches, evictions (pages); dashed: "
				 "kernel launches",
			.xlabel = o.xlabel,
			.ylabel = o.ylabel,
			.cblabel = "paging decision (most frequent)",
			.categories = decision_categories,
			.category_colours = decision_colours,
			.n_categories = 1 + GPUVM_UVM_DECISIONS,
		};
	}
	rc = gpuvm_plot_heatmaps(path, &o, panels, np, err);
out:
	if (panels)
		for (size_t i = 0; i < np; i++)
			free((void *)panels[i].x);
	free(panels);
	free(vlines);
	free(titles);
	return rc;
}

int gpuvm_page_access_write_csv(const struct gpuvm_page_access *pa, const char *path,
				struct gpuvm_error *err)
{
	char *csv = csv_text(pa);
	if (!csv)
		return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
	int rc = gpuvm_output_write_text(path, csv, err);
	free(csv);
	return rc;
}

int gpuvm_page_access_write(const struct gpuvm_page_access *pa, const char *prefix,
			    const char *plot_path, enum gpuvm_page_map_colour colour,
			    struct gpuvm_error *err)
{
	bool by_decision = colour == GPUVM_PAGE_MAP_DECISION ||
			   (colour == GPUVM_PAGE_MAP_AUTO && gpuvm_page_access_decisions(pa));
	if (plot_path && draw(pa, plot_path, by_decision, err))
		return -1;
	size_t plen = strlen(prefix);
	char *path = malloc(plen + 8);
	if (!path)
		return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
	int rc = -1;
	char *csv = csv_text(pa);
	cJSON *j = summary_json(pa);
	char *json = j ? cJSON_Print(j) : NULL;
	if (!csv || !json) {
		gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
		goto out;
	}
	snprintf(path, plen + 8, "%s.csv", prefix);
	if (gpuvm_output_write_text(path, csv, err))
		goto out;
	snprintf(path, plen + 8, "%s.json", prefix);
	if (gpuvm_output_write_text(path, json, err))
		goto out;
	rc = 0;
out:
	free(csv);
	free(json);
	cJSON_Delete(j);
	free(path);
	return rc;
}
