/* One request's path through the components, printed by a checking
 * build (GPUVM_CHECK_INVARIANTS: Debug and sanitizer builds) when
 * GPUVM_TRACE_REQUEST=1 is in the environment (docs/architecture.md, "One
 * managed load").
 *
 * Owns: the calling thread's record of the steps of the memory
 * instruction it is serving.
 * Calls: getenv through core/env_knob.h, and stderr.
 * Guarantees: changes no result. Each component notes where a request
 * enters it going down (REQ_TRACE_DOWN: it takes a request) and where its
 * answer leaves it going up (REQ_TRACE_UP); the SM layer opens a record
 * at a memory instruction (req_trace_begin) and closes it when the
 * instruction's sectors are served (req_trace_end). The first record in
 * which the UVM driver took a far fault (req_trace_mark_fault) is printed
 * to stderr, one line a step, "req-trace: COMPONENT down|up FUNCTION",
 * and tracing ends. Release builds (no GPUVM_CHECK_INVARIANTS) compile
 * every note to nothing and keep no record. A record is its thread's own: with
 * --threads only steps taken on the thread that opened it are kept. */
#ifndef GPUVM_CORE_REQ_TRACE_H
#define GPUVM_CORE_REQ_TRACE_H

#include <stdbool.h>

#ifdef GPUVM_CHECK_INVARIANTS

/* Nonzero while the calling thread records an instruction's steps. */
extern _Thread_local bool req_trace_recording;

void req_trace_begin(void);
void req_trace_end(void);
void req_trace_note(const char *component, bool down, const char *function);
void req_trace_mark_fault(void);

#define REQ_TRACE_DOWN(component, function)                                            \
	do {                                                                           \
		if (__builtin_expect(req_trace_recording, 0))                          \
			req_trace_note(component, true, function);                     \
	} while (0)
#define REQ_TRACE_UP(component, function)                                              \
	do {                                                                           \
		if (__builtin_expect(req_trace_recording, 0))                          \
			req_trace_note(component, false, function);                    \
	} while (0)
#define REQ_TRACE_FAULT()                                                              \
	do {                                                                           \
		if (__builtin_expect(req_trace_recording, 0))                          \
			req_trace_mark_fault();                                        \
	} while (0)
#define REQ_TRACE_BEGIN() req_trace_begin()
#define REQ_TRACE_END() req_trace_end()

#else

#define REQ_TRACE_DOWN(component, function) ((void)0)
#define REQ_TRACE_UP(component, function) ((void)0)
#define REQ_TRACE_FAULT() ((void)0)
#define REQ_TRACE_BEGIN() ((void)0)
#define REQ_TRACE_END() ((void)0)

#endif

#endif
