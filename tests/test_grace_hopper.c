/* Grace Hopper memory (issue 78, single GPU; docs/systems.md "Grace Hopper
 * memory"): each mechanism of c2c.coherent and system-allocated memory
 * (mem=system) checked by a run that fails when the mechanism is taken
 * out (the mutations tried are listed in docs/mutations.md):
 *  - a GPU read of CPU-resident system memory crosses the link without a
 *    fault, a line at a time (test_remote_no_fault);
 *  - first touch places a page: the GPU's puts it in device memory, after
 *    which launches run at HBM speed (test_first_touch_places);
 *  - the system page size sets the TLB reach: 4 KiB pages walk 16x as
 *    often as 64 KiB (test_page_size_walks);
 *  - the driver's prefetcher widens a GPU first touch of system memory:
 *    fewer faults than system pages with tree-driver, one per system
 *    page without it, the same pages placed (test_ats_prefetch);
 *  - that prefetch skips the system pages the CPU placed first (the
 *    driver's skip_mapped): they stay in CPU memory and are read over the
 *    link (test_ats_prefetch_skips_cpu_pages);
 *  - access counters migrate hot CPU-resident pages into device memory
 *    (test_counter_migration);
 *  - without the coherent link, mem=system is refused, naming the key
 *    (test_refused_without_coherent);
 *  - with c2c.coherent off, the [c2c] values are not read
 *    (test_off_reads_nothing);
 *  - a faster link never makes a run slower (test_monotonic_c2c);
 *  - copies take the copy engine's measured rate of their direction
 *    where c2c.copy_h2d_gb_s / c2c.copy_d2h_gb_s set one, the link's
 *    rate both ways where not (test_copy_rate_per_direction). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/simt.h"
#include "run_util.h"
#include "sanitized_env.h"

#define COHERENT "c2c.coherent=on"

/* One run of workload on h100 with the given --set overrides. */
static cJSON *gh_run(const char *workload, const char *const *sets)
{
	struct gpuvm_run_spec spec = {.gpu = "h100", .workload = workload, .seed = 1};
	for (int i = 0; sets && sets[i]; i++)
		spec.sets[spec.n_sets++] = sets[i];
	return run_report(&spec);
}

/* A number under the report's "uvm" object. */
static double uvm_num(const cJSON *o, const char *key)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "uvm");
	if (!u)
		fail_msg("no uvm object in the report");
	return report_num(u, key);
}

/* The simulated time of the last kernel of a report. */
static double last_kernel_seconds(const cJSON *o)
{
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	int n = cJSON_GetArraySize(ks);
	if (n < 1)
		fail_msg("no kernels in the report");
	return report_num(cJSON_GetArrayItem(ks, n - 1), "sim_seconds");
}

/* scalarprod reads two uploaded vectors (CPU first touch: CPU memory) and
 * writes 256 floats (the GPU's first touch: one system page). */
#define SCALARPROD "scalarprod:vectors=256,elements=4096,mem=system"
#define SCALARPROD_READ_BYTES (256.0 * 4096 * 4 * 2)

static void test_remote_no_fault(void **state)
{
	(void)state;
	const char *sets[] = {COHERENT, NULL};
	cJSON *o = gh_run(SCALARPROD, sets);
	/* the one fault is the output's first touch by the GPU; the 8 MiB
	 * read from CPU memory fault nowhere */
	assert_true(uvm_num(o, "far_faults") <= 1);
	double remote = uvm_num(o, "remote_bytes");
	/* every byte read crossed the link, a 64 B line at a time (sectors
	 * of one line and one instruction travel once; a line read by two
	 * instructions twice: the 10 % allow for that) */
	assert_true(remote >= SCALARPROD_READ_BYTES);
	assert_true(remote <= 1.1 * SCALARPROD_READ_BYTES);
	/* at the link's rate: 8 MiB over 450 GB/s (no faster, and not at
	 * the PCIe rate of the preset's [pcie], 9x slower: 383 GB/s here) */
	double k = report_num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "kernels"), 0),
			      "sim_seconds");
	assert_true(k >= SCALARPROD_READ_BYTES / 450e9);
	assert_true(k <= 1.5 * SCALARPROD_READ_BYTES / 450e9);
	cJSON_Delete(o);
}

/* vectoradd, 8 launches: with the GPU's first touch the first launch
 * faults its pages into device memory and the last runs at HBM speed;
 * with the CPU's every launch reads over the link. Under the sanitizers
 * (tests/sanitized_env.h) 2 launches: the first places or migrates the
 * pages as with 8, and the second finds them where the eighth does. */
static unsigned launches = 8;
static char VECADD[64];

static void test_first_touch_places(void **state)
{
	(void)state;
	const char *cpu[] = {COHERENT, NULL};
	const char *gpu[] = {COHERENT, "c2c.first_touch=gpu", NULL};
	cJSON *oc = gh_run(VECADD, cpu), *og = gh_run(VECADD, gpu);
	/* GPU first touch: no byte crosses the link, the pages are the GPU's */
	assert_true(uvm_num(og, "remote_bytes") == 0);
	assert_true(uvm_num(og, "far_faults") > 0);
	/* and the pages are new: nothing migrates over the link */
	assert_true(uvm_num(og, "pages_h2d") == 0);
	assert_true(uvm_num(og, "pages_copied_in") > 0);
	/* CPU first touch: the inputs (2 x 1 MiB) are read remotely at every
	 * launch */
	assert_true(uvm_num(oc, "remote_bytes") >= launches * 2 * 1048576.0);
	/* once placed, a launch over HBM-resident pages is faster than one
	 * over the link */
	double kg = last_kernel_seconds(og), kc = last_kernel_seconds(oc);
	assert_true(kg < 0.5 * kc);
	cJSON_Delete(oc);
	cJSON_Delete(og);
}

static void test_page_size_walks(void **state)
{
	(void)state;
	/* without the driver's prefetch (test_ats_prefetch), so that each
	 * system page takes its own first-touch fault */
	const char *p64[] = {COHERENT, "c2c.first_touch=gpu", "uvm.prefetcher=none", NULL};
	const char *p4[] = {COHERENT, "c2c.first_touch=gpu", "c2c.system_page_bytes=4KiB", "uvm.prefetcher=none",
			    NULL};
	cJSON *o64 = gh_run(VECADD, p64), *o4 = gh_run(VECADD, p4);
	double w64 = report_num(o64, "walks"), w4 = report_num(o4, "walks");
	/* 3 MiB in 64 KiB pages: 48 entries fit every TLB level, so each
	 * page walks once; in 4 KiB pages 768 do not fit the 16-entry L1
	 * and the L2's 2048 hold them: 16x the walks */
	assert_true(w4 >= 15 * w64);
	/* and 16x the first-touch faults, one per system page */
	assert_true(uvm_num(o4, "far_faults") >= 15 * uvm_num(o64, "far_faults"));
	assert_true(report_num(o4, "sim_seconds") > report_num(o64, "sim_seconds"));
	cJSON_Delete(o64);
	cJSON_Delete(o4);
}

/* nvidia-uvm widens an ATS fault with its prefetcher's tree over the
 * allocation's system pages (uvm_ats_faults.c ats_compute_prefetch;
 * src/uvm/uvm_ats.c): the GPU's first touch of vectoradd's three 1 MiB
 * arrays takes fewer faults than system pages with uvm.prefetcher =
 * tree-driver (h100's), exactly one per system page with none, and
 * places the same pages either way, none over the link. */
static void test_ats_prefetch(void **state)
{
	(void)state;
	for (int ps = 0; ps < 2; ps++) {
		const char *size = ps ? "c2c.system_page_bytes=4KiB" : "c2c.system_page_bytes=64KiB";
		double sys_pages_4k = ps ? 1 : 16;
		const char *tree[] = {COHERENT, "c2c.first_touch=gpu", size, NULL};
		const char *none[] = {COHERENT, "c2c.first_touch=gpu", size, "uvm.prefetcher=none", NULL};
		cJSON *ot = gh_run(VECADD, tree), *on = gh_run(VECADD, none);
		double placed = uvm_num(on, "pages_copied_in");
		assert_true(placed >= 3 * 256);
		assert_true(uvm_num(ot, "pages_copied_in") == placed);
		assert_true(uvm_num(ot, "remote_bytes") == 0);
		if (uvm_num(on, "far_faults") != placed / sys_pages_4k)
			fail_msg("no prefetch: %g faults, %g system pages", uvm_num(on, "far_faults"),
				 placed / sys_pages_4k);
		if (!(uvm_num(ot, "far_faults") < 0.5 * uvm_num(on, "far_faults")))
			fail_msg("tree-driver: %g faults, without it %g", uvm_num(ot, "far_faults"),
				 uvm_num(on, "far_faults"));
		cJSON_Delete(ot);
		cJSON_Delete(on);
	}
}

/* 2 MiB of system memory, one VA block of 32 system pages of 64 KiB: the
 * CPU writes its first 4 (a CPU phase: their first touch, CPU memory),
 * then a kernel reads all of it, so the GPU first-touches the other 28.
 * The ATS prefetch's tree soon covers nodes holding the CPU's pages;
 * nvidia-uvm skips pages already mapped (uvm_ats_faults.c
 * service_ats_requests: skip_mapped), so they stay in CPU memory. */
#define ATS_ELEMS (1u << 19)
#define ATS_CPU_BYTES (256u << 10)

struct ats_args {
	const float *x;
	float *out;
	unsigned n;
};

SIMT_KERNEL_ANY_ORDER(ats_read_kernel, struct ats_args, p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n)
		ST(p.out, i, 2.0f * LD(p.x, i));
}

static int ats_program(struct simt_host *h, void *user)
{
	(void)user;
	float *x = simt_malloc(h, "x", ATS_ELEMS * 4ull, GPUVM_ALLOC_SYSTEM);
	float *o = simt_malloc(h, "out", ATS_ELEMS * 4ull, GPUVM_ALLOC_DEVICE);
	if (!x || !o || simt_host_access(h, x, ATS_CPU_BYTES, SIMT_HOST_WRITE))
		return -1;
	for (unsigned i = 0; i < ATS_CPU_BYTES / 4; i++)
		x[i] = 1.0f;
	struct ats_args a = {x, o, ATS_ELEMS};
	return SIMT_LAUNCH(h, ats_read_kernel, simt_dim3(ATS_ELEMS / 256, 1, 1),
			   simt_dim3(256, 1, 1), a) ||
			       simt_device_sync(h)
		       ? -1
		       : 0;
}

static void test_ats_prefetch_skips_cpu_pages(void **state)
{
	(void)state;
	struct gpuvm_config cfg;
	struct gpuvm_error err = {{0}};
	if (gpuvm_config_load(&cfg, "h100", &err) ||
	    gpuvm_config_set(&cfg, COHERENT, "test", &err) || gpuvm_config_finalize(&cfg, &err))
		fail_msg("config: %s", err.msg);
	assert_string_equal(cfg.uvm_prefetcher, "tree-driver"); /* the ATS prefetch is on */
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("ats-skip", ats_program, NULL, NULL, &src, &err), 0);
	src.exec_threads = 0;
	struct gpuvm_stats st;
	int rc = gpuvm_simulate(&cfg, &src, NULL, &st, &err);
	src.ops->destroy(&src);
	if (rc)
		fail_msg("simulate: %s", err.msg);
	double gpu_pages = (ATS_ELEMS * 4.0 - ATS_CPU_BYTES) / 4096;
	/* the GPU placed its 28 system pages, fewer faults than that (the
	 * prefetch ran), and none of the CPU's */
	if ((double)st.uvm.pages_copied_in != gpu_pages)
		fail_msg("%llu pages placed in HBM, want the GPU's %g (the CPU's first %u KiB "
			 "skipped)", (unsigned long long)st.uvm.pages_copied_in, gpu_pages,
			 ATS_CPU_BYTES >> 10);
	assert_true(st.uvm.far_faults < 28);
	/* the CPU's pages are read where they are, over the link */
	assert_true(st.uvm.remote_bytes >= ATS_CPU_BYTES);
	gpuvm_stats_release(&st);
}

static void test_counter_migration(void **state)
{
	(void)state;
	const char *off[] = {COHERENT, NULL};
	const char *on[] = {COHERENT, "uvm.migration=always", "uvm.access_counter_threshold=8", NULL};
	cJSON *o0 = gh_run(VECADD, off), *o1 = gh_run(VECADD, on);
	/* the access counters moved the hot CPU-resident pages into HBM
	 * (nvidia-uvm's access-counter servicing), without which they stay */
	assert_true(uvm_num(o0, "migrations_counter") == 0);
	assert_true(uvm_num(o1, "migrations_counter") > 0);
	assert_true(uvm_num(o1, "remote_bytes") < 0.25 * uvm_num(o0, "remote_bytes"));
	/* the last launch finds its inputs in HBM */
	assert_true(last_kernel_seconds(o1) < 0.5 * last_kernel_seconds(o0));
	cJSON_Delete(o0);
	cJSON_Delete(o1);
}

static void test_refused_without_coherent(void **state)
{
	(void)state;
	struct gpuvm_run_spec spec = {.gpu = "h100", .workload = SCALARPROD, .seed = 1};
	struct gpuvm_error err = {{0}};
	cJSON *out = NULL;
	assert_int_not_equal(gpuvm_run_point(&spec, &out, &err), 0);
	assert_non_null(strstr(err.msg, "c2c.coherent"));
	assert_non_null(strstr(err.msg, "HMM"));
	cJSON_Delete(out);
}

/* Off, the [c2c] values change nothing: a pinned stream (the host link)
 * and a managed one (migrations) run as without them. */
static void test_off_reads_nothing(void **state)
{
	(void)state;
	const char *odd[] = {"c2c.bandwidth_gb_s=1", "c2c.cpu_memory_gb_s=1", "c2c.latency_ns=100000",
			     "c2c.system_page_bytes=4KiB", NULL};
	const char *wl[] = {"vectoradd:n=262144,mem=pinned", "vectoradd:n=262144,mem=managed"};
	for (int i = 0; i < 2; i++) {
		cJSON *a = gh_run(wl[i], NULL), *b = gh_run(wl[i], odd);
		assert_true(report_num(a, "sim_seconds") == report_num(b, "sim_seconds"));
		cJSON_Delete(a);
		cJSON_Delete(b);
	}
}

/* A faster coherent link never makes a run slower: CPU-resident reads
 * (scalarprod), and managed memory migrating over it (vectoradd). */
static void test_monotonic_c2c(void **state)
{
	(void)state;
	const char *wl[] = {SCALARPROD, "vectoradd:n=262144,mem=managed"};
	const char *rates[] = {"c2c.bandwidth_gb_s=50", "c2c.bandwidth_gb_s=150", "c2c.bandwidth_gb_s=450",
			       "c2c.bandwidth_gb_s=900"};
	for (int w = 0; w < 2; w++) {
		double prev = 0;
		for (int i = 0; i < 4; i++) {
			const char *sets[] = {COHERENT, rates[i], NULL};
			cJSON *o = gh_run(wl[w], sets);
			double t = report_num(o, "sim_seconds");
			cJSON_Delete(o);
			if (i > 0 && t > prev)
				fail_msg("%s: %s takes %.9g s, more than the slower link's %.9g s", wl[w],
					 rates[i], t, prev);
			prev = t;
		}
	}
}

/* A copy's transfer time is its bytes at its direction's copy rate:
 * host-to-device and device-to-host differ by the rates' ratio where they
 * are set, and are the same (the link's rate) where they are not. */
static void test_copy_rate_per_direction(void **state)
{
	(void)state;
	const double bytes = 64.0 * 1024 * 1024;
	const char *wl[] = {"ubench-link:mode=copy,bytes=64MiB", "ubench-link:mode=copy-d2h,bytes=64MiB"};
	const char *rate_sets[][4] = {
		{COHERENT, "c2c.copy_h2d_gb_s=346", "c2c.copy_d2h_gb_s=301", NULL},
		{COHERENT, NULL, NULL, NULL},
	};
	const double want[2][2] = {{346, 301}, {450, 450}};
	for (int r = 0; r < 2; r++) {
		double secs[2];
		for (int d = 0; d < 2; d++) {
			cJSON *o = gh_run(wl[d], rate_sets[r]);
			secs[d] = report_num(o, "copy_seconds");
			cJSON_Delete(o);
		}
		/* the same fixed time (pcie.copy_latency_us) in both: the
		 * difference is the transfers' */
		double diff = secs[1] - secs[0];
		double want_diff = bytes / (want[r][1] * 1e9) - bytes / (want[r][0] * 1e9);
		if (!(diff > want_diff - 1e-6 && diff < want_diff + 1e-6))
			fail_msg("rates %g/%g GB/s: d2h - h2d copy time %.9g s, want %.9g s", want[r][0],
				 want[r][1], diff, want_diff);
		double xfer_h2d = bytes / (want[r][0] * 1e9);
		if (!(secs[0] >= xfer_h2d && secs[0] < xfer_h2d + 20e-6))
			fail_msg("h2d copy %.9g s, its transfer alone %.9g s", secs[0], xfer_h2d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remote_no_fault),
		cmocka_unit_test(test_first_touch_places),
		cmocka_unit_test(test_page_size_walks),
		cmocka_unit_test(test_ats_prefetch),
		cmocka_unit_test(test_ats_prefetch_skips_cpu_pages),
		cmocka_unit_test(test_counter_migration),
		cmocka_unit_test(test_refused_without_coherent),
		cmocka_unit_test(test_off_reads_nothing),
		cmocka_unit_test(test_monotonic_c2c),
		cmocka_unit_test(test_copy_rate_per_direction),
	};
	if (test_sanitized())
		launches = 2;
	snprintf(VECADD, sizeof VECADD, "vectoradd:n=262144,launches=%u,mem=system", launches);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
