/* Memory partitions: building them from the config, and the requests
 * that are not on the hot path (memsys.h holds the contract and the
 * inline ones). */
#include "memsys/memsys.h"

#include <stdlib.h>
#include <string.h>

#include "core/cache_line.h"

/* The near partition of each logical SM: its GPC's half of the chip (the
 * A100 whitepaper: "each L2 partition localizes and caches data for
 * memory accesses from SMs in the GPCs directly connected to the
 * partition"). Logical ids follow the GPU's %smid order (gpu.sm_numbering,
 * as config.c lays them out): linear = physical ids in order with the
 * fused-off ones skipped, interleaved = one TPC of each GPC in turn. */
static int near_partitions(struct memsys *ms, const struct gpuvm_config *cfg)
{
	uint32_t per_gpc = cfg->tpcs_per_gpc * cfg->sms_per_tpc;
	uint32_t phys = cfg->gpcs * per_gpc;
	ms->near_of_sm = calloc(cfg->sms ? cfg->sms : 1, 1);
	bool *off = calloc(phys ? phys : 1, sizeof *off);
	if (!ms->near_of_sm || !off) {
		free(off);
		return -1;
	}
	for (uint32_t i = 0; i < cfg->disabled_sms_len; i++)
		if (cfg->disabled_sms[i] < phys)
			off[cfg->disabled_sms[i]] = true;
	uint32_t n = 0;
	for (uint32_t i = 0; i < phys && n < cfg->sms; i++) {
		uint32_t p = i;
		if (cfg->sm_numbering == GPUVM_SM_INTERLEAVED) {
			uint32_t k = i % cfg->sms_per_tpc, g = i / cfg->sms_per_tpc % cfg->gpcs;
			uint32_t r = i / cfg->sms_per_tpc / cfg->gpcs;
			p = (g * cfg->tpcs_per_gpc + r) * cfg->sms_per_tpc + k;
		}
		if (!off[p])
			ms->near_of_sm[n++] = (uint8_t)((uint64_t)(p / per_gpc) * ms->n_parts / cfg->gpcs);
	}
	free(off);
	return 0;
}

int memsys_init(struct memsys *ms, const struct gpuvm_config *cfg, struct gpuvm_stats *stats)
{
	memset(ms, 0, sizeof *ms);
	uint32_t n = cfg->mem_partitions ? cfg->mem_partitions : 1;
	ms->stats = stats;
	ms->n_parts = n;
	ms->part_shift = (uint32_t)__builtin_ctzll(cfg->mem_partition_interleave_bytes
							   ? cfg->mem_partition_interleave_bytes
							   : 4096);
	ms->part = gpuvm_calloc_lines(n, sizeof *ms->part);
	if (!ms->part)
		return -1;

	double clock_hz = cfg->clock_mhz * 1e6;
	/* a partition's share: its slices of the L2, its channels and their
	 * bandwidth (config_finalize.c checks the counts divide) */
	double bandwidth_gb_s = cfg->dram_bandwidth_gb_s / n;
	uint32_t channels = cfg->dram_channels / n;
	ms->sector_bytes = cfg->l2_sector_bytes;
	/* all-bank refresh (JEDEC tREFI/tRFC): each channel serves requests for
	 * 1 - tRFC / tREFI of the time, so a stream gets that share of the
	 * pin rate. The single load's latency stays dram.latency_cycles: the
	 * presets read it off chases that met refreshes as often as a load
	 * does, on average. */
	double serve = cfg->dram_trefi_ns > 0 ? 1 - cfg->dram_trfc_ns / cfg->dram_trefi_ns : 1;
	/* per-bank refresh (JESD235 REFSB, dram.trfcsb_ns): one bank at a time
	 * is refreshing, for tRFCsb of every tREFI, while the others serve, so
	 * the bus keeps the whole pin rate and only a bank-bound stream loses
	 * the banks' tRFCsb / tREFI */
	bool per_bank = cfg->dram_trfcsb_ns > 0;
	double bank_serve = per_bank ? 1 - cfg->dram_trfcsb_ns / cfg->dram_trefi_ns : serve;
	if (per_bank)
		serve = 1;
	ms->dram_cycles_per_sector =
		cfg->l2_sector_bytes * clock_hz / (bandwidth_gb_s * 1e9) / serve;
	ms->dram_latency = cfg->dram_latency_cycles;
	ms->crossbar_cycles = cfg->load_base_latency_cycles / 2;
	ms->l2_hit = cfg->l2_hit_latency_cycles;
	ms->slices_per_part = cfg->l2_slices / n;
	ms->l2_slice_cycles = cfg->l2_slices ? cfg->l2_sector_bytes / cfg->l2_slice_bytes_per_cycle : 0;
	ms->l2_slice_write_cycles = cfg->l2_slices && cfg->l2_slice_write_bytes_per_cycle > 0
					    ? cfg->l2_sector_bytes / cfg->l2_slice_write_bytes_per_cycle
					    : 0;
	ms->run_gap_cycles = ms->l2_slice_cycles + (cfg->l2_sm_port_bytes_per_cycle > 0
							     ? cfg->l2_sector_bytes /
								       cfg->l2_sm_port_bytes_per_cycle
							     : 0);
	ms->l2_line_shift = (uint32_t)__builtin_ctz(cfg->l2_line_bytes);
	ms->atomic_address_cycles = cfg->l2_atomic_address_cycles;
	ms->l2_bytes = cfg->l2_bytes;
	ms->dram_banked = cfg->dram_banks != 0;
	ms->far_cycles = cfg->mem_far_latency_cycles;
	ms->near_far = n == 2 && ms->far_cycles > 0;
	ms->far_home_dram_cycles = !cfg->mem_far_home_dram ? 0
				   : cfg->mem_far_home_dram_cycles > 0 ? cfg->mem_far_home_dram_cycles
								       : ms->far_cycles;
	ms->part_hash = cfg->mem_partition_hash == 1;
	ms->part_xor = cfg->mem_partition_hash == 2;
	ms->part_pow2 = (n & (n - 1)) == 0;
	ms->part_log2 = (uint32_t)__builtin_ctz(n);
	ms->writeback_stall = cfg->l2_writeback_stall != 0;
	if (ms->near_far && near_partitions(ms, cfg))
		return -1;

	for (uint32_t i = 0; i < n; i++) {
		struct mem_partition *p = &ms->part[i];
		if (l2_cache_init(&p->l2, cfg->l2_bytes / n, cfg->l2_ways, cfg->l2_line_bytes,
				  cfg->l2_sector_bytes))
			return -1;
		if (cfg->l2_in_flight_wait) {
			size_t n_slots = (size_t)p->l2.sets * p->l2.ways * p->l2.sectors_per_line;
			p->fill_ready = malloc(n_slots * sizeof *p->fill_ready);
			if (!p->fill_ready)
				return -1;
			for (size_t s = 0; s < n_slots; s++)
				p->fill_ready[s] = -INFINITY;
		}
		/* 64-cycle slots; 4096 of them keep 262 K cycles of reordering. */
		if (server_pool_init(&p->dram, 1, 64, 4096))
			return -1;
		if (ms->atomic_address_cycles > 0) {
			size_t n_atom = (size_t)MEMSYS_ATOM_SETS * MEMSYS_ATOM_WAYS;
			p->atom = malloc(n_atom * sizeof *p->atom);
			if (!p->atom)
				return -1;
			for (size_t a = 0; a < n_atom; a++)
				p->atom[a] = (struct memsys_atom_way){0, -INFINITY};
		}
		if (ms->slices_per_part) {
			p->slices = calloc(ms->slices_per_part, sizeof *p->slices);
			if (!p->slices)
				return -1;
			/* 32-cycle slots (32 sectors of a 32 B/clk slice); 1024
			 * keep 32 K cycles of reordering, as the DRAM banks' rings */
			for (uint32_t s = 0; s < ms->slices_per_part; s++)
				if (server_pool_init(&p->slices[s], 1, 32, 1024))
					return -1;
		}
		if (!ms->dram_banked)
			continue;
		/* the row miss of an isolated load is part of the preset's
		 * measured dram.latency_cycles; the rest is the fixed pipe */
		double ns = cfg->clock_mhz * 1e-3; /* cycles per ns */
		struct dram_model_config dc = {
			.channels = channels,
			.banks = cfg->dram_banks,
			.row_bytes = (uint32_t)cfg->dram_row_bytes,
			.interleave_bytes = cfg->dram_interleave_bytes,
			/* rings of 4 K and 2 K cycles at P100's rates: small enough to stay in
			 * the host's cache, as long as the engine's reordering */
			.bus_ring_slots = 128, .bank_ring_slots = 32,
			.sector_bytes = cfg->l2_sector_bytes,
			.t_rcd_cycles = cfg->dram_trcd_ns * ns,
			.t_rp_cycles = cfg->dram_trp_ns * ns,
			.t_cas_cycles = cfg->dram_tcas_ns * ns,
			.cycles_per_sector_per_channel = dram_cycles_per_sector_per_channel(
				cfg->l2_sector_bytes, clock_hz, bandwidth_gb_s * 1e9, channels) / serve,
			.service_fraction = bank_serve,
			.bus_service_fraction = per_bank ? 1 : 0,
			/* the bus's idle per turned write batch: write-to-read
			 * (tWTR_S, then tCAS until the read's data) and the
			 * read-to-write gap */
			.turnaround_cycles = (cfg->dram_twtr_ns > 0 || cfg->dram_trtw_ns > 0)
						     ? (cfg->dram_twtr_ns + cfg->dram_tcas_ns +
							cfg->dram_trtw_ns) * ns
						     : 0,
			.write_batch_sectors = cfg->dram_write_batch_sectors,
			.drain_hold = cfg->dram_drain_hold != 0,
			.drain_group_channels = cfg->dram_drain_group_channels,
			.t_ccd_l_cycles = cfg->dram_tccdl_ns * ns,
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

void memsys_sync_stats(struct memsys *ms)
{
	if (!ms->part || !ms->dram_banked)
		return;
	struct gpuvm_dram_stats d = {.banked = 1};
	for (uint32_t i = 0; i < ms->n_parts; i++) {
		const struct dram_model *m = &ms->part[i].dram_banks;
		d.row_hits += m->row_hits;
		d.row_misses += m->row_misses;
		d.turnarounds += m->turnarounds;
		d.reads_held += m->reads_held;
		d.held_cycles += m->held_cycles;
	}
	ms->stats->dram = d;
}

void memsys_free(struct memsys *ms)
{
	if (!ms->part)
		return;
	for (uint32_t i = 0; i < ms->n_parts; i++) {
		struct mem_partition *p = &ms->part[i];
		l2_cache_free(&p->l2);
		server_pool_free(&p->dram);
		for (uint32_t s = 0; p->slices && s < ms->slices_per_part; s++)
			server_pool_free(&p->slices[s]);
		free(p->slices);
		free(p->atom);
		free(p->fill_ready);
		if (ms->dram_banked && p->dram_banks.spec.channels)
			dram_model_free(&p->dram_banks);
	}
	free(ms->part);
	ms->part = NULL;
	free(ms->near_of_sm);
	ms->near_of_sm = NULL;
}

/* How long past t n sectors written back at t, done at done, waited in
 * the DRAM's queues: beyond an idle bank's row miss and their bursts. */
static inline double writeback_wait(const struct dram_model *m, uint32_t n, double t, double done)
{
	double wait = done - t - m->spec.row_cycle_cycles - n * m->spec.burst_cycles;
	return wait > 0 ? wait : 0;
}

/* Dirty sectors an L2 victim writes back. The victim's address is gone
 * with its line (the L2 keeps no more than the model needs), so in the
 * banked model they go to another row of the accessed sector's bank
 * group: a row miss each, as evictions mostly are. Returns when the
 * line is free for the access that evicted it (l2.writeback_stall): t
 * while the DRAM takes the write-back at once, later by as long as it
 * queues behind earlier traffic, since the L2 cannot hold more victims
 * than the DRAM drains (without the key: t). */
__attribute__((noinline)) double memsys_writeback_sectors(struct memsys *ms, struct mem_partition *p,
							  uint64_t local, uint32_t sectors, double t,
							  struct memsys_waits *waits)
{
	ms->stats->dram_bytes += (uint64_t)sectors * ms->sector_bytes;
	double wait = 0;
	if (ms->dram_banked) {
		struct dram_model *m = &p->dram_banks;
		/* the victim's sectors, a run per interleave chunk (one
		 * sector, the most common, without the run's call) */
		uint64_t a = local ^ (1ull << 42);
		if (sectors == 1) {
			wait = writeback_wait(m, 1, t, dram_write_sector(m, a, t));
		} else {
			uint32_t shift = m->spec.interleave_shift;
			for (uint32_t i = 0; i < sectors;) {
				uint64_t from = a + (uint64_t)i * ms->sector_bytes;
				uint32_t n = 1;
				while (i + n < sectors &&
				       (from + (uint64_t)n * ms->sector_bytes) >> shift == from >> shift)
					n++;
				double w = writeback_wait(m, n, t, dram_model_write_run(m, from, n, t));
				if (w > wait)
					wait = w;
				i += n;
			}
		}
	} else {
		wait = server_pool_reserve(&p->dram, t, sectors * ms->dram_cycles_per_sector) - t;
	}
	if (!ms->writeback_stall)
		return t;
	if (waits && wait > waits->writeback_cycles)
		waits->writeback_cycles = wait;
	return t + wait;
}

void memsys_copy_fill(struct memsys *ms, uint64_t addr, uint64_t bytes, double t)
{
	if (!bytes)
		return;
	const uint32_t ls = ms->l2_line_shift;
	const uint64_t sb = ms->sector_bytes, end = addr + bytes;
	uint64_t first = bytes > ms->l2_bytes ? end - ms->l2_bytes : addr;
	for (uint64_t line = first >> ls; line <= (end - 1) >> ls; line++) {
		uint64_t la = line << ls;
		uint64_t lo = first > la ? first : la, hi = end < la + (1ull << ls) ? end : la + (1ull << ls);
		/* the line's sectors the copy wrote (a partial sector counts whole:
		 * copies are aligned to far more than a sector in practice) */
		uint8_t mask = 0;
		for (uint64_t s = (lo - la) / sb; s <= (hi - 1 - la) / sb; s++)
			mask |= (uint8_t)(1u << s);
		uint64_t local;
		struct mem_partition *p = memsys_route(ms, la, &local);
		/* near and far partitions keep lines under their global address */
		uint64_t key = ((ms->near_far ? la : local) >> ls) + 1;
		memsys_writeback(ms, p, local, l2_cache_fill_line(&p->l2, key, mask, mask), t, NULL);
		if (p->fill_ready) /* l2.in_flight = wait: the copy's sectors are there */
			memsys_fill_arrived(p, (ms->near_far ? la : local), mask, sb);
	}
}

double memsys_pte_read(struct memsys *ms, uint64_t sector_addr, double t)
{
	REQ_TRACE_DOWN("memsys", "memsys_pte_read");
	REQ_TRACE_UP("memsys", "memsys_pte_read"); /* noted together: two returns below */
	uint64_t local;
	struct mem_partition *p = memsys_route(ms, sector_addr, &local);
	uint32_t wb = 0;
	/* near and far partitions keep lines under their global address; a
	 * walk reads its entry at the entry's home partition */
	uint64_t key_addr = ms->near_far ? sector_addr : local;
	enum l2_result r = l2_cache_access(&p->l2, key_addr, false, &wb);
	memsys_writeback(ms, p, local, wb, t, NULL);
	if (r == L2_HIT) {
		ms->stats->walk_pte_l2_hits++;
		/* l2.in_flight = wait: the entry's sector may still be on its way */
		return p->fill_ready ? memsys_l2_fill_wait(p, key_addr, t) - t : 0;
	}
	ms->stats->walk_pte_l2_misses++;
	double d = memsys_dram_sector(ms, p, local, t);
	if (p->fill_ready)
		p->fill_ready[l2_cache_slot(&p->l2, key_addr)] = d;
	return d - t;
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

/* Near and far L2 partitions, as A100 and H100 have them (two
 * partitions, each near the GPCs of one half of the chip; the A100
 * whitepaper, "L2 cache": each partition caches data for the SMs of the
 * GPCs directly connected to it, with hardware coherence between them).
 *
 * - A request from SM sm looks up its near partition first (any line may
 *   live in either partition; lines are kept under their global
 *   address). A hit costs the near latency, l2.hit_latency_cycles.
 * - A near miss allocates the sector in the near partition; the line
 *   that made room moves to the other (far) partition with its valid and
 *   dirty sectors (only the far partition's own victim is written back).
 *   So one side's working set spreads over both partitions: what the
 *   near one last evicted is found in the far one.
 * - A near miss probes the far partition: a hit there costs
 *   mem.far_latency_cycles more (the crossing between the halves; the
 *   far copy stays, so data both halves read is held by both).
 * - A miss in both reads DRAM at the line's home partition (its channels,
 *   memsys_route). With mem.far_home_dram a far home costs the crossing,
 *   half of it each way: the channels hang off their own partition (the
 *   A100 whitepaper, "L2 cache"), so a read for the far half of memory
 *   goes there and back. The DRAM time is then calibrated on the DRAM
 *   chase (docs/calibration.md); the published chases are means and do not
 *   show the two populations on their own.
 *
 * The measurements this reproduces (te42kyfo/gpu-benches gpu-latency, one
 * thread's shuffled chase): A100 40GB 213 cycles up to 20 MB (the near
 * partition), a plateau of 426 from 32 to 39 MB (everything a far hit),
 * DRAM beyond 62 MB; H100 PCIe 265 up to 22 MB, 475 from 35 to 52 MB,
 * DRAM beyond 69 MB. A store miss allocates in the near partition
 * without a probe (no data is needed); the far copy of a line a store
 * writes is not invalidated (the model keeps no data, and the near copy
 * is the one written back). Managed memory whose lines may be stale
 * (block_through) takes l2_cache_access_fresh in the near partition, whose
 * victims are written back rather than moved. */
double memsys_access_near_far(struct memsys *ms, uint32_t sm, uint64_t sa, bool write, bool fetch,
			      double t, uint32_t block_through, const uint32_t *page_through,
			      struct memsys_waits *w)
{
	uint64_t local;
	struct mem_partition *home = memsys_route(ms, sa, &local);
	uint32_t near = ms->near_of_sm[sm];
	struct mem_partition *np = &ms->part[near], *fp = &ms->part[near ^ 1];
	double ready = memsys_l2_slice_op(ms, np, sa, write, fetch, t + ms->crossbar_cycles, w) +
		       ms->l2_hit;
	uint32_t wb = 0, stale_through = 0;
	struct l2_victim vic = {0, 0, 0};
	enum l2_result r;
	if (block_through) {
		uint32_t stale_sectors = 0, stale_dirty = 0;
		r = l2_cache_access_fresh(&np->l2, sa, write, &wb, block_through, page_through,
					  &stale_sectors, &stale_dirty);
		ms->stats->uvm.l2_sectors_invalidated += stale_sectors;
		ms->stats->uvm.l2_dirty_sectors_written += stale_dirty;
		stale_through = block_through < *page_through ? block_through : *page_through;
	} else {
		r = l2_cache_access_victim(&np->l2, sa, write, &wb, &vic);
		if (vic.key) { /* the victim moves to the far partition */
			wb = l2_cache_fill_line(&fp->l2, vic.key, vic.valid, vic.dirty);
			/* l2.in_flight = wait: a least recent line's data is there */
			if (fp->fill_ready)
				memsys_fill_arrived(fp, (vic.key - 1) << ms->l2_line_shift, vic.valid,
						    ms->sector_bytes);
		}
	}
	ready = memsys_writeback(ms, home, local, wb, ready, w);
	/* l2.in_flight = wait: the near copy's slot, when this access is not
	 * a hit the time its own fill (or none) arrives */
	double *slot = np->fill_ready ? &np->fill_ready[l2_cache_slot(&np->l2, sa)] : NULL;
	if (r == L2_HIT) {
		ms->stats->l2_sector_hits++;
		if (slot)
			ready = later(*slot, ready);
		return ready + ms->crossbar_cycles;
	}
	if (slot)
		*slot = -INFINITY;
	if (!fetch) {
		ms->stats->l2_sector_misses++;
		return ready + ms->crossbar_cycles; /* write-allocate, no fetch */
	}
	if (l2_cache_probe(&fp->l2, sa, stale_through) == L2_HIT) {
		ms->stats->l2_sector_hits++;
		/* the far slice serves it too, half the crossing on (once
		 * the far copy's own fill is there, l2.in_flight = wait) */
		double at_far = memsys_l2_slice(ms, fp, sa, ready + 0.5 * ms->far_cycles);
		if (fp->fill_ready)
			at_far = memsys_l2_fill_wait(fp, sa, at_far);
		if (slot)
			*slot = at_far + 0.5 * ms->far_cycles;
		return at_far + 0.5 * ms->far_cycles + ms->crossbar_cycles;
	}
	ms->stats->l2_sector_misses++;
	/* mem.far_home_dram: the read goes out through its home partition,
	 * half the crossing each way (far_cycles is a far hit's round trip
	 * over a near one's) */
	double half = home != np ? 0.5 * ms->far_home_dram_cycles : 0;
	double at_near = memsys_dram_sector(ms, home, local, ready + half) + half;
	if (slot)
		*slot = at_near;
	return at_near + ms->crossbar_cycles;
}
