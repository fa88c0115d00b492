/* Prefetchers: given one VA block's state at a fault, which other pages
 * to migrate with the faulted ones. Each is a module (prefetch_*.c): an
 * ops table and a descriptor (gpuvm/module.h) listed in
 * module_registry.c, whose parameter rows are its tunables; the engine
 * never names one. */
#ifndef GPUVM_UVM_PREFETCH_H
#define GPUVM_UVM_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/splitmix.h"
#include "gpuvm/module.h"
#include "uvm/uvm_page.h"

struct uvm_prefetch_ctx {
	const uint64_t *resident;  /* pages resident or in flight */
	const uint64_t *faulted;   /* pages faulted now (not resident) */
	uint32_t first_page, end_page; /* managed pages of the block */
	bool preferred_here;       /* the GPU is the preferred location (tree-driver first touch) */
	uint64_t *rng;             /* splitmix state for random choices */
	/* the module's parameter values in row order (gpuvm_module_params);
	 * NULL: the rows' defaults */
	const double *params;
};

struct uvm_prefetch_ops {
	/* name and help live in the module descriptor (gpuvm/module.h) */
	/* Sets in out the pages to prefetch; the caller drops resident,
	 * faulted and unmanaged pages from it. out starts cleared. */
	void (*compute)(const struct uvm_prefetch_ctx *c, uint64_t *out);
};

const struct uvm_prefetch_ops *uvm_prefetch_find(const char *name);

/* Parameter i of the running prefetcher m: c->params[i], or the row's
 * default when the caller passed none (unit tests). */
static inline double uvm_prefetch_param(const struct uvm_prefetch_ctx *c, const struct gpuvm_module_param *rows,
					uint32_t i)
{
	return c->params ? c->params[i] : rows[i].def;
}

#endif
