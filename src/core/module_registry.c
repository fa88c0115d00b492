/* The module registry (gpuvm/module.h): every pluggable policy's
 * descriptor, in one table. Adding a policy is its own file (ops table +
 * descriptor, e.g. src/uvm/prefetch_NAME.c) plus one line in
 * GPUVM_MODULE_LIST below; the config's "known:" lists, the key help, the
 * parameter keys and `gpuvm presets --modules` are generated from it.
 *
 * It is part of the shared base (src/core, layer 0 of docs/layers.tsv),
 * as Ramulator 2 keeps its factory in src/base: the config (which checks
 * names and holds parameter values, gpuvm_module_params in
 * src/config/config_modules.c) and every component that runs a policy
 * (uvm, xlat, mem) look modules up here, and this file includes none of
 * them. It names each descriptor by an extern declaration only: the
 * descriptors are defined in the policies' own files, above it, which
 * is a link-time reference the include graph does not draw.
 *
 * Why a listed table and not a linker section or constructors: a static
 * const table is portable C11, keeps the order the messages print in
 * (the order users have always seen), and a module that is not listed
 * cannot be half-registered: a module file whose descriptor is missing
 * here is an unused symbol, which tests/test_modules.c catches by asking
 * for every module of every kind by name. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpuvm/module.h"

/* kinds grouped; within a kind, the order of listings and messages */
#define GPUVM_MODULE_LIST                                                                   \
	X(prefetch_none) X(prefetch_random) X(prefetch_seq_local) X(prefetch_locality)      \
	X(prefetch_tree_uvmsmart) X(prefetch_tree_driver) X(prefetch_next_n)                \
	X(evict_lru_2mb_alloc) X(evict_lru_2mb_access) X(evict_lru_4kb)                     \
	X(evict_random_4kb) X(evict_sl_64kb) X(evict_tree) X(evict_lfu_2mb) X(evict_lfu_ac) X(evict_lfu_uvmsmart) \
	X(migrate_first_touch) X(migrate_always) X(migrate_oversub) X(migrate_adaptive)     \
	X(thrashing_driver)                                                                 \
	X(peer_none) X(peer_neidty) X(peer_valkyrie)                                        \
	X(l1_repl_lru) X(l1_repl_fifo) X(l1_repl_srrip)                                    \
	X(warp_sched_first_ready) X(warp_sched_gto)

#define X(sym) extern const struct gpuvm_module gpuvm_module_##sym;
GPUVM_MODULE_LIST
#undef X

static const struct gpuvm_module *const modules[] = {
#define X(sym) &gpuvm_module_##sym,
	GPUVM_MODULE_LIST
#undef X
};
#define N_MODULES (sizeof modules / sizeof modules[0])

static const char *const kind_names[GPUVM_MODULE_KINDS] = {
	"prefetch", "evict", "migrate", "thrashing", "peer", "l1-replacement",
	"warp-scheduler", "cta-placement",
};
static const char *const kind_keys[GPUVM_MODULE_KINDS] = {
	"uvm.prefetcher", "uvm.eviction", "uvm.migration", "uvm.thrashing", "tlb.peer",
	"l1.replacement", "core.warp_scheduler", "gpu.cta_placement",
};

size_t gpuvm_module_count(void) { return N_MODULES; }

const struct gpuvm_module *gpuvm_module_at(size_t i) { return i < N_MODULES ? modules[i] : NULL; }

const struct gpuvm_module *gpuvm_module_find(enum gpuvm_module_kind kind, const char *name)
{
	for (size_t i = 0; i < N_MODULES; i++)
		if (modules[i]->kind == kind && strcmp(modules[i]->name, name) == 0)
			return modules[i];
	return NULL;
}

const char *gpuvm_module_kind_name(enum gpuvm_module_kind kind)
{
	return (unsigned)kind < GPUVM_MODULE_KINDS ? kind_names[kind] : "?";
}

const char *gpuvm_module_kind_key(enum gpuvm_module_kind kind)
{
	return (unsigned)kind < GPUVM_MODULE_KINDS ? kind_keys[kind] : "?";
}

static char names_of[GPUVM_MODULE_KINDS][256];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_build(void)
{
	for (size_t i = 0; i < N_MODULES; i++) {
		char *s = names_of[modules[i]->kind];
		size_t used = strlen(s);
		snprintf(s + used, sizeof names_of[0] - used, "%s%s", used ? ", " : "", modules[i]->name);
	}
}

const char *gpuvm_module_names(enum gpuvm_module_kind kind)
{
	if ((unsigned)kind >= GPUVM_MODULE_KINDS)
		return "";
	pthread_once(&names_once, names_build);
	return names_of[kind];
}

void gpuvm_module_param_key(const struct gpuvm_module *m, uint32_t i, char *buf, size_t len)
{
	if (m->params[i].compat_key)
		snprintf(buf, len, "%s", m->params[i].compat_key);
	else
		snprintf(buf, len, "%s.%s.%s", gpuvm_module_kind_key(m->kind), m->name,
			 m->params[i].key);
}

uint32_t gpuvm_module_param_slot(const struct gpuvm_module *m, uint32_t i)
{
	uint32_t slot = 0;
	for (size_t k = 0; k < N_MODULES && modules[k] != m; k++)
		slot += modules[k]->n_params;
	return slot + i;
}
