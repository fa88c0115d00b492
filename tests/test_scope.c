/* TLB-scoped operators (Karnagel §5): scoped and unscoped runs compute the
 * same result (the sum; the group table), the scope parameter is checked,
 * and the scope model's predictions track the simulator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "run_util.h"
#include "gpuvm/scope.h"
#include "workloads/hash_groupby.h"
#include "workloads/random_sampling.h"

/* Runs one point; returns its JSON (caller deletes), or NULL with *err. */
static cJSON *run(const char *gpu, const char *wl, struct gpuvm_error *err)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	cJSON *out;
	if (gpuvm_run_point(&spec, &out, err))
		return NULL;
	return out;
}

static cJSON *run_ok(const char *gpu, const char *wl)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	return run_report(&spec);
}

static uint64_t result_field(cJSON *o, const char *field)
{
	const char *r = cJSON_GetObjectItemCaseSensitive(o, "result")->valuestring;
	const char *p = strstr(r, field);
	assert_non_null(p);
	return strtoull(p + strlen(field), NULL, field[0] == 'd' ? 16 : 10);
}

static void test_sampling_sum_same_in_every_scoping(void **state)
{
	(void)state;
	const char *base = "random-sampling:region=64MiB,threads=2048,reads=32";
	const char *scopes[] = {"none", "8MiB", "24MiB", "1MiB"};
	uint64_t want = random_sampling_reference((64ull << 20) / 4, 2048, 32, 1);
	for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++) {
		char wl[160];
		snprintf(wl, sizeof wl, "%s,scope=%s", base, scopes[i]);
		cJSON *o = run_ok("k80", wl);
		assert_int_equal(result_field(o, "sum="), want);
		uint64_t passes = strcmp(scopes[i], "none") ? result_field(o, "passes=") : 1;
		assert_int_equal(report_num(o, "kernel_launches"), passes);
		cJSON_Delete(o);
	}
}

static void test_sampling_scoped_pass_reads_only_its_scope(void **state)
{
	(void)state;
	/* 4 passes: every read happens exactly once, so the loads' lanes add up
	 * to the unscoped count (plus one 8-byte sum load per thread and pass
	 * after the first, and the sum stores). */
	cJSON *u = run_ok("p100", "random-sampling:region=256MiB,threads=4096,reads=16");
	cJSON *s = run_ok("p100", "random-sampling:region=256MiB,threads=4096,reads=16,scope=64MiB");
	double extra = 3 * 4096 + 3 * 4096; /* sum loads + stores of passes 1..3 */
	assert_true(report_num(s, "thread_accesses") == report_num(u, "thread_accesses") + extra);
	cJSON_Delete(u);
	cJSON_Delete(s);
}

static void test_groupby_table_same_in_every_scoping(void **state)
{
	(void)state;
	uint64_t found, total;
	uint64_t want = groupby_reference(1, 200000, 1u << 20, &found, &total);
	const char *variants[] = {"scope=none", "scope=2MiB,scoped=copy", "scope=2MiB,scoped=naive",
				  "scope=5MiB,scoped=copy"};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		char wl[200];
		/* 16 MiB table, four 256 KiB chunks (the copy buffer is reused) */
		snprintf(wl, sizeof wl,
			 "hash-groupby:groups=1048576,input=200000,chunk=256KiB,threads=4096,%s",
			 variants[i]);
		cJSON *o = run_ok("k80", wl);
		assert_int_equal(result_field(o, "digest="), want);
		assert_int_equal(result_field(o, "groups="), found);
		assert_int_equal(result_field(o, "rows="), total);
		cJSON_Delete(o);
	}
}


/* A table past 64 MiB keeps only the buckets the probes reached
 * (src/workloads/hash_groupby.c, sparse): 50000 rows in a 4 GiB table give
 * the reference's groups, and the run's host memory follows the rows, not
 * the table (a flat table had every 2 MiB page of it written: 4 GiB). In
 * a child, whose peak resident memory the parent reads. */
static void test_groupby_large_table_memory_follows_rows(void **state)
{
	(void)state;
	uint64_t found, total;
	uint64_t want = groupby_reference(1, 50000, 1u << 28, &found, &total);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int bad = 0;
		const char *variants[] = {"scope=none", "scope=1GiB,scoped=copy"};
		for (int i = 0; i < 2; i++) {
			char wl[160];
			snprintf(wl, sizeof wl, "hash-groupby:groups=268435456,input=50000,%s",
				 variants[i]);
			cJSON *o = run_ok("p100", wl);
			bad |= result_field(o, "digest=") != want || result_field(o, "groups=") != found ||
			       result_field(o, "rows=") != total;
			cJSON_Delete(o);
		}
		_exit(bad ? 3 : 0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* 3: a result not the reference's */
	struct rusage ru;
	assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
	printf("  4 GiB table, 50000 rows: peak resident %ld MiB\n", ru.ru_maxrss / 1024);
	assert_true(ru.ru_maxrss < 1024 * 1024); /* KiB: under 1 GiB (flat: 4 GiB) */
	/* so a table larger than the host's memory runs (32 GiB on h100's
	 * 80 GB; refused as a whole table on a host with less than 43 GB),
	 * and what is refused is rows whose buckets cannot fit, named by input */
	cJSON *o = run_ok("h100", "hash-groupby:groups=2147483647,input=100000");
	assert_int_equal(result_field(o, "rows="), 100000);
	cJSON_Delete(o);
	struct gpuvm_error err = {{0}};
	assert_null(run("h100", "hash-groupby:groups=2147483647,input=4000000000", &err));
	assert_non_null(strstr(err.msg, "input"));
	assert_non_null(strstr(err.msg, "bytes of host memory"));
}

static void test_groupby_copy_reads_input_over_the_link_once(void **state)
{
	(void)state;
	const char *base = "hash-groupby:groups=1048576,input=200000,threads=4096,scope=4MiB";
	char wl[200];
	snprintf(wl, sizeof wl, "%s,scoped=copy", base);
	cJSON *c = run_ok("p100", wl);
	snprintf(wl, sizeof wl, "%s,scoped=naive", base);
	cJSON *n = run_ok("p100", wl);
	/* 4 passes: naive streams the 800 KB column 4 times, copy once */
	assert_true(report_num(n, "pcie_h2d_bytes") >= 4 * 200000 * 4);
	assert_true(report_num(c, "pcie_h2d_bytes") < 1.1 * 200000 * 4);
	cJSON_Delete(c);
	cJSON_Delete(n);
}

static void expect_bad(const char *wl, const char *want)
{
	struct gpuvm_error err = {{0}};
	cJSON *o = run("k80", wl, &err);
	assert_null(o);
	if (!strstr(err.msg, want))
		fail_msg("'%s' not in '%s'", want, err.msg);
}

static void test_bad_scope_parameters(void **state)
{
	(void)state;
	expect_bad("random-sampling:region=1GiB,scope=big", "scope");
	expect_bad("random-sampling:region=1GiB,scope=100", "at least 4KiB");
	expect_bad("random-sampling:region=1GiB,scope=4100", "multiple of 8");
	expect_bad("random-sampling:region=64GiB,scope=4KiB", "passes");
	expect_bad("hash-groupby:groups=1000,input=1000,scoped=fast", "scoped");
	struct gpuvm_config cfg;
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_config_load(&cfg, "k80", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	struct gpuvm_scope_advice adv;
	assert_int_equal(gpuvm_scope_advise(&cfg, "stream-triad", &adv, &err), -1);
	assert_non_null(strstr(err.msg, "no TLB scopes"));
}

static void advise(const char *gpu, const char *wl, struct gpuvm_scope_advice *adv)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err = {{0}};
	if (gpuvm_config_load(&cfg, gpu, &err) || gpuvm_config_finalize(&cfg, &err) ||
	    gpuvm_scope_advise(&cfg, wl, adv, &err))
		fail_msg("%s", err.msg);
}

static void test_auto_scope_choices(void **state)
{
	(void)state;
	struct gpuvm_scope_advice adv;
	/* k80, 8 GB: past the L3 reach; the choice is a scope inside it */
	advise("k80", "random-sampling:region=8GiB,reads=16", &adv);
	uint64_t s = adv.c[adv.best].scope_bytes;
	assert_true(s >= (128ull << 20) && s <= (2ull << 30));
	assert_true(adv.c[adv.best].predicted_seconds < adv.c[0].predicted_seconds / 2);
	/* p100, 1 GB: inside every reach that matters; scoping only costs */
	advise("p100", "random-sampling:region=1GiB,reads=16", &adv);
	assert_int_equal(adv.c[adv.best].scope_bytes, 0);
	/* auto through the workload parameter runs the chosen scope */
	cJSON *o = run_ok("k80", "random-sampling:region=8GiB,reads=16,threads=26624,scope=auto");
	assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(o, "result")->valuestring, "(auto)"));
	cJSON_Delete(o);
}

/* The model is a bottleneck estimate; it must stay within 40 % of the
 * simulator on the shapes it is used for, or its choices mean nothing. */
static void test_model_tracks_simulation(void **state)
{
	(void)state;
	const struct {
		const char *gpu, *wl;
		uint64_t scope;
	} pts[] = {
		{"k80", "random-sampling:region=8GiB,reads=16", 0},
		{"k80", "random-sampling:region=8GiB,reads=16", 1ull << 30},
		{"k80", "random-sampling:region=1GiB,reads=16", 128ull << 20},
		/* 15 GiB: a 16 GiB region and its sums do not fit the 16 GB
		 * board (gpu.memory), as on the real P100 */
		{"p100", "random-sampling:region=15GiB,reads=16", 0},
		{"p100", "random-sampling:region=15GiB,reads=16", 2ull << 30},
		{"p100", "hash-groupby:groups=16777216,input=1048576,scoped=naive", 64ull << 20},
		/* h100's launches pipeline (gpu.kernel_launch_period_us): 32
		 * short passes take the host's period each, not pass + launch */
		{"h100", "random-sampling:region=256MiB,reads=1", 8ull << 20},
	};
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		struct gpuvm_scope_advice adv;
		advise(pts[i].gpu, pts[i].wl, &adv);
		double pred = -1;
		for (size_t c = 0; c < adv.n; c++)
			if (adv.c[c].scope_bytes == pts[i].scope)
				pred = adv.c[c].predicted_seconds;
		assert_true(pred > 0);
		char wl[200];
		snprintf(wl, sizeof wl, "%s,scope=%llu", pts[i].wl, (unsigned long long)pts[i].scope);
		cJSON *o = run_ok(pts[i].gpu, wl);
		double sim = report_num(o, "sim_seconds");
		printf("  %s %s scope %llu: model %.3g s, simulated %.3g s\n", pts[i].gpu, pts[i].wl,
		       (unsigned long long)pts[i].scope, pred, sim);
		assert_true(pred / sim > 0.6 && pred / sim < 1.4);
		cJSON_Delete(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampling_sum_same_in_every_scoping),
		cmocka_unit_test(test_sampling_scoped_pass_reads_only_its_scope),
		cmocka_unit_test(test_groupby_table_same_in_every_scoping),
		cmocka_unit_test(test_groupby_copy_reads_input_over_the_link_once),
		cmocka_unit_test(test_groupby_large_table_memory_follows_rows),
		cmocka_unit_test(test_bad_scope_parameters),
		cmocka_unit_test(test_auto_scope_choices),
		cmocka_unit_test(test_model_tracks_simulation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
