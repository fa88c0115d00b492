/* One GPU of a system description as a run's configuration: its preset,
 * then what the system file says of that GPU (gpuvm/sysdesc.h holds the
 * contract of gpuvm_sysdesc_gpu_config).
 *
 * Contract:
 *  - Owns: the table below, the one place that maps a description's
 *    numbers onto preset keys. Each row names the config key, the
 *    description's value for one GPU (or none: the preset's stands) and
 *    why. A row is applied as a --set would be, with the system file and
 *    line as its origin, so a value out of the key's range is refused
 *    naming the system file.
 *  - May call: src/config (gpuvm_config_load, gpuvm_config_set).
 *  - Guarantees: a GPU the description says nothing more of gets its
 *    preset unchanged: a system of one (a preset read as a system) maps
 *    its PCIe link back onto the same pcie keys with the same values, so
 *    its run is the plain preset's, bit for bit (tests/cli/
 *    sim_system_identity.sh). The caller applies --set overrides and
 *    finalizes afterwards. */
#include <stdio.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/sysdesc.h"

const struct gpuvm_sys_link *gpuvm_sysdesc_host_link(const struct gpuvm_sysdesc *d, uint32_t gpu)
{
	const struct gpuvm_sys_link *pcie = NULL;
	for (uint32_t i = 0; i < d->n_links; i++) {
		const struct gpuvm_sys_link *l = &d->links[i];
		if (l->kind != GPUVM_LINK_PCIE && l->kind != GPUVM_LINK_NVLINK_C2C)
			continue;
		bool mine = false;
		for (uint32_t e = 0; e < l->n_ends; e++)
			mine |= !l->ends[e].cpu && l->ends[e].index == gpu;
		if (!mine)
			continue;
		/* a superchip's GPU reaches its CPU's memory over C2C, not PCIe */
		if (l->kind == GPUVM_LINK_NVLINK_C2C)
			return l;
		if (!pcie)
			pcie = l;
	}
	return pcie;
}

/* A row's value for GPU gpu of d, written into buf as the key's value;
 * 0 when the description has one, -1 when the preset's stands. *line is
 * the system file's line it comes from. */
typedef int (*sys_value_fn)(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			    int *line);

static int gpu_memory(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
		      int *line)
{
	if (!d->gpus[gpu].memory_bytes)
		return -1;
	*line = d->gpus[gpu].line;
	snprintf(buf, len, "%llu", (unsigned long long)d->gpus[gpu].memory_bytes);
	return 0;
}

/* The host link's rate per direction: a physical link's times the links
 * ganged. For NVLink-C2C this is the whole path the driver's copies,
 * migrations and zero-copy packets take to CPU memory; its packet framing
 * stays PCIe's (pcie_tlp.h), a stand-in until C2C's own is modelled. */
static int host_bandwidth(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			  int *line)
{
	const struct gpuvm_sys_link *l = gpuvm_sysdesc_host_link(d, gpu);
	if (!l)
		return -1;
	*line = l->line;
	snprintf(buf, len, "%.17g", l->bandwidth_gb_s * l->count);
	return 0;
}

/* pcie.latency_ns where the file states a PCIe link's latency. No
 * NVLink-C2C latency is published (docs/systems.md, its sources): a C2C
 * host link keeps the preset's pcie.latency_ns, the preset's measured
 * zero-copy round trip, until one is. */
static int host_latency(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			int *line)
{
	const struct gpuvm_sys_link *l = gpuvm_sysdesc_host_link(d, gpu);
	if (!l || l->kind != GPUVM_LINK_PCIE || l->latency_ns < 0)
		return -1;
	*line = l->line;
	snprintf(buf, len, "%.17g", l->latency_ns);
	return 0;
}

/* The mapping: description -> preset keys, applied in this order. */
static const struct {
	const char *key;
	sys_value_fn value;
} gpu_key_map[] = {
	{"gpu.memory", gpu_memory},                  /* [gpu.N] memory_bytes */
	{"pcie.bandwidth_gb_s", host_bandwidth},     /* its pcie / nvlink-c2c link */
	{"pcie.latency_ns", host_latency},           /* a pcie link's latency_ns */
};

int gpuvm_sysdesc_gpu_config(const struct gpuvm_sysdesc *d, uint32_t gpu,
			     struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	if (gpu >= d->n_gpus)
		return gpuvm_fail(err, d->origin, 0, NULL, "no gpu.%u in system '%s' (%u GPUs)", gpu,
				  d->name, d->n_gpus);
	if (gpuvm_config_load(cfg, d->gpus[gpu].preset, err))
		return -1;
	for (size_t i = 0; i < sizeof gpu_key_map / sizeof gpu_key_map[0]; i++) {
		char value[64], assignment[128], origin[300];
		int line = 0;
		if (gpu_key_map[i].value(d, gpu, value, sizeof value, &line))
			continue;
		snprintf(assignment, sizeof assignment, "%s=%s", gpu_key_map[i].key, value);
		snprintf(origin, sizeof origin, "%s:%d (gpu.%u)", d->origin, line, gpu);
		if (gpuvm_config_set(cfg, assignment, origin, err))
			return -1;
	}
	return 0;
}
