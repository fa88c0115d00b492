/* The CLI's worker processes (src/cli/worker_pool.c, behind gpuvm
 * validate --jobs and gpuvm calibrate --jobs): every task runs once and its
 * answer arrives whole, a task's failure and a lost worker are told apart,
 * and done() stopping the pool starts no further task. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/worker_pool.c" /* the CLI's sources are not in the library */

#define TASKS 9
#define BIG (1u << 20) /* more than a pipe holds: the parent must read as it comes */

struct seen {
	int calls[TASKS];
	enum worker_end end[TASKS];
	char data[TASKS][128];
	size_t len[TASKS];
	int stop_at; /* done() returns -1 for this task; -1: never */
};

/* task i: i * i as text; 3 fails with a message; 5 is killed; 6 exits
 * without an answer; 7 answers BIG bytes of its index */
static int task(void *ctx, size_t i, struct worker_answer *a)
{
	(void)ctx;
	char text[32];
	if (i == 3) {
		worker_answer_add(a, "row 3: bad input", 16);
		return 1;
	}
	if (i == 5)
		raise(SIGKILL);
	if (i == 6)
		_exit(0);
	if (i == 7) {
		char *big = malloc(BIG);
		memset(big, 'a' + (int)i, BIG);
		worker_answer_add(a, big, BIG);
		free(big);
		return 0;
	}
	int n = snprintf(text, sizeof text, "%zu", i * i);
	worker_answer_add(a, text, (size_t)n);
	return 0;
}

static int done(void *ctx, size_t i, enum worker_end end, const char *data, size_t len)
{
	struct seen *s = ctx;
	s->calls[i]++;
	s->end[i] = end;
	s->len[i] = len;
	if (i == 7) {
		for (size_t k = 0; k < len; k++)
			if (data[k] != 'a' + 7)
				fail_msg("task 7's answer corrupted at byte %zu", k);
	} else {
		snprintf(s->data[i], sizeof s->data[i], "%.*s", (int)len, data);
	}
	return (int)i == s->stop_at ? -1 : 0;
}

static void test_every_task_once(void **state)
{
	(void)state;
	for (unsigned jobs = 1; jobs <= 4; jobs += 3) {
		struct seen s = {.stop_at = -1};
		struct gpuvm_error err = {{0}};
		assert_int_equal(worker_pool_run(TASKS, jobs, task, done, &s, &err), 0);
		for (size_t i = 0; i < TASKS; i++)
			assert_int_equal(s.calls[i], 1);
		for (size_t i = 0; i < TASKS; i++) {
			char want[32];
			snprintf(want, sizeof want, "%zu", i * i);
			if (i == 3 || i == 5 || i == 6 || i == 7)
				continue;
			assert_int_equal(s.end[i], WORKER_RESULT);
			assert_string_equal(s.data[i], want);
		}
		assert_int_equal(s.end[3], WORKER_TASK_FAILED);
		assert_string_equal(s.data[3], "row 3: bad input");
		assert_int_equal(s.end[5], WORKER_LOST);
		assert_non_null(strstr(s.data[5], "signal 9"));
		assert_int_equal(s.end[6], WORKER_LOST);
		assert_non_null(strstr(s.data[6], "failed"));
		assert_int_equal(s.end[7], WORKER_RESULT);
		assert_int_equal(s.len[7], BIG);
	}
}

/* done() stops the pool at task 2: with one job nothing after it starts;
 * with three, the tasks already running still end and report, once each
 * (which those are depends on the workers' speed) */
static void test_stop_starts_nothing_more(void **state)
{
	(void)state;
	struct seen s = {.stop_at = 2};
	struct gpuvm_error err = {{0}};
	assert_int_equal(worker_pool_run(TASKS, 1, task, done, &s, &err), 1);
	for (size_t i = 0; i < TASKS; i++)
		assert_int_equal(s.calls[i], i <= 2);
	struct seen t = {.stop_at = 2};
	assert_int_equal(worker_pool_run(TASKS, 3, task, done, &t, &err), 1);
	for (size_t i = 0; i < TASKS; i++)
		assert_int_equal(t.calls[i], i <= 2 ? 1 : t.calls[i] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_task_once),
		cmocka_unit_test(test_stop_starts_nothing_more),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
