#include "system/invariants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/l1_cache.h"
#include "mem/l2_cache.h"
#include "memsys/memsys.h"
#include "uvm/uvm.h"
#include "xlat/tlb.h"
#include "xlat/xlat.h"

int engine_check_invariants(const struct xlat *x, const struct l1_cache *l1,
			    const struct memsys *ms, const struct uvm *u, char *why, size_t len)
{
	int r;
	char inner[384];
	for (uint32_t l = 0; l < x->spec.levels; l++)
		for (uint32_t i = 0; i < x->level[l].spec.instances; i++)
			if ((r = tlb_check(&x->level[l].inst[i].tlb, inner, sizeof inner))) {
				snprintf(why, len, "TLB level %u instance %u: %s", l + 1, i, inner);
				return r;
			}
	if (x->spec.pwc_on && (r = tlb_check(&x->pwc, inner, sizeof inner))) {
		snprintf(why, len, "page-walk cache: %s", inner);
		return r;
	}
	if (l1 && (r = l1_cache_check(l1, why, len)))
		return r;
	for (uint32_t p = 0; ms && p < ms->n_parts; p++)
		if ((r = l2_cache_check(&ms->part[p].l2, inner, sizeof inner))) {
			snprintf(why, len, "memory partition %u: %s", p, inner);
			return r;
		}
	if (u && (r = uvm_check(u, why, len)))
		return r;
	return 0;
}

void engine_check_invariants_or_abort(const struct xlat *x, const struct l1_cache *l1,
				      const struct memsys *ms, const struct uvm *u,
				      const char *when, uint64_t kernel_index)
{
	char why[512];
	if (engine_check_invariants(x, l1, ms, u, why, sizeof why) == 0)
		return;
	fprintf(stderr, "gpuvm: invariant violated at the %s of kernel %llu: %s\n", when,
		(unsigned long long)kernel_index, why);
	abort();
}
