/* The CPU baseline of seeds/001 Fig. 6.9 ("the CPU-based versions use a
 * hash table design similar to our GPU-based hash table design except
 * that they do not use the SePo model of computation"): the same chained
 * table, per-group pages from a shared pool, lock-free basic push, bucket
 * and entry spin locks for combining and multi-valued, run by pthreads on
 * the host and timed for real (wall clock, CLOCK_MONOTONIC). The table is
 * laid out exactly as the GPU one (sepo_dev.h), with page number = slot,
 * so the same host reader checks it against the same reference. */
#include "bigdata/sepo_cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cpu_table {
	unsigned long long *heap, *buckets;
	int *bucket_locks, *group_page, *group_locks;
	unsigned int *page_used;
	unsigned int page_shift, page_words, pages, nbuckets, per_group, org, op;
	unsigned int next_page;
	int oom;
};

static int try_lock(int *l)
{
	int z = 0;
	return __atomic_compare_exchange_n(l, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static void lock(int *l)
{
	while (!try_lock(l))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			;
}

static unsigned long long cpu_alloc(struct cpu_table *t, unsigned int g, unsigned int kind,
				    unsigned int n, unsigned long long **w)
{
	for (;;) {
		int cur = __atomic_load_n(&t->group_page[2 * g + kind], __ATOMIC_ACQUIRE);
		if (cur >= 0) {
			unsigned int off = __atomic_fetch_add(&t->page_used[cur], n, __ATOMIC_RELAXED);
			if (off + n <= t->page_words) {
				*w = t->heap + ((unsigned long long)cur << t->page_shift) + off;
				return (((unsigned long long)cur << t->page_shift) | off) + 1;
			}
		}
		lock(&t->group_locks[g]);
		if (__atomic_load_n(&t->group_page[2 * g + kind], __ATOMIC_RELAXED) == cur) {
			unsigned int p = __atomic_fetch_add(&t->next_page, 1, __ATOMIC_RELAXED);
			if (p >= t->pages) {
				t->oom = 1; /* sized for the whole table: cannot happen */
				unlock(&t->group_locks[g]);
				return 0;
			}
			t->page_used[p] = 0;
			__atomic_store_n(&t->group_page[2 * g + kind], (int)p, __ATOMIC_RELEASE);
		}
		unlock(&t->group_locks[g]);
	}
}

static unsigned long long *at(const struct cpu_table *t, unsigned long long ref)
{
	return ref ? t->heap + (ref - 1) : NULL;
}

/* An entry's key bytes, from the low half of its meta word e[1], written
 * before the entry is published. The high half is combining's entry lock
 * (cpu_insert), which other threads take and release while this one
 * looks: reading the whole 8-byte word raced with them (ThreadSanitizer,
 * sepo-kv org=combining with cpu=3), so only the low 4 bytes are read
 * (the lock's "high half" is the upper 4 bytes on this little-endian
 * layout, as on the GPU). */
static unsigned int entry_kbytes(const unsigned long long *e)
{
	unsigned int lo;
	memcpy(&lo, (const char *)(e + 1), sizeof lo);
	return lo & 0xffff;
}
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the entry lock is the meta word's upper 4 bytes");

static unsigned long long *cpu_find(const struct cpu_table *t, unsigned long long ref,
				    unsigned long long stop, const unsigned long long *key,
				    unsigned int kbytes, unsigned int key_at)
{
	unsigned int kw = (kbytes + 7) / 8;
	for (; ref && ref != stop; ref = __atomic_load_n(at(t, ref), __ATOMIC_ACQUIRE)) {
		unsigned long long *e = at(t, ref);
		if (entry_kbytes(e) == kbytes && !memcmp(e + key_at, key, kw * 8))
			return e;
	}
	return NULL;
}

static void write_entry(const struct cpu_table *t, unsigned long long *e, unsigned long long next,
			const unsigned long long *key, unsigned int kb, const unsigned long long *val,
			unsigned int vb)
{
	unsigned int kw = (kb + 7) / 8, vw = (vb + 7) / 8, k_at = 2;
	e[0] = next;
	e[1] = kb | (unsigned long long)vb << 16;
	if (t->org == SEPO_MULTI) {
		e[2] = 0;
		k_at = 3;
		vw = 0;
	}
	memcpy(e + k_at, key, kw * 8);
	memcpy(e + k_at + kw, val, vw * 8);
}

static void push(unsigned long long *head, unsigned long long *node, unsigned long long ref)
{
	unsigned long long h = __atomic_load_n(head, __ATOMIC_RELAXED);
	do
		node[0] = h;
	while (!__atomic_compare_exchange_n(head, &h, ref, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

static void cpu_insert(struct cpu_table *t, const unsigned long long *key, unsigned int kb,
		       const unsigned long long *val, unsigned int vb)
{
	unsigned int h = 2166136261u; /* FNV-1a as sepo_hash */
	for (unsigned int i = 0; i < kb; i++) {
		h ^= (unsigned int)(key[i / 8] >> (8 * (i % 8)) & 0xff);
		h *= 16777619u;
	}
	unsigned int b = h % t->nbuckets, g = b / t->per_group;
	unsigned int kw = (kb + 7) / 8, vw = (vb + 7) / 8, key_at = t->org == SEPO_MULTI ? 3 : 2;
	unsigned long long *w;
	if (t->org == SEPO_BASIC) {
		unsigned long long ref = cpu_alloc(t, g, 0, 2 + kw + vw, &w);
		if (!ref)
			return;
		write_entry(t, w, 0, key, kb, val, vb);
		push(&t->buckets[b], w, ref);
		return;
	}
	unsigned long long head0 = __atomic_load_n(&t->buckets[b], __ATOMIC_ACQUIRE);
	unsigned long long *e = cpu_find(t, head0, 0, key, kb, key_at);
	if (!e) {
		lock(&t->bucket_locks[b]);
		unsigned long long hd = t->buckets[b];
		e = cpu_find(t, hd, head0, key, kb, key_at);
		if (!e) {
			unsigned long long ref = cpu_alloc(t, g, 0, t->org == SEPO_MULTI ? 3 + kw : 2 + kw + vw, &w);
			if (ref) {
				write_entry(t, w, hd, key, kb, val, vb);
				__atomic_store_n(&t->buckets[b], ref, __ATOMIC_RELEASE);
			}
			unlock(&t->bucket_locks[b]);
			if (!ref || t->org == SEPO_COMBINING)
				return;
			e = w;
		} else {
			unlock(&t->bucket_locks[b]);
		}
	}
	if (t->org == SEPO_COMBINING) {
		int *l = (int *)(e + 1) + 1; /* the high half of meta */
		lock(l);
		for (unsigned int i = 0; i < vw; i++) {
			unsigned long long *s = e + 2 + kw + i;
			*s = sepo_combine_word(t->op, i, *s, val[i]);
		}
		unlock(l);
		return;
	}
	unsigned long long vref = cpu_alloc(t, g, 1, 2 + vw, &w);
	if (!vref)
		return;
	w[1] = (unsigned long long)vb << 16;
	memcpy(w + 2, val, vw * 8);
	push(&e[2], w, vref);
}

static void emit(void *table, const unsigned long long *key, unsigned int kbytes,
		 const unsigned long long *val, unsigned int vbytes)
{
	cpu_insert(table, key, kbytes, val, vbytes);
}

struct worker {
	struct cpu_table *t;
	const struct sepo_cpu_app *app;
	unsigned long long *input; /* the whole input, generated before the clock starts */
	uint64_t first, n;
	int fill; /* 1: generate this worker's share of the input; 0: map it */
};

static void *work(void *arg)
{
	struct worker *wk = arg;
	const struct sepo_cpu_app *a = wk->app;
	unsigned long long *rec = wk->input + wk->first * a->rec_words;
	if (wk->fill) {
		a->fill(a->ctx, wk->first, wk->n, rec);
		return NULL;
	}
	for (uint64_t i = 0; i < wk->n; i++)
		a->map(a->ctx, rec + i * a->rec_words, emit, wk->t);
	return NULL;
}

/* Runs work() on every worker; returns the threads that ran. */
static unsigned int run_all(struct worker *wk, pthread_t *tid, unsigned int threads)
{
	unsigned int started = 0;
	for (unsigned int i = 0; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, work, &wk[i]))
			break;
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return started;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int sepo_cpu_run(const struct sepo_cpu_app *app, const struct sepo_config *c, unsigned int threads,
		 struct sepo_ref *summary, double *seconds)
{
	struct cpu_table t;
	memset(&t, 0, sizeof t);
	t.page_words = (unsigned int)(c->page_bytes / 8);
	while ((1u << t.page_shift) < t.page_words)
		t.page_shift++;
	t.pages = (unsigned int)(c->bound_bytes / (c->page_bytes / 2) + 2 * c->groups + 2);
	t.nbuckets = (unsigned int)c->nbuckets;
	t.per_group = (unsigned int)((c->nbuckets + c->groups - 1) / c->groups);
	t.org = c->org;
	t.op = c->combine_op;
	/* calloc: pages are zeroed lazily by the OS (untouched ones cost nothing) */
	t.heap = calloc((size_t)t.pages << t.page_shift, 8);
	t.buckets = calloc(c->nbuckets, 8);
	t.bucket_locks = calloc(c->nbuckets, 4);
	t.group_page = malloc(c->groups * 8);
	t.group_locks = calloc(c->groups, 4);
	t.page_used = calloc(t.pages, 4);
	struct worker *wk = calloc(threads, sizeof *wk);
	pthread_t *tid = calloc(threads, sizeof *tid);
	/* the input in memory, as the thesis's CPU versions read it: only the
	 * map and the inserts are timed */
	unsigned long long *input = malloc(app->records * app->rec_words * 8);
	int rc = -1;
	if (!t.heap || !t.buckets || !t.bucket_locks || !t.group_page || !t.group_locks ||
	    !t.page_used || !wk || !tid || !input)
		goto out;
	memset(t.group_page, 0xff, c->groups * 8);
	for (unsigned int i = 0; i < threads; i++) {
		wk[i].t = &t;
		wk[i].app = app;
		wk[i].input = input;
		wk[i].first = app->records * i / threads;
		wk[i].n = app->records * (i + 1) / threads - wk[i].first;
		wk[i].fill = 1;
	}
	if (run_all(wk, tid, threads) < threads)
		goto out;
	for (unsigned int i = 0; i < threads; i++)
		wk[i].fill = 0;
	double t0 = now();
	unsigned int started = run_all(wk, tid, threads);
	*seconds = now() - t0;
	if (started < threads || t.oom)
		goto out;
	/* read it back with the GPU table's host reader */
	struct sepo_table view;
	memset(&view, 0, sizeof view);
	view.c = *c;
	view.page_words = t.page_words;
	unsigned int ctr[SEPO_CTRS] = {0};
	ctr[SEPO_CTR_SLOTS] = t.next_page < t.pages ? t.next_page : t.pages;
	view.d.ctr = ctr;
	view.d.page_shift = t.page_shift;
	view.d.slot_cap = t.pages;
	view.d.buckets = t.buckets;
	view.slot_host = calloc(t.pages, sizeof *view.slot_host);
	if (!view.slot_host)
		goto out;
	for (unsigned int p = 0; p < t.pages; p++)
		view.slot_host[p] = t.heap + ((size_t)p << t.page_shift);
	rc = sepo_ref_from_table(summary, &view);
	free(view.slot_host);
out:
	free(input);
	free(t.heap);
	free(t.buckets);
	free(t.bucket_locks);
	free(t.group_page);
	free(t.group_locks);
	free(t.page_used);
	free(wk);
	free(tid);
	return rc;
}
