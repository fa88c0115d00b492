/* TLB probes: Karnagel et al.'s property and sharing benchmarks (seeds/000
 * section 3) against any backend that can time a pointer chase, and the one
 * analysis that turns their curves into per-level TLB parameters.
 *
 * Property benchmark: one thread chases dependent pointers `hops` times at
 * `stride` bytes (a traversed size of hops x stride), a warm-up pass then a
 * timed pass; the latency per hop over a grid of (stride, size) shows a step
 * at each level's reach. Entry size comes from the partial step of Fig. 2:
 * stride X (the entry size) gives a full step at size a, X/2 a half-high
 * step at the same size, 2X a full step at 2a.
 *
 * Sharing benchmark: fill a level on SM i, disrupt from SM k with other
 * pages, re-measure on SM i; a slower third stage means i and k share that
 * level's instance. The groups of SMs that share are the sharing domains. */
#ifndef GPUVM_PROBE_H
#define GPUVM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"

#define GPUVM_PROBE_MAX_LEVELS 8
#define GPUVM_PROBE_NO_SM UINT32_MAX /* sharing: "no disrupting SM" (the baseline) */

struct gpuvm_probe_backend;

struct gpuvm_probe_backend_ops {
	/* Mean latency per hop of the timed pass of a chase over `hops`
	 * addresses `stride` bytes apart (gpuvm_probe_chain_offset), after one
	 * untimed warm-up pass over the same chain. NULL: the backend only
	 * replays recorded points (then `recorded` holds them). */
	int (*chase)(struct gpuvm_probe_backend *b, uint64_t stride_bytes, uint32_t hops,
		     double *latency, struct gpuvm_error *err);
	/* Optional: chase(stride, hops[j]) for j < n, as n independent
	 * measurements that may share one run of the backend (the simulator
	 * builds its engine once for all of them: each chase's warm-up pass
	 * leaves LRU TLBs and caches in the same state whatever came before,
	 * so the results equal n separate chases). NULL: chase() n times. */
	int (*chase_batch)(struct gpuvm_probe_backend *b, uint64_t stride_bytes, const uint32_t *hops,
			   size_t n, double *latency, struct gpuvm_error *err);
	/* For each disrupt[j]: fill (chase region A on sm_fill), disrupt (chase
	 * region B, hops addresses right after A, on disrupt[j]; skipped for
	 * GPUVM_PROBE_NO_SM), measure (chase A again on sm_fill, timed).
	 * latency[j] = mean per-hop latency of the measure stage. NULL: no
	 * sharing benchmark on this backend. */
	int (*share)(struct gpuvm_probe_backend *b, uint64_t stride_bytes, uint32_t hops,
		     uint32_t sm_fill, const uint32_t *disrupt, size_t n, double *latency,
		     struct gpuvm_error *err);
	void (*destroy)(struct gpuvm_probe_backend *b);
};

struct gpuvm_probe_point {
	uint64_t stride_bytes;
	uint32_t hops;
	double latency; /* per hop, in the backend's unit */
};

/* One measured sharing cell. */
struct gpuvm_probe_share_cell {
	uint64_t stride_bytes;
	uint32_t hops;
	uint32_t sm_fill, sm_disrupt; /* sm_disrupt = GPUVM_PROBE_NO_SM: baseline */
	double latency;
};

struct gpuvm_probe_backend {
	const struct gpuvm_probe_backend_ops *ops;
	void *impl;
	char target[160];   /* "sim:p100", "cpu:4KiB", "cuda:FILE" */
	char unit[16];      /* "cycles" or "ns" */
	uint32_t sms;       /* processors the sharing benchmark spans (0: none) */
	/* Data-cache lines the chase may touch and still hit the data cache
	 * the backend's loads go to (0: unknown); the grid stays below it so
	 * every step is a TLB step, not a data-cache one. */
	uint64_t data_cache_lines;
	uint64_t max_bytes;   /* largest traversed size (0: no limit) */
	uint64_t min_stride_bytes, max_stride_bytes; /* defaults for the grid */
	uint32_t max_hops;    /* longest chase the backend can time (0: no limit) */
	double noise;        /* smallest latency change that counts as a step */
	double noise_rel;    /* ... plus this fraction of the latency (host: 0.08) */
	bool deterministic;  /* repeated measurements agree exactly (sim) */
	/* Non-deterministic backends: times the grid is measured (each point
	 * keeps its lowest pass: interference on a shared host only adds). */
	uint32_t passes;
	/* Smallest entry size the hardware can have (host: the 4 KiB page;
	 * 0: any). Smaller strides still serve as X/2. */
	uint64_t min_entry_bytes;
	/* Replay-only backends (chase == NULL): the recorded points and cells. */
	struct gpuvm_probe_point *recorded;
	size_t n_recorded;
	struct gpuvm_probe_share_cell *recorded_cells;
	size_t n_recorded_cells;
	/* Free text the backend wants in the report (CPUID findings, page mode). */
	char notes[2048];
};

enum gpuvm_probe_sharing_mode {
	GPUVM_PROBE_SHARING_AUTO = 0, /* full matrix up to 64 SMs, else groups */
	GPUVM_PROBE_SHARING_FULL,     /* every (i, k) pair, as Karnagel */
	GPUVM_PROBE_SHARING_GROUPS,   /* one row per sharing group found so far */
	GPUVM_PROBE_SHARING_OFF,
};

struct gpuvm_probe_plan {
	uint64_t min_stride_bytes, max_stride_bytes; /* powers of two; 0: backend's */
	uint32_t min_hops, max_hops;  /* hop-count range of each curve */
	double hop_ratio;             /* geometric step of the hop grid (> 1) */
	bool refine;                  /* bisect each knee down to one hop */
	enum gpuvm_probe_sharing_mode sharing;
	bool progress;                /* progress lines on stderr */
};

/* Defaults: strides 2 KiB .. 128 MiB (X/2 of the smallest and 2X of the
 * largest entry size the E2 target covers), 2 .. 12288 hops (2X the
 * largest entry count at X/2, plus room past the knee), ratio 2^(1/4),
 * refinement on, sharing auto. */
void gpuvm_probe_plan_defaults(struct gpuvm_probe_plan *plan);

struct gpuvm_probe_level {
	uint64_t entry_bytes;
	uint32_t entries;
	uint64_t reach_bytes;     /* entries x entry_bytes */
	double miss_cost;         /* latency step at the reach, backend unit */
	double below_latency;     /* latency just below the knee at stride X */
	bool half_step_seen;      /* X/2 showed the half-high step (else out of range) */
	bool double_step_seen;    /* 2X showed its step (else it never reached 2x the reach) */
	/* sharing */
	bool sharing_measured;
	uint64_t share_stride_bytes;
	uint32_t share_hops;
	double share_threshold;   /* increase over the baseline that means "shared" */
	uint32_t groups;          /* sharing domains found */
	uint16_t group_of_sm[GPUVM_MAX_SMS]; /* dense group id per logical SM */
};

struct gpuvm_probe_result {
	char target[160];
	char unit[16];
	uint32_t sms;
	double baseline_latency;  /* latency with every level hitting */
	uint32_t levels;
	struct gpuvm_probe_level level[GPUVM_PROBE_MAX_LEVELS];
	struct gpuvm_probe_point *points;       /* sorted by stride, then hops */
	size_t n_points, cap_points;
	struct gpuvm_probe_share_cell *cells;
	size_t n_cells, cap_cells;
	/* Analysis settings taken from the backend (see there). */
	double noise, noise_rel;
	bool deterministic;
	uint64_t min_entry_bytes;
	uint64_t measurements;    /* backend calls made */
	double wall_seconds;
	char notes[2048];
};

/* Offset of hop i inside its stride block: a cache line per hop, cycling
 * within min(stride, 4 KiB), so successive hops fall in different cache
 * sets of physically indexed caches (Manegold's Calibrator, calibrator.c runTLB)
 * without ever leaving the hop's own stride block. */
uint64_t gpuvm_probe_chain_offset(uint64_t i, uint64_t stride_bytes);

/* Runs the property benchmark over the plan's grid (or takes the recorded
 * points), analyses it, then runs the sharing benchmark for every level
 * found. res must be released with gpuvm_probe_result_free. */
int gpuvm_probe_run(struct gpuvm_probe_backend *b, const struct gpuvm_probe_plan *plan,
		    struct gpuvm_probe_result *res, struct gpuvm_error *err);

/* The analysis alone, on res->points (and res->cells for sharing): finds
 * levels, their entries, entry size and miss cost, and sharing groups. */
int gpuvm_probe_analyze(struct gpuvm_probe_result *res, double noise, struct gpuvm_error *err);

/* Sharing parameters of level l (needs levels 0..l analysed): sub-stride
 * and hops so that one SM's pages fit the level and two SMs' overflow it,
 * while every lower level thrashes. Returns 0, or -1 when no such chase. */
int gpuvm_probe_share_params(const struct gpuvm_probe_result *res, uint32_t l,
			     uint64_t *stride_bytes, uint32_t *hops, uint32_t *per_entry);

void gpuvm_probe_result_free(struct gpuvm_probe_result *res);

/* ---- backends ------------------------------------------------------- */

/* The simulator: cfg finalized and kept alive by the caller. */
int gpuvm_probe_backend_sim(struct gpuvm_probe_backend *b, const struct gpuvm_config *cfg,
			    struct gpuvm_error *err);

/* The host CPU; huge = true backs the chain with 2 MiB pages
 * (MADV_HUGEPAGE, falling back to MAP_HUGETLB), and says which worked. */
int gpuvm_probe_backend_cpu(struct gpuvm_probe_backend *b, bool huge, struct gpuvm_error *err);

/* What CPUID says about the TLBs (Intel leaf 0x2/0x18, AMD 0x80000005/6),
 * one line per TLB, into buf. */
void gpuvm_probe_cpuid_tlbs(char *buf, size_t len);

/* Timings recorded elsewhere (cuda/tlb_probe.cu): CSV files with rows
 * kind,stride_bytes,hops,sm_fill,sm_disrupt,latency_cycles (kind "chase"
 * or "share"; '#' lines are comments). */
int gpuvm_probe_backend_recorded(struct gpuvm_probe_backend *b, const char *const *paths,
				 size_t n, struct gpuvm_error *err);

void gpuvm_probe_backend_free(struct gpuvm_probe_backend *b);

/* ---- outputs -------------------------------------------------------- */

/* A GPU preset (INI) with the probed TLB levels; base gives every other
 * key (sim: the probed preset; cpu/cuda: gpuvm_config_defaults with sms
 * set). Hit latencies are folded into the baseline; the last level's miss
 * cost is split into base's walk latency plus the remaining penalty. */
int gpuvm_probe_emit_preset(const struct gpuvm_probe_result *res, const struct gpuvm_config *base,
			    char **text, struct gpuvm_error *err);

/* The latency curves (stride_bytes,size_bytes,hops,latency) and the
 * sharing cells as CSV text (malloc'd). */
char *gpuvm_probe_curves_csv(const struct gpuvm_probe_result *res);
char *gpuvm_probe_sharing_csv(const struct gpuvm_probe_result *res);
cJSON *gpuvm_probe_result_json(const struct gpuvm_probe_result *res);
void gpuvm_probe_print_summary(FILE *out, const struct gpuvm_probe_result *res);

#endif
