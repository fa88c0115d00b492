/* Kernel sampling with functional fast-forward (cf. Accel-Sim's kernel
 * sampling and Principal Kernel Analysis; Photon, MICRO'23): launches of a
 * class run in detail until the last min_detailed of them agree on
 * simulated cycles per warp instruction within the tolerance; later
 * launches are charged that mean per warp instruction they execute, and
 * their memory-system counters are scaled from the detailed launches'
 * rates per thread access. Warp instructions, memory instructions and
 * thread accesses stay exact, as does the workload's functional result:
 * the engine still drives every warp of a fast-forwarded launch. */
#include "system/kernel_sampling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gpuvm_kernel_sampling_estimated[] = {
	"sim_cycles", "sim_seconds", "kernel_seconds", "sectors", "lines", "translation_units",
	"tlb", "walks", "pwc_hits", "walk_queue_cycles", "l2_sector_hits", "l2_sector_misses",
	"dram_bytes", "pcie_h2d_bytes", "pcie_d2h_bytes", "zero_copy_bytes", "zero_copy_tlps", NULL,
};

/* Every estimated counter of s, in one fixed order: copied into out
 * (when given) and/or increased by add (when given; rounded for integer
 * counters). Returns how many there are. One visitor keeps the snapshot,
 * the deltas and the charge in step. */
static size_t visit_counters(struct gpuvm_stats *s, double *out, const double *add)
{
	size_t i = 0;
#define KS_U64(f)                                                  \
	do {                                                       \
		if (out)                                           \
			out[i] = (double)(f);                      \
		if (add)                                           \
			(f) += (uint64_t)llround(add[i]);          \
		i++;                                               \
	} while (0)
#define KS_DBL(f)                    \
	do {                         \
		if (out)             \
			out[i] = (f);\
		if (add)             \
			(f) += add[i];\
		i++;                 \
	} while (0)
	KS_U64(s->sectors);
	KS_U64(s->lines);
	KS_U64(s->xlat_units);
	for (uint32_t l = 0; l < s->tlb_levels; l++) {
		struct gpuvm_tlb_level_stats *t = &s->tlb[l];
		KS_U64(t->lookups);
		KS_U64(t->hits);
		KS_U64(t->pending_hits);
		KS_U64(t->misses);
		KS_DBL(t->mshr_wait_cycles);
		for (uint32_t k = 0; k < t->instances; k++) {
			if (t->instance_hits)
				KS_U64(t->instance_hits[k]);
			if (t->instance_misses)
				KS_U64(t->instance_misses[k]);
		}
	}
	KS_U64(s->walks);
	KS_U64(s->pwc_hits);
	KS_DBL(s->walk_queue_cycles);
	KS_U64(s->l2_sector_hits);
	KS_U64(s->l2_sector_misses);
	KS_U64(s->dram_bytes);
	KS_U64(s->pcie_h2d_bytes);
	KS_U64(s->pcie_d2h_bytes);
	KS_U64(s->zero_copy_bytes);
	KS_U64(s->zero_copy_tlps);
#undef KS_U64
#undef KS_DBL
	return i;
}

int kernel_sampler_init(struct kernel_sampler *ks, const struct gpuvm_sim_options *opt,
			struct gpuvm_stats *stats)
{
	memset(ks, 0, sizeof *ks);
	ks->stats = stats;
	ks->on = opt && opt->kernel_sampling;
	ks->tolerance = opt && opt->kernel_sampling_tolerance > 0 ? opt->kernel_sampling_tolerance
								  : GPUVM_KERNEL_SAMPLING_TOLERANCE;
	ks->min_detailed = opt && opt->kernel_sampling_min_detailed
				   ? opt->kernel_sampling_min_detailed
				   : GPUVM_KERNEL_SAMPLING_MIN_DETAILED;
	stats->kernel_sampling.enabled = ks->on;
	stats->kernel_sampling.tolerance = ks->on ? ks->tolerance : 0;
	stats->kernel_sampling.min_detailed = ks->on ? ks->min_detailed : 0;
	if (!ks->on)
		return 0;
	ks->n_counters = visit_counters(stats, NULL, NULL);
	ks->before = calloc(ks->n_counters, sizeof *ks->before);
	ks->after = calloc(ks->n_counters, sizeof *ks->after);
	return ks->before && ks->after ? 0 : -1;
}

void kernel_sampler_free(struct kernel_sampler *ks)
{
	for (size_t i = 0; i < ks->n_classes; i++) {
		struct ks_class *c = &ks->classes[i];
		if (c->ring)
			for (uint32_t j = 0; j < ks->min_detailed; j++)
				free(c->ring[j].counters);
		free(c->ring);
		free(c->counters_per_access);
	}
	free(ks->classes);
	free(ks->before);
	free(ks->after);
	memset(ks, 0, sizeof *ks);
}

static bool same_class(const struct ks_class *c, const struct gpuvm_kernel *k)
{
	return c->ops == k->ops && c->sample_class == k->sample_class &&
	       !memcmp(c->grid, k->grid, sizeof c->grid) &&
	       !memcmp(c->block, k->block, sizeof c->block);
}

struct ks_class *kernel_sampler_class(struct kernel_sampler *ks, const struct gpuvm_kernel *k)
{
	/* a handful of classes per run: a linear scan is enough */
	for (size_t i = 0; i < ks->n_classes; i++)
		if (same_class(&ks->classes[i], k))
			return &ks->classes[i];
	if (ks->n_classes == ks->cap_classes) {
		size_t cap = ks->cap_classes ? 2 * ks->cap_classes : 8;
		struct ks_class *p = realloc(ks->classes, cap * sizeof *p);
		if (!p)
			return NULL;
		ks->classes = p;
		ks->cap_classes = cap;
	}
	struct ks_class *c = &ks->classes[ks->n_classes];
	memset(c, 0, sizeof *c);
	c->ops = k->ops;
	c->sample_class = k->sample_class;
	memcpy(c->grid, k->grid, sizeof c->grid);
	memcpy(c->block, k->block, sizeof c->block);
	c->ring = calloc(ks->min_detailed, sizeof *c->ring);
	c->counters_per_access = calloc(ks->n_counters ? ks->n_counters : 1, sizeof(double));
	bool ok = c->ring && c->counters_per_access;
	for (uint32_t j = 0; ok && j < ks->min_detailed; j++)
		ok = (c->ring[j].counters = calloc(ks->n_counters ? ks->n_counters : 1,
						   sizeof(double))) != NULL;
	if (!ok) {
		if (c->ring)
			for (uint32_t j = 0; j < ks->min_detailed; j++)
				free(c->ring[j].counters);
		free(c->ring);
		free(c->counters_per_access);
		return NULL;
	}
	ks->n_classes++;
	ks->stats->kernel_sampling.classes = ks->n_classes;
	return c;
}

void kernel_sampler_refuse(struct kernel_sampler *ks, const char *why)
{
	char *r = ks->stats->kernel_sampling.refused;
	if (!r[0])
		snprintf(r, sizeof ks->stats->kernel_sampling.refused, "%s", why);
}

void kernel_sampler_begin(struct kernel_sampler *ks)
{
	visit_counters(ks->stats, ks->before, NULL);
}

void kernel_sampler_record(struct kernel_sampler *ks, struct ks_class *c, double exec_cycles,
			   uint64_t warp_insts, uint64_t thread_accesses)
{
	uint32_t n = ks->min_detailed;
	struct ks_sample *smp = &c->ring[c->detailed % n];
	c->detailed++;
	visit_counters(ks->stats, ks->after, NULL);
	for (size_t i = 0; i < ks->n_counters; i++)
		smp->counters[i] = ks->after[i] - ks->before[i];
	smp->exec_cycles = exec_cycles;
	smp->warp_insts = warp_insts;
	smp->thread_accesses = thread_accesses;
	if (c->detailed < n)
		return;

	/* Converged when the last n agree on cycles per warp instruction:
	 * max/min - 1 <= tolerance. Rates are not compared for launches that
	 * did no work. */
	double lo = INFINITY, hi = 0, cycles = 0, insts = 0, accesses = 0;
	for (uint32_t j = 0; j < n; j++) {
		const struct ks_sample *r = &c->ring[j];
		if (!r->warp_insts)
			return;
		double cpi = r->exec_cycles / (double)r->warp_insts;
		lo = cpi < lo ? cpi : lo;
		hi = cpi > hi ? cpi : hi;
		cycles += r->exec_cycles;
		insts += (double)r->warp_insts;
		accesses += (double)r->thread_accesses;
	}
	if (!(lo > 0) || hi / lo - 1 > ks->tolerance)
		return;
	c->converged = true;
	/* instruction-weighted mean: total cycles over total instructions */
	c->cycles_per_warp_inst = cycles / insts;
	for (size_t i = 0; i < ks->n_counters; i++) {
		double sum = 0;
		for (uint32_t j = 0; j < n; j++)
			sum += c->ring[j].counters[i];
		c->counters_per_access[i] = accesses > 0 ? sum / accesses : 0;
	}
}

void kernel_sampler_charge(struct kernel_sampler *ks, const struct ks_class *c,
			   uint64_t thread_accesses)
{
	double *add = ks->after;
	for (size_t i = 0; i < ks->n_counters; i++)
		add[i] = c->counters_per_access[i] * (double)thread_accesses;
	visit_counters(ks->stats, NULL, add);
}
