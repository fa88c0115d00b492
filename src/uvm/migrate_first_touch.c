/* first-touch: every far fault migrates its page (and what the prefetcher
 * adds) at once; no remote access. Today's behaviour and the paper's
 * Baseline/Disabled scheme (seeds/004 VI, item 1). */
#include "uvm/migrate.h"
#include "gpuvm/module.h"

static uint32_t ft_threshold(const struct uvm_migrate_ctx *c)
{
	(void)c;
	return 1; /* the first access migrates */
}

static const struct uvm_migrate_ops ops = {
	.delays = false,
	.threshold = ft_threshold,
};

const struct gpuvm_module gpuvm_module_migrate_first_touch = {
	.kind = GPUVM_MODULE_MIGRATE,
	.name = "first-touch",
	.help = "migrate on every far fault (seeds/004 Baseline/Disabled)",
	.ops = &ops,
};
