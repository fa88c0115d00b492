/* always: Volta's static access-counter delayed migration from the start
 * (seeds/004 II-C and VI item 2, "Always"): a read migrates its page
 * once its 64 KB block has been accessed t_s times; before that it is
 * served remotely. UVMSmart -enable_dma 2. */
#include "uvm/migrate.h"

static uint32_t always_threshold(const struct uvm_migrate_ctx *c)
{
	return c->ts;
}

const struct uvm_migrate_ops uvm_migrate_always = {
	.name = "always",
	.help = "static threshold t_s from the start (seeds/004 Always)",
	.delays = true,
	.threshold = always_threshold,
};
