/* CPU reference of the SePo table (sepo_ref.h). */
#include "bigdata/sepo_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigdata/gen.h"

static uint64_t key_hash(const unsigned char *k, unsigned int n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned int i = 0; i < n; i++) {
		h ^= k[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

static uint64_t val_hash(const unsigned long long *v, unsigned int vbytes)
{
	uint64_t h = 0x1234567ull + vbytes;
	for (unsigned int i = 0; i < (vbytes + 7) / 8; i++)
		h = splitmix64(h ^ v[i]);
	return h;
}

int sepo_ref_init(struct sepo_ref *r, unsigned int org, unsigned int op)
{
	memset(r, 0, sizeof *r);
	r->org = org;
	r->op = op;
	r->cap = 1024;
	r->e = calloc(r->cap, sizeof *r->e);
	return r->e ? 0 : -1;
}

void sepo_ref_free(struct sepo_ref *r)
{
	free(r->e);
	free(r->arena);
	memset(r, 0, sizeof *r);
}

static struct sepo_ref_entry *slot_for(struct sepo_ref *r, const unsigned char *k, unsigned int n,
				       uint64_t h)
{
	for (uint64_t i = h & (r->cap - 1);; i = (i + 1) & (r->cap - 1)) {
		struct sepo_ref_entry *e = &r->e[i];
		if (!e->hash || (e->hash == h && e->kbytes == n &&
				 !memcmp(r->arena + e->key_off, k, n)))
			return e;
	}
}

static int grow(struct sepo_ref *r)
{
	struct sepo_ref_entry *old = r->e;
	uint64_t oc = r->cap;
	r->cap *= 2;
	r->e = calloc(r->cap, sizeof *r->e);
	if (!r->e) {
		r->e = old;
		r->cap = oc;
		return -1;
	}
	for (uint64_t i = 0; i < oc; i++)
		if (old[i].hash)
			*slot_for(r, r->arena + old[i].key_off, old[i].kbytes, old[i].hash) = old[i];
	free(old);
	return 0;
}

static struct sepo_ref_entry *find_or_add(struct sepo_ref *r, const unsigned char *k, unsigned int n)
{
	if (2 * (r->n + 1) > r->cap && grow(r))
		return NULL;
	uint64_t h = key_hash(k, n);
	struct sepo_ref_entry *e = slot_for(r, k, n, h);
	if (e->hash)
		return e;
	if (r->arena_n + n > r->arena_cap) {
		uint64_t cap = r->arena_cap ? 2 * r->arena_cap : 65536;
		while (cap < r->arena_n + n)
			cap *= 2;
		unsigned char *a = realloc(r->arena, cap);
		if (!a)
			return NULL;
		r->arena = a;
		r->arena_cap = cap;
	}
	memcpy(r->arena + r->arena_n, k, n);
	e->hash = h;
	e->key_off = r->arena_n;
	e->kbytes = n;
	r->arena_n += n;
	r->n++;
	return e;
}

static void combine(unsigned int op, unsigned long long *to, const unsigned long long *v,
		    unsigned int vbytes, int first)
{
	for (unsigned int i = 0; i < (vbytes + 7) / 8 && i < SEPO_MAX_VALUE_WORDS; i++) {
		if (first) {
			to[i] = v[i];
			continue;
		}
		to[i] = sepo_combine_word(op, i, to[i], v[i]);
	}
}

int sepo_ref_add(struct sepo_ref *r, const void *key, unsigned int kbytes,
		 const unsigned long long *val, unsigned int vbytes)
{
	struct sepo_ref_entry *e = find_or_add(r, key, kbytes);
	if (!e)
		return -1;
	r->pairs++;
	if (r->org == SEPO_COMBINING)
		combine(r->op, e->val, val, vbytes, e->count == 0);
	else
		e->digest += val_hash(val, vbytes);
	e->count++;
	e->entries = 1;
	return 0;
}

struct walk_ctx {
	struct sepo_ref *r;
	int oom;
};

static int walk_pair(void *user, const unsigned char *key, unsigned int kbytes,
		     const unsigned long long *val, unsigned int vbytes, int first_of_key)
{
	struct walk_ctx *w = user;
	struct sepo_ref_entry *e = find_or_add(w->r, key, kbytes);
	if (!e) {
		w->oom = 1;
		return 1;
	}
	if (w->r->org == SEPO_COMBINING) {
		combine(w->r->op, e->val, val, vbytes, e->entries == 0);
		e->count += val ? val[0] : 0; /* for counting apps: the records behind it */
		e->entries++;
		return 0;
	}
	if (w->r->org == SEPO_MULTI && first_of_key)
		e->entries++;
	if (val) {
		e->digest += val_hash(val, vbytes);
		e->count++;
		w->r->pairs++;
	}
	return 0;
}

int sepo_ref_from_table(struct sepo_ref *r, const struct sepo_table *t)
{
	struct walk_ctx w = {r, 0};
	if (sepo_host_walk(t, walk_pair, &w) < 0 || w.oom)
		return -1;
	return 0;
}

int sepo_ref_compare(const struct sepo_ref *want, struct sepo_ref *got, char *why, size_t len)
{
	got->split_keys = 0;
	if (want->n != got->n) {
		snprintf(why, len, "%llu distinct keys, expected %llu", (unsigned long long)got->n,
			 (unsigned long long)want->n);
		return -1;
	}
	for (uint64_t i = 0; i < want->cap; i++) {
		const struct sepo_ref_entry *a = &want->e[i];
		if (!a->hash)
			continue;
		const struct sepo_ref_entry *b = slot_for(got, want->arena + a->key_off, a->kbytes, a->hash);
		const char *what = NULL;
		if (b->hash && b->entries > 1)
			got->split_keys++;
		if (!b->hash)
			what = "missing";
		else if (want->org == SEPO_COMBINING &&
			 memcmp(a->val, b->val, sizeof a->val))
			what = "combined value differs";
		else if (want->org == SEPO_COMBINING && b->entries != 1 && !want->split_ok)
			what = "stored in more than one entry";
		else if (want->org != SEPO_COMBINING && (a->count != b->count || a->digest != b->digest))
			what = "values differ (lost or duplicated pairs)";
		else if (want->org == SEPO_MULTI && b->entries != 1 && !want->split_ok)
			what = "key stored in more than one entry";
		if (what) {
			snprintf(why, len, "key '%.*s': %s", a->kbytes > 40 ? 40 : (int)a->kbytes,
				 (const char *)want->arena + a->key_off, what);
			return -1;
		}
	}
	return 0;
}
