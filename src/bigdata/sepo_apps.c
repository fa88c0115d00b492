/* Chapter-6 applications on the SePo hash table as gpuvm workloads
 * (seeds/001 §6.5-6.6): sepo-pvc (Page View Count), sepo-wc (Word Count,
 * MAP_REDUCE) and sepo-kv (the insert-rate benchmark of Fig. 6.8). Each
 * runs its map kernel on the SIMT executor over a deterministic streamed
 * input, with the table in one of three placements (placement=sepo|
 * pinned|managed), and with verify=1 checks the table, read on the host
 * through its references after the final copy-out, against a CPU
 * reference built from the same input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigdata/gen.h"
#include "bigdata/read_log.h"
#include "bigdata/sepo_cpu.h"
#include "bigdata/sepo_kernels.h"
#include "bigdata/sepo_ref.h"
#include "bigdata/sepo_run.h"
#include "gpuvm/workload.h"

enum sepo_app {
	APP_PVC = SEPO_APP_PVC,
	APP_KV = SEPO_APP_KV,
	APP_WC = SEPO_APP_WC,
	APP_II = SEPO_APP_II,
	APP_NETFLIX = SEPO_APP_NETFLIX,
	APP_DNA = SEPO_APP_DNA,
	APP_PATENT = SEPO_APP_PATENT,
	APP_GEO = SEPO_APP_GEO,
};

/* one pair per record: the apps sepo_record_pair parses */
static int pair_app(enum sepo_app a)
{
	return a >= APP_NETFLIX;
}

struct sepo_app_cfg {
	enum sepo_app app;
	struct sepo_config tc;
	uint64_t records, chunk, threads, seed, cpu_threads, buffers;
	unsigned int resend; /* 0: pending records (BigKernel), 1: epochs */
	int verify;
	struct gen_pvc pvc;
	struct gen_kv kv;
	struct gen_text text;
	struct gen_html html;
	struct gen_netflix netflix;
	struct gen_dna dna;
	struct gen_patent patent;
	struct gen_geo geo;
	unsigned int rec_words, key_bytes, value_bytes, entry_words;
	struct log_reader log; /* sepo-pvc input=FILE (fd >= 0) */
	int read_error;
	char input[256];
};

static void app_free(void *user)
{
	struct sepo_app_cfg *c = user;
	if (c->log.fd >= 0)
		log_reader_close(&c->log);
	free(c);
}

/* One record's pairs, as the map kernel yields them (the plain C form of
 * sepo_kernels.h, for the CPU reference and the CPU baseline). */
static void map_record(void *ctx, const unsigned long long *rec, sepo_emit_fn emit, void *table)
{
	const struct sepo_app_cfg *c = ctx;
	const unsigned char *b = (const unsigned char *)rec;
	unsigned long long one = 1, key[SEPO_MAX_KEY_WORDS];
	if (pair_app(c->app)) {
		unsigned long long r8[8] = {0}, val[2];
		unsigned int vb;
		memcpy(r8, rec, (size_t)c->rec_words * 8);
		unsigned int kb = sepo_record_pair(c->app, r8, key, val, &vb);
		if (kb)
			emit(table, key, kb, val, vb);
		return;
	}
	if (c->app == APP_KV) {
		unsigned int kb = (unsigned int)(rec[0] & 0xffff), vb = (unsigned int)(rec[0] >> 16 & 0xffff);
		emit(table, rec + 1, kb, rec + 1 + (kb + 7) / 8, vb);
		return;
	}
	if (c->app == APP_II) {
		const unsigned char *t = (const unsigned char *)(rec + 1);
		for (unsigned int i = 0; i + 6 < 120; i++) {
			if (memcmp(t + i, "href=\"", 6))
				continue;
			unsigned int s = i + 6, e = s;
			while (e < 120 && t[e] != '"')
				e++;
			i = e;
			if (e >= 120 || e == s || e - s > 64)
				continue;
			memset(key, 0, 64);
			memcpy(key, t + s, e - s);
			emit(table, key, e - s, rec, 8);
		}
		return;
	}
	if (c->app == APP_PVC) {
		unsigned int len = 0;
		while (len < 64 && b[len] != ' ' && b[len] != '\n' && b[len])
			len++;
		if (len) {
			memset(key, 0, 64);
			memcpy(key, b, len);
			emit(table, key, len, &one, 8);
		}
		return;
	}
	for (unsigned int i = 0; i < 64;) {
		if (b[i] < 'a' || b[i] > 'z') {
			i++;
			continue;
		}
		unsigned int s = i;
		while (i < 64 && b[i] >= 'a' && b[i] <= 'z')
			i++;
		if (i - s >= 4 && i - s <= c->key_bytes) {
			memset(key, 0, 64);
			memcpy(key, b + s, i - s);
			emit(table, key, i - s, &one, 8);
		}
	}
}

static void fill_any(void *ctx, uint64_t first, uint64_t n, unsigned long long *out)
{
	const struct sepo_app_cfg *c = ctx;
	if (c->log.fd >= 0) { /* input=FILE */
		if (log_reader_fill(&c->log, first, n, out))
			__atomic_store_n((int *)&c->read_error, 1, __ATOMIC_RELAXED);
	} else if (c->app == APP_PVC)
		gen_pvc_fill(&c->pvc, first, n, out);
	else if (c->app == APP_KV)
		gen_kv_fill(&c->kv, first, n, out);
	else if (c->app == APP_II)
		gen_html_fill(&c->html, first, n, out);
	else if (c->app == APP_NETFLIX)
		gen_netflix_fill(&c->netflix, first, n, out);
	else if (c->app == APP_DNA)
		gen_dna_fill(&c->dna, first, n, out);
	else if (c->app == APP_PATENT)
		gen_patent_fill(&c->patent, first, n, out);
	else if (c->app == APP_GEO)
		gen_geo_fill(&c->geo, first, n, out);
	else
		gen_text_fill(&c->text, first, n, out);
}

/* The device's input chunk: the records as fill_any writes them, except
 * for the applications whose author's kernels read their records byte by
 * byte from BigKernel's assembled buffer (sepo_bytewise_app: Page View
 * Count, Netflix, DNA Assembly), which go through that assembly
 * (sepo_bk_offset). The CPU reference and the CPU baseline read fill_any's
 * order. */
static void fill_gpu(void *ctx, uint64_t first, uint64_t n, unsigned long long *out)
{
	struct sepo_app_cfg *c = ctx;
	if (!sepo_bytewise_app(c->app)) {
		fill_any(ctx, first, n, out);
		return;
	}
	size_t rec_bytes = (size_t)c->rec_words * 8;
	unsigned char *plain = malloc(n * rec_bytes);
	if (!plain) {
		__atomic_store_n(&c->read_error, 1, __ATOMIC_RELAXED);
		return;
	}
	fill_any(ctx, first, n, (unsigned long long *)plain);
	unsigned char *asm_bytes = (unsigned char *)out;
	for (uint64_t r = 0; r < n; r++)
		for (unsigned int k = 0; k < rec_bytes; k++)
			asm_bytes[sepo_bk_offset(r, n, (unsigned int)rec_bytes, k)] = plain[r * rec_bytes + k];
	free(plain);
}

struct ref_sink {
	struct sepo_ref *r;
	int rc;
};

static void ref_emit(void *table, const unsigned long long *key, unsigned int kbytes,
		     const unsigned long long *val, unsigned int vbytes)
{
	struct ref_sink *s = table;
	if (!s->rc)
		s->rc = sepo_ref_add(s->r, key, kbytes, val, vbytes);
}

/* The pairs of every record, as the map yields them, into the CPU
 * reference (a plain sequential loop over the same generator). */
static int ref_add_records(struct sepo_app_cfg *c, struct sepo_ref *r)
{
	enum { CH = 4096 };
	unsigned long long *buf = malloc((size_t)CH * c->rec_words * 8);
	if (!buf)
		return -1;
	struct ref_sink s = {r, 0};
	for (uint64_t f = 0; f < c->records && !s.rc; f += CH) {
		uint64_t n = c->records - f < CH ? c->records - f : CH;
		fill_any(c, f, n, buf);
		for (uint64_t i = 0; i < n && !s.rc; i++)
			map_record(c, buf + i * c->rec_words, ref_emit, &s);
	}
	free(buf);
	return s.rc;
}

static int sepo_app_host(struct simt_host *h, void *user)
{
	struct sepo_app_cfg *c = user;
	struct sepo_table t;
	if (sepo_create(h, &t, &c->tc, c->entry_words)) {
		sepo_release(&t);
		return -1;
	}
	struct sepo_input in = {.records = c->records, .rec_words = c->rec_words, .key_bytes = c->key_bytes,
				.ctx = c};
	in.fill = fill_gpu;
	in.kernel = sepo_map_kernel;
	in.kernel_name = "sepo_map_kernel";
	in.app = c->app;
	in.needs_progress = c->app == APP_WC || c->app == APP_II;
	in.resend_epochs = c->resend == 1;
	struct sepo_run_stats st;
	if (sepo_run(h, &t, &in, c->chunk, (uint32_t)c->threads, (unsigned int)c->buffers, &st)) {
		sepo_release(&t);
		return -1;
	}
	if (c->read_error) {
		sepo_release(&t);
		return simt_fail(h, "%s: read error during the run", c->input);
	}
	const char *verdict = "";
	char why[160] = "";
	uint64_t keys = 0;
	if (c->verify) {
		struct sepo_ref want, got;
		int ok = sepo_ref_init(&want, c->tc.org, c->tc.combine_op) == 0 &&
			 sepo_ref_init(&got, c->tc.org, c->tc.combine_op) == 0;
		want.split_ok = c->app == APP_WC || c->app == APP_II || t.keys_split;
		if (!ok || ref_add_records(c, &want) || sepo_ref_from_table(&got, &t)) {
			snprintf(why, sizeof why, "cannot read the table back (or out of memory)");
			verdict = " verify=FAIL";
		} else if (sepo_ref_compare(&want, &got, why, sizeof why)) {
			verdict = " verify=FAIL";
		} else {
			verdict = " verify=pass";
			keys = want.n;
			if (got.split_keys)
				snprintf(why, sizeof why, "merged_keys=%llu", (unsigned long long)got.split_keys);
		}
		sepo_ref_free(&want);
		sepo_ref_free(&got);
	}
	char cpu_s[80] = "";
	if (c->cpu_threads) {
		/* Fig. 6.9's denominator: the same table on the host, timed */
		struct sepo_ref want, got;
		double sec = 0;
		struct sepo_cpu_app app = {.records = c->records, .rec_words = c->rec_words, .ctx = c,
					   .fill = fill_any, .map = map_record};
		struct sepo_config cc = c->tc;
		cc.placement = SEPO_PLACE_PINNED;
		int ok = sepo_ref_init(&want, c->tc.org, c->tc.combine_op) == 0 &&
			 sepo_ref_init(&got, c->tc.org, c->tc.combine_op) == 0 &&
			 sepo_cpu_run(&app, &cc, (unsigned int)c->cpu_threads, &got, &sec) == 0;
		const char *v = "";
		if (ok && c->verify) {
			char w2[160];
			want.split_ok = 0;
			v = ref_add_records(c, &want) == 0 && sepo_ref_compare(&want, &got, w2, sizeof w2) == 0
				    ? " cpu_verify=pass"
				    : " cpu_verify=FAIL";
		}
		sepo_ref_free(&want);
		sepo_ref_free(&got);
		if (!ok) {
			sepo_release(&t);
			return simt_fail(h, "the CPU baseline ran out of memory");
		}
		snprintf(cpu_s, sizeof cpu_s, " cpu_ms=%.4g%s", sec * 1e3, v);
	}
	char iters[96] = "";
	size_t at = 0;
	for (unsigned int i = 0; i < st.iterations && i < 6 && at < sizeof iters; i++)
		at += (size_t)snprintf(iters + at, sizeof iters - at, "%s%.4g", i ? "/" : "",
				       st.iter_seconds[i] * 1e3);
	if (st.iterations > 6 && at < sizeof iters)
		snprintf(iters + at, sizeof iters - at, "/...");
	/* per iteration: MB of input sent, records pending after it, ms of
	 * its end (done bitmap, decision, heap copy-out) -- Fig. 6.10's
	 * breakdown */
	char ibrk[256] = "";
	at = 0;
	for (unsigned int i = 0; i < st.iterations && i < 6 && at < sizeof ibrk; i++)
		at += (size_t)snprintf(ibrk + at, sizeof ibrk - at, "%s%.4g:%llu:%.4g", i ? "/" : "",
				       st.iter_input_bytes[i] / 1e6, (unsigned long long)st.iter_pending[i],
				       st.iter_out_seconds[i] * 1e3);
	char keys_s[32] = "";
	if (keys)
		snprintf(keys_s, sizeof keys_s, " keys=%llu", (unsigned long long)keys);
	/* the breakdown last: the result line holds 255 characters, and a
	 * long one must not push verify= out */
	simt_result(h, "iters=%u iter_ms=%s heap=%llu table=%llu copied=%llu "
		    "postponed=%llu%s%s%s%s%s iter_mb_pending_outms=%s",
		    st.iterations, iters, (unsigned long long)t.heap_pages * c->tc.page_bytes,
		    (unsigned long long)(t.pages_taken * c->tc.page_bytes),
		    (unsigned long long)t.bytes_out, (unsigned long long)t.postponed, keys_s, verdict,
		    cpu_s, *why ? " " : "", why, ibrk);
	simt_work_items(h, c->records);
	sepo_release(&t);
	return 0;
}

/* ---- parameters ---------------------------------------------------- */

#define SEPO_COMMON_PARAMS                                                                       \
	{"placement", GPUVM_PARAM_CHOICE, "sepo|pinned|managed",                                 \
	 "where the heap lives: device heap with postponement (sepo), host-pinned zero-copy "     \
	 "(pinned, Fig. 6.11) or managed memory under demand paging (managed, Table 6.3; device " \
	 "memory from uvm.device_memory or --oversub)"},                                          \
	{"heap", GPUVM_PARAM_SIZE, "0",                                                          \
	 "sepo: the device heap; 0 = uvm.device_memory when set, else room for the whole table"}, \
	{"buckets", GPUVM_PARAM_U64, "0", "hash buckets; 0 = records / 2 (at least 1024)"},     \
	{"groups", GPUVM_PARAM_U64, "0",                                                         \
	 "bucket groups, each allocating from its own page; 0 = heap pages / 25, at least 1 "    \
	 "(rezafmk/BRB_HashTable PVC: pagePerGroup = 25)"},                                      \
	{"page", GPUVM_PARAM_SIZE, "16KiB", "heap page (power of two, 1 KiB..16 MiB)"},         \
	{"chunk", GPUVM_PARAM_U64, "16384",                                                      \
	 "input records per copy and launch (16384: 1-2 MiB copies, >= 99 % of the bulk rate on " \
	 "UVMSmart's transfer curve; a pass exposes one chunk's copy, the pipeline hides the rest)"}, \
	{"buffers", GPUVM_PARAM_U64, "3",                                                        \
	 "rotating input buffers: >= 2 copies each chunk asynchronously beside the kernels of "  \
	 "the chunks before it (BigKernel's pipeline, seeds/001 4.3.3: three buffer sets); 1 = " \
	 "a synchronous copy, then the kernel, nothing overlapped"},                              \
	{"resend", GPUVM_PARAM_CHOICE, "records|epochs",                                         \
	 "input sent per chunk: records = BigKernel's stages for the pending records only (their " \
	 "addresses up, the gathered records down; seeds/001 4.2, 6.2.2); epochs = whole chunks, " \
	 "later only 1024-record epochs holding a pending record (rezafmk/BRB_HashTable)"},       \
	{"keep", GPUVM_PARAM_CHOICE, "pages|groups",                                             \
	 "multi-valued: key pages kept on the GPU at an iteration's end: pages = those holding a " \
	 "key whose value was postponed (seeds/001 6.3.3); groups = every key page of a group "  \
	 "with such a key (rezafmk/BRB_HashTable group->needed)"},                               \
	{"threads", GPUVM_PARAM_U64, "16384", "GPU threads per launch (grid-stride over a chunk)"}, \
	{"threshold", GPUVM_PARAM_U64, "50",                                                     \
	 "basic: % of groups declining before an iteration stops (seeds/001 §6.3.3: 50)"},     \
	{"verify", GPUVM_PARAM_U64, "0", "1: compare the table with a CPU reference (verify=pass|FAIL)"}, \
	{"cpu", GPUVM_PARAM_U64, "0",                                                            \
	 "N > 0: also run the pthreads CPU baseline (same table, no SePo) on N threads, timed "   \
	 "for real: cpu_ms= (Fig. 6.9's denominator)"}

static const struct gpuvm_param_def pvc_params[] = {
	{"records", GPUVM_PARAM_U64, "262144", "64-byte log records"},
	{"urls", GPUVM_PARAM_U64, "131072", "distinct pages the log's URLs are drawn from"},
	{"zipf", GPUVM_PARAM_DOUBLE, "0.8",
	 "Zipf exponent of page popularity (web traces: 0.64-0.83, Breslau et al. INFOCOM'99)"},
	{"org", GPUVM_PARAM_CHOICE, "combining|basic|multi", "bucket organisation (PVC: combining)"},
	{"input", GPUVM_PARAM_TEXT, "",
	 "a real web log instead of the generator: one record per line, the URL its first token "
	 "starting http:// https:// or / (else its first token); records = its lines"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def kv_params[] = {
	{"records", GPUVM_PARAM_U64, "131072", "pairs to insert"},
	{"dup", GPUVM_PARAM_U64, "2", "mean pairs per distinct key (Fig. 6.8: 2, 5, 10)"},
	{"key", GPUVM_PARAM_U64, "16", "key bytes (performanceTest: 8-128)"},
	{"value", GPUVM_PARAM_U64, "8", "value bytes (1-64)"},
	{"org", GPUVM_PARAM_CHOICE, "basic|multi|combining", "bucket organisation"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def wc_params[] = {
	{"lines", GPUVM_PARAM_U64, "131072", "64-byte lines of text"},
	{"vocab", GPUVM_PARAM_U64, "65536", "distinct words the text is drawn from"},
	{"zipf", GPUVM_PARAM_DOUBLE, "1.0", "Zipf exponent of word frequency (English: ~1, Zipf 1949)"},
	{"org", GPUVM_PARAM_CHOICE, "combining|basic|multi",
	 "combining = MAP_REDUCE (the reduce callback adds); multi = MAP_GROUP"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def ii_params[] = {
	{"records", GPUVM_PARAM_U64, "131072", "128-byte records of HTML (page id + 120 bytes of text)"},
	{"urls", GPUVM_PARAM_U64, "65536", "distinct link targets"},
	{"zipf", GPUVM_PARAM_DOUBLE, "0.8", "Zipf exponent of link-target popularity"},
	{"per_doc", GPUVM_PARAM_U64, "8", "records per HTML page (8: 1 KB pages)"},
	{"org", GPUVM_PARAM_CHOICE, "multi|combining|basic", "bucket organisation (Inverted Index: multi)"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def netflix_params[] = {
	{"records", GPUVM_PARAM_U64, "131072", "64-byte rating-pair records"},
	{"users", GPUVM_PARAM_U64, "4096", "distinct users (at most 999,999: 6 digits)"},
	{"movies", GPUVM_PARAM_U64, "17770", "distinct movies (the Netflix Prize's 17,770)"},
	{"zipf", GPUVM_PARAM_DOUBLE, "0.6", "Zipf exponent of user activity (an assumption: few users rate much)"},
	{"org", GPUVM_PARAM_CHOICE, "combining|basic|multi", "bucket organisation (Netflix: combining)"},
	{"input", GPUVM_PARAM_TEXT, "", "a real file instead of the generator: one 63-byte line per record in the generator's format (movie userA date rateA userB date rateB); records = its lines"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def dna_params[] = {
	{"records", GPUVM_PARAM_U64, "131072", "64-byte records of one 48-base read each"},
	{"genome", GPUVM_PARAM_U64, "65536", "bases of the genome reads are taken from (coverage = "
					     "records x 48 / genome)"},
	{"errors", GPUVM_PARAM_U64, "2", "misread bases per 1000 (an assumption; Illumina short reads: ~1-10)"},
	{"org", GPUVM_PARAM_CHOICE, "combining|basic|multi", "bucket organisation (DNA: combining)"},
	{"input", GPUVM_PARAM_TEXT, "", "a real file instead of the generator: one read per line (48 bases; FASTQ must first be cut to its read lines); records = its lines"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def patent_params[] = {
	{"records", GPUVM_PARAM_U64, "262144", "16-byte citation records"},
	{"patents", GPUVM_PARAM_U64, "131072", "distinct patent numbers (at most 7,000,000)"},
	{"zipf", GPUVM_PARAM_DOUBLE, "0.8", "Zipf exponent of how often a patent is cited (an assumption: heavy-tailed)"},
	{"org", GPUVM_PARAM_CHOICE, "multi|combining|basic", "bucket organisation (MAP_GROUP: multi)"},
	{"input", GPUVM_PARAM_TEXT, "", "a real file instead of the generator: one \"cited,citing\" per line, at most 15 bytes; records = its lines"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_def geo_params[] = {
	{"records", GPUVM_PARAM_U64, "131072", "64-byte article records"},
	{"places", GPUVM_PARAM_U64, "32768", "distinct locations"},
	{"zipf", GPUVM_PARAM_DOUBLE, "1.0", "Zipf exponent of place popularity (city sizes: ~1, Gabaix QJE 1999)"},
	{"org", GPUVM_PARAM_CHOICE, "multi|combining|basic", "bucket organisation (MAP_GROUP: multi)"},
	{"input", GPUVM_PARAM_TEXT, "", "a real file instead of the generator: one \"id TAB title TAB location\" per line, at most 63 bytes; records = its lines"},
	SEPO_COMMON_PARAMS,
};

static const struct gpuvm_param_range sepo_ranges[] = {
	GPUVM_RANGE("records", 1, 1ull << 32), GPUVM_RANGE("lines", 1, 1ull << 32), GPUVM_RANGE("urls", 1, 1ull << 40),
	GPUVM_RANGE("vocab", 1, 1ull << 32),   GPUVM_RANGE("zipf", 0.01, 4),          GPUVM_RANGE("dup", 1, 1ull << 20),
	GPUVM_RANGE("key", 1, 8 * SEPO_MAX_KEY_WORDS), GPUVM_RANGE("value", 1, 8 * SEPO_MAX_VALUE_WORDS),
	GPUVM_RANGE("buckets", 0, 1ull << 31), GPUVM_RANGE("groups", 0, 1ull << 20),  GPUVM_RANGE_POW2("page", 1024, 16ull << 20),
	GPUVM_RANGE("chunk", 1, 1ull << 26),   GPUVM_RANGE("threads", 1, 1ull << 24), GPUVM_RANGE("threshold", 1, 100),
	GPUVM_RANGE("verify", 0, 1),           GPUVM_RANGE("heap", 0, 1ull << 46),     GPUVM_RANGE("cpu", 0, 256),
	GPUVM_RANGE("per_doc", 1, 1ull << 30), GPUVM_RANGE("users", 2, 999999),       GPUVM_RANGE("movies", 1, 99999),
	GPUVM_RANGE("genome", 96, 1ull << 40), GPUVM_RANGE("errors", 0, 1000),        GPUVM_RANGE("patents", 2, 7000000),
	GPUVM_RANGE("places", 1, 1ull << 32),  GPUVM_RANGE("buffers", 1, GPUVM_RUN_EVENTS - 1),
};

static int common_parse(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			struct sepo_app_cfg *c, const char *org_choices, struct gpuvm_error *err)
{
	unsigned int place = 0, org = 0;
	uint64_t verify = 0, thr = 50;
	c->tc.page_bytes = 16384;
	c->tc.groups = 0;
	c->chunk = 16384;
	c->threads = 16384;
	c->buffers = 3;
	uint64_t heap = 0, buckets = 0;
	if (gpuvm_params_choice(p, "placement", "sepo|pinned|managed", &place, err) < 0 ||
	    gpuvm_params_choice(p, "org", org_choices, &org, err) < 0 ||
	    gpuvm_params_size(p, "heap", &heap, err) < 0 ||
	    gpuvm_params_u64(p, "buckets", &buckets, err) < 0 ||
	    gpuvm_params_u64(p, "groups", &c->tc.groups, err) < 0 ||
	    gpuvm_params_size(p, "page", &c->tc.page_bytes, err) < 0 ||
	    gpuvm_params_u64(p, "chunk", &c->chunk, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c->threads, err) < 0 ||
	    gpuvm_params_u64(p, "buffers", &c->buffers, err) < 0 ||
	    gpuvm_params_choice(p, "resend", "records|epochs", &c->resend, err) < 0 ||
	    gpuvm_params_choice(p, "keep", "pages|groups", &c->tc.keep_groups, err) < 0 ||
	    gpuvm_params_u64(p, "threshold", &thr, err) < 0 ||
	    gpuvm_params_u64(p, "verify", &verify, err) < 0 ||
	    gpuvm_params_u64(p, "cpu", &c->cpu_threads, err) < 0)
		return -1;
	/* org: the word at index `org` of org_choices */
	char words[48];
	snprintf(words, sizeof words, "%s", org_choices);
	char *w = strtok(words, "|");
	for (unsigned int i = 0; i < org && w; i++)
		w = strtok(NULL, "|");
	c->tc.org = !w || !strcmp(w, "combining") ? SEPO_COMBINING
		    : !strcmp(w, "basic")	    ? SEPO_BASIC
						    : SEPO_MULTI;
	c->tc.combine_op = SEPO_COMB_ADD;
	c->tc.placement = (enum sepo_placement)place;
	c->tc.threshold_pct = (unsigned int)thr;
	c->verify = (int)verify;
	c->tc.nbuckets = buckets ? buckets : (c->records / 2 > 1024 ? c->records / 2 : 1024);
	c->entry_words = c->tc.org == SEPO_MULTI
				 ? 3 + (c->key_bytes + 7) / 8 /* key entry; values separately */
				 : 2 + (c->key_bytes + 7) / 8 + (c->value_bytes + 7) / 8;
	unsigned int value_node = 2 + (c->value_bytes + 7) / 8;
	uint64_t per_record = (uint64_t)(c->entry_words + (c->tc.org == SEPO_MULTI ? value_node : 0)) * 8;
	if (c->app == APP_WC)
		per_record *= 64 / 5; /* at most 12 words of 4+ letters per 64-byte line */
	if (c->app == APP_II)
		per_record *= 120 / 7; /* at most one link per 7 bytes of text */
	c->tc.bound_bytes = c->records * per_record;
	if (c->entry_words > c->tc.page_bytes / 8 || value_node > c->tc.page_bytes / 8)
		return gpuvm_fail(err, "--workload", 0, "page", "a %llu-byte page cannot hold one entry",
				  (unsigned long long)c->tc.page_bytes);
	if (!heap)
		heap = cfg->uvm_device_memory_bytes;
	if (!heap) {
		/* room for everything: a page wastes less than one entry at its end,
		 * and each group leaves a partly used key and value page */
		uint64_t per_page = c->tc.page_bytes - (uint64_t)c->entry_words * 8 + 8;
		uint64_t pages = c->tc.bound_bytes / per_page + 1;
		uint64_t groups = c->tc.groups ? c->tc.groups : pages / 25 + 1;
		heap = (pages + 2 * groups + 2) * c->tc.page_bytes;
	}
	c->tc.heap_bytes = heap;
	if (!c->tc.groups) {
		/* BRB_HashTable initMultipassBookkeeping: groups = heap pages / pagePerGroup */
		uint64_t pages = (c->tc.placement == SEPO_PLACE_SEPO ? heap : c->tc.bound_bytes) / c->tc.page_bytes;
		c->tc.groups = pages / 25 ? pages / 25 : 1;
	}
	if (c->tc.groups > c->tc.nbuckets)
		return gpuvm_fail(err, "--workload", 0, "groups", "more groups (%llu) than buckets (%llu)",
				  (unsigned long long)c->tc.groups, (unsigned long long)c->tc.nbuckets);
	if (c->tc.placement == SEPO_PLACE_SEPO && heap < c->tc.page_bytes)
		return gpuvm_fail(err, "--workload", 0, "heap", "a heap of %llu bytes holds no %llu-byte page",
				  (unsigned long long)heap, (unsigned long long)c->tc.page_bytes);
	return 0;
}

static int create_common(const char *name, struct sepo_app_cfg *c, struct gpuvm_source *out,
			 struct gpuvm_error *err)
{
	struct sepo_app_cfg *u = malloc(sizeof *u);
	if (!u) {
		if (c->log.fd >= 0)
			log_reader_close(&c->log);
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	}
	*u = *c;
	return simt_program_source(name, sepo_app_host, u, app_free, out, err);
}

/* input=FILE: the file's lines are the records (a web log, raw_bytes 0,
 * or records of raw_bytes); records= defaults to its lines. */
static int open_input(const struct gpuvm_params *p, struct sepo_app_cfg *c, uint32_t raw_bytes,
		      struct gpuvm_error *err)
{
	const char *path = gpuvm_params_text(p, "input");
	if (!path || !*path)
		return 0;
	snprintf(c->input, sizeof c->input, "%s", path);
	if (raw_bytes ? log_reader_open_lines(&c->log, path, raw_bytes, err)
		      : log_reader_open(&c->log, path, err))
		return -1;
	uint64_t given = 0;
	int has = gpuvm_params_u64(p, "records", &given, err);
	if (has > 0 && given > c->log.lines) {
		log_reader_close(&c->log);
		return gpuvm_fail(err, "--workload", 0, "records", "%llu records, but %s has %llu lines",
				  (unsigned long long)given, path, (unsigned long long)c->log.lines);
	}
	c->records = has > 0 ? given : c->log.lines;
	return 0;
}

static int pvc_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct sepo_app_cfg c;
	memset(&c, 0, sizeof c);
	c.log.fd = -1;
	c.app = APP_PVC;
	c.records = 262144;
	uint64_t urls = 131072;
	double s = 0.8;
	if (gpuvm_params_u64(p, "records", &c.records, err) < 0 ||
	    gpuvm_params_u64(p, "urls", &urls, err) < 0 || gpuvm_params_double(p, "zipf", &s, err) < 0)
		return -1;
	c.rec_words = 8;
	c.key_bytes = 64;
	c.value_bytes = 8;
	if (open_input(p, &c, 0, err))
		return -1;
	if (common_parse(cfg, p, &c, "combining|basic|multi", err)) {
		if (c.log.fd >= 0)
			log_reader_close(&c.log);
		return -1;
	}
	gen_pvc_init(&c.pvc, seed, urls, s);
	return create_common("sepo-pvc", &c, out, err);
}

static int kv_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct sepo_app_cfg c;
	memset(&c, 0, sizeof c);
	c.log.fd = -1;
	c.app = APP_KV;
	c.records = 131072;
	uint64_t dup = 2, kb = 16, vb = 8;
	if (gpuvm_params_u64(p, "records", &c.records, err) < 0 ||
	    gpuvm_params_u64(p, "dup", &dup, err) < 0 || gpuvm_params_u64(p, "key", &kb, err) < 0 ||
	    gpuvm_params_u64(p, "value", &vb, err) < 0)
		return -1;
	c.key_bytes = (unsigned int)kb;
	c.value_bytes = (unsigned int)vb;
	if (common_parse(cfg, p, &c, "basic|multi|combining", err))
		return -1;
	uint64_t keys = c.records / dup ? c.records / dup : 1;
	gen_kv_init(&c.kv, seed, keys, c.key_bytes, c.value_bytes);
	c.rec_words = c.kv.rec_words;
	return create_common("sepo-kv", &c, out, err);
}

static int wc_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct sepo_app_cfg c;
	memset(&c, 0, sizeof c);
	c.log.fd = -1;
	c.app = APP_WC;
	c.records = 131072;
	uint64_t vocab = 65536;
	double s = 1.0;
	if (gpuvm_params_u64(p, "lines", &c.records, err) < 0 ||
	    gpuvm_params_u64(p, "vocab", &vocab, err) < 0 || gpuvm_params_double(p, "zipf", &s, err) < 0)
		return -1;
	c.rec_words = 8;
	c.key_bytes = 32; /* MapReduce_WC: words of 4-32 characters */
	c.value_bytes = 8;
	if (common_parse(cfg, p, &c, "combining|basic|multi", err))
		return -1;
	gen_text_init(&c.text, seed, vocab, s);
	return create_common("sepo-wc", &c, out, err);
}

static int ii_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct sepo_app_cfg c;
	memset(&c, 0, sizeof c);
	c.log.fd = -1;
	c.app = APP_II;
	c.records = 131072;
	uint64_t urls = 65536, per_doc = 8;
	double s = 0.8;
	if (gpuvm_params_u64(p, "records", &c.records, err) < 0 ||
	    gpuvm_params_u64(p, "urls", &urls, err) < 0 || gpuvm_params_double(p, "zipf", &s, err) < 0 ||
	    gpuvm_params_u64(p, "per_doc", &per_doc, err) < 0)
		return -1;
	c.rec_words = 16;
	c.key_bytes = 64;
	c.value_bytes = 8;
	if (common_parse(cfg, p, &c, "multi|combining|basic", err))
		return -1;
	gen_html_init(&c.html, seed, urls, s, per_doc);
	return create_common("sepo-ii", &c, out, err);
}

static int estimate_common(uint64_t records, uint64_t per, uint64_t *acc)
{
	*acc = records * per;
	return 0;
}

/* Netflix, DNA Assembly, Patent Citation, Geo Location: one pair per
 * fixed-size record (sepo_record_pair). */
static int record_create(enum sepo_app app, const struct gpuvm_config *cfg,
			 const struct gpuvm_params *p, uint64_t seed, struct gpuvm_source *out,
			 struct gpuvm_error *err)
{
	struct sepo_app_cfg c;
	memset(&c, 0, sizeof c);
	c.log.fd = -1;
	c.app = app;
	c.records = app == APP_PATENT ? 262144 : 131072;
	uint64_t n1 = 0, n2 = 0;
	double s = 1.0;
	const char *orgs = "combining|basic|multi";
	c.rec_words = 8;
	c.value_bytes = 8;
	if (gpuvm_params_u64(p, "records", &c.records, err) < 0)
		return -1;
	if (app == APP_NETFLIX) {
		n1 = 4096, n2 = 17770, s = 0.6;
		c.key_bytes = 8;
		if (gpuvm_params_u64(p, "users", &n1, err) < 0 || gpuvm_params_u64(p, "movies", &n2, err) < 0)
			return -1;
	} else if (app == APP_DNA) {
		n1 = 65536, n2 = 2;
		c.key_bytes = 46;
		c.value_bytes = 16;
		if (gpuvm_params_u64(p, "genome", &n1, err) < 0 || gpuvm_params_u64(p, "errors", &n2, err) < 0)
			return -1;
	} else if (app == APP_PATENT) {
		n1 = 131072, s = 0.8;
		c.rec_words = 2;
		c.key_bytes = 8;
		orgs = "multi|combining|basic";
		if (gpuvm_params_u64(p, "patents", &n1, err) < 0)
			return -1;
	} else {
		n1 = 32768;
		c.key_bytes = 64; /* a location: up to 62 bytes of a record */
		orgs = "multi|combining|basic";
		if (gpuvm_params_u64(p, "places", &n1, err) < 0)
			return -1;
	}
	if (app != APP_DNA && gpuvm_params_double(p, "zipf", &s, err) < 0)
		return -1;
	if (open_input(p, &c, c.rec_words * 8, err))
		return -1;
	if (common_parse(cfg, p, &c, orgs, err)) {
		if (c.log.fd >= 0)
			log_reader_close(&c.log);
		return -1;
	}
	if (app == APP_NETFLIX)
		gen_netflix_init(&c.netflix, seed, n1, n2, s);
	else if (app == APP_DNA)
		gen_dna_init(&c.dna, seed, n1, (unsigned int)n2);
	else if (app == APP_PATENT)
		gen_patent_init(&c.patent, seed, n1, s);
	else
		gen_geo_init(&c.geo, seed, n1, s);
	if (app == APP_DNA)
		c.tc.combine_op = SEPO_COMB_COUNT_OR;
	static const char *const names[] = {[APP_NETFLIX] = "sepo-netflix", [APP_DNA] = "sepo-dna",
					    [APP_PATENT] = "sepo-patent", [APP_GEO] = "sepo-geo"};
	return create_common(names[app], &c, out, err);
}

static int netflix_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
			  struct gpuvm_source *out, struct gpuvm_error *err)
{
	return record_create(APP_NETFLIX, cfg, p, seed, out, err);
}

static int dna_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	return record_create(APP_DNA, cfg, p, seed, out, err);
}

static int patent_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
			 struct gpuvm_source *out, struct gpuvm_error *err)
{
	return record_create(APP_PATENT, cfg, p, seed, out, err);
}

static int geo_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	return record_create(APP_GEO, cfg, p, seed, out, err);
}

static int record_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t *acc,
			   struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t r = 131072;
	if (gpuvm_params_u64(p, "records", &r, err) < 0)
		return -1;
	/* the record's words, the done bit, a chain step or two, the entry */
	return estimate_common(r, 30, acc);
}

#define SEPO_RECORD_WORKLOAD(var, wname, what, ws, plist, create_fn)                                  \
	const struct gpuvm_workload_def var = {                                                     \
		.name = wname,                                                                      \
		.summary = what,                                                                    \
		.working_set = ws,                                                                  \
		.params = plist,                                                                    \
		.n_params = sizeof plist / sizeof plist[0],                                         \
		.ranges = sepo_ranges,                                                              \
		.n_ranges = sizeof sepo_ranges / sizeof sepo_ranges[0],                             \
		.create = create_fn,                                                                \
		.estimate = record_estimate,                                                        \
	}

SEPO_RECORD_WORKLOAD(gpuvm_workload_sepo_netflix, "sepo-netflix",
		     "Netflix user similarity on the SePo hash table (combining): rating pairs -> "
		     "<user pair, score>",
		     "table ~ distinct user pairs x 32 B; input streamed, 64 B per record", netflix_params,
		     netflix_create);
SEPO_RECORD_WORKLOAD(gpuvm_workload_sepo_dna, "sepo-dna",
		     "DNA Assembly's first stage on the SePo hash table (combining): reads -> <fragment, "
		     "count and edges>",
		     "table ~ distinct fragments x 80 B; input streamed, 64 B per read", dna_params,
		     dna_create);
SEPO_RECORD_WORKLOAD(gpuvm_workload_sepo_patent, "sepo-patent",
		     "Patent Citation on the SePo MapReduce runtime (MAP_GROUP): citations -> <cited, "
		     "citing patents>",
		     "table ~ cited patents x 32 B + citations x 24 B; input streamed, 16 B per record",
		     patent_params, patent_create);
SEPO_RECORD_WORKLOAD(gpuvm_workload_sepo_geo, "sepo-geo",
		     "Geo Location on the SePo MapReduce runtime (MAP_GROUP): articles -> <location, "
		     "article ids>",
		     "table ~ places x 40 B + articles x 24 B; input streamed, 64 B per record", geo_params,
		     geo_create);

static int pvc_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t *acc,
			struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t r = 262144;
	if (gpuvm_params_u64(p, "records", &r, err) < 0)
		return -1;
	/* ~8 record loads, a chain step, lock, value update per record (x32 lanes... per thread) */
	return estimate_common(r, 24, acc);
}

static int kv_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t *acc,
		       struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t r = 131072;
	if (gpuvm_params_u64(p, "records", &r, err) < 0)
		return -1;
	return estimate_common(r, 40, acc);
}

static int wc_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t *acc,
		       struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t r = 131072;
	if (gpuvm_params_u64(p, "lines", &r, err) < 0)
		return -1;
	return estimate_common(r, 120, acc);
}

const struct gpuvm_workload_def gpuvm_workload_sepo_pvc = {
	.name = "sepo-pvc",
	.summary = "Page View Count on the SePo hash table (Mokhtari ch. 6): Zipf web log -> <URL, count>",
	.working_set = "table ~ distinct URLs x 48-80 B (+ page slack); input streamed in chunks of 64 B x chunk",
	.params = pvc_params,
	.n_params = sizeof pvc_params / sizeof pvc_params[0],
	.ranges = sepo_ranges,
	.n_ranges = sizeof sepo_ranges / sizeof sepo_ranges[0],
	.create = pvc_create,
	.estimate = pvc_estimate,
};

static int ii_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t *acc,
		       struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t r = 131072;
	if (gpuvm_params_u64(p, "records", &r, err) < 0)
		return -1;
	return estimate_common(r, 60, acc);
}

const struct gpuvm_workload_def gpuvm_workload_sepo_ii = {
	.name = "sepo-ii",
	.summary = "Inverted Index on the SePo hash table (MAP_GROUP): HTML links -> <URL, page ids>",
	.working_set = "table ~ distinct URLs x 48-88 B + links x 24 B; input streamed, 128 B per record",
	.params = ii_params,
	.n_params = sizeof ii_params / sizeof ii_params[0],
	.ranges = sepo_ranges,
	.n_ranges = sizeof sepo_ranges / sizeof sepo_ranges[0],
	.create = ii_create,
	.estimate = ii_estimate,
};

const struct gpuvm_workload_def gpuvm_workload_sepo_kv = {
	.name = "sepo-kv",
	.summary = "SePo hash-table insert rate (Mokhtari Fig. 6.8): random pairs, duplicates, any organisation",
	.working_set = "table ~ records/dup x (16 B + key + value) (basic: records x ...)",
	.params = kv_params,
	.n_params = sizeof kv_params / sizeof kv_params[0],
	.ranges = sepo_ranges,
	.n_ranges = sizeof sepo_ranges / sizeof sepo_ranges[0],
	.create = kv_create,
	.estimate = kv_estimate,
};

const struct gpuvm_workload_def gpuvm_workload_sepo_wc = {
	.name = "sepo-wc",
	.summary = "Word Count on the SePo MapReduce runtime (MAP_REDUCE: combining + reduce = add)",
	.working_set = "table ~ distinct words x 40-56 B; input streamed, 64 B per line",
	.params = wc_params,
	.n_params = sizeof wc_params / sizeof wc_params[0],
	.ranges = sepo_ranges,
	.n_ranges = sizeof sepo_ranges / sizeof sepo_ranges[0],
	.create = wc_create,
	.estimate = wc_estimate,
};
