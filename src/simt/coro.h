/* Stackful coroutines for the SIMT executor: each simulated GPU thread
 * (and each host program) runs on its own small stack and switches back to
 * the engine's stack when it has produced enough accesses, reached a
 * barrier, or posted a host operation. One switch is a few register pushes
 * (x86-64 assembly; ucontext elsewhere), annotated for AddressSanitizer. */
#ifndef GPUVM_SIMT_CORO_H
#define GPUVM_SIMT_CORO_H

#include <stddef.h>

struct coro {
	void *sp;            /* saved stack pointer while suspended */
	unsigned char *stack;
	size_t stack_bytes;
	int mmapped;
	void (*entry)(void *arg);
	void *arg;
	void *caller_sp;     /* the stack that resumed us */
	int finished;
	/* AddressSanitizer fiber bookkeeping */
	void *asan_fake_self, *asan_fake_caller;
	const void *caller_bottom;
	size_t caller_size;
#if !defined(__x86_64__)
	void *uctx, *caller_uctx;
#endif
};

/* Prepares c to run entry(arg) on a stack of stack_bytes (mmap'd when
 * large, so untouched pages cost nothing). Returns -1 on out of memory. */
int coro_init(struct coro *c, size_t stack_bytes, void (*entry)(void *), void *arg);
/* Re-arms a finished coroutine (same stack) for a new entry. */
void coro_rearm(struct coro *c, void (*entry)(void *), void *arg);
void coro_free(struct coro *c);

/* From the caller's stack: runs c until it yields or finishes. */
void coro_resume(struct coro *c);
/* From inside c: back to whoever resumed it. */
void coro_yield(struct coro *c);

#endif
