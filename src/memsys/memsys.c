/* Memory partitions: building them from the config, and the requests
 * that are not on the hot path (memsys.h holds the contract and the
 * inline ones). */
#include "memsys/memsys.h"

#include <stdlib.h>
#include <string.h>

int memsys_init(struct memsys *ms, const struct gpuvm_config *cfg, struct gpuvm_stats *stats)
{
	memset(ms, 0, sizeof *ms);
	uint32_t n = cfg->mem_partitions ? cfg->mem_partitions : 1;
	ms->stats = stats;
	ms->n_parts = n;
	ms->part_shift = (uint32_t)__builtin_ctzll(cfg->mem_partition_interleave_bytes
							   ? cfg->mem_partition_interleave_bytes
							   : 4096);
	ms->part = calloc(n, sizeof *ms->part);
	if (!ms->part)
		return -1;

	double clock_hz = cfg->clock_mhz * 1e6;
	/* a partition's share: its slices of the L2, its channels and their
	 * bandwidth (config.c checks the counts divide) */
	double bandwidth_gb_s = cfg->dram_bandwidth_gb_s / n;
	uint32_t channels = cfg->dram_channels / n;
	ms->sector_bytes = cfg->l2_sector_bytes;
	ms->dram_cycles_per_sector = cfg->l2_sector_bytes * clock_hz / (bandwidth_gb_s * 1e9);
	ms->dram_latency = cfg->dram_latency_cycles;
	ms->crossbar_cycles = cfg->load_base_latency_cycles / 2;
	ms->l2_hit = cfg->l2_hit_latency_cycles;
	ms->dram_banked = cfg->dram_banks != 0;

	for (uint32_t i = 0; i < n; i++) {
		struct mem_partition *p = &ms->part[i];
		if (l2_cache_init(&p->l2, cfg->l2_bytes / n, cfg->l2_ways, cfg->l2_line_bytes,
				  cfg->l2_sector_bytes))
			return -1;
		/* 64-cycle slots; 4096 of them keep 262 K cycles of reordering. */
		if (server_pool_init(&p->dram, 1, 64, 4096))
			return -1;
		if (!ms->dram_banked)
			continue;
		/* the row miss of an isolated load is part of the preset's
		 * measured dram.latency_cycles; the rest is the fixed pipe */
		double ns = cfg->clock_mhz * 1e-3; /* cycles per ns */
		struct dram_model_config dc = {
			.channels = channels,
			.banks = cfg->dram_banks,
			.row_bytes = (uint32_t)cfg->dram_row_bytes,
			/* rings of 4 K and 2 K cycles at P100's rates: small enough to stay in
			 * the host's cache, as long as the engine's reordering */
			.bus_ring_slots = 128, .bank_ring_slots = 32,
			.sector_bytes = cfg->l2_sector_bytes,
			.t_rcd_cycles = cfg->dram_trcd_ns * ns,
			.t_rp_cycles = cfg->dram_trp_ns * ns,
			.t_cas_cycles = cfg->dram_tcas_ns * ns,
			.cycles_per_sector_per_channel = dram_cycles_per_sector_per_channel(
				cfg->l2_sector_bytes, clock_hz, bandwidth_gb_s * 1e9, channels),
		};
		dc.latency_cycles = cfg->dram_latency_cycles -
				    (dc.t_rp_cycles + dc.t_rcd_cycles + dc.t_cas_cycles +
				     dc.cycles_per_sector_per_channel);
		if (dc.latency_cycles < 0)
			dc.latency_cycles = 0;
		if (dram_model_init(&p->dram_banks, &dc))
			return -1;
	}
	return 0;
}

void memsys_free(struct memsys *ms)
{
	if (!ms->part)
		return;
	for (uint32_t i = 0; i < ms->n_parts; i++) {
		struct mem_partition *p = &ms->part[i];
		l2_cache_free(&p->l2);
		server_pool_free(&p->dram);
		if (ms->dram_banked && p->dram_banks.channels)
			dram_model_free(&p->dram_banks);
	}
	free(ms->part);
	ms->part = NULL;
}

/* Dirty sectors an L2 victim writes back. The victim's address is gone
 * with its line (the L2 keeps no more than the model needs), so in the
 * banked model they go to another row of the accessed sector's bank
 * group: a row miss each, as evictions mostly are. */
__attribute__((noinline)) void memsys_writeback_sectors(struct memsys *ms, struct mem_partition *p,
							uint64_t local, uint32_t sectors, double t)
{
	ms->stats->dram_bytes += (uint64_t)sectors * ms->sector_bytes;
	if (ms->dram_banked) {
		/* the victim's sectors, a run per interleave chunk (one
		 * sector, the most common, without the run's call) */
		uint64_t a = local ^ (1ull << 42);
		if (sectors == 1) {
			dram_write_sector(&p->dram_banks, a, t);
			return;
		}
		uint32_t shift = p->dram_banks.interleave_shift;
		for (uint32_t i = 0; i < sectors;) {
			uint64_t from = a + (uint64_t)i * ms->sector_bytes;
			uint32_t n = 1;
			while (i + n < sectors &&
			       (from + (uint64_t)n * ms->sector_bytes) >> shift == from >> shift)
				n++;
			dram_model_write_run(&p->dram_banks, from, n, t);
			i += n;
		}
		return;
	}
	server_pool_reserve(&p->dram, t, sectors * ms->dram_cycles_per_sector);
}

double memsys_pte_read(struct memsys *ms, uint64_t sector_addr, double t)
{
	uint64_t local;
	struct mem_partition *p = memsys_route(ms, sector_addr, &local);
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&p->l2, local, false, &wb);
	memsys_writeback(ms, p, local, wb, t);
	if (r == L2_HIT) {
		ms->stats->walk_pte_l2_hits++;
		return 0;
	}
	ms->stats->walk_pte_l2_misses++;
	return memsys_dram_sector(ms, p, local, t) - t;
}

uint32_t memsys_l2_epoch(struct memsys *ms)
{
	uint32_t latest = ms->part[0].l2.clock;
	for (uint32_t i = 1; i < ms->n_parts; i++)
		if (ms->part[i].l2.clock > latest)
			latest = ms->part[i].l2.clock;
	for (uint32_t i = 0; i < ms->n_parts; i++)
		ms->part[i].l2.clock = latest;
	return latest;
}

uint32_t memsys_partition_of(const struct memsys *ms, uint64_t addr)
{
	uint64_t local;
	return (uint32_t)(memsys_route(ms, addr, &local) - ms->part);
}
