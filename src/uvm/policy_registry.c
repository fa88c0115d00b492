/* The prefetcher and eviction-policy modules, by name. Adding a policy:
 * write src/uvm/prefetch_NAME.c or evict_NAME.c with its ops table and
 * list it here; nothing else changes. */
#include <string.h>

#include "gpuvm/uvm.h"
#include "uvm/evict.h"
#include "uvm/migrate.h"
#include "uvm/prefetch.h"

extern const struct uvm_prefetch_ops uvm_prefetch_none, uvm_prefetch_random,
	uvm_prefetch_seq_local, uvm_prefetch_locality, uvm_prefetch_tree_uvmsmart,
	uvm_prefetch_tree_driver;
extern const struct uvm_evict_ops uvm_evict_lru_2mb_alloc, uvm_evict_lru_2mb_access,
	uvm_evict_lru_4kb, uvm_evict_random_4kb, uvm_evict_sl_64kb, uvm_evict_tree,
	uvm_evict_lfu_2mb, uvm_evict_lfu_ac;
extern const struct uvm_migrate_ops uvm_migrate_first_touch, uvm_migrate_always, uvm_migrate_oversub,
	uvm_migrate_adaptive;

static const struct uvm_prefetch_ops *const prefetchers[] = {
	&uvm_prefetch_none,     &uvm_prefetch_random,        &uvm_prefetch_seq_local,
	&uvm_prefetch_locality, &uvm_prefetch_tree_uvmsmart, &uvm_prefetch_tree_driver,
};
static const struct uvm_evict_ops *const evictions[] = {
	&uvm_evict_lru_2mb_alloc, &uvm_evict_lru_2mb_access, &uvm_evict_lru_4kb,
	&uvm_evict_random_4kb,    &uvm_evict_sl_64kb,        &uvm_evict_tree,
	&uvm_evict_lfu_2mb,       &uvm_evict_lfu_ac,
};
static const struct uvm_migrate_ops *const migrations[] = {
	&uvm_migrate_first_touch, &uvm_migrate_always, &uvm_migrate_oversub, &uvm_migrate_adaptive,
};
#define N_PREFETCH (sizeof prefetchers / sizeof prefetchers[0])
#define N_EVICT (sizeof evictions / sizeof evictions[0])
#define N_MIGRATE (sizeof migrations / sizeof migrations[0])

/* Info views share the ops tables' first two members. */
static struct gpuvm_uvm_policy_info prefetch_info[N_PREFETCH], evict_info[N_EVICT], migrate_info[N_MIGRATE];

const struct uvm_prefetch_ops *uvm_prefetch_find(const char *name)
{
	for (size_t i = 0; i < N_PREFETCH; i++)
		if (strcmp(prefetchers[i]->name, name) == 0)
			return prefetchers[i];
	return NULL;
}

const struct uvm_evict_ops *uvm_evict_find(const char *name)
{
	for (size_t i = 0; i < N_EVICT; i++)
		if (strcmp(evictions[i]->name, name) == 0)
			return evictions[i];
	return NULL;
}

size_t gpuvm_uvm_prefetcher_count(void) { return N_PREFETCH; }
size_t gpuvm_uvm_eviction_count(void) { return N_EVICT; }

const struct gpuvm_uvm_policy_info *gpuvm_uvm_prefetcher_info(size_t i)
{
	if (i >= N_PREFETCH)
		return NULL;
	prefetch_info[i] = (struct gpuvm_uvm_policy_info){prefetchers[i]->name, prefetchers[i]->help};
	return &prefetch_info[i];
}

const struct gpuvm_uvm_policy_info *gpuvm_uvm_eviction_info(size_t i)
{
	if (i >= N_EVICT)
		return NULL;
	evict_info[i] = (struct gpuvm_uvm_policy_info){evictions[i]->name, evictions[i]->help};
	return &evict_info[i];
}

bool gpuvm_uvm_prefetcher_known(const char *name) { return uvm_prefetch_find(name) != NULL; }
bool gpuvm_uvm_eviction_known(const char *name) { return uvm_evict_find(name) != NULL; }

const struct uvm_migrate_ops *uvm_migrate_find(const char *name)
{
	for (size_t i = 0; i < N_MIGRATE; i++)
		if (strcmp(migrations[i]->name, name) == 0)
			return migrations[i];
	return NULL;
}

size_t gpuvm_uvm_migration_count(void) { return N_MIGRATE; }

const struct gpuvm_uvm_policy_info *gpuvm_uvm_migration_info(size_t i)
{
	if (i >= N_MIGRATE)
		return NULL;
	migrate_info[i] = (struct gpuvm_uvm_policy_info){migrations[i]->name, migrations[i]->help};
	return &migrate_info[i];
}

bool gpuvm_uvm_migration_known(const char *name) { return uvm_migrate_find(name) != NULL; }
