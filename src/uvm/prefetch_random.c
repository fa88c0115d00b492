/* random (Ganguly's Rp, Zheng's random prefetcher): one random invalid
 * 4 KB page of the faulted page's 2 MB region per fault
 * (UVMSmart gpu-sim.cc do_hardware_prefetch, -hardware_prefetch 3; Ganguly ISCA'19). */
#include "uvm/prefetch.h"
#include "gpuvm/module.h"

static void random_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	uint32_t invalid = 0;
	for (uint32_t p = c->first_page; p < c->end_page; p++)
		invalid += !mask_test(c->resident, p) && !mask_test(c->faulted, p);
	uint32_t faults = mask_count(c->faulted);
	for (uint32_t f = 0; f < faults && invalid; f++) {
		uint32_t k = (uint32_t)(splitmix64_next(c->rng) % invalid);
		for (uint32_t p = c->first_page; p < c->end_page; p++) {
			if (mask_test(c->resident, p) || mask_test(c->faulted, p) || mask_test(out, p))
				continue;
			if (k-- == 0) {
				mask_set(out, p);
				invalid--;
				break;
			}
		}
	}
}

static const struct uvm_prefetch_ops ops = {
	.compute = random_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_random = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "random",
	.help = "one random non-resident 4 KB page of the fault's 2 MB block per fault (Rp)",
	.ops = &ops,
};
