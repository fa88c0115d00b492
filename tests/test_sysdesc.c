/* System description files (src/sysdesc/, gpuvm/sysdesc.h): the shipped
 * systems load with the values their sources give; each kind of bad file
 * is refused with its file:line; the evidence table parses and its
 * calibration rows agree with the files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/sysdesc.h"

#define HEAD "[system]\nname = t\nsource = test\n"
#define ONE_GPU "[gpu.0]\npreset = h100\n"
#define ONE_CPU "[cpu.0]\nmemory_bytes = 1GiB\nbandwidth_gb_s = 100\n"
#define PCIE "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"

static struct gpuvm_sysdesc *load_ok(const char *name)
{
	struct gpuvm_sysdesc *s = malloc(sizeof *s);
	assert_non_null(s);
	struct gpuvm_error err = {{0}};
	if (gpuvm_sysdesc_load(s, name, &err))
		fail_msg("%s: %s", name, err.msg);
	return s;
}

static void test_shipped_systems_load(void **state)
{
	(void)state;
	assert_true(gpuvm_shipped_systems_count >= 3);
	for (size_t i = 0; i < gpuvm_shipped_systems_count; i++) {
		struct gpuvm_sysdesc *s = load_ok(gpuvm_shipped_systems[i].name);
		assert_string_equal(s->name, gpuvm_shipped_systems[i].name);
		assert_true(s->sources[0] != 0);
		free(s);
	}
}

static void test_gh200(void **state)
{
	(void)state;
	struct gpuvm_sysdesc *s = load_ok("gh200");
	assert_int_equal(s->n_gpus, 1);
	assert_int_equal(s->n_cpus, 1);
	assert_int_equal(s->n_links, 1);
	assert_int_equal(s->links[0].kind, GPUVM_LINK_NVLINK_C2C);
	assert_true(s->links[0].bandwidth_gb_s == 450);
	assert_true(s->links[0].latency_ns < 0); /* no published figure: not given */
	assert_int_equal(s->cpus[0].n_page_sizes, 2);
	assert_true(s->cpus[0].page_sizes[0] == 4096 && s->cpus[0].page_sizes[1] == 65536);
	double v;
	assert_int_equal(gpuvm_sysdesc_value(s, "cpu.0.memory_bytes", &v), 0);
	assert_true(v == 480e9);
	assert_int_equal(gpuvm_sysdesc_value(s, "link.0.latency_ns", &v), -1);
	assert_int_equal(gpuvm_sysdesc_value(s, "link.1.bandwidth_gb_s", &v), -1);
	assert_int_equal(gpuvm_sysdesc_value(s, "link.0.bandwidth_gb_s.x", &v), -1);
	/* the copy engine's measured rates per direction (NVIDIA/nvbandwidth
	 * issue 23) reach the GPU's config as c2c.copy_*_gb_s */
	assert_true(s->links[0].copy_gb_s[0] == 346 && s->links[0].copy_gb_s[1] == 301);
	assert_int_equal(gpuvm_sysdesc_value(s, "link.0.copy_d2h_gb_s", &v), 0);
	assert_true(v == 301);
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	struct gpuvm_error err = {0};
	assert_non_null(cfg);
	assert_int_equal(gpuvm_sysdesc_gpu_config(s, 0, cfg, &err), 0);
	assert_true(cfg->c2c_coherent == 1);
	assert_true(cfg->c2c_copy_h2d_gb_s == 346 && cfg->c2c_copy_d2h_gb_s == 301);
	free(cfg);
	free(s);
}

static void test_dgx(void **state)
{
	(void)state;
	struct gpuvm_sysdesc *s = load_ok("dgx-h100-8");
	assert_int_equal(s->n_gpus, 8);
	assert_int_equal(s->n_cpus, 2);
	assert_int_equal(s->links[0].kind, GPUVM_LINK_NVSWITCH);
	assert_int_equal(s->links[0].n_ends, 8);
	/* 18 NVLink 4 links of 25 GB/s a direction: NVIDIA's 900 GB/s bidirectional per GPU */
	assert_true(s->links[0].count * s->links[0].bandwidth_gb_s * 2 == 900);
	for (uint32_t i = 1; i < s->n_links; i++)
		assert_int_equal(s->links[i].kind, GPUVM_LINK_PCIE);
	free(s);
}

static void test_system_of_one(void **state)
{
	(void)state;
	const char *names[] = {"h100", "single-h100"};
	for (int k = 0; k < 2; k++) {
		struct gpuvm_sysdesc *s = load_ok(names[k]);
		assert_true(s->implicit);
		assert_string_equal(s->name, "single-h100");
		assert_int_equal(s->n_gpus, 1);
		assert_int_equal(s->n_links, 1);
		assert_int_equal(s->links[0].kind, GPUVM_LINK_PCIE);
		assert_true(s->links[0].bandwidth_gb_s == 64); /* presets/h100.ini [pcie] */
		free(s);
	}
}

static void test_good_file(void **state)
{
	(void)state;
	struct gpuvm_sysdesc *s = malloc(sizeof *s);
	struct gpuvm_error err;
	const char *text = "; a comment\n# another\n" HEAD "description = two GPUs  ; inline\n"
			   "[gpu.1]\npreset = p100\n" ONE_GPU ONE_CPU
			   "[link.1]\nkind = nvlink\nendpoints = gpu.0, gpu.1\nbandwidth_gb_s = 25\n"
			   "count = 4\nlatency_ns = 0\n" PCIE;
	if (gpuvm_sysdesc_parse(s, text, "good.ini", &err))
		fail_msg("%s", err.msg);
	assert_string_equal(s->description, "two GPUs");
	assert_string_equal(s->gpus[1].preset, "p100");
	assert_int_equal(s->links[1].count, 4);
	assert_true(s->links[1].latency_ns == 0);
	assert_int_equal(s->cpus[0].page_bytes, 4096); /* the default page size */
	free(s);
}

struct bad {
	const char *text;
	const char *want; /* a substring of the message: "bad.ini:LINE: ..." */
};

static void test_bad_files(void **state)
{
	(void)state;
	static const struct bad cases[] = {
		{HEAD ONE_GPU ONE_CPU PCIE "bandwdith_gb_s = 3\n", "bad.ini:13: unknown key 'bandwdith_gb_s' in [link.N] (did you mean 'bandwidth_gb_s'?)"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = nvlnk\n", "bad.ini:10: kind: unknown link kind 'nvlnk' (did you mean 'nvlink'?)"},
		{HEAD "[gpus.0]\n", "bad.ini:4: unknown section [gpus.0] (did you mean [gpu.N]?)"},
		{HEAD "[gpu.x]\n", "bad.ini:4: section [gpu.x]"},
		{HEAD "[gpu.0]\npreset = h10\n" ONE_CPU PCIE, "bad.ini:5: preset: no shipped preset 'h10' (did you mean 'h100'?)"},
		{HEAD "[gpu.0]\npreset = ./nonexistent.ini\n" ONE_CPU PCIE, "bad.ini:5: preset:"},
		{HEAD "[gpu.0]\nmemory_bytes = 1GiB\n" ONE_CPU PCIE, "bad.ini:4: [gpu.0] has no preset"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.1\nbandwidth_gb_s = 64\n", "bad.ini:11: endpoints: no processor 'cpu.1'"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = pcie\nendpoints = gpu.0 gpu.0\nbandwidth_gb_s = 64\n", "bad.ini:11: endpoints: gpu.0 is named twice"},
		{HEAD ONE_GPU "[gpu.1]\npreset = h100\n" ONE_CPU PCIE "[link.1]\nkind = pcie\nendpoints = gpu.0 gpu.1\nbandwidth_gb_s = 64\n", "bad.ini:17: endpoints: a pcie link joins one CPU and one GPU"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = nvswitch\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 25\n", "bad.ini:11: endpoints: an nvswitch"},
		{HEAD ONE_GPU "[gpu.1]\npreset = h100\n" ONE_CPU PCIE, "bad.ini:6: gpu.1 is not connected to gpu.0"},
		{HEAD ONE_GPU ONE_CPU "[cpu.1]\nmemory_bytes = 1GiB\nbandwidth_gb_s = 1\n" PCIE, "bad.ini:9: cpu.1 is not connected"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = -1\n", "bad.ini:12: bandwidth_gb_s: -1 is out of range"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = fast\n", "bad.ini:12: bandwidth_gb_s: 'fast' is not a number"},
		{HEAD ONE_GPU ONE_CPU PCIE "count = 2.5\n", "bad.ini:13: count: 2.5 is not a whole number"},
		{HEAD ONE_GPU ONE_CPU PCIE "count = 0\n", "bad.ini:13: count: 0 is out of range"},
		{HEAD ONE_GPU "[cpu.0]\nmemory_bytes = lots\n", "bad.ini:7: memory_bytes: 'lots' is not a size"},
		{HEAD ONE_GPU "[cpu.0]\nmemory_bytes = 1GiB\nbandwidth_gb_s = 1\npage_sizes = 4KiB 48KiB\n", "bad.ini:9: page_sizes: 48KiB is not a power of two"},
		{HEAD ONE_GPU "[cpu.0]\nmemory_bytes = 1GiB\nbandwidth_gb_s = 1\npage_bytes = 2MiB\n" PCIE, "bad.ini:9: page_bytes: not one of this CPU's page_sizes"},
		{HEAD ONE_GPU "[cpu.0]\nbandwidth_gb_s = 1\n" PCIE, "bad.ini:6: [cpu.0] has no memory_bytes"},
		{HEAD ONE_GPU ONE_CPU "[link.0]\nkind = pcie\nbandwidth_gb_s = 1\n", "bad.ini:9: [link.0] has no endpoints"},
		{HEAD ONE_GPU "preset = h100\n", "bad.ini:6: preset is given twice in this section (first at line 5)"},
		{HEAD ONE_GPU ONE_GPU, "bad.ini:6: section [gpu.0] is given twice (first at line 4)"},
		{HEAD "[gpu.1]\npreset = h100\n" ONE_CPU, "bad.ini: [gpu.0] is missing"},
		{HEAD ONE_GPU, "bad.ini:1: the system has no CPU"},
		{HEAD ONE_CPU, "bad.ini:1: the system has no GPU"},
		{ONE_GPU ONE_CPU PCIE, "bad.ini: no [system] section"},
		{"[system]\nname = t\n" ONE_GPU ONE_CPU PCIE, "bad.ini:1: [system] has no source"},
		{"[system]\nname = a b\n", "bad.ini:2: name: 'a b' may hold only"},
		{"name = t\n", "bad.ini:1: key 'name' before any [section]"},
		{HEAD "just words\n", "bad.ini:4: expected 'key = value'"},
		{HEAD "[gpu.0\n", "bad.ini:4: a section header is [name] alone on its line"},
		{HEAD "[link.128]\n", "bad.ini:4: section [link.128]: want [link.N], N a whole number below 128"},
	};
	struct gpuvm_sysdesc *s = malloc(sizeof *s);
	int failed = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gpuvm_error err = {{0}};
		memset(s, 0x5a, sizeof *s);
		int rc = gpuvm_sysdesc_parse(s, cases[i].text, "bad.ini", &err);
		if (rc != -1 || !strstr(err.msg, cases[i].want)) {
			print_error("case %zu: rc %d, message '%s', want '%s'\n", i, rc, err.msg,
				    cases[i].want);
			failed++;
		}
		/* a refused file leaves the description untouched */
		assert_int_equal(((unsigned char *)s)[0], 0x5a);
	}
	free(s);
	assert_int_equal(failed, 0);
}

static void test_evidence_shipped(void **state)
{
	(void)state;
	struct gpuvm_sys_evidence *rows = NULL;
	size_t n = 0;
	struct gpuvm_error err;
	if (gpuvm_sys_evidence_parse(gpuvm_systems_evidence_tsv, "validation/systems.tsv", &rows,
				     &n, &err))
		fail_msg("%s", err.msg);
	size_t cal = 0, val = 0;
	for (size_t i = 0; i < n; i++)
		rows[i].role == GPUVM_ROLE_CALIBRATION ? cal++ : val++;
	assert_true(cal > 0 && val > 0);
	/* Schieffer et al.'s C2C host-to-device rate is a validation row */
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].quantity, "c2c_h2d_gb_s")) {
			found = true;
			assert_int_equal(rows[i].role, GPUVM_ROLE_VALIDATION);
			assert_true(rows[i].value == 375);
		}
	assert_true(found);
	free(rows);
}

#define TSV_HEAD "system\tquantity\tvalue\tunit\tsource\tconvention\trole\n"

static void test_evidence_bad(void **state)
{
	(void)state;
	static const struct bad cases[] = {
		{"system\tquantity\tvalue\n", "ev.tsv:1: the first row must be the header"},
		{"# only a comment\n", "ev.tsv: no header row"},
		{TSV_HEAD "gh200\tx\t1\tGB/s\tsrc\tconv\n", "ev.tsv:2: 6 columns, want 7"},
		{TSV_HEAD "gh200\tx\t1\tGB/s\tsrc\tconv\tvalidation\textra\n", "ev.tsv:2: more than 7"},
		{TSV_HEAD "gh300\tx\t1\tGB/s\tsrc\tconv\tvalidation\n", "ev.tsv:2: system 'gh300' is not a shipped system"},
		{TSV_HEAD "gh200\tx\tmany\tGB/s\tsrc\tconv\tvalidation\n", "ev.tsv:2: value 'many' is not a number"},
		{TSV_HEAD "gh200\tx\t1\tGB/s\tsrc\tconv\tguess\n", "ev.tsv:2: role 'guess'"},
		{TSV_HEAD "gh200\tx\t1\tGB/s\t\tconv\tvalidation\n", "ev.tsv:2: source: empty"},
		{TSV_HEAD "gh200\tc2c_gb_s\t1\tGB/s\tsrc\tconv\tcalibration\n", "ev.tsv:2: a calibration row names the parameter it sets"},
		{TSV_HEAD "gh200\tlink.0.bandwidth_gb_s\t400\tGB/s\tsrc\tconv\tcalibration\n", "ev.tsv:2: calibration row: link.0.bandwidth_gb_s = 400 here but systems/gh200.ini has 450"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gpuvm_sys_evidence *rows = NULL;
		size_t n = 0;
		struct gpuvm_error err = {{0}};
		int rc = gpuvm_sys_evidence_parse(cases[i].text, "ev.tsv", &rows, &n, &err);
		if (rc != -1 || !strstr(err.msg, cases[i].want))
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg,
				 cases[i].want);
		assert_null(rows);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_systems_load), cmocka_unit_test(test_gh200),
		cmocka_unit_test(test_dgx),                  cmocka_unit_test(test_system_of_one),
		cmocka_unit_test(test_good_file),            cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_evidence_shipped),     cmocka_unit_test(test_evidence_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
