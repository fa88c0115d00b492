/* Pluggable policies ("modules"), one descriptor each.
 *
 * Contract:
 *  - Every policy a config can choose by name - prefetcher, eviction,
 *    migration, thrashing detection, TLB sharing scheme, L1 replacement,
 *    warp scheduler (and, once the engine makes it pluggable, CTA
 *    placement) - is one `const struct gpuvm_module` in its own source file,
 *    listed once in src/core/module_registry.c. Nothing else names it: the
 *    config's "known:" messages, key help, `gpuvm presets --modules` and the
 *    CLI help are generated from this registry.
 *  - A module's tunables are its parameter rows. The row holds the default,
 *    the accepted range and the unit; the config key is
 *    `<selecting key>.<module>.<param>` (uvm.prefetcher.tree-driver.threshold)
 *    and is settable from a preset ([uvm.prefetcher.tree-driver]
 *    threshold = 60) or --set, checked against the row's range with a
 *    message naming the key. A parameter left at its default is not listed
 *    in reports (so reports of runs that do not touch it stay as they were).
 *    A parameter may be a choice among names (`values`), and one that
 *    predates the registry keeps its old key (`compat_key`): the TLB
 *    sharing schemes' neidty.* and valkyrie.* keys.
 *  - `ops` is the kind's ops table (struct uvm_prefetch_ops, uvm_evict_ops,
 *    uvm_migrate_ops, xlat_peer_ops, l1_repl_ops, ...); the component that
 *    runs the policy resolves the parameter values with
 *    gpuvm_module_params() when it creates the policy.
 * Primary-source shape: nvidia-uvm's perf modules (uvm_perf_module.h: a
 * module registers callbacks for events and keeps per-block data) and its
 * module parameters with DEFAULT/MIN/MAX checked at init
 * (uvm_perf_prefetch.c, uvm_perf_prefetch_init). */
#ifndef GPUVM_MODULE_H
#define GPUVM_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gpuvm_config;

enum gpuvm_module_kind {
	GPUVM_MODULE_PREFETCH = 0, /* uvm.prefetcher (and uvm.prefetcher_oversub) */
	GPUVM_MODULE_EVICT,        /* uvm.eviction */
	GPUVM_MODULE_MIGRATE,      /* uvm.migration */
	GPUVM_MODULE_THRASHING,    /* uvm.thrashing (on selects the driver's module) */
	GPUVM_MODULE_PEER,         /* tlb.lN.peer */
	GPUVM_MODULE_L1_REPLACEMENT, /* l1.replacement */
	GPUVM_MODULE_WARP_SCHEDULER, /* core.warp_scheduler */
	GPUVM_MODULE_CTA_PLACEMENT,  /* reserved: the CTA dispatcher */
	GPUVM_MODULE_KINDS,
};

/* Room for every module's parameters in struct gpuvm_config. */
#define GPUVM_MODULE_PARAMS_MAX 48
/* Parameters of one module at most. */
#define GPUVM_MODULE_PARAMS_EACH 12

struct gpuvm_module_param {
	const char *key;   /* short name, [a-z0-9_]: "threshold" */
	double def, min, max; /* default and inclusive range */
	bool integer;      /* only whole numbers */
	const char *unit;  /* "percent", "pages", "us", "lapses", "events", ... */
	const char *help;  /* one line, with the default's primary source */
	/* A choice rather than a number: its names, value i naming choice i
	 * (the config accepts and reports the names); NULL for numbers. */
	const char *const *values;
	uint32_t n_values;
	/* A parameter older than the registry keeps the key it had ("neidty.
	 * entries") and that key's place in reports and config_hash, so runs
	 * that name it read and report as before; its value lives in the
	 * config field of that key, the row above is still its only default,
	 * range and help. NULL: the key is <selecting key>.<module>.<key>. */
	const char *compat_key;
};

struct gpuvm_module {
	enum gpuvm_module_kind kind;
	const char *name;  /* as the config names it */
	const char *help;  /* one line */
	const struct gpuvm_module_param *params;
	uint32_t n_params;
	const void *ops;   /* the kind's ops table */
};

/* Every registered module, in registry order (kinds grouped). */
size_t gpuvm_module_count(void);
const struct gpuvm_module *gpuvm_module_at(size_t i);
/* The module of kind named name, or NULL. */
const struct gpuvm_module *gpuvm_module_find(enum gpuvm_module_kind kind, const char *name);

/* "prefetch", "evict", ... */
const char *gpuvm_module_kind_name(enum gpuvm_module_kind kind);
/* The config key that selects a module of kind ("uvm.prefetcher"; for
 * peer schemes "tlb.peer", standing for every tlb.lN.peer); the prefix of
 * its modules' parameter keys. */
const char *gpuvm_module_kind_key(enum gpuvm_module_kind kind);
/* "none, random, ..." (the kind's module names, registry order). */
const char *gpuvm_module_names(enum gpuvm_module_kind kind);

/* The full config key of m's parameter i into buf: "uvm.prefetcher.tree-driver.threshold"
 * (or its compat_key). */
void gpuvm_module_param_key(const struct gpuvm_module *m, uint32_t i, char *buf, size_t len);
/* Index of m's parameter i in struct gpuvm_config's module_params[]. */
uint32_t gpuvm_module_param_slot(const struct gpuvm_module *m, uint32_t i);
/* gpuvm_module_params (a module's values under a config) is declared in
 * gpuvm/config.h: the values live in the config, a layer above the
 * registry (docs/layers.tsv). */

#endif
