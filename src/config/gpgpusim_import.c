/* A gpgpusim.config's options mapped onto a base preset's keys, and the
 * preset text written from the result (gpuvm/gpgpusim_import.h).
 *
 * What each option means is GPGPU-Sim's (accel-sim/gpgpu-sim_distribution,
 * src/gpgpu-sim/gpu-sim.cc option descriptions, gpu-cache.h/.cc
 * cache_config::init for the cache strings, l2cache.cc for the latencies);
 * what each key means, the key table's help (src/config/config_keys.c).
 * The table of mappings is in docs/presets.md; a change here changes it.
 *
 * Contract (gpuvm/gpgpusim_import.h):
 *  - Owns: the mapping of options to keys and the preset text.
 *  - May call: nothing outside src/config and core: the preset loader,
 *    --set and finalize of gpuvm/config.h, the number parsers.
 *  - Guarantees: a key is set only through gpuvm_config_set, so its
 *    range and type checks are the preset's own, and blamed on the
 *    option's file:line; the text returned reloads to the same keys. */
#include "gpuvm/gpgpusim_import.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/number.h"

#define GS_MAX_CITES 96
#define GS_VALUE 4096

struct gs_cite {
	char key[96];
	char text[400];
};

struct imp {
	struct gpuvm_gs_config *gs;
	struct gpuvm_config *cfg;
	struct gpuvm_error *err;
	struct gs_cite cite[GS_MAX_CITES];
	size_t n_cite;
	double core_mhz, dram_mhz; /* dram_mhz 0: not given */
};

/* ---- reading values ---- */

/* The option, marked as having a counterpart, or NULL if not given. */
static struct gpuvm_gs_option *use(struct imp *m, const char *name)
{
	struct gpuvm_gs_option *o = gpuvm_gs_find(m->gs, name);
	if (o)
		o->used = true;
	return o;
}

static int bad(struct imp *m, const struct gpuvm_gs_option *o, const char *want)
{
	return gpuvm_fail(m->err, o->file, o->line, o->name, "expected %s, got '%s'", want, o->value);
}

/* numbers separated by sep, at least min_n and at most max_n of them;
 * returns how many, or -1 */
static int num_list(struct imp *m, const struct gpuvm_gs_option *o, char sep, double lo, double hi,
		    double *out, int min_n, int max_n, const char *want)
{
	const char *p = o->value;
	int n = 0;
	for (;;) {
		if (n == max_n)
			return bad(m, o, want);
		if (gpuvm_read_double(m->err, o->file, o->line, o->name, &p, lo, hi, &out[n]))
			return -1;
		n++;
		if (!*p)
			break;
		if (*p != sep)
			return bad(m, o, want);
		p++;
	}
	if (n < min_n)
		return bad(m, o, want);
	return n;
}

static int num(struct imp *m, const struct gpuvm_gs_option *o, double lo, double hi, double *out)
{
	return num_list(m, o, 0, lo, hi, out, 1, 1, "one number") < 0 ? -1 : 0;
}

/* A cache string's geometry: "[S:|N:]<sets>:<line>:<ways>,..." (gpu-cache.h
 * cache_config::init; configs before sectored caches have no type). */
struct gs_cache {
	bool sectored;
	double sets, line, ways;
};

static int cache_geometry(struct imp *m, const struct gpuvm_gs_option *o, struct gs_cache *c)
{
	const char *want = "'[S:|N:]sets:line_bytes:ways,...'";
	const char *p = o->value;
	c->sectored = false;
	if ((p[0] == 'S' || p[0] == 'N') && p[1] == ':') {
		c->sectored = p[0] == 'S';
		p += 2;
	}
	double *f[3] = {&c->sets, &c->line, &c->ways};
	for (int i = 0; i < 3; i++) {
		if (i && *p++ != ':')
			return bad(m, o, want);
		if (gpuvm_read_double(m->err, o->file, o->line, o->name, &p, 1, 1 << 24, f[i]))
			return -1;
		if (*f[i] != floor(*f[i]))
			return bad(m, o, want);
	}
	if (*p && *p != ',')
		return bad(m, o, want);
	return 0;
}

/* ---- setting keys ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* key = value through gpuvm_config_set, blamed on the first option (its
 * file:line) and cited in the key's comment by every option it came from */
static int set_key(struct imp *m, const char *key, const char *value, const char *note,
		   struct gpuvm_gs_option *const *from, int n_from)
{
	char origin[256], assign[GS_VALUE];
	snprintf(origin, sizeof origin, "%s:%d", from[0]->file, from[0]->line);
	snprintf(assign, sizeof assign, "%s=%s", key, value);
	if (gpuvm_config_set(m->cfg, assign, origin, m->err))
		return -1;
	struct gs_cite *c = NULL;
	for (size_t i = 0; i < m->n_cite; i++)
		if (!strcmp(m->cite[i].key, key))
			c = &m->cite[i];
	if (!c) {
		if (m->n_cite == GS_MAX_CITES)
			return gpuvm_fail(m->err, origin, 0, key, "too many imported keys");
		c = &m->cite[m->n_cite++];
	}
	snprintf(c->key, sizeof c->key, "%s", key);
	size_t u = 0;
	c->text[0] = 0;
	for (int i = 0; i < n_from && u < sizeof c->text; i++) {
		int w = snprintf(c->text + u, sizeof c->text - u, "%s%s %s (%s:%d)", i ? ", " : "",
				 from[i]->name, from[i]->value, base_name(from[i]->file), from[i]->line);
		u += w > 0 ? (size_t)w : 0;
	}
	if (note && u < sizeof c->text)
		snprintf(c->text + u, sizeof c->text - u, ": %s", note);
	return 0;
}

static int set_num(struct imp *m, const char *key, double v, const char *note,
		   struct gpuvm_gs_option *const *from, int n_from)
{
	char s[40];
	snprintf(s, sizeof s, "%.15g", v);
	if (!gpuvm_num_reads_back(s, v))
		snprintf(s, sizeof s, "%.17g", v);
	return set_key(m, key, s, note, from, n_from);
}

#define FROM(...) (struct gpuvm_gs_option *const[]){__VA_ARGS__}, \
	(int)(sizeof((struct gpuvm_gs_option *const[]){__VA_ARGS__}) / sizeof(struct gpuvm_gs_option *))

static double cfg_num(const struct gpuvm_config *cfg, const char *key)
{
	double v = 0;
	gpuvm_config_number(cfg, key, &v);
	return v;
}

/* ---- the mappings ---- */

/* A new SM count on the base's grid: its TPCs per GPC and SMs per TPC,
 * as many GPCs as hold the SMs, the highest physical ids fused off
 * (assumption: which are fused is not in a gpgpusim.config). */
static int map_grid(struct imp *m, uint32_t sms, struct gpuvm_gs_option *const *from, int n_from)
{
	uint32_t per_gpc = (uint32_t)(cfg_num(m->cfg, "gpu.tpcs_per_gpc") * cfg_num(m->cfg, "gpu.sms_per_tpc"));
	if (!per_gpc)
		return 0;
	uint32_t gpcs = (sms + per_gpc - 1) / per_gpc, phys = gpcs * per_gpc;
	const char *note = "the base's tpcs_per_gpc x sms_per_tpc, as many GPCs as hold the SMs, "
			   "the highest physical ids fused off (assumption)";
	if (set_num(m, "gpu.gpcs", gpcs, note, from, n_from))
		return -1;
	char list[GS_VALUE] = "";
	size_t u = 0;
	for (uint32_t p = sms; p < phys && u + 8 < sizeof list; p++)
		u += (size_t)snprintf(list + u, sizeof list - u, "%s%u", u ? " " : "", p);
	return set_key(m, "gpu.disabled_sms", list, note, from, n_from);
}

static int map_gpu(struct imp *m)
{
	struct gpuvm_gs_option *o, *o2;
	double v[8];
	if ((o = use(m, "-gpgpu_clock_domains"))) {
		if (num_list(m, o, ':', 1, 1e5, v, 4, 4, "'core:interconnect:l2:dram' in MHz") < 0)
			return -1;
		m->core_mhz = v[0];
		m->dram_mhz = v[3];
		if (set_num(m, "gpu.clock_mhz", v[0], "the core clock (the first of core:icnt:l2:dram)", FROM(o)))
			return -1;
	}
	if ((o = use(m, "-gpgpu_n_clusters"))) {
		double per = 1;
		o2 = use(m, "-gpgpu_n_cores_per_cluster");
		if (num(m, o, 1, GPUVM_MAX_SMS, &v[0]) || (o2 && num(m, o2, 1, GPUVM_MAX_SMS, &per)))
			return -1;
		uint32_t sms = (uint32_t)(v[0] * per), base = (uint32_t)cfg_num(m->cfg, "gpu.sms");
		if (o2 ? set_num(m, "gpu.sms", sms, "clusters x cores per cluster", FROM(o, o2))
		       : set_num(m, "gpu.sms", sms, NULL, FROM(o)))
			return -1;
		if (sms != base && (o2 ? map_grid(m, sms, FROM(o, o2)) : map_grid(m, sms, FROM(o))))
			return -1;
	}
	if ((o = use(m, "-gpgpu_shader_core_pipeline"))) {
		if (num_list(m, o, ':', 1, 1 << 20, v, 2, 2, "'threads_per_sm:warp_size'") < 0)
			return -1;
		if (set_num(m, "gpu.max_warps_per_sm", floor(v[0] / v[1]), "threads per SM / warp size", FROM(o)))
			return -1;
	}
	if ((o = use(m, "-gpgpu_shader_cta")) &&
	    (num(m, o, 0, 1e6, &v[0]) || set_num(m, "gpu.max_ctas_per_sm", v[0], NULL, FROM(o))))
		return -1;
	if ((o = use(m, "-gpgpu_num_sched_per_core"))) {
		if (num(m, o, 0, 1e6, &v[0]) || set_num(m, "core.schedulers", v[0], NULL, FROM(o)) ||
		    set_num(m, "gpu.issue_warp_insts_per_cycle", v[0], "one warp instruction per scheduler per cycle", FROM(o)))
			return -1;
	}
	/* GPGPU-Sim's scheduler_unit kinds (shader.cc): gpuvm models gto
	 * (src/sm/warp_sched_gto.c, after gto_scheduler::order_warps); lrr,
	 * two_level_active, old and the rest have no counterpart, and
	 * gpuvm's first-ready (the run loop's order) is none of them */
	if ((o = gpuvm_gs_find(m->gs, "-gpgpu_scheduler"))) {
		if (!strcmp(o->value, "gto")) {
			use(m, o->name);
			if (set_key(m, "core.warp_scheduler", "gto", "greedy then oldest", FROM(o)))
				return -1;
		} else {
			o->why = "gpuvm models gto only (core.warp_scheduler); the base's scheduler kept";
		}
	}
	if ((o = use(m, "-gpgpu_max_insn_issue_per_warp")) &&
	    (num(m, o, 0, 1e6, &v[0]) ||
	     set_num(m, "core.dispatch_units", v[0], "instructions one scheduler issues from one warp", FROM(o))))
		return -1;
	o = gpuvm_gs_find(m->gs, "-gpgpu_compute_capability_major");
	o2 = gpuvm_gs_find(m->gs, "-gpgpu_compute_capability_minor");
	if (o && o2) {
		use(m, o->name);
		use(m, o2->name);
		if (num(m, o, 0, 9, &v[0]) || num(m, o2, 0, 9, &v[1]) ||
		    set_num(m, "gpu.compute_capability", v[0] * 10 + v[1], "major x 10 + minor", FROM(o, o2)))
			return -1;
	} else if ((o = use(m, "-gpgpu_ptx_force_max_capability")) &&
		   (num(m, o, 0, 99, &v[0]) || set_num(m, "gpu.compute_capability", v[0], NULL, FROM(o)))) {
		return -1;
	}
	double mhz = m->core_mhz ? m->core_mhz : cfg_num(m->cfg, "gpu.clock_mhz");
	if ((o = use(m, "-gpgpu_kernel_launch_latency")) &&
	    (num(m, o, 0, 1e9, &v[0]) ||
	     set_num(m, "gpu.kernel_launch_us", round(v[0] / mhz * 1e4) / 1e4,
		     "core cycles / core clock (GPGPU-Sim delays the first CTA by it)", FROM(o))))
		return -1;
	/* 0 is GPGPU-Sim's default, no cost modelled, which gpuvm would read as
	 * a CTA starting at no cost (calibrate flags the empty kernel's zero
	 * time); the base's measured value stays */
	if ((o = gpuvm_gs_find(m->gs, "-gpgpu_TB_launch_latency"))) {
		if (num(m, o, 0, 1e7, &v[0]))
			return -1;
		if (v[0] == 0)
			o->why = "0 is GPGPU-Sim's default (no CTA launch cost modelled): the base's gpu.cta_launch_cycles kept";
		else if (use(m, o->name) && set_num(m, "gpu.cta_launch_cycles", v[0], NULL, FROM(o)))
			return -1;
	}
	return 0;
}

static int map_l1_smem(struct imp *m)
{
	struct gpuvm_gs_option *o, *o2;
	double v[64];
	struct gs_cache c;
	if ((o = use(m, "-gpgpu_cache:dl1"))) {
		if (cache_geometry(m, o, &c) ||
		    set_num(m, "l1.size", c.sets * c.line * c.ways, "sets x line x ways", FROM(o)) ||
		    set_num(m, "l1.ways", c.ways, NULL, FROM(o)) || set_num(m, "l1.line_size", c.line, NULL, FROM(o)) ||
		    set_key(m, "l1.fill", c.sectored ? "sector" : "line",
			    c.sectored ? "S: a sectored L1 fetches the sectors missed" : "N: a whole line", FROM(o)))
			return -1;
	}
	if ((o = use(m, "-gpgpu_gmem_skip_L1D")) &&
	    (num(m, o, 0, 1, &v[0]) || set_key(m, "l1.global_loads", v[0] ? "uncached" : "cached", NULL, FROM(o))))
		return -1;
	if ((o = use(m, "-gpgpu_l1_latency"))) {
		if (num(m, o, 0, 1e6, &v[0]) ||
		    set_num(m, "l1.hit_latency_cycles", v[0], "core cycles", FROM(o)) ||
		    set_num(m, "gpu.load_base_latency_cycles", v[0],
			    "as l1.hit_latency_cycles: a global access's cost before the L2", FROM(o)))
			return -1;
	}
	o = gpuvm_gs_find(m->gs, "-gpgpu_adaptive_cache_config");
	o2 = gpuvm_gs_find(m->gs, "-gpgpu_unified_l1d_size");
	if (o && o2 && strcmp(o->value, "0")) {
		use(m, o->name);
		use(m, o2->name);
		if (num(m, o2, 0, 4096, &v[0]) ||
		    set_num(m, "l1.unified_size", v[0] * 1024, "KB; adaptive: each launch's L1 is the rest of "
			    "the array beside its shared-memory carve-out", FROM(o, o2)))
			return -1;
		struct gpuvm_gs_option *opt = use(m, "-gpgpu_shmem_option");
		if (opt) {
			int n = num_list(m, opt, ',', 0, 4096, v, 1, 64, "carve-outs in KB, 'a,b,c'");
			if (n < 0)
				return -1;
			char list[GS_VALUE] = "";
			size_t u = 0;
			for (int i = 0; i < n && u + 12 < sizeof list; i++)
				u += (size_t)snprintf(list + u, sizeof list - u, "%s%.0f", i ? "," : "", v[i]);
			if (set_key(m, "smem.carveouts", list, NULL, FROM(opt)))
				return -1;
		}
	}
	if ((o = use(m, "-gpgpu_shmem_size")) &&
	    (num(m, o, 0, 1 << 30, &v[0]) || set_num(m, "smem.size", v[0], "bytes", FROM(o))))
		return -1;
	if ((o = use(m, "-gpgpu_smem_latency")) &&
	    (num(m, o, 0, 1e6, &v[0]) || set_num(m, "smem.latency_cycles", v[0], NULL, FROM(o))))
		return -1;
	if ((o = use(m, "-gpgpu_shmem_num_banks")) &&
	    (num(m, o, 0, 1e6, &v[0]) || set_num(m, "smem.banks", v[0], NULL, FROM(o))))
		return -1;
	return 0;
}

/* "ADD,MAX,MUL,MAD,DIV[,...]" latencies or intervals of one unit: ADD
 * (index 0) for the integer ALU, MAD (index 3) for IMAD, FFMA and DFMA */
static int map_op(struct imp *m, const char *option, const char *alt, int index, const char *key)
{
	struct gpuvm_gs_option *o = use(m, option);
	if (!o && alt)
		o = use(m, alt);
	if (!o)
		return 0;
	double v[16];
	int n = num_list(m, o, ',', 0, 1e6, v, 1, 16, "numbers 'ADD,MAX,MUL,MAD,DIV'");
	if (n < 0)
		return -1;
	if (index >= n)
		return bad(m, o, "numbers 'ADD,MAX,MUL,MAD,DIV'");
	static const char *const which[] = {"ADD", "MAX", "MUL", "MAD", "DIV"};
	char note[32];
	snprintf(note, sizeof note, "%s", n > 1 ? which[index] : "");
	return set_num(m, key, v[index], n > 1 ? note : NULL, FROM(o));
}

static int map_core(struct imp *m)
{
	/* Accel-Sim's configs spell the tensor latency "tesnor" (gpu-sim.cc) */
	return map_op(m, "-ptx_opcode_latency_int", NULL, 0, "core.alu_latency_cycles") ||
	       map_op(m, "-ptx_opcode_latency_int", NULL, 3, "core.imad_latency_cycles") ||
	       map_op(m, "-ptx_opcode_latency_fp", NULL, 3, "core.fma_latency_cycles") ||
	       map_op(m, "-ptx_opcode_latency_dp", NULL, 3, "core.dp_latency_cycles") ||
	       map_op(m, "-ptx_opcode_latency_sfu", NULL, 0, "core.sfu_latency_cycles") ||
	       map_op(m, "-ptx_opcode_latency_tesnor", "-ptx_opcode_latency_tensor", 0,
		      "core.tensor_latency_cycles") ||
	       map_op(m, "-ptx_opcode_initiation_int", NULL, 0, "core.alu_interval_cycles") ||
	       map_op(m, "-ptx_opcode_initiation_int", NULL, 3, "core.imad_interval_cycles") ||
	       map_op(m, "-ptx_opcode_initiation_fp", NULL, 3, "core.fma_interval_cycles") ||
	       map_op(m, "-ptx_opcode_initiation_dp", NULL, 3, "core.dp_interval_cycles") ||
	       map_op(m, "-ptx_opcode_initiation_sfu", NULL, 0, "core.sfu_interval_cycles") ||
	       map_op(m, "-ptx_opcode_initiation_tensor", NULL, 0, "core.tensor_interval_cycles")
		       ? -1 : 0;
}

/* "nbk=16:CCD=1:RCD=12:...": the value of name, in DRAM cycles */
static int timing_field(struct imp *m, const struct gpuvm_gs_option *o, const char *name, double *out)
{
	size_t n = strlen(name);
	for (const char *p = o->value; *p;) {
		while (*p == ':' || *p == ' ')
			p++;
		if (!strncmp(p, name, n) && p[n] == '=') {
			p += n + 1;
			if (gpuvm_read_double(m->err, o->file, o->line, o->name, &p, 0, 1e6, out))
				return -1;
			if (*p && *p != ':' && *p != ' ')
				return bad(m, o, "'name=cycles:name=cycles...'");
			return 1;
		}
		while (*p && *p != ':')
			p++;
	}
	return 0;
}

static int map_memory(struct imp *m)
{
	struct gpuvm_gs_option *o, *o2, *nmem = use(m, "-gpgpu_n_mem"), *nsub = use(m, "-gpgpu_n_sub_partition_per_mchannel");
	double channels = 0, subs = 1, v[4];
	if ((nmem && num(m, nmem, 1, 1024, &channels)) || (nsub && num(m, nsub, 1, 64, &subs)))
		return -1;
	/* a base without a slice limit (l2.slices = 0) keeps none: its
	 * slice_bytes_per_cycle is not set either */
	if (nmem && set_num(m, "dram.channels", channels, "memory channels (GPGPU-Sim's memory partitions)", FROM(nmem)))
		return -1;
	struct gs_cache c;
	if ((o = use(m, "-gpgpu_cache:dl2"))) {
		if (!nmem)
			return gpuvm_fail(m->err, o->file, o->line, o->name,
					  "an L2 size needs -gpgpu_n_mem (the L2 string is per sub-partition)");
		if (cache_geometry(m, o, &c))
			return -1;
		const char *note = "per sub-partition: sets x line x ways x channels x sub-partitions";
		if ((nsub ? set_num(m, "l2.size", c.sets * c.line * c.ways * channels * subs, note, FROM(o, nmem, nsub))
			  : set_num(m, "l2.size", c.sets * c.line * c.ways * channels, note, FROM(o, nmem))) ||
		    set_num(m, "l2.ways", c.ways, NULL, FROM(o)) || set_num(m, "l2.line_size", c.line, NULL, FROM(o)) ||
		    set_num(m, "l2.sector_size", c.sectored ? 32 : c.line,
			    c.sectored ? "S: 32-byte sectors (GPGPU-Sim SECTOR_SIZE)" : "N: unsectored, the line", FROM(o)) ||
		    (cfg_num(m->cfg, "l2.slices") &&
		     (nsub ? set_num(m, "l2.slices", channels * subs, "one per sub-partition", FROM(nmem, nsub))
			   : set_num(m, "l2.slices", channels, "one per sub-partition", FROM(nmem)))))
			return -1;
	}
	if ((o = use(m, "-gpgpu_l2_rop_latency")) &&
	    (num(m, o, 0, 1e7, &v[0]) ||
	     set_num(m, "l2.hit_latency_cycles", v[0], "core cycles (l2cache.cc: the ROP queue counts core cycles)", FROM(o))))
		return -1;
	if ((o = use(m, "-dram_latency")) &&
	    (num(m, o, 0, 1e7, &v[0]) || set_num(m, "dram.latency_cycles", v[0], "core cycles", FROM(o))))
		return -1;
	/* peak = channels x chips per channel x bus bytes x DRAM clock x data
	 * transfers per command clock (gpu-sim.cc: "-gpgpu_dram_buswidth ...
	 * 4 bytes (8 bytes per cycle at DDR)"; dram_data_command_freq_ratio 2
	 * for DDR/HBM, 4 for GDDR5) */
	struct gpuvm_gs_option *bus = gpuvm_gs_find(m->gs, "-gpgpu_dram_buswidth"),
			       *per = gpuvm_gs_find(m->gs, "-gpgpu_n_mem_per_ctrlr"),
			       *ratio = gpuvm_gs_find(m->gs, "-dram_data_command_freq_ratio"),
			       *clk = gpuvm_gs_find(m->gs, "-gpgpu_clock_domains");
	if (nmem && bus && m->dram_mhz) {
		double b, p = 1, r = 1;
		use(m, bus->name);
		if (num(m, bus, 1, 1 << 20, &b) || (per && num(m, per, 1, 1024, &p)) ||
		    (ratio && num(m, ratio, 1, 64, &r)))
			return -1;
		if (per)
			use(m, per->name);
		if (ratio)
			use(m, ratio->name);
		double gb_s = channels * p * b * m->dram_mhz * r / 1000;
		struct gpuvm_gs_option *f[5] = {nmem, bus, clk, per, ratio};
		int nf = 3 + (per != NULL) + (ratio != NULL);
		if (!per)
			f[3] = ratio;
		if (set_num(m, "dram.bandwidth_gb_s", round(gb_s * 1000) / 1000,
			    "channels x chips per channel x bus bytes x DRAM MHz x transfers per clock", f, nf))
			return -1;
	}
	if ((o = use(m, "-gpgpu_dram_timing_opt"))) {
		double nbk;
		int r = timing_field(m, o, "nbk", &nbk);
		if (r < 0 || (r > 0 && set_num(m, "dram.banks", nbk, "nbk", FROM(o))))
			return -1;
		static const char *const f[][2] = {{"RCD", "dram.trcd_ns"}, {"RP", "dram.trp_ns"},
						   {"CL", "dram.tcas_ns"}, {"CCDL", "dram.tccdl_ns"}};
		for (size_t i = 0; i < 4 && m->dram_mhz; i++) {
			double cyc;
			char note[96];
			if ((r = timing_field(m, o, f[i][0], &cyc)) < 0)
				return -1;
			snprintf(note, sizeof note, "%s = %g DRAM cycles at %g MHz", f[i][0], cyc, m->dram_mhz);
			if (r && (clk ? set_num(m, f[i][1], round(cyc * 1e4 / m->dram_mhz) / 10, note, FROM(o, clk))
				      : set_num(m, f[i][1], round(cyc * 1e4 / m->dram_mhz) / 10, note, FROM(o))))
				return -1;
		}
	}
	if ((o2 = gpuvm_gs_find(m->gs, "-gpgpu_mem_addr_mapping")) && !strncmp(o2->value, "dramid@", 7)) {
		uint64_t bit;
		const char *p = o2->value + 7;
		if (gpuvm_read_u64(m->err, o2->file, o2->line, o2->name, &p, 0, 30, &bit))
			return -1;
		use(m, o2->name);
		if (set_num(m, "dram.interleave", (double)(1ull << bit), "dramid@N: channels interleave every 2^N bytes", FROM(o2)))
			return -1;
	}
	return 0;
}

/* ---- the base ---- */

static bool option_u64(const struct gpuvm_gs_config *gs, const char *name, uint64_t *out)
{
	const struct gpuvm_gs_option *o = gpuvm_gs_find(gs, name);
	return o && gpuvm_num_u64(o->value, strlen(o->value), 0, 1u << 20, out) == GPUVM_NUM_OK;
}

const char *gpuvm_gs_default_base(const struct gpuvm_gs_config *gs)
{
	uint64_t maj, min, cc = 0, sms = 0, per = 1;
	bool has_cc = false, has_sms = option_u64(gs, "-gpgpu_n_clusters", &sms);
	if (option_u64(gs, "-gpgpu_compute_capability_major", &maj) &&
	    option_u64(gs, "-gpgpu_compute_capability_minor", &min)) {
		cc = maj * 10 + min;
		has_cc = true;
	} else {
		has_cc = option_u64(gs, "-gpgpu_ptx_force_max_capability", &cc);
	}
	if (has_sms && option_u64(gs, "-gpgpu_n_cores_per_cluster", &per))
		sms *= per;
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	const char *best = NULL;
	double best_score = INFINITY;
	for (size_t i = 0; cfg && i < gpuvm_shipped_presets_count; i++) {
		struct gpuvm_error err;
		if (gpuvm_config_load(cfg, gpuvm_shipped_presets[i].name, &err))
			continue;
		double score = (has_cc ? fabs((double)cfg->compute_capability - (double)cc) * 1e4 : 0) +
			       (has_sms ? fabs((double)cfg->sms - (double)sms) : 0);
		if (score < best_score) {
			best_score = score;
			best = gpuvm_shipped_presets[i].name;
		}
	}
	free(cfg);
	return best;
}

/* ---- the preset text ---- */

struct text {
	char *s;
	size_t n, cap;
	bool oom;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
	for (int round = 0; round < 2 && !t->oom; round++) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0) {
			t->oom = true;
			return;
		}
		if (t->s && t->n + (size_t)w < t->cap) {
			t->n += (size_t)w;
			return;
		}
		size_t cap = (t->cap + (size_t)w + 1) * 2;
		char *s = realloc(t->s, cap);
		if (!s) {
			t->oom = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

/* A comment over as many lines as it needs: a preset's lines are at most
 * 198 characters (config_load.c); these stay within 100 where the words
 * allow, and a word over 150 is cut. */
static void put_wrapped(struct text *t, const char *lead, const char *text)
{
	size_t col = 0;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (!col || col + 1 + w > 100) {
			put(t, "%s%s", col ? "\n" : "", col ? "#      " : lead);
			col = strlen(col ? "#      " : lead);
		} else {
			put(t, " ");
			col++;
		}
		if (w > 150)
			put(t, "%.147s...", p);
		else
			put(t, "%.*s", (int)w, p);
		col += w > 150 ? 150 : w;
		p += w;
	}
	if (col)
		put(t, "\n");
}

/* Whether a preset sets key: not a level above tlb.levels, not an empty
 * sharing map (a map exists only with share = map). */
static bool key_written(const struct gpuvm_config *cfg, const char *key, const char *val)
{
	if (strncmp(key, "tlb.l", 5) || key[5] < '1' || key[5] > '9' || key[6] != '.')
		return true;
	if ((uint32_t)(key[5] - '0') > cfg->tlb_levels)
		return false;
	return strcmp(key + 7, "share_map") || *val;
}

static const struct gs_cite *cite_of(const struct imp *m, const char *key)
{
	for (size_t i = 0; i < m->n_cite; i++)
		if (!strcmp(m->cite[i].key, key))
			return &m->cite[i];
	return NULL;
}

/* Every key a preset sets, grouped by [section] in the order the key
 * table first names each section. */
static void write_keys(struct text *t, const struct imp *m, const char *description)
{
	const char *keys[GPUVM_CONFIG_MAX_KEYS];
	size_t n = 0;
	for (const char *k; n < GPUVM_CONFIG_MAX_KEYS && (k = gpuvm_config_key_at(NULL, n));)
		keys[n++] = k;
	bool done[GPUVM_CONFIG_MAX_KEYS] = {false};
	char *val = malloc(GS_VALUE);
	if (!val) {
		t->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		size_t sl = (size_t)(strrchr(keys[i], '.') - keys[i]);
		bool header = false;
		for (size_t j = i; j < n; j++) {
			if (done[j] || strlen(keys[j]) <= sl || strncmp(keys[j], keys[i], sl + 1) ||
			    strchr(keys[j] + sl + 1, '.'))
				continue;
			done[j] = true;
			if (gpuvm_config_get(m->cfg, keys[j], val, GS_VALUE) || !key_written(m->cfg, keys[j], val))
				continue;
			if (!header)
				put(t, "\n[%.*s]\n", (int)sl, keys[i]);
			header = true;
			const struct gs_cite *c = cite_of(m, keys[j]);
			if (!strcmp(keys[j], "gpu.description"))
				put(t, "%s = %s\n", keys[j] + sl + 1, description);
			else if (c) {
				put_wrapped(t, "# [AS] ", c->text);
				put(t, "%s = %s\n", keys[j] + sl + 1, val);
			} else
				put(t, "%s = %s\n", keys[j] + sl + 1, val);
		}
	}
	free(val);
}

/* The text loads back as a preset to the configuration it was written
 * from, key for key. */
static int verify(const struct imp *m, const char *text, const char *name, struct gpuvm_error *err)
{
	struct gpuvm_config *back = malloc(sizeof *back), *want = malloc(sizeof *want);
	int rc = -1;
	char *a = malloc(GS_VALUE), *b = malloc(GS_VALUE);
	if (!back || !want || !a || !b) {
		rc = gpuvm_fail(err, name, 0, NULL, "out of memory");
		goto out;
	}
	memcpy(want, m->cfg, sizeof *want);
	if (gpuvm_config_finalize(want, err))
		goto out;
	if (gpuvm_config_load_string(back, text, name, err))
		goto out;
	back->require_every_key = true;
	if (gpuvm_config_finalize(back, err))
		goto out;
	rc = 0;
	const char *k;
	for (size_t i = 0; (k = gpuvm_config_key_at(NULL, i)); i++) {
		if (!strcmp(k, "gpu.description"))
			continue;
		int ra = gpuvm_config_get(want, k, a, GS_VALUE), rb = gpuvm_config_get(back, k, b, GS_VALUE);
		if (ra != rb || (!ra && strcmp(a, b)))
			rc = gpuvm_fail(err, name, 0, k, "internal: written as '%s', reads back as '%s'", a, b);
		if (rc)
			break;
	}
out:
	free(a);
	free(b);
	free(back);
	free(want);
	return rc;
}

int gpuvm_gs_import(struct gpuvm_gs_config *gs, const char *base, const char *name,
		    struct gpuvm_gs_result *out, struct gpuvm_error *err)
{
	*out = (struct gpuvm_gs_result){0};
	if (!base && !(base = gpuvm_gs_default_base(gs)))
		return gpuvm_fail(err, gs->path, 0, NULL, "no shipped preset to start from");
	snprintf(out->base, sizeof out->base, "%s", base);
	struct imp *m = calloc(1, sizeof *m);
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	int rc = -1;
	struct text t = {0}, notes = {0};
	if (!m || !cfg) {
		rc = gpuvm_fail(err, gs->path, 0, NULL, "out of memory");
		goto out;
	}
	*m = (struct imp){.gs = gs, .cfg = cfg, .err = err};
	for (size_t i = 0; i < gs->n; i++) {
		gs->opt[i].used = false;
		gs->opt[i].why = NULL;
	}
	if (gpuvm_config_load(cfg, base, err))
		goto out;
	if (map_gpu(m) || map_l1_smem(m) || map_core(m) || map_memory(m))
		goto out;
	/* a key that no longer fits the others (the base's mem.partitions
	 * and a new channel count): finalize names it and where it was set */
	struct gpuvm_config *check = malloc(sizeof *check);
	if (!check) {
		rc = gpuvm_fail(err, gs->path, 0, NULL, "out of memory");
		goto out;
	}
	memcpy(check, cfg, sizeof *check);
	rc = gpuvm_config_finalize(check, err);
	free(check);
	if (rc) {
		char msg[sizeof err->msg];
		snprintf(msg, sizeof msg, "%s", err->msg);
		gpuvm_fail(err, NULL, 0, NULL, "%s (the imported values do not fit base '%s'; "
			   "try another --base or fix the option)", msg, base);
		goto out;
	}
	rc = -1;

	char description[200];
	snprintf(description, sizeof description, "%s imported from Accel-Sim/GPGPU-Sim %s on base %s",
		 name, base_name(gs->path), base);
	for (char *p = description; *p; p++)
		if (*p == ';' || *p == '#')
			*p = '_';
	put(&t, "# %s: a gpuvm preset made by `gpuvm presets import` (docs/presets.md)\n"
		"#   from: %s (an Accel-Sim / GPGPU-Sim gpgpusim.config)\n"
		"#   base: %s - every key without an [AS] comment keeps the base's value\n"
		"# [AS] on a key: the gpgpusim.config option(s) and value(s) it came from (file:line).\n"
		"#\n# Options with no gpuvm counterpart (not imported):\n",
	    name, gs->path, base);
	for (size_t i = 0; i < gs->n; i++) {
		const struct gpuvm_gs_option *o = &gs->opt[i];
		if (o->used)
			continue;
		out->n_unmapped++;
		char line[400];
		snprintf(line, sizeof line, "%s %s (%s:%d)%s%s", o->name, o->value, base_name(o->file), o->line,
			 o->why ? ": " : "", o->why ? o->why : "");
		put_wrapped(&t, "#   ", line);
		put(&notes, "unmapped: %s %s (%s:%d)%s%s\n", o->name, o->value, o->file, o->line,
		    o->why ? ": " : "", o->why ? o->why : "");
	}
	put(&t, "#\n# Keys left at the base's value (%s):", base);
	size_t col = 80, notes_col = 0;
	const char *k;
	char *val = malloc(GS_VALUE);
	if (!val) {
		t.oom = true;
		goto out;
	}
	for (size_t i = 0; (k = gpuvm_config_key_at(NULL, i)); i++) {
		if (cite_of(m, k) || !strcmp(k, "gpu.description") || gpuvm_config_get(cfg, k, val, GS_VALUE) ||
		    !key_written(cfg, k, val))
			continue;
		out->n_base_keys++;
		if (col + strlen(k) > 76) {
			put(&t, "\n#  ");
			col = 3;
		}
		put(&t, " %s", k);
		col += strlen(k) + 1;
		if (!notes_col || notes_col + strlen(k) > 100) {
			put(&notes, "%skept from base %s:", notes_col ? "\n" : "", base);
			notes_col = strlen(base) + 16;
		}
		put(&notes, " %s", k);
		notes_col += strlen(k) + 1;
	}
	free(val);
	put(&t, "\n");
	if (notes_col)
		put(&notes, "\n");
	out->n_imported = m->n_cite;
	write_keys(&t, m, description);
	if (t.oom || notes.oom) {
		rc = gpuvm_fail(err, gs->path, 0, NULL, "out of memory");
		goto out;
	}
	if (verify(m, t.s, name, err))
		goto out;
	out->ini = t.s;
	out->notes = notes.s ? notes.s : calloc(1, 1);
	t.s = notes.s = NULL;
	rc = out->notes ? 0 : gpuvm_fail(err, gs->path, 0, NULL, "out of memory");
out:
	free(t.s);
	free(notes.s);
	free(cfg);
	free(m);
	return rc;
}

void gpuvm_gs_result_free(struct gpuvm_gs_result *r)
{
	free(r->ini);
	free(r->notes);
	*r = (struct gpuvm_gs_result){0};
}
