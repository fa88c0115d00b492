/* oversub: first-touch migration until device memory is oversubscribed
 * (eviction has started), then the static threshold t_s (seeds/004 VI
 * item 3, "Oversub"; UVMSmart -enable_dma 3). */
#include "uvm/migrate.h"
#include "gpuvm/module.h"

static uint32_t oversub_threshold(const struct uvm_migrate_ctx *c)
{
	return c->oversubscribed ? c->ts : 1;
}

static const struct uvm_migrate_ops ops = {
	.delays = true,
	.threshold = oversub_threshold,
};

const struct gpuvm_module gpuvm_module_migrate_oversub = {
	.kind = GPUVM_MODULE_MIGRATE,
	.name = "oversub",
	.help = "first touch until eviction starts, then static t_s (seeds/004 Oversub)",
	.ops = &ops,
};
