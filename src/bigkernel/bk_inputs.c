/* Inputs and CPU references of the BigKernel applications (bk_inputs.h). */
#include "bigkernel/bk_inputs.h"
#include "gpuvm/number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigdata/gen.h"
#include "bigkernel/bk_device.h"

void bk_gen_particles(unsigned char *out, uint64_t n, double *cent, uint64_t seed)
{
	double centre[BK_KM_K * BK_KM_DIMS];
	struct gen_rng r = gen_rng_at(seed, 0x6b6d, 0);
	for (int i = 0; i < BK_KM_K * BK_KM_DIMS; i++) {
		centre[i] = 100.0 * gen_unit(&r);
		cent[i] = centre[i] + 4.0 * (gen_unit(&r) - 0.5);
	}
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng q = gen_rng_at(seed, 0x6b6e, i);
		double rec[BK_KM_REC / 8];
		int k = (int)(gen_next(&q) % BK_KM_K);
		for (int d = 0; d < BK_KM_DIMS; d++) /* a bell of width ~15 around the centre */
			rec[d] = centre[k * BK_KM_DIMS + d] +
				 5.0 * (gen_unit(&q) + gen_unit(&q) + gen_unit(&q) - 1.5);
		for (int d = BK_KM_DIMS + 1; d < BK_KM_REC / 8; d++) /* mass, velocity: not read */
			rec[d] = gen_unit(&q);
		memcpy(out + i * BK_KM_REC, rec, BK_KM_REC);
		memset(out + i * BK_KM_REC + BK_KM_CID_OFF, 0xff, 8);
	}
}

void bk_gen_ratings(unsigned char *out, uint64_t n, unsigned users, unsigned movies, uint64_t seed)
{
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng q = gen_rng_at(seed, 0x6e66, i);
		unsigned int f[BK_NF_REC / 4];
		f[0] = (unsigned)(gen_next(&q) % movies);
		f[1] = (unsigned)(gen_next(&q) % users);
		f[3] = (unsigned)(gen_next(&q) % users);
		f[2] = 1 + (unsigned)(gen_next(&q) % 5);
		/* users agree often: equal 40 %, one apart 30 % */
		unsigned u = (unsigned)(gen_next(&q) % 10);
		f[4] = u < 4 ? f[2] : u < 7 ? (f[2] < 5 ? f[2] + 1 : f[2] - 1) : 1 + (unsigned)(gen_next(&q) % 5);
		f[5] = 20050000 + (unsigned)(gen_next(&q) % 10000); /* dates: not read */
		f[6] = 20050000 + (unsigned)(gen_next(&q) % 10000);
		for (int k = 7; k < BK_NF_REC / 4; k++)
			f[k] = (unsigned)gen_next(&q);
		memcpy(out + i * BK_NF_REC, f, BK_NF_REC);
	}
}

void bk_gen_dna(unsigned char *out, uint64_t n, uint64_t seed)
{
	static const char acgt[4] = {'A', 'C', 'G', 'T'};
	enum { GENOME = 1 << 16 };
	char *g = malloc(GENOME);
	if (!g)
		abort();
	struct gen_rng r = gen_rng_at(seed, 0x646e61, 0);
	for (int i = 0; i < GENOME; i++)
		g[i] = acgt[gen_next(&r) & 3];
	uint64_t positions = n / 4 ? n / 4 : 1;
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng q = gen_rng_at(seed, 0x646e62, i);
		unsigned char *rec = out + i * BK_DNA_REC;
		uint64_t pos = gen_next(&q) % positions * 7919 % (GENOME - 48);
		char id[40];
		snprintf(id, sizeof id, "@frag%026llu", (unsigned long long)i);
		memcpy(rec, id, 31);
		rec[31] = '\n';
		memcpy(rec + BK_DNA_READ_OFF, g + pos, 48);
		if (gen_next(&q) % 20 == 0) /* a read error */
			rec[BK_DNA_READ_OFF + gen_next(&q) % BK_DNA_BASES] = (unsigned char)acgt[gen_next(&q) & 3];
		rec[80] = '\n';
		rec[81] = '+';
		rec[82] = '\n';
		for (int k = 83; k < 127; k++) /* quality: not read */
			rec[k] = (unsigned char)('!' + gen_next(&q) % 40);
		rec[127] = '\n';
	}
	free(g);
}

/* ---- Opinion Finder ---------------------------------------------------- */

#define OF_VOCAB 5000u

/* Dictionary word id -> vocabulary rank: adverbs 20-29, subject 30-37,
 * positive 40-79, negative 80-119 (frequent words, so tweets hit them) */
static uint64_t of_rank(unsigned id)
{
	return id < 8 ? 30 + id : id < 48 ? 40 + (id - 8) : id < 88 ? 80 + (id - 48) : 20 + (id - 88);
}

int bk_of_word_class(unsigned id)
{
	return id < 8 ? BK_OF_SUBJECT : id < 48 ? BK_OF_POS : id < 88 ? BK_OF_NEG : BK_OF_ADVERB;
}

unsigned bk_of_word(uint64_t seed, unsigned id, char *w)
{
	return gen_text_word(seed, of_rank(id), w);
}

void bk_gen_tweets(unsigned char *out, uint64_t n, uint64_t seed)
{
	struct gen_zipf z;
	gen_zipf_init(&z, OF_VOCAB, 1.0);
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng q = gen_rng_at(seed, 0x6f66, i);
		unsigned char *rec = out + i * BK_OF_REC;
		memset(rec, ' ', BK_OF_REC);
		unsigned at = 0;
		for (;;) {
			char w[16];
			unsigned len = gen_text_word(seed, gen_zipf_sample(&z, &q) - 1, w);
			if (at + len > BK_OF_TEXT)
				break;
			if (gen_next(&q) % 8 == 0) /* capitalised: the kernel folds case */
				w[0] = (char)(w[0] - 32);
			memcpy(rec + at, w, len);
			at += len + 1;
		}
		char meta[40];
		int m = snprintf(meta, sizeof meta, "|%010llu|%08llu|",
				 (unsigned long long)(1400000000u + gen_next(&q) % 100000000u),
				 (unsigned long long)(gen_next(&q) % 100000000u));
		memcpy(rec + BK_OF_TEXT, meta, (size_t)m);
		rec[BK_OF_REC - 1] = '\n';
	}
}

static int of_in(const unsigned long long *keys, uint64_t mask, int d, uint64_t h)
{
	const unsigned long long *t = keys + (uint64_t)d * (mask + 1);
	uint64_t slot = h & mask;
	while (t[slot] && t[slot] != h)
		slot = (slot + 1) & mask;
	return t[slot] == h;
}

/* The kernel's algorithm (bk_kernels.h, bk_of): the subject's keywords
 * looked up for every word, the three dictionaries for the words of a
 * tweet that mentions it. */
int bk_of_reference(const unsigned char *rec, const unsigned long long *keys, uint64_t mask,
		    long long *sc)
{
	uint64_t words[BK_OF_TEXT / 2 + 1];
	unsigned nw = 0;
	int mention = 0;
	unsigned i = 0;
	while (i < BK_OF_TEXT) {
		uint64_t h = BK_FNV_BASIS;
		unsigned len = 0;
		for (; i < BK_OF_TEXT; i++) {
			unsigned char ch = rec[i];
			if (ch >= 'A' && ch <= 'Z')
				ch = (unsigned char)(ch + 32);
			if (!((ch >= 'a' && ch <= 'z') || ch == '\''))
				break;
			h = (h ^ ch) * BK_FNV_PRIME;
			len++;
		}
		i++;
		if (!len)
			continue;
		mention |= of_in(keys, mask, BK_OF_D_SUBJECT, h | 1);
		words[nw++] = h | 1;
	}
	if (!mention)
		return 0;
	long long s = 0;
	int adverb = 0;
	for (unsigned k = 0; k < nw; k++) {
		int wt = adverb ? 2 : 1;
		adverb = 0;
		if (of_in(keys, mask, BK_OF_D_POS, words[k]))
			s += wt;
		else if (of_in(keys, mask, BK_OF_D_NEG, words[k]))
			s -= wt;
		else
			adverb = of_in(keys, mask, BK_OF_D_ADVERB, words[k]);
	}
	*sc = s;
	return 1;
}

/* ---- MasterCard Affinity ---------------------------------------------- */

uint64_t bk_gen_transactions(unsigned char *out, uint64_t blocks, unsigned customers,
			     unsigned merchants, uint64_t seed, uint64_t *index)
{
	struct gen_zipf z;
	gen_zipf_init(&z, merchants, 1.0);
	uint64_t txns = 0;
	for (uint64_t b = 0; b < blocks; b++) {
		unsigned char *blk = out + b * BK_MCA_BLOCK;
		memset(blk, '\n', BK_MCA_BLOCK);
		struct gen_rng q = gen_rng_at(seed, 0x6d6361, b);
		unsigned at = 0;
		for (;;) {
			char rec[160];
			unsigned cust = (unsigned)(gen_next(&q) % (customers / 8));
			unsigned merch = (unsigned)(gen_zipf_sample(&z, &q) - 1);
			int len = snprintf(rec, sizeof rec, "4%015u|%06u|M%07u|%u.%02u|2016-%02u-%02u|", cust,
					   (unsigned)(gen_next(&q) % 1000000), merch,
					   (unsigned)(gen_next(&q) % 500), (unsigned)(gen_next(&q) % 100),
					   1 + (unsigned)(gen_next(&q) % 12), 1 + (unsigned)(gen_next(&q) % 28));
			/* other values of varying length: the records' variable part */
			unsigned other = 12 + (unsigned)(gen_next(&q) % 51);
			for (unsigned k = 0; k < other; k++)
				rec[len++] = (char)('a' + gen_next(&q) % 26);
			while ((len + 1) % 8) /* whole 8-byte words: the indexed fields stay aligned */
				rec[len++] = ' ';
			rec[len++] = '\n';
			if (at + (unsigned)len > BK_MCA_BLOCK)
				break;
			memcpy(blk + at, rec, (size_t)len);
			if (index)
				index[txns] = b * BK_MCA_BLOCK + at;
			txns++;
			at += (unsigned)len;
		}
	}
	return txns;
}

void bk_mca_reference(const unsigned char *in, uint64_t bytes, unsigned x, unsigned *counts)
{
	unsigned char *marked = calloc(BK_MCA_CUSTOMERS, 1);
	if (!marked)
		abort();
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i < bytes;) {
			const unsigned char *e = memchr(in + i, '\n', bytes - i);
			uint64_t len = e ? (uint64_t)(e - (in + i)) : bytes - i;
			if (len >= 32) {
				char f[16];
				memcpy(f, in + i + 1, 15);
				f[15] = 0;
				/* zero-padded digit fields bk_gen_transactions wrote */
				uint64_t cust64 = 0, merch64 = 0;
				gpuvm_scan_u64(f, NULL, 0, UINT64_MAX, &cust64);
				unsigned cust = (unsigned)(cust64 % BK_MCA_CUSTOMERS);
				memcpy(f, in + i + 25, 7);
				f[7] = 0;
				gpuvm_scan_u64(f, NULL, 0, UINT32_MAX, &merch64);
				unsigned merch = (unsigned)merch64;
				if (pass == 0 && merch == x)
					marked[cust] = 1;
				else if (pass == 1 && marked[cust])
					counts[merch % BK_MCA_MERCHANTS]++;
			}
			i += len + 1;
		}
	free(marked);
}
