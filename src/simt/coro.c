#include "simt/coro.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif
#ifdef CORO_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define ASAN_START(fake, bottom, size) __sanitizer_start_switch_fiber(fake, bottom, size)
#define ASAN_FINISH(fake, bottom, size) __sanitizer_finish_switch_fiber(fake, bottom, size)
#else
#define ASAN_START(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#define ASAN_FINISH(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#endif

/* ThreadSanitizer keeps a shadow call stack per fiber: without telling
 * it about switches, frames of suspended coroutines pile up on the
 * thread's until it overflows (gpuvm sim --threads is checked under it). */
#if defined(__SANITIZE_THREAD__)
#define CORO_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CORO_TSAN 1
#endif
#endif
#ifdef CORO_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_func_exit(void);
#define TSAN_TO(fiber) __tsan_switch_to_fiber(fiber, 0)
/* the trampoline never returns: pop its frame before leaving for good,
 * so that a re-armed coroutine's fiber starts empty */
#define TSAN_LAST_EXIT() __tsan_func_exit()
#else
#define TSAN_TO(fiber) ((void)(fiber))
#define TSAN_LAST_EXIT() ((void)0)
#endif

/* One fiber per coroutine, kept when it is re-armed (creating one costs
 * ThreadSanitizer a thread's worth of state). */
static void tsan_fiber_init(struct coro *c)
{
#ifdef CORO_TSAN
	if (!c->tsan_self)
		c->tsan_self = __tsan_create_fiber(0);
#else
	(void)c;
#endif
}

static void tsan_fiber_free(struct coro *c)
{
#ifdef CORO_TSAN
	if (c->tsan_self)
		__tsan_destroy_fiber(c->tsan_self);
#endif
	c->tsan_self = NULL;
}

/* A finished coroutine never returns from its first frames, so their
 * redzones stay poisoned; a recycled stack starts clean. */
static void stack_unpoison(struct coro *c)
{
#ifdef CORO_ASAN
	__asan_unpoison_memory_region(c->stack, c->stack_bytes);
#else
	(void)c;
#endif
}

/* Stacks above this come from mmap (lazily backed); smaller ones from
 * malloc, which is cheaper to recycle. */
#define CORO_MMAP_BYTES (256u << 10)

static _Thread_local struct coro *coro_starting;

static void coro_run(struct coro *c)
{
	ASAN_FINISH(NULL, &c->caller_bottom, &c->caller_size);
	c->entry(c->arg);
	c->finished = 1;
	ASAN_START(NULL, c->caller_bottom, c->caller_size);
}

#if defined(__x86_64__)
/* Saves the callee-saved registers and the SSE/x87 control words on the
 * current stack, stores the stack pointer in *save and continues on the
 * stack `to` (System V AMD64 ABI). */
void gpuvm_coro_switch(void **save, void *to);
__asm__(".text\n"
	".p2align 4\n"
	".globl gpuvm_coro_switch\n"
	".type gpuvm_coro_switch,@function\n"
	"gpuvm_coro_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tsubq $16, %rsp\n\tstmxcsr 8(%rsp)\n\tfnstcw (%rsp)\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tldmxcsr 8(%rsp)\n\tfldcw (%rsp)\n\taddq $16, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size gpuvm_coro_switch, .-gpuvm_coro_switch\n"
	".section .note.GNU-stack,\"\",@progbits\n"
	".text\n");

static void coro_trampoline(void)
{
	struct coro *c = coro_starting;
	coro_run(c);
	void *dead;
	TSAN_LAST_EXIT();
	TSAN_TO(c->tsan_caller);
	gpuvm_coro_switch(&dead, c->caller_sp);
	abort(); /* never resumed */
}

/* The first frame at the 16-aligned top of a stack: where the first
 * switch pops 6 registers and returns into the trampoline; returns sp. */
static uint64_t *first_frame(uint64_t *s)
{
	/* After the switch pops 6 registers and returns into the trampoline,
	 * rsp = top - 8: the alignment a `call` would leave. */
	s[-1] = 0;
	s[-2] = (uint64_t)(uintptr_t)coro_trampoline;
	for (int i = 3; i <= 8; i++)
		s[-i] = 0;
	uint32_t *ctl = (uint32_t *)(s - 10);
	ctl[0] = 0x037F; /* x87 control word: default */
	ctl[1] = 0;
	ctl[2] = 0x1F80; /* MXCSR: default */
	ctl[3] = 0;
	return s - 10;
}

#define FIRST_FRAME_BYTES (10 * sizeof(uint64_t))

static uintptr_t stack_top(const unsigned char *base, size_t bytes)
{
	return ((uintptr_t)(base + bytes)) & ~(uintptr_t)15;
}

static int save_reserve(struct coro *c, size_t len)
{
	if (len <= c->save_cap)
		return 0;
	size_t cap = (len + 63) & ~(size_t)63; /* frames of one thread vary little */
	unsigned char *n = realloc(c->save, cap);
	if (!n)
		return -1;
	c->save = n;
	c->save_cap = cap;
	return 0;
}

static void coro_frame(struct coro *c)
{
	if (c->shared) {
		/* built in the save area; copied onto the run stack when it
		 * first runs (save_reserve succeeded in coro_init_shared) */
		uint64_t f[10];
		first_frame(f + 10);
		memcpy(c->save, f, FIRST_FRAME_BYTES);
		c->save_len = FIRST_FRAME_BYTES;
		c->sp = (void *)(stack_top(c->shared->base, c->shared->bytes) - FIRST_FRAME_BYTES);
		return;
	}
	c->sp = first_frame((uint64_t *)stack_top(c->stack, c->stack_bytes));
}

/* Copying mode: c's frames onto the run stack, the owner's off it. */
static int take_stack(struct coro *c)
{
	struct coro_stack *s = c->shared;
	if (s->owner == c)
		return 0;
	uintptr_t top = stack_top(s->base, s->bytes);
	struct coro *o = s->owner;
	if (o) {
		size_t len = top - (uintptr_t)o->sp;
		if (save_reserve(o, len))
			return -1;
		memcpy(o->save, o->sp, len);
		o->save_len = len;
	}
	memcpy((void *)(top - c->save_len), c->save, c->save_len);
	s->owner = c;
	return 0;
}

static void switch_in(struct coro *c)
{
	gpuvm_coro_switch(&c->caller_sp, c->sp);
}
static void switch_out(struct coro *c)
{
	gpuvm_coro_switch(&c->sp, c->caller_sp);
}
#else
#include <ucontext.h>

static void coro_trampoline(void)
{
	struct coro *c = coro_starting;
	coro_run(c);
	TSAN_LAST_EXIT();
	TSAN_TO(c->tsan_caller);
	setcontext((ucontext_t *)c->caller_uctx);
	abort();
}

static void coro_frame(struct coro *c)
{
	ucontext_t *u = c->uctx;
	getcontext(u);
	u->uc_stack.ss_sp = c->stack;
	u->uc_stack.ss_size = c->stack_bytes;
	u->uc_link = NULL;
	makecontext(u, coro_trampoline, 0);
}

static void switch_in(struct coro *c)
{
	swapcontext((ucontext_t *)c->caller_uctx, (ucontext_t *)c->uctx);
}
static void switch_out(struct coro *c)
{
	swapcontext((ucontext_t *)c->uctx, (ucontext_t *)c->caller_uctx);
}
#endif

int coro_init(struct coro *c, size_t stack_bytes, void (*entry)(void *), void *arg)
{
	memset(c, 0, sizeof *c);
	c->stack_bytes = stack_bytes;
	if (stack_bytes >= CORO_MMAP_BYTES) {
		void *p = mmap(NULL, stack_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		c->stack = p;
		c->mmapped = 1;
	} else {
		c->stack = malloc(stack_bytes);
		if (!c->stack)
			return -1;
	}
#if !defined(__x86_64__)
	c->uctx = calloc(1, sizeof(ucontext_t));
	c->caller_uctx = calloc(1, sizeof(ucontext_t));
	if (!c->uctx || !c->caller_uctx) {
		coro_free(c);
		return -1;
	}
#endif
	coro_rearm(c, entry, arg);
	return 0;
}

#ifdef CORO_HAVE_SHARED
int coro_stack_init(struct coro_stack *s, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return -1;
	s->base = p;
	s->bytes = bytes;
	s->owner = NULL;
	return 0;
}

void coro_stack_free(struct coro_stack *s)
{
	if (s->base) {
#ifdef CORO_ASAN
		/* the redzones of frames that never returned stay in the shadow
		 * after munmap: a later mapping at these addresses (a workload's
		 * table) would read as a stack underflow */
		__asan_unpoison_memory_region(s->base, s->bytes);
#endif
		munmap(s->base, s->bytes);
	}
	s->base = NULL;
	s->owner = NULL;
}

int coro_init_shared(struct coro *c, struct coro_stack *s, void (*entry)(void *), void *arg)
{
	memset(c, 0, sizeof *c);
	c->shared = s;
	if (save_reserve(c, FIRST_FRAME_BYTES))
		return -1;
	coro_rearm(c, entry, arg);
	return 0;
}
#endif

void coro_rearm(struct coro *c, void (*entry)(void *), void *arg)
{
	if (c->shared && c->shared->owner == c)
		c->shared->owner = NULL; /* its frames there are dead */
	stack_unpoison(c);
	c->entry = entry;
	c->arg = arg;
	c->finished = 0;
	c->asan_fake_self = c->asan_fake_caller = NULL;
	c->caller_bottom = NULL;
	c->caller_size = 0;
	tsan_fiber_init(c);
	coro_frame(c); /* the first resume starts in the trampoline */
}

void coro_free(struct coro *c)
{
	if (c->shared && c->shared->owner == c)
		c->shared->owner = NULL;
	tsan_fiber_free(c);
	free(c->save);
	if (c->stack) {
		stack_unpoison(c); /* as coro_stack_free's */
		if (c->mmapped)
			munmap(c->stack, c->stack_bytes);
		else
			free(c->stack);
	}
#if !defined(__x86_64__)
	free(c->uctx);
	free(c->caller_uctx);
#endif
	memset(c, 0, sizeof *c);
}

void coro_resume(struct coro *c)
{
#if defined(__x86_64__)
	if (c->shared && take_stack(c)) {
		/* out of memory saving the frames of the thread on the run
		 * stack: it cannot be parked, so this one cannot run */
		c->oom = 1;
		return;
	}
#endif
	coro_starting = c;
#ifdef CORO_TSAN
	c->tsan_caller = __tsan_get_current_fiber();
#endif
	ASAN_START(&c->asan_fake_caller, c->stack, c->stack_bytes);
	TSAN_TO(c->tsan_self);
	switch_in(c);
	ASAN_FINISH(c->asan_fake_caller, NULL, NULL);
	if (c->finished && c->shared)
		c->shared->owner = NULL; /* nothing of it left to park */
}

void coro_yield(struct coro *c)
{
	ASAN_START(&c->asan_fake_self, c->caller_bottom, c->caller_size);
	TSAN_TO(c->tsan_caller);
	switch_out(c);
	ASAN_FINISH(c->asan_fake_self, &c->caller_bottom, &c->caller_size);
}
