/* A system spec with modifiers: "NAME[:gpus=N][,nvlink=off]" (gpuvm/
 * sysdesc.h, gpuvm_sysdesc_load_spec).
 *
 * Contract:
 *  - Owns: the modifiers' grammar and the cut of a description they make.
 *    gpus=N keeps GPUs 0..N-1 and the links among what is kept (an
 *    NVSwitch keeps the kept GPUs' ports; a CPU left without a link goes,
 *    the rest are renumbered in order), so "dgx-h100-8:gpus=4" is four of
 *    the eight GPUs on the same switch: the scaling experiments' machine
 *    at 1, 2, 4 and 8 GPUs. nvlink=off drops every nvlink and nvswitch
 *    link: GPUs then reach each other only through their hosts (the
 *    comparison of peer copies over NVLink against staged ones).
 *  - May call: gpuvm_sysdesc_load.
 *  - Guarantees: a bad modifier is refused naming it ("--system: ...").
 *    The cut keeps every number of what stays; the description is not
 *    re-checked for connectivity (a GPU with nvlink=off reaches another
 *    through host memory, which the engine models over each GPU's own
 *    host link). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"
#include "gpuvm/sysdesc.h"

static bool link_has_gpu_past(const struct gpuvm_sys_link *l, uint32_t n_gpus)
{
	for (uint32_t e = 0; e < l->n_ends; e++)
		if (!l->ends[e].cpu && l->ends[e].index >= n_gpus)
			return true;
	return false;
}

static void cut(struct gpuvm_sysdesc *d, uint32_t n_gpus, bool nvlink_off)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->n_links; i++) {
		struct gpuvm_sys_link l = d->links[i];
		bool gpu_link = l.kind == GPUVM_LINK_NVLINK || l.kind == GPUVM_LINK_NVSWITCH;
		if (nvlink_off && gpu_link)
			continue;
		if (l.kind == GPUVM_LINK_NVSWITCH) {
			uint32_t k = 0;
			for (uint32_t e = 0; e < l.n_ends; e++)
				if (l.ends[e].cpu || l.ends[e].index < n_gpus)
					l.ends[k++] = l.ends[e];
			l.n_ends = k;
			if (k < 2)
				continue;
		} else if (link_has_gpu_past(&l, n_gpus)) {
			continue;
		}
		d->links[n++] = l;
	}
	d->n_links = n;
	d->n_gpus = n_gpus;
	/* CPUs still linked, renumbered in order */
	uint32_t map[GPUVM_SYS_MAX_CPUS], nc = 0;
	for (uint32_t c = 0; c < d->n_cpus; c++) {
		bool used = false;
		for (uint32_t i = 0; i < d->n_links; i++)
			for (uint32_t e = 0; e < d->links[i].n_ends; e++)
				used |= d->links[i].ends[e].cpu && d->links[i].ends[e].index == c;
		map[c] = used ? nc : UINT32_MAX;
		if (used)
			d->cpus[nc++] = d->cpus[c];
	}
	d->n_cpus = nc;
	for (uint32_t i = 0; i < d->n_links; i++)
		for (uint32_t e = 0; e < d->links[i].n_ends; e++)
			if (d->links[i].ends[e].cpu)
				d->links[i].ends[e].index = map[d->links[i].ends[e].index];
}

int gpuvm_sysdesc_load_spec(struct gpuvm_sysdesc *d, const char *spec, struct gpuvm_error *err)
{
	const char *colon = strrchr(spec, ':');
	if (!colon || (strncmp(colon + 1, "gpus=", 5) && strncmp(colon + 1, "nvlink=", 7)))
		return gpuvm_sysdesc_load(d, spec, err);
	char name[1024];
	if ((size_t)(colon - spec) >= sizeof name)
		return gpuvm_fail(err, "--system", 0, NULL, "name too long");
	memcpy(name, spec, (size_t)(colon - spec));
	name[colon - spec] = 0;
	if (gpuvm_sysdesc_load(d, name, err))
		return -1;
	uint64_t n_gpus = d->n_gpus;
	bool nvlink_off = false, seen_gpus = false, seen_nvlink = false;
	char mods[256];
	snprintf(mods, sizeof mods, "%s", colon + 1);
	for (char *save = NULL, *m = strtok_r(mods, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		if (!strncmp(m, "gpus=", 5) && !seen_gpus) {
			seen_gpus = true;
			if (gpuvm_parse_u64(m + 5, &n_gpus) || n_gpus < 1 || n_gpus > d->n_gpus)
				return gpuvm_fail(err, "--system", 0, NULL,
						  "'%s': gpus= takes 1 to %u (the GPUs of '%s')", spec,
						  d->n_gpus, d->name);
		} else if (!strncmp(m, "nvlink=", 7) && !seen_nvlink) {
			seen_nvlink = true;
			if (strcmp(m + 7, "off") && strcmp(m + 7, "on"))
				return gpuvm_fail(err, "--system", 0, NULL,
						  "'%s': nvlink= takes on or off", spec);
			nvlink_off = !strcmp(m + 7, "off");
		} else {
			return gpuvm_fail(err, "--system", 0, NULL,
					  "'%s': unknown or repeated modifier '%s' (NAME:gpus=N,nvlink=off)",
					  spec, m);
		}
	}
	cut(d, (uint32_t)n_gpus, nvlink_off);
	char full[64];
	snprintf(full, sizeof full, "%.40s:%.22s", d->name, colon + 1);
	memcpy(d->name, full, sizeof d->name);
	return 0;
}
