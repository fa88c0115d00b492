/* The SePo hash table, host side (see sepo.h and, for the data layout and
 * the device code, sepo_dev.h).
 *
 * End of an iteration, per organisation (seeds/001 §6.3.3, Fig. 6.6):
 *   basic:        the device stopped once threshold_pct of the groups had a
 *                 declined allocation (SEPO_CTR_HALT); the whole heap goes to
 *                 the host and every page returns to the pool.
 *   combining:    the device processed every record; the whole heap goes to
 *                 the host and every page returns to the pool.
 *   multi-valued: value pages, and key pages that hold no key awaiting
 *                 values (page_needed, §6.3.3: "only those pages are
 *                 transferred that either are value-pages or are key-pages
 *                 that do not contain any key that has values that have not
 *                 yet been inserted"), go to the host; the other key pages
 *                 stay on the device, so later values find their key there
 *                 (§6.4.2 footnote 8). keep_groups: the author's coarser
 *                 rule, every key page of a group one of whose keys awaits
 *                 values (SEPO_GF_NEEDED; BRB_HashTable's group->needed).
 *                 For the thesis's applications both rules keep the same
 *                 pages (every key page holds a key awaiting values; the
 *                 record of 2026-11-30). Key pages may take at most half
 *                 the pool per iteration (rezafmk/BRB_HashTable
 *                 performanceTest caps key pages at half the free pages
 *                 with MULTI_VALUE), so values always find room. When the kept key pages would exceed
 *                 half the heap they go out too (see below; not in the
 *                 thesis), so every iteration makes progress.
 * Copies are real cudaMemcpy-style device-to-host copies of runs of
 * consecutive pages (simt_download: the engine's PCIe model); the counters
 * and page tables the host needs to decide are downloaded the same way and
 * counted apart (meta_bytes). Device memsets (bucket heads, slot table)
 * carry no transfer. */
#include "bigdata/sepo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sepo_org_name(unsigned int org)
{
	return org == SEPO_BASIC ? "basic" : org == SEPO_MULTI ? "multi" : "combining";
}

const char *sepo_placement_name(enum sepo_placement p)
{
	return p == SEPO_PLACE_SEPO ? "sepo" : p == SEPO_PLACE_PINNED ? "pinned" : "managed";
}

static unsigned int log2u(uint64_t v)
{
	unsigned int s = 0;
	while ((1ull << s) < v)
		s++;
	return s;
}

static void *dev_alloc(struct simt_host *h, const char *name, uint64_t bytes,
		       enum gpuvm_alloc_kind kind)
{
	return simt_malloc(h, name, bytes, kind);
}

int sepo_create(struct simt_host *h, struct sepo_table *t, const struct sepo_config *c,
		uint32_t max_entry_words)
{
	memset(t, 0, sizeof *t);
	t->c = *c;
	t->page_words = (uint32_t)(c->page_bytes / 8);
	t->max_entry_words = max_entry_words;
	if (max_entry_words > t->page_words)
		return simt_fail(h, "an entry of %u bytes does not fit a %llu-byte page",
				 max_entry_words * 8, (unsigned long long)c->page_bytes);
	uint64_t per_page = c->page_bytes - (uint64_t)max_entry_words * 8 + 8;
	uint64_t bound_pages = c->bound_bytes / per_page + 1 + 2 * c->groups;
	enum gpuvm_alloc_kind kind = GPUVM_ALLOC_DEVICE;
	if (c->placement == SEPO_PLACE_SEPO) {
		t->heap_pages = (uint32_t)(c->heap_bytes / c->page_bytes);
		if (t->heap_pages < 1)
			return simt_fail(h, "a heap of %llu bytes holds no %llu-byte page",
					 (unsigned long long)c->heap_bytes,
					 (unsigned long long)c->page_bytes);
	} else {
		t->heap_pages = (uint32_t)bound_pages;
		kind = c->placement == SEPO_PLACE_PINNED ? GPUVM_ALLOC_HOST_PINNED : GPUVM_ALLOC_MANAGED;
	}
	/* slots over all iterations: every page of the table plus, per
	 * iteration, a partly used page per group and kind, plus pages kept */
	uint64_t slot_cap = bound_pages + 2 * c->groups * SEPO_MAX_ITERS + t->heap_pages;
	if (slot_cap > (1u << 30))
		return simt_fail(h, "table too large for the slot table (%llu slots)",
				 (unsigned long long)slot_cap);
	struct sepo_dev *d = &t->d;
	uint64_t hp = t->heap_pages, g = c->groups;
	d->heap = dev_alloc(h, "sepo.heap", hp * c->page_bytes, kind);
	d->buckets = dev_alloc(h, "sepo.buckets", c->nbuckets * 8, GPUVM_ALLOC_DEVICE);
	d->bucket_locks = dev_alloc(h, "sepo.bucket_locks", c->nbuckets * 4, GPUVM_ALLOC_DEVICE);
	/* pinned: entry locks in device memory (sepo_dev.h, §6.6.4); the heap
	 * is device (sepo) or migrates to it (managed), so theirs stay in it */
	if (c->placement == SEPO_PLACE_PINNED && c->org == SEPO_COMBINING &&
	    !(d->entry_locks = dev_alloc(h, "sepo.entry_locks", hp * c->page_bytes / 16 * 4,
					 GPUVM_ALLOC_DEVICE)))
		return -1;
	d->group_page = dev_alloc(h, "sepo.group_page", g * 8, GPUVM_ALLOC_DEVICE);
	d->group_locks = dev_alloc(h, "sepo.group_locks", g * 4, GPUVM_ALLOC_DEVICE);
	d->group_flags = dev_alloc(h, "sepo.group_flags", g * 4, GPUVM_ALLOC_DEVICE);
	d->page_used = dev_alloc(h, "sepo.page_used", hp * 4, GPUVM_ALLOC_DEVICE);
	d->page_prev = dev_alloc(h, "sepo.page_prev", hp * 4, GPUVM_ALLOC_DEVICE);
	d->page_owner = dev_alloc(h, "sepo.page_owner", hp * 4, GPUVM_ALLOC_DEVICE);
	d->page_slot = dev_alloc(h, "sepo.page_slot", hp * 4, GPUVM_ALLOC_DEVICE);
	d->slot_page = dev_alloc(h, "sepo.slot_page", slot_cap * 4, GPUVM_ALLOC_DEVICE);
	t->free_host = dev_alloc(h, "sepo.free_list", hp * 4, GPUVM_ALLOC_DEVICE);
	d->free_list = t->free_host;
	d->ctr = dev_alloc(h, "sepo.counters", SEPO_CTRS * 4, GPUVM_ALLOC_DEVICE);
	/* allocated last, and only where used, so keep=groups runs as before */
	if (c->placement == SEPO_PLACE_SEPO && c->org == SEPO_MULTI && !c->keep_groups &&
	    !(d->page_needed = dev_alloc(h, "sepo.page_needed", hp * 4, GPUVM_ALLOC_DEVICE)))
		return -1;
	t->slot_host = calloc(slot_cap, sizeof *t->slot_host);
	t->slot_owned = calloc(slot_cap, 1);
	if (!d->heap || !d->buckets || !d->bucket_locks || !d->group_page || !d->group_locks ||
	    !d->group_flags || !d->page_used || !d->page_prev || !d->page_owner || !d->page_slot ||
	    !d->slot_page || !t->free_host || !d->ctr)
		return -1;
	if (!t->slot_host || !t->slot_owned)
		return simt_fail(h, "out of memory for the host image");
	d->nbuckets = (unsigned int)c->nbuckets;
	d->buckets_per_group = (unsigned int)((c->nbuckets + g - 1) / g);
	d->page_shift = log2u(t->page_words);
	d->slot_cap = (unsigned int)slot_cap;
	d->org = c->org;
	d->combine_op = c->combine_op;
	d->free_n = t->heap_pages;
	if (c->placement == SEPO_PLACE_SEPO) {
		if (c->org == SEPO_BASIC)
			d->halt_groups = (unsigned int)((g * c->threshold_pct + 99) / 100);
		if (c->org == SEPO_MULTI)
			d->key_page_cap = t->heap_pages > 1 ? t->heap_pages / 2 : 1;
	}
	/* cudaMemset(-1) of the page tables: no transfer */
	memset(d->group_page, 0xff, g * 8);
	memset(d->slot_page, 0xff, slot_cap * 4);
	for (uint32_t i = 0; i < t->heap_pages; i++)
		t->free_host[i] = (int)i;
	t->meta_bytes += hp * 4;
	return simt_upload(h, t->free_host, hp * 4);
}

static int download_meta(struct simt_host *h, struct sepo_table *t, const void *p, uint64_t bytes)
{
	t->meta_bytes += bytes;
	return simt_download(h, p, bytes);
}

static int upload_meta(struct simt_host *h, struct sepo_table *t, const void *p, uint64_t bytes)
{
	t->meta_bytes += bytes;
	return simt_upload(h, p, bytes);
}

/* Copies the device pages marked in `out` (by index) to the host image
 * in runs of consecutive pages, and marks their slots as on the host. */
static int copy_out(struct simt_host *h, struct sepo_table *t, const unsigned char *out)
{
	uint64_t pb = t->c.page_bytes;
	uint32_t n = t->heap_pages, lo = UINT32_MAX, hi = 0;
	for (uint32_t p = 0; p < n;) {
		if (!out[p]) {
			p++;
			continue;
		}
		uint32_t q = p;
		while (q < n && out[q])
			q++;
		if (simt_download(h, (const unsigned char *)t->d.heap + p * pb, (q - p) * pb))
			return -1;
		t->bytes_out += (q - p) * pb;
		for (uint32_t i = p; i < q; i++) {
			int s = t->d.page_slot[i];
			if (s < 0 || (unsigned int)s >= t->d.slot_cap)
				return simt_fail(h, "page %u has no host slot", i);
			unsigned long long *copy = malloc(pb);
			if (!copy)
				return simt_fail(h, "out of host memory for the table (%llu bytes so far)",
						 (unsigned long long)t->bytes_out);
			memcpy(copy, (const unsigned char *)t->d.heap + i * pb, pb);
			t->slot_host[s] = copy;
			t->slot_owned[s] = 1;
			t->d.slot_page[s] = -1;
			if ((uint32_t)s < lo)
				lo = (uint32_t)s;
			if ((uint32_t)s > hi)
				hi = (uint32_t)s;
		}
		p = q;
	}
	if (lo <= hi && upload_meta(h, t, t->d.slot_page + lo, (uint64_t)(hi - lo + 1) * 4))
		return -1;
	return 0;
}

/* The pages holding data now: taken this iteration or kept from before. */
static unsigned char *pages_in_use(struct sepo_table *t, const unsigned char *kept_before)
{
	unsigned char *use = calloc(t->heap_pages, 1);
	if (!use)
		return NULL;
	uint32_t taken = t->d.ctr[SEPO_CTR_FREE_TAKEN];
	if (taken > t->d.free_n)
		taken = t->d.free_n;
	for (uint32_t i = 0; i < taken; i++)
		use[t->free_host[i]] = 1;
	if (kept_before)
		for (uint32_t p = 0; p < t->heap_pages; p++)
			use[p] |= kept_before[p];
	return use;
}

/* Pages not on the free list: kept on the device by earlier iterations. */
static unsigned char *pages_kept(struct sepo_table *t)
{
	unsigned char *k = malloc(t->heap_pages);
	if (!k)
		return NULL;
	memset(k, 1, t->heap_pages);
	for (uint32_t i = 0; i < t->d.free_n; i++)
		k[t->free_host[i]] = 0;
	return k;
}

static int read_counters(struct simt_host *h, struct sepo_table *t)
{
	if (download_meta(h, t, t->d.ctr, SEPO_CTRS * 4))
		return -1;
	if (t->d.ctr[SEPO_CTR_OVERFLOW])
		return simt_fail(h, "the table's slot table (%u slots) is exhausted", t->d.slot_cap);
	t->postponed += t->d.ctr[SEPO_CTR_POSTPONED];
	t->pages_taken = t->d.ctr[SEPO_CTR_SLOTS];
	return 0;
}

int sepo_iteration_end(struct simt_host *h, struct sepo_table *t, int more)
{
	if (read_counters(h, t))
		return -1;
	t->iterations++;
	if (t->c.placement != SEPO_PLACE_SEPO) {
		if (more)
			return simt_fail(h, "the %s heap (%u pages) was too small for the table",
					 sepo_placement_name(t->c.placement), t->heap_pages);
		return 0;
	}
	if (!more)
		return 0; /* sepo_finish copies the rest */
	struct sepo_dev *d = &t->d;
	uint32_t n = t->heap_pages;
	uint64_t g = t->c.groups;
	/* what the host needs to decide: page tables (and flags) */
	if (download_meta(h, t, d->page_slot, (uint64_t)n * 4) ||
	    download_meta(h, t, d->page_owner, (uint64_t)n * 4) ||
	    (t->c.org == SEPO_MULTI &&
	     (d->page_needed ? download_meta(h, t, d->page_needed, (uint64_t)n * 4)
			     : download_meta(h, t, d->group_flags, g * 4))) ||
	    download_meta(h, t, d->group_page, g * 8))
		return -1;
	unsigned char *kept = pages_kept(t);
	unsigned char *use = kept ? pages_in_use(t, kept) : NULL;
	unsigned char *out = use ? calloc(n, 1) : NULL;
	if (!out) {
		free(kept);
		free(use);
		return simt_fail(h, "out of memory");
	}
	uint32_t kept_n = 0;
	for (uint32_t p = 0; p < n; p++) {
		if (!use[p])
			continue;
		int owner = d->page_owner[p];
		int keep = t->c.org == SEPO_MULTI && owner >= 0 && owner % 2 == 0 &&
			   (d->page_needed ? d->page_needed[p] != 0
					   : (d->group_flags[owner / 2] & SEPO_GF_NEEDED) != 0);
		out[p] = !keep;
		kept_n += (uint32_t)keep;
	}
	if (kept_n > n / 2) {
		/* Keeping every needed group's key pages would leave less than
		 * half the heap for the next iteration (once the pool runs dry,
		 * values fail in nearly every group, so nearly every group is
		 * needed): send them out too. A key whose values are still
		 * pending then gets a second entry in a later iteration, and
		 * the host merges the two lists (the MAP_GROUP result); without
		 * this the heap fills with kept key pages and the iterations
		 * stop making progress. (Not in the thesis, whose §6.3.3 rule
		 * keeps them all.) */
		for (uint32_t p = 0; p < n; p++)
			out[p] = use[p];
		t->keys_split = 1;
		kept_n = 0;
	}
	t->kept_pages = kept_n;
	int rc = copy_out(h, t, out);
	/* the groups' current pages that left become none */
	for (uint64_t i = 0; rc == 0 && i < 2 * g; i++)
		if (d->group_page[i] >= 0 && out[d->group_page[i]])
			d->group_page[i] = -1;
	/* the pool: every page not kept */
	uint32_t nf = 0;
	for (uint32_t p = 0; p < n; p++)
		if (!use[p] || out[p])
			t->free_host[nf++] = (int)p;
	free(kept);
	free(use);
	free(out);
	if (rc)
		return -1;
	if (nf == 0)
		return simt_fail(h, "every heap page holds keys that await values: no progress possible "
				    "(heap of %u pages too small)", n);
	d->free_n = nf;
	if (t->c.org == SEPO_MULTI)
		d->key_page_cap = nf > 1 ? nf / 2 : 1;
	memset(d->group_flags, 0, g * 4);
	if (d->page_needed)
		memset(d->page_needed, 0, (uint64_t)n * 4); /* cudaMemset: no transfer */
	unsigned int slots = d->ctr[SEPO_CTR_SLOTS];
	memset(d->ctr, 0, SEPO_CTRS * 4);
	d->ctr[SEPO_CTR_SLOTS] = slots;
	if (upload_meta(h, t, d->group_page, g * 8) || upload_meta(h, t, d->group_flags, g * 4) ||
	    upload_meta(h, t, d->ctr, SEPO_CTRS * 4) ||
	    upload_meta(h, t, t->free_host, (uint64_t)nf * 4))
		return -1;
	return 0;
}

int sepo_finish(struct simt_host *h, struct sepo_table *t)
{
	struct sepo_dev *d = &t->d;
	uint32_t n = t->heap_pages;
	if (t->c.placement == SEPO_PLACE_SEPO) {
		if (download_meta(h, t, d->page_slot, (uint64_t)n * 4))
			return -1;
		unsigned char *kept = pages_kept(t);
		unsigned char *use = kept ? pages_in_use(t, kept) : NULL;
		free(kept);
		if (!use)
			return simt_fail(h, "out of memory");
		int rc = copy_out(h, t, use);
		free(use);
		if (rc)
			return -1;
	} else {
		/* pinned: the heap is host memory already; managed: the host
		 * reads it in place (the driver migrates what it touches) */
		if (download_meta(h, t, d->slot_page, (uint64_t)d->ctr[SEPO_CTR_SLOTS] * 4))
			return -1;
		for (uint32_t s = 0; s < d->ctr[SEPO_CTR_SLOTS]; s++) {
			int p = d->slot_page[s];
			if (p < 0 || (uint32_t)p >= n)
				return simt_fail(h, "slot %u has no page", s);
			t->slot_host[s] = d->heap + (uint64_t)p * t->page_words;
		}
	}
	return download_meta(h, t, d->buckets, t->c.nbuckets * 8);
}

void sepo_release(struct sepo_table *t)
{
	if (t->slot_host && t->slot_owned)
		for (uint32_t s = 0; s < t->d.slot_cap; s++)
			if (t->slot_owned[s])
				free(t->slot_host[s]);
	free(t->slot_host);
	free(t->slot_owned);
	t->slot_host = NULL;
	t->slot_owned = NULL;
}

/* ---- reading the table on the host ----------------------------------- */

const unsigned long long *sepo_host_at(const struct sepo_table *t, unsigned long long ref)
{
	if (!ref)
		return NULL;
	unsigned long long r = ref - 1;
	uint64_t slot = r >> t->d.page_shift, off = r & (t->page_words - 1);
	if (slot >= t->d.slot_cap || !t->slot_host[slot] || off + 2 > t->page_words)
		return NULL;
	return t->slot_host[slot] + off;
}

int sepo_host_walk(const struct sepo_table *t, sepo_pair_fn fn, void *user)
{
	/* every entry and value is visited once: a longer walk is a cycle */
	uint64_t budget = (uint64_t)t->d.ctr[SEPO_CTR_SLOTS] * t->page_words / 2 + 1;
	int multi = t->c.org == SEPO_MULTI;
	for (uint64_t b = 0; b < t->c.nbuckets; b++) {
		for (unsigned long long ref = t->d.buckets[b]; ref;) {
			const unsigned long long *e = sepo_host_at(t, ref);
			if (!e || budget-- == 0)
				return -1;
			unsigned int kb = (unsigned int)(e[1] & 0xffff), vb = (unsigned int)(e[1] >> 16 & 0xffff);
			unsigned int kw = (kb + 7) / 8;
			const unsigned char *key = (const unsigned char *)(e + (multi ? 3 : 2));
			if (!multi) {
				if (fn(user, key, kb, e + 2 + kw, vb, 1))
					return 0;
			} else {
				int first = 1;
				for (unsigned long long v = e[2]; v;) {
					const unsigned long long *vn = sepo_host_at(t, v);
					if (!vn || budget-- == 0)
						return -1;
					if (fn(user, key, kb, vn + 2, (unsigned int)(vn[1] >> 16 & 0xffff), first))
						return 0;
					first = 0;
					v = vn[0];
				}
				if (first && fn(user, key, kb, NULL, 0, 1)) /* a key without values */
					return 0;
			}
			ref = e[0];
		}
	}
	return 0;
}
