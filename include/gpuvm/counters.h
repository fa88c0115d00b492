/* Counter registration: how a component declares the statistics it keeps.
 *
 * Contract. A component keeps its counters in its own struct and
 * registers each once, as one row of a section table next to that struct
 * (src/system/counters_run.c for the run's core counters,
 * src/xlat/tlb_counters.c for a TLB level, src/uvm/uvm_counters.c for
 * paging). A row names the counter (its JSON member), its unit, a short
 * label, one line of meaning and where the value lives: a field at an
 * offset of the section's struct, or a callback for derived values.
 * Everything a run reports is generated from these rows, in row order:
 *
 *   - the sim JSON (gpuvm_report_run walks the run section's tree);
 *   - --stats-csv, which flattens that JSON, with units from the rows;
 *   - per-kernel records: every row flagged GPUVM_CTR_SUM is snapshot at a
 *     launch's start and end (gpuvm_counters_snapshot/_delta) and the
 *     difference is written into the launch's record under the same path
 *     (kernels[].uvm.far_faults, kernels[].tlb[].misses), so the launches'
 *     values add up to the run's;
 *   - `gpuvm stats` (gpuvm/stats_registry.h lists every row, and a
 *     kernel-scope row kernels[].PATH for every GPUVM_CTR_SUM one).
 *
 * Adding a counter is therefore one row plus its increment. This file may
 * call nothing but cJSON; it owns no state (the tables are const). */
#ifndef GPUVM_COUNTERS_H
#define GPUVM_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Where a statistic appears. */
enum gpuvm_stat_scope {
	GPUVM_STAT_RUN,    /* one per run: sim JSON, a sweep row */
	GPUVM_STAT_KERNEL, /* one per kernel launch: kernels[], --stats-csv */
	GPUVM_STAT_ALLOC,  /* one per allocation: --stats-csv */
	GPUVM_STAT_META,   /* what produced the numbers: version, preset, config hash */
};

struct gpuvm_config;
struct gpuvm_stats;

/* Where a row's value comes from and how it is written. */
enum gpuvm_counter_type {
	GPUVM_CTR_U64,      /* uint64_t at offset: JSON number */
	GPUVM_CTR_U32,      /* uint32_t at offset */
	GPUVM_CTR_F64,      /* double at offset */
	GPUVM_CTR_BOOL,     /* bool at offset: JSON true/false */
	GPUVM_CTR_TEXT,     /* char array at offset: JSON string */
	GPUVM_CTR_TEXT_PTR, /* const char * at offset (NULL: "none") */
	GPUVM_CTR_FN,       /* value(): a derived number; NaN is written as null */
	GPUVM_CTR_EMIT,     /* emit() writes the member itself (lists, nested series) */
	GPUVM_CTR_DOC,      /* documented only: written by an EMIT row or by other code */
	GPUVM_CTR_SECTION,  /* a nested object or array: child */
};

/* Row flags. */
#define GPUVM_CTR_SUM 1u     /* a count that adds over launches: kernels carry its difference */
#define GPUVM_CTR_SECONDS 2u /* kept in cycles, written in seconds (divided by the gpu clock) */
#define GPUVM_CTR_KEY 4u     /* identifies an array element (tlb[].level): kernels copy it */
#define GPUVM_CTR_CSV 8u     /* a sweep CSV's derived column, not a JSON key (DOC rows) */
/* written by the SM side inside a core.window window, into a partition's
 * statistics shard (src/system/partition.c), and merged at the barrier;
 * on a SECTION row: every row of the section */
#define GPUVM_CTR_SHARD 16u
/* a count that adds over the GPUs of a system though not over launches
 * (a CPU phase's between kernels, a peer request's): a system report's
 * "totals" carry its sum, as they do every GPUVM_CTR_SUM row's; on a DOC
 * row of a set ("stall_cycles.*"), the set's totals are documented */
#define GPUVM_CTR_TOTAL 32u

/* What a callback sees: the run, the gpu clock and the section's struct. */
struct gpuvm_counter_ctx {
	const struct gpuvm_config *cfg;
	const struct gpuvm_stats *st;
	const void *base;   /* the section's struct (a TLB level, the uvm stats, a launch) */
	uint32_t index;     /* element index in an array section */
	double hz;          /* gpu clock, for cycles -> seconds */
};

struct gpuvm_counter_section;

struct gpuvm_counter {
	const char *name;  /* JSON member; "name.*" or "name[]" for EMIT/DOC rows of a set */
	const char *unit;  /* count, cycles, s, bytes, pages, ratio, 1/s, bool, text, index */
	const char *label; /* short axis label; NULL: the name */
	const char *help;  /* one line */
	enum gpuvm_counter_type type;
	unsigned flags;
	size_t offset;     /* of the field in the section's struct */
	double (*value)(const struct gpuvm_counter_ctx *c);          /* FN */
	bool (*present)(const struct gpuvm_counter_ctx *c);          /* NULL: always written */
	void (*emit)(cJSON *parent, const struct gpuvm_counter_ctx *c); /* EMIT */
	const struct gpuvm_counter_section *child;                   /* SECTION */
};

/* A table of rows over one struct: the run (top level), an object member
 * ("uvm") or an array of objects ("tlb": one per level). */
struct gpuvm_counter_section {
	const char *name;  /* member name of the object or array ("" for the run) */
	enum gpuvm_stat_scope scope;
	bool array;
	const struct gpuvm_counter *rows;
	size_t n_rows;
	/* elements (array) or 0/1 (object: 0 leaves it out); NULL: 1 */
	uint32_t (*count)(const struct gpuvm_stats *st);
	/* element i's struct is at parent + offset + i * stride */
	size_t offset, stride;
	/* the largest count any run can have (snapshot layout); 0: 1 */
	uint32_t max_count;
};

#define GPUVM_COUNTER_ROWS(t) (t), (sizeof(t) / sizeof((t)[0]))

/* The run's tree of sections (src/system/counters_run.c) and the
 * per-launch section (kernels[]). */
extern const struct gpuvm_counter_section gpuvm_run_section;
extern const struct gpuvm_counter_section gpuvm_kernel_section;
/* components' sections, linked into the run's tree */
extern const struct gpuvm_counter_section gpuvm_tlb_level_section;
extern const struct gpuvm_counter_section gpuvm_uvm_section;
extern const struct gpuvm_counter_section gpuvm_dram_section;

/* Writes the rows of sec over base into o (recursing into sections). */
void gpuvm_counters_emit(cJSON *o, const struct gpuvm_counter_section *sec,
			 const struct gpuvm_counter_ctx *ctx);

/* A system's totals (a run on several GPUs, src/report/report_system.c):
 * writes into o, for every row of the tree under sec flagged
 * GPUVM_CTR_SUM or GPUVM_CTR_TOTAL, the sum of the n runs' values (runs[i]
 * is run i's context with base at sec's struct; seconds rows each divided
 * by its run's clock). Object sections nest as in a run's JSON and appear
 * when any run has theirs; array sections (TLB levels, which GPUs of
 * different presets need not share) are left out; a row with present()
 * appears when any run's says so. Rows with neither flag (a capacity, a
 * peak, a setting) are each GPU's own and stay out. */
void gpuvm_counters_emit_totals(cJSON *o, const struct gpuvm_counter_section *sec,
				const struct gpuvm_counter_ctx *runs, uint32_t n);

/* Per-launch differences over the tree under root (the run's,
 * gpuvm_run_section: the caller names it, so that this walker, in the
 * shared base, names no table of a layer above it). The snapshot holds
 * every GPUVM_CTR_SUM value of the tree, in tree order, TLB levels up to
 * GPUVM_MAX_TLB_LEVELS and the uvm object always (zeros when unused), so
 * its layout is fixed. */
#define GPUVM_COUNTERS_MAX 1024
size_t gpuvm_counters_snapshot_len(const struct gpuvm_counter_section *root);
void gpuvm_counters_snapshot(const struct gpuvm_counter_section *root, const struct gpuvm_stats *st,
			     double *out);
/* at (a snapshot taken at the launch's start) becomes now - at. */
void gpuvm_counters_delta(const struct gpuvm_counter_section *root, const struct gpuvm_stats *st,
			  double *at);
/* Writes a launch's differences d into its JSON record o, in the run's
 * shape (tlb[] levels, uvm when the run used it), leaving out members the
 * record already has (same name, same meaning: warp_instructions ...). */
void gpuvm_counters_emit_delta(cJSON *o, const struct gpuvm_counter_section *root, const double *d,
			       const struct gpuvm_counter_ctx *run);

/* Merges a thread's copy of the counters into the run's: for every row of
 * the tree under sec that is a plain field (U64, U32, F64), in every
 * element a section can have (TLB levels up to max_count), adds from's
 * value to into's and zeroes it in from. The windowed engine's threads
 * count into copies of struct gpuvm_stats (src/sm/sm_window.c, sm_split.c)
 * and merge them with this, so a counter registered as a row cannot be
 * left out of a threaded merge. Fields that are not rows (arrays written
 * by EMIT rows, pointers, flags) are not touched. */
void gpuvm_counters_merge(const struct gpuvm_counter_section *sec, void *into, void *from);

/* A plain field of a section's struct (U64, U32, F64) at its offset. */
struct gpuvm_counter_field {
	size_t offset;
	enum gpuvm_counter_type type;
};

/* The plain fields of the tree under sec whose rows carry flag (or whose
 * SECTION row does), in row order and every element a section can have:
 * the merge plan of a copy that only those rows are written in. Writes at
 * most cap into out and returns how many there are. */
size_t gpuvm_counters_plan(const struct gpuvm_counter_section *sec, unsigned flag,
			   struct gpuvm_counter_field *out, size_t cap);

/* gpuvm_counters_merge over the n fields of a plan: into += from,
 * from = 0, field by field. */
void gpuvm_counters_merge_plan(const struct gpuvm_counter_field *f, size_t n, void *into,
			       void *from);

/* Visits every row of the tree under sec with its full path
 * ("uvm.far_faults", "tlb[].hits"). */
typedef void (*gpuvm_counter_visit)(const char *path, const struct gpuvm_counter *row,
				    enum gpuvm_stat_scope scope, void *arg);
void gpuvm_counters_visit(const struct gpuvm_counter_section *sec, gpuvm_counter_visit fn,
			  void *arg);

#endif
