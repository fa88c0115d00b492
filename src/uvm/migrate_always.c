/* always: Volta's static access-counter delayed migration from the start
 * (seeds/004 II-C and VI item 2, "Always"): a read migrates its page
 * once its 64 KB block has been accessed t_s times; before that it is
 * served remotely. UVMSmart -enable_dma 2. */
#include "uvm/migrate.h"
#include "gpuvm/module.h"

static uint32_t always_threshold(const struct uvm_migrate_ctx *c)
{
	return c->ts;
}

static const struct uvm_migrate_ops ops = {
	.delays = true,
	.threshold = always_threshold,
};

const struct gpuvm_module gpuvm_module_migrate_always = {
	.kind = GPUVM_MODULE_MIGRATE,
	.name = "always",
	.help = "static threshold t_s from the start (seeds/004 Always)",
	.ops = &ops,
};
