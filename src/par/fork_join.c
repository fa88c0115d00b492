/* The fork-join pool (fork_join.h holds the contract). One atomic word,
 * the ticket, holds the round's number (high half) and its next
 * unclaimed task (low half): helpers wait for the round to change, then
 * claim tasks by compare-and-swap on the ticket, which fails once the
 * round has moved on, so a helper late from one round can never claim a
 * task of the next with the last round's function. Each finished task is
 * counted; the caller claims tasks too and then waits for the count. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/cache_line.h"
#include "par/fork_join.h"
#include "par/thread_profile.h"

/* Pauses a waiting thread spins before it sleeps (about 50 ns each on the
 * 2-core EPYC host: 100 us, as the window pipe's, src/sm/sm_window.c). */
#define FJ_SPINS 2000

struct fork_join {
	pthread_t *helper;
	uint32_t n_helpers;
	pthread_mutex_t mu;
	pthread_cond_t to_helpers, to_caller;
	/* the round's work, stored between closing the last round's ticket
	 * and opening the new one's (atomics: a helper late from the last
	 * round may read them, and then finds the ticket closed) */
	_Atomic(fork_join_task_fn *) fn;
	_Atomic(void *) ctx;
	_Atomic uint32_t n;
	_Alignas(64) _Atomic uint64_t ticket; /* round << 32 | next task */
	atomic_bool quit;
	atomic_int helpers_asleep;
	_Alignas(64) _Atomic uint32_t done; /* the round's finished tasks */
	atomic_int caller_asleep;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The tasks of round `round` this thread can claim. */
static void claim_tasks(struct fork_join *fj, uint32_t round)
{
	uint64_t t = atomic_load(&fj->ticket);
	if ((uint32_t)(t >> 32) != round)
		return;
	/* read after the ticket showed the round: its work is published */
	fork_join_task_fn *fn = atomic_load(&fj->fn);
	void *ctx = atomic_load(&fj->ctx);
	uint32_t n = atomic_load(&fj->n);
	for (;;) {
		if ((uint32_t)(t >> 32) != round || (uint32_t)t >= n)
			return;
		if (!atomic_compare_exchange_weak(&fj->ticket, &t, t + 1))
			continue; /* t now holds the ticket's value */
		fn(ctx, (uint32_t)t);
		t = atomic_load(&fj->ticket);
		if (atomic_fetch_add(&fj->done, 1) + 1 == n && atomic_load(&fj->caller_asleep)) {
			pthread_mutex_lock(&fj->mu);
			pthread_cond_signal(&fj->to_caller);
			pthread_mutex_unlock(&fj->mu);
		}
	}
}

static bool round_changed(struct fork_join *fj, uint32_t seen)
{
	return (uint32_t)(atomic_load(&fj->ticket) >> 32) != seen || atomic_load(&fj->quit);
}

static void *helper_main(void *arg)
{
	struct fork_join *fj = arg;
	uint32_t seen = 0;
	for (;;) {
		unsigned spin = 0;
		while (!round_changed(fj, seen) && spin++ < FJ_SPINS)
			cpu_relax();
		if (!round_changed(fj, seen)) {
			/* counted asleep before the check under the mutex: the
			 * caller's store of the round then sees the count */
			atomic_fetch_add(&fj->helpers_asleep, 1);
			pthread_mutex_lock(&fj->mu);
			while (!round_changed(fj, seen))
				pthread_cond_wait(&fj->to_helpers, &fj->mu);
			pthread_mutex_unlock(&fj->mu);
			atomic_fetch_sub(&fj->helpers_asleep, 1);
		}
		if (atomic_load(&fj->quit)) {
			thread_profile_exit(); /* gpuvm bench --profile: its CPU time */
			return NULL;
		}
		seen = (uint32_t)(atomic_load(&fj->ticket) >> 32);
		claim_tasks(fj, seen);
	}
}

struct fork_join *fork_join_new(uint32_t threads)
{
	struct fork_join *fj = gpuvm_calloc_lines(1, sizeof *fj);
	if (!fj)
		return NULL;
	if (pthread_mutex_init(&fj->mu, NULL)) {
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
		if (pthread_create(&fj->helper[i], NULL, helper_main, fj))
			break; /* fewer helpers: the caller runs their tasks */
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
		pthread_join(fj->helper[i], NULL);
	pthread_cond_destroy(&fj->to_helpers);
	pthread_cond_destroy(&fj->to_caller);
	pthread_mutex_destroy(&fj->mu);
	free(fj->helper);
	free(fj);
}

void fork_join_run(struct fork_join *fj, uint32_t n, fork_join_task_fn *fn, void *ctx)
{
	if (!n)
		return;
	if (!fj->n_helpers || n == 1) {
		for (uint32_t i = 0; i < n; i++)
			fn(ctx, i);
		return;
	}
	/* Every task of the last round has finished (its count). Its ticket
	 * is closed first: a helper that read it before, with the last
	 * round's number, then fails its compare-and-swap whatever n it
	 * reads. */
	uint32_t round = (uint32_t)(atomic_load(&fj->ticket) >> 32);
	atomic_store(&fj->ticket, (uint64_t)round << 32 | UINT32_MAX);
	atomic_store(&fj->fn, fn);
	atomic_store(&fj->ctx, ctx);
	atomic_store(&fj->n, n);
	atomic_store(&fj->done, 0);
	round++;
	atomic_store(&fj->ticket, (uint64_t)round << 32); /* publishes the round */
	if (atomic_load(&fj->helpers_asleep)) {
		pthread_mutex_lock(&fj->mu);
		pthread_cond_broadcast(&fj->to_helpers);
		pthread_mutex_unlock(&fj->mu);
	}
	claim_tasks(fj, round);
	unsigned spin = 0;
	while (atomic_load(&fj->done) != n && spin++ < FJ_SPINS)
		cpu_relax();
	if (atomic_load(&fj->done) != n) {
		atomic_fetch_add(&fj->caller_asleep, 1);
		pthread_mutex_lock(&fj->mu);
		while (atomic_load(&fj->done) != n)
			pthread_cond_wait(&fj->to_caller, &fj->mu);
		pthread_mutex_unlock(&fj->mu);
		atomic_fetch_sub(&fj->caller_asleep, 1);
	}
}
