/* The fork-join pool (fork_join.h holds the contract). Rounds are
 * numbered; task i of round r is claimed by moving its stamp from r - 1
 * to r (compare-and-swap), so each task runs once a round, and a helper
 * late from round r - 1 can never claim a task of round r (its swap
 * expects r - 2). Each finished task is counted; the caller claims tasks
 * too and then waits for the count. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/cache_line.h"
#include "par/fork_join.h"
#include "par/spin_wait.h"
#include "par/thread_profile.h"

struct fork_join_helper {
	struct fork_join *fj;
	pthread_t thread;
	uint32_t index; /* its thread number: 1 .. n_helpers */
};

struct fork_join {
	struct fork_join_helper *helper;
	uint32_t n_helpers, n;
	_Atomic uint32_t *stamp; /* [n]: the last round that claimed each task */
	pthread_mutex_t mu;
	pthread_cond_t to_helpers, to_caller;
	/* the round's work, stored before its number is (atomics: a helper
	 * late from the last round may read them, and then claims nothing) */
	_Atomic(fork_join_task_fn *) fn;
	_Atomic(void *) ctx;
	_Alignas(64) _Atomic uint32_t round;
	atomic_bool quit;
	atomic_int helpers_asleep;
	_Alignas(64) _Atomic uint32_t done; /* the round's finished tasks */
	atomic_int caller_asleep;
};

/* Runs task i of round `round` if no thread has claimed it. */
static void try_task(struct fork_join *fj, uint32_t round, uint32_t i, fork_join_task_fn *fn,
		     void *ctx)
{
	uint32_t expect = round - 1;
	if (atomic_load_explicit(&fj->stamp[i], memory_order_relaxed) != expect ||
	    !atomic_compare_exchange_strong(&fj->stamp[i], &expect, round))
		return;
	fn(ctx, i);
	if (atomic_fetch_add(&fj->done, 1) + 1 == fj->n)
		spin_wake(&fj->mu, &fj->to_caller, &fj->caller_asleep, false);
}

/* Thread `self`'s part of round `round`: its own tasks, then any left. */
static void claim_tasks(struct fork_join *fj, uint32_t round, uint32_t self)
{
	/* read after the round showed: its work is published */
	fork_join_task_fn *fn = atomic_load(&fj->fn);
	void *ctx = atomic_load(&fj->ctx);
	uint32_t threads = fj->n_helpers + 1;
	for (uint32_t i = self; i < fj->n; i += threads)
		try_task(fj, round, i, fn, ctx);
	for (uint32_t i = 0; i < fj->n; i++)
		if (i % threads != self)
			try_task(fj, round, i, fn, ctx);
}

/* What the helpers and the caller wait for (par/spin_wait.h). */
static bool round_changed(void *ctx, uint64_t seen)
{
	struct fork_join *fj = ctx;
	return atomic_load(&fj->round) != (uint32_t)seen || atomic_load(&fj->quit);
}
static bool round_done(void *ctx, uint64_t n)
{
	struct fork_join *fj = ctx;
	return atomic_load(&fj->done) == n;
}

static void *helper_main(void *arg)
{
	struct fork_join_helper *h = arg;
	struct fork_join *fj = h->fj;
	uint32_t seen = 0;
	for (;;) {
		spin_wait(&fj->mu, &fj->to_helpers, &fj->helpers_asleep, round_changed, fj, seen);
		if (atomic_load(&fj->quit)) {
			thread_profile_exit(); /* gpuvm bench --profile: its CPU time */
			return NULL;
		}
		seen = atomic_load(&fj->round);
		claim_tasks(fj, seen, h->index);
	}
}

struct fork_join *fork_join_new(uint32_t threads, uint32_t n)
{
	struct fork_join *fj = gpuvm_calloc_lines(1, sizeof *fj);
	if (!fj)
		return NULL;
	fj->n = n;
	fj->stamp = calloc(n ? n : 1, sizeof *fj->stamp);
	if (!fj->stamp || pthread_mutex_init(&fj->mu, NULL)) {
		free(fj->stamp);
		free(fj);
		return NULL;
	}
	pthread_cond_init(&fj->to_helpers, NULL);
	pthread_cond_init(&fj->to_caller, NULL);
	uint32_t want = threads > 1 ? threads - 1 : 0;
	fj->helper = want ? calloc(want, sizeof *fj->helper) : NULL;
	if (want && !fj->helper)
		want = 0;
	for (uint32_t i = 0; i < want; i++) {
		struct fork_join_helper *h = &fj->helper[i];
		h->fj = fj;
		h->index = i + 1;
		if (pthread_create(&h->thread, NULL, helper_main, h))
			break; /* fewer helpers: the others take their tasks */
		fj->n_helpers++;
	}
	return fj;
}

void fork_join_free(struct fork_join *fj)
{
	if (!fj)
		return;
	pthread_mutex_lock(&fj->mu);
	atomic_store(&fj->quit, true);
	pthread_cond_broadcast(&fj->to_helpers);
	pthread_mutex_unlock(&fj->mu);
	for (uint32_t i = 0; i < fj->n_helpers; i++)
		pthread_join(fj->helper[i].thread, NULL);
	pthread_cond_destroy(&fj->to_helpers);
	pthread_cond_destroy(&fj->to_caller);
	pthread_mutex_destroy(&fj->mu);
	free(fj->helper);
	free(fj->stamp);
	free(fj);
}

void fork_join_run(struct fork_join *fj, fork_join_task_fn *fn, void *ctx)
{
	uint32_t n = fj->n;
	if (!fj->n_helpers || n == 1) {
		for (uint32_t i = 0; i < n; i++)
			fn(ctx, i);
		return;
	}
	/* every task of the last round has finished (its count), and every
	 * stamp holds the last round's number */
	atomic_store(&fj->fn, fn);
	atomic_store(&fj->ctx, ctx);
	atomic_store(&fj->done, 0);
	uint32_t round = atomic_load(&fj->round) + 1;
	atomic_store(&fj->round, round); /* publishes the round */
	spin_wake(&fj->mu, &fj->to_helpers, &fj->helpers_asleep, true);
	claim_tasks(fj, round, 0);
	spin_wait(&fj->mu, &fj->to_caller, &fj->caller_asleep, round_done, fj, n);
}
