/* Stackful coroutines for the SIMT executor: each simulated GPU thread
 * (and each host program) runs on its own small stack and switches back to
 * the engine's stack when it has produced enough accesses, reached a
 * barrier, or posted a host operation. One switch is a few register pushes
 * (x86-64 assembly; ucontext elsewhere), annotated for AddressSanitizer. */
#ifndef GPUVM_SIMT_CORO_H
#define GPUVM_SIMT_CORO_H

#include <stddef.h>

/* Copying mode (x86-64 without AddressSanitizer): coroutines share one
 * run stack, and a suspended one keeps only its live frames, copied out
 * when another one runs there (a few hundred bytes for a kernel thread
 * parked in an accessor, against a page or two of its own stack). So a
 * resident thread costs its saved frames, not pages. Pointers into a
 * coroutine's stack must not be used by others while it is suspended
 * (GPU threads have no such pointers: local memory is private). */
struct coro_stack {
	unsigned char *base;
	size_t bytes;
	struct coro *owner; /* whose frames are on it now, or NULL */
};

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define CORO_HAVE_SHARED 1
#endif
#else
#define CORO_HAVE_SHARED 1
#endif
#endif

struct coro {
	void *sp;            /* saved stack pointer while suspended */
	unsigned char *stack;
	size_t stack_bytes;
	int mmapped;
	void (*entry)(void *arg);
	void *arg;
	void *caller_sp;     /* the stack that resumed us */
	int finished;
	/* copying mode: the shared stack, and the frames saved off it */
	struct coro_stack *shared;
	unsigned char *save;
	size_t save_len, save_cap;
	int oom; /* a resume failed: no memory to park the stack's owner */
	/* AddressSanitizer fiber bookkeeping */
	void *asan_fake_self, *asan_fake_caller;
	/* ThreadSanitizer fibers (its shadow call stack per coroutine) */
	void *tsan_self, *tsan_caller;
	const void *caller_bottom;
	size_t caller_size;
#if !defined(__x86_64__)
	void *uctx, *caller_uctx;
#endif
};

/* Prepares c to run entry(arg) on a stack of stack_bytes (mmap'd when
 * large, so untouched pages cost nothing). Returns -1 on out of memory. */
int coro_init(struct coro *c, size_t stack_bytes, void (*entry)(void *), void *arg);
#ifdef CORO_HAVE_SHARED
/* A run stack of `bytes` for coro_init_shared (mmap'd); -1 on out of memory. */
int coro_stack_init(struct coro_stack *s, size_t bytes);
void coro_stack_free(struct coro_stack *s);
/* Prepares c to run entry(arg) on the shared stack s. */
int coro_init_shared(struct coro *c, struct coro_stack *s, void (*entry)(void *), void *arg);
#endif
/* Re-arms a finished coroutine (same stack) for a new entry. */
void coro_rearm(struct coro *c, void (*entry)(void *), void *arg);
void coro_free(struct coro *c);

/* Hints for a resume soon to come (they change nothing else): c's own
 * record, and (once that is in) its saved frames (copying mode). */
static inline void coro_prefetch_self(const struct coro *c)
{
	__builtin_prefetch(c);
	__builtin_prefetch((const char *)c + sizeof *c - 1);
}
static inline void coro_prefetch_frames(const struct coro *c)
{
	for (size_t off = 0; off < c->save_len; off += 64)
		__builtin_prefetch(c->save + off);
}

/* From the caller's stack: runs c until it yields or finishes. */
void coro_resume(struct coro *c);
/* From inside c: back to whoever resumed it. */
void coro_yield(struct coro *c);

#endif
