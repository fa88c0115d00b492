/* Waiting for another thread: spin briefly, then sleep on a condition
 * variable (the window pipe, src/sm/sm_window.c; the fork-join pool,
 * fork_join.c).
 *
 * Owns: nothing (the caller's mutex, condition variable and count of
 * sleepers).
 * May call: pthreads.
 * Guarantees: spin_wait returns once ready(ctx, arg) holds. The waker makes
 * the condition true with a sequentially consistent store and then calls
 * spin_wake, which reads the sleepers' count: either it sees the waiter
 * counted and signals under the mutex, or the waiter's check under the
 * mutex, made after counting itself, sees the store. No wake-up is lost. */
#ifndef GPUVM_PAR_SPIN_WAIT_H
#define GPUVM_PAR_SPIN_WAIT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A wait spins this many pauses (about 50 ns each on the 2-core EPYC
 * host: 100 us) before it sleeps: hand-overs inside a barrier are
 * microseconds apart and a sleep's wake-up costs as long (200 pauses
 * slept so often that p100 random sampling took 3.3-4.6 s instead of
 * 2.1-2.6), but a thread that spins on a core another process needs keeps
 * the thread it waits for off it: with two busy loops beside it, spinning
 * then yielding took one run 12.8 s against 0.8-1.1 s on one thread;
 * spinning then sleeping, 1.0-1.3 s. */
#define SPIN_WAIT_PAUSES 2000

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

typedef bool spin_ready_fn(void *ctx, uint64_t arg);

/* doze (may be NULL): while it is set the wait sleeps at once, the waker
 * having said that nothing comes soon (a hand-over's spin then takes no
 * core from threads that have work). */
static inline void spin_wait_dozing(pthread_mutex_t *mu, pthread_cond_t *cv, atomic_int *sleepers,
				    spin_ready_fn *ready, void *ctx, uint64_t arg,
				    const atomic_bool *doze)
{
	for (unsigned spin = 0; spin < SPIN_WAIT_PAUSES; spin++) {
		if (ready(ctx, arg))
			return;
		if (doze && atomic_load_explicit(doze, memory_order_relaxed))
			break;
		spin_pause();
	}
	atomic_fetch_add(sleepers, 1);
	pthread_mutex_lock(mu);
	while (!ready(ctx, arg))
		pthread_cond_wait(cv, mu);
	pthread_mutex_unlock(mu);
	atomic_fetch_sub(sleepers, 1);
}

static inline void spin_wait(pthread_mutex_t *mu, pthread_cond_t *cv, atomic_int *sleepers,
			     spin_ready_fn *ready, void *ctx, uint64_t arg)
{
	spin_wait_dozing(mu, cv, sleepers, ready, ctx, arg, NULL);
}

/* After a store a sleeping thread may wait for: wakes it (all: every
 * thread sleeping on cv). */
static inline void spin_wake(pthread_mutex_t *mu, pthread_cond_t *cv, atomic_int *sleepers,
			     bool all)
{
	if (!atomic_load(sleepers))
		return;
	pthread_mutex_lock(mu);
	if (all)
		pthread_cond_broadcast(cv);
	else
		pthread_cond_signal(cv);
	pthread_mutex_unlock(mu);
}

#endif
