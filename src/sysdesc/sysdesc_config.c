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

/* A PCIe host link's rate per direction: a physical link's times the
 * links ganged. (A GPU on NVLink-C2C takes the c2c keys below instead:
 * with c2c.coherent on, copies, migrations and remote reads run at
 * c2c.bandwidth_gb_s and the pcie section is not read.) */
static int host_bandwidth(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			  int *line)
{
	const struct gpuvm_sys_link *l = gpuvm_sysdesc_host_link(d, gpu);
	if (!l || l->kind != GPUVM_LINK_PCIE)
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

/* The GPU's NVLink-C2C link, or NULL (a PCIe GPU). */
static const struct gpuvm_sys_link *c2c_link(const struct gpuvm_sysdesc *d, uint32_t gpu)
{
	const struct gpuvm_sys_link *l = gpuvm_sysdesc_host_link(d, gpu);
	return l && l->kind == GPUVM_LINK_NVLINK_C2C ? l : NULL;
}

/* The CPU at the other end of the GPU's C2C link, or NULL. */
static const struct gpuvm_sys_cpu *c2c_cpu(const struct gpuvm_sysdesc *d, uint32_t gpu)
{
	const struct gpuvm_sys_link *l = c2c_link(d, gpu);
	for (uint32_t e = 0; l && e < l->n_ends; e++)
		if (l->ends[e].cpu && l->ends[e].index < d->n_cpus)
			return &d->cpus[l->ends[e].index];
	return NULL;
}

/* A GPU on NVLink-C2C reaches CPU memory coherently (docs/systems.md,
 * "Grace Hopper memory"): the [c2c] section on. */
static int c2c_coherent(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			int *line)
{
	const struct gpuvm_sys_link *l = c2c_link(d, gpu);
	if (!l)
		return -1;
	*line = l->line;
	snprintf(buf, len, "on");
	return 0;
}

/* Its rate per direction: a physical link's times the links ganged. */
static int c2c_bandwidth(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			 int *line)
{
	const struct gpuvm_sys_link *l = c2c_link(d, gpu);
	if (!l)
		return -1;
	*line = l->line;
	snprintf(buf, len, "%.17g", l->bandwidth_gb_s * l->count);
	return 0;
}

/* A copy engine's measured rate over the C2C link, where the file gives
 * one (copy_h2d_gb_s, copy_d2h_gb_s): the rate of the whole gang, as
 * measured, not per physical link. */
static int c2c_copy(const struct gpuvm_sysdesc *d, uint32_t gpu, int dir, char *buf, size_t len,
		    int *line)
{
	const struct gpuvm_sys_link *l = c2c_link(d, gpu);
	if (!l || !(l->copy_gb_s[dir] > 0))
		return -1;
	*line = l->line;
	snprintf(buf, len, "%.17g", l->copy_gb_s[dir]);
	return 0;
}

static int c2c_copy_h2d(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			int *line)
{
	return c2c_copy(d, gpu, 0, buf, len, line);
}

static int c2c_copy_d2h(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			int *line)
{
	return c2c_copy(d, gpu, 1, buf, len, line);
}

/* The CPU memory's bandwidth, where its [cpu.N] gives one. */
static int c2c_cpu_memory(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
			  int *line)
{
	const struct gpuvm_sys_cpu *c = c2c_cpu(d, gpu);
	if (!c || !(c->bandwidth_gb_s > 0))
		return -1;
	*line = c->line;
	snprintf(buf, len, "%.17g", c->bandwidth_gb_s);
	return 0;
}

/* The system page size the CPU runs with (its page_bytes). */
static int c2c_page(const struct gpuvm_sysdesc *d, uint32_t gpu, char *buf, size_t len,
		    int *line)
{
	const struct gpuvm_sys_cpu *c = c2c_cpu(d, gpu);
	if (!c || !c->page_bytes)
		return -1;
	*line = c->line;
	snprintf(buf, len, "%llu", (unsigned long long)c->page_bytes);
	return 0;
}

/* The mapping: description -> preset keys, applied in this order. */
static const struct {
	const char *key;
	sys_value_fn value;
} gpu_key_map[] = {
	{"gpu.memory", gpu_memory},                  /* [gpu.N] memory_bytes */
	{"pcie.bandwidth_gb_s", host_bandwidth},     /* its pcie link */
	{"pcie.latency_ns", host_latency},           /* a pcie link's latency_ns */
	{"c2c.coherent", c2c_coherent},              /* an nvlink-c2c link: on */
	{"c2c.bandwidth_gb_s", c2c_bandwidth},       /* its bandwidth_gb_s x count */
	{"c2c.copy_h2d_gb_s", c2c_copy_h2d},         /* its copy_h2d_gb_s */
	{"c2c.copy_d2h_gb_s", c2c_copy_d2h},         /* its copy_d2h_gb_s */
	{"c2c.cpu_memory_gb_s", c2c_cpu_memory},     /* [cpu.N] bandwidth_gb_s */
	{"c2c.system_page_bytes", c2c_page},         /* [cpu.N] page_bytes */
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
