/* srrip: Static Re-Reference Interval Prediction (A. Jaleel, K.B. Theobald,
 * S.C. Steely Jr., J. Emer, "High Performance Cache Replacement Using
 * Re-Reference Interval Prediction (RRIP)", ISCA 2010, section 3), with
 * M = 2 bits of re-reference prediction value (RRPV) per line:
 *  - insertion: RRPV = 2^M - 2 = 2, a "long" re-reference interval, so a
 *    line that is never reused leaves before lines that were (scan
 *    resistance);
 *  - hit: RRPV = 0 (SRRIP-HP, hit priority: "near-immediate");
 *  - victim: the first way from the left with RRPV = 2^M - 1 = 3
 *    ("distant"); if none, every line of the set ages (RRPV + 1) and the
 *    search repeats.
 * A .CS (evict-first) fill is inserted distant (3) and its hits do not
 * promote it, the streaming hint's meaning. The RRPV lives in the line's
 * stamp word. */
#include "gpuvm/module.h"
#include "mem/l1_repl.h"

#define RRPV_MAX 3u    /* 2^M - 1, M = 2 */
#define RRPV_INSERT 2u /* 2^M - 2 */

static void srrip_on_hit(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first)
{
	(void)now;
	if (!evict_first)
		c->stamp[i] = 0;
}

static void srrip_on_fill(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first)
{
	(void)now;
	c->stamp[i] = evict_first ? RRPV_MAX : RRPV_INSERT;
}

static uint32_t srrip_victim(struct l1_cache *c, uint64_t base)
{
	for (;;) {
		for (uint32_t k = 0; k < c->ways; k++)
			if (c->stamp[base + k] >= RRPV_MAX)
				return k;
		for (uint32_t k = 0; k < c->ways; k++)
			c->stamp[base + k]++;
	}
}

static const struct l1_repl_ops ops = {
	.on_hit = srrip_on_hit,
	.on_fill = srrip_on_fill,
	.victim = srrip_victim,
	.uses_clock = false,
};

const struct gpuvm_module gpuvm_module_l1_repl_srrip = {
	.kind = GPUVM_MODULE_L1_REPLACEMENT,
	.name = "srrip",
	.help = "static re-reference interval prediction, 2-bit RRPV, hit priority (Jaleel et al. ISCA'10)",
	.ops = &ops,
};
