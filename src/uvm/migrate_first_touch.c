/* first-touch: every far fault migrates its page (and what the prefetcher
 * adds) at once; no remote access. Today's behaviour and the paper's
 * Baseline/Disabled scheme (seeds/004 VI, item 1). */
#include "uvm/migrate.h"

static uint32_t ft_threshold(const struct uvm_migrate_ctx *c)
{
	(void)c;
	return 1; /* the first access migrates */
}

const struct uvm_migrate_ops uvm_migrate_first_touch = {
	.name = "first-touch",
	.help = "migrate on every far fault (seeds/004 Baseline/Disabled)",
	.delays = false,
	.threshold = ft_threshold,
};
