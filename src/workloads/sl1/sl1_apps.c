/* sl1: the S-L1 applications of Mokhtari's thesis (seeds/001, Table 5.1,
 * Fig. 5.10) on the SIMT executor, with or without the S-L1 software
 * cache (include/gpuvm/sl1.h). The hardware L1 is the timing core's
 * switch (l1.global_loads = cached | uncached): the three configurations
 * of Fig. 5.10 are sl1=1 with the L1 off, sl1=0 with it on, sl1=0 with
 * it off (experiments/sl1_ch5.sh; docs/sl1.md).
 *
 * The host computes CLN as 5.2.1 does: the shared memory an SM has left
 * after the application's own arrays, over the threads an SM runs (the
 * launch's threads per SM, bounded by the SM's warp, CTA and shared
 * memory limits), in 16-byte lines, at most one line per data
 * structure; the launch declares the application's shared bytes plus
 * CLN x 16 x block, so S-L1's segment limits resident CTAs as any shared
 * memory does. Every run checks its output against a CPU reference
 * (verify=1, the default). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "workloads/sl1/sl1_cln.h"
#include "workloads/sl1/sl1_inputs.h"
#include "workloads/sl1/sl1_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

enum sl1_app { APP_UPPER, APP_WC, APP_GREP, APP_KMEANS, APP_PVC, APP_MM, APP_MCA, APP_II, APP_OF,
	       APP_COUNT };
static const char *const app_names[APP_COUNT] = {"upper", "wc",  "grep", "kmeans", "pvc",
						 "mm",    "mca", "ii",   "of"};
#define APP_CHOICES "upper|wc|grep|kmeans|pvc|mm|mca|ii|of"
/* data structures of each kernel's main loop (Table 5.1's column; grep
 * and K-means count the one in global memory and their output) */
static const int app_nds[APP_COUNT] = {2, 1, 2, 2, 3, 3, 3, 3, 4};

/* grep's pattern: two literal letters, any run, two more (the "recursive
 * algorithm ... large number of branches" of 5.3.2); matches ~5 % of
 * the generated lines */
#define GREP_PATTERN "qu.*zz"
/* Page View Count: distinct pages of the log, and the URL table's slots
 * (a power of two, load factor 1/4) */
#define PVC_URLS 4096u
#define PVC_SLOTS 16384u
/* MasterCard Affinity: cardholders (a 64 KiB bitmap), merchants, and the
 * target merchant X (the most visited) */
#define MCA_CUSTOMERS (1u << 19)
#define MCA_MERCHANTS 4096u
#define MCA_TARGET 0u
/* Opinion Finder: vocabulary words; the first OF_SUBJECT are the
 * subject's keywords, the next OF_SENTIMENT positive, the next
 * OF_SENTIMENT negative; dictionary slots (a power of two) */
#define OF_VOCAB 20000u
#define OF_SUBJECT 8u
#define OF_SENTIMENT 40u
#define OF_SLOTS 1024u

struct sl1_run_cfg {
	enum sl1_app app;
	int sl1;
	uint64_t size, tps, block, seed;
	uint64_t unroll; /* wc and mm with sl1=0: loop steps a group */
	int of_keys;     /* of: the dictionary holds words, compared bytewise */
	int verify;
	enum gpuvm_alloc_kind mem;
	/* the preset's SM limits, for CLN */
	uint32_t sms, max_warps, max_ctas;
	uint64_t smem_per_sm;
};

/* CLN (5.2.1): sl1_cln.h, with this run's preset limits. app_smem is the
 * application's own shared bytes per block. */
static int sl1_cln(const struct sl1_run_cfg *c, uint64_t grid, uint64_t block, uint64_t app_smem,
		   int nds)
{
	return sl1_cln_of(c->smem_per_sm, c->sms, c->max_warps, c->max_ctas, grid, block, app_smem, nds);
}

static void *alloc16(struct simt_host *h, const char *name, uint64_t bytes, enum gpuvm_alloc_kind k)
{
	/* whole 16-byte lines: S-L1 fills the line around the last byte */
	return simt_malloc(h, name, (bytes + 15) / 16 * 16, k);
}

struct run_ctx {
	const struct sl1_run_cfg *c;
	struct simt_host *h;
	struct sl1_stats st;
	uint64_t threads, chunk, grid;
	int cln, ok;
	uint64_t digest;
	char extra[160];
};

static int launch1d(struct run_ctx *r, const char *name, simt_body_fn body, uint64_t app_smem,
		    struct sl1_cfg *cfg, const void *args, size_t args_bytes)
{
	uint64_t seg = cfg->enabled ? (uint64_t)cfg->cln * SL1_LINE * r->c->block : 0;
	uint32_t smem = (uint32_t)(app_smem + seg);
	return simt_launch_shared(r->h, name, body, simt_dim3((uint32_t)r->grid, 1, 1),
				  simt_dim3((uint32_t)r->c->block, 1, 1), smem, args, args_bytes);
}

static struct sl1_cfg make_cfg(struct run_ctx *r, uint64_t app_smem)
{
	const struct sl1_run_cfg *c = r->c;
	struct sl1_cfg cfg = {c->sl1, 0, &r->st};
	if (c->sl1)
		cfg.cln = sl1_cln(c, r->grid, c->block, app_smem, app_nds[c->app]);
	r->cln = cfg.cln;
	return cfg;
}

static int run_ii(struct run_ctx *r, const char *in, uint64_t n, struct sl1_cfg cfg);
static int run_of(struct run_ctx *r, const char *in, uint64_t n, struct sl1_cfg cfg);

static int run_text(struct run_ctx *r)
{
	const struct sl1_run_cfg *c = r->c;
	struct simt_host *h = r->h;
	uint64_t n = c->size;
	char *in = alloc16(h, "text", n, c->mem);
	if (!in)
		return -1;
	if (c->app == APP_PVC)
		n = sl1_gen_log(in, n, c->seed, PVC_URLS);
	else if (c->app == APP_II)
		sl1_gen_html(in, n, c->seed);
	else if (c->app == APP_OF)
		sl1_gen_tweets(in, n, OF_VOCAB, c->seed);
	else
		sl1_gen_text(in, n, c->seed);
	if (!n)
		return simt_fail(h, "size=%llu holds no log line", (unsigned long long)c->size);
	if (simt_upload(h, in, n))
		return -1;
	/* chunks of whole 16-byte lines: with ragged chunk starts the lanes of
	 * a warp miss in S-L1 at different iterations and every iteration
	 * runs the divergent miss path (measured: wc at 1024 threads per SM
	 * issues 2.1x the instructions with aligned chunks, 4.5x without) */
	r->chunk = ((n + r->threads - 1) / r->threads + 15) / 16 * 16;
	/* grep's pattern array, rounded to the 16-byte alignment of S-L1's segment */
	uint64_t app_smem = c->app == APP_GREP ? (SL1_GREP_MAX_PATTERN + 2 + 15) / 16 * 16 : 0;
	struct sl1_cfg cfg = make_cfg(r, app_smem);
	switch (c->app) {
	case APP_UPPER: {
		char *out = alloc16(h, "out", n, c->mem);
		if (!out)
			return -1;
		struct sl1_upper_args a = {in, out, n, r->chunk, cfg};
		if (launch1d(r, "sl1_upper", sl1_upper, 0, &cfg, &a, sizeof a) ||
		    simt_download(h, out, n))
			return -1;
		for (uint64_t i = 0; i < n && r->ok; i++)
			r->ok = out[i] == (in[i] >= 'a' && in[i] <= 'z' ? in[i] - 32 : in[i]);
		r->digest = suite_digest(out, n);
		break;
	}
	case APP_WC: {
		unsigned *words = alloc16(h, "words", r->threads * 4, c->mem);
		unsigned *lines = alloc16(h, "lines", r->threads * 4, c->mem);
		if (!words || !lines)
			return -1;
		struct sl1_wc_args a = {in, n, r->chunk, words, lines, cfg, (unsigned)c->unroll};
		if (launch1d(r, "sl1_wc", sl1_wc, 0, &cfg, &a, sizeof a) ||
		    simt_download(h, words, r->threads * 4) || simt_download(h, lines, r->threads * 4))
			return -1;
		uint64_t w = 0, l = 0, rw = 0, rl = 0;
		for (uint64_t t = 0; t < r->threads; t++)
			w += words[t], l += lines[t];
		for (uint64_t i = 0; i < n; i++) {
			int sp = in[i] == ' ' || in[i] == '\n' || in[i] == '\t';
			int psp = !i || in[i - 1] == ' ' || in[i - 1] == '\n' || in[i - 1] == '\t';
			rl += in[i] == '\n';
			rw += !sp && psp;
		}
		r->ok = w == rw && l == rl;
		r->digest = w << 32 ^ l;
		snprintf(r->extra, sizeof r->extra, " words=%llu lines=%llu", (unsigned long long)w,
			 (unsigned long long)l);
		break;
	}
	case APP_GREP: {
		unsigned char *match = alloc16(h, "match", n, c->mem);
		if (!match)
			return -1;
		struct sl1_grep_args a = {.text = in, .match = match, .n = n, .chunk = r->chunk,
					  .plen = (int)strlen(GREP_PATTERN), .sl1 = cfg};
		memcpy(a.pattern, GREP_PATTERN, strlen(GREP_PATTERN));
		if (launch1d(r, "sl1_grep", sl1_grep, app_smem, &cfg, &a, sizeof a) ||
		    simt_download(h, match, n))
			return -1;
		uint64_t hits = 0;
		for (uint64_t s = 0; s < n && r->ok;) {
			int want = sl1_grep_match(GREP_PATTERN, in + s);
			r->ok = match[s] == (unsigned char)want;
			hits += (uint64_t)want;
			const char *e = memchr(in + s, '\n', n - s);
			s = (uint64_t)(e - in) + 1;
		}
		r->digest = suite_digest(match, n);
		snprintf(r->extra, sizeof r->extra, " matching_lines=%llu", (unsigned long long)hits);
		break;
	}
	case APP_PVC: {
		uint64_t *keys = alloc16(h, "keys", PVC_SLOTS * 8, c->mem);
		unsigned *counts = alloc16(h, "counts", PVC_SLOTS * 4, c->mem);
		unsigned *want = malloc(PVC_SLOTS * sizeof *want);
		if (!keys || !counts || !want) {
			free(want);
			return want ? -1 : simt_fail(h, "out of memory");
		}
		int64_t distinct = sl1_pvc_reference(in, n, keys, want, PVC_SLOTS);
		if (distinct < 0) {
			free(want);
			return simt_fail(h, "URL table of %u slots is full", PVC_SLOTS);
		}
		struct sl1_pvc_args a = {in, (const unsigned long long *)keys, counts, n, r->chunk,
					 PVC_SLOTS, cfg};
		if (simt_upload(h, keys, PVC_SLOTS * 8) ||
		    launch1d(r, "sl1_pvc", sl1_pvc, 0, &cfg, &a, sizeof a) ||
		    simt_download(h, counts, PVC_SLOTS * 4)) {
			free(want);
			return -1;
		}
		r->ok = !memcmp(counts, want, PVC_SLOTS * sizeof *want);
		r->digest = suite_digest(counts, PVC_SLOTS * 4);
		snprintf(r->extra, sizeof r->extra, " urls=%lld", (long long)distinct);
		free(want);
		break;
	}
	case APP_II:
		return run_ii(r, in, n, cfg);
	case APP_OF:
		return run_of(r, in, n, cfg);
	default:
		return simt_fail(h, "not a text application");
	}
	return 0;
}

static int run_kmeans(struct run_ctx *r)
{
	const struct sl1_run_cfg *c = r->c;
	struct simt_host *h = r->h;
	uint64_t n = c->size;
	float *pts = alloc16(h, "points", n * SL1_KMEANS_DIMS * 4, c->mem);
	struct sl1_f4 *cen = alloc16(h, "centroids", SL1_KMEANS_K * sizeof *cen, c->mem);
	int *member = alloc16(h, "member", n * 4, c->mem);
	if (!pts || !cen || !member)
		return -1;
	sl1_gen_points(pts, n, SL1_KMEANS_DIMS, 16, c->seed);
	/* the centroids: K of the points, spread over the input */
	for (unsigned q = 0; q < SL1_KMEANS_K; q++)
		memcpy(cen[q].v, pts + (q * (n / SL1_KMEANS_K)) % n * SL1_KMEANS_DIMS, sizeof cen[q]);
	if (simt_upload(h, pts, n * SL1_KMEANS_DIMS * 4) ||
	    simt_upload(h, cen, SL1_KMEANS_K * sizeof *cen))
		return -1;
	r->chunk = (n + r->threads - 1) / r->threads;
	uint64_t app_smem = SL1_KMEANS_K * sizeof(struct sl1_f4);
	struct sl1_cfg cfg = make_cfg(r, app_smem);
	struct sl1_kmeans_args a = {pts, cen, member, n, r->chunk, cfg};
	if (launch1d(r, "sl1_kmeans", sl1_kmeans, app_smem, &cfg, &a, sizeof a) ||
	    simt_download(h, member, n * 4))
		return -1;
	for (uint64_t i = 0; i < n && r->ok; i++) {
		int best = 0;
		float best_d = 0;
		const float *x = pts + i * SL1_KMEANS_DIMS;
		for (int q = 0; q < SL1_KMEANS_K; q++) {
			float dist = 0;
			for (int d = 0; d < SL1_KMEANS_DIMS; d++)
				dist += (cen[q].v[d] - x[d]) * (cen[q].v[d] - x[d]);
			if (q == 0 || dist < best_d) {
				best_d = dist;
				best = q;
			}
		}
		r->ok = member[i] == best;
	}
	r->digest = suite_digest(member, n * 4);
	return 0;
}

static int run_mm(struct run_ctx *r)
{
	const struct sl1_run_cfg *c = r->c;
	struct simt_host *h = r->h;
	uint64_t n = c->size, bytes = n * n * 4;
	float *a = alloc16(h, "a", bytes, c->mem), *b = alloc16(h, "b", bytes, c->mem);
	float *cc = alloc16(h, "c", bytes, c->mem);
	if (!a || !b || !cc)
		return -1;
	sl1_gen_floats(a, n * n, c->seed);
	sl1_gen_floats(b, n * n, c->seed + 1);
	if (simt_upload(h, a, bytes) || simt_upload(h, b, bytes))
		return -1;
	/* 2-D blocks of 16 x (block / 16) threads, one per element of c */
	uint32_t bx = 16, by = (uint32_t)(c->block / 16);
	r->grid = (uint64_t)suite_div_up(n, bx) * suite_div_up(n, by);
	r->threads = r->grid * c->block;
	struct sl1_cfg cfg = make_cfg(r, 0);
	struct sl1_mm_args args = {a, b, cc, (int)n, cfg, (unsigned)c->unroll};
	uint32_t smem = (uint32_t)(cfg.enabled ? (uint64_t)cfg.cln * SL1_LINE * c->block : 0);
	if (simt_launch_shared(h, "sl1_mm", sl1_mm, simt_dim3(suite_div_up(n, bx), suite_div_up(n, by), 1),
			       simt_dim3(bx, by, 1), smem, &args, sizeof args) ||
	    simt_download(h, cc, bytes))
		return -1;
	for (uint64_t i = 0; i < n && r->ok; i++)
		for (uint64_t j = 0; j < n && r->ok; j++) {
			float sum = 0;
			for (uint64_t k = 0; k < n; k++)
				sum += a[i * n + k] * b[k * n + j];
			r->ok = cc[i * n + j] == sum;
		}
	r->digest = suite_digest(cc, bytes);
	return 0;
}

/* Inverted Index: the CPU reference splits the text as the launch does
 * and checks each thread's pairs in order. */
static int run_ii(struct run_ctx *r, const char *in, uint64_t n, struct sl1_cfg cfg)
{
	const struct sl1_run_cfg *c = r->c;
	struct simt_host *h = r->h;
	/* a link takes at least 28 bytes: <a href="/page/N.html">x</a> */
	uint64_t cap = r->chunk / 28 + 2, T = r->threads;
	unsigned long long *keys = alloc16(h, "keys", T * cap * 8, c->mem);
	unsigned *docs = alloc16(h, "docs", T * cap * 4, c->mem);
	unsigned *np = alloc16(h, "npairs", T * 4, c->mem);
	if (!keys || !docs || !np)
		return -1;
	struct sl1_ii_args a = {in, keys, docs, np, n, r->chunk, cap, cfg};
	if (launch1d(r, "sl1_ii", sl1_ii, 0, &cfg, &a, sizeof a) ||
	    simt_download(h, keys, T * cap * 8) || simt_download(h, docs, T * cap * 4) ||
	    simt_download(h, np, T * 4))
		return -1;
	static const char pat[] = "href=\"";
	uint64_t pairs = 0;
	for (uint64_t t = 0; t < T && r->ok; t++) {
		uint64_t b = t * r->chunk, e = b + r->chunk < n ? b + r->chunk : n, s = b, k = 0;
		if (b >= e)
			continue;
		if (b > 0 && in[b - 1] != '\n')
			while (s < n && in[s++] != '\n')
				;
		uint64_t doc = s;
		int m = 0;
		for (uint64_t i = s; s < e && i < n; i++) {
			char ch = in[i];
			if (ch == '\n') {
				s = doc = i + 1;
				m = 0;
				continue;
			}
			m = ch == pat[m] ? m + 1 : (ch == pat[0] ? 1 : 0);
			if (m < 6)
				continue;
			uint64_t st = ++i;
			while (in[i] != '"')
				i++;
			uint64_t hh = sl1_fnv1a(in + st, i - st);
			if (k < cap && (keys[t * cap + k] != hh || docs[t * cap + k] != (unsigned)doc))
				r->ok = 0;
			k++;
			m = 0;
		}
		if (np[t] != k)
			r->ok = 0;
		pairs += k;
	}
	r->digest = suite_digest(keys, T * cap * 8) ^ suite_digest(docs, T * cap * 4);
	snprintf(r->extra, sizeof r->extra, " pairs=%llu", (unsigned long long)pairs);
	return 0;
}

/* Opinion Finder: the dictionary is built here (the subject's keywords,
 * positive and negative words of the vocabulary), the scores checked
 * line by line. of_keys=1: its slots hold the words (SL1_OF_KEY bytes,
 * NUL-padded), placed by the words' hashes; of_keys=0: the hashes. */
static int run_of(struct run_ctx *r, const char *in, uint64_t n, struct sl1_cfg cfg)
{
	const struct sl1_run_cfg *c = r->c;
	struct simt_host *h = r->h;
	unsigned long long *keys = c->of_keys ? NULL : alloc16(h, "dict_keys", OF_SLOTS * 8, c->mem);
	unsigned char *words = c->of_keys ? alloc16(h, "dict_words", OF_SLOTS * SL1_OF_KEY, c->mem) : NULL;
	unsigned char *cls = alloc16(h, "dict_class", OF_SLOTS, c->mem);
	signed char *score = alloc16(h, "score", n, c->mem);
	if ((!keys && !words) || !cls || !score)
		return -1;
	char w[16];
	for (unsigned id = 0; id < OF_SUBJECT + 2 * OF_SENTIMENT; id++) {
		unsigned len = sl1_vocab_word(id, w);
		uint64_t hh = sl1_fnv1a(w, len), slot = hh & (OF_SLOTS - 1);
		while (keys ? keys[slot] != 0 : words[slot * SL1_OF_KEY] != 0)
			slot = (slot + 1) & (OF_SLOTS - 1);
		if (keys)
			keys[slot] = hh + 1;
		else if (len < SL1_OF_KEY)
			memcpy(words + slot * SL1_OF_KEY, w, len);
		else
			return simt_fail(h, "dictionary word of %u letters: slots hold %d", len, SL1_OF_KEY - 1);
		cls[slot] = (unsigned char)(id < OF_SUBJECT ? 1 : id < OF_SUBJECT + OF_SENTIMENT ? 2 : 3);
	}
	struct sl1_of_args a = {in, keys, cls, score, n, r->chunk, OF_SLOTS, cfg, words};
	if ((keys ? simt_upload(h, keys, OF_SLOTS * 8) : simt_upload(h, words, OF_SLOTS * SL1_OF_KEY)) ||
	    simt_upload(h, cls, OF_SLOTS) || launch1d(r, "sl1_of", sl1_of, 0, &cfg, &a, sizeof a) ||
	    simt_download(h, score, n))
		return -1;
	uint64_t mentions = 0;
	for (uint64_t s = 0; s < n && r->ok;) {
		int mention = 0, pos = 0, neg = 0;
		uint64_t i = s;
		for (;;) {
			uint64_t st = i;
			while (in[i] != ' ' && in[i] != '\n')
				i++;
			uint64_t hh = sl1_fnv1a(in + st, i - st), slot = hh & (OF_SLOTS - 1);
			/* the reference finds words by their letters (of_keys=1) */
			while (keys ? keys[slot] && keys[slot] != hh + 1
				    : words[slot * SL1_OF_KEY] &&
					      (i - st >= SL1_OF_KEY || memcmp(words + slot * SL1_OF_KEY, in + st, i - st) ||
					       words[slot * SL1_OF_KEY + (i - st)]))
				slot = (slot + 1) & (OF_SLOTS - 1);
			if (keys ? keys[slot] != 0 : words[slot * SL1_OF_KEY] != 0) {
				mention |= cls[slot] == 1;
				pos += cls[slot] == 2;
				neg += cls[slot] == 3;
			}
			if (in[i] == '\n')
				break;
			i++;
		}
		int sc = mention ? pos - neg : 0;
		mentions += (uint64_t)mention;
		r->ok = score[s] == (signed char)(sc > 127 ? 127 : sc < -127 ? -127 : sc);
		s = i + 1;
	}
	r->digest = suite_digest(score, n);
	snprintf(r->extra, sizeof r->extra, " mentions=%llu", (unsigned long long)mentions);
	return 0;
}

/* MasterCard Affinity: mark X's customers, then count their merchants. */
static int run_mca(struct run_ctx *r)
{
	const struct sl1_run_cfg *c = r->c;
	struct simt_host *h = r->h;
	uint64_t n = c->size;
	unsigned *txn = alloc16(h, "transactions", n * 8, c->mem);
	unsigned *bitmap = alloc16(h, "customers_of_x", MCA_CUSTOMERS / 8, c->mem);
	unsigned *counts = alloc16(h, "counts", MCA_MERCHANTS * 4, c->mem);
	if (!txn || !bitmap || !counts)
		return -1;
	sl1_gen_txns(txn, n, MCA_CUSTOMERS, MCA_MERCHANTS, c->seed);
	if (simt_upload(h, txn, n * 8))
		return -1;
	r->chunk = ((n + r->threads - 1) / r->threads + 1) / 2 * 2; /* whole 16-byte lines */
	struct sl1_cfg cfg = make_cfg(r, 0);
	struct sl1_mca_args a = {txn, bitmap, counts, n, r->chunk, MCA_TARGET, cfg};
	if (launch1d(r, "sl1_mca_mark", sl1_mca_mark, 0, &cfg, &a, sizeof a) ||
	    launch1d(r, "sl1_mca_count", sl1_mca_count, 0, &cfg, &a, sizeof a) ||
	    simt_download(h, counts, MCA_MERCHANTS * 4))
		return -1;
	unsigned *bm = calloc(MCA_CUSTOMERS / 32, sizeof *bm);
	unsigned *want = calloc(MCA_MERCHANTS, sizeof *want);
	if (!bm || !want) {
		free(bm);
		free(want);
		return simt_fail(h, "out of memory");
	}
	for (uint64_t i = 0; i < n; i++)
		if (txn[2 * i + 1] == MCA_TARGET)
			bm[txn[2 * i] >> 5] |= 1u << (txn[2 * i] & 31);
	for (uint64_t i = 0; i < n; i++)
		if (bm[txn[2 * i] >> 5] >> (txn[2 * i] & 31) & 1u)
			want[txn[2 * i + 1]]++;
	r->ok = !memcmp(want, counts, MCA_MERCHANTS * sizeof *want);
	uint64_t top = 0;
	for (unsigned m = 1; m < MCA_MERCHANTS; m++)
		if (want[m] > want[top])
			top = m;
	free(bm);
	free(want);
	r->digest = suite_digest(counts, MCA_MERCHANTS * 4);
	snprintf(r->extra, sizeof r->extra, " top=%llu", (unsigned long long)top);
	return 0;
}

static int sl1_host(struct simt_host *h, void *user)
{
	const struct sl1_run_cfg *c = user;
	struct run_ctx r;
	memset(&r, 0, sizeof r);
	r.c = c;
	r.h = h;
	r.ok = 1;
	r.grid = (c->sms * c->tps + c->block - 1) / c->block;
	r.threads = r.grid * c->block;
	int rc;
	switch (c->app) {
	case APP_KMEANS: rc = run_kmeans(&r); break;
	case APP_MM: rc = run_mm(&r); break;
	case APP_MCA: rc = run_mca(&r); break;
	default: rc = run_text(&r); break;
	}
	if (rc)
		return rc;
	if (c->verify && !r.ok)
		return simt_fail(h, "%s: the output differs from the CPU reference (sl1=%d)",
				 app_names[c->app], c->sl1);
	const struct sl1_stats *s = &r.st;
	unsigned long long cached = s->hits + s->misses;
	/* verify first: the result line holds 191 characters */
	simt_result(h,
		    "verify=%s app=%s cln=%d threads=%llu hit_rate=%.4f hits=%llu misses=%llu "
		    "uncached=%llu monitored=%llu caching=%llu digest=%016llx%s",
		    c->verify ? (r.ok ? "pass" : "FAIL") : "off", app_names[c->app], r.cln,
		    (unsigned long long)r.threads, cached ? (double)s->hits / (double)cached : 0.0,
		    s->hits, s->misses, s->uncached, s->monitored, s->threads_caching,
		    (unsigned long long)r.digest, r.extra);
	simt_work_items(h, c->size);
	return 0;
}

static const struct gpuvm_param_def sl1_params[] = {
	{"app", GPUVM_PARAM_CHOICE, APP_CHOICES,
	 "Table 5.1 application: upper, wc, grep, kmeans (assignment step), pvc (Page View Count), "
	 "mm (naive Matrix Multiply), mca (MasterCard Affinity), ii (Inverted Index), of (Opinion "
	 "Finder)"},
	{"sl1", GPUVM_PARAM_U64, "1", "1: accesses go through the S-L1 software cache; 0: plain loads "
				      "(pair with l1.global_loads=cached|uncached)"},
	{"size", GPUVM_PARAM_U64, NULL,
	 "input: text bytes (upper, wc, grep, pvc, ii, of; default 16777216), transactions (mca; "
	 "default 2097152), points (kmeans; default 16384), "
	 "matrix order (mm; default 256)"},
	{"tps", GPUVM_PARAM_U64, NULL,
	 "threads per SM the launch asks for (grid = SMs x tps / block); default the SM's maximum"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block (mm: 16 x block/16 tiles)"},
	{"seed", GPUVM_PARAM_U64, "1", "input generator seed"},
	{"verify", GPUVM_PARAM_U64, "1", "1: compare the output with the CPU reference, fail the run "
					 "on a difference"},
	{"mem", GPUVM_PARAM_CHOICE, "device|managed|pinned",
	 "allocation kind of the kernel data: device, managed (cudaMallocManaged) or pinned"},
	{"unroll", GPUVM_PARAM_U64, "1",
	 "wc and mm with sl1=0: a thread's loads issued in independent groups, this many loop "
	 "steps a group (1-16), as nvcc -O3 unrolls their loops (its PTX: 4 steps an iteration, "
	 "the loads independent); 1 = each load waits for the one before"},
	{"of_keys", GPUVM_PARAM_U64, "1",
	 "of: 1: the dictionary holds words (16-byte slots, NUL-padded), each looked-up word "
	 "compared byte by byte with its slot's, as the bigkernel workload's Opinion Finder "
	 "(thesis 4.4: dictionaries of words); 0: the words' 64-bit hashes, one compare a slot"},
};

static int sl1_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		      uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct sl1_run_cfg c = {.app = APP_UPPER, .sl1 = 1, .block = 256, .seed = 1, .unroll = 1, .verify = 1,
				.mem = GPUVM_ALLOC_DEVICE};
	unsigned app = 0, mem = 0;
	uint64_t sl1 = 1, verify = 1, size = 0, tps = 0, of_keys = 1;
	if (gpuvm_params_choice(p, "app", APP_CHOICES, &app, err) < 0 ||
	    gpuvm_params_choice(p, "mem", "device|managed|pinned", &mem, err) < 0 ||
	    gpuvm_params_u64(p, "sl1", &sl1, err) < 0 || gpuvm_params_u64(p, "verify", &verify, err) < 0 ||
	    gpuvm_params_u64(p, "size", &size, err) < 0 || gpuvm_params_u64(p, "tps", &tps, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "seed", &c.seed, err) < 0 ||
	    gpuvm_params_u64(p, "unroll", &c.unroll, err) < 0 ||
	    gpuvm_params_u64(p, "of_keys", &of_keys, err) < 0)
		return -1;
	if (c.unroll < 1 || c.unroll > SL1_MAX_UNROLL)
		return gpuvm_fail(err, "--workload", 0, "unroll", "%llu is not in 1..%u",
				  (unsigned long long)c.unroll, SL1_MAX_UNROLL);
	static const enum gpuvm_alloc_kind kinds[] = {GPUVM_ALLOC_DEVICE, GPUVM_ALLOC_MANAGED,
						      GPUVM_ALLOC_HOST_PINNED};
	c.app = (enum sl1_app)app;
	c.mem = kinds[mem];
	c.sl1 = (int)sl1;
	c.verify = (int)verify;
	c.of_keys = (int)of_keys;
	c.sms = cfg->sms;
	c.max_warps = cfg->max_warps_per_sm;
	c.max_ctas = cfg->max_ctas_per_sm;
	c.smem_per_sm = cfg->smem_bytes;
	c.tps = tps ? tps : (uint64_t)cfg->max_warps_per_sm * GPUVM_WARP_LANES;
	if (!size)
		size = c.app == APP_KMEANS ? 16384
		       : c.app == APP_MM   ? 256
		       : c.app == APP_MCA  ? 2u << 20
					   : 16u << 20;
	c.size = size;
	if (workload_check_launch(c.sms * c.tps, c.block, err))
		return -1;
	if (c.tps > (uint64_t)cfg->max_warps_per_sm * GPUVM_WARP_LANES)
		return gpuvm_fail(err, "--workload", 0, "tps", "%llu is more than the %u threads an SM runs",
				  (unsigned long long)c.tps, cfg->max_warps_per_sm * GPUVM_WARP_LANES);
	/* upper bounds: mm's CPU reference is n^3 (1024: ~1 s), K-means' CTAs
	 * buffer their whole trace (a barrier, docs/simt.md) */
	uint64_t size_min = c.app == APP_MM ? 16 : c.app == APP_KMEANS ? 1 : 256;
	uint64_t size_max = c.app == APP_MM ? 1024 : c.app == APP_KMEANS ? 1ull << 22 : 1ull << 32;
	if (c.size < size_min || c.size > size_max)
		return gpuvm_params_constraint(err, "size", "%llu..%llu for app=%s",
					       (unsigned long long)size_min,
					       (unsigned long long)size_max, app_names[c.app]);
	struct sl1_run_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("sl1", sl1_host, u, free, out, err);
}

static const struct gpuvm_param_range sl1_ranges[] = {
	GPUVM_RANGE("sl1", 0, 1),
	GPUVM_RANGE("verify", 0, 1),
	GPUVM_RANGE("of_keys", 0, 1),
	GPUVM_RANGE("size", 0, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
};

const struct gpuvm_workload_def gpuvm_workload_sl1 = {
	.name = "sl1",
	.summary = "S-L1 software L1 cache in shared memory (Mokhtari ch. 5): upper, wc, grep, "
		   "K-means, Page View Count, Matrix Multiply, MasterCard Affinity, Inverted Index, "
		   "Opinion Finder with sl1=0|1",
	.working_set = "size bytes (text apps; x2 upper, ~x2 ii); 16 B x size (kmeans); 12 B x size^2 "
		       "(mm); 8 B x size (mca)",
	.params = sl1_params,
	.n_params = sizeof sl1_params / sizeof sl1_params[0],
	GPUVM_WORKLOAD_RANGES(sl1_ranges),
	.constraints = "size 16..1024 for app=mm, 1..2^22 for kmeans, 256..2^32 for the others "
		       "(0: the app's default); tps at most the threads an SM runs",
	.create = sl1_create,
};
