/* Native trace integrity (issue 35, "native .gvt has no integrity check"):
 * every single bit of a small recorded trace (version 7) is flipped in
 * turn, and each damaged file must be refused both by `trace info`'s walk
 * (gpuvm_trace_info) and by a replay (gpuvm_run_point), with a message
 * naming the file and a byte offset at or before the flipped byte.
 * Before checksums, 31 of 100 random flips passed `trace info`. */
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

#include "gpuvm/config.h"
#include "gpuvm/crc32c.h"
#include "gpuvm/run.h"
#include "gpuvm/trace.h"
#include "gpuvm/utf8.h"
#include "gpuvm/workload.h"
#include "sanitized_env.h"

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "%s/gpuvm-test-bitflip-XXXXXX",
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

static void record(const char *spec, const char *out)
{
	struct gpuvm_error err = {{0}};
	const struct gpuvm_workload_def *def;
	struct gpuvm_params params;
	struct gpuvm_config cfg;
	struct gpuvm_source src;
	if (gpuvm_config_load(&cfg, "p100", &err) || gpuvm_config_finalize(&cfg, &err) ||
	    gpuvm_workload_parse(spec, &def, &params, &err) ||
	    def->create(&cfg, &params, 1, &src, &err))
		fail_msg("%s: %s", spec, err.msg);
	if (gpuvm_trace_record(&src, out, NULL, &err))
		fail_msg("record %s: %s", spec, err.msg);
	src.ops->destroy(&src);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *d = malloc(*len);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, *len, f), *len);
	fclose(f);
	return d;
}

static void spill(const char *path, const unsigned char *d, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, len, f), len);
	fclose(f);
}

/* The message names path and "byte N" with N <= the flipped byte. */
static void check_msg(const char *what, const char *msg, const char *path, size_t byte, int bit)
{
	const char *b = strstr(msg, "byte ");
	if (!strstr(msg, path) || !b)
		fail_msg("%s: bit %d of byte %zu: message without file and byte offset: %s", what,
			 bit, byte, msg);
	unsigned long long at = strtoull(b + 5, NULL, 10);
	if (at > byte)
		fail_msg("%s: bit %d of byte %zu: blames byte %llu, after the damage: %s", what, bit,
			 byte, at, msg);
}

static int info_of(const char *path, struct gpuvm_error *err)
{
	struct gpuvm_source src;
	char spec[400];
	snprintf(spec, sizeof spec, "trace:%s", path);
	if (gpuvm_trace_open_spec(spec, &src, err))
		return -1;
	cJSON *o = NULL;
	int rc = gpuvm_trace_info(&src, 1, &o, err);
	cJSON_Delete(o);
	src.ops->destroy(&src);
	return rc;
}

static int replay_of(const char *path, struct gpuvm_error *err)
{
	char spec[400];
	snprintf(spec, sizeof spec, "trace:%s", path);
	struct gpuvm_run_spec rs = {.gpu = "p100", .workload = spec, .seed = 1};
	cJSON *o = NULL;
	int rc = gpuvm_run_point(&rs, &o, err);
	cJSON_Delete(o);
	return rc;
}

/* Every bit of every byte, walked and replayed. Under the sanitizers
 * (tests/sanitized_env.h) the replay, a whole run's setup, only of one
 * bit of each byte, bit byte % 8: every byte is damaged and every bit
 * position in turn; the walk, which reads the records with the same
 * reader, still sees every bit (a flipped tag bit may make another
 * valid tag, whose checks only that bit reaches). */
static bool replay_one_bit_a_byte;

static void flip_every_bit(const char *spec, size_t max_bytes)
{
	char good[400], bad[400];
	snprintf(good, sizeof good, "%s/small.gvt", tmpdir);
	snprintf(bad, sizeof bad, "%s/flipped.gvt", tmpdir);
	record(spec, good);
	size_t len;
	unsigned char *d = slurp(good, &len);
	assert_true(len > 100 && len < max_bytes);
	struct gpuvm_error err = {{0}};
	if (info_of(good, &err) || replay_of(good, &err))
		fail_msg("undamaged trace refused: %s", err.msg);
	for (size_t byte = 0; byte < len; byte++)
		for (int bit = 0; bit < 8; bit++) {
			d[byte] ^= (unsigned char)(1u << bit);
			spill(bad, d, len);
			d[byte] ^= (unsigned char)(1u << bit);
			memset(&err, 0, sizeof err);
			if (!info_of(bad, &err))
				fail_msg("trace info accepts bit %d of byte %zu flipped", bit, byte);
			check_msg("trace info", err.msg, bad, byte, bit);
			if (replay_one_bit_a_byte && bit != (int)(byte % 8))
				continue;
			memset(&err, 0, sizeof err);
			if (!replay_of(bad, &err))
				fail_msg("replay accepts bit %d of byte %zu flipped", bit, byte);
			check_msg("replay", err.msg, bad, byte, bit);
		}
	free(d);
}

static void test_every_bit_flip_is_reported(void **state)
{
	(void)state;
	/* one CTA of 8 warps: a few hundred bytes, every record kind but S
	 * and version 7's */
	flip_every_bit("stream-triad:elems=32,threads=32", 2000);
}

/* Version 7's records of a program's managed-memory operations: an
 * advice ('V'), CPU reads ('C') and prefetches ('P') between two
 * one-warp kernels. */
static void test_every_bit_flip_of_managed_ops_is_reported(void **state)
{
	(void)state;
	flip_every_bit("cpu-gpu-phases:elems=32,threads=32,block=32,iters=2,touch=50,cpu=read,"
		       "advise=1,prefetch=1,mem=managed",
		       3000);
}

/* CRC-32C's check value (RFC 3720 B.4: "123456789" -> 0xE3069283). */
static void test_crc32c_check_value(void **state)
{
	(void)state;
	assert_int_equal(gpuvm_crc32c(0, "123456789", 9), 0xE3069283u);
	/* in pieces: the same */
	assert_int_equal(gpuvm_crc32c(gpuvm_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
}

/* UTF-8 repair: valid text unchanged, every invalid byte one U+FFFD. */
static void test_utf8_repair(void **state)
{
	(void)state;
	const char *ok = "k\xc3\xa9rnel \xe2\x82\xac \xf0\x9f\x98\x80";
	assert_true(gpuvm_utf8_valid(ok));
	char *r = gpuvm_utf8_repair(ok);
	assert_string_equal(r, ok);
	free(r);
	/* stray continuation, overlong, surrogate, past U+10FFFF, truncated */
	const char *badv[] = {"a\x80z", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "x\xe2\x82"};
	for (size_t i = 0; i < 5; i++) {
		assert_false(gpuvm_utf8_valid(badv[i]));
		r = gpuvm_utf8_repair(badv[i]);
		assert_true(gpuvm_utf8_valid(r));
		assert_non_null(strstr(r, "\xef\xbf\xbd"));
		free(r);
		char s[16];
		snprintf(s, sizeof s, "%s", badv[i]);
		gpuvm_utf8_scrub(s);
		assert_true(gpuvm_utf8_valid(s));
		assert_int_equal(strlen(s), strlen(badv[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_utf8_repair),
		cmocka_unit_test(test_every_bit_flip_is_reported),
		cmocka_unit_test(test_every_bit_flip_of_managed_ops_is_reported),
	};
	replay_one_bit_a_byte = test_sanitized();
	return cmocka_run_group_tests(tests, setup, teardown);
}
