/* The UVM driver's policies by kind (uvm/prefetch.h, evict.h, migrate.h)
 * and their public listings (gpuvm/uvm.h): a view of the module registry
 * (gpuvm/module.h, src/core/module_registry.c). */
#include "gpuvm/module.h"
#include "gpuvm/uvm.h"
#include "uvm/evict.h"
#include "uvm/migrate.h"
#include "uvm/prefetch.h"

static const void *ops_of(enum gpuvm_module_kind kind, const char *name)
{
	const struct gpuvm_module *m = gpuvm_module_find(kind, name);
	return m ? m->ops : NULL;
}

const struct uvm_prefetch_ops *uvm_prefetch_find(const char *name)
{
	return ops_of(GPUVM_MODULE_PREFETCH, name);
}
const struct uvm_evict_ops *uvm_evict_find(const char *name) { return ops_of(GPUVM_MODULE_EVICT, name); }
const struct uvm_migrate_ops *uvm_migrate_find(const char *name)
{
	return ops_of(GPUVM_MODULE_MIGRATE, name);
}

/* The public listings (gpuvm/uvm.h): the i-th module of a kind. */
static const struct gpuvm_module *nth(enum gpuvm_module_kind kind, size_t i)
{
	for (size_t k = 0; k < gpuvm_module_count(); k++)
		if (gpuvm_module_at(k)->kind == kind && i-- == 0)
			return gpuvm_module_at(k);
	return NULL;
}

static size_t count_of(enum gpuvm_module_kind kind)
{
	size_t n = 0;
	for (size_t k = 0; k < gpuvm_module_count(); k++)
		n += gpuvm_module_at(k)->kind == kind;
	return n;
}

/* struct gpuvm_uvm_policy_info is the descriptor's kind-free prefix */
static const struct gpuvm_uvm_policy_info *info_of(const struct gpuvm_module *m)
{
	static _Thread_local struct gpuvm_uvm_policy_info info;
	if (!m)
		return NULL;
	info = (struct gpuvm_uvm_policy_info){m->name, m->help};
	return &info;
}

size_t gpuvm_uvm_prefetcher_count(void) { return count_of(GPUVM_MODULE_PREFETCH); }
size_t gpuvm_uvm_eviction_count(void) { return count_of(GPUVM_MODULE_EVICT); }
size_t gpuvm_uvm_migration_count(void) { return count_of(GPUVM_MODULE_MIGRATE); }
const struct gpuvm_uvm_policy_info *gpuvm_uvm_prefetcher_info(size_t i)
{
	return info_of(nth(GPUVM_MODULE_PREFETCH, i));
}
const struct gpuvm_uvm_policy_info *gpuvm_uvm_eviction_info(size_t i)
{
	return info_of(nth(GPUVM_MODULE_EVICT, i));
}
const struct gpuvm_uvm_policy_info *gpuvm_uvm_migration_info(size_t i)
{
	return info_of(nth(GPUVM_MODULE_MIGRATE, i));
}
bool gpuvm_uvm_prefetcher_known(const char *name)
{
	return uvm_prefetch_find(name) != NULL;
}
bool gpuvm_uvm_eviction_known(const char *name)
{
	return uvm_evict_find(name) != NULL;
}
bool gpuvm_uvm_migration_known(const char *name)
{
	return uvm_migrate_find(name) != NULL;
}
