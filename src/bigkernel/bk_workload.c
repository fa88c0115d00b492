/* bigkernel: one Table 4.1 application run through BigKernel's pipeline
 * and its baselines (bk_runtime.h; Mokhtari's thesis, seeds/001, ch. 4).
 * The result line holds every variant's time on the overlapped
 * timeline (whole microseconds, so that it fits the report's 255
 * characters) and BigKernel's busy time per stage; the
 * engine's own sim_seconds is the sum of all stages of all variants run
 * one after the other and is not a variant's time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigkernel/bk_runtime.h"
#include "gpuvm/units.h"
#include "workloads/workload_util.h"

#define APP_CHOICES "kmeans|wc|netflix|of|dna|mca|mca-indexed"

/* One CPU thread's copy rate, measured on this project's build host
 * (AMD EPYC, 2 cores; median of 3 runs, 15.6-16.0 GB/s):
 *   python3 -c "import time; b=bytearray(b'x'*(1<<28)); c=bytearray(1<<28);
 *     c[:]=b; t=time.perf_counter(); [c.__setitem__(slice(None), b) for _ in range(8)];
 *     print(8*(1<<28)/(time.perf_counter()-t)/1e9)"
 * (bytearray slice assignment is one memmove of 256 MiB into touched
 * pages). The thesis gives no host copy rate (4.4: a 3.8 GHz Xeon E5,
 * quad-channel DDR3-1800). */
#define HOST_COPY_GB_S "16"

struct bk_job {
	struct bk_opts o;
	unsigned app;
};

static int bk_host(struct simt_host *h, void *user)
{
	const struct bk_job *j = user;
	struct bk_run r;
	memset(&r, 0, sizeof r);
	r.h = h;
	r.o = &j->o;
	r.app = bk_apps[j->app];
	int rc = bk_run_all(&r);
	if (!rc) {
		const struct bk_variant *v = r.v, *bk = &v[BK_V_BIGKERNEL];
		char um[32] = "", np[32] = "", vr[32] = "";
		if (r.ran[BK_V_UM])
			snprintf(um, sizeof um, " um_us=%.0f", v[BK_V_UM].seconds * 1e6);
		if (r.ran[BK_V_VOLUME])
			snprintf(vr, sizeof vr, " vr_us=%.0f", v[BK_V_VOLUME].seconds * 1e6);
		if (r.ran[BK_V_BK_NOPAT])
			snprintf(np, sizeof np, " bknp_us=%.0f", v[BK_V_BK_NOPAT].seconds * 1e6);
		char cpu[32] = "", line[512];
		if (j->o.cpu_time)
			snprintf(cpu, sizeof cpu, " cpu_us=%.0f", r.cpu_ref_s * 1e6);
		int n;
		if (r.ran[BK_V_BK_SL1]) {
			/* Fig. 5.14's line: the S-L1 variant and its cache instead of
			 * the chapter-4 extras (they are not run with sl1=1) */
			const struct sl1_stats *st = &r.sl1_stats;
			unsigned long long acc = st->hits + st->misses + st->uncached + st->monitored;
			unsigned long long hm = st->hits + st->misses;
			n = snprintf(line, sizeof line,
				     "verify=pass app=%s single_us=%.0f double_us=%.0f bk_us=%.0f bkser_us=%.0f%s "
				     "bksl1_us=%.0f sl1_comp_us=%.0f cln=%d sl1_hit=%.3f sl1_cached=%.3f "
				     "ag_us=%.0f asm_us=%.0f h2d_us=%.0f comp_us=%.0f base_comp_us=%.0f",
				     r.app->name, v[BK_V_SINGLE].seconds * 1e6, v[BK_V_DOUBLE].seconds * 1e6,
				     bk->seconds * 1e6, bk->serial_s * 1e6, cpu, v[BK_V_BK_SL1].seconds * 1e6,
				     v[BK_V_BK_SL1].stage_s[BK_ST_COMPUTE] * 1e6, r.sl1_cln,
				     hm ? (double)st->hits / (double)hm : 0.0, acc ? (double)hm / (double)acc : 0.0,
				     bk->stage_s[BK_ST_ADDRGEN] * 1e6, bk->stage_s[BK_ST_ASSEMBLE] * 1e6,
				     bk->stage_s[BK_ST_H2D] * 1e6, bk->stage_s[BK_ST_COMPUTE] * 1e6,
				     v[BK_V_SINGLE].stage_s[BK_ST_COMPUTE] * 1e6);
		} else {
			n = snprintf(
				line, sizeof line,
				"verify=pass app=%s single_us=%.0f double_us=%.0f bk_us=%.0f bkser_us=%.0f ovl_us=%.0f%s%s%s%s "
				"ag_us=%.0f asm_us=%.0f h2d_us=%.0f comp_us=%.0f base_comp_us=%.0f "
				"mb=%.2f bk_mb=%.2f addr_kb=%.1f",
				r.app->name, v[BK_V_SINGLE].seconds * 1e6, v[BK_V_DOUBLE].seconds * 1e6,
				bk->seconds * 1e6, bk->serial_s * 1e6, v[BK_V_OVERLAP].seconds * 1e6, vr, np, um, cpu,
				bk->stage_s[BK_ST_ADDRGEN] * 1e6, bk->stage_s[BK_ST_ASSEMBLE] * 1e6,
				bk->stage_s[BK_ST_H2D] * 1e6, bk->stage_s[BK_ST_COMPUTE] * 1e6,
				v[BK_V_SINGLE].stage_s[BK_ST_COMPUTE] * 1e6, v[BK_V_SINGLE].h2d_bytes / 1e6,
				bk->h2d_bytes / 1e6, bk->addr_bytes / 1e3);
		}
		/* the report keeps 255 characters: fail rather than cut a key */
		if (n < 0 || n > 255)
			rc = simt_fail(h, "bigkernel: the result line is %d characters, more than "
					  "the report's 255", n);
		simt_result(h, "%s", line);
		simt_work_items(h, r.nrec);
	}
	bk_run_free(&r);
	return rc;
}

static const struct gpuvm_param_def bk_params[] = {
	{"app", GPUVM_PARAM_CHOICE, APP_CHOICES,
	 "Table 4.1 application: kmeans, wc (Word Count), netflix, of (Opinion Finder), dna (DNA "
	 "Assembly), mca (MasterCard Affinity), mca-indexed"},
	{"size", GPUVM_PARAM_SIZE, "32MiB", "mapped input in host memory"},
	{"chunk", GPUVM_PARAM_SIZE, "4MiB", "mapped input per chunk (buffer) of the pipeline"},
	{"threads", GPUVM_PARAM_U64, NULL,
	 "computation threads per launch (default: the GPU full, SMs x threads per SM)"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	{"buffers", GPUVM_PARAM_U64, "3",
	 "BigKernel's buffer sets (rezafmk/BRB_HashTable: 3 rotating GPU buffers)"},
	{"host_gb_s", GPUVM_PARAM_DOUBLE, HOST_COPY_GB_S,
	 "one CPU thread's copy rate (GB/s) that times the staging copy and the data assembly "
	 "(measured on the build host; docs/bigkernel.md)"},
	{"cpu_threads", GPUVM_PARAM_U64, "1", "CPU threads assembling BigKernel's data"},
	{"um", GPUVM_PARAM_U64, "1", "1: also run unified memory (the input managed, demand paged)"},
	{"nopat", GPUVM_PARAM_U64, "1", "1: also run BigKernel without pattern recognition (Table 4.2)"},
	{"volume", GPUVM_PARAM_U64, "1",
	 "1: also run BigKernel without interleaving: volume reduction alone (Fig. 4.12)"},
	{"ag_overlap", GPUVM_PARAM_U64, "1",
	 "1: address generation runs beside the computation of another chunk (the thesis's "
	 "half-and-half warps, 4.2) when both fit on the GPU (2 x threads <= SMs x threads per "
	 "SM); 0: they share the GPU serially. bkser_us is always the serial time"},
	{"cpu_time", GPUVM_PARAM_U64, "0",
	 "1: time each application's CPU reference (one thread, thread CPU time) as cpu_us: "
	 "Fig. 4.10's serial CPU run; not deterministic"},
	{"sl1", GPUVM_PARAM_U64, "0",
	 "1: also run BigKernel with S-L1 (ch. 5's software L1 in shared memory) in the "
	 "computation kernel, as bksl1_us (Fig. 5.14; kmeans, wc, of, dna, mca); turns um, "
	 "nopat and volume off (their keys would not fit the result line)"},
	{"wc_lock", GPUVM_PARAM_U64, "1",
	 "Word Count: 1: its hash table's slots are locked for each insert (the thesis's "
	 "centralized table with synchronization, 4.4.1); 0: lock-free CAS and atomic add"},
	{"wc_keys", GPUVM_PARAM_U64, "1",
	 "Word Count, locked table: 1: a slot's key is the word, compared byte by byte under "
	 "the lock (the author's containsKey); 0: the word's 64-bit hash, one compare"},
	{"of_keys", GPUVM_PARAM_U64, "1",
	 "Opinion Finder: 1: its dictionaries hold words, each looked-up word compared byte by "
	 "byte with the entry of its slot (dictionaries of words, 4.4); 0: the words' 64-bit "
	 "hashes, one compare"},
	{"seed", GPUVM_PARAM_U64, "1", "input generator seed"},
};

static const struct gpuvm_param_range bk_ranges[] = {
	GPUVM_RANGE("size", 65536, 4294967296.0),   GPUVM_RANGE("chunk", 4096, 4294967296.0), GPUVM_RANGE("threads", 32, 1 << 22),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),             GPUVM_RANGE("buffers", 2, 16),            GPUVM_RANGE("host_gb_s", 0.01, 10000),
	GPUVM_RANGE("cpu_threads", 1, 256),         GPUVM_RANGE("um", 0, 1),                  GPUVM_RANGE("nopat", 0, 1),
	GPUVM_RANGE("volume", 0, 1),                GPUVM_RANGE("ag_overlap", 0, 1),          GPUVM_RANGE("cpu_time", 0, 1),
	GPUVM_RANGE("sl1", 0, 1),                   GPUVM_RANGE("wc_lock", 0, 1),
	GPUVM_RANGE("wc_keys", 0, 1),               GPUVM_RANGE("of_keys", 0, 1),
};

static int bk_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct bk_job j;
	memset(&j, 0, sizeof j);
	uint64_t block = 256, buffers = 3, cpu = 1, um = 1, nopat = 1, volume = 1, threads = 0;
	uint64_t ag_overlap = 1, cpu_time = 0, sl1 = 0, wc_lock = 1, wc_keys = 1, of_keys = 1;
	j.o.size_bytes = 32u << 20;
	j.o.chunk_bytes = 4u << 20;
	if (gpuvm_parse_double(HOST_COPY_GB_S, &j.o.host_copy_gb_s))
		abort(); /* a constant of this file */
	j.o.seed = 1;
	if (gpuvm_params_choice(p, "app", APP_CHOICES, &j.app, err) < 0 ||
	    gpuvm_params_size(p, "size", &j.o.size_bytes, err) < 0 ||
	    gpuvm_params_size(p, "chunk", &j.o.chunk_bytes, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &block, err) < 0 ||
	    gpuvm_params_u64(p, "buffers", &buffers, err) < 0 ||
	    gpuvm_params_double(p, "host_gb_s", &j.o.host_copy_gb_s, err) < 0 ||
	    gpuvm_params_u64(p, "cpu_threads", &cpu, err) < 0 ||
	    gpuvm_params_u64(p, "um", &um, err) < 0 || gpuvm_params_u64(p, "nopat", &nopat, err) < 0 ||
	    gpuvm_params_u64(p, "volume", &volume, err) < 0 ||
	    gpuvm_params_u64(p, "ag_overlap", &ag_overlap, err) < 0 ||
	    gpuvm_params_u64(p, "cpu_time", &cpu_time, err) < 0 ||
	    gpuvm_params_u64(p, "sl1", &sl1, err) < 0 ||
	    gpuvm_params_u64(p, "wc_lock", &wc_lock, err) < 0 ||
	    gpuvm_params_u64(p, "wc_keys", &wc_keys, err) < 0 ||
	    gpuvm_params_u64(p, "of_keys", &of_keys, err) < 0 ||
	    gpuvm_params_u64(p, "seed", &j.o.seed, err) < 0)
		return -1;
	if (block % GPUVM_WARP_LANES)
		return gpuvm_fail(err, "--workload", 0, "block", "%llu is not a multiple of %d",
				  (unsigned long long)block, GPUVM_WARP_LANES);
	if (j.o.chunk_bytes > j.o.size_bytes)
		return gpuvm_fail(err, "--workload", 0, "chunk", "%llu bytes is more than size=%llu",
				  (unsigned long long)j.o.chunk_bytes, (unsigned long long)j.o.size_bytes);
	j.o.threads = threads ? threads : fill_gpu_threads(cfg);
	j.o.block = (uint32_t)block;
	j.o.buffers = (unsigned)buffers;
	j.o.cpu_threads = (unsigned)cpu;
	j.o.um = (int)um && !sl1;
	j.o.nopat = (int)nopat && !sl1;
	j.o.volume = (int)volume && !sl1;
	/* the thesis's kernel holds both halves resident at once: overlap
	 * only when they fit together */
	j.o.ag_overlap = ag_overlap && 2 * j.o.threads <= fill_gpu_threads(cfg);
	j.o.cpu_time = (int)cpu_time;
	j.o.sl1 = (int)sl1;
	j.o.wc_lock = (int)wc_lock;
	j.o.wc_keys = (int)wc_keys;
	j.o.of_keys = (int)of_keys;
	j.o.sms = cfg->sms;
	j.o.max_warps = cfg->max_warps_per_sm;
	j.o.max_ctas = cfg->max_ctas_per_sm;
	j.o.smem_per_sm = cfg->smem_bytes;
	if (sl1 && !bk_apps[j.app]->sl1_nds)
		return gpuvm_fail(err, "--workload", 0, "sl1",
				  "%s is not an S-L1 application (Table 5.1): sl1=1 needs kmeans, wc, of, "
				  "dna or mca", bk_apps[j.app]->name);
	if (workload_check_launch(j.o.threads, block, err))
		return -1;
	struct bk_job *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = j;
	return simt_program_source("bigkernel", bk_host, u, free, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_bigkernel = {
	.name = "bigkernel",
	.summary = "BigKernel's 4-stage CPU-GPU prefetch pipeline vs single / double buffering and "
		   "unified memory (Mokhtari ch. 4): K-means, Word Count, Netflix, Opinion Finder, "
		   "DNA Assembly, MasterCard Affinity (plain, indexed)",
	.working_set = "size bytes of host input; on the GPU a chunk, BigKernel's data buffer, and "
		       "size (managed) with um=1",
	.params = bk_params,
	.n_params = sizeof bk_params / sizeof bk_params[0],
	.ranges = bk_ranges,
	.n_ranges = sizeof bk_ranges / sizeof bk_ranges[0],
	.create = bk_create,
};
