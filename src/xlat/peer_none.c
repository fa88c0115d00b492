/* peer = none: private TLB instances that never serve each other, the
 * baseline of Du et al. (seeds/002 IV.A: "L1 TLBs are private and cannot
 * communicate with each other"). A level with this scheme takes the fast
 * path of xlat.c unless another level has a scheme or the sharing
 * analysis is on. */
#include "xlat/peer.h"
#include "gpuvm/module.h"

static void *none_create(struct xlat *x, uint32_t l, const struct gpuvm_config *cfg, char *why,
			 size_t wlen)
{
	(void)x, (void)l, (void)cfg, (void)why, (void)wlen;
	static char token;
	return &token;
}

static void none_destroy(void *st) { (void)st; }

static const struct xlat_peer_ops ops = {
	.create = none_create,
	.destroy = none_destroy,
};

const struct gpuvm_module gpuvm_module_peer_none = {
	.kind = GPUVM_MODULE_PEER,
	.name = "none",
	.help = "private instances, no sharing (the baseline)",
	.ops = &ops,
};
