/* The statistics registry (gpuvm/stats_registry.h): one entry per value a
 * run reports, with its unit and what it counts. The counters come from
 * their registrations (gpuvm/counters.h: src/system/counters_run.c,
 * src/xlat/tlb_counters.c, src/uvm/uvm_counters.c), which also generate
 * the JSON, so a counter is documented where it is declared. Only values
 * other code writes are described here: what produced the numbers (meta)
 * and the per-allocation rows. tests/cli/stats.sh runs sims that emit
 * every key and fails on one missing. Units: count, cycles, s (simulated
 * seconds unless the name says wall), bytes, pages, ratio (0..1), 1/s,
 * bool, text, index. */
#include "gpuvm/stats_registry.h"
#include "gpuvm/number.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/counters.h"
#include "gpuvm/suggest.h"

#define R GPUVM_STAT_RUN
#define K GPUVM_STAT_KERNEL
#define A GPUVM_STAT_ALLOC
#define M GPUVM_STAT_META

/* Candidates of gpuvm_stat_suggest (CSV spellings), one per entry. */
static char (*csv_names)[128];

/* what produced the numbers: written by cmd_sim.c, run.c and the sweep */
static const struct gpuvm_stat_info meta_docs[] = {
	/* ---- what produced the numbers */
	{"gpuvm_version", "text", NULL, "version of the gpuvm that made the run", M},
	{"gpuvm_commit", "text", NULL, "git commit of that gpuvm (unknown outside a checkout)", M},
	{"preset", "text", NULL, "the --gpu argument: a shipped preset name or a preset file", M},
	{"config_hash", "text", NULL, "FNV-1a 64 hash of the resolved configuration (every key=value after --set); equal hashes, same machine model", M},
	{"gpu", "text", "GPU", "name of the resolved GPU configuration (its gpu.name)", M},
	{"workload", "text", NULL, "the workload spec as run (name:key=value,... or trace:PATH)", M},
	{"seed", "count", NULL, "random seed of the workload", M},
	{"result", "text", NULL, "the workload's functional result (checksum, group count, verify=pass ...)", M},
	{"config.*", "text", NULL, "the resolved configuration, one member per preset key (gpuvm presets NAME lists them; docs/ name each)", M},
	{"point.*", "text", NULL, "sweep JSON: the grid point (index, gpu, workload, seed, varied values)", M},
	{"error", "text", NULL, "sweep: why the point failed (empty when it ran)", M},

};

/* a run on a system of several GPUs (src/report/report_system.c): the
 * run's own members; each GPU's section ("gpu": a list) is a one-GPU
 * run's, checked as one; its totals are totals.PATH (add_total) */
static const struct gpuvm_stat_info system_docs[] = {
	{"system", "text", NULL, "system report: the system's name (--system)", M},
	{"gpus", "count", "GPUs", "system report: its GPUs; \"gpu\" lists a one-GPU run's report for each", R},
	{"index", "index", NULL, "system report: a GPU section's GPU index", M},
	{"peer_copies", "count", "peer copies", "system report: cudaMemcpyPeer(Async) calls timed", R},
	{"peer_nvlink_bytes", "bytes", "peer copy bytes over NVLink", "system report: their bytes over NVLink / NVSwitch", R},
	{"peer_host_bytes", "bytes", "peer copy bytes through the host", "system report: their bytes staged through host memory (no GPU-GPU link)", R},
	{"peer_copy_seconds", "s", "peer copy time", "system report: their busy time, summed", R},
	{"uvm_peer_pages", "pages", "GPU-to-GPU migrations", "system report: managed pages migrated GPU to GPU (faults, prefetches)", R},
	{"uvm_peer_nvlink_bytes", "bytes", "managed bytes over NVLink", "system report: their bytes, and accessed-by accesses', over NVLink / NVSwitch", R},
	{"uvm_peer_host_bytes", "bytes", "managed bytes through the host", "system report: their bytes staged through host memory (no GPU-GPU link)", R},
	{"uvm_invalidated_pages", "pages", "pages invalidated", "system report: pages a GPU lost to another's migration or write", R},
	{"uvm_duplicated_pages", "pages", "read duplicates", "system report: read duplicates made (cudaMemAdviseSetReadMostly)", R},
	{"uvm_collapsed_pages", "pages", "duplicates collapsed", "system report: duplicated pages a write collapsed to the writer", R},
	{"uvm_peer_remote_bytes", "bytes", "bytes in a peer's memory", "system report: bytes read or written in another GPU's memory (accessed-by)", R},
	{"managed_serialized_kernels", "count", "kernels held", "system report: kernels held for another GPU's while managed memory lived (docs/systems.md)", R},
};

/* per allocation: alloc.* rows of --stats-csv, listed after the counters */
static const struct gpuvm_stat_info alloc_docs[] = {
	{"alloc.bytes", "bytes", "allocation size", "bytes allocated", A},
	{"alloc.base", "bytes", NULL, "GPU virtual base address", A},
	{"alloc.pages", "pages", "pages", "pages of the allocation (--page-map-page, default 4 KiB)", A},
	{"alloc.accesses", "count", "page accesses", "(memory instruction, page) pairs that touched it: an access counter's view", A},
	{"alloc.thread_accesses", "count", "thread accesses", "active lanes of memory instructions that touched it", A},
	{"alloc.first_access", "index", "first access", "memory warp instructions pulled before its first access (time proxy)", A},
	{"alloc.last_access", "index", "last access", "memory warp instructions pulled before its last access", A},
	{"alloc.share_of_thread_accesses", "ratio", "share of accesses", "its thread accesses / all global thread accesses of the run", A},
	/* per managed allocation: JSON uvm.allocations[], --stats-csv alloc rows uvm.* */
	{"uvm.allocations[].name", "text", NULL, "the managed allocation's name", A},
	{"uvm.allocations[].base", "bytes", NULL, "GPU virtual base address", A},
	{"uvm.allocations[].bytes", "bytes", "allocation size", "bytes allocated", A},
	{"uvm.allocations[].class", "text", NULL, "hot (its access count per touched 64 KB block is at least the run's), cold, untouched, or unclassified (no access counters): Ganguly et al. III-B", A},
	{"uvm.allocations[].hot", "bool", "hot allocation", "--stats-csv: 1 hot, 0 cold (left out when untouched or unclassified)", A},
	{"uvm.allocations[].chunks_touched", "count", "touched 64 KB blocks", "its 64 KB blocks with an access count > 0 (read at free or at the end)", A},
	{"uvm.allocations[].chunks_hot", "count", "64 KB blocks past t_s", "... of which count >= t_s", A},
	{"uvm.allocations[].access_count", "count", "access count", "the access counts of its 64 KB blocks summed (read at free or at the end; halvings included)", A},
	{"uvm.allocations[].remote_accesses", "count", "remote accesses", "sector accesses of its pages served over PCIe", A},
	{"uvm.allocations[].migrations_fault", "pages", "fault migrations", "its pages migrated by their own far fault", A},
	{"uvm.allocations[].migrations_counter", "pages", "counter migrations", "its pages migrated once the access counter reached the threshold", A},
	{"uvm.allocations[].migrations_prefetch", "pages", "prefetched pages", "its pages migrated by the prefetcher", A},
	{"uvm.allocations[].pages_evicted", "pages", "evicted pages", "its pages evicted to host memory", A},
	{"uvm.allocations[].thrashed_pages", "pages", "thrashed pages", "faults on its pages evicted before", A},
};

#undef R
#undef K
#undef A
#undef M

/* The listing: meta_docs, every registered counter of the run's tree and
 * of a launch (gpuvm/counters.h), alloc_docs. Built once. */
static struct gpuvm_stat_info *stats;
static size_t N_STATS;
static pthread_once_t built = PTHREAD_ONCE_INIT;

struct builder {
	struct gpuvm_stat_info *out;
	size_t n;
};

static void add(struct builder *b, const struct gpuvm_stat_info *s, const char *name)
{
	if (b->out) {
		b->out[b->n] = *s;
		b->out[b->n].name = name;
	}
	b->n++;
}

static void add_counter(const char *path, const struct gpuvm_counter *r, enum gpuvm_stat_scope scope,
			void *arg)
{
	struct builder *b = arg;
	struct gpuvm_stat_info s = {path, r->unit ? r->unit : "count", r->label, r->help, scope};
	add(b, &s, b->out ? strdup(path) : path);
}

/* Is path a row of the launch's own table? */
struct lookup {
	const char *path;
	bool found;
};

static void find_path(const char *path, const struct gpuvm_counter *r, enum gpuvm_stat_scope scope,
		      void *arg)
{
	struct lookup *l = arg;
	(void)r, (void)scope;
	l->found |= !strcmp(path, l->path);
}

/* A statistic derived from counter row r under name path (a kernel's
 * field, a system's total), with its own help text: both strings are
 * built on the stack, so the filled registry keeps copies of them. */
static void add_row_copy(struct builder *b, const char *path, const struct gpuvm_counter *r,
			 const char *help, enum gpuvm_stat_scope scope)
{
	struct gpuvm_stat_info s = {path, r->unit ? r->unit : "count", r->label, help, scope};
	if (b->out) {
		s.help = strdup(help);
		add(b, &s, strdup(path));
		if (!s.help)
			b->out[b->n - 1].name = NULL; /* build() reports it */
	} else {
		add(b, &s, path);
	}
}

/* kernels[].PATH for each counter a launch carries as a difference
 * (GPUVM_CTR_SUM) or copies (GPUVM_CTR_KEY), unless the launch's table
 * has that name already. */
static void add_kernel_delta(const char *path, const struct gpuvm_counter *r,
			     enum gpuvm_stat_scope scope, void *arg)
{
	struct builder *b = arg;
	(void)scope;
	if (!(r->flags & (GPUVM_CTR_SUM | GPUVM_CTR_KEY)))
		return;
	char kpath[300];
	snprintf(kpath, sizeof kpath, "kernels[].%s", path);
	struct lookup l = {kpath, false};
	gpuvm_counters_visit(&gpuvm_kernel_section, find_path, &l);
	if (l.found)
		return;
	char help[600];
	snprintf(help, sizeof help, "%s%s", r->flags & GPUVM_CTR_KEY ? "" : "of the launch: ", r->help);
	add_row_copy(b, kpath, r, help, GPUVM_STAT_KERNEL);
}

/* totals.PATH of a system report for each row its totals sum
 * (gpuvm_counters_emit_totals: GPUVM_CTR_SUM or GPUVM_CTR_TOTAL, plain
 * fields outside array sections). */
static void add_total(const char *path, const struct gpuvm_counter *r, enum gpuvm_stat_scope scope,
		      void *arg)
{
	struct builder *b = arg;
	(void)scope;
	/* a DOC row flagged so documents its set (stall_cycles.*) */
	if (!(r->flags & (GPUVM_CTR_SUM | GPUVM_CTR_TOTAL)) || strstr(path, "[]") ||
	    (r->type != GPUVM_CTR_U64 && r->type != GPUVM_CTR_U32 && r->type != GPUVM_CTR_F64 &&
	     r->type != GPUVM_CTR_DOC))
		return;
	char tpath[300], help[600];
	snprintf(tpath, sizeof tpath, "totals.%s", path);
	snprintf(help, sizeof help, "system report: the GPUs' sum of %s: %s", path, r->help);
	add_row_copy(b, tpath, r, help, GPUVM_STAT_RUN);
}

static void collect(struct builder *b)
{
	for (size_t i = 0; i < sizeof meta_docs / sizeof meta_docs[0]; i++)
		add(b, &meta_docs[i], meta_docs[i].name);
	gpuvm_counters_visit(&gpuvm_run_section, add_counter, b);
	gpuvm_counters_visit(&gpuvm_kernel_section, add_counter, b);
	gpuvm_counters_visit(&gpuvm_run_section, add_kernel_delta, b);
	for (size_t i = 0; i < sizeof system_docs / sizeof system_docs[0]; i++)
		add(b, &system_docs[i], system_docs[i].name);
	gpuvm_counters_visit(&gpuvm_run_section, add_total, b);
	for (size_t i = 0; i < sizeof alloc_docs / sizeof alloc_docs[0]; i++)
		add(b, &alloc_docs[i], alloc_docs[i].name);
}

static void build(void)
{
	struct builder b = {0};
	collect(&b);
	b.out = calloc(b.n, sizeof *b.out);
	char (*csv)[128] = calloc(b.n, sizeof *csv);
	if (!b.out || !csv) {
		fprintf(stderr, "gpuvm: out of memory for the statistics registry\n");
		exit(1);
	}
	size_t n = b.n;
	b.n = 0;
	collect(&b);
	for (size_t i = 0; i < n; i++)
		if (!b.out[i].name) {
			fprintf(stderr, "gpuvm: out of memory for the statistics registry\n");
			exit(1);
		}
	stats = b.out;
	csv_names = csv;
	N_STATS = n;
}

static void ensure_built(void) { pthread_once(&built, build); }

size_t gpuvm_stat_count(void)
{
	ensure_built();
	return N_STATS;
}

const struct gpuvm_stat_info *gpuvm_stat_at(size_t i)
{
	ensure_built();
	return i < N_STATS ? &stats[i] : NULL;
}

/* Does pattern (a registry name, "*" matching one trailing component)
 * match path after both are normalized to JSON form with "[]"? */
static bool match_json(const char *pat, const char *path)
{
	size_t lp = strlen(pat);
	if (lp >= 2 && pat[lp - 1] == '*' && pat[lp - 2] == '.')
		return strncmp(pat, path, lp - 1) == 0 && path[lp - 1] &&
		       !strchr(path + lp - 1, '.');
	return strcmp(pat, path) == 0;
}

/* "tlb[2].hits" -> "tlb[].hits"; "tlb.0.hits" stays. */
static void normalize_json(const char *in, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; in[i] && o + 1 < len; i++) {
		out[o++] = in[i];
		if (in[i] == '[') {
			while (isdigit((unsigned char)in[i + 1]))
				i++;
		}
	}
	out[o] = 0;
}

/* A registry name in CSV spelling: '.' -> '_', "tlb[]." -> "tlb_l#_".
 * Returns false for names no sweep CSV carries (lists, kernels[]: the
 * per-kernel rows are --stats-csv's kernel.NAME). */
static bool csv_form(const char *name, char *out, size_t len)
{
	if (strstr(name, "[]") && strncmp(name, "tlb[].", 6) != 0)
		return false; /* lists stay in the JSON */
	if (!strncmp(name, "tlb[].", 6) && strstr(name + 6, "[]"))
		return false;
	size_t o = 0;
	const char *p = name;
	if (!strncmp(p, "tlb[].", 6)) {
		o = (size_t)snprintf(out, len, "tlb_l#_");
		p += 6;
	}
	for (; *p && o + 1 < len; p++)
		out[o++] = *p == '.' ? '_' : *p;
	out[o] = 0;
	return true;
}

/* CSV pattern match: '#' matches one or more digits, a trailing '*' one
 * or more characters. */
static bool match_csv(const char *pat, const char *col)
{
	while (*pat) {
		if (*pat == '#') {
			if (!isdigit((unsigned char)*col))
				return false;
			while (isdigit((unsigned char)*col))
				col++;
			pat++;
		} else if (*pat == '*' && !pat[1]) {
			return *col != 0;
		} else {
			if (*pat != *col)
				return false;
			pat++;
			col++;
		}
	}
	return *col == 0;
}

const struct gpuvm_stat_info *gpuvm_stat_find(const char *name)
{
	ensure_built();
	char norm[256], full[300];
	/* --stats-csv spellings: kernel.X -> kernels[].X; alloc.uvm.X ->
	 * uvm.allocations[].X; alloc.X stays */
	if (!strncmp(name, "kernel.", 7))
		snprintf(full, sizeof full, "kernels[].%s", name + 7);
	else if (!strncmp(name, "alloc.uvm.", 10))
		snprintf(full, sizeof full, "uvm.allocations[].%s", name + 10);
	else
		snprintf(full, sizeof full, "%s", name);
	normalize_json(full, norm, sizeof norm);
	for (size_t i = 0; i < N_STATS; i++)
		if (match_json(stats[i].name, norm))
			return &stats[i];
	for (size_t i = 0; i < N_STATS; i++) {
		char pat[256];
		if (stats[i].scope == GPUVM_STAT_KERNEL || stats[i].scope == GPUVM_STAT_ALLOC ||
		    !csv_form(stats[i].name, pat, sizeof pat))
			continue;
		if (match_csv(pat, name))
			return &stats[i];
	}
	return NULL;
}

size_t gpuvm_stat_find_short(const char *name, const struct gpuvm_stat_info **out, size_t max)
{
	ensure_built();
	size_t n = 0, ln = strlen(name);
	if (!ln)
		return 0;
	for (size_t i = 0; i < N_STATS; i++) {
		const char *full = stats[i].name;
		size_t lf = strlen(full);
		if (lf < ln || strcmp(full + lf - ln, name) != 0)
			continue;
		if (lf > ln && full[lf - ln - 1] != '.')
			continue; /* a whole component: "ipc" is not "thread_ipc" */
		if (n < max)
			out[n] = &stats[i];
		n++;
	}
	return n;
}

void gpuvm_stat_axis_label(const char *name, char *buf, size_t len)
{
	const struct gpuvm_stat_info *s = gpuvm_stat_find(name);
	if (!s) {
		snprintf(buf, len, "%s", name);
		return;
	}
	const char *label = s->label ? s->label : name;
	/* a TLB level's label names the level: "L2 TLB hit ratio" */
	char lv[16] = "";
	if (!strncmp(s->name, "tlb[]", 5) && !strncmp(name, "tlb_l", 5) && isdigit((unsigned char)name[5])) {
		uint64_t level = 0;
		gpuvm_scan_u64(name + 5, NULL, 0, UINT32_MAX, &level);
		snprintf(lv, sizeof lv, "L%u ", (unsigned)level);
	}
	if (!strcmp(s->unit, "count") || !strcmp(s->unit, "text") || !strcmp(s->unit, "bool") ||
	    !strcmp(s->unit, "index"))
		snprintf(buf, len, "%s%s", lv, label);
	else if (!strcmp(s->unit, "ratio"))
		snprintf(buf, len, "%s%s (0-1)", lv, label);
	else
		snprintf(buf, len, "%s%s (%s)", lv, label, s->unit);
}

/* Candidates of gpuvm_stat_suggest: registry names, or their CSV
 * spellings. */


static const char *stat_name_at(size_t i, const void *ctx)
{
	bool csv = *(const bool *)ctx;
	if (i >= N_STATS)
		return NULL;
	return csv ? csv_names[i] : stats[i].name;
}

const char *gpuvm_stat_suggest(const char *name, bool csv)
{
	ensure_built();
	/* a TLB level reads as the level the user named: tlb_l2_... */
	char level = !strncmp(name, "tlb_l", 5) && isdigit((unsigned char)name[5]) ? name[5] : '1';
	if (csv)
		for (size_t i = 0; i < N_STATS; i++) {
			if (!csv_form(stats[i].name, csv_names[i], sizeof csv_names[i]) ||
			    stats[i].scope == GPUVM_STAT_KERNEL || stats[i].scope == GPUVM_STAT_ALLOC)
				snprintf(csv_names[i], sizeof csv_names[i], "%s", stats[i].name);
			char *h = strchr(csv_names[i], '#');
			if (h)
				*h = level;
		}
	return gpuvm_suggest(name, stat_name_at, &csv);
}
