/* src/core/env_knob.h: a knob unset or empty gives its default silently; a
 * value it takes is used; any other value gives the default and exactly one
 * warning naming the variable, the value, what it takes and what is used,
 * however many times it is read. And the knobs the simulator reads go
 * through it (GPUVM_SIMT_BUFFER_MIB, GPUVM_WINDOW_THREADS read twice by one
 * run: one warning). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/env_knob.h"
#include "par/window.h"

static char *buf;
static size_t len;
static FILE *stream;

static int setup(void **state)
{
	(void)state;
	stream = open_memstream(&buf, &len);
	env_knob_set_stream(stream);
	return stream ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	env_knob_set_stream(NULL);
	fclose(stream);
	free(buf);
	return 0;
}

static const char *warnings(void)
{
	fflush(stream);
	return buf ? buf : "";
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_u64_values(void **state)
{
	(void)state;
	const char *k = "GPUVM_TEST_KNOB_U64";
	unsetenv(k);
	assert_int_equal(env_knob_u64(k, 64, 0, 1024), 64);
	setenv(k, "", 1);
	assert_int_equal(env_knob_u64(k, 64, 0, 1024), 64);
	setenv(k, "0", 1);
	assert_int_equal(env_knob_u64(k, 64, 0, 1024), 0);
	setenv(k, "1024", 1);
	assert_int_equal(env_knob_u64(k, 64, 0, 1024), 1024);
	assert_string_equal(warnings(), "");
	static const char *const bad[] = {"1025", "12abc", "-1", " 5", "+5", "0x10",
					  "99999999999999999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		env_knob_set_stream(stream); /* forget the last warning */
		setenv(k, bad[i], 1);
		assert_int_equal(env_knob_u64(k, 64, 0, 1024), 64);
		assert_int_equal(env_knob_u64(k, 64, 0, 1024), 64);
	}
	const char *w = warnings();
	assert_int_equal(count(w, "gpuvm: warning: GPUVM_TEST_KNOB_U64=\""), 7);
	assert_non_null(strstr(w, "GPUVM_TEST_KNOB_U64=\"12abc\" is not a whole number from 0 to "
				  "1024; using 64\n"));
	unsetenv(k);
}

static void test_word_values_and_once(void **state)
{
	(void)state;
	static const char *const words[] = {"barrier", "partitions", "all"};
	const char *k = "GPUVM_TEST_KNOB_WORD";
	unsetenv(k);
	assert_int_equal(env_knob_word(k, words, 3, 0), 0);
	setenv(k, "all", 1);
	assert_int_equal(env_knob_word(k, words, 3, 0), 2);
	setenv(k, "ALL", 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(env_knob_word(k, words, 3, 1), 1);
	assert_string_equal(warnings(), "gpuvm: warning: GPUVM_TEST_KNOB_WORD=\"ALL\" is not one of "
					"\"barrier\", \"partitions\" or \"all\"; using "
					"\"partitions\"\n");
	setenv("GPUVM_TEST_KNOB_BOOL", "yes", 1);
	assert_int_equal(env_knob_bool("GPUVM_TEST_KNOB_BOOL", 1), 1);
	assert_int_equal(env_knob_bool("GPUVM_TEST_KNOB_BOOL", 1), 1);
	assert_int_equal(count(warnings(), "GPUVM_TEST_KNOB_BOOL=\"yes\" is not one of \"0\" or \"1\""),
			 1);
	setenv("GPUVM_TEST_KNOB_BOOL", "0", 1);
	assert_int_equal(env_knob_bool("GPUVM_TEST_KNOB_BOOL", 1), 0);
	unsetenv("GPUVM_TEST_KNOB_BOOL");
	unsetenv(k);
}

/* The simulator's own knob goes through the helper: a misspelt mode is
 * named, and the default mode is used. */
static void test_window_threads_knob(void **state)
{
	(void)state;
	setenv("GPUVM_WINDOW_THREADS", "partition", 1);
	assert_int_equal(window_threads_knob(), WINDOW_THREADS_BARRIER);
	assert_int_equal(window_threads_knob(), WINDOW_THREADS_BARRIER);
	assert_int_equal(count(warnings(), "GPUVM_WINDOW_THREADS=\"partition\""), 1);
	setenv("GPUVM_WINDOW_THREADS", "partitions", 1);
	assert_int_equal(window_threads_knob(), WINDOW_THREADS_PARTITIONS);
	unsetenv("GPUVM_WINDOW_THREADS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_u64_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_word_values_and_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window_threads_knob, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
