/* Progress of a long run, for a person watching a terminal or reading a
 * batch log (Slurm, nohup, `| tee`).
 *
 * Owns: the reporter state (when the last line went out, the CPU clock at
 * the start, launches finished, the expected amount of work) and all the
 * formatting. The engine only fills a gpuvm_progress_sample and calls the
 * gpuvm_progress_fn it was given (gpuvm_sim_options.progress_fn), every
 * few thousand events and once at the end of each launch; it knows neither
 * clocks nor terminals.
 *
 * Two modes:
 *   - live: stderr is a terminal; one line redrawn in place (\r) at most
 *     every 0.25 s, as gpuvm has always done;
 *   - lines: stderr is a file or pipe; a full line every interval_s seconds
 *     of wall time (default 30) with simulated cycles, launches finished,
 *     warp instructions per CPU second and the estimated time left.
 *
 * Time left is estimated from CPU time spent so far and the fraction of
 * work done, in that order of preference:
 *   1. thread accesses done / the workload's own estimate of its thread
 *      accesses (workloads with an `estimate` hook: random-sampling,
 *      hash-groupby, stream-triad, the SePo apps) -> "left ~12m (accesses)";
 *   2. otherwise the current launch's CTAs done / its CTAs, which bounds
 *      the time left from below (later launches are not known in advance)
 *      -> "left >= 40s (this launch)".
 * The rate is per CPU second of the whole process (CLOCK_PROCESS_CPUTIME_ID:
 * every --threads worker counts), so a loaded host does not inflate it. */
#ifndef GPUVM_PROGRESS_H
#define GPUVM_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What the engine knows at one moment. */
struct gpuvm_progress_sample {
	uint64_t kernel_index;    /* launches started so far (1 = the first) */
	const char *kernel;       /* the current launch's kernel name */
	uint64_t ctas_done, ctas; /* of the current launch */
	uint64_t warp_insts;      /* whole run so far */
	uint64_t thread_accesses; /* whole run so far */
	double sim_cycles;        /* simulated time reached */
	bool launch_end;          /* the current launch has just finished */
};

typedef void gpuvm_progress_fn(void *ctx, const struct gpuvm_progress_sample *s);

enum gpuvm_progress_mode {
	GPUVM_PROGRESS_OFF,
	GPUVM_PROGRESS_LIVE,  /* terminal: one line redrawn */
	GPUVM_PROGRESS_LINES, /* batch log: a line every interval_s */
};

#define GPUVM_PROGRESS_DEFAULT_INTERVAL_S 30.0

struct gpuvm_progress {
	enum gpuvm_progress_mode mode;
	double interval_s;
	FILE *out;
	const char *label;             /* prefix of each batch line ("gpuvm sim") */
	uint64_t expected_accesses;    /* 0: the workload gave no estimate */
	uint64_t launches_done;
	double cpu0_s, wall0_s, last_wall_s;
	double launch_cpu0_s;          /* CPU clock when the current launch started */
	uint64_t launch_index;         /* which launch launch_cpu0_s belongs to */
	bool live_line_open;           /* a \r line waits for its newline */
	unsigned lines;                /* batch lines written (tests, docs) */
};

/* Parses a --progress value: "off", or a positive number of seconds. */
int gpuvm_progress_parse(const char *text, double *interval_s, bool *off);

/* Sets p up; mode OFF makes gpuvm_progress_report a no-op. */
void gpuvm_progress_init(struct gpuvm_progress *p, enum gpuvm_progress_mode mode,
			 double interval_s, FILE *out, const char *label);

/* The workload's own estimate of its thread accesses (0 = none). */
void gpuvm_progress_expect(struct gpuvm_progress *p, uint64_t thread_accesses);

/* The gpuvm_progress_fn: ctx is a struct gpuvm_progress. */
void gpuvm_progress_report(void *ctx, const struct gpuvm_progress_sample *s);

/* Ends an open live line (call once the run is over). */
void gpuvm_progress_finish(struct gpuvm_progress *p);

/* Monotonic wall-clock seconds (for batch lines of commands that run many
 * simulations: sweep, validate). */
double gpuvm_progress_wall_seconds(void);

/* CPU seconds of this process (all threads) so far. */
double gpuvm_progress_cpu_seconds(void);

/* Writes a duration the way progress lines do: 42s, 12m05s, 3h20m. */
void gpuvm_progress_format_duration(double seconds, char *buf, size_t len);

#endif
