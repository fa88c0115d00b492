/* Trace readers and the native format, on the real Accel-Sim traces in
 * traces/ (part of the repository: a missing folder fails the test)
 * and on small mem_trace files in tests/data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <lzma.h>

#include "gpuvm/config.h"
#include "run_util.h"
#include "gpuvm/trace.h"
#include "gpuvm/workload.h"

static char vectoradd[1024], bptree[1024], mt17[1024], mt15[1024], tmpdir[256];

static int setup(void **state)
{
	(void)state;
	const char *src = getenv("GPUVM_SOURCE_DIR");
	if (!src)
		src = ".";
	snprintf(vectoradd, sizeof vectoradd, "%s/traces/accelsim-vectoradd", src);
	snprintf(bptree, sizeof bptree, "%s/traces/accelsim-rodinia-bptree-h100", src);
	snprintf(mt17, sizeof mt17, "%s/tests/data/memtrace-1.7.txt", src);
	snprintf(mt15, sizeof mt15, "%s/tests/data/memtrace-1.5.txt", src);
	struct stat st;
	if (stat(vectoradd, &st) || stat(bptree, &st)) {
		fprintf(stderr, "FATAL: real traces missing at %s/traces (they are part of the repository)\n", src);
		return -1; /* cmocka fails every test of the group */
	}
	snprintf(tmpdir, sizeof tmpdir, "%s/gpuvm-test-trace-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void open_src(const char *spec, struct gpuvm_source *src)
{
	struct gpuvm_error err = {{0}};
	int rc;
	if (gpuvm_trace_spec_is(spec)) {
		rc = gpuvm_trace_open_spec(spec, src, &err);
	} else {
		const struct gpuvm_workload_def *def;
		struct gpuvm_params params;
		struct gpuvm_config cfg;
		rc = gpuvm_config_load(&cfg, "p100", &err) || gpuvm_config_finalize(&cfg, &err) ||
		     gpuvm_workload_parse(spec, &def, &params, &err) ||
		     def->create(&cfg, &params, 3, src, &err);
	}
	if (rc)
		fail_msg("open %s: %s", spec, err.msg);
}

static cJSON *info(const char *spec)
{
	struct gpuvm_source src;
	open_src(spec, &src);
	struct gpuvm_error err = {{0}};
	cJSON *o = NULL;
	if (gpuvm_trace_info(&src, 1, &o, &err))
		fail_msg("info %s: %s", spec, err.msg);
	src.ops->destroy(&src);
	return o;
}

static void test_vectoradd_info(void **state)
{
	(void)state;
	char spec[1100];
	snprintf(spec, sizeof spec, "trace:%s", vectoradd);
	cJSON *o = info(spec);
	const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "kernels"), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "kernels")), 1);
	assert_true(report_num(k, "ctas") == 196);
	assert_true(report_num(k, "warps_per_cta") == 8);
	assert_true(report_num(k, "warps") == 196 * 8);
	/* 26,601 instruction lines (traces/accelsim-vectoradd/kernel-1.traceg) */
	assert_true(report_num(k, "warp_instructions") == 26601);
	/* 50 000 floats: two loads and one store per element */
	assert_true(report_num(k, "thread_accesses") == 150000);
	const cJSON *copies = cJSON_GetObjectItem(o, "copies");
	assert_int_equal(cJSON_GetArraySize(copies), 2);
	for (int i = 0; i < 2; i++) {
		const cJSON *c = cJSON_GetArrayItem(copies, i);
		assert_string_equal(cJSON_GetObjectItem(c, "direction")->valuestring, "h2d");
		assert_true(report_num(c, "bytes") == 200000);
	}
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(copies, 1), "addr")->valuestring,
			    "0x7fb0fc430e00");
	/* inferred: one allocation covering A, B and C (3 x 200 000 bytes) */
	const cJSON *al = cJSON_GetObjectItem(o, "allocations");
	assert_int_equal(cJSON_GetArraySize(al), 1);
	assert_true(report_num(cJSON_GetArrayItem(al, 0), "bytes") >= 3 * 200000);
	assert_true(report_num(cJSON_GetObjectItem(o, "totals"), "footprint_bytes") >= 3 * 200000);
	cJSON_Delete(o);
}

static void test_bptree_info(void **state)
{
	(void)state;
	char spec[1100];
	snprintf(spec, sizeof spec, "trace-accelsim:%s/kernelslist.g", bptree);
	cJSON *o = info(spec);
	const cJSON *t = cJSON_GetObjectItem(o, "totals");
	assert_true(report_num(t, "kernels") == 2);
	assert_true(report_num(t, "ctas") == 16);
	assert_true(report_num(t, "warps") == 64);
	/* STL/LDL (local) are not global traffic: stores are only the STG ones */
	assert_true(report_num(t, "stores") < report_num(t, "loads"));
	assert_true(report_num(t, "h2d_copy_bytes") == 43560 + 4000);
	cJSON_Delete(o);
}

static void test_every_preset_simulates_traces(void **state)
{
	(void)state;
	const char *traces[] = {vectoradd, bptree};
	const double accesses[] = {150000, 0};
	for (size_t p = 0; p < gpuvm_shipped_presets_count; p++)
		for (int t = 0; t < 2; t++) {
			char spec[1100], gpu[64];
			snprintf(spec, sizeof spec, "trace:%s", traces[t]);
			snprintf(gpu, sizeof gpu, "%s", gpuvm_shipped_presets[p].name);
			struct gpuvm_run_spec rs = {.gpu = gpu, .workload = spec, .seed = 1};
			struct gpuvm_error err = {{0}};
			cJSON *o = NULL;
			if (gpuvm_run_point(&rs, &o, &err))
				fail_msg("%s on %s: %s", traces[t], gpu, err.msg);
			assert_true(report_num(o, "sim_cycles") > 0);
			assert_true(report_num(o, "ctas") == (t == 0 ? 196 : 16));
			if (accesses[t])
				assert_true(report_num(o, "thread_accesses") == accesses[t]);
			cJSON_Delete(o);
		}
}

/* ---- exact round trip: drive two sources side by side ---------------------- */

static void same_item(const struct gpuvm_warp_item *a, const struct gpuvm_warp_item *b,
		      uint64_t cta, uint32_t w, uint64_t n)
{
	if (a->kind != b->kind)
		fail_msg("CTA %llu warp %u item %llu: kind %d vs %d", (unsigned long long)cta, w,
			 (unsigned long long)n, a->kind, b->kind);
	if (a->kind == GPUVM_ITEM_COMPUTE) {
		assert_int_equal(a->compute_insts, b->compute_insts);
	} else if (a->kind == GPUVM_ITEM_MEM) {
		assert_int_equal(a->op, b->op);
		assert_int_equal(a->bytes_per_lane, b->bytes_per_lane);
		assert_int_equal(a->active_mask, b->active_mask);
		for (uint32_t m = a->active_mask; m; m &= m - 1)
			assert_int_equal(a->addr[__builtin_ctz(m)], b->addr[__builtin_ctz(m)]);
	}
}

/* Returns the number of items compared. */
static uint64_t compare_streams(struct gpuvm_source *a, struct gpuvm_source *b)
{
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op oa, ob;
	uint64_t items = 0;
	static _Alignas(16) unsigned char sa[4096], sb[4096];
	for (;;) {
		if (a->ops->next_op(a, &oa, &err) || b->ops->next_op(b, &ob, &err))
			fail_msg("next_op: %s", err.msg);
		assert_int_equal(oa.kind, ob.kind);
		if (oa.kind == GPUVM_RUN_END)
			return items;
		switch (oa.kind) {
		case GPUVM_RUN_ALLOC:
			assert_int_equal(oa.alloc.base, ob.alloc.base);
			assert_int_equal(oa.alloc.bytes, ob.alloc.bytes);
			assert_int_equal(oa.alloc.kind, ob.alloc.kind);
			assert_string_equal(oa.alloc.name, ob.alloc.name);
			break;
		case GPUVM_RUN_FREE:
			assert_int_equal(oa.alloc.base, ob.alloc.base);
			break;
		case GPUVM_RUN_COPY_H2D:
		case GPUVM_RUN_COPY_D2H:
			assert_int_equal(oa.copy_addr, ob.copy_addr);
			assert_int_equal(oa.copy_bytes, ob.copy_bytes);
			break;
		case GPUVM_RUN_KERNEL: {
			struct gpuvm_kernel *ka = oa.kernel, *kb = ob.kernel;
			assert_string_equal(ka->name, kb->name);
			assert_memory_equal(ka->grid, kb->grid, sizeof ka->grid);
			assert_memory_equal(ka->block, kb->block, sizeof ka->block);
			assert_int_equal(ka->smem_bytes_per_cta, kb->smem_bytes_per_cta);
			assert_true(ka->ops->warp_state_bytes <= sizeof sa);
			assert_true(kb->ops->warp_state_bytes <= sizeof sb);
			uint64_t ctas = gpuvm_kernel_ctas(ka);
			uint32_t wpc = gpuvm_kernel_warps_per_cta(ka);
			for (uint64_t c = 0; c < ctas; c++)
				for (uint32_t w = 0; w < wpc; w++) {
					ka->ops->warp_begin(ka, sa, (uint32_t)c, w);
					kb->ops->warp_begin(kb, sb, (uint32_t)c, w);
					for (;;) {
						struct gpuvm_warp_item ia, ib;
						if (ka->ops->warp_next(ka, sa, &ia, &err) ||
						    kb->ops->warp_next(kb, sb, &ib, &err))
							fail_msg("warp_next: %s", err.msg);
						same_item(&ia, &ib, c, w, items++);
						if (ia.kind == GPUVM_ITEM_END)
							break;
					}
					if (ka->ops->warp_end)
						ka->ops->warp_end(ka, sa);
					if (kb->ops->warp_end)
						kb->ops->warp_end(kb, sb);
				}
			break;
		}
		default:
			break;
		}
	}
}

static uint64_t round_trip(const char *spec)
{
	char out[400];
	snprintf(out, sizeof out, "%s/rt.gvt", tmpdir);
	struct gpuvm_source a, b;
	struct gpuvm_error err = {{0}};
	struct gpuvm_trace_counts cnt;
	open_src(spec, &a);
	if (gpuvm_trace_record(&a, out, &cnt, &err))
		fail_msg("record %s: %s", spec, err.msg);
	a.ops->destroy(&a);
	open_src(spec, &a);
	char nspec[420];
	snprintf(nspec, sizeof nspec, "trace-native:%s", out);
	open_src(nspec, &b);
	uint64_t n = compare_streams(&a, &b);
	a.ops->destroy(&a);
	b.ops->destroy(&b);
	assert_true(n >= cnt.items);
	return n;
}

static void test_round_trip_exact(void **state)
{
	(void)state;
	char spec[1100];
	snprintf(spec, sizeof spec, "trace:%s", vectoradd);
	assert_true(round_trip(spec) > 26601 / 4);
	snprintf(spec, sizeof spec, "trace:%s", bptree);
	round_trip(spec);
	snprintf(spec, sizeof spec, "trace:%s", mt17);
	round_trip(spec);
	round_trip("stream-triad:elems=100000,threads=8192");
	round_trip("random-sampling:region=256MiB,threads=4096,reads=8");
	round_trip("hash-groupby:groups=1000,input=20000,threads=4096");
}

/* The engine's interleaving over native warps gives the same run as over
 * the original reader. */
static void test_native_replays_identically(void **state)
{
	(void)state;
	char spec[1100], out[400], nspec[420];
	snprintf(spec, sizeof spec, "trace:%s", bptree);
	snprintf(out, sizeof out, "%s/bp.gvt", tmpdir);
	snprintf(nspec, sizeof nspec, "trace:%s", out);
	struct gpuvm_source a;
	struct gpuvm_error err = {{0}};
	open_src(spec, &a);
	if (gpuvm_trace_record(&a, out, NULL, &err))
		fail_msg("%s", err.msg);
	a.ops->destroy(&a);
	cJSON *r[2];
	const char *specs[2] = {spec, nspec};
	for (int i = 0; i < 2; i++) {
		struct gpuvm_run_spec rs = {.gpu = "h100", .workload = specs[i], .seed = 1};
		if (gpuvm_run_point(&rs, &r[i], &err))
			fail_msg("%s", err.msg);
	}
	const char *keys[] = {"sim_cycles", "thread_accesses", "warp_instructions", "walks",
			      "dram_bytes"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_true(report_num(r[0], keys[i]) == report_num(r[1], keys[i]));
	cJSON_Delete(r[0]);
	cJSON_Delete(r[1]);
}

/* A SIMT kernel's shared memory per block (hotspot: 3 KiB) survives
 * recording (native version 3): the replay takes as long as the live run,
 * and an SM of 2 KiB cannot hold its blocks either way. */
static void test_native_keeps_shared_memory(void **state)
{
	(void)state;
	const char *live = "hotspot:n=48,iters=2";
	char out[400], nspec[420];
	snprintf(out, sizeof out, "%s/hs.gvt", tmpdir);
	snprintf(nspec, sizeof nspec, "trace:%s", out);
	struct gpuvm_source a;
	struct gpuvm_error err = {{0}};
	open_src(live, &a);
	if (gpuvm_trace_record(&a, out, NULL, &err))
		fail_msg("%s", err.msg);
	a.ops->destroy(&a);
	const char *specs[2] = {live, nspec};
	double cycles[2];
	for (int i = 0; i < 2; i++) {
		struct gpuvm_run_spec rs = {.gpu = "p100", .workload = specs[i], .seed = 1};
		cJSON *r;
		if (gpuvm_run_point(&rs, &r, &err))
			fail_msg("%s", err.msg);
		cycles[i] = report_num(r, "sim_cycles");
		cJSON_Delete(r);
		rs.sets[rs.n_sets++] = "smem.size=2KiB";
		r = NULL;
		assert_int_not_equal(gpuvm_run_point(&rs, &r, &err), 0);
		assert_non_null(strstr(err.msg, "smem.size"));
		cJSON_Delete(r);
	}
	assert_true(cycles[0] == cycles[1]);
}

static void test_memtrace_forms(void **state)
{
	(void)state;
	char spec[1100];
	snprintf(spec, sizeof spec, "trace:%s", mt17);
	cJSON *o = info(spec);
	const cJSON *t = cJSON_GetObjectItem(o, "totals");
	assert_true(report_num(t, "kernels") == 2);
	assert_true(report_num(t, "warps") == 5);
	/* kernel 1: 6 full warps + 20 lanes + 1 lane (the LDS line is no
	 * global access); kernel 2: one full warp */
	assert_true(report_num(t, "thread_accesses") == 6 * 32 + 20 + 1 + 32);
	assert_true(report_num(t, "atomics") == 1);
	assert_true(report_num(t, "stores") == 2);
	cJSON_Delete(o);
	snprintf(spec, sizeof spec, "trace-memtrace:%s", mt15);
	o = info(spec);
	t = cJSON_GetObjectItem(o, "totals");
	assert_true(report_num(t, "warps") == 2);
	assert_true(report_num(t, "thread_accesses") == 32 + 16);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "allocations")), 2);
	cJSON_Delete(o);
}

/* kernelslist.g naming a .traceg.xz file (liblzma) reads the same stream. */
static void test_xz_kernel(void **state)
{
	(void)state;
	char path[1200];
	snprintf(path, sizeof path, "%s/kernel-1.traceg", vectoradd);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static unsigned char raw[2 << 20], xz[1 << 20];
	size_t n = fread(raw, 1, sizeof raw, f);
	fclose(f);
	size_t xn = 0;
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, raw, n, xz, &xn, sizeof xz),
			 LZMA_OK);
	char dir[400];
	snprintf(dir, sizeof dir, "%s/xz", tmpdir);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/kernel-1-ctx_0x5607b0e17740.traceg.xz", dir);
	f = fopen(path, "wb");
	assert_int_equal(fwrite(xz, 1, xn, f), xn);
	fclose(f);
	snprintf(path, sizeof path, "%s/kernelslist.g", dir);
	f = fopen(path, "w");
	fputs("MemcpyHtoD,0x00007fb0fc400000,200000\nMemcpyHtoD,0x00007fb0fc430e00,200000\n"
	      "kernel-1-ctx_0x5607b0e17740.traceg.xz\n", f);
	fclose(f);
	char sa[1200], sb[1200];
	snprintf(sa, sizeof sa, "trace:%s", vectoradd);
	snprintf(sb, sizeof sb, "trace:%s", dir);
	struct gpuvm_source a, b;
	open_src(sa, &a);
	open_src(sb, &b);
	assert_true(compare_streams(&a, &b) > 1568);
	a.ops->destroy(&a);
	b.ops->destroy(&b);
}

/* ---- issue 21 item 4: frame sizes, mapping, the reader thread ------------- */

static uint32_t header_u32(const char *path, long off)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char b[4] = {0};
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fread(b, 1, 4, f), 4);
	fclose(f);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Any frame size reads back as the identical stream; every size writes
 * version 6 with the size in the header; sizes out
 * of range are refused before anything is written. */
static void test_frame_sizes_round_trip(void **state)
{
	(void)state;
	const char *specs[] = {"stream-triad:elems=100000,threads=8192",
			       "random-sampling:region=256MiB,threads=4096,reads=8", NULL};
	char va[1100];
	snprintf(va, sizeof va, "trace:%s", bptree);
	specs[2] = va;
	const size_t frames[] = {1024, 8192, 65536, 1u << 20};
	for (size_t i = 0; i < 3; i++)
		for (size_t f = 0; f < 4; f++) {
			char out[400], nspec[420];
			snprintf(out, sizeof out, "%s/fr%zu.gvt", tmpdir, f);
			struct gpuvm_source a, b;
			struct gpuvm_error err = {{0}};
			struct gpuvm_trace_counts cnt;
			open_src(specs[i], &a);
			if (gpuvm_trace_record_frames(&a, out, frames[f], &cnt, &err))
				fail_msg("record %s: %s", specs[i], err.msg);
			a.ops->destroy(&a);
			/* version 7 (6's layout) at every frame size: the size and a
			 * checksum in the header */
			assert_int_equal(header_u32(out, 8), 7);
			assert_int_equal(header_u32(out, 12), 24);
			assert_int_equal(header_u32(out, 16), frames[f]);
			open_src(specs[i], &a);
			snprintf(nspec, sizeof nspec, "trace-native:%s", out);
			open_src(nspec, &b);
			assert_true(compare_streams(&a, &b) >= cnt.items);
			a.ops->destroy(&a);
			b.ops->destroy(&b);
		}
	const size_t bad[] = {0, 1023, (1u << 20) + 1};
	for (size_t i = 0; i < 3; i++) {
		char out[400];
		snprintf(out, sizeof out, "%s/bad-frame.gvt", tmpdir);
		struct gpuvm_source a;
		struct gpuvm_error err = {{0}};
		open_src(specs[0], &a);
		assert_int_equal(gpuvm_trace_record_frames(&a, out, bad[i], NULL, &err), -1);
		assert_non_null(strstr(err.msg, "frame size"));
		a.ops->destroy(&a);
		assert_int_not_equal(access(out, F_OK), 0);
	}
}

/* The mapped reader (GPUVM_TRACE_MMAP=1) and pread (the default) give the
 * same stream, and the same message for a truncated file. */
static void test_mapped_and_pread_agree(void **state)
{
	(void)state;
	char out[400], nspec[420], cut[400], cspec[420];
	snprintf(out, sizeof out, "%s/map.gvt", tmpdir);
	struct gpuvm_source a, b;
	struct gpuvm_error err = {{0}};
	/* the estimate's loop: one load per item pair, > 4096 items */
	open_src("random-sampling:region=64MiB,threads=4096,reads=16,loop=estimate", &a);
	if (gpuvm_trace_record(&a, out, NULL, &err))
		fail_msg("%s", err.msg);
	a.ops->destroy(&a);
	snprintf(nspec, sizeof nspec, "trace-native:%s", out);
	setenv("GPUVM_TRACE_MMAP", "1", 1);
	open_src(nspec, &a);
	unsetenv("GPUVM_TRACE_MMAP");
	open_src(nspec, &b);
	assert_true(compare_streams(&a, &b) > 4096);
	a.ops->destroy(&a);
	b.ops->destroy(&b);
	/* cut inside the kernel's frames: both readers name the same byte */
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	snprintf(cut, sizeof cut, "%s/cut.gvt", tmpdir);
	snprintf(cspec, sizeof cspec, "trace-native:%s", cut);
	/* and cut inside the last frame's payload (the end marker, its
	 * checksum and two bytes gone): only the frame read itself can tell */
	const long long cuts[2] = {(long long)st.st_size * 2 / 3, (long long)st.st_size - 7};
	for (int c = 0; c < 2; c++) {
		char cmd[1000];
		snprintf(cmd, sizeof cmd, "head -c %lld '%s' > '%s'", cuts[c], out, cut);
		assert_int_equal(system(cmd), 0);
		char msg[2][sizeof err.msg];
		for (int i = 0; i < 2; i++) {
			if (!i)
				setenv("GPUVM_TRACE_MMAP", "1", 1);
			open_src(cspec, &a);
			unsetenv("GPUVM_TRACE_MMAP");
			cJSON *o = NULL;
			assert_int_equal(gpuvm_trace_info(&a, 0, &o, &err), -1);
			snprintf(msg[i], sizeof msg[i], "%s", err.msg);
			a.ops->destroy(&a);
		}
		assert_non_null(strstr(msg[0], "cut.gvt: byte "));
		if (c == 1)
			assert_non_null(strstr(msg[0], "truncated frame"));
		assert_string_equal(msg[0], msg[1]);
	}
}

/* An Accel-Sim list of several kernels (copies between them) in dir. */
static void write_list(const char *dir, int kernels, const char *bad_kernel_at)
{
	char path[1200], kpath[1200];
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/kernelslist.g", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int k = 0; k < kernels; k++) {
		fprintf(f, "MemcpyHtoD,0x00007fb0fc400000,%d\n", 1000 * (k + 1));
		const char *src = k % 2 ? "accelsim-rodinia-bptree-h100/kernel-1-ctx_0x5607b0e17740.traceg"
					: "accelsim-vectoradd/kernel-1.traceg";
		snprintf(kpath, sizeof kpath, "%s/k%d.traceg", dir, k);
		char target[1200];
		snprintf(target, sizeof target, "%s/../%s", vectoradd, src);
		unlink(kpath);
		if (bad_kernel_at && k == kernels - 1) {
			/* the last kernel cut short: a parse error at a line */
			char cmd[2600];
			snprintf(cmd, sizeof cmd, "head -c %s '%s' > '%s'", bad_kernel_at, target, kpath);
			assert_int_equal(system(cmd), 0);
		} else {
			assert_int_equal(symlink(target, kpath), 0);
		}
		fprintf(f, "k%d.traceg\n", k);
	}
	fprintf(f, "MemcpyDtoH,0x00007fb0fc400000,4096\n");
	fclose(f);
}

/* Drives src like compare_streams, alone: returns ops and items seen
 * before the end or the first error (message in msg). */
static int drain(struct gpuvm_source *src, uint64_t *ops, uint64_t *items, char *msg, size_t len)
{
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op op;
	static _Alignas(16) unsigned char st[4096];
	*ops = *items = 0;
	for (;;) {
		if (src->ops->next_op(src, &op, &err)) {
			snprintf(msg, len, "%s", err.msg);
			return -1;
		}
		++*ops;
		if (op.kind == GPUVM_RUN_END)
			return 0;
		if (op.kind != GPUVM_RUN_KERNEL)
			continue;
		struct gpuvm_kernel *k = op.kernel;
		for (uint64_t c = 0; c < gpuvm_kernel_ctas(k); c++)
			for (uint32_t w = 0; w < gpuvm_kernel_warps_per_cta(k); w++) {
				struct gpuvm_warp_item it;
				k->ops->warp_begin(k, st, (uint32_t)c, w);
				do {
					if (k->ops->warp_next(k, st, &it, &err)) {
						snprintf(msg, len, "%s", err.msg);
						return -1;
					}
					++*items;
				} while (it.kind != GPUVM_ITEM_END);
				if (k->ops->warp_end)
					k->ops->warp_end(k, st);
			}
	}
}

/* With a reader thread (exec_threads >= 2) an Accel-Sim list gives the
 * same operations and items as read on one thread, and an error in a
 * later kernel arrives after the same operations, with the same message. */
static void test_reader_thread_same_stream(void **state)
{
	(void)state;
	char dir[600], spec[1100];
	snprintf(dir, sizeof dir, "%s/list", tmpdir);
	write_list(dir, 5, NULL);
	snprintf(spec, sizeof spec, "trace:%s", dir);
	for (uint32_t t = 2; t <= 3; t++) {
		struct gpuvm_source a, b;
		open_src(spec, &a);
		open_src(spec, &b);
		b.exec_threads = t;
		assert_true(compare_streams(&a, &b) > 5 * 1000);
		a.ops->destroy(&a);
		b.ops->destroy(&b);
	}
	/* mem_trace: the next kernel is sorted on the reader thread */
	snprintf(spec, sizeof spec, "trace:%s", mt17);
	for (uint32_t t = 1; t <= 2; t++) {
		struct gpuvm_source a, b;
		open_src(spec, &a);
		open_src(spec, &b);
		b.exec_threads = t + 1;
		assert_true(compare_streams(&a, &b) > 0);
		a.ops->destroy(&a);
		b.ops->destroy(&b);
	}
	snprintf(dir, sizeof dir, "%s/badlist", tmpdir);
	write_list(dir, 4, "700000");
	snprintf(spec, sizeof spec, "trace:%s", dir);
	uint64_t ops[2], items[2];
	char msg[2][sizeof ((struct gpuvm_error *)0)->msg];
	for (int i = 0; i < 2; i++) {
		struct gpuvm_source a;
		open_src(spec, &a);
		a.exec_threads = i ? 2 : 1;
		assert_int_equal(drain(&a, &ops[i], &items[i], msg[i], sizeof msg[i]), -1);
		a.ops->destroy(&a);
	}
	assert_non_null(strstr(msg[0], "k3.traceg:"));
	assert_string_equal(msg[0], msg[1]);
	assert_int_equal(ops[0], ops[1]);
	assert_int_equal(items[0], items[1]);
	assert_true(ops[0] >= 7); /* three kernels with their copies came first */
	/* stopped early (destroy while the thread parses ahead): no leak, no hang */
	struct gpuvm_source a;
	snprintf(dir, sizeof dir, "%s/list", tmpdir);
	snprintf(spec, sizeof spec, "trace:%s", dir);
	open_src(spec, &a);
	a.exec_threads = 2;
	struct gpuvm_run_op op;
	struct gpuvm_error err = {{0}};
	assert_int_equal(a.ops->next_op(&a, &op, &err), 0);
	a.ops->destroy(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectoradd_info),
		cmocka_unit_test(test_bptree_info),
		cmocka_unit_test(test_every_preset_simulates_traces),
		cmocka_unit_test(test_round_trip_exact),
		cmocka_unit_test(test_native_replays_identically),
		cmocka_unit_test(test_native_keeps_shared_memory),
		cmocka_unit_test(test_memtrace_forms),
		cmocka_unit_test(test_xz_kernel),
		cmocka_unit_test(test_frame_sizes_round_trip),
		cmocka_unit_test(test_mapped_and_pread_agree),
		cmocka_unit_test(test_reader_thread_same_stream),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
