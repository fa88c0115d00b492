/* Per-allocation page-access maps (Ganguly et al. IPDPS'20 Fig. 2-3):
 * for every allocation, pages x time, each cell holding how often the
 * pages were accessed and whether any access wrote (store or atomic).
 *
 * Engine-independent: the recorder wraps any struct gpuvm_source and
 * passes every operation and warp item through unchanged, looking only at
 * the memory instructions as the engine pulls them. "Time" is the number
 * of memory warp instructions pulled so far over the whole run. The
 * engine pulls a warp's next item when that warp reaches it in simulated
 * time (its event loop is ordered by time), so this count grows
 * monotonically with simulated time and is a faithful, model-independent
 * proxy for it (what it loses is the stretch of slow phases: a stalled
 * phase issues few instructions and looks short).
 *
 * Memory is bounded whatever the run length: a fixed number of time
 * buckets (when time outgrows them, neighbouring buckets merge and the
 * bucket width doubles) and at most max_rows rows per allocation (a row
 * covers a power-of-two run of pages). */
#ifndef GPUVM_PAGE_ACCESS_H
#define GPUVM_PAGE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/error.h"
#include "gpuvm/stream.h"
#include "gpuvm/uvm.h"

struct gpuvm_page_access_opts {
	uint64_t page_bytes;   /* power of two; 0: 4 KiB */
	uint32_t time_buckets; /* even, >= 2; 0: 256 */
	uint32_t max_rows;     /* rows per allocation, >= 1; 0: 1024 */
	/* only the per-allocation totals (gpuvm_page_access_alloc_info: what
	 * --stats-csv and the run directory report), no cells: no map can be
	 * written (cells read as zero), paging decisions are not recorded,
	 * and no memory goes to the cells (17 bytes x buckets x rows per
	 * allocation) */
	bool totals_only;
};

struct gpuvm_page_access;

int gpuvm_page_access_create(const struct gpuvm_page_access_opts *opts,
			     struct gpuvm_page_access **out, struct gpuvm_error *err);
void gpuvm_page_access_destroy(struct gpuvm_page_access *pa);

/* Replaces *src by a source that forwards to it and records into pa. The
 * wrapper owns the original source (its destroy destroys both); pa stays
 * the caller's and must outlive the wrapper. On failure *src is left as
 * it was. */
int gpuvm_page_access_wrap(struct gpuvm_page_access *pa, struct gpuvm_source *src,
			   struct gpuvm_error *err);

/* An observer (gpuvm_sim_options.uvm_observer) that records the paging
 * layer's decisions into the map's cells, so the figure can colour each
 * cell by what was decided for its pages (Ganguly et al.'s choice between
 * migrating and accessing remotely). pa must outlive the run. */
void gpuvm_page_access_observer(struct gpuvm_page_access *pa, struct gpuvm_uvm_observer *out);
uint64_t gpuvm_page_access_decisions(const struct gpuvm_page_access *pa); /* recorded */

/* What the figure's colour shows: access intensity (blue read-only, red
 * read-write), or each cell's most frequent paging decision; AUTO is the
 * decisions when any was recorded. */
enum gpuvm_page_map_colour {
	GPUVM_PAGE_MAP_AUTO = 0,
	GPUVM_PAGE_MAP_ACCESS,
	GPUVM_PAGE_MAP_DECISION,
};

/* Writes the CSV alone to path (for a PREFIX that is a device or FIFO). */
int gpuvm_page_access_write_csv(const struct gpuvm_page_access *pa, const char *path,
				struct gpuvm_error *err);

/* Writes PREFIX.csv (one row per non-empty cell), PREFIX.json (run,
 * allocation and kernel summaries) and, when plot_path is not NULL, the
 * figure there (.png/.svg/.pdf, gnuplot), each through the output module
 * (gpuvm/output_file.h); the caller batches them to publish all or none. */
int gpuvm_page_access_write(const struct gpuvm_page_access *pa, const char *prefix,
			    const char *plot_path, enum gpuvm_page_map_colour colour,
			    struct gpuvm_error *err);

/* Queries, for tests and other tools. */
struct gpuvm_page_access_alloc {
	struct gpuvm_alloc alloc;
	uint64_t pages, pages_per_row;
	uint32_t rows;
	uint64_t accesses;        /* (instruction, page) pairs: an access counter's view */
	uint64_t thread_accesses; /* active lanes */
	uint64_t first_time, last_time; /* memory instructions; valid if accesses */
};

struct gpuvm_page_access_cell {
	uint64_t accesses, thread_accesses;
	bool written;
	/* paging decisions taken in the cell: pages, sector accesses for
	 * GPUVM_UVM_REMOTE (all 0 without an observer) */
	uint64_t decisions[GPUVM_UVM_DECISIONS];
};

struct gpuvm_page_access_kernel {
	const char *name;
	uint64_t first_time; /* memory instructions pulled before its first */
	uint64_t mem_insts;
};

uint64_t gpuvm_page_access_page_bytes(const struct gpuvm_page_access *pa);
uint64_t gpuvm_page_access_unattributed(const struct gpuvm_page_access *pa);
size_t gpuvm_page_access_kernels(const struct gpuvm_page_access *pa);
void gpuvm_page_access_kernel_info(const struct gpuvm_page_access *pa, size_t i,
				   struct gpuvm_page_access_kernel *out);
uint64_t gpuvm_page_access_mem_insts(const struct gpuvm_page_access *pa);
uint32_t gpuvm_page_access_buckets(const struct gpuvm_page_access *pa); /* in use */
uint64_t gpuvm_page_access_bucket_width(const struct gpuvm_page_access *pa);
size_t gpuvm_page_access_allocs(const struct gpuvm_page_access *pa);
void gpuvm_page_access_alloc_info(const struct gpuvm_page_access *pa, size_t i,
				  struct gpuvm_page_access_alloc *out);
void gpuvm_page_access_cell(const struct gpuvm_page_access *pa, size_t alloc, uint32_t row,
			    uint32_t bucket, struct gpuvm_page_access_cell *out);
/* The most frequent decision of a cell, or -1 when none (ties go to the
 * earlier decision in enum order). */
int gpuvm_page_access_cell_decision(const struct gpuvm_page_access_cell *c);

#endif
