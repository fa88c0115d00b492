/* The scope advice: an analytic bottleneck model of a scoped workload on a
 * preset (docs/scoping.md has the derivation).
 *
 * A run with scope S over a random region R is P = ceil(R / S) passes;
 * pass p touches a sub-region r_p = min(S, R - p S), a fraction
 * f_p = r_p / R of the random accesses, but every thread still runs every
 * loop iteration (regenerating its LCG stream or re-reading its input), so
 * the compute, the scope test and - for a warp with any lane in scope -
 * the memory latency are paid again in every pass.
 *
 * Translation, for accesses uniform over r: level i (reach c_i = entries x
 * entry size, per instance) is missed with m_i = 1 - c_i / r (clamped, and
 * never above the level before). A miss at level i holds one of its MSHRs
 * until everything below answers, so per access it costs level i's MSHRs
 * D_i = sum_{j>=i} m_j penalty_j + m_n walk server-cycles; the walkers
 * cost m_n walk. The load latency is the preset's L2-hit baseline, the
 * DRAM latency for the share of r that misses L2, plus hit_1 + D_1.
 *
 * Each launch of a pass then takes the largest of (all in cycles):
 *   issue    warps x iters x (insts + q x random insts) / (SMs x issue rate)
 *   latency  waves x iters x (chain + stream latency + q x random insts x L),
 *            with k iterations' loads in flight together (random_in_flight)
 *            q x L becomes (1 - (1 - q)^k) x L / k, one wait per group,
 *            chain = the compute's dependent chain x core.alu_latency_cycles
 *   l1       translations x (line / l1.bytes_per_cycle) / SMs: the L1 stage
 *            passes one line per cycle, and each random lane is a line
 *   dram     (in-scope accesses x sectors missing L2 + buffer bytes) / bandwidth,
 *            the random sectors at most a row cycle per bank (dram.banks)
 *   link     zero-copy bytes / host-link bandwidth
 *   mshr_i   translations x D_i / (MSHRs x instances of level i)
 *   walkers  translations x m_n x walk / walkers
 * plus the launch overhead, where translations = in-scope iterations x
 * random instructions per iteration, and q = 1 - (1 - f_p)^32 is the chance that
 * a warp has a lane in scope and so issues (and waits for) the access.
 * The run's time is the sum over passes and launches. */
#include "workloads/scope_model.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuvm/units.h"
#include "gpuvm/link_rate.h"
#include "workloads/hash_groupby.h"
#include "workloads/random_sampling.h"

/* Smallest scope the advice tries: below the smallest L1 TLB reach of the
 * shipped presets (2 MB on k80), where Karnagel §6 found more passes only
 * cost more ("smaller TLB scopes were also tested ... prevent performance
 * improvement"). */
#define SCOPE_MIN_CANDIDATE_BYTES (1ull << 20)

enum bound_id { B_ISSUE, B_LATENCY, B_DRAM, B_LINK, B_WALKERS, B_L1, B_MSHR };

static const char *bound_name(int b)
{
	static const char *const names[] = {"issue", "latency", "dram", "host-link", "walkers",
					    "l1 stage"};
	static const char *const mshr[] = {"tlb.l1 mshrs", "tlb.l2 mshrs", "tlb.l3 mshrs",
					   "tlb.l4 mshrs"};
	return b >= B_MSHR ? mshr[b - B_MSHR] : names[b];
}

/* Cycles of one launch of pass p with sub-region r (bytes) of P passes. */
static double launch_cycles(const struct gpuvm_config *cfg, const struct scope_profile *prof,
			    uint32_t passes, uint32_t p, double r, int *bound)
{
	double f = r / (double)prof->region_bytes;
	double lanes = prof->threads < GPUVM_WARP_LANES ? prof->threads : GPUVM_WARP_LANES;
	double q = passes > 1 ? 1.0 - pow(1.0 - f, lanes) : 1.0;
	double warps = ceil(prof->threads / GPUVM_WARP_LANES);
	double resident = (double)cfg->sms * cfg->max_warps_per_sm;
	double waves = ceil(warps / resident);
	double lane_iters = prof->threads * prof->iters;
	double in_scope = lane_iters * f; /* in-scope iterations of this launch */
	/* Each random instruction translates on its own: with thousands of
	 * pages in flight per SM, a lane's entry is gone from the small TLBs
	 * by its next instruction (the group-by's atomicAdd after its CAS). */
	double translations = in_scope * prof->random_insts;

	/* Translation: miss chains and MSHR occupancy per access. */
	double m[GPUVM_MAX_TLB_LEVELS], prev = 1.0;
	uint32_t n = cfg->tlb_levels;
	for (uint32_t i = 0; i < n; i++) {
		double reach = (double)cfg->tlb[i].entries * (double)cfg->tlb[i].entry_bytes;
		double miss = r > reach ? 1.0 - reach / r : 0.0;
		m[i] = miss < prev ? miss : prev;
		prev = m[i];
	}
	double walk = m[n - 1] * cfg->walk_latency_cycles;
	double d[GPUVM_MAX_TLB_LEVELS], below = walk;
	for (uint32_t i = n; i-- > 0;) {
		/* the next level's lookup, then this level's penalty if it missed */
		double next_hit = i + 1 < n ? m[i] * cfg->tlb[i + 1].hit_latency_cycles : 0;
		below += m[i] * cfg->tlb[i].miss_penalty_cycles + next_hit;
		d[i] = below;
	}
	double l2_hit_share = r <= (double)cfg->l2_bytes ? 1.0 : (double)cfg->l2_bytes / r;
	double load = cfg->load_base_latency_cycles + cfg->l2_hit_latency_cycles;
	double random_latency = load + (1 - l2_hit_share) * cfg->dram_latency_cycles +
				cfg->tlb[0].hit_latency_cycles + d[0];

	/* The streamed input of this pass. */
	double clock_hz = cfg->clock_mhz * 1e6;
	double link_bytes = 0, dram_stream_bytes = 0, stream_latency = 0, stream_insts = 0;
	double stream_bytes = lane_iters * prof->stream_bytes;
	if (prof->stream != SCOPE_STREAM_NONE) {
		stream_insts = 1;
		if (prof->stream == SCOPE_STREAM_NAIVE || p == 0) {
			link_bytes = stream_bytes;
			stream_latency = load + cfg->pcie_latency_ns * 1e-9 * clock_hz;
			if (prof->stream == SCOPE_STREAM_COPY && passes > 1) {
				dram_stream_bytes = stream_bytes; /* the buffer write */
				stream_insts = 2;
			}
		} else {
			dram_stream_bytes = stream_bytes; /* the buffer read */
			stream_latency = load + cfg->dram_latency_cycles;
		}
	}

	double insts = prof->compute_insts + (passes > 1 ? prof->scope_insts : 0);
	/* a warp's compute waits for its dependent chain at the ALU latency */
	double chain = prof->chain_insts > 0 && prof->chain_insts < insts ? prof->chain_insts : insts;
	double compute_latency = chain * cfg->class_latency_cycles[GPUVM_CLASS_ALU];
	if (compute_latency < insts)
		compute_latency = insts;
	double t[B_MSHR + GPUVM_MAX_TLB_LEVELS];
	int nt = B_MSHR + (int)n;
	t[B_ISSUE] = warps * prof->iters * (insts + stream_insts + q * prof->random_insts) /
		     (cfg->sms * cfg->issue_warp_insts_per_cycle);
	/* k iterations' random loads in flight together cost one latency per
	 * group, waited for when any of them has a lane in scope: per
	 * iteration (1 - (1 - q)^k) / k of it (q itself for k = 1) */
	double k = prof->random_in_flight > 1 ? prof->random_in_flight : 1;
	double q_wait = k > 1 ? (1.0 - pow(1.0 - q, k)) / k : q;
	t[B_LATENCY] = waves * prof->iters *
		       (compute_latency + stream_latency +
			q_wait * prof->random_insts * random_latency);
	/* the L1 stage passes one line per cycle: a random lane is a line */
	t[B_L1] = translations * (cfg->l2_line_bytes / cfg->l1_bytes_per_cycle) / cfg->sms;
	double random_dram_sectors = in_scope * prof->random_sectors * (1 - l2_hit_share);
	double random_dram = random_dram_sectors * cfg->l2_sector_bytes * clock_hz /
			     (cfg->dram_bandwidth_gb_s * 1e9);
	if (cfg->dram_banks) {
		/* random sectors are row misses: each holds its bank for a
		 * row cycle (src/mem/dram_model.h) */
		double row_cycle = (cfg->dram_trp_ns + cfg->dram_trcd_ns + cfg->dram_tcas_ns) *
				   cfg->clock_mhz * 1e-3;
		double banked = random_dram_sectors * row_cycle /
				((double)cfg->dram_channels * cfg->dram_banks);
		if (banked > random_dram)
			random_dram = banked;
	}
	t[B_DRAM] = random_dram + dram_stream_bytes * clock_hz / (cfg->dram_bandwidth_gb_s * 1e9);
	t[B_LINK] = link_bytes * clock_hz / (gpuvm_pcie_effective_gb_s(cfg->pcie_bandwidth_gb_s) * 1e9);
	t[B_WALKERS] = translations * walk / cfg->walkers;
	for (uint32_t i = 0; i < n; i++)
		t[B_MSHR + i] = translations * d[i] / ((double)cfg->tlb[i].mshrs * cfg->tlb[i].instances);
	int best = 0;
	for (int b = 1; b < nt; b++)
		if (t[b] > t[best])
			best = b;
	*bound = best;
	/* each pass is a launch: its overhead after the pass before, or,
	 * where launches pipeline (src/system/run_loop.c), a pass takes the
	 * host's period at least and hides the overhead behind it */
	if (cfg->kernel_launch_period_us > 0) {
		double period = cfg->kernel_launch_period_us * cfg->clock_mhz;
		return t[best] > period ? t[best] : period;
	}
	return t[best] + cfg->kernel_launch_us * cfg->clock_mhz;
}

double scope_model_predict(const struct gpuvm_config *cfg, const struct scope_profile *prof,
			   uint64_t scope_bytes, const char **bound)
{
	uint64_t region = prof->region_bytes;
	uint64_t s = scope_bytes && scope_bytes < region ? scope_bytes : region;
	uint32_t passes = (uint32_t)((region + s - 1) / s);
	double cycles = 0, worst = -1;
	int b = 0;
	for (uint32_t p = 0; p < passes; p++) {
		uint64_t r = region - (uint64_t)p * s < s ? region - (uint64_t)p * s : s;
		int pb;
		double c = prof->launches * launch_cycles(cfg, prof, passes, p, (double)r, &pb);
		if (c > worst) {
			worst = c;
			b = pb;
		}
		cycles += c;
	}
	if (bound)
		*bound = bound_name(b);
	return cycles / (cfg->clock_mhz * 1e6);
}

static void add_candidate(const struct gpuvm_config *cfg, const struct scope_profile *prof,
			  struct gpuvm_scope_advice *adv, uint64_t scope)
{
	struct gpuvm_scope_candidate *c = &adv->c[adv->n++];
	const char *bound;
	c->scope_bytes = scope;
	c->passes = scope ? (uint32_t)((prof->region_bytes + scope - 1) / scope) : 1;
	c->predicted_seconds = scope_model_predict(cfg, prof, scope, &bound);
	snprintf(c->bound, sizeof c->bound, "%s", bound);
}

void scope_model_advise(const struct gpuvm_config *cfg, const struct scope_profile *prof,
			struct gpuvm_scope_advice *adv)
{
	memset(adv, 0, sizeof *adv);
	snprintf(adv->workload, sizeof adv->workload, "%s", prof->workload);
	adv->region_bytes = prof->region_bytes;
	adv->tlb_levels = cfg->tlb_levels;
	for (uint32_t i = 0; i < cfg->tlb_levels; i++)
		adv->tlb_reach_bytes[i] = (uint64_t)cfg->tlb[i].entries * cfg->tlb[i].entry_bytes;
	add_candidate(cfg, prof, adv, 0);
	/* Powers of two below the region, largest first, while passes stay sane. */
	uint64_t s = 1ull << 62;
	while (s >= prof->region_bytes)
		s >>= 1;
	for (; s >= SCOPE_MIN_CANDIDATE_BYTES && adv->n < GPUVM_SCOPE_MAX_CANDIDATES; s >>= 1) {
		if ((prof->region_bytes + s - 1) / s > SCOPE_MAX_PASSES)
			break;
		add_candidate(cfg, prof, adv, s);
	}
	adv->best = 0;
	for (size_t i = 1; i < adv->n; i++)
		if (adv->c[i].predicted_seconds < adv->c[adv->best].predicted_seconds * (1 - 1e-9))
			adv->best = i;
}

int scope_plan_parse(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		     const struct scope_profile *prof, struct scope_plan *plan,
		     struct gpuvm_error *err)
{
	memset(plan, 0, sizeof *plan);
	plan->passes = 1;
	const char *v = gpuvm_params_text(p, "scope");
	if (!v || !strcmp(v, "none") || !strcmp(v, "0"))
		return 0;
	uint64_t s;
	if (!strcmp(v, "auto")) {
		struct gpuvm_scope_advice adv;
		scope_model_advise(cfg, prof, &adv);
		s = adv.c[adv.best].scope_bytes;
		plan->automatic = 1;
		if (!s)
			return 0;
	} else if (gpuvm_parse_size(v, &s)) {
		return gpuvm_fail(err, "--workload", 0, "scope",
				  "'%s': expected a size such as 2GiB, 'auto' or 'none'", v);
	}
	if (s < 4096 || s % 8)
		return gpuvm_params_constraint(err, "scope",
					       "a multiple of 8 B and at least 4KiB (got %s)", v);
	if (s >= prof->region_bytes)
		return 0; /* one pass: the unscoped kernel */
	uint64_t passes = (prof->region_bytes + s - 1) / s;
	if (passes > SCOPE_MAX_PASSES)
		return gpuvm_fail(err, "--workload", 0, "scope",
				  "%s gives %" PRIu64 " passes over the region; at most %d", v, passes,
				  SCOPE_MAX_PASSES);
	plan->scope_bytes = s;
	plan->passes = (uint32_t)passes;
	return 0;
}

int gpuvm_scope_advise(const struct gpuvm_config *cfg, const char *workload_spec,
		       struct gpuvm_scope_advice *adv, struct gpuvm_error *err)
{
	const struct gpuvm_workload_def *def;
	struct gpuvm_params params;
	if (gpuvm_workload_parse(workload_spec, &def, &params, err))
		return -1;
	struct scope_profile prof;
	int rc;
	if (!strcmp(def->name, "random-sampling"))
		rc = sampling_scope_profile(cfg, &params, &prof, err);
	else if (!strcmp(def->name, "hash-groupby"))
		rc = groupby_scope_profile(cfg, &params, &prof, err);
	else
		return gpuvm_fail(err, "--scope", 0, NULL,
				  "workload '%s' has no TLB scopes (random-sampling and "
				  "hash-groupby do)", def->name);
	if (rc)
		return -1;
	scope_model_advise(cfg, &prof, adv);
	return 0;
}

void gpuvm_scope_advice_print(FILE *out, const struct gpuvm_scope_advice *adv)
{
	char buf[32], reach[160] = "";
	gpuvm_format_size(adv->region_bytes, buf, sizeof buf);
	for (uint32_t i = 0; i < adv->tlb_levels; i++) {
		char r[32];
		gpuvm_format_size(adv->tlb_reach_bytes[i], r, sizeof r);
		size_t len = strlen(reach);
		snprintf(reach + len, sizeof reach - len, "%sL%u %s", i ? ", " : "", i + 1, r);
	}
	fprintf(out, "scope advice for %s over a %s region (TLB reach per instance: %s)\n",
		adv->workload, buf, reach);
	fprintf(out, "  %-10s %7s %14s  %s\n", "scope", "passes", "predicted_s", "bound by");
	for (size_t i = 0; i < adv->n; i++) {
		const struct gpuvm_scope_candidate *c = &adv->c[i];
		if (c->scope_bytes)
			gpuvm_format_size(c->scope_bytes, buf, sizeof buf);
		else
			snprintf(buf, sizeof buf, "none");
		fprintf(out, "  %-10s %7u %14.6g  %s%s\n", buf, c->passes, c->predicted_seconds,
			c->bound, i == adv->best ? "   <- chosen" : "");
	}
	const struct gpuvm_scope_candidate *b = &adv->c[adv->best];
	double unscoped = adv->c[0].predicted_seconds;
	if (b->scope_bytes) {
		gpuvm_format_size(b->scope_bytes, buf, sizeof buf);
		fprintf(out, "chose scope %s: %u passes, predicted %.2fx faster than unscoped\n", buf,
			b->passes, unscoped / b->predicted_seconds);
	} else {
		fprintf(out, "chose no scope: every scoped candidate is predicted slower\n");
	}
}
