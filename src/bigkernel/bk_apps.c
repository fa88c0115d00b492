/* The applications of Table 4.1 for the BigKernel runtime: inputs
 * (bk_inputs.h), GPU tables, kernel arguments and CPU references. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigdata/gen.h"
#include "bigkernel/bk_inputs.h"
#include "bigkernel/bk_kernels.h"
#include "bigkernel/bk_runtime.h"

/* Hash tables of Word Count and DNA Assembly: slots, a power of two at
 * least 4 x the distinct keys the generators make (load <= 1/4): Word
 * Count's vocabulary; DNA's read positions (a quarter of the fragments)
 * and noisy reads (5 %, bk_gen_dna), so its table grows with the input. */
#define WC_VOCAB 20000u
#define WC_SLOTS (1u << 17)
#define NF_MOVIES 1024u
/* Opinion Finder's slots per word set (a power of two; 98 words in all,
 * at most 40 in one set) */
#define OF_SLOTS 1024u

static void *dev(struct bk_run *r, const char *name, uint64_t bytes)
{
	return simt_malloc(r->h, name, bytes, GPUVM_ALLOC_DEVICE);
}

/* Times a CPU reference (bk_run.cpu_ref_s) when the run asks for it:
 * REF_START before its loop, REF_END after. */
#define REF_START(r) double ref_t0_ = (r)->o->cpu_time ? bk_cpu_clock() : 0
#define REF_END(r) ((r)->cpu_ref_s += (r)->o->cpu_time ? bk_cpu_clock() - ref_t0_ : 0)

static int oom(struct bk_run *r)
{
	return simt_fail(r->h, "out of memory");
}

/* Zeroed host memory the run frees with the application's state (CPU
 * references); NULL when out of memory or out of slots. */
static void *keep(struct bk_run *r, size_t bytes)
{
	if (r->nowned == BK_MAX_OWNED)
		return NULL;
	void *p = calloc(1, bytes ? bytes : 1);
	if (p)
		r->owned[r->nowned++] = p;
	return p;
}

/* ---- hash-table applications (Word Count, DNA Assembly) -------------- */

struct table_state {
	unsigned long long *keys; /* GPU */
	unsigned int *counts;
	int *locks;               /* Word Count: a lock per slot (bk_table_add_locked); DNA: NULL */
	unsigned char *keystr;    /* Word Count: each slot's word (wc_keys=1), or NULL */
	uint64_t slots;
	uint64_t *want_keys;      /* CPU reference, the same open addressing */
	unsigned int *want_counts;
};

static void host_table_add(uint64_t *keys, unsigned int *counts, uint64_t mask, uint64_t key)
{
	uint64_t s = key & mask;
	while (keys[s] && keys[s] != key)
		s = (s + 1) & mask;
	keys[s] = key;
	counts[s]++;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = BK_FNV_BASIS;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * BK_FNV_PRIME;
	return h | 1;
}

static int table_setup(struct bk_run *r, uint64_t slots, int locked, int words)
{
	struct table_state *s = calloc(1, sizeof *s);
	if (!s)
		return oom(r);
	r->app_state = s;
	s->slots = slots;
	s->keys = dev(r, "table.keys", slots * 8);
	s->counts = dev(r, "table.counts", slots * 4);
	if (locked && !(s->locks = dev(r, "table.locks", slots * 4)))
		return -1;
	if (locked && words && !(s->keystr = dev(r, "table.words", slots * BK_WC_KEY)))
		return -1;
	s->want_keys = keep(r, slots * 8);
	s->want_counts = keep(r, slots * 4);
	if (!s->keys || !s->counts)
		return -1;
	return s->want_keys && s->want_counts ? 0 : oom(r);
}

/* Every key the reference counted with its count, and nothing else (the
 * slots may differ: the GPU's insertion order is not the CPU's). */
static int table_check(struct bk_run *r, char *extra, size_t len)
{
	struct table_state *s = r->app_state;
	uint64_t mask = s->slots - 1, keys = 0, total = 0;
	int ok = 1;
	for (uint64_t i = 0; i < s->slots; i++) {
		if (!s->keys[i])
			continue;
		uint64_t j = s->keys[i] & mask;
		while (s->want_keys[j] && s->want_keys[j] != s->keys[i])
			j = (j + 1) & mask;
		ok &= s->want_keys[j] == s->keys[i] && s->want_counts[j] == s->counts[i];
		/* the slot's word is the one hashed to its key */
		if (s->keystr) {
			const unsigned char *w = s->keystr + i * BK_WC_KEY;
			size_t n = 0;
			while (n < BK_WC_KEY && w[n])
				n++;
			ok &= n < BK_WC_KEY && fnv(w, n) == s->keys[i];
		}
		keys++;
		total += s->counts[i];
	}
	uint64_t want = 0;
	for (uint64_t i = 0; i < s->slots; i++)
		want += s->want_keys[i] != 0;
	ok &= want == keys;
	/* every lock taken was released */
	for (uint64_t i = 0; s->locks && i < s->slots; i++)
		ok &= s->locks[i] == 0;
	snprintf(extra, len, "keys=%llu total=%llu", (unsigned long long)keys, (unsigned long long)total);
	memset(s->keys, 0, s->slots * 8);
	memset(s->counts, 0, s->slots * 4);
	if (s->keystr)
		memset(s->keystr, 0, s->slots * BK_WC_KEY);
	return ok;
}

static int alloc_input(struct bk_run *r, uint64_t nrec, uint64_t rec_bytes)
{
	if (!nrec)
		return simt_fail(r->h, "size=%llu holds no %llu-byte record",
				 (unsigned long long)r->o->size_bytes, (unsigned long long)rec_bytes);
	r->nrec = nrec;
	r->input_bytes = nrec * rec_bytes;
	r->input = malloc(r->input_bytes);
	return r->input ? 0 : oom(r);
}

/* ---- Word Count -------------------------------------------------------- */

static int wc_setup(struct bk_run *r)
{
	if (alloc_input(r, r->o->size_bytes / BK_WC_REC, BK_WC_REC) ||
	    table_setup(r, WC_SLOTS, r->o->wc_lock, r->o->wc_keys))
		return -1;
	struct gen_text g;
	gen_text_init(&g, r->o->seed, WC_VOCAB, 1.0); /* Zipf s = 1: docs/sepo.md's text */
	gen_text_fill(&g, 0, r->nrec, (unsigned long long *)(void *)r->input);
	struct table_state *s = r->app_state;
	REF_START(r);
	for (uint64_t i = 0; i < r->input_bytes;) {
		uint64_t j = i;
		while (j < r->input_bytes && r->input[j] >= 'a' && r->input[j] <= 'z')
			j++;
		if (j > i)
			host_table_add(s->want_keys, s->want_counts, s->slots - 1, fnv(r->input + i, j - i));
		i = j + 1;
	}
	REF_END(r);
	return 0;
}

static size_t table_args(struct bk_run *r, int pass, const struct bk_map *m,
			 const struct bk_range *g, uint64_t first, uint64_t base, void *out)
{
	(void)pass, (void)first, (void)base;
	struct table_state *s = r->app_state;
	struct bk_count_args a = {*m, *g, s->keys, s->counts, s->slots - 1, s->locks, s->keystr};
	memcpy(out, &a, sizeof a);
	return sizeof a;
}

static const struct bk_app app_wc = {
	.name = "wc", .tp = {BK_WC_REC, 1, 1, {0}, {BK_WC_REC}, .addr_per_run = 0},
	.passes = 1, .sl1_nds = 1,
	.kernel = bk_wc, .kernel_name = "bk_wc", .setup = wc_setup, .args = table_args,
	.check = table_check,
};

/* ---- DNA Assembly ------------------------------------------------------ */

static int dna_setup(struct bk_run *r)
{
	uint64_t n = r->o->size_bytes / BK_DNA_REC, slots = 1024;
	while (slots < 4 * (n / 4 + n / 20 + 1))
		slots <<= 1;
	if (alloc_input(r, n, BK_DNA_REC) || table_setup(r, slots, 0, 0))
		return -1;
	bk_gen_dna(r->input, r->nrec, r->o->seed);
	struct table_state *s = r->app_state;
	REF_START(r);
	for (uint64_t i = 0; i < r->nrec; i++)
		host_table_add(s->want_keys, s->want_counts, s->slots - 1,
			       fnv(r->input + i * BK_DNA_REC + BK_DNA_READ_OFF, BK_DNA_BASES));
	REF_END(r);
	return 0;
}

static const struct bk_app app_dna = {
	/* one address per fragment read, as the author's prediction threads
	 * send (bk_template) */
	.name = "dna", .tp = {BK_DNA_REC, 1, 1, {BK_DNA_READ_OFF}, {BK_DNA_BASES}, .addr_per_run = 1},
	.passes = 1, .sl1_nds = 1,
	.kernel = bk_dna, .kernel_name = "bk_dna", .setup = dna_setup, .args = table_args,
	.check = table_check,
};

/* ---- K-means ----------------------------------------------------------- */

struct km_state {
	double cent[BK_KM_K * BK_KM_DIMS];
	unsigned long long *cid; /* GPU: one chunk's cluster ids */
	unsigned char *want;     /* CPU reference per particle */
};

static int km_nearest(const double *cent, const double *x)
{
	int best = 0;
	double bd = 0;
	for (int k = 0; k < BK_KM_K; k++) {
		double s = 0;
		for (int d = 0; d < BK_KM_DIMS; d++) {
			double e = x[d] - cent[k * BK_KM_DIMS + d];
			s += e * e;
		}
		if (k == 0 || s < bd) {
			bd = s;
			best = k;
		}
	}
	return best;
}

static int km_setup(struct bk_run *r)
{
	struct km_state *s = calloc(1, sizeof *s);
	if (!s)
		return oom(r);
	r->app_state = s;
	if (alloc_input(r, r->o->size_bytes / BK_KM_REC, BK_KM_REC))
		return -1;
	uint64_t chunk = r->o->chunk_bytes / BK_KM_REC ? r->o->chunk_bytes / BK_KM_REC : 1;
	s->cid = dev(r, "kmeans.cid", (chunk < r->nrec ? chunk : r->nrec) * 8);
	s->want = keep(r, r->nrec);
	if (!s->cid)
		return -1;
	if (!s->want)
		return oom(r);
	bk_gen_particles(r->input, r->nrec, s->cent, r->o->seed);
	REF_START(r);
	for (uint64_t i = 0; i < r->nrec; i++) {
		double x[BK_KM_DIMS];
		memcpy(x, r->input + i * BK_KM_REC, sizeof x);
		s->want[i] = (unsigned char)km_nearest(s->cent, x);
	}
	REF_END(r);
	return 0;
}

static size_t km_args(struct bk_run *r, int pass, const struct bk_map *m, const struct bk_range *g,
		      uint64_t first, uint64_t base, void *out)
{
	(void)pass, (void)first, (void)base;
	struct km_state *s = r->app_state;
	struct bk_kmeans_args a;
	a.m = *m;
	a.g = *g;
	memcpy(a.cent, s->cent, sizeof a.cent);
	a.cid = s->cid;
	memcpy(out, &a, sizeof a);
	return sizeof a;
}

/* The cluster ids back to the host, into the particles (mapped output). */
static int km_out(struct bk_run *r, uint64_t first, uint64_t n)
{
	struct km_state *s = r->app_state;
	if (simt_download(r->h, s->cid, n * 8))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		memcpy(r->input + (first + i) * BK_KM_REC + BK_KM_CID_OFF, &s->cid[i], 8);
	return 0;
}

static int km_check(struct bk_run *r, char *extra, size_t len)
{
	struct km_state *s = r->app_state;
	uint64_t moved[BK_KM_K] = {0};
	int ok = 1;
	for (uint64_t i = 0; i < r->nrec; i++) {
		unsigned long long c;
		unsigned char *f = r->input + i * BK_KM_REC + BK_KM_CID_OFF;
		memcpy(&c, f, 8);
		ok &= c == s->want[i];
		moved[s->want[i]]++;
		memset(f, 0xff, 8); /* unassigned, for the next variant */
	}
	snprintf(extra, len, "cluster0=%llu cluster1=%llu", (unsigned long long)moved[0],
		 (unsigned long long)moved[1]);
	return ok;
}

static const struct bk_app app_kmeans = {
	.name = "kmeans", .tp = {BK_KM_REC, 8, 1, {0}, {BK_KM_DIMS}, .addr_per_run = 0},
	.passes = 1, .sl1_nds = 2,
	.kernel = bk_kmeans, .kernel_name = "bk_kmeans", .setup = km_setup, .args = km_args,
	.chunk_out = km_out, .check = km_check,
};

/* ---- Netflix ----------------------------------------------------------- */

struct nf_state {
	int *score;            /* GPU: users x users */
	unsigned int *movies;  /* GPU: ratings per movie */
	int *want_score;
	unsigned int *want_movies;
};

static int nf_setup(struct bk_run *r)
{
	struct nf_state *s = calloc(1, sizeof *s);
	if (!s)
		return oom(r);
	r->app_state = s;
	if (alloc_input(r, r->o->size_bytes / BK_NF_REC, BK_NF_REC))
		return -1;
	s->score = dev(r, "netflix.score", BK_NF_USERS * BK_NF_USERS * 4);
	s->movies = dev(r, "netflix.movies", NF_MOVIES * 4);
	s->want_score = keep(r, BK_NF_USERS * BK_NF_USERS * 4);
	s->want_movies = keep(r, NF_MOVIES * 4);
	if (!s->score || !s->movies)
		return -1;
	if (!s->want_score || !s->want_movies)
		return oom(r);
	bk_gen_ratings(r->input, r->nrec, BK_NF_USERS, NF_MOVIES, r->o->seed);
	REF_START(r);
	for (uint64_t i = 0; i < r->nrec; i++) {
		unsigned int f[5];
		memcpy(f, r->input + i * BK_NF_REC, sizeof f);
		int sc = f[2] == f[4] ? 10 : (f[2] + 1 == f[4] || f[4] + 1 == f[2]) ? 2 : -5;
		s->want_score[(f[1] % BK_NF_USERS) * BK_NF_USERS + f[3] % BK_NF_USERS] += sc;
		s->want_movies[f[0] % NF_MOVIES]++;
	}
	REF_END(r);
	return 0;
}

static size_t nf_args(struct bk_run *r, int pass, const struct bk_map *m, const struct bk_range *g,
		      uint64_t first, uint64_t base, void *out)
{
	(void)pass, (void)first, (void)base;
	struct nf_state *s = r->app_state;
	struct bk_netflix_args a = {*m, *g, s->score, s->movies, NF_MOVIES};
	memcpy(out, &a, sizeof a);
	return sizeof a;
}

static int nf_check(struct bk_run *r, char *extra, size_t len)
{
	struct nf_state *s = r->app_state;
	int ok = !memcmp(s->score, s->want_score, BK_NF_USERS * BK_NF_USERS * 4) &&
		 !memcmp(s->movies, s->want_movies, NF_MOVIES * 4);
	long long best = 0;
	for (unsigned i = 0; i < BK_NF_USERS * BK_NF_USERS; i++)
		if (i / BK_NF_USERS != i % BK_NF_USERS && s->want_score[i] > best)
			best = s->want_score[i];
	snprintf(extra, len, "best_pair_score=%lld", best);
	memset(s->score, 0, BK_NF_USERS * BK_NF_USERS * 4);
	memset(s->movies, 0, NF_MOVIES * 4);
	return ok;
}

static const struct bk_app app_netflix = {
	/* one address per record's ratings, as the author's prediction
	 * threads send (bk_template) */
	.name = "netflix", .tp = {BK_NF_REC, 4, 1, {0}, {5}, .addr_per_run = 1}, .passes = 1,
	.kernel = bk_netflix, .kernel_name = "bk_netflix", .setup = nf_setup, .args = nf_args,
	.check = nf_check,
};

/* ---- Opinion Finder ---------------------------------------------------- */

struct of_state {
	unsigned long long *keys; /* GPU: BK_OF_DICTS word sets of OF_SLOTS keys */
	unsigned char *words;     /* GPU: the same sets, each slot's word (of_keys=1), or NULL */
	unsigned long long *score; /* GPU: [0] the total */
	unsigned int *mentions;
	long long want_score;
	uint64_t want_mentions;
};

static int of_setup(struct bk_run *r)
{
	struct of_state *s = calloc(1, sizeof *s);
	if (!s)
		return oom(r);
	r->app_state = s;
	if (alloc_input(r, r->o->size_bytes / BK_OF_REC, BK_OF_REC))
		return -1;
	s->keys = dev(r, "of.dict_keys", BK_OF_DICTS * OF_SLOTS * 8);
	s->score = dev(r, "of.score", 8);
	s->mentions = dev(r, "of.mentions", 4);
	if (!s->keys || !s->score || !s->mentions)
		return -1;
	if (r->o->of_keys && !(s->words = dev(r, "of.dict_words", BK_OF_DICTS * OF_SLOTS * BK_WC_KEY)))
		return -1;
	bk_gen_tweets(r->input, r->nrec, r->o->seed);
	/* the word sets: each word's hash (as the kernel hashes it) in the
	 * set of its class (subject keywords, positive, negative, adverb),
	 * and the word itself, NUL-padded, in the same slot of the words */
	for (unsigned id = 0; id < BK_OF_DICT_WORDS; id++) {
		char w[BK_WC_KEY] = {0};
		unsigned n = bk_of_word(r->o->seed, id, w);
		uint64_t set = (uint64_t)(bk_of_word_class(id) - BK_OF_SUBJECT) * OF_SLOTS;
		unsigned long long *t = s->keys + set;
		uint64_t h = fnv((const unsigned char *)w, n), slot = h & (OF_SLOTS - 1);
		while (t[slot] && t[slot] != h)
			slot = (slot + 1) & (OF_SLOTS - 1);
		t[slot] = h;
		if (s->words && n < BK_WC_KEY)
			memcpy(s->words + (set + slot) * BK_WC_KEY, w, n);
	}
	if (simt_upload(r->h, s->keys, BK_OF_DICTS * OF_SLOTS * 8) ||
	    (s->words && simt_upload(r->h, s->words, BK_OF_DICTS * OF_SLOTS * BK_WC_KEY)))
		return -1;
	REF_START(r);
	for (uint64_t i = 0; i < r->nrec; i++) {
		long long sc;
		if (bk_of_reference(r->input + i * BK_OF_REC, s->keys, OF_SLOTS - 1, &sc)) {
			s->want_score += sc;
			s->want_mentions++;
		}
	}
	REF_END(r);
	return 0;
}

static size_t of_args(struct bk_run *r, int pass, const struct bk_map *m, const struct bk_range *g,
		      uint64_t first, uint64_t base, void *out)
{
	(void)pass, (void)first, (void)base;
	struct of_state *s = r->app_state;
	struct bk_of_args a = {*m, *g, s->keys, s->words, OF_SLOTS - 1, s->score, s->mentions};
	memcpy(out, &a, sizeof a);
	return sizeof a;
}

static int of_check(struct bk_run *r, char *extra, size_t len)
{
	struct of_state *s = r->app_state;
	if (simt_download(r->h, s->score, 8) || simt_download(r->h, s->mentions, 4))
		return 0;
	long long got = (long long)s->score[0];
	int ok = got == s->want_score && s->mentions[0] == s->want_mentions;
	snprintf(extra, len, "score=%lld mentions=%u", got, s->mentions[0]);
	s->score[0] = 0;
	s->mentions[0] = 0;
	return ok;
}

static const struct bk_app app_of = {
	.name = "of", .tp = {BK_OF_REC, 1, 1, {0}, {BK_OF_TEXT}, .addr_per_run = 0},
	.passes = 1, .sl1_nds = 2,
	.kernel = bk_of, .kernel_name = "bk_of", .setup = of_setup, .args = of_args,
	.check = of_check,
};

/* ---- MasterCard Affinity (plain and indexed) -------------------------- */

struct mca_state {
	unsigned int *bitmap; /* GPU */
	unsigned int *counts;
	unsigned int *want;
	uint64_t nblocks;
};

static int mca_setup_common(struct bk_run *r, int indexed)
{
	struct mca_state *s = calloc(1, sizeof *s);
	if (!s)
		return oom(r);
	r->app_state = s;
	s->nblocks = r->o->size_bytes / BK_MCA_BLOCK;
	if (!s->nblocks)
		return simt_fail(r->h, "size=%llu holds no %u-byte block",
				 (unsigned long long)r->o->size_bytes, BK_MCA_BLOCK);
	r->input_bytes = s->nblocks * BK_MCA_BLOCK;
	r->input = malloc(r->input_bytes);
	s->bitmap = dev(r, "mca.customers_of_x", BK_MCA_CUSTOMERS / 8);
	s->counts = dev(r, "mca.counts", BK_MCA_MERCHANTS * 4);
	s->want = keep(r, BK_MCA_MERCHANTS * 4);
	if (!s->bitmap || !s->counts)
		return -1;
	if (!r->input || !s->want)
		return oom(r);
	uint64_t txns = bk_gen_transactions(r->input, s->nblocks, BK_MCA_CUSTOMERS, BK_MCA_MERCHANTS,
					    r->o->seed, NULL);
	if (indexed) {
		r->index = malloc(txns ? txns * 8 : 8);
		if (!r->index)
			return oom(r);
		bk_gen_transactions(r->input, s->nblocks, BK_MCA_CUSTOMERS, BK_MCA_MERCHANTS, r->o->seed,
				    r->index);
		r->nrec = txns;
	} else {
		r->nrec = s->nblocks;
	}
	REF_START(r);
	bk_mca_reference(r->input, r->input_bytes, BK_MCA_TARGET, s->want);
	REF_END(r);
	return 0;
}

static int mca_setup(struct bk_run *r)
{
	return mca_setup_common(r, 0);
}

static int mcai_setup(struct bk_run *r)
{
	return mca_setup_common(r, 1);
}

static size_t mca_args(struct bk_run *r, int pass, const struct bk_map *m, const struct bk_range *g,
		       uint64_t first, uint64_t base, void *out)
{
	(void)first;
	struct mca_state *s = r->app_state;
	struct bk_mca_args a = {*m, *g, r->cur_index, base, s->bitmap, s->counts, BK_MCA_TARGET,
				(unsigned)pass};
	memcpy(out, &a, sizeof a);
	return sizeof a;
}

static int mca_check(struct bk_run *r, char *extra, size_t len)
{
	struct mca_state *s = r->app_state;
	if (simt_download(r->h, s->counts, BK_MCA_MERCHANTS * 4))
		return 0;
	int ok = !memcmp(s->counts, s->want, BK_MCA_MERCHANTS * 4);
	unsigned top = 1;
	for (unsigned m = 1; m < BK_MCA_MERCHANTS; m++)
		if (s->want[m] > s->want[top])
			top = m;
	snprintf(extra, len, "top_merchant=%u visits=%u", top, s->want[top]);
	memset(s->bitmap, 0, BK_MCA_CUSTOMERS / 8);
	memset(s->counts, 0, BK_MCA_MERCHANTS * 4);
	return ok;
}

static const struct bk_app app_mca = {
	.name = "mca", .tp = {BK_MCA_BLOCK, 1, 1, {0}, {BK_MCA_BLOCK}, .addr_per_run = 0},
	.passes = 2, .sl1_nds = 2,
	.kernel = bk_mca, .kernel_name = "bk_mca", .setup = mca_setup, .args = mca_args,
	.check = mca_check,
};

/* card number (2 words at 0), merchant (the word at 24) */
static const struct bk_app app_mca_indexed = {
	.name = "mca-indexed", .tp = {0, 8, 2, {0, 24}, {2, 1}, .addr_per_run = 0}, .passes = 2,
	.kernel = bk_mca_indexed, .kernel_name = "bk_mca_indexed", .setup = mcai_setup,
	.args = mca_args, .check = mca_check,
};

const struct bk_app *const bk_apps[] = {&app_kmeans, &app_wc, &app_netflix, &app_of,
					&app_dna, &app_mca, &app_mca_indexed};
const size_t bk_apps_count = sizeof bk_apps / sizeof bk_apps[0];
