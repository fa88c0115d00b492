/* A debug build's trace of one request's path (req_trace.h holds the
 * contract). */
#include "core/req_trace.h"

#ifdef GPUVM_CHECK_INVARIANTS

#include <stdatomic.h>
#include <stdio.h>

#include "core/env_knob.h"

/* Steps of one memory instruction kept; a far-faulting load takes ~20,
 * one that evicts a few more per eviction. Later steps are dropped (the
 * printed record says so). */
#define REQ_TRACE_STEPS 256

struct req_step {
	const char *component, *function;
	bool down;
};

_Thread_local bool req_trace_recording;
static _Thread_local struct req_step steps[REQ_TRACE_STEPS];
static _Thread_local unsigned n_steps, dropped;
static _Thread_local bool faulted;
/* 0: not yet asked; 1: on; 2: off or printed. Atomic: any thread that
 * serves an instruction may get there first. */
static _Atomic int state;

void req_trace_begin(void)
{
	int was = atomic_load_explicit(&state, memory_order_relaxed);
	if (was == 0) {
		int want = env_knob_bool("GPUVM_TRACE_REQUEST", 0) ? 1 : 2;
		atomic_compare_exchange_strong(&state, &was, want);
		was = atomic_load_explicit(&state, memory_order_relaxed);
	}
	if (was != 1)
		return;
	n_steps = dropped = 0;
	faulted = false;
	req_trace_recording = true;
}

void req_trace_note(const char *component, bool down, const char *function)
{
	if (n_steps == REQ_TRACE_STEPS) {
		dropped++;
		return;
	}
	steps[n_steps++] = (struct req_step){component, function, down};
}

void req_trace_mark_fault(void)
{
	faulted = true;
}

void req_trace_end(void)
{
	if (!req_trace_recording)
		return;
	req_trace_recording = false;
	int on = 1;
	if (!faulted || !atomic_compare_exchange_strong(&state, &on, 2))
		return; /* no far fault, or another thread printed first */
	for (unsigned i = 0; i < n_steps; i++)
		fprintf(stderr, "req-trace: %s %s %s\n", steps[i].component,
			steps[i].down ? "down" : "up", steps[i].function);
	if (dropped)
		fprintf(stderr, "req-trace: (%u later steps dropped)\n", dropped);
}

#else

/* ISO C wants a translation unit to declare something. */
typedef int req_trace_release_build;

#endif
