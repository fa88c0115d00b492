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
#include <time.h>

/* A wait spins this long before it sleeps: hand-overs inside a barrier
 * are microseconds apart and a sleep's wake-up costs as long (a condition
 * variable's round trip measured 45 us on the 2-core EPYC host, 2026-11-27),
 * but a thread that spins on a core another process needs keeps the thread
 * it waits for off it: with two busy loops beside it, spinning then
 * yielding took one run 12.8 s against 0.8-1.1 s on one thread; spinning
 * then sleeping, 1.0-1.3 s. The bound is time, read from the clock every
 * SPIN_WAIT_CHECK pauses, not a count of pauses: a pause lasts what the
 * CPU makes it (about 50 ns on one EPYC host, 24 ns on the next), and a
 * count of 2000 that spun 100 us on the first spun 48 us on the second,
 * which slept so often that p100 random sampling at two threads took
 * 2.9-3.0 s instead of 1.4 (as 200 pauses had on the first: 3.3-4.6 s
 * instead of 2.1-2.6). */
#define SPIN_WAIT_NS 100000
#define SPIN_WAIT_CHECK 64

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline int64_t spin_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef bool spin_ready_fn(void *ctx, uint64_t arg);

/* doze (may be NULL): while it is set the wait sleeps at once, the waker
 * having said that nothing comes soon (a hand-over's spin then takes no
 * core from threads that have work). */
static inline void spin_wait_dozing(pthread_mutex_t *mu, pthread_cond_t *cv, atomic_int *sleepers,
				    spin_ready_fn *ready, void *ctx, uint64_t arg,
				    const atomic_bool *doze)
{
	int64_t deadline = 0;
	for (unsigned spin = 0;; spin++) {
		if (ready(ctx, arg))
			return;
		if (doze && atomic_load_explicit(doze, memory_order_relaxed))
			break;
		if (spin % SPIN_WAIT_CHECK == 0) {
			int64_t now = spin_clock_ns();
			if (!deadline)
				deadline = now + SPIN_WAIT_NS;
			else if (now >= deadline)
				break;
		}
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
